// SPDX-License-Identifier: GPL-2.0
/*
 * gpu_check: the CUDA backend against the CPU codec, through the backend
 * interface (struct rkmd_backend_ops), with the arena in a registered
 * memfd mapping.  Every operation (encode, decode, delta, check) on random
 * data for geometries covering m = 1..16; every erasure pattern for small
 * geometries, fixed-seed random ones for large; chunk lengths from 64 bytes
 * to 1 MiB and jobs of up to 64 MiB; many jobs in flight at once; bad jobs
 * refused; a GPU fault ends in clean -EIO completions, never a hang.
 *
 *   gpu_check              the full run (the GPU host, make check-gpu)
 *   gpu_check --short      a small run (under compute-sanitizer)
 *   gpu_check --no-device  expects probe() and open() to refuse, with a
 *                          reason (run with CUDA_VISIBLE_DEVICES=)
 *   gpu_check --gpus=LIST  the multi-GPU backend (raidkmd's "cuda"), one
 *                          worker process per entry of LIST (e.g. 0,0:
 *                          two on one GPU, or all): some geometries, jobs
 *                          spread over the workers, a GPU fault in one
 *                          worker (its jobs re-run on the other or failed
 *                          back; it restarts and serves again), then in
 *                          every one; the fault is a failed launch, or
 *                          with --fault=trap a real GPU trap
 *   gpu_check --gpus=LIST --hang[=withhold]
 *                          a batch of instance 1 hangs (held on the GPU,
 *                          or its completion withheld; run with a short
 *                          RKMD_CUDA_HANG_MS): its worker down, its jobs
 *                          failed back, the other instance serving, the
 *                          held batch gone with the worker, a new worker
 *
 * Prints PASS/FAIL lines; exits non-zero if anything failed.
 */
#include <stdarg.h>

#include "gpu_util.h"

extern "C" {
#include "codec/rkm_codec.h"
}
#include "cuda_backend.h"
#include "multi_gpu.h"

static const struct rkmd_backend_ops *ops = &rkmd_cuda_backend;
static struct rkmd_backend *be;
static struct tu_arena arena;
static struct tu_sink sink;
static int npass, nfail;
static int short_run;
static int multi;		/* --gpus: ops is the multi-GPU backend */
/* --fault=trap: real GPU traps instead of failed launches */
static enum rkmd_gpu_fault fault_kind = RKMD_GPU_FAIL;

static void report(int ok, const char *fmt, ...)
{
	va_list ap;

	printf("%s ", ok ? "PASS" : "FAIL");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
	if (ok)
		npass++;
	else
		nfail++;
}

/* Wait for a job with a generous bound: a hang is a failure, not a stall. */
static int wait_job(struct tu_job *t)
{
	struct timespec dl;

	clock_gettime(CLOCK_REALTIME, &dl);
	dl.tv_sec += 120;
	pthread_mutex_lock(&sink.lock);
	while (!t->done) {
		if (pthread_cond_timedwait(&sink.cv, &sink.lock, &dl)) {
			pthread_mutex_unlock(&sink.lock);
			report(0, "job completion: no done() after 120 s (hang)");
			exit(1);
		}
	}
	pthread_mutex_unlock(&sink.lock);
	return t->status;
}

/* Submit and wait; returns the submit error or the completion status. */
static int run(struct tu_job *t)
{
	int r;

	t->done = 0;
	r = ops->submit(be, &t->job);
	if (r)
		return r;
	return wait_job(t);
}

/* One set of stripes in the arena */
struct sset {
	int k, m, n;
	uint32_t len, ns;
	uint8_t **chunk;	/* ns * n */
	uint8_t **old;		/* ns * k (DELTA) */
	struct rkm_code *code;
};

static int sset_init(struct sset *ss, int k, int m, uint32_t len, uint32_t ns,
		     size_t align, uint64_t *seed)
{
	uint32_t s;
	int i;

	ss->k = k;
	ss->m = m;
	ss->n = k + m;
	ss->len = len;
	ss->ns = ns;
	ss->chunk = (uint8_t **)calloc((size_t)ns * ss->n, sizeof(uint8_t *));
	ss->old = (uint8_t **)calloc((size_t)ns * k, sizeof(uint8_t *));
	ss->code = rkm_code_create(k, m);
	if (!ss->chunk || !ss->old || !ss->code)
		return -ENOMEM;
	if (tu_chunks(&arena, ss->chunk, (size_t)ns * ss->n, len, align, seed) ||
	    tu_chunks(&arena, ss->old, (size_t)ns * k, len, align, seed))
		return -ENOSPC;
	for (s = 0; s < ns; s++)
		for (i = 0; i < ss->n; i++)
			tu_fill(ss->chunk[s * ss->n + i], len, seed);
	return 0;
}

static void sset_free(struct sset *ss)
{
	free(ss->chunk);
	free(ss->old);
	rkm_code_destroy(ss->code);
}

static void job_init(struct tu_job *t, const struct sset *ss, int op,
		     uint64_t mask, int32_t *result)
{
	memset(t, 0, sizeof(*t));
	t->job.op = op;
	t->job.k = ss->k;
	t->job.m = ss->m;
	t->job.len = ss->len;
	t->job.nstripes = ss->ns;
	t->job.mask = mask;
	t->job.chunk = ss->chunk;
	t->job.old = ss->old;
	t->job.result = result;
}

/* Does every stripe's parity equal the CPU codec's?  Returns bad stripes. */
static uint32_t parity_mismatches(const struct sset *ss)
{
	uint8_t *ref = (uint8_t *)malloc((size_t)ss->m * ss->len);
	uint8_t *par[RKM_MAX_M];
	uint32_t s, bad = 0;
	int e;

	for (e = 0; e < ss->m; e++)
		par[e] = ref + (size_t)e * ss->len;
	for (s = 0; s < ss->ns; s++) {
		uint8_t **c = ss->chunk + (size_t)s * ss->n;

		rkm_encode(ss->code, ss->len, (const uint8_t *const *)c, par);
		for (e = 0; e < ss->m; e++)
			if (memcmp(par[e], c[ss->k + e], ss->len)) {
				bad++;
				break;
			}
	}
	free(ref);
	return bad;
}

