// SPDX-License-Identifier: GPL-2.0
/*
 * Implementation choice: which kernels this CPU can run, a known-answer
 * check of each, a short measurement, and the sliced runner every codec
 * operation calls: slices of at most RKM_SLICE_BYTES of input, SIMD only
 * inside kernel_fpu_begin/end so preemption stays off briefly, and a
 * chance to reschedule between slices (RKM_RESCHED).
 */
#include "rkm_codec_int.h"
#include "rkm_codec.h"

#define RKM_SLICE_BYTES	(64 << 10)

struct rkm_impl {
	const struct rkm_ops *ops;
	int (*usable)(void);
};

static int rkm_yes(void)
{
	return 1;
}

#if defined(__x86_64__)
static int rkm_has_ssse3(void)
{
	return RKM_CPU_SSSE3();
}

static int rkm_has_avx2(void)
{
	return RKM_CPU_AVX2();
}

static int rkm_has_avx512(void)
{
	return RKM_CPU_AVX512BW();
}

static int rkm_has_gfni_avx2(void)
{
	return RKM_CPU_AVX2() && RKM_CPU_GFNI();
}

static int rkm_has_gfni(void)
{
	return RKM_CPU_AVX512BW() && RKM_CPU_GFNI();
}
#endif

static const struct rkm_impl rkm_impls[] = {
	{ &rkm_ops_scalar, rkm_yes },
#if defined(__x86_64__)
	{ &rkm_ops_ssse3, rkm_has_ssse3 },
	{ &rkm_ops_avx2, rkm_has_avx2 },
	{ &rkm_ops_avx512, rkm_has_avx512 },
	{ &rkm_ops_gfni_avx2, rkm_has_gfni_avx2 },
	{ &rkm_ops_gfni, rkm_has_gfni },
#endif
};

#define RKM_NIMPL	((int)ARRAY_SIZE(rkm_impls))

static const struct rkm_ops *rkm_cur = &rkm_ops_scalar;
static int rkm_init_state;	/* 0 not yet, 1 ready, < 0 failed */
static unsigned long rkm_cur_mbs;	/* what the chosen one measured */

const struct rkm_ops *rkm_ops_current(void)
{
	return rkm_read_once(rkm_cur);
}

static void rkm_run_ops(const struct rkm_ops *ops, const struct rkm_mat *mt,
			const rkm_u8 *cols, int nin, rkm_size_t len,
			const rkm_u8 *const *in, rkm_u8 *const *out, int acc)
{
	rkm_size_t slice, off, n;

	if (ops->simd && !RKM_SIMD_USABLE())
		ops = &rkm_ops_scalar;
	slice = (RKM_SLICE_BYTES / nin) & ~(rkm_size_t)(RKM_LEN_ALIGN - 1);
	if (slice < RKM_LEN_ALIGN)
		slice = RKM_LEN_ALIGN;
	for (off = 0; off < len; off += n) {
		n = len - off < slice ? len - off : slice;
		if (off)
			RKM_RESCHED();
		if (!ops->simd) {
			ops->mul(mt, cols, nin, off, n, in, out, acc);
			continue;
		}
		RKM_FPU_BEGIN();
		ops->mul(mt, cols, nin, off, n, in, out, acc);
		RKM_FPU_END();
	}
}

void rkm_run_mul(const struct rkm_mat *mt, const rkm_u8 *cols, int nin,
		 rkm_size_t len, const rkm_u8 *const *in,
		 rkm_u8 *const *out, int acc)
{
	rkm_run_ops(rkm_ops_current(), mt, cols, nin, len, in, out, acc);
}

/* ---- known-answer check ------------------------------------------------ */

/*
 * k = 5, m = 4 (P, Q and two general rows), 192-byte chunks of a fixed
 * pseudo-random pattern; FNV-1a of the four parity chunks.  The value was
 * computed with the scalar kernel, itself checked against an independent
 * bitwise P/Q/Cauchy reference by tests/unit/codec_test.c.
 */
#define RKM_KAT_K	5
#define RKM_KAT_M	4
#define RKM_KAT_LEN	192
#define RKM_KAT_HASH	0x81a86192u

struct rkm_kat_buf {
	rkm_u8 data[RKM_KAT_K][RKM_KAT_LEN];
	rkm_u8 par[RKM_KAT_M][RKM_KAT_LEN];
	rkm_u8 ref[RKM_KAT_M][RKM_KAT_LEN];
	rkm_u8 coef[RKM_KAT_M * RKM_KAT_K];
	rkm_u8 cols[2 * RKM_KAT_K];
};

