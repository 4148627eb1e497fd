// SPDX-License-Identifier: GPL-2.0
/*
 * gpu_loop: the CUDA backend through the real daemon core and the real
 * rings: a loopback kernel end (daemon/loopback, same uapi structures and
 * ring code as raidkm.ko) on this thread, an in-process raidkmd core with
 * --backend=cuda on its own, the arena the loopback's memfd.
 *
 *   gpu_loop              correctness: every op against the CPU codec for
 *                         geometries covering m = 1..16, many jobs in
 *                         flight; PASS/FAIL lines
 *   gpu_loop --latency N  one 8+3 stripe of 64 KiB chunks, submit to
 *                         completion as the kernel end sees it, N times;
 *                         prints p50/p99 (make bench-gpu)
 *   gpu_loop --drop       with RKMD_GPUS=LIST of two or more instances:
 *                         instance 1 fails a launch at its 3rd job while
 *                         128 jobs are in flight; every job must still
 *                         complete right, and the status file must show
 *                         instance 1 dropped and the others serving
 *   gpu_loop --drop=trap  the same with a GPU trap (instance 1 on a GPU
 *                         of its own: a trap kills the GPU's contexts)
 *   gpu_loop --hang       the same with a batch of instance 1 held on the
 *                         GPU (run with a short RKMD_CUDA_HANG_MS): its
 *                         jobs come back failed and are coded on the CPU
 *                         here, as raidkm.ko does; the status file must
 *                         show instance 1 dropped as hung with jobs failed
 *                         back; the held kernel is released at detach
 *
 * The backend is raidkmd's "cuda": every GPU (RKMD_GPUS), multi_gpu.c.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "codec/rkm_codec.h"
#include "uapi/raidkm.h"
#include "loopback/rkm_loop_daemon.h"
#include "rkmd_log.h"
#include "gpu/multi_gpu.h"
#include "ctl_gpus.h"

static int npass, nfail;
static struct rkm_loop *loop;
static uint8_t *arena;
static uint64_t arena_size, arena_used, seed = 0x100b;

#define LEN_MAX	65536

static void report(int ok, const char *what, const char *detail)
{
	printf("%s %s%s%s\n", ok ? "PASS" : "FAIL", what, detail ? ": " : "",
	       detail ? detail : "");
	fflush(stdout);
	if (ok)
		npass++;
	else
		nfail++;
}

static uint64_t rnd(void)
{
	seed ^= seed >> 12;
	seed ^= seed << 25;
	seed ^= seed >> 27;
	return seed * 2685821657736338717ull;
}

static void fill(uint8_t *p, size_t n)
{
	size_t i;

	for (i = 0; i < n; i += 8) {
		uint64_t r = rnd();

		memcpy(p + i, &r, 8);
	}
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* n arena offsets of len bytes, scattered (reverse order of allocation) */
static int alloc_offs(uint64_t *offs, int n, uint32_t len)
{
	uint64_t step = (len + 4095) & ~4095ull;
	int i;

	if (arena_used + step * n > arena_size)
		return -ENOSPC;
	for (i = 0; i < n; i++)
		offs[i] = arena_used + (uint64_t)(n - 1 - i) * step;
	arena_used += step * n;
	return 0;
}

struct done_rec {
	int got, status;
	uint64_t bitmap;
};

static struct done_rec recs[4096];

static void on_done(void *arg, uint64_t cookie, int status, uint64_t bm)
{
	if (cookie < 4096) {
		recs[cookie].got++;
		recs[cookie].status = status;
		recs[cookie].bitmap = bm;
	}
}

/* Submit jobs[0..n-1] (cookies 0..n-1), wait for all of them. */
static int run_jobs(struct rkm_loop_job *jobs, int n)
{
	int i, done = 0, r;
	double t0 = now();

	for (i = 0; i < n; i++) {
		memset(&recs[i], 0, sizeof(recs[i]));
		jobs[i].cookie = i;
		while ((r = rkm_loop_submit(loop, &jobs[i])) == -EAGAIN) {
			rkm_loop_kick(loop);
			rkm_loop_reap(loop, on_done, NULL);
			rkm_loop_wait(loop, 1);
		}
		if (r)
			return r;
	}
	rkm_loop_kick(loop);
	while (done < n) {
		r = rkm_loop_reap(loop, on_done, NULL);
		if (r < 0)
			return r;
		done += r;
		if (done < n)
			rkm_loop_wait(loop, 2);
		if (now() - t0 > 120)
			return -ETIMEDOUT;
	}
	for (i = 0; i < n; i++)
		if (recs[i].got != 1)
			return -EPROTO;
	return 0;
}