static int test_encode(struct sset *ss, uint64_t *seed, const char *tag)
{
	struct tu_job t;
	uint32_t s, bad;
	int e, st;

	for (s = 0; s < ss->ns; s++)	/* poison parity */
		for (e = 0; e < ss->m; e++)
			tu_fill(ss->chunk[s * ss->n + ss->k + e], ss->len, seed);
	job_init(&t, ss, RKMD_OP_ENCODE, 0, NULL);
	st = run(&t);
	bad = st ? ss->ns : parity_mismatches(ss);
	report(!st && !bad, "encode %s: status %d, %u of %u stripes differ from the CPU codec",
	       tag, st, bad, ss->ns);
	return !st && !bad;
}

/* Erase the chunks in mask, decode on the GPU, compare with the originals. */
static int decode_one(struct sset *ss, uint64_t mask, uint64_t *seed,
		      uint8_t *save)
{
	struct tu_job t;
	uint32_t s;
	int i, st, bad = 0;
	size_t o = 0;

	for (s = 0; s < ss->ns; s++)
		for (i = 0; i < ss->n; i++)
			if (mask >> i & 1) {
				uint8_t *c = ss->chunk[s * ss->n + i];

				memcpy(save + o, c, ss->len);
				tu_fill(c, ss->len, seed);
				o += ss->len;
			}
	job_init(&t, ss, RKMD_OP_DECODE, mask, NULL);
	st = run(&t);
	o = 0;
	for (s = 0; s < ss->ns; s++)
		for (i = 0; i < ss->n; i++)
			if (mask >> i & 1) {
				uint8_t *c = ss->chunk[s * ss->n + i];

				if (memcmp(save + o, c, ss->len)) {
					bad = 1;
					memcpy(c, save + o, ss->len);
				}
				o += ss->len;
			}
	return st ? st : bad ? -EBADMSG : 0;
}

static uint64_t random_pattern(int n, int ne, uint64_t *seed)
{
	uint64_t mask = 0;

	while (__builtin_popcountll(mask) < ne)
		mask |= 1ull << (tu_rand(seed) % n);
	return mask;
}

/*
 * DECODE of mask wanting only want: the wanted chunks rebuilt, the other
 * erased ones given as NULL pointers (as the core does) and, poisoned,
 * left untouched.  0, the job's status, -EBADMSG (wrong) or -EFAULT (an
 * unwanted chunk written).
 */
static int decode_want_one(struct sset *ss, uint64_t mask, uint64_t want,
			   uint8_t *save)
{
	const size_t nch = (size_t)ss->ns * ss->n;
	uint8_t **ptrs = (uint8_t **)malloc(nch * sizeof(*ptrs));
	uint8_t **keep = ss->chunk;
	struct tu_job t;
	int i, st, bad = 0, wrote = 0;
	uint32_t s;

	for (s = 0; s < ss->ns; s++)
		for (i = 0; i < ss->n; i++) {
			uint8_t *c = keep[s * ss->n + i];

			ptrs[s * ss->n + i] = c;
			if (!(mask >> i & 1))
				continue;
			memcpy(save + ((size_t)s * ss->n + i) * ss->len, c,
			       ss->len);
			memset(c, 0xee, ss->len);
			if (!(want >> i & 1))
				ptrs[s * ss->n + i] = NULL;
		}
	ss->chunk = ptrs;
	job_init(&t, ss, RKMD_OP_DECODE, mask, NULL);
	t.job.want = want;
	st = run(&t);
	ss->chunk = keep;
	for (s = 0; s < ss->ns; s++)
		for (i = 0; i < ss->n; i++) {
			uint8_t *c = keep[s * ss->n + i];
			const uint8_t *o = save + ((size_t)s * ss->n + i) * ss->len;

			if (!(mask >> i & 1))
				continue;
			if (want >> i & 1)
				bad |= !!memcmp(o, c, ss->len);
			else
				wrote |= c[0] != 0xee || c[ss->len - 1] != 0xee;
			memcpy(c, o, ss->len);
		}
	free(ptrs);
	return st ? st : bad ? -EBADMSG : wrote ? -EFAULT : 0;
}

/* Wanted subsets: the lowest erased chunk alone, then the others */
static void test_decode_want(struct sset *ss, uint64_t *seed,
			     const char *tag)
{
	uint8_t *save = (uint8_t *)malloc((size_t)ss->n * ss->len * ss->ns);
	int npair = 0, nbad = 0, nwrote = 0, i, r;

	for (i = 0; i < (short_run ? 2 : 6); i++) {
		int ne = ss->m < 2 ? ss->m : 2 + (int)(tu_rand(seed) %
						       (ss->m - 1));
		uint64_t mask = random_pattern(ss->n, ne, seed);
		uint64_t w[2] = { mask & (~mask + 1), mask & (mask - 1) };

		for (int q = 0; q < 2; q++) {
			if (!w[q])
				continue;
			r = decode_want_one(ss, mask, w[q], save);
			npair++;
			nbad += r && r != -EFAULT;
			nwrote += r == -EFAULT;
		}
	}
	report(!nbad && !nwrote, "decode %s of a wanted subset: %d (mask, want) pairs, %d wrong, %d wrote an unwanted chunk",
	       tag, npair, nbad, nwrote);
	free(save);
}