static rkm_u32 rkm_fnv(rkm_u32 h, const rkm_u8 *p, rkm_size_t n)
{
	while (n--)
		h = (h ^ *p++) * 16777619u;
	return h;
}

/*
 * Run @ops on the known answer (plain encode), then on an accumulating
 * multiply through a column map, compared with the scalar kernel.
 */
static int rkm_kat(const struct rkm_ops *ops)
{
	struct rkm_kat_buf *b = rkm_alloc(sizeof(*b));
	struct rkm_mat *mt = NULL;
	const rkm_u8 *in[2 * RKM_KAT_K];
	rkm_u8 *out[RKM_KAT_M], *ref[RKM_KAT_M];
	rkm_u32 seed = 12345, h = 2166136261u;
	int i, j, ret = -RKM_EINVAL;

	if (!b)
		return -RKM_ENOMEM;
	for (i = 0; i < RKM_KAT_K; i++)
		for (j = 0; j < RKM_KAT_LEN; j++) {
			seed = seed * 1103515245u + 12345u;
			b->data[i][j] = seed >> 16;
		}
	rkm_parity_matrix(RKM_KAT_K, RKM_KAT_M, b->coef);
	mt = rkm_mat_alloc(RKM_KAT_M, RKM_KAT_K, b->coef);
	if (!mt) {
		ret = -RKM_ENOMEM;
		goto out;
	}
	for (i = 0; i < RKM_KAT_K; i++)
		in[i] = b->data[i];
	for (i = 0; i < RKM_KAT_M; i++) {
		out[i] = b->par[i];
		ref[i] = b->ref[i];
	}
	rkm_run_ops(ops, mt, NULL, RKM_KAT_K, RKM_KAT_LEN, in, out, 0);
	for (i = 0; i < RKM_KAT_M; i++)
		h = rkm_fnv(h, b->par[i], RKM_KAT_LEN);
	if (h != RKM_KAT_HASH) {
		rkm_err("raidkm: codec %s: known-answer hash %08x != %08x\n",
			ops->name, h, RKM_KAT_HASH);
		goto out;
	}
	/* columns 3,3,0,4 fed from data 0..3, accumulated onto the parity */
	b->cols[0] = 3;
	b->cols[1] = 3;
	b->cols[2] = 0;
	b->cols[3] = 4;
	memcpy(b->ref, b->par, sizeof(b->ref));
	rkm_run_ops(ops, mt, b->cols, 4, RKM_KAT_LEN, in, out, 1);
	rkm_ops_scalar.mul(mt, b->cols, 4, 0, RKM_KAT_LEN, in, ref, 1);
	if (memcmp(b->par, b->ref, sizeof(b->ref))) {
		rkm_err("raidkm: codec %s: accumulate check failed\n",
			ops->name);
		goto out;
	}
	ret = 0;
out:
	rkm_free(mt);
	rkm_free(b);
	return ret;
}

/* ---- measurement ------------------------------------------------------- */

#define RKM_BENCH_K	8
#define RKM_BENCH_M	4
#define RKM_BENCH_LEN	4096

#define RKM_BIG_LEN	(64 << 10)
#define RKM_BENCH_TRIALS	15	/* interleaved; best kept (noise only slows) */
#define RKM_BENCH_RUNS	8	/* operations per timed trial */

struct rkm_bench {
	rkm_u8 *buf;
	struct rkm_mat *mt;
	const rkm_u8 *in[RKM_BENCH_K];
	rkm_u8 *out[RKM_BENCH_M];
};

static int rkm_bench_init(struct rkm_bench *b)
{
	rkm_u8 coef[RKM_BENCH_K * RKM_BENCH_M];
	int i;

	b->buf = rkm_alloc((RKM_BENCH_K + RKM_BENCH_M) * RKM_BENCH_LEN);
	rkm_parity_matrix(RKM_BENCH_K, RKM_BENCH_M, coef);
	b->mt = rkm_mat_alloc(RKM_BENCH_M, RKM_BENCH_K, coef);
	if (!b->buf || !b->mt)
		return -RKM_ENOMEM;
	for (i = 0; i < RKM_BENCH_K; i++) {
		memset(b->buf + i * RKM_BENCH_LEN, 0x5a + i, RKM_BENCH_LEN);
		b->in[i] = b->buf + i * RKM_BENCH_LEN;
	}
	for (i = 0; i < RKM_BENCH_M; i++)
		b->out[i] = b->buf + (RKM_BENCH_K + i) * RKM_BENCH_LEN;
	return 0;
}

