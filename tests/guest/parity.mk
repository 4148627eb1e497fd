# SPDX-License-Identifier: GPL-2.0
# rkm-parity: checks a stopped km array's P parity on its members
# (tests/guest/km-member-log.sh).
RKM_PARITY := $(BUILD)/bin/rkm-parity

$(RKM_PARITY): $(TOP)/tests/guest/parity.c
	@mkdir -p $(dir $@)
	$(Q_CC)$(CC) $(HOST_CFLAGS) -o $@ $<

GUEST_BINS += $(RKM_PARITY)
