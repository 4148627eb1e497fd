// SPDX-License-Identifier: GPL-2.0
/*
 * Prepared matrices: coefficients plus the per-coefficient tables of every
 * kernel (nibble tables for PSHUFB, bit matrices for GF2P8AFFINEQB), laid
 * out in one block so that any implementation can run any matrix.
 */
#include "rkm_codec_int.h"

#define RKM_ALIGN_UP(x, a)	(((x) + (a) - 1) & ~(rkm_size_t)((a) - 1))

/* Bytes for a prepared nout x nin matrix, with 64 bytes of alignment slack. */
rkm_size_t rkm_mat_size(int nout, int nin)
{
	rkm_size_t n = (rkm_size_t)nout * nin;

	return 64 + RKM_ALIGN_UP(sizeof(struct rkm_mat), 64) + 2 * 32 * n +
	       2 * 8 * n + RKM_ALIGN_UP(n, 8);
}

/* which rows the plain multiply does by XOR, by Horner or table, by table */
static void rkm_mat_classify(struct rkm_mat *mt)
{
	int r;

	mt->rp = -1;
	mt->rq = -1;
	mt->nt = 0;
	for (r = 0; r < mt->nout; r++) {
		if (((mt->ones >> r) & 1) && mt->rp < 0) {
			mt->rp = r;
		} else if (((mt->pow2 >> r) & 1) && mt->rq < 0) {
			mt->rq = r;
			/* first in trow */
			memmove(mt->trow + 1, mt->trow, mt->nt);
			mt->trow[0] = r;
			mt->nt++;
		} else {
			mt->trow[mt->nt++] = r;
		}
	}
}

/* @mt points to rkm_mat_size(nout, nin) bytes; nout <= RKM_MAT_ROWS. */
void rkm_mat_prepare(struct rkm_mat *mt, int nout, int nin,
		     const rkm_u8 *coef)
{
	rkm_size_t n = (rkm_size_t)nout * nin, i;
	rkm_u8 *base = (rkm_u8 *)mt;
	int r, j, x;

	mt->nout = nout;
	mt->nin = nin;
	mt->nib = base + RKM_ALIGN_UP((unsigned long)base + sizeof(*mt), 64) -
		  (unsigned long)base;
	mt->gnib = mt->nib + 32 * n;
	mt->aff = (rkm_u64 *)(mt->gnib + 32 * n);
	mt->gaff = mt->aff + n;
	mt->coef = (rkm_u8 *)(mt->gaff + n);
	mt->ones = 0;
	mt->pow2 = 0;
	mt->npost = 0;
	mt->pcoef = NULL;
	mt->pnib = NULL;
	mt->paff = NULL;
	memcpy(mt->coef, coef, n);
	for (i = 0; i < n; i++) {
		memcpy(mt->nib + 32 * i, rkm_gf_nib[coef[i]], 32);
		mt->aff[i] = rkm_gf_aff[coef[i]];
	}
	for (r = 0; r < nout; r++) {
		int ones = 1, pow2 = 1;

		for (j = 0; j < nin; j++) {
			ones &= coef[r * nin + j] == 1;
			pow2 &= coef[r * nin + j] == rkm_gf_exp[j];
		}
		if (ones)
			mt->ones |= 1u << r;
		if (pow2)
			mt->pow2 |= 1u << r;
	}
	rkm_mat_classify(mt);
	for (j = 0; j < nin; j++)
		for (x = 0; x < mt->nt; x++) {
			rkm_u8 c = coef[mt->trow[x] * nin + j];

			i = (rkm_size_t)j * mt->nt + x;
			memcpy(mt->gnib + 32 * i, rkm_gf_nib[c], 32);
			mt->gaff[i] = rkm_gf_aff[c];
		}
}

/* Bytes for a syndrome decode matrix: nout x nin, then npost x nout. */
rkm_size_t rkm_mat_size_post(int nout, int nin, int npost)
{
	return rkm_mat_size(nout, nin) + 64 + 41 * (rkm_size_t)npost * nout;
}

/*
 * A syndrome decode matrix (rkm_mul_fn): the nout <= RKM_POST_ROWS rows
 * of @coef over nin inputs, then @post (npost x nout).  The first of two
 * rows is P's (all ones, by XOR); every other row goes by table, never by
 * Horner (the parity chunk enters at the end, after the doublings).
 */
void rkm_mat_prepare_post(struct rkm_mat *mt, int nout, int nin,
			  const rkm_u8 *coef, int npost, const rkm_u8 *post)
{
	rkm_size_t n = (rkm_size_t)npost * nout, i;
	rkm_u8 *end = (rkm_u8 *)mt + rkm_mat_size(nout, nin);
	int r;

	rkm_mat_prepare(mt, nout, nin, coef);
	mt->rp = nout == 2 ? 0 : -1;
	mt->rq = -1;
	mt->nt = 0;
	for (r = nout == 2 ? 1 : 0; r < nout; r++)
		mt->trow[mt->nt++] = r;
	for (r = 0; r < mt->nt; r++)
		for (i = 0; i < (rkm_size_t)nin; i++) {
			rkm_u8 c = coef[mt->trow[r] * nin + i];
			rkm_size_t t = i * mt->nt + r;

			memcpy(mt->gnib + 32 * t, rkm_gf_nib[c], 32);
			mt->gaff[t] = rkm_gf_aff[c];
		}
	mt->npost = npost;
	mt->pnib = (rkm_u8 *)RKM_ALIGN_UP((unsigned long)end, 64);
	mt->paff = (rkm_u64 *)(mt->pnib + 32 * n);
	mt->pcoef = (rkm_u8 *)(mt->paff + n);
	memcpy(mt->pcoef, post, n);
	for (i = 0; i < n; i++) {
		memcpy(mt->pnib + 32 * i, rkm_gf_nib[post[i]], 32);
		mt->paff[i] = rkm_gf_aff[post[i]];
	}
}

/* A prepared matrix in its own allocation (rkm_free() it). */
struct rkm_mat *rkm_mat_alloc(int nout, int nin, const rkm_u8 *coef)
{
	struct rkm_mat *mt = rkm_alloc(rkm_mat_size(nout, nin));

	if (mt)
		rkm_mat_prepare(mt, nout, nin, coef);
	return mt;
}