static void test_decode(struct sset *ss, uint64_t *seed, const char *tag)
{
	uint8_t *save = (uint8_t *)malloc((size_t)ss->m * ss->len * ss->ns);
	uint64_t mask, first_bad = 0;
	int npat = 0, nbad = 0, r, i;

	if (ss->n <= 8) {
		for (mask = 1; mask < (1ull << ss->n); mask++) {
			if (__builtin_popcountll(mask) > ss->m)
				continue;
			r = decode_one(ss, mask, seed, save);
			npat++;
			if (r && !nbad++)
				first_bad = mask;
		}
	} else {
		int sizes[12];

		for (i = 0; i < 12; i++)
			sizes[i] = i < 4 ? ss->m : i < 6 ? 1 : i < 8 ? 2 :
				   1 + (int)(tu_rand(seed) % ss->m);
		for (i = 0; i < (short_run ? 3 : 12); i++) {
			int ne = sizes[i] > ss->m ? ss->m : sizes[i];

			/* first: all data lost (when m allows); then random */
			if (i == 0 && ss->m >= ss->k)
				mask = (1ull << ss->k) - 1;
			else if (i == 0)
				mask = (1ull << ss->m) - 1;
			else if (i == 1)
				mask = ((1ull << ss->m) - 1) << ss->k;
			else
				mask = random_pattern(ss->n, ne, seed);
			r = decode_one(ss, mask, seed, save);
			npat++;
			if (r && !nbad++)
				first_bad = mask;
		}
	}
	report(!nbad, "decode %s: %d erasure patterns%s, %d wrong (first 0x%llx)",
	       tag, npat, ss->n <= 8 ? " (all)" : " (fixed-seed random)", nbad,
	       (unsigned long long)first_bad);
	free(save);
}

static void test_delta(struct sset *ss, uint64_t *seed, const char *tag)
{
	uint64_t masks[3];
	int nm = 0, i, bad = 0, st = 0;
	char det[160] = "";
	uint32_t s;
	uint8_t **sparse = (uint8_t **)calloc((size_t)ss->ns * ss->n,
					      sizeof(uint8_t *));

	masks[nm++] = 1ull << (tu_rand(seed) % ss->k);
	masks[nm++] = random_pattern(ss->k, 1 + (int)(tu_rand(seed) % ss->k), seed);
	masks[nm++] = (1ull << ss->k) - 1;
	for (int q = 0; q < nm; q++) {
		struct tu_job t;

		for (s = 0; s < ss->ns; s++)
			for (i = 0; i < ss->k; i++)
				if (masks[q] >> i & 1) {
					uint8_t *c = ss->chunk[s * ss->n + i];

					memcpy(ss->old[s * ss->k + i], c, ss->len);
					tu_fill(c, ss->len, seed);
				}
		job_init(&t, ss, RKMD_OP_DELTA, masks[q], NULL);
		if (q == 0) {	/* unchanged data chunks absent, as the core allows */
			for (s = 0; s < ss->ns; s++)
				for (i = 0; i < ss->n; i++)
					sparse[s * ss->n + i] = (i < ss->k &&
						!(masks[q] >> i & 1)) ? NULL :
						ss->chunk[s * ss->n + i];
			t.job.chunk = sparse;
		}
		st = run(&t);
		if (st || parity_mismatches(ss)) {
			size_t o = strlen(det);

			snprintf(det + o, sizeof(det) - o, " [mask 0x%llx%s: status %d, %u stripes wrong]",
				 (unsigned long long)masks[q],
				 q == 0 ? " (absent unchanged chunks)" : "", st,
				 st ? 0 : parity_mismatches(ss));
			bad++;
			/* restore a consistent stripe for what follows */
			job_init(&t, ss, RKMD_OP_ENCODE, 0, NULL);
			run(&t);
		}
	}
	report(!bad, "delta %s: %d change masks, %d wrong%s", tag, nm, bad, det);
	free(sparse);
}

static void test_check(struct sset *ss, uint64_t *seed, const char *tag)
{
	int32_t *res = (int32_t *)malloc(ss->ns * sizeof(int32_t));
	uint8_t *scratch = (uint8_t *)malloc((size_t)ss->m * ss->len);
	uint8_t *flip = (uint8_t *)calloc(ss->ns, 1);
	struct tu_job t;
	uint32_t s, bad = 0;
	int st1, st2;

	for (s = 0; s < ss->ns; s++)
		res[s] = -7;
	job_init(&t, ss, RKMD_OP_CHECK, 0, res);
	st1 = run(&t);
	for (s = 0; s < ss->ns; s++)
		if (res[s] != 0)
			bad++;
	/* corrupt one byte in about half the stripes (any chunk) */
	for (s = 0; s < ss->ns; s++) {
		if (ss->ns > 1 && tu_rand(seed) % 2)
			continue;
		flip[s] = 1;
		ss->chunk[s * ss->n + tu_rand(seed) % ss->n]
			 [tu_rand(seed) % ss->len] ^= 1 << (tu_rand(seed) % 8);
	}
	for (s = 0; s < ss->ns; s++)
		res[s] = -7;
	st2 = run(&t);
	for (s = 0; s < ss->ns; s++) {
		int cpu = rkm_check(ss->code, ss->len,
				    (const uint8_t *const *)(ss->chunk + (size_t)s * ss->n),
				    scratch);

		if (res[s] != flip[s] || cpu != flip[s])
			bad++;
	}
	report(!st1 && !st2 && !bad,
	       "check %s: clean then corrupted, status %d/%d, %u stripes disagree with the CPU codec",
	       tag, st1, st2, bad);
	/* consistent again (the flipped byte may be in data: re-encode) */
	job_init(&t, ss, RKMD_OP_ENCODE, 0, NULL);
	run(&t);
	free(res);
	free(scratch);
	free(flip);
}

