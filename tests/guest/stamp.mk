# SPDX-License-Identifier: GPL-2.0
# rkm-stamp: fills, rewrites and verifies arrays with 4 KiB blocks that
# carry their identity and generation (tests/guest/km-write-hole.sh).
RKM_STAMP := $(BUILD)/bin/rkm-stamp

$(RKM_STAMP): $(TOP)/tests/guest/stamp.c
	@mkdir -p $(dir $@)
	$(Q_CC)$(CC) $(HOST_CFLAGS) -pthread -o $@ $<

GUEST_BINS += $(RKM_STAMP)
