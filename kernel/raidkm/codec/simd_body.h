/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The multiply-accumulate kernel, written once for every vector ISA (like
 * lib/raid6's .uc templates).  The including file defines, for its ISA:
 *
 *   RKM_V, RKM_VW        vector type and its width in bytes (16, 32, 64)
 *   RKM_MAXG             general rows computed per pass over the inputs
 *   RKM_CTX, RKM_T       per-input multiply context, per-coefficient table
 *   rkm_v_ld/st/xor/zero/mul2 (multiply by 2, for the Horner Q row)
 *   rkm_v_prep(d)        RKM_CTX of an input vector
 *   rkm_v_tbl(mt, i)     RKM_T of coefficient i of @mt
 *   rkm_v_term(t, c)     the product coefficient * input
 *
 * and gets rkm_simd_mul(), an rkm_mul_fn.  Each pass walks the inputs
 * once in 64-byte strips, keeping up to RKM_MAXG general rows plus one
 * all-ones row (plain XOR) and one 2^j row (Horner: q = 2q + d, inputs in
 * descending order) in registers.
 */
/* vectors per loop iteration: RKM_STRIPS 64-byte strips (default 1) */
#ifndef RKM_STRIPS
#define RKM_STRIPS	1
#endif
#define RKM_U	(RKM_STRIPS * 64 / RKM_VW)
/*
 * A pass with only the XOR and Horner rows unrolls twice as far on the
 * narrower vectors (the 64-byte kernels already take two strips, and a
 * deeper unroll would overflow the kernel's stack frame limit).
 */
#if RKM_VW < 64
#define RKM_UPQ	(2 * RKM_U)
#else
#define RKM_UPQ	RKM_U
#endif

static __always_inline void
rkm_simd_pass(const struct rkm_mat *mt, const rkm_u8 *cols, int nin,
	      rkm_size_t off, rkm_size_t len, const rkm_u8 *const *in,
	      rkm_u8 *const *out, int acc, int rp, int rq, const int *rg,
	      const int np, const int nq, const int ng, const int nu)
{
	rkm_size_t pos, rowoff[RKM_MAXG];
	int x;

#pragma GCC unroll 16
	for (x = 0; x < ng; x++)
		rowoff[x] = (rkm_size_t)rg[x] * mt->nin;

	for (pos = off; pos < off + len; pos += nu * RKM_VW) {
		RKM_V p[RKM_UPQ], q[RKM_UPQ], g[RKM_MAXG][RKM_U];
		int jj, u, prev = -1;	/* prev: column of the last Q input */

#pragma GCC unroll 8
		for (u = 0; u < nu; u++) {
			p[u] = rkm_v_zero();
			q[u] = rkm_v_zero();
#pragma GCC unroll 16
			for (x = 0; x < ng; x++)
				g[x][u] = rkm_v_zero();
		}
		for (jj = 0; jj < nin; jj++) {
			int j = nq ? nin - 1 - jj : jj;
			int col = cols ? cols[j] : j;
			const rkm_u8 *s = in[j] + pos;
			RKM_V d[RKM_UPQ];

#pragma GCC unroll 8
			for (u = 0; u < nu; u++)
				d[u] = rkm_v_ld(s + u * RKM_VW);
			/* inputs of one column in a row (delta: old, new): sum */
			while (cols && jj + 1 < nin &&
			       cols[nq ? j - 1 : j + 1] == col) {
				j = nq ? j - 1 : j + 1;
				jj++;
				s = in[j] + pos;
#pragma GCC unroll 8
				for (u = 0; u < nu; u++)
					d[u] = rkm_v_xor(d[u],
							 rkm_v_ld(s + u * RKM_VW));
			}
			if (np) {
#pragma GCC unroll 8
				for (u = 0; u < nu; u++)
					p[u] = rkm_v_xor(p[u], d[u]);
			}
			if (nq && !cols) {
#pragma GCC unroll 8
				for (u = 0; u < nu; u++)
					q[u] = rkm_v_xor(rkm_v_mul2(q[u]), d[u]);
			} else if (nq) {
				/* columns descend with gaps: one doubling each */
				for (x = prev < 0 ? 0 : prev - col; x > 0; x--) {
#pragma GCC unroll 8
					for (u = 0; u < nu; u++)
						q[u] = rkm_v_mul2(q[u]);
				}
#pragma GCC unroll 8
				for (u = 0; u < nu; u++)
					q[u] = rkm_v_xor(q[u], d[u]);
				prev = col;
			}
			if (ng) {
				RKM_CTX c[RKM_U];

#pragma GCC unroll 8
				for (u = 0; u < nu; u++)
					c[u] = rkm_v_prep(d[u]);
#pragma GCC unroll 16
				for (x = 0; x < ng; x++) {
					RKM_T t = rkm_v_tbl(mt, rowoff[x] + col);

#pragma GCC unroll 8
					for (u = 0; u < nu; u++)
						g[x][u] = rkm_v_xor(g[x][u],
							rkm_v_term(t, c[u]));
				}
			}
		}
		/* sparse columns: double on down to column 0 */
		for (x = nq && cols ? prev : 0; x > 0; x--) {
#pragma GCC unroll 8
			for (u = 0; u < nu; u++)
				q[u] = rkm_v_mul2(q[u]);
		}
#pragma GCC unroll 8
		for (u = 0; u < nu; u++) {
			rkm_size_t o = pos + u * RKM_VW;

			if (np) {
				if (acc)
					p[u] = rkm_v_xor(p[u], rkm_v_ld(out[rp] + o));
				rkm_v_st(out[rp] + o, p[u]);
			}
			if (nq) {
				if (acc)
					q[u] = rkm_v_xor(q[u], rkm_v_ld(out[rq] + o));
				rkm_v_st(out[rq] + o, q[u]);
			}
#pragma GCC unroll 16
			for (x = 0; x < ng; x++) {
				rkm_u8 *dst = out[rg[x]] + o;

				if (acc)
					g[x][u] = rkm_v_xor(g[x][u], rkm_v_ld(dst));
				rkm_v_st(dst, g[x][u]);
			}
		}
	}
}

/* one pass with n general rows, n a compile-time constant in each call */
static __always_inline void
rkm_simd_pass_n(const struct rkm_mat *mt, const rkm_u8 *cols, int nin,
		rkm_size_t off, rkm_size_t len, const rkm_u8 *const *in,
		rkm_u8 *const *out, int acc, int rp, int rq, const int *rg,
		const int np, const int nq, int n, const int nu)
{
	switch (n) {
	case 0:
		rkm_simd_pass(mt, cols, nin, off, len, in, out, acc, rp, rq,
			      rg, np, nq, 0, nu);
		break;
	case 1:
		rkm_simd_pass(mt, cols, nin, off, len, in, out, acc, rp, rq,
			      rg, np, nq, 1, nu);
		break;
	case 2:
		rkm_simd_pass(mt, cols, nin, off, len, in, out, acc, rp, rq,
			      rg, np, nq, 2, nu);
		break;
#if RKM_MAXG >= 4
	case 3:
		rkm_simd_pass(mt, cols, nin, off, len, in, out, acc, rp, rq,
			      rg, np, nq, 3, nu);
		break;
	case 4:
		rkm_simd_pass(mt, cols, nin, off, len, in, out, acc, rp, rq,
			      rg, np, nq, 4, nu);
		break;
#endif
#if RKM_MAXG >= 8
	case 5:
		rkm_simd_pass(mt, cols, nin, off, len, in, out, acc, rp, rq,
			      rg, np, nq, 5, nu);
		break;
	case 6:
		rkm_simd_pass(mt, cols, nin, off, len, in, out, acc, rp, rq,
			      rg, np, nq, 6, nu);
		break;
	case 7:
		rkm_simd_pass(mt, cols, nin, off, len, in, out, acc, rp, rq,
			      rg, np, nq, 7, nu);
		break;
	case 8:
		rkm_simd_pass(mt, cols, nin, off, len, in, out, acc, rp, rq,
			      rg, np, nq, 8, nu);
		break;
#endif
	}
}

/* np, nq and nu as compile-time constants */
static __always_inline void
rkm_simd_pass_np(const struct rkm_mat *mt, const rkm_u8 *cols, int nin,
		 rkm_size_t off, rkm_size_t len, const rkm_u8 *const *in,
		 rkm_u8 *const *out, int acc, int rp, int rq, const int *rg,
		 int np, int nq, int n, const int nu)
{
	if (np && nq)
		rkm_simd_pass_n(mt, cols, nin, off, len, in, out, acc,
				rp, rq, rg, 1, 1, n, nu);
	else if (np)
		rkm_simd_pass_n(mt, cols, nin, off, len, in, out, acc,
				rp, rq, rg, 1, 0, n, nu);
	else if (nq)
		rkm_simd_pass_n(mt, cols, nin, off, len, in, out, acc,
				rp, rq, rg, 0, 1, n, nu);
	else
		rkm_simd_pass_n(mt, cols, nin, off, len, in, out, acc,
				rp, rq, rg, 0, 0, n, nu);
}

/*
 * May the 2^j row take a sparse, ascending column list by Horner's rule?
 * It costs one doubling per column step down to 0, where a general row
 * costs one table term per distinct column: allow about two doublings per
 * term saved, about even on real SIMD and far cheaper where the table
 * lookup is expensive (emulated).
 */
#ifndef RKM_HORNER_COLS_ONCE
#define RKM_HORNER_COLS_ONCE	/* gfni.c includes this file twice */
static int rkm_horner_cols(const rkm_u8 *cols, int nin)
{
	int j, nd = 1;

	for (j = 1; j < nin; j++) {
		if (cols[j] < cols[j - 1])
			return 0;
		if (cols[j] != cols[j - 1])
			nd++;
	}
	return cols[nin - 1] <= 2 * nd + 1;
}
#endif

static void rkm_simd_mul(const struct rkm_mat *mt, const rkm_u8 *cols,
			 int nin, rkm_size_t off, rkm_size_t len,
			 const rkm_u8 *const *in, rkm_u8 *const *out, int acc)
{
	int rg[32], ng = 0, rp = -1, rq = -1, r, x = 0, first = 1;

	for (r = 0; r < mt->nout; r++) {
		if (((mt->ones >> r) & 1) && rp < 0)
			rp = r;
		else if (((mt->pow2 >> r) & 1) && rq < 0 &&
			 (cols ? rkm_horner_cols(cols, nin) :
			  nin == mt->nin))
			rq = r;
		else
			rg[ng++] = r;
	}
	do {
		int np = first && rp >= 0, nq = first && rq >= 0;
		int n = ng - x < RKM_MAXG ? ng - x : RKM_MAXG;
		rkm_size_t big;

		/* full iterations, then one 64-byte strip at a time */
		if (n) {
			big = len / (RKM_U * RKM_VW) * (RKM_U * RKM_VW);
			if (big)
				rkm_simd_pass_np(mt, cols, nin, off, big, in,
						 out, acc, rp, rq, rg + x, np,
						 nq, n, RKM_U);
		} else {
			big = len / (RKM_UPQ * RKM_VW) * (RKM_UPQ * RKM_VW);
			if (big)
				rkm_simd_pass_np(mt, cols, nin, off, big, in,
						 out, acc, rp, rq, rg + x, np,
						 nq, 0, RKM_UPQ);
		}
		if (len > big)
			rkm_simd_pass_np(mt, cols, nin, off + big, len - big,
					 in, out, acc, rp, rq, rg + x, np, nq,
					 n, 64 / RKM_VW);
		x += n;
		first = 0;
	} while (x < ng);
}
