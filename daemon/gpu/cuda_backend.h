/* SPDX-License-Identifier: GPL-2.0 */
/*
 * raidkmd CUDA backend: extras beyond struct rkmd_backend_ops, for the GPU
 * test and benchmark programs (daemon/gpu/gpu_check.cu, gpu_bench.cu).
 */
#ifndef RKMD_CUDA_BACKEND_H
#define RKMD_CUDA_BACKEND_H

#include <stdint.h>

struct rkmd_backend;

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

/* Make the next batch trap on the GPU (a lost device, for tests). */
void rkmd_cuda_inject_trap(struct rkmd_backend *b);
void rkmd_cuda_get_stats(struct rkmd_backend *b, struct rkmd_cuda_stats *st);
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
