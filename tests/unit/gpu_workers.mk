# SPDX-License-Identifier: GPL-2.0
# raidkmd's GPU worker processes without a GPU: daemon/gpu/gpu_loop built
# against tests/unit/fake_cuda.c (the CUDA backend's instance interface on
# the CPU backend), run by tests/unit/gpu_workers.sh: a worker's failed
# launch, trap and hang under the daemon core and the ring, its jobs
# re-run or failed back, its restart and its return to service.
GPU_LOOP_FAKE := $(BUILD)/tests/gpu_loop_fake
GPU_WORKER_C := $(addprefix $(TOP)/daemon/gpu/,multi_gpu.c multi_state.c \
	gpu_supervise.c gpu_stall.c gpu_spawn.c gpu_worker.c gpu_wire.c)

$(GPU_LOOP_FAKE): $(TOP)/daemon/gpu/gpu_loop.c $(TOP)/tests/unit/fake_cuda.c \
		$(GPU_WORKER_C) $(wildcard $(TOP)/daemon/gpu/*.h) \
		$(TOP)/tools/ctl/ctl_gpus.c $(TOP)/tools/ctl/ctl_gpus.h \
		$(RKMD_LIB) $(RKM_RING_LIB) $(RKMD_CODEC_LIB)
	@mkdir -p $(@D)
	$(Q_CC)$(CC) $(HOST_CFLAGS) -I$(TOP)/daemon -I$(TOP)/tools/ctl -pthread -o $@ \
		$(TOP)/daemon/gpu/gpu_loop.c $(TOP)/tests/unit/fake_cuda.c \
		$(GPU_WORKER_C) $(TOP)/tools/ctl/ctl_gpus.c $(RKMD_LINK)

UNIT_TESTS += $(TOP)/tests/unit/gpu_workers.sh
$(TOP)/tests/unit/gpu_workers.sh: $(GPU_LOOP_FAKE)

# the supervisor's stall decision (daemon/gpu/gpu_stall.c) as pure logic:
# a floor plus the bytes held at the slowest healthy rate, counted from
# the last DONE or beat; beats of one-time work only for so long
GPU_STALL_TEST := $(BUILD)/tests/gpu_stall_test
UNIT_TESTS += $(GPU_STALL_TEST)
$(GPU_STALL_TEST): $(TOP)/tests/unit/gpu_stall_test.c \
		$(TOP)/daemon/gpu/gpu_stall.c $(TOP)/daemon/gpu/gpu_stall.h \
		$(TOP)/tests/unit/unit_report.h
	@mkdir -p $(@D)
	$(Q_CC)$(CC) $(HOST_CFLAGS) -I$(TOP)/daemon/gpu -I$(TOP)/tests/unit -o $@ \
		$< $(TOP)/daemon/gpu/gpu_stall.c
