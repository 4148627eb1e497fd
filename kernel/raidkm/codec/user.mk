# SPDX-License-Identifier: GPL-2.0
# The codec in user space: build/lib/librkmcodec.a from the very sources
# raidkm.ko builds (codec.kbuild), with the same per-ISA flags; its unit
# test; and "make bench-codec" (tools/bench/bench.mk).
#
# Other parts link $(RKM_CODEC_LIB) (and -lpthread); its header is
# kernel/raidkm/codec/rkm_codec.h (#include "codec/rkm_codec.h" with
# HOST_CFLAGS).

RKM_CODEC_DIR   := $(TOP)/kernel/raidkm/codec
RKM_CODEC_OBJ   := $(BUILD)/codec
RKM_CODEC_LIB   := $(BUILD)/lib/librkmcodec.a
RKM_CODEC_HDRS  := $(wildcard $(RKM_CODEC_DIR)/*.h)
RKM_CODEC_NAMES := gf mat scalar select codec ssse3 avx2 avx512 gfni
RKM_CODEC_OBJS  := $(addprefix $(RKM_CODEC_OBJ)/,$(addsuffix .o,$(RKM_CODEC_NAMES)))
export RKM_CODEC_LIB

RKM_CODEC_FLAGS_ssse3  := -mssse3
RKM_CODEC_FLAGS_avx2   := -mavx2
RKM_CODEC_FLAGS_avx512 := -mavx512f -mavx512bw
RKM_CODEC_FLAGS_gfni   := -mgfni -mavx2 -mavx512f -mavx512bw

$(RKM_CODEC_OBJ)/%.o: $(RKM_CODEC_DIR)/%.c $(RKM_CODEC_HDRS)
	@mkdir -p $(@D)
	$(CC) $(HOST_CFLAGS) $(RKM_CODEC_FLAGS_$*) -c -o $@ $<

$(RKM_CODEC_LIB): $(RKM_CODEC_OBJS)
	@mkdir -p $(@D)
	rm -f $@
	ar rcs $@ $^

# ---- unit test ----------------------------------------------------------
RKM_CODEC_TEST := $(BUILD)/tests/codec_test
UNIT_TESTS += $(RKM_CODEC_TEST)

$(RKM_CODEC_TEST): $(TOP)/tests/unit/codec_test.c $(RKM_CODEC_LIB) $(RKM_CODEC_HDRS)
	@mkdir -p $(@D)
	$(CC) $(HOST_CFLAGS) -o $@ $< $(RKM_CODEC_LIB) -lpthread

.PHONY: codec-lib
codec-lib: $(RKM_CODEC_LIB)
