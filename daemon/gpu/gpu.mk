# SPDX-License-Identifier: GPL-2.0
# raidkmd's CUDA backend (daemon/gpu): built with nvcc whenever nvcc exists
# (CI builds it; only the GPU host runs it).  See Documentation/gpu.rst.
#
#   RKMD_CUDA_OBJS   objects that define rkmd_cuda_backend (one GPU) and
#                    rkmd_gpus_backend (raidkmd's "cuda": every GPU); empty
#                    without nvcc
#   RKMD_CUDA_LIBS   what a program linking them with $(CC) needs
#   make check-gpu   correctness on the GPU host (backend, daemon, sanitizer)
#   make bench-gpu   speed on the GPU host, one run, ratios to references
#   make bench-gpu-e2e  end to end in rounds and the ring latency
#   make bench-gpu-agg  every GPU against one, beside the copy ceiling
#
# NVCC may be overridden; CUDA_ARCH too (default: sm_90 code plus PTX that
# newer GPUs, and older ones from sm_75 on, compile at load time).

NVCC ?= $(firstword $(wildcard /usr/local/cuda/bin/nvcc) $(shell command -v nvcc 2>/dev/null))
RKG_DIR := $(TOP)/daemon/gpu
RKG_OBJ := $(BUILD)/gpu
RKG_CODEC_LIB := $(BUILD)/lib/librkmcodec.a

.PHONY: check-gpu bench-gpu bench-gpu-e2e bench-gpu-agg

ifneq ($(NVCC),)

CUDA_HOME ?= $(patsubst %/bin/,%,$(dir $(NVCC)))
CUDA_ARCH ?= -gencode arch=compute_90,code=sm_90 \
	     -gencode arch=compute_75,code=compute_75
NVCCFLAGS := -O3 -std=c++17 --threads 2 -Xcompiler -Wall,-Wno-unused-parameter \
	-I$(TOP)/kernel/raidkm -I$(TOP)/kernel/raidkm/uapi -I$(TOP)/daemon

# raidkmd's "cuda": one worker process per GPU (Documentation/gpu.rst)
RKG_MULTI := multi_gpu multi_state gpu_supervise gpu_stall gpu_spawn \
	gpu_worker gpu_wire
# the CUDA backend, one instance per GPU (cuda_*.cu, cuda_priv.h)
RKG_BACKEND := cuda_backend cuda_device cuda_plan cuda_stage cuda_launch \
	cuda_complete
RKMD_CUDA_OBJS := $(RKG_OBJ)/rkg_kernels.o $(RKG_OBJ)/rkg_jit.o \
	$(RKG_BACKEND:%=$(RKG_OBJ)/%.o) $(RKG_OBJ)/gpu_numa.o \
	$(RKG_MULTI:%=$(RKG_OBJ)/%.o)
RKMD_CUDA_LIBS := -L$(CUDA_HOME)/lib64 -lcudart_static -ldl -lrt -lpthread -lstdc++

