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
