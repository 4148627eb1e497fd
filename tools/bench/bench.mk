# SPDX-License-Identifier: GPL-2.0
# Benchmarks.  "make bench-codec": the codec against ISA-L, one thread;
# see Documentation/codec.rst.  Other benchmarks append their targets below.
#
# The references sit beside the program as build/bench/libisal-VER.so and
# are loaded together (bench_codec dlopens each):
#   2.32.1  built here from $(ISAL_ANCHORS)/isa-l-2.32.1.tar.gz (the
#           shared anchors beside the checkout, ../shared/anchors, unless
#           ISAL_ANCHORS names another directory; needs nasm).  Without
#           the tarball its column is skipped, and the output says so.
#   2.30    Debian 12's libisal2 (libisal.so.2), copied.
# BENCH_ARGS passes options (-q, --impl NAME, --isa-l-isa ISA).

BENCH_CODEC := $(BUILD)/bench/bench_codec
ISAL_ANCHORS ?= $(TOP)/../shared/anchors
ISAL_NEW     := 2.32.1
ISAL_NEW_TGZ := $(ISAL_ANCHORS)/isa-l-$(ISAL_NEW).tar.gz
ISAL_NEW_SRC := $(BUILD)/isal/isa-l-$(ISAL_NEW)
ISAL_NEW_SO  := $(BUILD)/bench/libisal-$(ISAL_NEW).so
ISAL_OLD     := 2.30
ISAL_OLD_SYS := $(wildcard $(shell $(CC) -print-file-name=libisal.so.2))
ISAL_OLD_SO  := $(BUILD)/bench/libisal-$(ISAL_OLD).so

BENCH_CODEC_REFS :=
ISAL_NEW_WHY :=
ISAL_OLD_WHY :=
ifneq ($(wildcard $(ISAL_NEW_TGZ)),)
BENCH_CODEC_REFS += $(ISAL_NEW_SO)
else
ISAL_NEW_WHY := no $(ISAL_NEW_TGZ) (set ISAL_ANCHORS=DIR)
endif
ifneq ($(ISAL_OLD_SYS),)
BENCH_CODEC_REFS += $(ISAL_OLD_SO)
else
ISAL_OLD_WHY := no libisal.so.2 (Debian package libisal2)
endif
BENCH_CODEC_SKIP := $(if $(ISAL_NEW_WHY),--skipped '$(ISAL_NEW): $(ISAL_NEW_WHY)') \
		    $(if $(ISAL_OLD_WHY),--skipped '$(ISAL_OLD): $(ISAL_OLD_WHY)')

$(BENCH_CODEC): $(TOP)/tools/bench/bench_codec.c $(RKM_CODEC_LIB) $(RKM_CODEC_HDRS)
	@mkdir -p $(@D)
	$(Q_CC)$(CC) $(HOST_CFLAGS) -o $@ $< $(RKM_CODEC_LIB) -ldl -lpthread

# ISA-L's own build (Makefile.unx slib), kept out of this make's variables
$(ISAL_NEW_SO): $(ISAL_NEW_TGZ)
	@command -v nasm >/dev/null || { echo "bench-codec: building ISA-L $(ISAL_NEW) needs nasm (tools/install-deps.sh installs it)" >&2; exit 1; }
	@rm -rf $(ISAL_NEW_SRC)
	@mkdir -p $(BUILD)/isal $(@D)
	@echo "  ISA-L $(ISAL_NEW) from $< (log: $(BUILD)/isal/build.log)"
	@tar -xzf $< -C $(BUILD)/isal
	@env -u MAKEFLAGS -u MAKELEVEL -u MFLAGS $(MAKE) -C $(ISAL_NEW_SRC) \
		-f Makefile.unx -j$$(nproc) slib >$(BUILD)/isal/build.log 2>&1 || \
		{ tail -n 20 $(BUILD)/isal/build.log >&2; exit 1; }
	@cp $(ISAL_NEW_SRC)/bin/libisal.so $@

$(ISAL_OLD_SO): $(ISAL_OLD_SYS)
	@mkdir -p $(@D)
	$(Q_GEN)cp $< $@

.PHONY: bench-codec
bench-codec: $(BENCH_CODEC) $(BENCH_CODEC_REFS)
	@$(if $(ISAL_NEW_WHY),echo "bench-codec: ISA-L $(ISAL_NEW) column skipped: $(ISAL_NEW_WHY)" >&2)
	@$(if $(ISAL_OLD_WHY),echo "bench-codec: ISA-L $(ISAL_OLD) column skipped: $(ISAL_OLD_WHY)" >&2)
	$(BENCH_CODEC) $(BENCH_ARGS) $(BENCH_CODEC_SKIP)

# "make bench-gpu-guest": md raid6 4+2 against km 4+2 and 8+3 in one QEMU
# guest, km coded by the in-kernel codec, served by raidkmd on this
# machine through the guest-RAM bridge (RKM_BRIDGE_BACKEND, default cpu)
# and placed per job (placement auto), verified reads included; medians
# of interleaved rounds (BENCH_ROUNDS, BENCH_MIB); see
# Documentation/testing.rst.  The GPU run is, on the GPU host, with the
# bundle of "make gpu-guest" (raidkmd --backend=cuda):
#   tools/bench/bench-gpu-guest.sh --gpu --save DIR
.PHONY: bench-gpu-guest
bench-gpu-guest: vm-image $(RKMD_BIN)
	@$(TOP)/tools/bench/bench-gpu-guest.sh

# "make bench-want": decoding only the wanted chunks against decoding
# every erased one, each decode form (tools/bench/bench_want.c)
BENCH_WANT := $(BUILD)/bench/bench_want

$(BENCH_WANT): $(TOP)/tools/bench/bench_want.c $(RKM_CODEC_LIB) $(RKM_CODEC_HDRS)
	@mkdir -p $(@D)
	$(Q_CC)$(CC) $(HOST_CFLAGS) -o $@ $< $(RKM_CODEC_LIB) -lpthread

.PHONY: bench-want
bench-want: $(BENCH_WANT)
	$(BENCH_WANT) $(BENCH_ARGS)
