// SPDX-License-Identifier: GPL-2.0
/*
 * SSSE3 kernel: split-nibble multiplication with PSHUFB on 16-byte
 * vectors, four vectors per 64-byte strip.  Built with -mssse3.
 */
#include "simd_x86.h"

#define RKM_V		__m128i
#define RKM_VW		16
#define RKM_MAXG	2

/* an input split in nibbles, or a coefficient's two tables */
struct rkm_nib {
	__m128i lo, hi;
};

#define RKM_CTX		struct rkm_nib
#define RKM_T		struct rkm_nib
#define RKM_TSZ		32
#define RKM_GTAB(mt)	((const rkm_u8 *)(mt)->gnib)
#define RKM_PTAB(mt)	((const rkm_u8 *)(mt)->pnib)

static inline __m128i rkm_v_ld(const rkm_u8 *p)
{
	return _mm_loadu_si128((const __m128i *)p);
}

static inline void rkm_v_st(rkm_u8 *p, __m128i v)
{
	_mm_storeu_si128((__m128i *)p, v);
}

static inline __m128i rkm_v_xor(__m128i a, __m128i b)
{
	return _mm_xor_si128(a, b);
}

static inline __m128i rkm_v_xor3(__m128i a, __m128i b, __m128i c)
{
	return _mm_xor_si128(_mm_xor_si128(a, b), c);
}

static inline __m128i rkm_v_zero(void)
{
	return _mm_setzero_si128();
}

static inline __m128i rkm_v_mul2(__m128i v)
{
	__m128i hi = _mm_cmpgt_epi8(_mm_setzero_si128(), v);

	return _mm_xor_si128(_mm_add_epi8(v, v),
				_mm_and_si128(hi, _mm_set1_epi8(0x1d)));
}

static inline struct rkm_nib rkm_v_prep(__m128i d)
{
	__m128i mask = _mm_set1_epi8(0x0f);
	struct rkm_nib c;

	c.lo = _mm_and_si128(d, mask);
	c.hi = _mm_and_si128(_mm_srli_epi16(d, 4), mask);
	return c;
}

static inline struct rkm_nib rkm_v_tbl(const struct rkm_mat *mt, rkm_size_t i)
{
	const rkm_u8 *t = mt->nib + 32 * i;
	struct rkm_nib r;

	r.lo = _mm_loadu_si128((const __m128i *)t);
	r.hi = _mm_loadu_si128((const __m128i *)(t + 16));
	return r;
}

static inline struct rkm_nib rkm_v_tblp(const rkm_u8 *t)
{
	struct rkm_nib r;

	r.lo = _mm_loadu_si128((const __m128i *)t);
	r.hi = _mm_loadu_si128((const __m128i *)(t + 16));
	return r;
}

static inline __m128i rkm_v_term(struct rkm_nib t, struct rkm_nib c)
{
	return _mm_xor_si128(_mm_shuffle_epi8(t.lo, c.lo),
				_mm_shuffle_epi8(t.hi, c.hi));
}

#include "simd_body.h"

const struct rkm_ops rkm_ops_ssse3 = {
	.name = "ssse3",
	.simd = 1,
	.mul = rkm_simd_mul,
};