static void rkm_bench_exit(struct rkm_bench *b)
{
	rkm_free(b->buf);
	rkm_free(b->mt);
}

/* ns for RKM_BENCH_RUNS 8+4 encodes of 4 KiB chunks by @ops */
static rkm_u64 rkm_time_encode(const struct rkm_ops *ops, struct rkm_bench *b)
{
	rkm_u64 t0 = rkm_now_ns(), t;
	int iter;

	for (iter = 0; iter < RKM_BENCH_RUNS; iter++)
		rkm_run_ops(ops, b->mt, NULL, RKM_BENCH_K, RKM_BENCH_LEN,
			    b->in, b->out, 0);
	t = rkm_now_ns() - t0;
	return t ? t : 1;
}

/* MB/s of data for the best of @dt's trials (ns per RKM_BENCH_RUNS ops) */
static unsigned long rkm_mbs(rkm_u64 dt)
{
	rkm_u64 bytes = (rkm_u64)RKM_BENCH_RUNS * RKM_BENCH_K * RKM_BENCH_LEN;

	return dt ? (unsigned long)(bytes * 1000 / dt) : 0;
}

/* ns for RKM_BENCH_RUNS 8+2 decodes (data 0 and 3 lost, 4 KiB chunks) */
static rkm_u64 rkm_time_decode(struct rkm_code *c, rkm_u8 **ch)
{
	rkm_u64 t0 = rkm_now_ns(), t;
	int iter;

	for (iter = 0; iter < RKM_BENCH_RUNS; iter++)
		rkm_decode(c, RKM_BENCH_LEN, 0x9, ch);
	t = rkm_now_ns() - t0;
	return t ? t : 1;
}

int rkm_q_horner = RKM_PQ_HORNER;

static const char *const rkm_q_names[RKM_NPQ] = {
	"table", "horner", "horner-blend",
};

void rkm_q_form_set(int form)
{
	if (form >= 0 && form < RKM_NPQ)
		rkm_write_once(rkm_q_horner, form);
}

const char *rkm_q_form_name(int form)
{
	return form >= 0 && form < RKM_NPQ ? rkm_q_names[form] : "?";
}

/* ns for @runs encodes by @c of chunks @ch of @len bytes (parity after data) */
static rkm_u64 rkm_time_encodes(struct rkm_code *c, rkm_size_t len,
				rkm_u8 **ch, int runs)
{
	rkm_u64 t0 = rkm_now_ns(), t;
	int iter;

	for (iter = 0; iter < runs; iter++)
		rkm_encode(c, len, (const rkm_u8 *const *)ch,
			   ch + rkm_code_k(c));
	t = rkm_now_ns() - t0;
	return t ? t : 1;
}

/*
 * Pick the faster 2^j row for P+Q, then the fastest decode form, for the
 * implementation in use (the variants take turns; the decode form on
 * 8+2 with 4 KiB chunks).
 */
