/* SPDX-License-Identifier: GPL-2.0 */
/*
 * raidkm codec internals: the field, prepared matrices and the ops table
 * the per-ISA kernels implement.  Not for callers outside codec/.
 */
#ifndef RKM_CODEC_INT_H
#define RKM_CODEC_INT_H

#include "rkm_port.h"

/* GF(2^8), polynomial x^8+x^4+x^3+x^2+1, generator 2 (Linux RAID-6) */
#define RKM_GF_POLY	0x11d

/* Rows of the fixed parity matrix: any (k, m) uses its top-left corner. */
#define RKM_GEN_ROWS	16
#define RKM_GEN_COLS	63

/* Rows of a prepared matrix, at most (decode and encode: RKM_MAX_M). */
#define RKM_MAT_ROWS	16

/*
 * A prepared matrix: nout x nin coefficients and, per coefficient, the
 * forms the kernels use: two 16-entry nibble tables (c*i, c*(i<<4)) for
 * PSHUFB and the 8x8 bit matrix of multiplication by c for GF2P8AFFINEQB.
 *
 * The tables come twice.  nib and aff are row major, for multiplies
 * through a column map.  A plain multiply (every input once, in order)
 * computes row rp as the XOR of the inputs and the other rows by table,
 * except that kernels whose multiply costs more than a doubling compute
 * row rq by Horner's rule (q = 2q + in[j], j descending).  The tables of
 * the rows trow[0..nt) (rq first, when there is one) are also kept input
 * major in gnib and gaff (row trow[x] of input j at [j * nt + x]), so that
 * a kernel walks one pointer through them in the order it walks the
 * inputs.
 */
struct rkm_mat {
	int nout, nin;
	rkm_u32 ones;		/* rows whose coefficients are all 1 */
	rkm_u32 pow2;		/* rows whose coefficient j is 2^j */
	rkm_u8 *coef;		/* [nout * nin] */
	rkm_u8 *nib;		/* [nout * nin][32], 64-byte aligned */
	rkm_u64 *aff;		/* [nout * nin] */
	/* the plain multiply */
	int rp, rq;		/* XOR row, 2^j row; -1: none */
	int nt;			/* rows by table (rq included) */
	rkm_u8 trow[RKM_MAT_ROWS];	/* their row numbers: rq, then ascending */
	rkm_u8 *gnib;		/* [nin * nt][32], 32-byte aligned */
	rkm_u64 *gaff;		/* [nin * nt] */
	/*
	 * Syndrome decode (npost > 0, see rkm_mul_fn): the rows computed
	 * are syndromes, outputs are post x syndromes.  Post coefficient
	 * (i, s) applies to the syndrome of row rp (s = 0, when rp >= 0)
	 * or of row trow[s - (rp >= 0)].
	 */
	int npost;		/* outputs, at most RKM_POST_ROWS */
	rkm_u8 *pcoef;		/* [npost * nout] */
	rkm_u8 *pnib;		/* [npost * nout][32] */
	rkm_u64 *paff;		/* [npost * nout] */
};

/* rows of a syndrome decode (and outputs): the P and Q syndromes */
#define RKM_POST_ROWS	2

/*
 * The one primitive every operation goes through:
 *   out[r][off..off+len) (^)= sum_j coef[r][col(j)] * in[j][off..off+len)
 * for r < mt->nout, j < nin, where col(j) = cols ? cols[j] : j (cols lets
 * delta feed a column twice, or a subset of columns; without cols, nin is
 * mt->nin).  acc: 0 overwrite, 1 accumulate into out.  len and off are
 * multiples of 64.  An output may also be an input when the matrix has at
 * most 2 rows and 4 columns (the three-pass syndrome form's solve): every
 * kernel then reads a 64-byte strip of each input before it writes that
 * strip of any output.
 *
 * With mt->npost (a syndrome decode; no cols, acc 0), row r also takes
 * in[nin + r] with coefficient 1 (its parity chunk): S_r = in[nin + r] +
 * sum_j coef[r][j] * in[j]; and out[0..npost) = post x S, the syndromes
 * never leaving the registers.
 */
typedef void (*rkm_mul_fn)(const struct rkm_mat *mt, const rkm_u8 *cols,
			   int nin, rkm_size_t off, rkm_size_t len,
			   const rkm_u8 *const *in, rkm_u8 *const *out,
			   int acc);