struct stripes {
	int k, m, n;
	uint32_t len, ns;
	uint64_t offs[RAIDKM_MAX_STRIPES * RKM_MAX_N * 2];
	struct rkm_code *code;
};

static uint8_t *chunk(const struct stripes *s, uint32_t st, int i)
{
	return arena + s->offs[st * s->n + i];
}

static int parity_bad(const struct stripes *s)
{
	uint8_t ref[RKM_MAX_M][LEN_MAX];
	uint8_t *d[RKM_MAX_N], *p[RKM_MAX_M];
	uint32_t st;
	int i, bad = 0;

	for (i = 0; i < s->m; i++)
		p[i] = ref[i];
	for (st = 0; st < s->ns; st++) {
		for (i = 0; i < s->n; i++)
			d[i] = chunk(s, st, i);
		rkm_encode(s->code, s->len, (const uint8_t *const *)d, p);
		for (i = 0; i < s->m; i++)
			if (memcmp(p[i], d[s->k + i], s->len))
				bad++;
	}
	return bad;
}

static void job_of(struct rkm_loop_job *j, const struct stripes *s, int op,
		   uint64_t mask)
{
	memset(j, 0, sizeof(*j));
	j->op = op;
	j->k = s->k;
	j->m = s->m;
	j->len = s->len;
	j->nstripes = s->ns;
	j->mask = mask;
	j->offs = s->offs;
}

/*
 * DECODE of a wanted subset (RAIDKM_FEAT_DECODE_WANT, which the cuda
 * backend declares): min(m, 2) erasures, the lowest one wanted, then the
 * others; described as raidkm.ko does (rkm_loop_describe).  The wanted
 * chunks are rebuilt, the unwanted erased ones keep their poison.
 */
static void test_want(const struct stripes *s)
{
	static uint8_t save[RKM_MAX_N][RAIDKM_MAX_STRIPES][LEN_MAX];
	static uint64_t offs[RAIDKM_MAX_STRIPES * RKM_MAX_N * 2];
	const int feat = !!(rkm_loop_features(loop) & RAIDKM_FEAT_DECODE_WANT);
	uint8_t *ch[RKM_MAX_N];
	struct rkm_loop_job j;
	uint64_t mask = 0, want, w[2];
	char what[64], det[160];
	int i, r, bad = 0, touched = 0, q;
	uint32_t st;

	while (__builtin_popcountll(mask) < (s->m < 2 ? s->m : 2))
		mask |= 1ull << (rnd() % s->n);
	w[0] = mask & -mask;
	w[1] = mask & ~w[0];
	for (q = 0; q < 2; q++) {
		want = w[q];
		if (!want)
			continue;
		for (st = 0; st < s->ns; st++)
			for (i = 0; i < s->n; i++)
				if (mask >> i & 1) {
					memcpy(save[i][st], chunk(s, st, i), s->len);
					memset(chunk(s, st, i), 0xee, s->len);
				}
		job_of(&j, s, RAIDKM_OP_DECODE, mask);
		j.want = want;
		j.offs = offs;
		for (st = 0; st < s->ns; st++) {
			for (i = 0; i < s->n; i++)
				ch[i] = chunk(s, st, i);
			if (rkm_loop_describe(loop, &j, ch, NULL, st, offs))
				bad++;
		}
		r = bad ? -1 : run_jobs(&j, 1);
		for (st = 0; st < s->ns; st++)
			for (i = 0; i < s->n; i++) {
				uint8_t *p = chunk(s, st, i);

				if (!(mask >> i & 1))
					continue;
				if (want >> i & 1)
					bad += !!memcmp(save[i][st], p, s->len);
				else if (feat)
					touched += p[0] != 0xee ||
						   p[s->len - 1] != 0xee;
				memcpy(p, save[i][st], s->len);
			}
		bad += r || recs[0].status;
	}
	snprintf(what, sizeof(what), "ring %d+%d len %u x %u", s->k, s->m,
		 s->len, s->ns);
	snprintf(det, sizeof(det), "decode 0x%llx wanting 0x%llx, then 0x%llx (feature %s): %d wrong, %d unwanted chunks written",
		 (unsigned long long)mask, (unsigned long long)w[0],
		 (unsigned long long)w[1], feat ? "agreed" : "NOT agreed",
		 bad, touched);
	report(feat && !bad && !touched, what, det);
}

