// SPDX-License-Identifier: GPL-2.0
/*
 * Scalar reference kernel: the full 256 x 256 multiplication table, one
 * byte at a time (coefficient 1 as 64-bit XOR).  Every other kernel is
 * checked against this one; it uses none of the prepared SIMD tables.
 */
#include "rkm_codec_int.h"

static void rkm_scalar_mul(const struct rkm_mat *mt, const rkm_u8 *cols,
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

const struct rkm_ops rkm_ops_scalar = {
	.name = "scalar",
	.simd = 0,
	.mul = rkm_scalar_mul,
};