static void test_geometry(int k, int m, uint32_t len, uint32_t ns,
			  size_t align, uint64_t seed)
{
	struct sset ss;
	char tag[96];

	tu_arena_reset(&arena);
	snprintf(tag, sizeof(tag), "%d+%d len %u x %u stripes%s", k, m, len,
		 ns, align < 4096 ? " (64-byte aligned)" : "");
	if (sset_init(&ss, k, m, len, ns, align, &seed)) {
		report(0, "setup %s: arena too small", tag);
		return;
	}
	if (test_encode(&ss, &seed, tag)) {
		test_decode(&ss, &seed, tag);
		test_decode_want(&ss, &seed, tag);
		test_delta(&ss, &seed, tag);
		test_check(&ss, &seed, tag);
	}
	sset_free(&ss);
}

/* Many jobs of mixed shapes in flight at once. */
static void test_concurrent(uint64_t seed)
{
	const int nj = short_run ? 16 : 200;
	static const int geo[][2] = { {8, 3}, {4, 2}, {16, 4}, {10, 6}, {32, 16} };
	struct sset *ss = (struct sset *)calloc(nj, sizeof(*ss));
	struct tu_job *t = (struct tu_job *)calloc(nj, sizeof(*t));
	struct rkmd_cuda_stats st0, st1;
	uint64_t base;
	int i, bad = 0, r;

	tu_arena_reset(&arena);
	for (i = 0; i < nj; i++) {
		int g = tu_rand(&seed) % 5;
		uint32_t len = 4096u << (tu_rand(&seed) % 4);

		if (sset_init(&ss[i], geo[g][0], geo[g][1], len,
			      1 + tu_rand(&seed) % 3, 4096, &seed)) {
			report(0, "concurrent: arena too small");
			return;
		}
		job_init(&t[i], &ss[i], RKMD_OP_ENCODE, 0, NULL);
	}
	memset(&st0, 0, sizeof(st0));
	memset(&st1, 0, sizeof(st1));
	if (!multi)
		rkmd_cuda_get_stats(be, &st0);
	pthread_mutex_lock(&sink.lock);
	base = sink.completed;
	pthread_mutex_unlock(&sink.lock);
	for (i = 0; i < nj; i++) {
		r = ops->submit(be, &t[i].job);
		if (r) {
			report(0, "concurrent: submit %d: %d", i, r);
			return;
		}
	}
	tu_wait_count(&sink, base + nj);
	if (!multi)
		rkmd_cuda_get_stats(be, &st1);
	for (i = 0; i < nj; i++) {
		if (t[i].status || parity_mismatches(&ss[i]))
			bad++;
		sset_free(&ss[i]);
	}
	report(!bad && !sink.calls_after_done,
	       "concurrent: %d mixed encode jobs in flight, %d wrong, %llu launches (batching merged %llu jobs)",
	       nj, bad, (unsigned long long)(st1.launches - st0.launches),
	       (unsigned long long)(nj - (st1.launches - st0.launches)));
	free(ss);
	free(t);
}

/* Same-shape single-stripe jobs submitted back to back: batched. */
static void test_small_burst(uint64_t seed)
{
	const int nj = short_run ? 32 : 512;
	struct sset ss;
	struct tu_job *t = (struct tu_job *)calloc(nj, sizeof(*t));
	uint8_t **ch;
	uint64_t base;
	int i, bad = 0;

	tu_arena_reset(&arena);
	if (sset_init(&ss, 8, 3, 4096, nj, 4096, &seed)) {
		report(0, "burst: arena too small");
		return;
	}
	ch = ss.chunk;
	pthread_mutex_lock(&sink.lock);
	base = sink.completed;
	pthread_mutex_unlock(&sink.lock);
	for (i = 0; i < nj; i++) {
		job_init(&t[i], &ss, RKMD_OP_ENCODE, 0, NULL);
		t[i].job.nstripes = 1;
		t[i].job.chunk = ch + (size_t)i * ss.n;
		if (ops->submit(be, &t[i].job))
			bad++;
	}
	tu_wait_count(&sink, base + nj - bad);
	for (i = 0; i < nj; i++)
		if (t[i].status)
			bad++;
	if (!bad && parity_mismatches(&ss))
		bad++;
	report(!bad, "burst: %d single-stripe 8+3 jobs, %d wrong", nj, bad);
	sset_free(&ss);
	free(t);
}

static void test_bad_jobs(uint64_t seed)
{
	struct sset ss;
	struct tu_job t;
	uint8_t *saved;
	int r, ok = 1;
	char what[256] = "";

	tu_arena_reset(&arena);
	if (sset_init(&ss, 4, 2, 4096, 1, 4096, &seed)) {
		report(0, "bad jobs: setup");
		return;
	}
#define EXPECT_EINVAL(desc) do {					\
		t.done = 0;						\
		r = ops->submit(be, &t.job);				\
		if (r != -EINVAL || t.done) {				\
			ok = 0;						\
			snprintf(what, sizeof(what), "%s: submit %d", desc, r); \
			if (!r)						\
				wait_job(&t);				\
		}							\
	} while (0)

	job_init(&t, &ss, RKMD_OP_DECODE, 0x7, NULL);	/* 3 > m erasures */
	EXPECT_EINVAL("3 erasures at m=2");
	job_init(&t, &ss, RKMD_OP_DECODE, 1ull << 6, NULL);	/* beyond n */
	EXPECT_EINVAL("erasure beyond k+m");
	job_init(&t, &ss, RKMD_OP_DELTA, 1ull << 4, NULL);	/* parity bit */
	EXPECT_EINVAL("delta of a parity chunk");
	job_init(&t, &ss, RKMD_OP_ENCODE, 0, NULL);
	t.job.len = 100;
	EXPECT_EINVAL("length not a multiple of 64");
	job_init(&t, &ss, RKMD_OP_ENCODE, 0, NULL);
	t.job.m = 17;
	EXPECT_EINVAL("m = 17");
	job_init(&t, &ss, RKMD_OP_CHECK, 0, NULL);
	EXPECT_EINVAL("check without result array");
	saved = ss.chunk[1];
	job_init(&t, &ss, RKMD_OP_ENCODE, 0, NULL);
	ss.chunk[1] = saved + 8;
	EXPECT_EINVAL("misaligned chunk");
	ss.chunk[1] = arena.base + arena.size - 2048;
	EXPECT_EINVAL("chunk running past the arena");
	ss.chunk[1] = (uint8_t *)&t;
	EXPECT_EINVAL("chunk outside the arena");
	ss.chunk[1] = saved;
	job_init(&t, &ss, 9, 0, NULL);
	EXPECT_EINVAL("unknown op");
	report(ok, "bad jobs refused with -EINVAL and no completion%s%s",
	       ok ? "" : ": ", what);
	sset_free(&ss);
}

