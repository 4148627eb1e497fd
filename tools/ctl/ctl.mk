# SPDX-License-Identifier: GPL-2.0
# raidkmctl: "raidkmctl status [--json]" over the raidkm generic netlink
# family and raidkmd's GPU status file (ctl_gpus.c); ctl_print.c prints
# (no netlink: the unit tests link it and ctl_gpus.c alone).
RKMCTL_BIN := $(BUILD)/bin/raidkmctl
USER_BINS  += $(RKMCTL_BIN)
GUEST_BINS += $(RKMCTL_BIN)
# place.c: the op and size class names of the placement lines
RKMCTL_PLACE := $(TOP)/kernel/raidkm/place.c
RKMCTL_SRCS := $(TOP)/tools/ctl/raidkmctl.c $(TOP)/tools/ctl/ctl_print.c \
	$(TOP)/tools/ctl/ctl_gpus.c $(TOP)/tools/ctl/ctl_km.c $(RKMCTL_PLACE)
RKMCTL_HDRS := $(TOP)/tools/ctl/ctl_status.h $(TOP)/tools/ctl/ctl_gpus.h \
	$(TOP)/tools/ctl/ctl_km.h \
	$(TOP)/daemon/gpu/gpu_status.h $(TOP)/kernel/raidkm/uapi/raidkm.h
RKMCTL_CFLAGS := $(HOST_CFLAGS) -I$(TOP)/tools/ctl -I$(TOP)/daemon

$(RKMCTL_BIN): $(RKMCTL_SRCS) $(RKMCTL_HDRS)
	@mkdir -p $(@D)
	$(Q_CC)$(CC) $(RKMCTL_CFLAGS) $(RKMD_NL_CFLAGS) $(USER_LDFLAGS) -o $@ $(RKMCTL_SRCS) $(RKMD_NL_LIBS)

# unit test of the printing (text and --json, checked by python3)
CTL_PRINT_TEST := $(BUILD)/tests/ctl_print_test
UNIT_TESTS += $(CTL_PRINT_TEST)
$(CTL_PRINT_TEST): $(TOP)/tests/unit/ctl_print_test.c $(TOP)/tools/ctl/ctl_print.c \
		$(RKMCTL_HDRS) $(TOP)/tests/unit/unit_check.h \
		$(TOP)/tests/unit/ctl_test_util.h
	@mkdir -p $(@D)
	$(Q_CC)$(CC) $(RKMCTL_CFLAGS) -o $@ $< $(TOP)/tools/ctl/ctl_print.c \
		$(RKMCTL_PLACE)

# unit test of the GPU status file: good, stale, malformed, truncated
# (every prefix) and damaged files, read and printed; ASan and UBSan where
# the compiler has them (FUZZ_SAN, tests/unit/ring.mk)
CTL_GPUS_TEST := $(BUILD)/tests/ctl_gpus_test
UNIT_TESTS += $(CTL_GPUS_TEST)
$(CTL_GPUS_TEST): $(TOP)/tests/unit/ctl_gpus_test.c $(TOP)/tools/ctl/ctl_gpus.c \
		$(TOP)/tools/ctl/ctl_print.c $(RKMCTL_HDRS) $(TOP)/tests/unit/unit_check.h \
		$(TOP)/tests/unit/ctl_test_util.h
	@mkdir -p $(@D)
	$(Q_CC)$(CC) $(RKMCTL_CFLAGS) $(FUZZ_SAN) -o $@ $< $(TOP)/tools/ctl/ctl_gpus.c \
		$(TOP)/tools/ctl/ctl_print.c $(RKMCTL_PLACE)

# unit test of the km data path counters read from a made-up sysfs tree
CTL_KM_TEST := $(BUILD)/tests/ctl_km_test
UNIT_TESTS += $(CTL_KM_TEST)
$(CTL_KM_TEST): $(TOP)/tests/unit/ctl_km_test.c $(TOP)/tools/ctl/ctl_km.c \
		$(TOP)/tools/ctl/ctl_print.c $(RKMCTL_HDRS) $(TOP)/tests/unit/unit_check.h \
		$(TOP)/tests/unit/ctl_test_util.h
	@mkdir -p $(@D)
	$(Q_CC)$(CC) $(RKMCTL_CFLAGS) -o $@ $< $(TOP)/tools/ctl/ctl_km.c \
		$(TOP)/tools/ctl/ctl_print.c $(RKMCTL_PLACE)
