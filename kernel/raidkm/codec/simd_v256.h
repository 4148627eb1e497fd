/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Load, store, XOR (of two and of three) and zero on 32-byte vectors for
 * simd_body.h, shared by the kernels of that width (avx2.c, gfni.c).
 * Included once per width in a file.
 */
#ifndef RKM_SIMD_V256_H
#define RKM_SIMD_V256_H

static inline __m256i rkm_v_ld(const rkm_u8 *p)
{
	return _mm256_loadu_si256((const __m256i *)p);
}

static inline void rkm_v_st(rkm_u8 *p, __m256i v)
{
	_mm256_storeu_si256((__m256i *)p, v);
}

static inline __m256i rkm_v_xor(__m256i a, __m256i b)
{
	return _mm256_xor_si256(a, b);
}

/* a ^ b ^ c: two instructions (no ternary logic without AVX-512VL) */
static inline __m256i rkm_v_xor3(__m256i a, __m256i b, __m256i c)
{
	return _mm256_xor_si256(_mm256_xor_si256(a, b), c);
}

static inline __m256i rkm_v_zero(void)
{
	return _mm256_setzero_si256();
}

#endif /* RKM_SIMD_V256_H */
