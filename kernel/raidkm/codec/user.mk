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
RKM_CODEC_NAMES := gf mat scalar select codec selftest ssse3 avx2 avx512 gfni
RKM_CODEC_OBJS  := $(addprefix $(RKM_CODEC_OBJ)/,$(addsuffix .o,$(RKM_CODEC_NAMES)))
export RKM_CODEC_LIB

RKM_CODEC_FLAGS_ssse3  := -mssse3
RKM_CODEC_FLAGS_avx2   := -mavx2
RKM_CODEC_FLAGS_avx512 := -mavx512f -mavx512bw
RKM_CODEC_FLAGS_gfni   := -mgfni -mavx2 -mavx512f -mavx512bw

$(RKM_CODEC_OBJ)/%.o: $(RKM_CODEC_DIR)/%.c $(RKM_CODEC_HDRS)
	@mkdir -p $(@D)
	$(Q_CC)$(CC) $(HOST_CFLAGS) $(RKM_CODEC_FLAGS_$*) -c -o $@ $<

$(RKM_CODEC_LIB): $(RKM_CODEC_OBJS)
	@mkdir -p $(@D)
	$(Q)rm -f $@
	$(Q_AR)ar rcs $@ $^

# The same sources once more with the code-generation flags of the kernel
# builds (Linux 6.12's Makefile and arch/x86/Makefile, as kbuild passes
# them; "make V=1" in build/kmod/KVER shows them) that user space can take
# without changing the ABI: char unsigned (every kernel since 6.2), no
# strict aliasing or overflow, no jump tables, zeroed locals, stack
# protector, no red zone.  The unit test runs against both, since a
# compiler may turn the same intrinsics into different code under them
# (GCC 12's _mm256_blendv_epi8 under -funsigned-char).  Not taken:
# -mcmodel=kernel, -mpreferred-stack-boundary=3 (calls into libc).
RKM_CODEC_KFLAGS := -funsigned-char -fno-strict-aliasing -fno-strict-overflow \
	-fno-delete-null-pointer-checks -fno-jump-tables \
	-ftrivial-auto-var-init=zero -fstack-protector-strong \
	-fcf-protection=branch -fconserve-stack -fno-allow-store-data-races \
	-falign-functions=16 -mno-red-zone
RKM_CODEC_KOBJ  := $(BUILD)/codec-kflags
RKM_CODEC_KLIB  := $(BUILD)/lib/librkmcodec-kflags.a
RKM_CODEC_KOBJS := $(addprefix $(RKM_CODEC_KOBJ)/,$(addsuffix .o,$(RKM_CODEC_NAMES)))

$(RKM_CODEC_KOBJ)/%.o: $(RKM_CODEC_DIR)/%.c $(RKM_CODEC_HDRS)
	@mkdir -p $(@D)
	$(Q_CC)$(CC) $(HOST_CFLAGS) $(RKM_CODEC_KFLAGS) $(RKM_CODEC_FLAGS_$*) -c -o $@ $<

$(RKM_CODEC_KLIB): $(RKM_CODEC_KOBJS)
	@mkdir -p $(@D)
	$(Q)rm -f $@
	$(Q_AR)ar rcs $@ $^

# ---- unit test ----------------------------------------------------------
RKM_CODEC_TEST := $(BUILD)/tests/codec_test
UNIT_TESTS += $(RKM_CODEC_TEST)

$(RKM_CODEC_TEST): $(TOP)/tests/unit/codec_test.c $(RKM_CODEC_LIB) $(RKM_CODEC_HDRS)
	@mkdir -p $(@D)
	$(Q_CC)$(CC) $(HOST_CFLAGS) -o $@ $< $(RKM_CODEC_LIB) -lpthread

# the same test against the library built with the kernel's flags
RKM_CODEC_KTEST := $(BUILD)/tests/codec_test_kflags
UNIT_TESTS += $(RKM_CODEC_KTEST)

$(RKM_CODEC_KTEST): $(TOP)/tests/unit/codec_test.c $(RKM_CODEC_KLIB) $(RKM_CODEC_HDRS)
	@mkdir -p $(@D)
	$(Q_CC)$(CC) $(HOST_CFLAGS) -DCODEC_TEST_KFLAGS -o $@ $< $(RKM_CODEC_KLIB) -lpthread

# wanted-subset decodes, against both libraries
RKM_CODEC_WTEST  := $(BUILD)/tests/codec_want_test
RKM_CODEC_WKTEST := $(BUILD)/tests/codec_want_test_kflags
UNIT_TESTS += $(RKM_CODEC_WTEST) $(RKM_CODEC_WKTEST)

$(RKM_CODEC_WTEST): $(TOP)/tests/unit/codec_want_test.c $(RKM_CODEC_LIB) $(RKM_CODEC_HDRS)
	@mkdir -p $(@D)
	$(Q_CC)$(CC) $(HOST_CFLAGS) -o $@ $< $(RKM_CODEC_LIB) -lpthread

$(RKM_CODEC_WKTEST): $(TOP)/tests/unit/codec_want_test.c $(RKM_CODEC_KLIB) $(RKM_CODEC_HDRS)
	@mkdir -p $(@D)
	$(Q_CC)$(CC) $(HOST_CFLAGS) -o $@ $< $(RKM_CODEC_KLIB) -lpthread

.PHONY: codec-lib
codec-lib: $(RKM_CODEC_LIB)
