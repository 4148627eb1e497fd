# SPDX-License-Identifier: GPL-2.0
# Benchmarks.  "make bench-codec": the codec against ISA-L (libisal-dev),
# one thread; see Documentation/codec.rst.  Other benchmarks append their
# targets below.

BENCH_CODEC := $(BUILD)/bench/bench_codec

$(BENCH_CODEC): $(TOP)/tools/bench/bench_codec.c $(RKM_CODEC_LIB) $(RKM_CODEC_HDRS)
	@mkdir -p $(@D)
	$(CC) $(HOST_CFLAGS) -o $@ $< $(RKM_CODEC_LIB) -lisal -lpthread

.PHONY: bench-codec
bench-codec: $(BENCH_CODEC)
	$(BENCH_CODEC)

# "make bench-gpu-guest": md raid6 4+2 against km 4+2 and 8+3 in one QEMU
# guest, km coded by the in-kernel codec and served by raidkmd on this
# machine through the guest-RAM bridge (RKM_BRIDGE_BACKEND, default cpu);
# medians of interleaved rounds (BENCH_ROUNDS, BENCH_MIB); see
# Documentation/testing.rst.  The GPU run is, on the GPU host, with the
# bundle of "make gpu-guest" (raidkmd --backend=cuda):
#   tools/bench/bench-gpu-guest.sh --gpu --save DIR
.PHONY: bench-gpu-guest
bench-gpu-guest: vm-image $(RKMD_BIN)
	@$(TOP)/tools/bench/bench-gpu-guest.sh
