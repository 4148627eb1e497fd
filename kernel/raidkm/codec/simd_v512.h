/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Load, store, XOR (of two and of three) and zero on 64-byte vectors for
 * simd_body.h, shared by the kernels of that width (avx512.c, gfni.c).
 * Included once per width in a file.
 */
#ifndef RKM_SIMD_V512_H
#define RKM_SIMD_V512_H

static inline __m512i rkm_v_ld(const rkm_u8 *p)
{
	return _mm512_loadu_si512((const void *)p);
}

static inline void rkm_v_st(rkm_u8 *p, __m512i v)
{
	_mm512_storeu_si512((void *)p, v);
}

static inline __m512i rkm_v_xor(__m512i a, __m512i b)
{
	return _mm512_xor_si512(a, b);
}

/* a ^ b ^ c in one instruction (truth table 0x96) */
static inline __m512i rkm_v_xor3(__m512i a, __m512i b, __m512i c)
{
	return _mm512_ternarylogic_epi64(a, b, c, 0x96);
}

static inline __m512i rkm_v_zero(void)
{
	return _mm512_setzero_si512();
}

#endif /* RKM_SIMD_V512_H */