/* Last: a GPU fault must end in -EIO completions, later submits refused. */
static void test_fault(uint64_t seed)
{
	struct sset ss;
	struct tu_job t, t2;
	int st, r2;
	double t0;

	tu_arena_reset(&arena);
	if (sset_init(&ss, 8, 3, 65536, 4, 4096, &seed)) {
		report(0, "fault: setup");
		return;
	}
	rkmd_cuda_inject_trap(be);
	job_init(&t, &ss, RKMD_OP_ENCODE, 0, NULL);
	t0 = tu_now();
	st = run(&t);
	job_init(&t2, &ss, RKMD_OP_ENCODE, 0, NULL);
	r2 = run(&t2);
	ops->drain(be);
	report(st == -EIO && r2 == -EIO,
	       "GPU fault: job completed with %d after %.3f s, next job %d (both want -EIO), drain returned",
	       st, tu_now() - t0, r2);
	sset_free(&ss);
}

/* ---- the multi-GPU backend (--gpus=LIST) ------------------------------- */

static int gpus_state(struct rkmd_gpu_state *st)
{
	return rkmd_gpus_get(be, st, RKMD_GPUS_MAX);
}

/* Submit n jobs at once and wait for all; the number submitted */
static int burst(struct tu_job *t, int n)
{
	uint64_t base;
	int i, sub = 0;

	pthread_mutex_lock(&sink.lock);
	base = sink.completed;
	pthread_mutex_unlock(&sink.lock);
	for (i = 0; i < n; i++) {
		t[i].done = 0;
		t[i].status = ops->submit(be, &t[i].job);
		if (!t[i].status)
			sub++;
	}
	tu_wait_count(&sink, base + sub);
	return sub;
}

/* Jobs of mixed sizes at once: every instance takes a share. */
static void test_spread(uint64_t seed)
{
	const int nj = 96;
	struct sset *ss = (struct sset *)calloc(nj, sizeof(*ss));
	struct tu_job *t = (struct tu_job *)calloc(nj, sizeof(*t));
	struct rkmd_gpu_state a[RKMD_GPUS_MAX], b[RKMD_GPUS_MAX];
	uint64_t lo = ~0ull, hi = 0;
	char det[256] = "";
	int i, n, bad = 0, idle = 0;

	tu_arena_reset(&arena);
	for (i = 0; i < nj; i++) {
		if (sset_init(&ss[i], 8, 3, 4096u << (tu_rand(&seed) % 6),
			      1 + tu_rand(&seed) % 4, 4096, &seed)) {
			report(0, "spread: arena too small");
			return;
		}
		job_init(&t[i], &ss[i], RKMD_OP_ENCODE, 0, NULL);
	}
	n = gpus_state(a);
	if (burst(t, nj) != nj)
		bad++;
	gpus_state(b);
	for (i = 0; i < nj; i++) {
		if (t[i].status || parity_mismatches(&ss[i]))
			bad++;
		sset_free(&ss[i]);
	}
	for (i = 0; i < n; i++) {
		uint64_t by = b[i].bytes - a[i].bytes;
		size_t o = strlen(det);

		snprintf(det + o, sizeof(det) - o, " [%d: %llu jobs, %llu KiB]",
			 i, (unsigned long long)(b[i].jobs - a[i].jobs),
			 (unsigned long long)(by >> 10));
		if (b[i].dropped)
			continue;
		if (b[i].jobs == a[i].jobs)
			idle++;
		lo = by < lo ? by : lo;
		hi = by > hi ? by : hi;
	}
	/* by outstanding bytes: no instance idle, none with < 1/5 of another */
	report(n >= 2 && !bad && !idle && lo * 5 >= hi,
	       "spread: %d encode jobs of 4-128 KiB chunks over %d instances, %d wrong, %d idle:%s",
	       nj, n, bad, idle, det);
	free(ss);
	free(t);
}

/*
 * A GPU fault in instance `victim` with jobs of `op` (ENCODE or DELTA) in
 * flight: its worker goes down (one fault, none elsewhere); encode jobs
 * all complete correctly (re-run on another instance); delta jobs of the
 * failed batches are failed back (-EIO, the kernel would code them on its
 * CPU), the others complete correctly; nothing completes wrong.  Then
 * its worker restarts and serves again.
 */
