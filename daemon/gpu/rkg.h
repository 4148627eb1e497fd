/* SPDX-License-Identifier: GPL-2.0 */
/*
 * raidkmd CUDA backend, internal interface between the host side
 * (cuda_backend.cu) and the coding kernels (rkg_kernels.cu).  Also used by
 * the GPU test and benchmark programs, which drive the kernels directly.
 *
 * One launch codes nstripes stripes of the same plan.  The kernel reads its
 * chunk addresses from a pointer table: per stripe, `stride` 64-bit device
 * addresses laid out as in[0..nin-1], then (DELTA only) in2[0..nin-1], then
 * out[0..nout-1].  An address is either device memory or registered host
 * memory seen through its mapped device address (zero-copy over PCIe): the
 * kernel does not care which.
 *
 * Coefficients live in constant memory as a "K table": for input j,
 * output e and bit i, the word K = (coef[e][j] * 2^i) * 0x01010101, at
 * word kbase + (j * nout + e) * 8 + i of a constant pool shared by all
 * launches.  The pool is handed out in regions of RKG_REGION_WORDS; the
 * host side caches one table per plan there (see cuda_plan.cu).
 */
#ifndef RKG_H
#define RKG_H

#include <stdint.h>
#include <cuda_runtime.h>

#define RKG_MAX_IN	64	/* inputs per stripe (k <= 63) */
#define RKG_MAX_OUT	16	/* outputs per stripe (m <= 16) */
#define RKG_REGION_WORDS 1024	/* constant pool allocation unit */
#define RKG_NREGION	15	/* 60 KiB of K tables */
#define RKG_INLINE	64	/* pointer-table entries passed as kernel params */
#define RKG_VEC		16	/* bytes per thread per chunk */
#define RKG_BLOCK	128	/* threads per block */

enum rkg_mode {
	RKG_STORE = 0,		/* out[e] = sum_j coef * in[j]   (encode, decode) */
	RKG_XOR_INTO,		/* out[e] ^= sum_j coef * (in[j] ^ in2[j]) (delta) */
	RKG_CHECK,		/* flags[s] = 1 if out[e] != sum_j coef * in[j] */
};

/* coef[j * RKG_MAX_OUT + e]: multiplies input j into output e */
struct rkg_coef {
	uint8_t coef[RKG_MAX_IN * RKG_MAX_OUT];
};

struct rkg_launch {
	int mode;		/* enum rkg_mode */
	int nin, nout;		/* 1..RKG_MAX_IN, 1..RKG_MAX_OUT */
	uint32_t kbase;		/* first word of the K table in the pool */
	int x0;			/* rkg_coef_x0(): output 0 is a plain XOR */
	uint32_t len;		/* bytes per chunk, multiple of 64 */
	uint32_t nstripes;
	uint32_t stride;	/* table entries per stripe */
	const uint64_t *dtab;	/* device table, or NULL: use inl */
	const uint64_t *inl;	/* host copy, nstripes * stride <= RKG_INLINE */
	int32_t *dflags;	/* RKG_CHECK: nstripes device words, zeroed */
	/*
	 * Completion flag (one launch only, nstripes <= 65535), or NULL:
	 * every block counts itself in *dcount (a zeroed device word) after
	 * a GPU-scope fence; the last one resets it and, after a
	 * system-scope fence, stores seq in *hdone (the device address of a
	 * word of mapped host memory), so that the host sees the results
	 * land by reading one word, without an event and without a call into
	 * the driver.  fence_all: every thread fences at system scope (the
	 * first version: a reference for the benchmark).
	 */
	uint32_t *dcount;
	uint32_t *hdone;
	uint32_t seq;
	int fence_all;
};

#ifdef __cplusplus
extern "C" {
#endif

/* Words of the K table for nin inputs and nout outputs */
static inline uint32_t rkg_ktab_words(int nin, int nout)
{
	return (uint32_t)nin * nout * 8;
}

/* Regions of the pool it needs */
static inline int rkg_ktab_regions(int nin, int nout)
{
	return (int)((rkg_ktab_words(nin, nout) + RKG_REGION_WORDS - 1) /
		     RKG_REGION_WORDS);
}

/* 1 when every coefficient of output 0 is 1 (a plain XOR: faster) */
int rkg_coef_x0(const struct rkg_coef *c, int nin);

/* Build the K table of a coefficient set (rkg_ktab_words() words). */
void rkg_ktab_build(const struct rkg_coef *c, int nin, int nout,
		    uint32_t *words);

/* Copy a K table into the pool at word `base`, ordered on stream st. */
cudaError_t rkg_ktab_upload(uint32_t base, const uint32_t *words,
			    uint32_t nwords, cudaStream_t st);

/* Queue the kernel(s) for one launch descriptor on stream st. */
cudaError_t rkg_launch(const struct rkg_launch *l, cudaStream_t st);

/* A kernel that traps: makes the context unusable (fault-injection tests). */
cudaError_t rkg_launch_trap(cudaStream_t st);
/*
 * A kernel that holds its stream until *release (a device address of
 * mapped host memory) turns non-zero, or max_ns have passed: a hung batch
 * that can be ended (fault-injection tests).
 */
cudaError_t rkg_launch_spin(cudaStream_t st, const uint32_t *release,
			    uint64_t max_ns);

#ifdef __cplusplus
}
#endif

#endif /* RKG_H */