static void test_geometry(int k, int m, uint32_t len, uint32_t ns)
{
	static struct stripes s;
	static uint8_t save[RKM_MAX_M][RAIDKM_MAX_STRIPES][LEN_MAX];
	struct rkm_loop_job j;
	char what[64], det[128];
	uint32_t st;
	int i, r, bad;
	uint64_t mask;

	snprintf(what, sizeof(what), "ring %d+%d len %u x %u", k, m, len, ns);
	arena_used = 0;
	s.k = k;
	s.m = m;
	s.n = k + m;
	s.len = len;
	s.ns = ns;
	s.code = rkm_code_create(k, m);
	if (!s.code || alloc_offs(s.offs, ns * (k + m + k), len)) {
		report(0, what, "setup");
		return;
	}
	for (st = 0; st < ns; st++)
		for (i = 0; i < s.n; i++)
			fill(chunk(&s, st, i), len);

	/* encode */
	job_of(&j, &s, RAIDKM_OP_ENCODE, 0);
	r = run_jobs(&j, 1);
	bad = r ? -1 : parity_bad(&s);
	snprintf(det, sizeof(det), "encode: run %d status %d, %d parity chunks wrong",
		 r, recs[0].status, bad);
	report(!r && !recs[0].status && !bad, what, det);

	/* decode: m erasures, one, a mix of data and parity */
	for (int q = 0; q < 3; q++) {
		int ne = q == 0 ? m : q == 1 ? 1 : (m + 1) / 2, e;

		mask = 0;
		while (__builtin_popcountll(mask) < ne)
			mask |= 1ull << (rnd() % s.n);
		for (st = 0; st < ns; st++)
			for (i = 0, e = 0; i < s.n; i++)
				if (mask >> i & 1) {
					memcpy(save[e][st], chunk(&s, st, i), len);
					fill(chunk(&s, st, i), len);
					e++;
				}
		job_of(&j, &s, RAIDKM_OP_DECODE, mask);
		r = run_jobs(&j, 1);
		bad = 0;
		for (st = 0; st < ns; st++)
			for (i = 0, e = 0; i < s.n; i++)
				if (mask >> i & 1) {
					if (memcmp(save[e][st], chunk(&s, st, i), len))
						bad++;
					memcpy(chunk(&s, st, i), save[e][st], len);
					e++;
				}
		snprintf(det, sizeof(det), "decode 0x%llx: run %d status %d, %d chunks wrong",
			 (unsigned long long)mask, r, recs[0].status, bad);
		report(!r && !recs[0].status && !bad, what, det);
	}

	test_want(&s);

	/* delta: old copies after the chunk offsets */
	mask = 1 + rnd() % ((1ull << k) - 1);
	for (st = 0; st < ns; st++)
		for (i = 0; i < k; i++) {
			uint64_t *o = &s.offs[ns * s.n + st * k + i];

			if (mask >> i & 1) {
				memcpy(arena + *o, chunk(&s, st, i), len);
				fill(chunk(&s, st, i), len);
			}
		}
	/* unchanged data chunks: RAIDKM_OFF_NONE, as the kernel may send */
	{
		static uint64_t sparse[RAIDKM_MAX_STRIPES * RKM_MAX_N * 2];

		memcpy(sparse, s.offs, sizeof(uint64_t) * ns * (s.n + k));
		for (st = 0; st < ns; st++)
			for (i = 0; i < k; i++)
				if (!(mask >> i & 1)) {
					sparse[st * s.n + i] = RAIDKM_OFF_NONE;
					sparse[ns * s.n + st * k + i] = RAIDKM_OFF_NONE;
				}
		job_of(&j, &s, RAIDKM_OP_DELTA, mask);
		j.offs = sparse;
		r = run_jobs(&j, 1);
	}
	bad = r ? -1 : parity_bad(&s);
	snprintf(det, sizeof(det), "delta 0x%llx: run %d status %d, %d parity chunks wrong",
		 (unsigned long long)mask, r, recs[0].status, bad);
	report(!r && !recs[0].status && !bad, what, det);

	/* check: clean, then one flipped byte in every other stripe */
	job_of(&j, &s, RAIDKM_OP_CHECK, 0);
	r = run_jobs(&j, 1);
	{
		uint64_t want = 0, got0 = recs[0].bitmap;
		int st0 = recs[0].status;

		for (st = 0; st < ns; st += 2) {
			chunk(&s, st, rnd() % s.n)[rnd() % len] ^= 0x40;
			want |= 1ull << st;
		}
		r |= run_jobs(&j, 1);
		snprintf(det, sizeof(det), "check: clean bitmap 0x%llx, corrupted 0x%llx (want 0x%llx), status %d/%d",
			 (unsigned long long)got0,
			 (unsigned long long)recs[0].bitmap,
			 (unsigned long long)want, st0, recs[0].status);
		report(!r && !st0 && !recs[0].status && !got0 &&
		       recs[0].bitmap == want, what, det);
	}
	rkm_code_destroy(s.code);
}