RKG_HDRS := $(wildcard $(RKG_DIR)/*.h) $(TOP)/daemon/rkmd_backend.h \
	$(TOP)/kernel/raidkm/codec/rkm_codec.h

$(RKG_OBJ)/rkg_kernels.o: $(RKG_DIR)/rkg_kernels.cu $(RKG_DIR)/rkg.h
	@mkdir -p $(@D)
	$(Q_NVCC)$(NVCC) $(NVCCFLAGS) $(CUDA_ARCH) -c -o $@ $<

$(RKG_OBJ)/rkg_jit.o: $(RKG_DIR)/rkg_jit.cu $(RKG_DIR)/rkg_jit.h $(RKG_DIR)/rkg.h
	@mkdir -p $(@D)
	$(Q_NVCC)$(NVCC) $(NVCCFLAGS) -c -o $@ $<

$(RKG_BACKEND:%=$(RKG_OBJ)/%.o): $(RKG_OBJ)/%.o: $(RKG_DIR)/%.cu $(RKG_HDRS)
	@mkdir -p $(@D)
	$(Q_NVCC)$(NVCC) $(NVCCFLAGS) -c -o $@ $<

# the host-side C parts: NUMA placement, the multi-GPU backend, its status
$(RKG_OBJ)/gpu_numa.o: $(RKG_DIR)/gpu_numa.c $(RKG_DIR)/gpu_numa.h
	@mkdir -p $(@D)
	$(Q_CC)$(CC) $(HOST_CFLAGS) -c -o $@ $<

$(RKG_MULTI:%=$(RKG_OBJ)/%.o): $(RKG_OBJ)/%.o: $(RKG_DIR)/%.c $(RKG_HDRS) \
		$(TOP)/daemon/rkmd_log.h $(TOP)/daemon/rkmd_remap.h
	@mkdir -p $(@D)
	$(Q_CC)$(CC) $(HOST_CFLAGS) -I$(TOP)/daemon -c -o $@ $<

# raidkmd and rkm-place-bench (daemon/daemon.mk) link $(RKMD_CUDA_OBJS)
# $(RKMD_CUDA_LIBS)
$(BUILD)/bin/raidkmd $(BUILD)/bin/rkm-place-bench: $(RKMD_CUDA_OBJS)

# the test and the benchmark carry their own copies of the daemon's log
# and CPU backend objects (the bench compares against the CPU backend)
$(RKG_OBJ)/log.o: $(TOP)/daemon/log.c $(TOP)/daemon/rkmd_log.h
	@mkdir -p $(@D)
	$(Q_CC)$(CC) $(HOST_CFLAGS) -I$(TOP)/daemon -c -o $@ $<

$(RKG_OBJ)/shm_remap.o: $(TOP)/daemon/shm_remap.c $(TOP)/daemon/rkmd_remap.h
	@mkdir -p $(@D)
	$(Q_CC)$(CC) $(HOST_CFLAGS) -I$(TOP)/daemon -c -o $@ $<

$(RKG_OBJ)/backend_cpu.o: $(TOP)/daemon/backend_cpu.c $(TOP)/daemon/rkmd_backend.h
	@mkdir -p $(@D)
	$(Q_CC)$(CC) $(HOST_CFLAGS) -I$(TOP)/daemon -c -o $@ $<

RKG_CHECK := $(RKG_OBJ)/gpu_check
RKG_BENCH := $(RKG_OBJ)/gpu_bench
RKG_TOOLOBJS := $(RKMD_CUDA_OBJS) $(RKG_OBJ)/log.o $(RKG_OBJ)/shm_remap.o

$(RKG_CHECK): $(RKG_DIR)/gpu_check.cu $(RKG_DIR)/gpu_util.h $(RKG_HDRS) \
		$(RKG_TOOLOBJS) $(RKG_CODEC_LIB)
	$(Q_NVCC)$(NVCC) $(NVCCFLAGS) $(CUDA_ARCH) -o $@ $< $(RKG_TOOLOBJS) $(RKG_CODEC_LIB) -lpthread

$(RKG_BENCH): $(RKG_DIR)/gpu_bench.cu $(RKG_DIR)/gpu_util.h $(RKG_HDRS) \
		$(RKG_TOOLOBJS) $(RKG_OBJ)/backend_cpu.o $(RKG_CODEC_LIB)
	$(Q_NVCC)$(NVCC) $(NVCCFLAGS) $(CUDA_ARCH) -o $@ $< $(RKG_TOOLOBJS) $(RKG_OBJ)/backend_cpu.o \
		$(RKG_CODEC_LIB) -lpthread

# the aggregate over every GPU against one, beside the copy ceiling
RKG_AGG := $(RKG_OBJ)/gpu_aggregate
$(RKG_AGG): $(RKG_DIR)/gpu_aggregate.cu $(RKG_DIR)/gpu_util.h $(RKG_HDRS) \
		$(RKG_TOOLOBJS) $(RKG_CODEC_LIB)
	$(Q_NVCC)$(NVCC) $(NVCCFLAGS) -o $@ $< $(RKG_TOOLOBJS) $(RKG_CODEC_LIB) -lpthread

# through the daemon core and the loopback ring (daemon/daemon.mk)
RKG_LOOP := $(RKG_OBJ)/gpu_loop
# (the status file is read by raidkmctl's parser, tools/ctl/ctl_gpus.c)
$(RKG_LOOP): $(RKG_DIR)/gpu_loop.c $(RKMD_CUDA_OBJS) $(BUILD)/lib/librkmd.a \
		$(BUILD)/lib/librkmring.a $(RKG_CODEC_LIB) \
		$(TOP)/tools/ctl/ctl_gpus.c $(TOP)/tools/ctl/ctl_gpus.h
	$(Q_CC)$(CC) $(HOST_CFLAGS) -I$(TOP)/daemon -I$(TOP)/tools/ctl -pthread -o $@ $< \
		$(TOP)/tools/ctl/ctl_gpus.c $(RKMD_CUDA_OBJS) $(RKMD_LINK) $(RKMD_CUDA_LIBS)

# CI builds everything (nothing runs it there)
USER_BINS += $(RKG_CHECK) $(RKG_BENCH) $(RKG_LOOP) $(RKG_AGG)

check-gpu: $(RKG_CHECK) $(RKG_LOOP)
	@$(RKG_DIR)/check-gpu.sh $(RKG_CHECK) $(RKG_LOOP)

# one run: references, gather, raw, end to end, latency (backend and
# ring), CPU cost; a copy of the output goes to build/gpu/bench-gpu.txt
BENCH_GPU_ARGS ?=
bench-gpu: $(RKG_BENCH) $(RKG_LOOP) $(RKG_AGG)
	@{ $(RKG_BENCH) $(BENCH_GPU_ARGS) && \
	   echo && echo "== latency through the daemon and the loopback ring" && \
	   $(RKG_LOOP) --latency 3000 && echo && \
	   $(RKG_AGG); } 2>&1 | tee $(RKG_OBJ)/bench-gpu.txt

# only the aggregate line (all GPUs against one, beside the copy ceiling)
bench-gpu-agg: $(RKG_AGG)
	@$(RKG_AGG) 2>&1 | tee $(RKG_OBJ)/bench-gpu-agg.txt

# the end-to-end cells with a target in rounds, each with its own H2D and
# link references, and the ring latency with and without the daemon's
# spin window (tools/bench/gpu-e2e-latency.sh)
bench-gpu-e2e: $(RKG_BENCH) $(RKG_LOOP)
	@$(TOP)/tools/bench/gpu-e2e-latency.sh $(RKG_OBJ) | tee $(RKG_OBJ)/bench-gpu-e2e.txt

else

RKMD_CUDA_OBJS :=
RKMD_CUDA_LIBS :=

check-gpu bench-gpu bench-gpu-e2e bench-gpu-agg:
	@echo "raidkm: nvcc not found (set NVCC=...): cannot build the CUDA backend" >&2
	@exit 1

endif
