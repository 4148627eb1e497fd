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
/* 0: zero-copy only; 1: stage every batch's inputs; 2: auto (default) */
void rkmd_cuda_set_stage(struct rkmd_backend *b, int mode);

#ifdef __cplusplus
}
#endif

#endif /* RKMD_CUDA_BACKEND_H */