static void test_drop(int op, int victim, uint64_t seed)
{
	const int nj = 48, k = 8, m = 3;
	struct sset *ss = (struct sset *)calloc(nj, sizeof(*ss));
	struct tu_job *t = (struct tu_job *)calloc(nj, sizeof(*t));
	struct rkmd_gpu_state a[RKMD_GPUS_MAX], b[RKMD_GPUS_MAX];
	uint8_t *par[RKM_MAX_M];
	int i, n, ok = 0, eio = 0, other = 0, wrong = 0, others = 0;
	int pass, back;
	uint32_t s;

	tu_arena_reset(&arena);
	for (i = 0; i < nj; i++) {
		if (sset_init(&ss[i], k, m, 65536, 2, 4096, &seed)) {
			report(0, "drop: arena too small");
			return;
		}
		for (s = 0; s < ss[i].ns; s++) {
			uint8_t **c = ss[i].chunk + (size_t)s * ss[i].n;

			for (int e = 0; e < m; e++)
				par[e] = c[k + e];
			if (op == RKMD_OP_DELTA) {
				/* parity of the old data, then new data */
				for (int d = 0; d < k; d++)
					memcpy(ss[i].old[s * k + d], c[d],
					       ss[i].len);
				rkm_encode(ss[i].code, ss[i].len,
					   (const uint8_t *const *)c, par);
				for (int d = 0; d < k; d++)
					tu_fill(c[d], ss[i].len, &seed);
			}
		}
		job_init(&t[i], &ss[i], op, op == RKMD_OP_DELTA ?
			 (1ull << k) - 1 : 0, NULL);
	}
	n = gpus_state(a);
	rkmd_gpus_inject_fault(be, victim, fault_kind);
	burst(t, nj);
	gpus_state(b);
	for (i = 0; i < nj; i++) {
		if (!t[i].status) {
			ok++;
			if (parity_mismatches(&ss[i]))
				wrong++;
		} else if (t[i].status == -EIO) {
			eio++;
		} else {
			other++;
		}
		sset_free(&ss[i]);
	}
	for (i = 0; i < n; i++)
		if (i != victim)
			others += b[i].faults != a[i].faults;
	/* the victim's worker and only it went down */
	pass = n >= 2 && victim < n && !a[victim].dropped &&
	       b[victim].faults == a[victim].faults + 1 && !others &&
	       !wrong && !other && !sink.calls_after_done;
	if (op == RKMD_OP_ENCODE)
		pass = pass && ok == nj && b[victim].reruns > a[victim].reruns &&
		       b[victim].failed_back == a[victim].failed_back;
	else
		pass = pass && eio >= 1 && ok + eio == nj &&
		       (uint64_t)eio == b[victim].failed_back -
					a[victim].failed_back;
	report(pass,
	       "%s in instance %d of %d, %d %s jobs in flight: its worker down (\"%s\"), %d ok, %d failed back, %d other, %d wrong, %llu re-run on the others, %d other instances down",
	       fault_kind == RKMD_GPU_FAIL ? "failed launch" : "GPU trap", victim, n, nj,
	       op == RKMD_OP_DELTA ? "delta" : "encode",
	       victim < n ? b[victim].why : "", ok, eio, other, wrong,
	       victim < n ? (unsigned long long)(b[victim].reruns -
						 a[victim].reruns) : 0ull,
	       others);
	back = victim < n && !rkmd_gpus_wait_up(be, victim,
						 a[victim].restarts + 1, 60000);
	gpus_state(b);
	report(back, "instance %d's worker restarted and serving again (pid %d, %llu restarts)",
	       victim, victim < n ? b[victim].pid : 0,
	       victim < n ? (unsigned long long)b[victim].restarts : 0ull);
	free(ss);
	free(t);
}

/* The last live instance fails: jobs fail back, later submits too. */
static void test_last_fault(uint64_t seed)
{
	struct rkmd_gpu_state st[RKMD_GPUS_MAX], st0[RKMD_GPUS_MAX];
	struct sset ss;
	struct tu_job t, t2;
	int i, n, live = 0, left = 0, st1, r2;

	tu_arena_reset(&arena);
	if (sset_init(&ss, 8, 3, 65536, 4, 4096, &seed)) {
		report(0, "last fault: setup");
		return;
	}
	n = gpus_state(st);
	memcpy(st0, st, sizeof(st));
	for (i = 0; i < n; i++)
		if (!st[i].dropped) {
			rkmd_gpus_inject_fault(be, i, fault_kind);
			live++;
		}
	/* the workers restart after their backoff: long enough for this */
	/* it traps in one, is re-run in the next, which traps too, ... */
	job_init(&t, &ss, RKMD_OP_ENCODE, 0, NULL);
	st1 = run(&t);
	job_init(&t2, &ss, RKMD_OP_ENCODE, 0, NULL);
	r2 = run(&t2);
	ops->drain(be);
	gpus_state(st);
	for (i = 0; i < n; i++)
		left += !st[i].dropped;
	report(live >= 1 && !left && st1 == -EIO && r2 == -EIO,
	       "%s in every live instance (%d): job %d, next job %d (both want -EIO: the kernel's CPU codec), %d instances left",
	       fault_kind == RKMD_GPU_FAIL ? "failed launch" : "GPU trap", live, st1, r2, left);
	for (i = 0, left = 0; i < n; i++)
		left += !rkmd_gpus_wait_up(be, i, st0[i].restarts + 1, 60000);
	job_init(&t, &ss, RKMD_OP_ENCODE, 0, NULL);
	st1 = run(&t);
	report(left == n && !st1 && !parity_mismatches(&ss),
	       "after it every worker restarted (%d of %d serving) and codes again: job %d",
	       left, n, st1);
	sset_free(&ss);
}

/* Count a burst's outcomes; failed[i]: job i was failed back (-EIO) */
struct outcome {
	int ok, eio, other, wrong;
};

static struct outcome tally(struct sset *ss, struct tu_job *t, int n,
			    char *failed)
{
	struct outcome o = { 0, 0, 0, 0 };
	int i;

	for (i = 0; i < n; i++) {
		if (failed)
			failed[i] = t[i].status == -EIO;
		if (!t[i].status) {
			o.ok++;
			o.wrong += parity_mismatches(&ss[i]) != 0;
		} else if (t[i].status == -EIO) {
			o.eio++;
		} else {
			o.other++;
		}
	}
	return o;
}

/* How many of the failed-back jobs have right parity now */
static int failed_right(struct sset *ss, const char *failed, int n)
{
	int i, right = 0;

	for (i = 0; i < n; i++)
		right += failed[i] && !parity_mismatches(&ss[i]);
	return right;
}