/* What raidkm.ko does with a job the daemon failed: code it on the CPU */
static void cpu_encode(const struct stripes *s)
{
	uint8_t *d[RKM_MAX_N];
	uint32_t st;
	int i;

	for (st = 0; st < s->ns; st++) {
		for (i = 0; i < s->n; i++)
			d[i] = chunk(s, st, i);
		rkm_encode(s->code, s->len, (const uint8_t *const *)d,
			   d + s->k);
	}
}

/*
 * Many jobs in flight through the ring at once; failback: jobs that come
 * back failed are coded on the CPU (the kernel's fallback) and counted.
 * Returns how many came back failed.
 */
static int test_many(int failback)
{
	static struct stripes s[128];
	static struct rkm_loop_job j[128];
	int i, r, bad = 0, failed = 0;
	char det[96];

	arena_used = 0;
	for (i = 0; i < 128; i++) {
		s[i].k = 8;
		s[i].m = 3;
		s[i].n = 11;
		s[i].len = 16384;
		s[i].ns = 1 + i % 4;
		s[i].code = rkm_code_create(8, 3);
		if (alloc_offs(s[i].offs, s[i].ns * 11, 16384)) {
			report(0, "ring: 128 jobs in flight", "setup");
			return 0;
		}
		for (uint32_t st = 0; st < s[i].ns; st++)
			for (int c = 0; c < 11; c++)
				fill(chunk(&s[i], st, c), 16384);
		job_of(&j[i], &s[i], RAIDKM_OP_ENCODE, 0);
	}
	r = run_jobs(j, 128);
	for (i = 0; i < 128; i++) {
		if (recs[i].status && failback) {
			cpu_encode(&s[i]);
			failed++;
		} else if (recs[i].status) {
			bad++;
		}
		bad += parity_bad(&s[i]) != 0;
		rkm_code_destroy(s[i].code);
	}
	snprintf(det, sizeof(det), "run %d, %d jobs wrong, %d failed back (coded on the CPU)",
		 r, bad, failed);
	report(!r && !bad, "ring: 128 encode jobs in flight", det);
	return failed;
}

/*
 * The status file after instance 1's fault, read by raidkmctl's own
 * parser (tools/ctl/ctl_gpus.c): written by this process, instance 1's
 * worker down once with `why` in its last reason and jobs re-run
 * elsewhere (hung == 0) or failed back (hung), no other worker down.
 */
static void check_status_file(const char *path, const char *why, int hung,
			      struct rkmctl_gpus *g)
{
	char det[640] = "";
	int i, ok;

	rkmctl_gpus_load(path, g);
	ok = g->state == RKMCTL_GPUS_OK && g->pid == (int)getpid() &&
	     g->n >= 2;
	for (i = 0; ok && i < g->n; i++) {
		const struct rkmctl_gpu *u = &g->gpu[i];
		size_t o = strlen(det);

		snprintf(det + o, sizeof(det) - o,
			 "[gpu %d %s, worker %s, %llu faults, %llu restarts: %llu jobs, %llu re-run, %llu failed back%s%s] ",
			 i, u->dropped ? "dropped" : "serving", u->wstate,
			 (unsigned long long)u->faults,
			 (unsigned long long)u->restarts,
			 (unsigned long long)u->jobs,
			 (unsigned long long)u->reruns,
			 (unsigned long long)u->failed_back,
			 u->faults ? ", " : "", u->last_why);
		if (!u->worker)
			ok = 0;
		else if (i != 1)
			ok = !u->faults;
		else
			ok = u->faults == 1 && strstr(u->last_why, why) &&
			     (hung ? u->failed_back >= 1 : u->reruns >= 1);
	}
	if (g->state != RKMCTL_GPUS_OK)
		snprintf(det, sizeof(det), "state %d: %s", g->state, g->why);
	report(ok, hung ?
	       "status file: instance 1's worker down as hung, its jobs failed back, no other down" :
	       "status file: instance 1's worker down, its jobs re-run, no other down",
	       det);
}

