/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The multiply-accumulate kernel, written once for every vector ISA (like
 * lib/raid6's .uc templates).  The including file defines, for its ISA:
 *
 *   RKM_V, RKM_VW        vector type and its width in bytes (16, 32, 64)
 *   RKM_MAXG             general rows computed per pass over the inputs
 *   RKM_CTX, RKM_T       per-input multiply context, per-coefficient table
 *   RKM_TSZ              bytes of one coefficient's table in gnib/gaff
 *   RKM_GTAB(mt)         mt->gnib or mt->gaff, as bytes
 *   RKM_PTAB(mt)         mt->pnib or mt->paff, as bytes
 *   rkm_v_ld/st/xor/zero/mul2 (multiply by 2, for the Horner Q row)
 *   rkm_v_prep(d)        RKM_CTX of an input vector
 *   rkm_v_tbl(mt, i)     RKM_T of coefficient i of @mt (row major)
 *   rkm_v_tblp(p)        RKM_T at p, in RKM_GTAB(mt)
 *   rkm_v_term(t, c)     the product coefficient * input
 *   rkm_v_xor3(a, b, c)  a ^ b ^ c
 *   RKM_OWN_ACC          optional: the ISA's own rkm_v_acc(a, t, c), a ^
 *                        rkm_v_term(t, c) (default: an XOR of the two)
 *   RKM_PAIR             optional: plain passes and syndrome decodes
 *                        take the inputs two at a time, joining P's and
 *                        each row's XORs in rkm_v_xor3 (worth it where
 *                        that is one instruction)
 *   RKM_OWN_ACC2         optional, with RKM_PAIR: the ISA's own
 *                        rkm_v_acc2(a, t0, c0, t1, c1), a ^ t0 * c0 ^ t1 *
 *                        c1 (default: two rkm_v_acc)
 *   RKM_MUL4, rkm_v_mul4 optional, with RKM_PAIR: multiply by 4, so that
 *                        Horner's Q takes two inputs as 4q + 2d + d'
 *   RKM_MUL2_ALT, rkm_v_mul2_alt  optional: a second way to double, for
 *                        Horner's Q when rkm_q_horner is RKM_PQ_HORNER_ALT
 *   RKM_NU(n)            optional: vectors per iteration of a plain pass
 *                        with n rows by table (register pressure; up to
 *                        RKM_UMAX); default RKM_STRIPS 64-byte strips,
 *                        twice that for n = 0 on the narrower vectors
 *   RKM_NUW(n)           optional: the same for inputs that fit in L1
 *
 * and gets rkm_simd_mul(), an rkm_mul_fn (RKM_FN(name) renames the
 * functions when a file includes this twice).
 *
 * Plain multiplies (no column map: encode, decode) walk every input once
 * per pass, in 64-byte strips, keeping in registers up to RKM_MAXG general
 * rows, whose tables the pass reads through one pointer (the matrix keeps
 * them input major), plus the matrix's XOR row and, when rkm_q_horner
 * says so, its 2^j row by Horner's rule (q = 2q + d from the last input
 * down).  Multiplies through a column map
 * (delta, syndromes) take the general path below.
 */
#ifndef RKM_STRIPS
#define RKM_STRIPS	1
#endif
#undef RKM_PAIRS		/* gfni.c includes this file twice */
#ifdef RKM_PAIR
#define RKM_PAIRS	1	/* 1: the steps of a pass take two inputs */
#else
#define RKM_PAIRS	0
#endif
#ifndef RKM_FN
#define RKM_FN(name)	name
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
#ifndef RKM_NU
#define RKM_NU(n)	((n) ? RKM_U : RKM_UPQ)
#endif
#ifndef RKM_UMAX
#define RKM_UMAX	RKM_UPQ		/* the largest RKM_NU() */
#endif
/* inputs that fit in L1 with room to spare, in bytes (see RKM_NUW) */
#define RKM_L1_BYTES	(48 << 10)
/* accumulators of the rows by table: n * RKM_NU(n) at most */
#define RKM_GACC	(RKM_MAXG * RKM_U > 4 * RKM_UMAX ? RKM_MAXG * RKM_U : \
			 4 * RKM_UMAX)

/*
 * Horner's doubling of q: nq is 2 (a compile-time constant down the
 * inlined pass) for the ISA's second way, where it has one.
 */