static void rkm_choose_forms(void)
{
	struct rkm_code *c, *c4;
	rkm_u8 *buf, *bbuf, *ch[RKM_BENCH_K + 2], *big[6];
	rkm_u64 best[RKM_NFORMS] = { 0 }, bq[2][RKM_NPQ] = { { 0 } }, t;
	int i, form, trial, pick = RKM_FORM_ROWS, reg, h, pq;
	int npq = rkm_ops_current()->mul2_alt ? RKM_NPQ : RKM_PQ_HORNER + 1;

	c = rkm_code_create(RKM_BENCH_K, 2);
	c4 = rkm_code_create(4, 2);
	buf = rkm_alloc((RKM_BENCH_K + 2) * RKM_BENCH_LEN);
	bbuf = rkm_alloc(6 * RKM_BIG_LEN);
	if (!c || !c4 || !buf || !bbuf)
		goto out;
	for (i = 0; i < RKM_BENCH_K + 2; i++) {
		ch[i] = buf + i * RKM_BENCH_LEN;
		memset(ch[i], 0x3c + 7 * i, RKM_BENCH_LEN);
	}
	for (i = 0; i < 6; i++) {
		big[i] = bbuf + i * RKM_BIG_LEN;
		memset(big[i], 0x21 + 5 * i, RKM_BIG_LEN);
	}
	/*
	 * trial 0 warms up.  Two regimes, where the 2^j row's forms differ
	 * the most: RKM_BENCH_RUNS 8+2 encodes of 4 KiB chunks (in cache)
	 * and two 4+2 encodes of 64 KiB chunks (streamed from L2).  The
	 * table must win both: Horner's rule loses little where it loses
	 * and the table a third where it does (64 KiB chunks on a Xeon and
	 * Zen 5), and one sum of the two once picked the table on a noisy
	 * round.  Horner's rule itself doubles in one of two ways where the
	 * implementation has two (AVX2: a blend is one instruction fewer,
	 * and faster on AMD, slower on Intel): the one with the lower sum of
	 * the two regimes' times, each relative to the first way's.
	 */
	for (trial = 0; trial <= RKM_BENCH_TRIALS; trial++) {
		for (reg = 0; reg < 2; reg++) {
			for (form = 0; form < npq; form++) {
				rkm_q_form_set(form);
				t = reg ? rkm_time_encodes(c4, RKM_BIG_LEN,
							   big, 2) :
					  rkm_time_encodes(c, RKM_BENCH_LEN,
							   ch, RKM_BENCH_RUNS);
				if (trial && (!bq[reg][form] ||
					      t < bq[reg][form]))
					bq[reg][form] = t;
			}
		}
	}
	h = RKM_PQ_HORNER;
	if (npq > RKM_PQ_HORNER_ALT &&
	    bq[0][2] * bq[1][1] + bq[1][2] * bq[0][1] <
	    2 * bq[0][1] * bq[1][1])
		h = RKM_PQ_HORNER_ALT;
	pq = bq[0][h] <= bq[0][0] || bq[1][h] <= bq[1][0] ? h : RKM_PQ_TABLE;
	rkm_q_form_set(pq);
	rkm_info("raidkm: codec P+Q by %s (table %llu and %llu, Horner %llu and %llu us; 8+2 4 KiB and 4+2 64 KiB encodes)\n",
		 rkm_q_form_name(pq),
		 (unsigned long long)bq[0][0] / 1000,
		 (unsigned long long)bq[1][0] / 1000,
		 (unsigned long long)bq[0][1] / 1000,
		 (unsigned long long)bq[1][1] / 1000);
	if (npq > RKM_PQ_HORNER_ALT)
		rkm_info("raidkm: codec Horner with the second doubling %llu and %llu us\n",
			 (unsigned long long)bq[0][2] / 1000,
			 (unsigned long long)bq[1][2] / 1000);
	for (trial = 0; trial <= RKM_BENCH_TRIALS; trial++) {
		for (form = 0; form < RKM_NFORMS; form++) {
			rkm_decode_form_set(form);
			t = rkm_time_decode(c, ch);
			if (trial && (!best[form] || t < best[form]))
				best[form] = t;
		}
	}
	for (form = 1; form < RKM_NFORMS; form++)
		if (best[form] < best[pick])
			pick = form;
	rkm_decode_form_set(pick);
	rkm_info("raidkm: codec decode form %s (rows %lu, fused %lu, syndrome %lu MB/s; 8+2, 2 data lost)\n",
		 rkm_decode_form_name(pick), rkm_mbs(best[RKM_FORM_ROWS]),
		 rkm_mbs(best[RKM_FORM_FUSED]),
		 rkm_mbs(best[RKM_FORM_SYNDROME]));
out:
	rkm_free(bbuf);
	rkm_free(buf);
	rkm_code_destroy(c4);
	rkm_code_destroy(c);
}

/* ---- public ---------------------------------------------------------- */

static int rkm_impl_find(const char *name)
{
	int i;

	for (i = 0; i < RKM_NIMPL; i++)
		if (!strcmp(rkm_impls[i].ops->name, name))
			return i;
	return -1;
}

const char *rkm_codec_impl_name(int i)
{
	return i >= 0 && i < RKM_NIMPL ? rkm_impls[i].ops->name : NULL;
}

int rkm_codec_impl_usable(const char *name)
{
	int i = rkm_impl_find(name);

	return i >= 0 && rkm_impls[i].usable();
}

int rkm_codec_use(const char *name)
{
	const struct rkm_ops *prev;
	int i = rkm_impl_find(name), ret;

	if (i < 0 || !rkm_impls[i].usable())
		return -RKM_EINVAL;
	ret = rkm_codec_ensure_init();
	if (ret)
		return ret;
	ret = rkm_kat(rkm_impls[i].ops);
	if (ret)
		return ret;
	prev = rkm_ops_current();
	rkm_write_once(rkm_cur, rkm_impls[i].ops);
	ret = rkm_codec_selftest();
	if (ret) {
		rkm_write_once(rkm_cur, prev);
		return ret < 0 ? ret : -RKM_EINVAL;
	}
	rkm_choose_forms();
	return 0;
}

unsigned long rkm_codec_mbs(void)
{
	return rkm_cur_mbs;
}