/* Wait up to 60 s for instance 1's worker to serve again after a restart */
static int wait_rejoined(const char *path, struct rkmctl_gpus *g)
{
	int i;

	for (i = 0; i < 600; i++) {
		rkmctl_gpus_load(path, g);
		if (g->state == RKMCTL_GPUS_OK && g->n >= 2 &&
		    g->gpu[1].worker && !strcmp(g->gpu[1].wstate, "up") &&
		    g->gpu[1].restarts >= 1)
			return 1;
		usleep(100000);
	}
	return 0;
}

/*
 * Instance 1 fails (or hangs) at its 3rd job; its worker restarts and
 * rejoins: the next jobs are all right and instance 1 codes some.
 */
static int drop_test(const char *state, int hung)
{
	static struct rkmctl_gpus g, g2;
	int failed = test_many(hung), back;
	char det[128];

	if (hung) {
		snprintf(det, sizeof(det), "%d jobs", failed);
		report(failed >= 1, "the hung batch's jobs came back failed",
		       det);
	}
	check_status_file(state, hung ? "hung" : "", hung, &g);
	back = wait_rejoined(state, &g);
	snprintf(det, sizeof(det), "worker pid %d, %llu restarts",
		 g.gpu[1].pid, (unsigned long long)g.gpu[1].restarts);
	report(back, "instance 1's worker restarted and serving again", det);
	test_many(0);
	test_many(0);
	sleep(2);	/* the status file's counters: written once a second */
	test_many(0);
	rkmctl_gpus_load(state, &g2);
	snprintf(det, sizeof(det), "instance 1: %llu jobs after the restart, %llu before",
		 (unsigned long long)g2.gpu[1].jobs,
		 (unsigned long long)g.gpu[1].jobs);
	report(back && g2.state == RKMCTL_GPUS_OK &&
	       g2.gpu[1].jobs > g.gpu[1].jobs,
	       "the restarted worker codes jobs again", det);
	return 0;
}

