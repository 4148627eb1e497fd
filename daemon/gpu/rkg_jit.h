/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Run-time specialised coding kernels (NVRTC): see rkg_jit.cu.  A kernel
 * built for a coefficient set serves launches in RKG_STORE mode with a
 * device pointer table (struct rkg_launch.dtab), 4-byte aligned chunks.
 */
#ifndef RKG_JIT_H
#define RKG_JIT_H

#include <stddef.h>
#include <cuda_runtime.h>
#include "rkg.h"

struct rkg_jit;

#ifdef __cplusplus
extern "C" {
#endif

/* Can kernels be compiled here (libnvrtc found)?  1 or 0, reason in why. */
int rkg_jit_available(char *why, size_t whylen);

/* Compile and load the kernel for nin inputs, nout outputs; NULL + why. */
struct rkg_jit *rkg_jit_build(const struct rkg_coef *c, int nin, int nout,
			      char *why, size_t whylen);

cudaError_t rkg_jit_launch(struct rkg_jit *k, const struct rkg_launch *l,
			   cudaStream_t st);

void rkg_jit_free(struct rkg_jit *k);

#ifdef __cplusplus
}
#endif

#endif /* RKG_JIT_H */
