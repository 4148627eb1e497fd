// SPDX-License-Identifier: GPL-2.0
/*
 * GFNI kernels: one GF2P8AFFINEQB per coefficient and vector, with the
 * 8x8 bit matrix of multiplication by the coefficient in our field
 * (0x11D; GF2P8MULB's fixed 0x11B field does not apply).  Two widths:
 * "gfni" on 64-byte AVX-512 vectors, "gfni-avx2" on 32-byte VEX vectors.
 * Built with -mgfni -mavx2 -mavx512f -mavx512bw; each ops entry is only
 * used where the CPU has its features.
 */
#include "simd_x86.h"

/* multiplication by 2 and by 4 in 0x11D as GF2P8AFFINEQB bit matrices */
#define RKM_GFNI_MUL2	0x8001828488102040ULL
#define RKM_GFNI_MUL4	0x408041c2c4881020ULL

/* ---- 64-byte vectors --------------------------------------------------- */
#define RKM_V		__m512i
#define RKM_VW		64
#define RKM_MAXG	8
#define RKM_STRIPS	2
#define RKM_CTX		__m512i
#define RKM_T		__m512i
#define RKM_TSZ		8
#define RKM_GTAB(mt)	((const rkm_u8 *)(mt)->gaff)
#define RKM_PTAB(mt)	((const rkm_u8 *)(mt)->paff)
#define RKM_FN(name)	name##_gfni512
/*
 * Four strips (256 bytes) an iteration while at most four rows go by
 * table and the inputs fit in L1: a fifth more for P+Q and m = 3, 4 on a
 * Xeon and on Zen 5, the input pointer, table and loop overhead spread
 * over twice the bytes.  Streaming from L2 two strips do better on Zen 5.
 */
#define RKM_UMAX	4
#define RKM_NUW(n)	((n) <= 4 ? 4 : RKM_U)

#include "simd_v512.h"

static inline __m512i rkm_v_mul2(__m512i v)
{
	return _mm512_gf2p8affine_epi64_epi8(v,
			_mm512_set1_epi64(RKM_GFNI_MUL2), 0);
}

static inline __m512i rkm_v_prep(__m512i d)
{
	return d;
}

static inline __m512i rkm_v_tbl(const struct rkm_mat *mt, rkm_size_t i)
{
	return _mm512_set1_epi64((long long)mt->aff[i]);
}

static inline __m512i rkm_v_tblp(const rkm_u8 *t)
{
	return _mm512_set1_epi64(*(const long long *)t);
}

static inline __m512i rkm_v_term(__m512i t, __m512i d)
{
	return _mm512_gf2p8affine_epi64_epi8(d, t, 0);
}

/*
 * Inputs two at a time (simd_body.h, RKM_PAIR): each row takes both
 * inputs' terms in one ternary XOR, and Horner's Q takes two steps as
 * q = 4q + 2d + d' (RKM_MUL4), one XOR and one link of the chain fewer.
 */
#define RKM_PAIR
#define RKM_MUL4
#define RKM_OWN_ACC2
static inline __m512i rkm_v_acc2(__m512i a, __m512i t0, __m512i c0,
				 __m512i t1, __m512i c1)
{
	return rkm_v_xor3(a, _mm512_gf2p8affine_epi64_epi8(c0, t0, 0),
			  _mm512_gf2p8affine_epi64_epi8(c1, t1, 0));
}

static inline __m512i rkm_v_mul4(__m512i v)
{
	return _mm512_gf2p8affine_epi64_epi8(v,
			_mm512_set1_epi64(RKM_GFNI_MUL4), 0);
}

#include "simd_body.h"

#undef RKM_FN
#undef RKM_NU
#undef RKM_NUW
#undef RKM_UMAX
#undef RKM_V
#undef RKM_VW
#undef RKM_MAXG
#undef RKM_CTX
#undef RKM_T
#undef RKM_U
#undef RKM_UPQ
#undef RKM_STRIPS
#undef RKM_PAIR
#undef RKM_MUL4
#undef RKM_OWN_ACC2
#define rkm_v_ld	rkm_v256_ld
#define rkm_v_xor3	rkm_v256_xor3
#define rkm_v_acc	rkm_v256_acc
#define rkm_v_acc2	rkm_v256_acc2
#define rkm_v_st	rkm_v256_st
#define rkm_v_xor	rkm_v256_xor
#define rkm_v_zero	rkm_v256_zero
#define rkm_v_mul2	rkm_v256_mul2
#define rkm_v_prep	rkm_v256_prep
#define rkm_v_tbl	rkm_v256_tbl
#define rkm_v_term	rkm_v256_term
#define rkm_v_tblp	rkm_v256_tblp

/* ---- 32-byte vectors --------------------------------------------------- */
#define RKM_V		__m256i
#define RKM_VW		32
#define RKM_MAXG	4
#define RKM_CTX		__m256i
#define RKM_T		__m256i
#define RKM_FN(name)	name##_gfni256

#include "simd_v256.h"

static inline __m256i rkm_v_mul2(__m256i v)
{
	return _mm256_gf2p8affine_epi64_epi8(v,
			_mm256_set1_epi64x(RKM_GFNI_MUL2), 0);
}

static inline __m256i rkm_v_prep(__m256i d)
{
	return d;
}

static inline __m256i rkm_v_tbl(const struct rkm_mat *mt, rkm_size_t i)
{
	return _mm256_set1_epi64x((long long)mt->aff[i]);
}

static inline __m256i rkm_v_tblp(const rkm_u8 *t)
{
	return _mm256_set1_epi64x(*(const long long *)t);
}

static inline __m256i rkm_v_term(__m256i t, __m256i d)
{
	return _mm256_gf2p8affine_epi64_epi8(d, t, 0);
}

#include "simd_body.h"

const struct rkm_ops rkm_ops_gfni = {
	.name = "gfni",
	.simd = 1,
	.one_op_mul = 1,
	.mul = rkm_simd_mul_gfni512,
};

const struct rkm_ops rkm_ops_gfni_avx2 = {
	.name = "gfni-avx2",
	.simd = 1,
	.one_op_mul = 1,
	.mul = rkm_simd_mul_gfni256,
};
