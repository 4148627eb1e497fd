# SPDX-License-Identifier: GPL-2.0
# raidkmctl: "raidkmctl status" over the raidkm generic netlink family.
RKMCTL_BIN := $(BUILD)/bin/raidkmctl
USER_BINS  += $(RKMCTL_BIN)
GUEST_BINS += $(RKMCTL_BIN)

$(RKMCTL_BIN): $(TOP)/tools/ctl/raidkmctl.c $(TOP)/kernel/raidkm/uapi/raidkm.h
	@mkdir -p $(@D)
	$(CC) $(HOST_CFLAGS) $(RKMD_NL_CFLAGS) $(USER_LDFLAGS) -o $@ $< $(RKMD_NL_LIBS)
