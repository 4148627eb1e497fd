# SPDX-License-Identifier: GPL-2.0
# raidkmctl: "raidkmctl status [--json]" over the raidkm generic netlink
# family; ctl_print.c prints (no netlink: the unit test links it alone).
RKMCTL_BIN := $(BUILD)/bin/raidkmctl
USER_BINS  += $(RKMCTL_BIN)
GUEST_BINS += $(RKMCTL_BIN)
RKMCTL_SRCS := $(TOP)/tools/ctl/raidkmctl.c $(TOP)/tools/ctl/ctl_print.c
RKMCTL_HDRS := $(TOP)/tools/ctl/ctl_status.h $(TOP)/kernel/raidkm/uapi/raidkm.h

$(RKMCTL_BIN): $(RKMCTL_SRCS) $(RKMCTL_HDRS)
	@mkdir -p $(@D)
	$(CC) $(HOST_CFLAGS) -I$(TOP)/tools/ctl $(RKMD_NL_CFLAGS) $(USER_LDFLAGS) -o $@ $(RKMCTL_SRCS) $(RKMD_NL_LIBS)

# unit test of the printing (text and --json, checked by python3)
CTL_PRINT_TEST := $(BUILD)/tests/ctl_print_test
UNIT_TESTS += $(CTL_PRINT_TEST)
$(CTL_PRINT_TEST): $(TOP)/tests/unit/ctl_print_test.c $(TOP)/tools/ctl/ctl_print.c \
		$(RKMCTL_HDRS) $(TOP)/tests/unit/unit_check.h
	@mkdir -p $(@D)
	$(CC) $(HOST_CFLAGS) -I$(TOP)/tools/ctl -o $@ $< $(TOP)/tools/ctl/ctl_print.c