struct rkm_ops {
	const char *name;
	int simd;			/* needs kernel_fpu_begin/end */
	int one_op_mul;			/* multiplies in one instruction (GFNI) */
	int mul2_alt;			/* a second doubling: RKM_PQ_HORNER_ALT */
	rkm_mul_fn mul;
};

extern const struct rkm_ops rkm_ops_scalar;
#if defined(__x86_64__)
extern const struct rkm_ops rkm_ops_ssse3;
extern const struct rkm_ops rkm_ops_avx2;
extern const struct rkm_ops rkm_ops_avx512;
extern const struct rkm_ops rkm_ops_gfni;
extern const struct rkm_ops rkm_ops_gfni_avx2;
#endif

/* gf.c */
extern rkm_u8 rkm_gf_exp[510];
extern rkm_u8 rkm_gf_log[256];
extern rkm_u8 rkm_gf_mul_tbl[256][256];
extern rkm_u8 rkm_gf_nib[256][32];	/* c*i, c*(i<<4), i < 16 */
extern rkm_u64 rkm_gf_aff[256];		/* rkm_gf_affine(c) */
void rkm_gf_init(void);
static inline rkm_u8 rkm_gf_mul(rkm_u8 a, rkm_u8 b)
{
	return rkm_gf_mul_tbl[a][b];
}
rkm_u8 rkm_gf_inv(rkm_u8 a);
rkm_u8 rkm_gf_div(rkm_u8 a, rkm_u8 b);
rkm_u64 rkm_gf_affine(rkm_u8 c);
int rkm_gf_invert(rkm_u8 *a, rkm_u8 *inv, int n);	/* 0 or -1 */

/* mat.c */
rkm_size_t rkm_mat_size(int nout, int nin);
void rkm_mat_prepare(struct rkm_mat *mt, int nout, int nin,
		     const rkm_u8 *coef);
struct rkm_mat *rkm_mat_alloc(int nout, int nin, const rkm_u8 *coef);
rkm_size_t rkm_mat_size_post(int nout, int nin, int npost);
void rkm_mat_prepare_post(struct rkm_mat *mt, int nout, int nin,
			  const rkm_u8 *coef, int npost, const rkm_u8 *post);

/*
 * codec.c: how patterns whose data is rebuilt from Q, or from P and Q
 * (the m = 2 cases), are decoded: with plain rows (ed x k table terms a
 * byte), in one syndrome pass (the P syndrome by XOR, Q's by table, the
 * ed x ed solve in registers), or in three syndrome passes (copy parity,
 * accumulate the syndromes by XOR and Horner's rule, solve in place:
 * fewest table terms, most memory traffic).  select.c measures the forms
 * for the chosen implementation.
 */
#define RKM_FORM_ROWS		0
#define RKM_FORM_SYNDROME	1	/* three passes */
#define RKM_FORM_FUSED		2	/* one pass */
#define RKM_NFORMS		3
void rkm_decode_form_set(int form);
int rkm_decode_form(void);
const char *rkm_decode_form_name(int form);

/*
 * select.c: the 2^j row of a plain multiply in which it is the only row
 * by table (the P+Q encode of m = 2): by table, by Horner's rule, or by
 * Horner's rule with the implementation's second way to double
 * (ops->mul2_alt; where it has none, the same as RKM_PQ_HORNER).
 * Measured at init for the implementation in use; the kernels read it
 * (non-zero: Horner).
 */
#define RKM_PQ_TABLE		0
#define RKM_PQ_HORNER		1
#define RKM_PQ_HORNER_ALT	2
#define RKM_NPQ			3
extern int rkm_q_horner;
void rkm_q_form_set(int form);
const char *rkm_q_form_name(int form);

/* select.c: the implementation in use, and the sliced runner */
const struct rkm_ops *rkm_ops_current(void);
void rkm_run_mul(const struct rkm_mat *mt, const rkm_u8 *cols, int nin,
		 rkm_size_t len, const rkm_u8 *const *in,
		 rkm_u8 *const *out, int acc);
int rkm_codec_ensure_init(void);

/* selftest.c: the implementation in use in every form, against the field */
int rkm_codec_selftest(void);

#endif /* RKM_CODEC_INT_H */