static __always_inline RKM_V RKM_FN(rkm_mul2q)(RKM_V v, const int nq)
{
#ifdef RKM_MUL2_ALT
	if (nq == 2)
		return rkm_v_mul2_alt(v);
#endif
	return rkm_v_mul2(v);
}

#define RKM_MUL2Q(v, nq)	RKM_FN(rkm_mul2q)(v, nq)

#ifndef RKM_OWN_ACC
static inline RKM_V rkm_v_acc(RKM_V a, RKM_T t, RKM_CTX c)
{
	return rkm_v_xor(a, rkm_v_term(t, c));
}
#endif

/* ---- plain multiplies ---------------------------------------------------- */

/*
 * One input of a plain pass: d = in + pos; p ^= d; q = 2q + d; g[x] ^=
 * t[x] * d.  @first: the accumulators start from this input.
 */
static __always_inline void
RKM_FN(rkm_simd_step)(const rkm_u8 *s, const rkm_u8 *t, RKM_V *p, RKM_V *q,
		      RKM_V *g, const int np, const int nq,
		      const int ng, const int nu, const int first)
{
	RKM_V d[RKM_UMAX];
	int u, x;

#pragma GCC unroll 8
	for (u = 0; u < nu; u++)
		d[u] = rkm_v_ld(s + u * RKM_VW);
	if (np) {
#pragma GCC unroll 8
		for (u = 0; u < nu; u++)
			p[u] = first ? d[u] : rkm_v_xor(p[u], d[u]);
	}
	if (nq) {
#pragma GCC unroll 8
		for (u = 0; u < nu; u++)
			q[u] = first ? d[u] :
				rkm_v_xor(RKM_MUL2Q(q[u], nq), d[u]);
	}
	if (ng) {
		RKM_CTX c[RKM_UMAX];

#pragma GCC unroll 8
		for (u = 0; u < nu; u++)
			c[u] = rkm_v_prep(d[u]);
#pragma GCC unroll 16
		for (x = 0; x < ng; x++) {
			RKM_T tx = rkm_v_tblp(t + x * RKM_TSZ);

#pragma GCC unroll 8
			for (u = 0; u < nu; u++) {
				g[x * nu + u] = first ? rkm_v_term(tx, c[u]) :
					rkm_v_acc(g[x * nu + u], tx, c[u]);
			}
		}
	}
}

#ifndef RKM_OWN_ACC2
/* a ^ t0 * c0 ^ t1 * c1 (an ISA with one-instruction terms defines its own) */
static inline RKM_V rkm_v_acc2(RKM_V a, RKM_T t0, RKM_CTX c0, RKM_T t1,
			       RKM_CTX c1)
{
	return rkm_v_acc(rkm_v_acc(a, t0, c0), t1, c1);
}
#endif

/*
 * Two inputs of a plain pass, s0 then s1 in the pass's order, their
 * tables at t0 and t1: p ^= d0 ^ d1; q = 2(2q + d0) + d1; g[x] ^= t0[x] *
 * d0 ^ t1[x] * d1, each in one three-way XOR where the ISA has one.
 */
