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

	return 64 + sizeof(struct rkm_mat) + 32 * n + 8 * n + RKM_ALIGN_UP(n, 8);
}

/* @mt points to rkm_mat_size(nout, nin) bytes. */
void rkm_mat_prepare(struct rkm_mat *mt, int nout, int nin,
		     const rkm_u8 *coef)
{
	rkm_size_t n = (rkm_size_t)nout * nin, i;
	rkm_u8 *base = (rkm_u8 *)mt;
	int r, j;

	mt->nout = nout;
	mt->nin = nin;
	mt->nib = base + RKM_ALIGN_UP((unsigned long)base + sizeof(*mt), 64) -
		  (unsigned long)base;
	mt->aff = (rkm_u64 *)(mt->nib + 32 * n);
	mt->coef = (rkm_u8 *)(mt->aff + n);
	mt->ones = 0;
	mt->pow2 = 0;
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
}

/* A prepared matrix in its own allocation (rkm_free() it). */
struct rkm_mat *rkm_mat_alloc(int nout, int nin, const rkm_u8 *coef)
{
	struct rkm_mat *mt = rkm_alloc(rkm_mat_size(nout, nin));

	if (mt)
		rkm_mat_prepare(mt, nout, nin, coef);
	return mt;
}