static int cmp_dbl(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/*
 * One 8+3 stripe of 64 KiB chunks through the ring, one at a time.  Every
 * job is checked: one 16-byte word of each parity chunk (a different one
 * each time) is overwritten before it and must hold the parity after it.
 */
static int latency(int iters)
{
	static struct stripes s;
	static uint8_t want[3][65536];
	uint8_t *d[11], *p[3] = { want[0], want[1], want[2] };
	struct rkm_loop_job j;
	double *lat = malloc(iters * sizeof(double));
	int i, e, r, bad = 0;

	arena_used = 0;
	s.k = 8;
	s.m = 3;
	s.n = 11;
	s.len = 65536;
	s.ns = 1;
	s.code = rkm_code_create(8, 3);
	if (!lat || !s.code || alloc_offs(s.offs, 11, 65536))
		return 1;
	for (i = 0; i < 11; i++) {
		fill(chunk(&s, 0, i), 65536);
		d[i] = chunk(&s, 0, i);
	}
	rkm_encode(s.code, s.len, (const uint8_t *const *)d, p);
	job_of(&j, &s, RAIDKM_OP_ENCODE, 0);
	for (i = -50; i < iters; i++) {
		const uint32_t off = (uint32_t)(i + 50) * 4112u % 65536 & ~15u;
		double t0;

		for (e = 0; e < 3; e++)
			for (r = 0; r < 16; r++)
				d[8 + e][off + r] = ~want[e][off + r];
		t0 = now();
		recs[0].got = 0;
		j.cookie = 0;
		r = rkm_loop_submit(loop, &j);
		if (r)
			return 1;
		rkm_loop_kick(loop);
		while (!recs[0].got) {
			r = rkm_loop_reap(loop, on_done, NULL);
			if (r < 0)
				return 1;
		}
		if (i >= 0)
			lat[i] = now() - t0;
		for (e = 0; e < 3; e++)
			if (memcmp(d[8 + e] + off, want[e] + off, 16))
				bad++;
		if (recs[0].status)
			bad++;
	}
	bad += parity_bad(&s);
	qsort(lat, iters, sizeof(double), cmp_dbl);
	printf("latency 8+3 64K via ring + daemon  p50 %6.1f us  p99 %6.1f us  min %6.1f us  (target p50 <= 25, p99 <= 40)\n",
	       lat[iters / 2] * 1e6, lat[iters * 99 / 100] * 1e6, lat[0] * 1e6);
	printf("latency jobs checked: %d, %d wrong\n", iters + 50, bad);
	free(lat);
	rkm_code_destroy(s.code);
	return bad ? 1 : 0;
}

int main(int argc, char **argv)
{
	struct rkm_loop_params p;
	struct rkm_loop_daemon d;
	char why[256], state[] = "/tmp/gpu_loop_state.XXXXXX";
	int lat_iters = 0, drop = 0, r;
	static const char *const inject[] = {
		NULL, "RKMD_GPUS_FAIL", "RKMD_GPUS_TRAP", "RKMD_GPUS_HANG"
	};

	if (argc > 2 && !strcmp(argv[1], "--latency"))
		lat_iters = atoi(argv[2]);
	if (argc > 1 && !strncmp(argv[1], "--drop", 6))
		drop = strcmp(argv[1], "--drop=trap") ? 1 : 2;
	if (argc > 1 && !strcmp(argv[1], "--hang"))
		drop = 3;
	setvbuf(stdout, NULL, _IOLBF, 0);
	/* no kernel deadline here: a stalled worker is the hang timeout's */
	setenv("RKMD_GPUS_STALL_MS", "0", 0);
	if (drop) {
		r = mkstemp(state);
		if (r < 0 || rkmd_gpus_configure(NULL, state, why, sizeof(why))) {
			report(0, "status file", state);
			return 1;
		}
		close(r);
		setenv(inject[drop], "1:3", 1);
	}
	if (rkmd_gpus_backend.probe(why, sizeof(why))) {
		report(0, "cuda backend probe", why);
		return 1;
	}
	rkm_loop_default_params(&p);
	p.entries = 256;
	p.desc_slot_size = 16384;
	p.arena_size = 512ull << 20;
	loop = rkm_loop_create(&p, why, sizeof(why));
	if (!loop) {
		report(0, "loopback", why);
		return 1;
	}
	arena = rkm_loop_arena(loop);
	arena_size = rkm_loop_arena_size(loop);
	/* the core's info lines would interleave with PASS/FAIL lines */
	if (!lat_iters)
		rkmd_log_open(RKMD_LOG_QUIET, 0);
	r = rkm_loop_daemon_start(&d, loop, &rkmd_gpus_backend, -1);
	if (r) {
		report(0, "daemon start with --backend=cuda", NULL);
		return 1;
	}
	if (lat_iters) {
		r = latency(lat_iters);
		rkm_loop_daemon_stop(&d, on_done, NULL);
		rkm_loop_destroy(loop);
		return r;
	}
	report(!strcmp(rkm_loop_backend(loop), "cuda"),
	       "daemon attached with the cuda backend", rkm_loop_backend(loop));
	if (drop) {
		drop_test(state, drop == 3);
		r = rkm_loop_daemon_stop(&d, on_done, NULL);
		report(r == 0, "daemon detached cleanly", NULL);
		rkm_loop_destroy(loop);
		unlink(state);
		printf("# %d passed, %d failed\n", npass, nfail);
		return nfail ? 1 : 0;
	}

	test_geometry(4, 1, 4096, 8);
	test_geometry(8, 2, 65536, 16);
	test_geometry(8, 3, 65536, 8);
	test_geometry(10, 4, 16384, 4);
	test_geometry(5, 5, 4096, 3);
	test_geometry(12, 6, 8192, 2);
	test_geometry(9, 7, 4096, 2);
	test_geometry(16, 8, 65536, 2);
	test_geometry(13, 9, 4096, 1);
	test_geometry(20, 10, 4096, 2);
	test_geometry(11, 11, 8192, 1);
	test_geometry(24, 12, 4096, 1);
	test_geometry(15, 13, 4096, 2);
	test_geometry(28, 14, 4096, 1);
	test_geometry(17, 15, 4096, 1);
	test_geometry(32, 16, 65536, 2);
	test_many(0);

	r = rkm_loop_daemon_stop(&d, on_done, NULL);
	report(r == 0, "daemon detached cleanly", NULL);
	rkm_loop_destroy(loop);
	printf("# %d passed, %d failed\n", npass, nfail);
	return nfail ? 1 : 0;
}
