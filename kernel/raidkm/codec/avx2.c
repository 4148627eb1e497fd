// SPDX-License-Identifier: GPL-2.0
/*
 * AVX2 kernel: split-nibble multiplication with VPSHUFB on 32-byte
 * vectors, two vectors per 64-byte strip.  Built with -mavx2.
 */
#include "simd_x86.h"

#define RKM_V		__m256i
#define RKM_VW		32
#define RKM_MAXG	4

/* an input split in nibbles, or a coefficient's two tables */
struct rkm_nib {
	__m256i lo, hi;
};

#define RKM_CTX		struct rkm_nib
#define RKM_T		struct rkm_nib
#define RKM_TSZ		32
#define RKM_GTAB(mt)	((const rkm_u8 *)(mt)->gnib)
#define RKM_PTAB(mt)	((const rkm_u8 *)(mt)->pnib)

#include "simd_v256.h"

/*
 * 2v: v + v, and the polynomial added where v's top bit was set (a signed
 * compare with zero makes the mask).  Not _mm256_blendv_epi8(): GCC 12
 * folds that builtin into a select on "mask byte < 0" in the type char,
 * and with -funsigned-char (every kernel since 6.2) that is never true,
 * so the polynomial was never added (wrong Q by Horner's rule, wrong
 * delta and syndrome decodes on 6.12 only).  The compare's intrinsic
 * uses signed char.
 */
static inline __m256i rkm_v_mul2(__m256i v)
{
	__m256i hi = _mm256_cmpgt_epi8(_mm256_setzero_si256(), v);

	return _mm256_xor_si256(_mm256_add_epi8(v, v),
				_mm256_and_si256(hi, _mm256_set1_epi8(0x1d)));
}

/*
 * The same with the polynomial chosen by VPBLENDVB from v's top bits: one
 * instruction fewer, faster on AMD Zen and slower on Intel cores, so
 * Horner's P+Q takes it when init measures it faster (RKM_PQ_HORNER_ALT).
 * Written as asm, which looks at the top bit whatever C's char is.
 */
#define RKM_MUL2_ALT
static inline __m256i rkm_v_mul2_alt(__m256i v)
{
	__m256i red;

	asm("vpblendvb %3, %2, %1, %0"
	    : "=x" (red)
	    : "x" (_mm256_setzero_si256()), "x" (_mm256_set1_epi8(0x1d)),
	      "x" (v));
	return _mm256_xor_si256(_mm256_add_epi8(v, v), red);
}

static inline struct rkm_nib rkm_v_prep(__m256i d)
{
	__m256i mask = _mm256_set1_epi8(0x0f);
	struct rkm_nib c;

	c.lo = _mm256_and_si256(d, mask);
	c.hi = _mm256_and_si256(_mm256_srli_epi16(d, 4), mask);
	return c;
}

static inline struct rkm_nib rkm_v_tbl(const struct rkm_mat *mt, rkm_size_t i)
{
	const rkm_u8 *t = mt->nib + 32 * i;
	struct rkm_nib r;

	r.lo = _mm256_broadcastsi128_si256(_mm_loadu_si128((const __m128i *)t));
	r.hi = _mm256_broadcastsi128_si256(_mm_loadu_si128((const __m128i *)(t + 16)));
	return r;
}

static inline struct rkm_nib rkm_v_tblp(const rkm_u8 *t)
{
	struct rkm_nib r;

	r.lo = _mm256_broadcastsi128_si256(_mm_loadu_si128((const __m128i *)t));
	r.hi = _mm256_broadcastsi128_si256(_mm_loadu_si128((const __m128i *)(t + 16)));
	return r;
}

static inline __m256i rkm_v_term(struct rkm_nib t, struct rkm_nib c)
{
	return _mm256_xor_si256(_mm256_shuffle_epi8(t.lo, c.lo),
				_mm256_shuffle_epi8(t.hi, c.hi));
}

#include "simd_body.h"

const struct rkm_ops rkm_ops_avx2 = {
	.name = "avx2",
	.simd = 1,
	.mul2_alt = 1,
	.mul = rkm_simd_mul,
};
