/* SPDX-License-Identifier: GPL-2.0 */
/*
 * raidkmd CUDA backend: extras beyond struct rkmd_backend_ops, for the
 * multi-GPU backend (multi_gpu.c) and the GPU test and benchmark programs
 * (daemon/gpu/gpu_check.cu, gpu_bench.cu).
 */
#ifndef RKMD_CUDA_BACKEND_H
#define RKMD_CUDA_BACKEND_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif
#include "rkmd_backend.h"
#ifdef __cplusplus
}
#endif

struct rkmd_cuda_stats {
	uint64_t jobs;		/* jobs launched */
	uint64_t stripes;
	uint64_t launches;	/* batches (one or more kernels each) */
	uint64_t bytes;		/* chunk bytes read plus written */
	uint64_t errors;	/* batches that failed */
	uint64_t uploads;	/* coefficient tables copied to the GPU */
	uint64_t staged;	/* batches whose inputs went by copy engine */
	uint64_t jit_kernels;	/* NVRTC kernels compiled */
	uint64_t jit_launches;	/* launches that used one */
};

#ifdef __cplusplus
extern "C" {
#endif

/* CUDA devices visible, or -ENODEV with the reason in why. */
int rkmd_cuda_count(char *why, size_t whylen);
/* Can device dev serve?  0 (why: its description) or -ENODEV (why). */
int rkmd_cuda_probe_dev(int dev, char *why, size_t whylen);
/*
 * ->open on device dev; own_ctx: in a CUDA context of its own instead of
 * the device's primary one (a second instance on one GPU).  Jobs complete
 * with 0, -EINVAL, -ENOMEM, -EIO (their batch failed: outputs may be
 * partly written), -ETIMEDOUT (their batch hung: the GPU may still write
 * them) or -EAGAIN (queued when the instance died: never started).
 */
struct rkmd_backend *rkmd_cuda_open_dev(int dev, int own_ctx, void *base,
					size_t len, size_t ro_len,
					int nthreads, rkmd_complete_fn done,
					void *ctx, char *why, size_t whylen);
/*
 * Has a fatal error taken the instance out (later submits: -EIO)?  If so,
 * why holds the error.
 */
int rkmd_cuda_dead(struct rkmd_backend *b, char *why, size_t len);
/* "PCI address, node N[, own context]" for logs and status */
void rkmd_cuda_where(struct rkmd_backend *b, char *buf, size_t len);
/*
 * Make the next batch trap on the GPU (a lost device, for tests).  The
 * trap kills every context of this process on that GPU (measured on an
 * H100), so a second instance on the same GPU dies with it.
 */
void rkmd_cuda_inject_trap(struct rkmd_backend *b);
/*
 * Make the next batch fail as a launch that failed would
 * (cudaErrorLaunchFailure, fatal: the instance is dead) without touching
 * the GPU: the drop path of a second instance on one GPU (tests).
 */
void rkmd_cuda_inject_fail(struct rkmd_backend *b);
/*
 * Make the next batch hang (tests): RKMD_HANG_GPU holds it on the GPU
 * behind a kernel that waits until close() releases it (the GPU stays
 * busy in this context: a real hang that can be ended); RKMD_HANG_WITHHOLD
 * lets it run but never looks at its completion.  Either way its jobs
 * complete with -ETIMEDOUT after RKMD_CUDA_HANG_MS and the instance is
 * dead.
 */
#define RKMD_HANG_GPU		1
#define RKMD_HANG_WITHHOLD	2
void rkmd_cuda_inject_hang(struct rkmd_backend *b, int how);
void rkmd_cuda_get_stats(struct rkmd_backend *b, struct rkmd_cuda_stats *st);
/*
 * Signs of life that do not wait for the instance's lock (a GPU worker's
 * beats, gpu_worker.c): the batches its GPU has finished, and since when
 * one-time work on its launch path (a buffer grown, a kernel's first
 * launch, a compile in RKMD_CUDA_JIT=sync mode) holds the lock and so
 * every completion back (CLOCK_MONOTONIC ns, 0: none).
 */
struct rkmd_cuda_pulse {
	uint64_t batches;
	uint64_t setup_ns;
};
void rkmd_cuda_pulse(struct rkmd_backend *b, struct rkmd_cuda_pulse *p);
/*
 * The data path (also RKMD_CUDA_STAGE=bits): 0 zero-copy for every batch;
 * RKMD_STAGE_IN: inputs gathered into device memory by the copy engines;
 * RKMD_STAGE_OUT: results of encode/decode sent back by copies too;
 * RKMD_STAGE_AUTO: only batches of jobs of at least 4 MiB of inputs
 *   (on average) are staged;
 * RKMD_STAGE_CEFLAG: copies marked cudaMemcpyFlagPreferOverlapWithCompute;
 * n << RKMD_STAGE_STREAMS_SHIFT: copy streams fed round robin (1..4);
 * n << RKMD_STAGE_MIX_SHIFT: one batch in n (2..15) that would be staged
 * reads its inputs zero-copy instead, beside the copies of the others;
 * n << RKMD_STAGE_SUB_SHIFT: sub-batches of n MiB of staged inputs
 * (1..255; 0: RKMD_CUDA_SUB_MIB or 16).
 * A negative mode restores the default.
 */
#define RKMD_STAGE_IN		1
#define RKMD_STAGE_OUT		2
#define RKMD_STAGE_AUTO		4
#define RKMD_STAGE_CEFLAG		8
#define RKMD_STAGE_STREAMS_SHIFT 8
#define RKMD_STAGE_MAXSTREAMS	4
#define RKMD_STAGE_MIX_SHIFT	12
#define RKMD_STAGE_SUB_SHIFT	16
void rkmd_cuda_set_stage(struct rkmd_backend *b, int mode);

#ifdef __cplusplus
}
#endif

#endif /* RKMD_CUDA_BACKEND_H */
