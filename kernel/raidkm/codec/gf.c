// SPDX-License-Identifier: GPL-2.0
/*
 * GF(2^8) arithmetic (polynomial 0x11D, generator 2, the field of Linux
 * RAID-6), the fixed 16 x 63 parity matrix and matrix inversion.
 *
 * Parity matrix: a row- and column-scaled Cauchy matrix
 *	P[i][j] = a_i * b_j / (x_i + y_j)
 * with x_0 = 0, x_1 = 1, y_j = t_j / (1 + t_j), t_j = 2^(j+1), b_j = y_j,
 * a_0 = 1, a_1 = 2^-1, and for i >= 2 x_i the smallest field elements not
 * among {0, 1, y_0..y_62} and a_i = (x_i + y_0) / y_0.  Row 0 is then all
 * ones, row 1 is 2^j and column 0 is all ones.  Every square submatrix
 * of a scaled Cauchy matrix is nonsingular, so every (k, m) corner is MDS
 * (Documentation/codec.rst has the proof).
 */
#include "rkm_codec_int.h"
#include "rkm_codec.h"

rkm_u8 rkm_gf_exp[510];
rkm_u8 rkm_gf_log[256];
rkm_u8 rkm_gf_mul_tbl[256][256];
rkm_u8 rkm_gf_nib[256][32];
rkm_u64 rkm_gf_aff[256];
static rkm_u8 rkm_gen[RKM_GEN_ROWS][RKM_GEN_COLS];

rkm_u8 rkm_gf_inv(rkm_u8 a)
{
	return a ? rkm_gf_exp[255 - rkm_gf_log[a]] : 0;
}

rkm_u8 rkm_gf_div(rkm_u8 a, rkm_u8 b)
{
	if (!a || !b)
		return 0;
	return rkm_gf_exp[rkm_gf_log[a] + 255 - rkm_gf_log[b]];
}

/*
 * The 8x8 bit matrix of y = c * x for GF2P8AFFINEQB: byte 7-i of the
 * qword selects the bits of x whose XOR is bit i of y.
 */
rkm_u64 rkm_gf_affine(rkm_u8 c)
{
	rkm_u64 a = 0;
	int i, k;

	for (i = 0; i < 8; i++) {
		rkm_u64 row = 0;

		for (k = 0; k < 8; k++)
			if ((rkm_gf_mul(c, 1 << k) >> i) & 1)
				row |= 1u << k;
		a |= row << (8 * (7 - i));
	}
	return a;
}

static void rkm_gen_init(void)
{
	rkm_u8 x[RKM_GEN_ROWS], y[RKM_GEN_COLS], a[RKM_GEN_ROWS];
	rkm_u8 used[256];
	int i, j, e;

	memset(used, 0, sizeof(used));
	for (j = 0; j < RKM_GEN_COLS; j++) {
		rkm_u8 t = rkm_gf_exp[j + 1];

		y[j] = rkm_gf_div(t, t ^ 1);
		used[y[j]] = 1;
	}
	x[0] = 0;
	x[1] = 1;
	used[0] = 1;
	used[1] = 1;
	a[0] = 1;
	a[1] = rkm_gf_inv(2);
	for (i = 2, e = 2; i < RKM_GEN_ROWS; i++) {
		while (used[e])
			e++;
		x[i] = e;
		used[e] = 1;
		a[i] = rkm_gf_div(x[i] ^ y[0], y[0]);
	}
	for (i = 0; i < RKM_GEN_ROWS; i++)
		for (j = 0; j < RKM_GEN_COLS; j++)
			rkm_gen[i][j] = rkm_gf_div(rkm_gf_mul(a[i], y[j]),
						   x[i] ^ y[j]);
}

void rkm_gf_init(void)
{
	unsigned int v = 1;
	int i, j;

	for (i = 0; i < 255; i++) {
		rkm_gf_exp[i] = v;
		rkm_gf_exp[i + 255] = v;
		rkm_gf_log[v] = i;
		v <<= 1;
		if (v & 0x100)
			v ^= RKM_GF_POLY;
	}
	rkm_gf_log[0] = 0;
	for (i = 0; i < 256; i++)
		for (j = 0; j < 256; j++)
			rkm_gf_mul_tbl[i][j] = (i && j) ?
				rkm_gf_exp[rkm_gf_log[i] + rkm_gf_log[j]] : 0;
	for (i = 0; i < 256; i++) {
		for (j = 0; j < 16; j++) {
			rkm_gf_nib[i][j] = rkm_gf_mul(i, j);
			rkm_gf_nib[i][16 + j] = rkm_gf_mul(i, j << 4);
		}
		rkm_gf_aff[i] = rkm_gf_affine(i);
	}
	rkm_gen_init();
}

void rkm_parity_matrix(int k, int m, rkm_u8 *coef)
{
	int i, j;

	if (rkm_codec_ensure_init() || !rkm_geometry_ok(k, m))
		return;
	for (i = 0; i < m; i++)
		for (j = 0; j < k; j++)
			coef[i * k + j] = rkm_gen[i][j];
}

/*
 * Gauss-Jordan inversion of the n x n matrix @a (destroyed) into @inv.
 * Returns 0, or -1 when @a is singular.
 */
int rkm_gf_invert(rkm_u8 *a, rkm_u8 *inv, int n)
{
	int i, j, r, c;

	memset(inv, 0, n * n);
	for (i = 0; i < n; i++)
		inv[i * n + i] = 1;
	for (c = 0; c < n; c++) {
		rkm_u8 p;

		for (r = c; r < n && !a[r * n + c]; r++)
			;
		if (r == n)
			return -1;
		if (r != c) {
			for (j = 0; j < n; j++) {
				rkm_u8 t = a[r * n + j];

				a[r * n + j] = a[c * n + j];
				a[c * n + j] = t;
				t = inv[r * n + j];
				inv[r * n + j] = inv[c * n + j];
				inv[c * n + j] = t;
			}
		}
		p = rkm_gf_inv(a[c * n + c]);
		for (j = 0; j < n; j++) {
			a[c * n + j] = rkm_gf_mul(p, a[c * n + j]);
			inv[c * n + j] = rkm_gf_mul(p, inv[c * n + j]);
		}
		for (r = 0; r < n; r++) {
			rkm_u8 f = a[r * n + c];

			if (r == c || !f)
				continue;
			for (j = 0; j < n; j++) {
				a[r * n + j] ^= rkm_gf_mul(f, a[c * n + j]);
				inv[r * n + j] ^= rkm_gf_mul(f, inv[c * n + j]);
			}
		}
	}
	return 0;
}
