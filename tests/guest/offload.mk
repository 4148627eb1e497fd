# SPDX-License-Identifier: GPL-2.0
# rkm-offload-probe: the guest scenarios' raw-netlink client of the
# offload path (tests/guest/offload-*.sh).
RKM_PROBE := $(BUILD)/bin/rkm-offload-probe

$(RKM_PROBE): $(TOP)/tests/guest/offload-probe.c $(TOP)/kernel/raidkm/uapi/raidkm.h
	@mkdir -p $(dir $@)
	$(Q_CC)$(CC) $(HOST_CFLAGS) -o $@ $<

GUEST_BINS += $(RKM_PROBE)
