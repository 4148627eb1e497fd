// SPDX-License-Identifier: GPL-2.0
/*
 * AVX-512BW kernel: split-nibble multiplication with VPSHUFB on 64-byte
 * vectors, two 64-byte strips per iteration, XORs joined by VPTERNLOGQ.
 * Built with -mavx512f -mavx512bw.
 */
#include "simd_x86.h"

#define RKM_V		__m512i
#define RKM_VW		64
#define RKM_MAXG	8
#define RKM_STRIPS	2

/* an input split in nibbles, or a coefficient's two tables */
struct rkm_nib {
	__m512i lo, hi;
};

#define RKM_CTX		struct rkm_nib
#define RKM_T		struct rkm_nib
#define RKM_TSZ		32
#define RKM_GTAB(mt)	((const rkm_u8 *)(mt)->gnib)
#define RKM_PTAB(mt)	((const rkm_u8 *)(mt)->pnib)

#include "simd_v512.h"

static inline __m512i rkm_v_mul2(__m512i v)
{
	__mmask64 hi = _mm512_movepi8_mask(v);

	return _mm512_xor_si512(_mm512_add_epi8(v, v),
				_mm512_maskz_mov_epi8(hi, _mm512_set1_epi8(0x1d)));
}

static inline struct rkm_nib rkm_v_prep(__m512i d)
{
	__m512i mask = _mm512_set1_epi8(0x0f);
	struct rkm_nib c;

	c.lo = _mm512_and_si512(d, mask);
	c.hi = _mm512_and_si512(_mm512_srli_epi16(d, 4), mask);
	return c;
}

static inline struct rkm_nib rkm_v_tbl(const struct rkm_mat *mt, rkm_size_t i)
{
	const rkm_u8 *t = mt->nib + 32 * i;
	struct rkm_nib r;

	r.lo = _mm512_broadcast_i32x4(_mm_loadu_si128((const __m128i *)t));
	r.hi = _mm512_broadcast_i32x4(_mm_loadu_si128((const __m128i *)(t + 16)));
	return r;
}

static inline struct rkm_nib rkm_v_tblp(const rkm_u8 *t)
{
	struct rkm_nib r;

	r.lo = _mm512_broadcast_i32x4(_mm_loadu_si128((const __m128i *)t));
	r.hi = _mm512_broadcast_i32x4(_mm_loadu_si128((const __m128i *)(t + 16)));
	return r;
}

static inline __m512i rkm_v_term(struct rkm_nib t, struct rkm_nib c)
{
	return _mm512_xor_si512(_mm512_shuffle_epi8(t.lo, c.lo),
				_mm512_shuffle_epi8(t.hi, c.hi));
}

/* a ^ t * c: the term's two lookups joined into a by one ternary XOR */
#define RKM_OWN_ACC
static inline __m512i rkm_v_acc(__m512i a, struct rkm_nib t, struct rkm_nib c)
{
	return rkm_v_xor3(a, _mm512_shuffle_epi8(t.lo, c.lo),
			  _mm512_shuffle_epi8(t.hi, c.hi));
}

/* inputs two at a time: P takes both in one ternary XOR */
#define RKM_PAIR

#include "simd_body.h"

const struct rkm_ops rkm_ops_avx512 = {
	.name = "avx512",
	.simd = 1,
	.mul = rkm_simd_mul,
};