static __always_inline void
RKM_FN(rkm_simd_step2)(const rkm_u8 *s0, const rkm_u8 *s1,
		       const rkm_u8 *t0, const rkm_u8 *t1, RKM_V *p, RKM_V *q,
		       RKM_V *g, const int np, const int nq, const int ng,
		       const int nu, const int first)
{
	RKM_V d0[RKM_UMAX], d1[RKM_UMAX];
	int u, x;

#pragma GCC unroll 8
	for (u = 0; u < nu; u++) {
		d0[u] = rkm_v_ld(s0 + u * RKM_VW);
		d1[u] = rkm_v_ld(s1 + u * RKM_VW);
	}
	if (np) {
#pragma GCC unroll 8
		for (u = 0; u < nu; u++)
			p[u] = first ? rkm_v_xor(d0[u], d1[u]) :
				rkm_v_xor3(p[u], d0[u], d1[u]);
	}
	if (nq) {
#pragma GCC unroll 8
		for (u = 0; u < nu; u++) {
			RKM_V v = rkm_v_xor(RKM_MUL2Q(d0[u], nq), d1[u]);

			if (first)
				q[u] = v;
			else
#ifdef RKM_MUL4
				q[u] = rkm_v_xor3(rkm_v_mul4(q[u]),
						  RKM_MUL2Q(d0[u], nq), d1[u]);
#else
				q[u] = rkm_v_xor(RKM_MUL2Q(rkm_v_xor(
					RKM_MUL2Q(q[u], nq), d0[u]), nq), d1[u]);
#endif
		}
	}
	if (ng) {
		RKM_CTX c0[RKM_UMAX], c1[RKM_UMAX];

#pragma GCC unroll 8
		for (u = 0; u < nu; u++) {
			c0[u] = rkm_v_prep(d0[u]);
			c1[u] = rkm_v_prep(d1[u]);
		}
#pragma GCC unroll 16
		for (x = 0; x < ng; x++) {
			RKM_T tx0 = rkm_v_tblp(t0 + x * RKM_TSZ);
			RKM_T tx1 = rkm_v_tblp(t1 + x * RKM_TSZ);

#pragma GCC unroll 8
			for (u = 0; u < nu; u++) {
				RKM_V *a = &g[x * nu + u];

				if (first)
					*a = rkm_v_acc(rkm_v_term(tx0, c0[u]),
						       tx1, c1[u]);
				else
					*a = rkm_v_acc2(*a, tx0, c0[u], tx1,
							c1[u]);
			}
		}
	}
}

/*
 * A plain pass over [off, off + len), len a multiple of nu vectors: the P
 * row into po (np), the Q row into qo (nq) and ng general rows into go[],
 * their tables at tb + (j * ts + x) * RKM_TSZ for input j.  With a Q row
 * the inputs are walked from the last.
 */
static __always_inline void
RKM_FN(rkm_simd_plain)(const rkm_u8 *tb, rkm_size_t ts, int nin,
		       rkm_size_t off, rkm_size_t len,
		       const rkm_u8 *const *in, rkm_u8 *po, rkm_u8 *qo,
		       rkm_u8 *const *go, int acc, const int np, const int nq,
		       const int ng, const int nu)
{
	rkm_size_t pos, step = ts * RKM_TSZ;
	const rkm_u8 *t0 = nq ? tb + (nin - 1) * step : tb;
	const long td = nq ? -(long)step : (long)step;
	int x, u;

/* input j of the pass's order (with a Q row, from the last) at pos */
#define IN(j)	(in[nq ? nin - 1 - (j) : (j)] + pos)

	for (pos = off; pos < off + len; pos += nu * RKM_VW) {
		RKM_V p[RKM_UMAX], q[RKM_UMAX], g[RKM_GACC];
		const rkm_u8 *t = t0;
		int jj;

		/*
		 * The first input starts the accumulators, or the first two
		 * when inputs go in pairs and their number is even; then one
		 * or two at a time.  td: from one input's tables to the next.
		 */
		jj = RKM_PAIRS && !(nin & 1) ? 2 : 1;
		if (jj == 2)
			RKM_FN(rkm_simd_step2)(IN(0), IN(1), t, t + td, p, q, g,
					       np, nq, ng, nu, 1);
		else
			RKM_FN(rkm_simd_step)(IN(0), t, p, q, g, np, nq, ng, nu,
					      1);
		t += (jj - 1) * td;
		for (; jj < nin; jj += 1 + RKM_PAIRS,
		     t += (1 + RKM_PAIRS) * td) {
			if (RKM_PAIRS)
				RKM_FN(rkm_simd_step2)(IN(jj), IN(jj + 1),
						       t + td, t + 2 * td, p, q,
						       g, np, nq, ng, nu, 0);
			else
				RKM_FN(rkm_simd_step)(IN(jj), t + td, p, q, g,
						      np, nq, ng, nu, 0);
		}
#pragma GCC unroll 8
		for (u = 0; u < nu; u++) {
			rkm_size_t o = pos + u * RKM_VW;

			if (np) {
				if (acc)
					p[u] = rkm_v_xor(p[u], rkm_v_ld(po + o));
				rkm_v_st(po + o, p[u]);
			}
			if (nq) {
				if (acc)
					q[u] = rkm_v_xor(q[u], rkm_v_ld(qo + o));
				rkm_v_st(qo + o, q[u]);
			}
#pragma GCC unroll 16
			for (x = 0; x < ng; x++) {
				RKM_V v = g[x * nu + u];

				if (acc)
					v = rkm_v_xor(v, rkm_v_ld(go[x] + o));
				rkm_v_st(go[x] + o, v);
			}
		}
	}
}

