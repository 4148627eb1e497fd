// SPDX-License-Identifier: GPL-2.0
/*
 * Scalar reference kernel: the full 256 x 256 multiplication table, one
 * byte at a time (coefficient 1 as 64-bit XOR).  Every other kernel is
 * checked against this one; it uses none of the prepared SIMD tables.
 * Outputs may be inputs too (rkm_mul_fn says when); here that is done
 * 64 bytes at a time through a copy of up to RKM_SCALAR_INPLACE inputs.
 */
#include "rkm_codec_int.h"
#include "rkm_codec.h"

static void rkm_scalar_rows(const struct rkm_mat *mt, const rkm_u8 *cols,
			    int nin, rkm_size_t off, rkm_size_t len,
			    const rkm_u8 *const *in, rkm_u8 *const *out,
			    int acc)
{
	int r, j;
	rkm_size_t i;

	for (r = 0; r < mt->nout; r++) {
		rkm_u8 *d = out[r] + off;

		if (!acc)
			memset(d, 0, len);
		for (j = 0; j < nin; j++) {
			int col = cols ? cols[j] : j;
			rkm_u8 c = mt->coef[r * mt->nin + col];
			const rkm_u8 *s = in[j] + off;
			const rkm_u8 *t = rkm_gf_mul_tbl[c];

			if (c == 0)
				continue;
			if (c == 1) {
				for (i = 0; i < len; i += 8) {
					rkm_u64 a, b;

					memcpy(&a, d + i, 8);
					memcpy(&b, s + i, 8);
					a ^= b;
					memcpy(d + i, &a, 8);
				}
				continue;
			}
			for (i = 0; i < len; i++)
				d[i] ^= t[s[i]];
		}
	}
}

/*
 * A syndrome decode (mt->npost), 64 bytes at a time: the syndromes
 * S_r = in[nin + r] + sum_j coef[r][j] * in[j], then out = post x S.
 */
static void rkm_scalar_post(const struct rkm_mat *mt, int nin,
			    rkm_size_t off, rkm_size_t len,
			    const rkm_u8 *const *in, rkm_u8 *const *out)
{
	rkm_u8 syn[RKM_POST_ROWS][64];
	rkm_u8 *sp[RKM_POST_ROWS];
	const rkm_u8 *ip[RKM_MAX_N];
	rkm_size_t pos;
	int r, i, j, b;

	for (pos = off; pos < off + len; pos += 64) {
		for (j = 0; j < nin; j++)
			ip[j] = in[j] + pos;
		for (r = 0; r < mt->nout; r++) {
			memcpy(syn[r], in[nin + r] + pos, 64);
			sp[r] = syn[r];
		}
		rkm_scalar_rows(mt, NULL, nin, 0, 64, ip, sp, 1);
		for (i = 0; i < mt->npost; i++) {
			rkm_u8 *d = out[i] + pos;

			memset(d, 0, 64);
			for (r = 0; r < mt->nout; r++) {
				const rkm_u8 *t =
					rkm_gf_mul_tbl[mt->pcoef[i * mt->nout + r]];

				for (b = 0; b < 64; b++)
					d[b] ^= t[syn[r][b]];
			}
		}
	}
}

/* Up to this many inputs may also be outputs (an in-place solve). */
#define RKM_SCALAR_INPLACE	4

static void rkm_scalar_mul(const struct rkm_mat *mt, const rkm_u8 *cols,
			   int nin, rkm_size_t off, rkm_size_t len,
			   const rkm_u8 *const *in, rkm_u8 *const *out,
			   int acc)
{
	rkm_u8 tmp[RKM_SCALAR_INPLACE][64];
	const rkm_u8 *ip[RKM_SCALAR_INPLACE];
	rkm_u8 *op[RKM_MAX_M];
	rkm_size_t pos;
	int r, j, alias = 0;

	if (mt->npost) {
		rkm_scalar_post(mt, nin, off, len, in, out);
		return;
	}
	for (r = 0; r < mt->nout; r++)
		for (j = 0; j < nin; j++)
			alias |= out[r] == in[j];
	if (!alias || nin > RKM_SCALAR_INPLACE || mt->nout > RKM_MAX_M) {
		rkm_scalar_rows(mt, cols, nin, off, len, in, out, acc);
		return;
	}
	/* 64 bytes at a time, every input read before any output is written */
	for (pos = off; pos < off + len; pos += 64) {
		for (j = 0; j < nin; j++) {
			memcpy(tmp[j], in[j] + pos, 64);
			ip[j] = tmp[j];
		}
		for (r = 0; r < mt->nout; r++)
			op[r] = out[r] + pos;
		rkm_scalar_rows(mt, cols, nin, 0, 64, ip, op, acc);
	}
}

const struct rkm_ops rkm_ops_scalar = {
	.name = "scalar",
	.simd = 0,
	.mul = rkm_scalar_mul,
};