const char *rkm_codec_impl(void)
{
	if (rkm_codec_ensure_init())
		return "none";
	return rkm_ops_current()->name;
}

static int rkm_codec_init_once(void)
{
	const char *force = rkm_getenv("RKM_CODEC_IMPL");
	rkm_u64 dt[RKM_NIMPL] = { 0 }, t;
	struct rkm_bench bench = { 0 };
	int ok[RKM_NIMPL];
	int i, ret, trial, best;

	rkm_gf_init();
	rkm_init_state = 1;	/* tables ready: the checks below may run */
	ret = rkm_kat(&rkm_ops_scalar);
	if (ret) {
		rkm_err("raidkm: codec scalar reference failed its known-answer check\n");
		goto fail;
	}
	if (force && *force) {
		i = rkm_impl_find(force);
		if (i < 0 || !rkm_impls[i].usable() ||
		    rkm_kat(rkm_impls[i].ops)) {
			rkm_err("raidkm: RKM_CODEC_IMPL=%s: unknown, unusable or failing\n",
				force);
			ret = -RKM_EINVAL;
			goto fail;
		}
		rkm_write_once(rkm_cur, rkm_impls[i].ops);
		ret = rkm_codec_selftest();
		if (ret) {
			rkm_err("raidkm: RKM_CODEC_IMPL=%s: wrong results in its self-test\n",
				force);
			ret = ret < 0 ? ret : -RKM_EINVAL;
			goto fail;
		}
		rkm_choose_forms();
		return 0;
	}
	for (i = 0; i < RKM_NIMPL; i++) {
		const struct rkm_ops *ops = rkm_impls[i].ops;

		ok[i] = 0;
		if (!rkm_impls[i].usable())
			continue;
		if (rkm_kat(ops)) {
			rkm_info("raidkm: codec %s: known-answer check failed, skipped\n",
				 ops->name);
			continue;
		}
		ok[i] = 1;
	}
	/* the implementations take turns, so that a busy moment hits all */
	if (rkm_bench_init(&bench)) {
		rkm_bench_exit(&bench);
		ret = -RKM_ENOMEM;
		goto fail;
	}
	for (trial = 0; trial <= RKM_BENCH_TRIALS; trial++) {
		for (i = 0; i < RKM_NIMPL; i++) {
			if (!ok[i])
				continue;
			t = rkm_time_encode(rkm_impls[i].ops, &bench);
			/* trial 0 warms up */
			if (trial && (!dt[i] || t < dt[i]))
				dt[i] = t;
		}
	}
	rkm_bench_exit(&bench);
	for (i = 0; i < RKM_NIMPL; i++)
		if (ok[i])
			rkm_info("raidkm: codec %s: known-answer ok, %lu MB/s (8+4 encode, 4 KiB)\n",
				 rkm_impls[i].ops->name, rkm_mbs(dt[i]));
	/* the fastest whose self-test passes in every form */
	for (;;) {
		best = -1;
		for (i = 0; i < RKM_NIMPL; i++)
			if (ok[i] && (best < 0 || dt[i] < dt[best]))
				best = i;
		if (best < 0) {
			ret = -RKM_EINVAL;
			goto fail;
		}
		rkm_write_once(rkm_cur, rkm_impls[best].ops);
		ret = rkm_codec_selftest();
		if (!ret)
			break;
		if (ret < 0)
			goto fail;
		rkm_err("raidkm: codec %s refused: wrong results in its self-test\n",
			rkm_impls[best].ops->name);
		ok[best] = 0;
	}
	rkm_cur_mbs = rkm_mbs(dt[best]);
	rkm_info("raidkm: codec chose %s (%lu MB/s), self-test ok in every form\n",
		 rkm_impls[best].ops->name, rkm_cur_mbs);
	rkm_choose_forms();
	return 0;
fail:
	rkm_init_state = ret;
	return ret;
}

#ifdef __KERNEL__
int rkm_codec_init(void)
{
	return rkm_codec_init_once();
}

int rkm_codec_ensure_init(void)
{
	return rkm_init_state > 0 ? 0 : -RKM_EINVAL;
}
#else
static pthread_once_t rkm_once = PTHREAD_ONCE_INIT;
static int rkm_once_ret;

static void rkm_codec_init_user(void)
{
	rkm_once_ret = rkm_codec_init_once();
}

int rkm_codec_init(void)
{
	pthread_once(&rkm_once, rkm_codec_init_user);
	return rkm_once_ret;
}

int rkm_codec_ensure_init(void)
{
	if (rkm_init_state > 0)
		return 0;
	return rkm_codec_init();
}
#endif