#undef IN

/* iterations of nu vectors, then 64-byte strips */
static __always_inline void
RKM_FN(rkm_simd_plain_nu)(const rkm_u8 *tb, rkm_size_t ts, int nin,
			  rkm_size_t off, rkm_size_t len,
			  const rkm_u8 *const *in, rkm_u8 *po, rkm_u8 *qo,
			  rkm_u8 *const *go, int acc, const int np,
			  const int nq, const int ng, const int nu)
{
	rkm_size_t big = len / (nu * RKM_VW) * (nu * RKM_VW);

	if (big)
		RKM_FN(rkm_simd_plain)(tb, ts, nin, off, big, in, po, qo, go,
				       acc, np, nq, ng, nu);
	if (len > big)
		RKM_FN(rkm_simd_plain)(tb, ts, nin, off + big, len - big, in,
				       po, qo, go, acc, np, nq, ng,
				       64 / RKM_VW);
}

/*
 * RKM_NUW(n), where defined: the width for inputs that fit in L1
 * (RKM_L1_BYTES in all), where a wider iteration spreads the per-input
 * overhead further; inputs streamed from L2 keep RKM_NU(n), since more
 * lines per input in flight cost there (measured: Zen 5, 8 inputs).
 */
static __always_inline void
RKM_FN(rkm_simd_plain_len)(const rkm_u8 *tb, rkm_size_t ts, int nin,
			   rkm_size_t off, rkm_size_t len,
			   const rkm_u8 *const *in, rkm_u8 *po, rkm_u8 *qo,
			   rkm_u8 *const *go, int acc, const int np,
			   const int nq, const int ng)
{
#ifdef RKM_NUW
	if (RKM_NUW(ng) != RKM_NU(ng) && nin * len <= RKM_L1_BYTES) {
		RKM_FN(rkm_simd_plain_nu)(tb, ts, nin, off, len, in, po, qo,
					  go, acc, np, nq, ng, RKM_NUW(ng));
		return;
	}
#endif
	RKM_FN(rkm_simd_plain_nu)(tb, ts, nin, off, len, in, po, qo, go, acc,
				  np, nq, ng, RKM_NU(ng));
}

#define RKM_PLAIN_CASE(n)						\
	case n:								\
		RKM_FN(rkm_simd_plain_len)(tb, ts, nin, off, len, in, po, qo, \
					   go, acc, np, nq, n);		\
		break

/* ng as a compile-time constant */
static __always_inline void
RKM_FN(rkm_simd_plain_n)(const rkm_u8 *tb, rkm_size_t ts, int nin,
			 rkm_size_t off, rkm_size_t len,
			 const rkm_u8 *const *in, rkm_u8 *po, rkm_u8 *qo,
			 rkm_u8 *const *go, int acc, const int np,
			 const int nq, int ng)
{
	switch (ng) {
	RKM_PLAIN_CASE(0);
	RKM_PLAIN_CASE(1);
	RKM_PLAIN_CASE(2);
#if RKM_MAXG >= 3
	RKM_PLAIN_CASE(3);
#endif
#if RKM_MAXG >= 4
	RKM_PLAIN_CASE(4);
#endif
#if RKM_MAXG >= 5
	RKM_PLAIN_CASE(5);
#endif
#if RKM_MAXG >= 6
	RKM_PLAIN_CASE(6);
#endif
#if RKM_MAXG >= 7
	RKM_PLAIN_CASE(7);
#endif
#if RKM_MAXG >= 8
	RKM_PLAIN_CASE(8);
#endif
	}
#undef RKM_PLAIN_CASE
}

/*
 * A syndrome decode (mt->npost): the P syndrome by XOR (np), the other
 * by table, each started from its parity chunk in[nin + row]; then the
 * npo outputs are post x syndromes, made in registers.
 */