/*
 * --hang: instance 1's next batch hangs with 48 encode jobs in flight,
 * held on the GPU behind a kernel that waits for a release that never
 * comes (how == RKMD_GPU_HANG) or run with its completion withheld
 * (RKMD_GPU_WITHHOLD).  After RKMD_CUDA_HANG_MS instance 1's worker goes
 * down, the hung batch's jobs are failed back (-EIO: the kernel codes
 * them), those queued behind it re-run on instance 0, the rest complete
 * right; instance 0 codes 48 more jobs right meanwhile; the worker ends
 * with its context, so the held batch never runs (its parity stays
 * unwritten) while the withheld one did; a new worker serves instance 1.
 */
static void run_hang(enum rkmd_gpu_fault how, uint64_t seed)
{
	const int nj = 48, k = 8, m = 3, victim = 1;
	const char *env = getenv("RKMD_CUDA_HANG_MS");
	const double hang_s = (env && atoi(env) > 0 ? atoi(env) : 20000) / 1e3;
	const char *held = how == RKMD_GPU_HANG ? "held on the GPU" :
			   "completion withheld";
	struct sset *ss = (struct sset *)calloc(2 * nj, sizeof(*ss));
	struct tu_job *t = (struct tu_job *)calloc(2 * nj, sizeof(*t));
	char *failed = (char *)calloc(nj, 1);
	struct rkmd_gpu_state a[RKMD_GPUS_MAX], b[RKMD_GPUS_MAX],
			      c[RKMD_GPUS_MAX];
	struct outcome o, o2;
	int i, n, right, pass;
	double t0, el;

	alarm(30 + 3 * (unsigned int)hang_s);	/* a hang here is a failure */
	tu_arena_reset(&arena);
	for (i = 0; i < 2 * nj; i++) {
		if (sset_init(&ss[i], k, m, 65536, 2, 4096, &seed)) {
			report(0, "hang: arena too small");
			return;
		}
		job_init(&t[i], &ss[i], RKMD_OP_ENCODE, 0, NULL);
	}
	n = gpus_state(a);
	if (n < 2) {
		report(0, "hang: %d instances (want 2 or more)", n);
		return;
	}
	rkmd_gpus_inject_fault(be, victim, how);
	t0 = tu_now();
	burst(t, nj);
	el = tu_now() - t0;
	gpus_state(b);
	o = tally(ss, t, nj, failed);
	pass = b[victim].faults == a[victim].faults + 1 && !a[victim].dropped &&
	       strstr(b[victim].why, "hung") && b[0].faults == a[0].faults &&
	       o.eio >= 1 && o.ok + o.eio == nj && !o.wrong && !o.other &&
	       (uint64_t)o.eio == b[victim].failed_back - a[victim].failed_back &&
	       el >= 0.9 * hang_s;
	report(pass,
	       "hung batch (%s) in instance %d of %d, %d encode jobs in flight: its worker down after %.2f s (\"%s\"), %d ok, %d failed back, %llu re-run on the others, %d other, %d wrong",
	       held, victim, n, nj, el, b[victim].why, o.ok, o.eio,
	       (unsigned long long)(b[victim].reruns - a[victim].reruns),
	       o.other, o.wrong);

	/* held: the batch has not run; withheld: it ran, nobody looked */
	right = failed_right(ss, failed, nj);
	if (how == RKMD_GPU_HANG)
		report(!right, "the hung batch is still held on the GPU: %d of its %d jobs' parity written (want 0)",
		       right, o.eio);
	else
		report(right == o.eio, "the withheld batch ran: %d of its %d jobs' parity right",
		       right, o.eio);

	burst(t + nj, nj);
	gpus_state(c);
	o2 = tally(ss + nj, t + nj, nj, NULL);
	report(o2.ok == nj && !o2.wrong && !c[0].dropped &&
	       c[0].faults == b[0].faults &&
	       c[0].jobs - b[0].jobs >= (uint64_t)nj / 2,
	       "instance 0 keeps serving after the hang: %d more encode jobs, %d ok, %d wrong, %llu coded by instance 0",
	       nj, o2.ok, o2.wrong,
	       (unsigned long long)(c[0].jobs - b[0].jobs));
	report(!rkmd_gpus_wait_up(be, victim, a[victim].restarts + 1, 60000),
	       "instance %d's worker restarted and serving again", victim);

	report(!sink.calls_after_done, "no job completed twice (%llu extra done() calls)",
	       (unsigned long long)sink.calls_after_done);
	t0 = tu_now();
	ops->close(be);
	be = NULL;
	el = tu_now() - t0;
	right = failed_right(ss, failed, nj);
	report(el < 30 && right == (how == RKMD_GPU_HANG ? 0 : o.eio),
	       "close in %.3f s; the hung batch's %d jobs' parity: %d right (want %s)",
	       el, o.eio, right, how == RKMD_GPU_HANG ?
	       "0: the held batch ended with its worker's context, unrun" :
	       "all: the withheld batch ran");
	alarm(0);
	for (i = 0; i < 2 * nj; i++)
		sset_free(&ss[i]);
	free(ss);
	free(t);
	free(failed);
}

static int run_multi(uint64_t seed)
{
	struct rkmd_gpu_state st[RKMD_GPUS_MAX];
	int n = gpus_state(st), i;

	for (i = 0; i < n; i++)
		printf("# instance %d: device %d, %s%s%s\n", i, st[i].device,
		       st[i].where, st[i].dropped ? ", not open: " : "",
		       st[i].dropped ? st[i].why : "");
	report(n >= 2, "multi-GPU backend: %d instances", n);
	test_geometry(8, 3, 65536, 8, 4096, seed++);
	test_geometry(16, 8, 1 << 20, 2, 4096, seed++);
	test_geometry(5, 4, 320, 3, 64, seed++);
	test_concurrent(seed++);
	test_spread(seed++);
	test_bad_jobs(seed++);
	test_drop(RKMD_OP_ENCODE, n - 1, seed++);
	test_spread(seed++);	/* the restarted worker takes its share */
	test_drop(RKMD_OP_DELTA, 0, seed++);
	test_last_fault(seed++);
	return 0;
}

