# SPDX-License-Identifier: GPL-2.0
# raidkmd (daemon/), its loopback (daemon/loopback/) and the freestanding
# ring code (kernel/raidkm/ring/) built for user space.
#
#   build/lib/librkmring.a   ring protocol (the files raidkm.ko builds)
#   build/lib/librkmd.a      daemon core, cpu/noop backends, loopback
#   build/bin/raidkmd        the daemon
#   build/bin/raidkm-relay   the guest half of the guest-RAM bridge
#   make bench-ring          loopback benchmark -> bench/results/ring-*.txt
#   build/bin/rkm-place-bench   placement (place.c) with native rates
#   make bench-place         it, in rounds -> bench/results/place-*.txt
#
# The CUDA backend (daemon/gpu/gpu.mk) plugs in by setting
#   RKMD_CUDA_OBJS   objects defining rkmd_cuda_backend
#   RKMD_CUDA_LIBS   what they need at link time (-lcudart ...)
# and adding "$(RKMD_BIN): $(RKMD_CUDA_OBJS)".  gpu.mk is read after this
# file, so both are used at recipe time only.  Without them raidkmd has
# no cuda backend (a weak reference) and --backend=cuda says so.

RKM_RING_NAMES := rkm_ring rkm_shm rkm_entry rkm_attach rkm_desc
RKM_RING_DIR   := $(TOP)/kernel/raidkm/ring
RKM_RING_HDRS  := $(wildcard $(RKM_RING_DIR)/*.h) $(TOP)/kernel/raidkm/uapi/raidkm.h
RKM_RING_OBJS  := $(addprefix $(BUILD)/ring/,$(addsuffix .o,$(RKM_RING_NAMES)))
RKM_RING_LIB   := $(BUILD)/lib/librkmring.a

# The codec's user-space library (kernel/raidkm/codec/user.mk, read later)
RKMD_CODEC_LIB := $(BUILD)/lib/librkmcodec.a

RKMD_NL_CFLAGS := $(shell pkg-config --cflags libnl-genl-3.0 2>/dev/null || echo -I/usr/include/libnl3)
RKMD_NL_LIBS   := $(shell pkg-config --libs libnl-genl-3.0 2>/dev/null || echo -lnl-genl-3 -lnl-3)
RKMD_CFLAGS    := $(HOST_CFLAGS) -I$(TOP)/daemon -pthread

RKMD_DIR       := $(TOP)/daemon
RKMD_HDRS      := $(wildcard $(RKMD_DIR)/*.h $(RKMD_DIR)/loopback/*.h $(RKMD_DIR)/bridge/*.h) \
		  $(RKMD_DIR)/gpu/gpu_status.h $(RKM_RING_HDRS)
RKMD_LIB_NAMES := core log backends backend_cpu shm_map shm_remap transport_loop loopback/rkm_loop \
		  transport_bridge bridge/bridge_io
RKMD_LIB_OBJS  := $(addprefix $(BUILD)/daemon/,$(addsuffix .o,$(RKMD_LIB_NAMES)))
RKMD_LIB       := $(BUILD)/lib/librkmd.a
RKMD_BIN       := $(BUILD)/bin/raidkmd
# what a program using the daemon core links (after its own objects)
RKMD_LINK      := $(RKMD_LIB) $(RKM_RING_LIB) $(RKMD_CODEC_LIB) -pthread

USER_BINS  += $(RKMD_BIN)
GUEST_BINS += $(RKMD_BIN)

$(BUILD)/ring/%.o: $(RKM_RING_DIR)/%.c $(RKM_RING_HDRS)
	@mkdir -p $(@D)
	$(Q_CC)$(CC) $(HOST_CFLAGS) -c -o $@ $<

$(RKM_RING_LIB): $(RKM_RING_OBJS)
	@mkdir -p $(@D)
	$(Q)rm -f $@
	$(Q_AR)ar rcs $@ $^

$(BUILD)/daemon/%.o: $(RKMD_DIR)/%.c $(RKMD_HDRS)
	@mkdir -p $(@D)
	$(Q_CC)$(CC) $(RKMD_CFLAGS) -c -o $@ $<

$(BUILD)/daemon/transport_nl.o: $(RKMD_DIR)/transport_nl.c $(RKMD_HDRS)
	@mkdir -p $(@D)
	$(Q_CC)$(CC) $(RKMD_CFLAGS) $(RKMD_NL_CFLAGS) -c -o $@ $<

$(RKMD_LIB): $(RKMD_LIB_OBJS)
	@mkdir -p $(@D)
	$(Q)rm -f $@
	$(Q_AR)ar rcs $@ $^

$(RKMD_BIN): $(BUILD)/daemon/main.o $(BUILD)/daemon/transport_nl.o \
		$(RKMD_LIB) $(RKM_RING_LIB) $(RKMD_CODEC_LIB)
	@mkdir -p $(@D)
	$(Q_LD)$(CC) $(RKMD_CFLAGS) $(USER_LDFLAGS) -o $@ $(BUILD)/daemon/main.o \
		$(BUILD)/daemon/transport_nl.o $(RKMD_CUDA_OBJS) $(RKMD_LINK) \
		$(RKMD_NL_LIBS) $(RKMD_CUDA_LIBS)

.PHONY: raidkmd
raidkmd: $(RKMD_BIN)

# ---- raidkm-relay: the guest half of the guest-RAM bridge -------------------
# (daemon/bridge/bridge_proto.h; the host half is raidkmd --bridge)
RKM_RELAY_BIN := $(BUILD)/bin/raidkm-relay
USER_BINS  += $(RKM_RELAY_BIN)
GUEST_BINS += $(RKM_RELAY_BIN)

$(RKM_RELAY_BIN): $(BUILD)/daemon/bridge/relay.o \
		$(BUILD)/daemon/transport_nl.o $(RKMD_LIB) $(RKM_RING_LIB) \
		$(RKMD_CODEC_LIB)
	@mkdir -p $(@D)
	$(Q_LD)$(CC) $(RKMD_CFLAGS) $(USER_LDFLAGS) -o $@ $(BUILD)/daemon/bridge/relay.o \
		$(BUILD)/daemon/transport_nl.o $(RKMD_LINK) $(RKMD_NL_LIBS)

# ---- benchmark ------------------------------------------------------------
RKMD_BENCH := $(BUILD)/bin/rkm-ring-bench
USER_BINS += $(RKMD_BENCH)

$(RKMD_BENCH): $(RKMD_DIR)/bench/ring_bench.c $(RKMD_LIB) $(RKM_RING_LIB) \
		$(RKMD_CODEC_LIB) $(RKMD_HDRS)
	@mkdir -p $(@D)
	$(Q_CC)$(CC) $(RKMD_CFLAGS) -o $@ $< $(RKMD_LINK)

RING_BENCH_HOST ?= $(shell hostname -s)
RING_BENCH_OUT = $(TOP)/bench/results/ring-$(shell date -u +%Y-%m-%d)-$(RING_BENCH_HOST).txt
RING_BENCH_ARGS ?=

# the lines on the host that every saved bench output starts with
BENCH_HOST_LINES = echo "\# date: $$(date -u '+%Y-%m-%d %H:%M:%S UTC')  host: $$(hostname -s)"; \
	echo "\# cpu: $$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//'), $$(nproc) online"; \
	echo "\# load average at start (other tenants): $$(cut -d' ' -f1-3 /proc/loadavg)"

.PHONY: bench-ring
bench-ring: $(RKMD_BENCH)
	@mkdir -p $(TOP)/bench/results
	@{ echo "# make bench-ring: $(RKMD_BENCH) $(RING_BENCH_ARGS)"; \
	   $(BENCH_HOST_LINES); \
	   $(RKMD_BENCH) $(RING_BENCH_ARGS); } 2>&1 | tee $(RING_BENCH_OUT)
	@echo "saved $(RING_BENCH_OUT)"

# ---- placement with native rates (Documentation/offload.rst, Placement) ----
# the kernel's decision (kernel/raidkm/place.c) and the CPU codec on the
# submitter threads, raidkmd's core and a backend over the loopback; links
# the CUDA backend where gpu.mk builds it (as raidkmd does), so one binary
# runs --backend=cuda on the GPU host and --backend=cpu anywhere
PLACE_BENCH := $(BUILD)/bin/rkm-place-bench
PLACE_BENCH_SRCS := $(addprefix $(RKMD_DIR)/bench/,place_bench.c place_feed.c \
	place_ring.c place_job.c place_verify.c place_stats.c) \
	$(TOP)/kernel/raidkm/place.c
USER_BINS += $(PLACE_BENCH)

$(PLACE_BENCH): $(PLACE_BENCH_SRCS) $(RKMD_DIR)/bench/place_bench.h \
		$(TOP)/kernel/raidkm/place.h $(RKMD_LIB) $(RKM_RING_LIB) \
		$(RKMD_CODEC_LIB) $(RKMD_HDRS)
	@mkdir -p $(@D)
	$(Q_LD)$(CC) $(RKMD_CFLAGS) -o $@ $(PLACE_BENCH_SRCS) $(RKMD_CUDA_OBJS) \
		$(RKMD_LINK) $(RKMD_CUDA_LIBS)

# its smoke run with the cpu backend, a unit test (correctness only)
UNIT_TESTS += $(TOP)/tests/unit/place_bench.sh
$(TOP)/tests/unit/place_bench.sh: $(PLACE_BENCH)

# one stripped file to carry to the GPU host
PLACE_BENCH_CARRY := $(BUILD)/rkm-place-bench
$(PLACE_BENCH_CARRY): $(PLACE_BENCH)
	$(Q_GEN)strip -o $@ $<

PLACE_BENCH_OUT = $(TOP)/bench/results/place-$(shell date -u +%Y-%m-%d)-$(RING_BENCH_HOST).txt
PLACE_BENCH_ARGS ?=

.PHONY: bench-place bench-place-bin
bench-place-bin: $(PLACE_BENCH_CARRY)
bench-place: $(PLACE_BENCH)
	@mkdir -p $(TOP)/bench/results
	@{ echo "# make bench-place: $(PLACE_BENCH) $(PLACE_BENCH_ARGS)"; \
	   $(BENCH_HOST_LINES); \
	   $(PLACE_BENCH) $(PLACE_BENCH_ARGS); } 2>&1 | tee $(PLACE_BENCH_OUT)
	@echo "saved $(PLACE_BENCH_OUT)"