static __always_inline void
RKM_FN(rkm_simd_post)(const struct rkm_mat *mt, int nin, rkm_size_t off,
		      rkm_size_t len, const rkm_u8 *const *in,
		      rkm_u8 *const *out, const int np, const int npo,
		      const int nu)
{
	const rkm_u8 *tb = RKM_GTAB(mt), *pt = RKM_PTAB(mt);
	const rkm_u8 *pp = in[nin], *qp = in[nin + np];
	rkm_size_t pos;
	int jj, u, i;

	for (pos = off; pos < off + len; pos += nu * RKM_VW) {
		RKM_V p[RKM_UMAX], g[RKM_UMAX];
		const rkm_u8 *t = tb;

#pragma GCC unroll 8
		for (u = 0; u < nu; u++) {
			if (np)
				p[u] = rkm_v_ld(pp + pos + u * RKM_VW);
			g[u] = rkm_v_ld(qp + pos + u * RKM_VW);
		}
		for (jj = 0; RKM_PAIRS && jj + 1 < nin;
		     jj += 2, t += 2 * RKM_TSZ)
			RKM_FN(rkm_simd_step2)(in[jj] + pos, in[jj + 1] + pos, t,
					       t + RKM_TSZ, p, NULL, g, np, 0, 1,
					       nu, 0);
		for (; jj < nin; jj++, t += RKM_TSZ)
			RKM_FN(rkm_simd_step)(in[jj] + pos, t, p, NULL, g, np, 0,
					      1, nu, 0);
#pragma GCC unroll 8
		for (u = 0; u < nu; u++) {
			RKM_CTX cg = rkm_v_prep(g[u]), cp = cg;

			if (np)
				cp = rkm_v_prep(p[u]);
#pragma GCC unroll 2
			for (i = 0; i < npo; i++) {
				const rkm_u8 *ti = pt + i * (np + 1) * RKM_TSZ;
				RKM_V v = rkm_v_term(rkm_v_tblp(ti + np * RKM_TSZ),
						     cg);

				if (np)
					v = rkm_v_xor(v, rkm_v_term(rkm_v_tblp(ti),
								    cp));
				rkm_v_st(out[i] + pos + u * RKM_VW, v);
			}
		}
	}
}

/* np, npo and nu as compile-time constants; then 64-byte strips */
static __always_inline void
RKM_FN(rkm_simd_post_np)(const struct rkm_mat *mt, int nin, rkm_size_t off,
			 rkm_size_t len, const rkm_u8 *const *in,
			 rkm_u8 *const *out, const int np, const int npo,
			 const int nu)
{
	rkm_size_t big = len / (nu * RKM_VW) * (nu * RKM_VW);
	rkm_size_t tail = len - big;

	if (big)
		RKM_FN(rkm_simd_post)(mt, nin, off, big, in, out, np, npo, nu);
	if (tail)
		RKM_FN(rkm_simd_post)(mt, nin, off + big, tail, in, out, np,
				      npo, 64 / RKM_VW);
}

/* two syndromes (P's by XOR) or Q's alone; two outputs or one wanted */
static __always_inline void
RKM_FN(rkm_simd_post_nu)(const struct rkm_mat *mt, int nin, rkm_size_t off,
			 rkm_size_t len, const rkm_u8 *const *in,
			 rkm_u8 *const *out, const int nu)
{
	if (mt->rp < 0)
		RKM_FN(rkm_simd_post_np)(mt, nin, off, len, in, out, 0, 1, nu);
	else if (mt->npost == 2)
		RKM_FN(rkm_simd_post_np)(mt, nin, off, len, in, out, 1, 2, nu);
	else
		RKM_FN(rkm_simd_post_np)(mt, nin, off, len, in, out, 1, 1, nu);
}

static void RKM_FN(rkm_simd_post_mul)(const struct rkm_mat *mt, int nin,
				      rkm_size_t off, rkm_size_t len,
				      const rkm_u8 *const *in,
				      rkm_u8 *const *out)
{
#ifdef RKM_NUW
	if (RKM_NUW(1) != RKM_NU(1) &&
	    (nin + mt->nout) * len <= RKM_L1_BYTES) {
		RKM_FN(rkm_simd_post_nu)(mt, nin, off, len, in, out,
					 RKM_NUW(1));
		return;
	}
#endif
	RKM_FN(rkm_simd_post_nu)(mt, nin, off, len, in, out, RKM_NU(1));
}