static int no_device(void)
{
	char why[256] = "";
	struct rkmd_backend *b;
	int r;

	r = ops->probe(why, sizeof(why));
	report(r < 0 && why[0], "probe without a usable GPU: %d, \"%s\"", r, why);
	why[0] = 0;
	b = ops->open(arena.base, arena.size, 0, 0, tu_complete, &sink, why,
		      sizeof(why));
	report(!b && why[0], "open without a usable GPU refused: \"%s\"", why);
	if (b)
		ops->close(b);
	return nfail ? 1 : 0;
}

int main(int argc, char **argv)
{
	size_t asz = (size_t)1 << 30;
	char why[256] = "";
	int nodev = 0, i;
	enum rkmd_gpu_fault hang = RKMD_GPU_TRAP;	/* TRAP: no --hang */
	uint64_t seed = 0x5eed0001;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--short"))
			short_run = 1;
		else if (!strcmp(argv[i], "--no-device"))
			nodev = 1;
		else if (!strncmp(argv[i], "--gpus=", 7)) {
			if (rkmd_gpus_configure(argv[i] + 7, "", why,
						sizeof(why))) {
				report(0, "--gpus: %s", why);
				return 1;
			}
			ops = &rkmd_gpus_backend;
			multi = 1;
		} else if (!strcmp(argv[i], "--hang")) {
			hang = RKMD_GPU_HANG;
		} else if (!strcmp(argv[i], "--hang=withhold")) {
			hang = RKMD_GPU_WITHHOLD;
		} else if (!strcmp(argv[i], "--fault=trap")) {
			fault_kind = RKMD_GPU_TRAP;
		} else if (!strcmp(argv[i], "--fault=fail")) {
			fault_kind = RKMD_GPU_FAIL;
		}
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	/* no kernel deadline here: a stalled worker is the hang timeout's */
	setenv("RKMD_GPUS_STALL_MS", "0", 0);
	if (short_run || nodev)
		asz = 64 << 20;
	if (tu_arena_init(&arena, asz)) {
		report(0, "memfd arena of %zu MiB", asz >> 20);
		return 1;
	}
	tu_sink_init(&sink);
	if (nodev)
		return no_device();

	if (ops->probe(why, sizeof(why))) {
		report(0, "probe: %s", why);
		return 1;
	}
	printf("# device: %s\n", why);
	be = ops->open(arena.base, arena.size, 0, 0, tu_complete, &sink, why,
		       sizeof(why));
	if (!be) {
		report(0, "open: %s", why);
		return 1;
	}

	if (hang != RKMD_GPU_TRAP) {
		if (!multi) {
			report(0, "--hang wants --gpus=LIST");
			return 1;
		}
		run_hang(hang, seed);
		printf("# %d passed, %d failed\n", npass, nfail);
		return nfail ? 1 : 0;
	} else if (multi) {
		if (run_multi(seed))
			return 1;
	} else if (short_run) {
		test_geometry(3, 2, 4096, 2, 4096, seed++);
		test_geometry(8, 3, 192, 3, 64, seed++);
		test_geometry(16, 8, 65536, 1, 4096, seed++);
		test_geometry(32, 16, 4096, 2, 4096, seed++);
		test_concurrent(seed++);
		test_small_burst(seed++);
		test_bad_jobs(seed++);
	} else {
		/* (k, m) covering m = 1..16; lengths 64 B .. 1 MiB */
		static const struct { int k, m; uint32_t len, ns; } g[] = {
			{ 2, 1, 4096, 3 }, { 7, 1, 65536, 16 },
			{ 63, 1, 4096, 2 },
			{ 3, 2, 4096, 2 }, { 4, 2, 65536, 4 },
			{ 8, 2, 1 << 20, 8 },	/* 64 MiB of data */
			{ 5, 3, 4096, 2 }, { 8, 3, 65536, 32 },
			{ 4, 4, 4096, 2 }, { 10, 4, 131072, 8 },
			{ 16, 4, 1 << 20, 4 },	/* 64 MiB of data */
			{ 3, 5, 4096, 1 }, { 6, 5, 16384, 4 },
			{ 8, 6, 65536, 4 }, { 9, 7, 8192, 3 },
			{ 16, 8, 262144, 4 }, { 12, 9, 4096, 5 },
			{ 10, 10, 65536, 2 }, { 20, 11, 32768, 3 },
			{ 16, 12, 65536, 2 }, { 24, 13, 4096, 4 },
			{ 14, 14, 8192, 2 }, { 30, 15, 65536, 2 },
			{ 32, 16, 1 << 20, 2 },	/* 64 MiB of data */
			{ 48, 16, 65536, 2 }, { 2, 16, 4096, 2 },
		};

		for (i = 0; i < (int)(sizeof(g) / sizeof(g[0])); i++)
			test_geometry(g[i].k, g[i].m, g[i].len, g[i].ns, 4096,
				      seed++);
		/* odd placements and tiny lengths: 64-byte aligned chunks */
		test_geometry(8, 3, 64, 5, 64, seed++);
		test_geometry(5, 4, 320, 3, 64, seed++);
		test_geometry(20, 16, 4160, 2, 64, seed++);
		test_concurrent(seed++);
		test_small_burst(seed++);
		test_bad_jobs(seed++);
		test_fault(seed++);
	}
	report(!sink.calls_after_done, "no job completed twice (%llu extra done() calls)",
	       (unsigned long long)sink.calls_after_done);
	ops->close(be);
	printf("# %d passed, %d failed\n", npass, nfail);
	return nfail ? 1 : 0;
}
