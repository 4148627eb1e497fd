# SPDX-License-Identifier: GPL-2.0
# Unit tests of the offload ring protocol, its fuzz driver and the daemon
# end to end over the loopback (variables from daemon/daemon.mk).

RING_TEST        := $(BUILD)/tests/ring_test
FUZZ_RING_TEST   := $(BUILD)/tests/fuzz_ring
DAEMON_LOOP_TEST := $(BUILD)/tests/daemon_loop_test
UNIT_TESTS += $(RING_TEST) $(FUZZ_RING_TEST) $(DAEMON_LOOP_TEST)

$(RING_TEST): $(TOP)/tests/unit/ring_test.c $(TOP)/tests/unit/unit_check.h $(RKMD_LIB) $(RKM_RING_LIB) $(RKMD_HDRS)
	@mkdir -p $(@D)
	$(Q_CC)$(CC) $(RKMD_CFLAGS) -o $@ $< $(RKMD_LIB) $(RKM_RING_LIB) -pthread

# The fuzz driver builds the ring sources itself, with ASan and UBSan
# where the compiler has them.
FUZZ_SAN := $(shell echo 'int main(void){return 0;}' | $(CC) -x c - -o /dev/null \
	-fsanitize=address,undefined 2>/dev/null && echo -fsanitize=address,undefined -fno-sanitize-recover=undefined)
RKM_RING_SRCS := $(addprefix $(RKM_RING_DIR)/,$(addsuffix .c,$(RKM_RING_NAMES)))

$(FUZZ_RING_TEST): $(TOP)/tests/unit/fuzz_ring.c $(RKM_RING_SRCS) $(RKM_RING_HDRS)
	@mkdir -p $(@D)
	$(Q_CC)$(CC) $(HOST_CFLAGS) $(FUZZ_SAN) -o $@ $< $(RKM_RING_SRCS)

# libFuzzer target (clang only, not a unit test): make fuzz-ring-libfuzzer
FUZZ_LIBFUZZER := $(BUILD)/tests/fuzz_ring_libfuzzer
.PHONY: fuzz-ring-libfuzzer
fuzz-ring-libfuzzer: $(FUZZ_LIBFUZZER)
	$(FUZZ_LIBFUZZER) -max_total_time=60 -seed=1
$(FUZZ_LIBFUZZER): $(TOP)/tests/unit/fuzz_ring.c $(RKM_RING_SRCS) $(RKM_RING_HDRS)
	@mkdir -p $(@D)
	$(Q_CC)clang -O1 -g -std=gnu11 -I$(TOP)/kernel/raidkm -I$(TOP)/kernel/raidkm/uapi \
		-DRKM_LIBFUZZER -fsanitize=fuzzer,address,undefined -o $@ $< $(RKM_RING_SRCS)

$(DAEMON_LOOP_TEST): $(TOP)/tests/unit/daemon_loop_test.c $(TOP)/tests/unit/unit_check.h $(RKMD_LIB) $(RKM_RING_LIB) \
		$(RKMD_CODEC_LIB) $(RKMD_HDRS) | $(RKMD_BIN)
	@mkdir -p $(@D)
	$(Q_CC)$(CC) $(RKMD_CFLAGS) -o $@ $< $(RKMD_LINK)
