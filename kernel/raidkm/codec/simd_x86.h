/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Common prologue of the x86 SIMD kernels: the compiler's intrinsics
 * header, usable inside the kernel (whose build has no libc: the
 * mm_malloc.h include guard is pre-set so <immintrin.h> skips it).
 */
#ifndef RKM_SIMD_X86_H
#define RKM_SIMD_X86_H

#define RKM_PORT_TYPES_ONLY
#ifdef __KERNEL__
#define _MM_MALLOC_H_INCLUDED
#else
#include <sys/cdefs.h>		/* __always_inline */
#ifndef noinline
#define noinline	__attribute_noinline__	/* sys/cdefs.h */
#endif
#endif
#include <immintrin.h>
#include "rkm_codec_int.h"

#endif /* RKM_SIMD_X86_H */