/*
 * The 2^j row by Horner's rule or by table: Horner's rule chains one
 * doubling per input, table terms are independent of each other.  The
 * rule is used when that row is the only one by table (P+Q), which leaves
 * the pass without the nibble split and tables, and rkm_q_horner (measured
 * at init) says it is faster here.
 */
/* P (where the matrix has it) and Q by Horner's rule, nq: which doubling */
static __always_inline void
RKM_FN(rkm_simd_horner_nq)(const struct rkm_mat *mt, int nin, rkm_size_t off,
			   rkm_size_t len, const rkm_u8 *const *in,
			   rkm_u8 *const *out, int acc, const int nq)
{
	rkm_u8 *qo = out[mt->rq];

	if (mt->rp >= 0)
		RKM_FN(rkm_simd_plain_len)(NULL, 0, nin, off, len, in,
					   out[mt->rp], qo, NULL, acc, 1, nq, 0);
	else
		RKM_FN(rkm_simd_plain_len)(NULL, 0, nin, off, len, in, NULL,
					   qo, NULL, acc, 0, nq, 0);
}

/* P+Q with Q by Horner's rule: kept apart from the table passes below */
static noinline void
RKM_FN(rkm_simd_horner_mul)(const struct rkm_mat *mt, int nin, rkm_size_t off,
			    rkm_size_t len, const rkm_u8 *const *in,
			    rkm_u8 *const *out, int acc)
{
#ifdef RKM_MUL2_ALT
	if (rkm_q_horner == RKM_PQ_HORNER_ALT) {
		RKM_FN(rkm_simd_horner_nq)(mt, nin, off, len, in, out, acc, 2);
		return;
	}
#endif
	RKM_FN(rkm_simd_horner_nq)(mt, nin, off, len, in, out, acc, 1);
}

static void RKM_FN(rkm_simd_plain_mul)(const struct rkm_mat *mt, int nin,
				       rkm_size_t off, rkm_size_t len,
				       const rkm_u8 *const *in,
				       rkm_u8 *const *out, int acc)
{
	const rkm_u8 *tb = RKM_GTAB(mt);
	rkm_u8 *po = mt->rp >= 0 ? out[mt->rp] : NULL;
	rkm_u8 *go[RKM_MAXG];
	int x0 = 0, x;

	if (rkm_q_horner && mt->rq >= 0 && mt->nt == 1) {
		RKM_FN(rkm_simd_horner_mul)(mt, nin, off, len, in, out, acc);
		return;
	}
	do {
		int n = mt->nt - x0 < RKM_MAXG ? mt->nt - x0 : RKM_MAXG;

		for (x = 0; x < n; x++)
			go[x] = out[mt->trow[x0 + x]];
		if (po)
			RKM_FN(rkm_simd_plain_n)(tb, mt->nt, nin, off, len, in,
						 po, NULL, go, acc, 1, 0, n);
		else
			RKM_FN(rkm_simd_plain_n)(tb, mt->nt, nin, off, len, in,
						 NULL, NULL, go, acc, 0, 0, n);
		tb += n * RKM_TSZ;
		x0 += n;
		po = NULL;
	} while (x0 < mt->nt);
}

/* ---- multiplies through a column map --------------------------------------- */

static __always_inline void
RKM_FN(rkm_simd_pass)(const struct rkm_mat *mt, const rkm_u8 *cols, int nin,
		      rkm_size_t off, rkm_size_t len, const rkm_u8 *const *in,
		      rkm_u8 *const *out, int acc, int rp, int rq,
		      const int *rg, const int np, const int nq, const int ng,
		      const int nu)
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
			int col = cols[j];
			const rkm_u8 *s = in[j] + pos;
			RKM_V d[RKM_UPQ];

#pragma GCC unroll 8
			for (u = 0; u < nu; u++)
				d[u] = rkm_v_ld(s + u * RKM_VW);
			/* inputs of one column in a row (delta: old, new): sum */
			while (jj + 1 < nin && cols[nq ? j - 1 : j + 1] == col) {
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
			if (nq) {
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
		for (x = nq ? prev : 0; x > 0; x--) {
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

#define RKM_PASS_CASE(n)						\
	case n:								\
		RKM_FN(rkm_simd_pass)(mt, cols, nin, off, len, in, out, acc, \
				      rp, rq, rg, np, nq, n, nu);	\
		break

/* one pass with n general rows, n a compile-time constant in each call */
static __always_inline void
RKM_FN(rkm_simd_pass_n)(const struct rkm_mat *mt, const rkm_u8 *cols,
			int nin, rkm_size_t off, rkm_size_t len,
			const rkm_u8 *const *in, rkm_u8 *const *out, int acc,
			int rp, int rq, const int *rg, const int np,
			const int nq, int n, const int nu)
{
	switch (n) {
	RKM_PASS_CASE(0);
	RKM_PASS_CASE(1);
	RKM_PASS_CASE(2);
#if RKM_MAXG >= 4
	RKM_PASS_CASE(3);
	RKM_PASS_CASE(4);
#endif
#if RKM_MAXG >= 8
	RKM_PASS_CASE(5);
	RKM_PASS_CASE(6);
	RKM_PASS_CASE(7);
	RKM_PASS_CASE(8);
#endif
	}
#undef RKM_PASS_CASE
}

/* np, nq and nu as compile-time constants */
static __always_inline void
RKM_FN(rkm_simd_pass_np)(const struct rkm_mat *mt, const rkm_u8 *cols,
			 int nin, rkm_size_t off, rkm_size_t len,
			 const rkm_u8 *const *in, rkm_u8 *const *out, int acc,
			 int rp, int rq, const int *rg, int np, int nq, int n,
			 const int nu)
{
	if (np && nq)
		RKM_FN(rkm_simd_pass_n)(mt, cols, nin, off, len, in, out, acc,
					rp, rq, rg, 1, 1, n, nu);
	else if (np)
		RKM_FN(rkm_simd_pass_n)(mt, cols, nin, off, len, in, out, acc,
					rp, rq, rg, 1, 0, n, nu);
	else if (nq)
		RKM_FN(rkm_simd_pass_n)(mt, cols, nin, off, len, in, out, acc,
					rp, rq, rg, 0, 1, n, nu);
	else
		RKM_FN(rkm_simd_pass_n)(mt, cols, nin, off, len, in, out, acc,
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

static void RKM_FN(rkm_simd_mapped_mul)(const struct rkm_mat *mt,
					const rkm_u8 *cols, int nin,
					rkm_size_t off, rkm_size_t len,
					const rkm_u8 *const *in,
					rkm_u8 *const *out, int acc)
{
	int rg[32], ng = 0, rp = -1, rq = -1, r, x = 0, first = 1;

	for (r = 0; r < mt->nout; r++) {
		if (((mt->ones >> r) & 1) && rp < 0)
			rp = r;
		else if (((mt->pow2 >> r) & 1) && rq < 0 &&
			 rkm_horner_cols(cols, nin))
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
				RKM_FN(rkm_simd_pass_np)(mt, cols, nin, off, big,
							 in, out, acc, rp, rq,
							 rg + x, np, nq, n,
							 RKM_U);
		} else {
			big = len / (RKM_UPQ * RKM_VW) * (RKM_UPQ * RKM_VW);
			if (big)
				RKM_FN(rkm_simd_pass_np)(mt, cols, nin, off, big,
							 in, out, acc, rp, rq,
							 rg + x, np, nq, 0,
							 RKM_UPQ);
		}
		if (len > big)
			RKM_FN(rkm_simd_pass_np)(mt, cols, nin, off + big,
						 len - big, in, out, acc, rp,
						 rq, rg + x, np, nq, n,
						 64 / RKM_VW);
		x += n;
		first = 0;
	} while (x < ng);
}

static void RKM_FN(rkm_simd_mul)(const struct rkm_mat *mt, const rkm_u8 *cols,
				 int nin, rkm_size_t off, rkm_size_t len,
				 const rkm_u8 *const *in, rkm_u8 *const *out,
				 int acc)
{
	if (cols)
		RKM_FN(rkm_simd_mapped_mul)(mt, cols, nin, off, len, in, out,
					    acc);
	else if (mt->npost)
		RKM_FN(rkm_simd_post_mul)(mt, nin, off, len, in, out);
	else
		RKM_FN(rkm_simd_plain_mul)(mt, nin, off, len, in, out, acc);
}
