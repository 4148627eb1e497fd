// SPDX-License-Identifier: GPL-2.0
/*
 * covers: raidkmd: serving; raidkmd: fault injection; offload: ring protocol
 *
 * raidkmd end to end over the loopback: the daemon core with the CPU
 * backend serves encode, decode, delta and check jobs through the real
 * rings, and every result is compared with the codec called directly.
 * Then malformed submissions, fault injection (corrupt), and the real
 * raidkmd binary: SIGTERM drains cleanly, exit-after leaves jobs for the
 * kernel end to re-run.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "codec/rkm_codec.h"
#include "ring/rkm_ring.h"
#include "loopback/rkm_loop_daemon.h"
#include "rkmd_log.h"
#include "unit_check.h"


static uint64_t rng = 0x1234567887654321ull;

static uint64_t rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static void fill(uint8_t *p, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		p[i] = rnd();
}

/* ---- completions ------------------------------------------------------ */

#define MAXJOBS 256
static int job_status[MAXJOBS];
static uint64_t job_bitmap[MAXJOBS];
static int job_done[MAXJOBS];
static int ndone, nerr;

static void on_done(void *arg, uint64_t cookie, int status, uint64_t bm)
{
	if (cookie < MAXJOBS) {
		job_status[cookie] = status;
		job_bitmap[cookie] = bm;
		job_done[cookie]++;
	}
	ndone++;
	if (status)
		nerr++;
}

static void reset_done(void)
{
	memset(job_done, 0, sizeof(job_done));
	memset(job_status, 0, sizeof(job_status));
	memset(job_bitmap, 0, sizeof(job_bitmap));
	ndone = nerr = 0;
}

/* Wait until @n completions arrived (or 10 s) */
static int wait_done(struct rkm_loop *l, int n)
{
	time_t t0 = time(NULL);

	while (ndone < n && time(NULL) - t0 < 10) {
		if (rkm_loop_reap(l, on_done, NULL) == 0 &&
		    rkm_loop_wait(l, 20) == -ENOTCONN)
			break;
	}
	return ndone >= n;
}

/* ---- a stripe set in the arena ---------------------------------------- */

struct set {
	int k, m, len, nstripes;
	uint64_t off[RAIDKM_MAX_STRIPES][RKM_MAX_N];
	uint64_t old[RAIDKM_MAX_STRIPES][RKM_MAX_N];
};

static uint64_t bump;

static uint64_t alloc_chunk(struct rkm_loop *l, int len)
{
	uint64_t o = bump;

	bump += (len + 4095) & ~4095;
	if (bump > rkm_loop_arena_size(l))
		abort();
	return o;
}

static uint8_t *ptr(struct rkm_loop *l, uint64_t off)
{
	return rkm_loop_arena(l) + off;
}

static void set_init(struct rkm_loop *l, struct set *s, int k, int m,
		     int len, int nstripes)
{
	int st, i;

	s->k = k;
	s->m = m;
	s->len = len;
	s->nstripes = nstripes;
	for (st = 0; st < nstripes; st++)
		for (i = 0; i < k + m; i++) {
			s->off[st][i] = alloc_chunk(l, len);
			fill(ptr(l, s->off[st][i]), len);
			if (i < k) {
				s->old[st][i] = alloc_chunk(l, len);
				fill(ptr(l, s->old[st][i]), len);
			}
		}
}

/* Encode stripe @st in place with the codec (the reference) */
static void ref_encode(struct rkm_loop *l, struct rkm_code *c, struct set *s,
		       int st, uint8_t **out)
{
	uint8_t *ch[RKM_MAX_N];
	int i;

	for (i = 0; i < s->k; i++)
		ch[i] = ptr(l, s->off[st][i]);
	for (i = 0; i < s->m; i++)
		ch[s->k + i] = out ? out[i] : ptr(l, s->off[st][s->k + i]);
	rkm_encode(c, s->len, (const rkm_u8 *const *)ch, ch + s->k);
}

/*
 * The job of set @s, described as raidkm.ko would (rkm_loop_describe:
 * the shared encoding, in place), DECODE wanting @want (0: all of mask).
 */
static void job_from_set_want(struct rkm_loop *l, struct set *s,
			      struct rkm_loop_job *j, uint64_t *offs,
			      uint8_t op, uint64_t mask, uint64_t want)
{
	uint8_t *ch[RKM_MAX_N], *old[RKM_MAX_N];
	int st, i, n = s->k + s->m;

	memset(j, 0, sizeof(*j));
	j->op = op;
	j->k = s->k;
	j->m = s->m;
	j->len = s->len;
	j->nstripes = s->nstripes;
	j->mask = mask;
	j->want = want;
	j->offs = offs;
	for (st = 0; st < s->nstripes; st++) {
		for (i = 0; i < n; i++)
			ch[i] = ptr(l, s->off[st][i]);
		for (i = 0; i < s->k; i++)
			old[i] = ptr(l, s->old[st][i]);
		if (rkm_loop_describe(l, j, ch, old, st, offs))
			abort();
	}
}

static void job_from_set(struct rkm_loop *l, struct set *s,
			 struct rkm_loop_job *j, uint64_t *offs, uint8_t op,
			 uint64_t mask)
{
	job_from_set_want(l, s, j, offs, op, mask, 0);
}

/* Submit set @s's job, cookie @g; rkm_loop_submit's answer. */
static int submit_set(struct rkm_loop *l, struct set *s, uint64_t *offs,
		      uint8_t op, uint64_t mask, int g)
{
	struct rkm_loop_job j;

	job_from_set(l, s, &j, offs, op, mask);
	j.cookie = g;
	return rkm_loop_submit(l, &j);
}

/* 1 if every stripe's parity in @sets[0..nsets) is the codec's encode */
static int parity_matches(struct rkm_loop *l, struct rkm_code **c,
			  struct set *sets, int nsets)
{
	static uint8_t ref[RKM_MAX_M][4096];
	uint8_t *refp[RKM_MAX_M];
	int g, st, i;

	for (i = 0; i < RKM_MAX_M; i++)
		refp[i] = ref[i];
	for (g = 0; g < nsets; g++)
		for (st = 0; st < sets[g].nstripes; st++) {
			ref_encode(l, c[g], &sets[g], st, refp);
			for (i = 0; i < sets[g].m; i++)
				if (memcmp(ref[i], ptr(l, sets[g].off[st][sets[g].k + i]),
					   sets[g].len))
					return 0;
		}
	return 1;
}

static const int geos[][3] = {	/* k, m, len */
	{ 4, 2, 4096 }, { 8, 3, 4096 }, { 10, 4, 1024 }, { 3, 1, 64 },
	{ 16, 8, 512 },
};
#define NGEO (int)(sizeof(geos) / sizeof(geos[0]))

static void run_ops(struct rkm_loop *l, const char *tag)
{
	static struct set sets[NGEO];
	static uint64_t offs[NGEO][2048];
	static uint8_t saved[RAIDKM_MAX_STRIPES][RKM_MAX_N][4096];
	struct rkm_loop_job j;
	struct rkm_code *c[NGEO];
	uint64_t mask, bm;
	char name[128];
	int g, st, i, ok, e, nst = 4, njobs;

	bump = 0;
	for (g = 0; g < NGEO; g++) {
		c[g] = rkm_code_create(geos[g][0], geos[g][1]);
		set_init(l, &sets[g], geos[g][0], geos[g][1], geos[g][2], nst);
	}

	/* ENCODE: all geometries in flight at once */
	snprintf(name, sizeof(name), "daemon/%s encode vs codec", tag);
	begin(name);
	reset_done();
	for (g = 0; g < NGEO; g++)
		CHECK(submit_set(l, &sets[g], offs[g], RAIDKM_OP_ENCODE, 0,
				 g) == 0);
	rkm_loop_kick(l);
	CHECK(wait_done(l, NGEO));
	for (g = 0; g < NGEO; g++)
		CHECK(job_done[g] == 1 && job_status[g] == 0);
	CHECK(parity_matches(l, c, sets, NGEO));
	end();

	/* DECODE: erase 1..m chunks (data and parity), rebuild */
	snprintf(name, sizeof(name), "daemon/%s decode vs codec", tag);
	begin(name);
	reset_done();
	for (g = 0; g < NGEO; g++) {
		struct set *s = &sets[g];
		int n = s->k + s->m, want = 1 + (int)(rnd() % s->m);

		mask = 0;
		while (__builtin_popcountll(mask) < want)
			mask |= 1ull << (rnd() % n);
		for (st = 0; st < nst; st++)
			for (i = 0; i < n; i++) {
				memcpy(saved[st][i], ptr(l, s->off[st][i]), s->len);
				if (mask & (1ull << i))
					memset(ptr(l, s->off[st][i]), 0xee, s->len);
			}
		CHECK(submit_set(l, s, offs[g], RAIDKM_OP_DECODE, mask, g) == 0);
		rkm_loop_kick(l);
		CHECK(wait_done(l, g + 1));
		CHECK(job_status[g] == 0);
		for (st = 0; st < nst; st++)
			for (i = 0; i < n; i++)
				CHECK(!memcmp(saved[st][i], ptr(l, s->off[st][i]),
					      s->len));
	}
	end();

	/* DELTA: change some data chunks, update parity from old ^ new */
	snprintf(name, sizeof(name), "daemon/%s delta vs codec", tag);
	begin(name);
	reset_done();
	for (g = 0; g < NGEO; g++) {
		struct set *s = &sets[g];

		mask = 0;
		while (!mask)
			mask = rnd() & ((1ull << s->k) - 1);
		for (st = 0; st < nst; st++)
			for (i = 0; i < s->k; i++)
				if (mask & (1ull << i)) {
					/* old := current, current := new */
					memcpy(ptr(l, s->old[st][i]),
					       ptr(l, s->off[st][i]), s->len);
					fill(ptr(l, s->off[st][i]), s->len);
				}
		CHECK(submit_set(l, s, offs[g], RAIDKM_OP_DELTA, mask, g) == 0);
	}
	rkm_loop_kick(l);
	CHECK(wait_done(l, NGEO));
	for (g = 0; g < NGEO; g++)
		CHECK(job_status[g] == 0);
	CHECK(parity_matches(l, c, sets, NGEO));
	end();

	/* CHECK: corrupt a random subset of stripes, expect that bitmap */
	snprintf(name, sizeof(name), "daemon/%s check bitmap vs corruption", tag);
	begin(name);
	reset_done();
	for (g = 0; g < NGEO; g++) {
		struct set *s = &sets[g];

		bm = rnd() & ((1ull << nst) - 1);
		for (st = 0; st < nst; st++)
			if (bm & (1ull << st)) {
				e = rnd() % (s->k + s->m);
				ptr(l, s->off[st][e])[rnd() % s->len] ^= 0x40;
			}
		job_bitmap[g] = ~0ull;
		CHECK(submit_set(l, s, offs[g], RAIDKM_OP_CHECK, 0, g) == 0);
		rkm_loop_kick(l);
		CHECK(wait_done(l, g + 1));
		CHECK(job_status[g] == 0);
		CHECK(job_bitmap[g] == bm);
	}
	end();

	/* many small jobs: the ring wraps several times under the daemon */
	snprintf(name, sizeof(name), "daemon/%s 1000 jobs through the ring", tag);
	begin(name);
	reset_done();
	njobs = 0;
	ok = 1;
	while (njobs < 1000 && ok) {
		sets[3].nstripes = 1;
		job_from_set(l, &sets[3], &j, offs[3], RAIDKM_OP_ENCODE, 0);
		j.cookie = 0;
		while (rkm_loop_submit(l, &j) == 0 && ++njobs < 1000)
			;
		rkm_loop_kick(l);
		ok = wait_done(l, njobs);
	}
	CHECK(ok && ndone == 1000 && nerr == 0);
	sets[3].nstripes = nst;
	end();

	for (g = 0; g < NGEO; g++)
		rkm_code_destroy(c[g]);
}

/* A loopback of 64 slots and a 16 MiB arena, with @stage bytes of staging */
static struct rkm_loop *new_staged_loop(uint64_t stage)
{
	struct rkm_loop_params p;
	char why[256];
	struct rkm_loop *l;

	rkm_loop_default_params(&p);
	p.entries = 64;
	p.arena_size = 16 << 20;
	p.stage_size = stage;
	l = rkm_loop_create(&p, why, sizeof(why));
	if (!l)
		printf("FAIL loopback create: %s\n", why);
	return l;
}

static struct rkm_loop *new_loop(void)
{
	return new_staged_loop(0);
}

static void test_inprocess(int threads, const char *tag)
{
	struct rkm_loop_daemon d;
	struct rkm_loop_stats st;
	struct rkm_loop *l = new_loop();
	char name[128];

	if (!l) {
		failures++;
		return;
	}
	if (rkm_loop_daemon_start(&d, l, &rkmd_cpu_backend, threads)) {
		printf("FAIL daemon/%s start\n", tag);
		failures++;
		return;
	}
	CHECK(!strcmp(rkm_loop_backend(l), "cpu"));
	run_ops(l, tag);

	snprintf(name, sizeof(name), "daemon/%s stop drains and detaches", tag);
	begin(name);
	CHECK(rkm_loop_daemon_stop(&d, on_done, NULL) == 0);
	rkm_loop_get_stats(l, &st);
	CHECK(st.detached && st.inflight == 0 && st.bad == 0 && st.stale == 0);
	CHECK(d.st.rejected == 0);
	end();
	rkm_loop_destroy(l);
}

/*
 * DECODE of a wanted subset over the loopback: a daemon with the feature
 * (the CPU backend) writes only the wanted chunks, the others keep their
 * poison; an old daemon (a backend that does not declare decode_want)
 * does not get the feature, is described every erased chunk and rebuilds
 * them all, the wanted ones right.  Every (mask, want) of a 4+2 set with
 * two erasures, 3 stripes per job.
 */
static void want_round(const struct rkmd_backend_ops *ops, int has_feature,
		       const char *tag)
{
	struct rkm_loop_daemon d;
	struct rkm_loop_job j;
	struct rkm_loop *l = new_loop();
	static struct set s;
	static uint8_t saved[4][RKM_MAX_N][4096];
	uint64_t offs[64], mask, want;
	int st, i, n = 6, g = 0, ok = 1, wrong = 0;
	struct rkm_code *c = rkm_code_create(4, 2);
	char name[128];

	snprintf(name, sizeof(name), "daemon/%s decode of a wanted subset", tag);
	begin(name);
	if (!l || rkm_loop_daemon_start(&d, l, ops, 1)) {
		CHECK(0);
		end();
		return;
	}
	CHECK(!!(rkm_loop_features(l) & RAIDKM_FEAT_DECODE_WANT) ==
	      has_feature);
	bump = 0;
	set_init(l, &s, 4, 2, 4096, 3);
	for (st = 0; st < 3; st++)
		ref_encode(l, c, &s, st, NULL);
	reset_done();
	for (mask = 1; mask < (1ull << n) && g < MAXJOBS; mask++) {
		if (__builtin_popcountll(mask) != 2)
			continue;
		for (want = mask; want; want = (want - 1) & mask, g++) {
			for (st = 0; st < 3; st++)
				for (i = 0; i < n; i++) {
					memcpy(saved[st][i], ptr(l, s.off[st][i]),
					       4096);
					if (mask & (1ull << i))
						memset(ptr(l, s.off[st][i]), 0xee,
						       4096);
				}
			job_from_set_want(l, &s, &j, offs, RAIDKM_OP_DECODE,
					  mask, want);
			j.cookie = g;
			CHECK(rkm_loop_submit(l, &j) == 0);
			rkm_loop_kick(l);
			CHECK(wait_done(l, g + 1) && job_status[g] == 0);
			for (st = 0; st < 3; st++)
				for (i = 0; i < n; i++) {
					uint8_t *p = ptr(l, s.off[st][i]);
					int unwanted = ((mask & ~want) >> i) & 1;

					if (!unwanted)
						ok &= !memcmp(p, saved[st][i], 4096);
					else if (has_feature)
						ok &= p[0] == 0xee && p[4095] == 0xee;
					else
						wrong += !!memcmp(p, saved[st][i], 4096);
					memcpy(p, saved[st][i], 4096);
				}
		}
	}
	CHECK(ok && !wrong);
	CHECK(rkm_loop_daemon_stop(&d, on_done, NULL) == 0);
	CHECK(d.st.rejected == 0);
	rkm_code_destroy(c);
	rkm_loop_destroy(l);
	end();
}

static void test_want(void)
{
	struct rkmd_backend_ops old = rkmd_cpu_backend;

	want_round(&rkmd_cpu_backend, 1, "cpu");
	old.decode_want = 0;	/* a daemon from before the feature */
	want_round(&old, 0, "old-cpu");
}

static void test_malformed(void)
{
	struct rkm_loop_daemon d;
	struct rkm_loop_job j;
	struct rkm_loop *l = new_loop();
	uint64_t offs[6];
	int i;

	begin("daemon/malformed submissions answered EINVAL, no crash");
	if (!l || rkm_loop_daemon_start(&d, l, &rkmd_cpu_backend, 1)) {
		CHECK(0);
		end();
		return;
	}
	reset_done();
	memset(&j, 0, sizeof(j));
	j.op = RAIDKM_OP_ENCODE;
	j.k = 4;
	j.m = 2;
	j.len = 4096;
	j.nstripes = 1;
	j.offs = offs;
	for (i = 0; i < 6; i++)
		offs[i] = i * 4096;
	j.cookie = 0;				/* good */
	CHECK(rkm_loop_submit(l, &j) == 0);
	offs[5] = rkm_loop_arena_size(l);	/* past the arena */
	j.cookie = 1;
	CHECK(rkm_loop_submit(l, &j) == 0);
	offs[5] = 4096 * 5 + 1;			/* misaligned */
	j.cookie = 2;
	CHECK(rkm_loop_submit(l, &j) == 0);
	offs[5] = 5 * 4096;
	j.len = 100;				/* bad length */
	j.cookie = 3;
	CHECK(rkm_loop_submit(l, &j) == 0);
	j.len = 4096;
	j.op = 9;				/* unknown op */
	j.cookie = 4;
	CHECK(rkm_loop_submit(l, &j) == 0);
	j.op = RAIDKM_OP_DECODE;		/* 3 erasures, m = 2 */
	j.mask = 7;
	j.cookie = 5;
	CHECK(rkm_loop_submit(l, &j) == 0);
	rkm_loop_kick(l);
	CHECK(wait_done(l, 6));
	CHECK(job_status[0] == 0);
	for (i = 1; i < 6; i++)
		CHECK(job_done[i] == 1 && job_status[i] == RAIDKM_ST_EINVAL);
	CHECK(rkm_loop_daemon_stop(&d, on_done, NULL) == 0);
	CHECK(d.st.rejected == 5);
	rkm_loop_destroy(l);
	end();
}

static void test_fault_corrupt(void)
{
	struct rkm_loop_daemon d;
	struct rkm_loop_job j;
	struct rkm_loop *l = new_loop();
	struct rkm_code *c = rkm_code_create(4, 2);
	static struct set s;
	uint64_t offs[64];
	uint8_t ref[2][4096], *refp[2] = { ref[0], ref[1] };
	int st, bad = 0, rounds;

	begin("daemon/fault corrupt:2 detected against the codec");
	rkm_loop_daemon_start(&d, l, &rkmd_cpu_backend, 1);
	d.cfg.fault.corrupt_every = 2;	/* read by the core per job */
	bump = 0;
	set_init(l, &s, 4, 2, 4096, 1);
	reset_done();
	for (rounds = 0; rounds < 10; rounds++) {
		job_from_set(l, &s, &j, offs, RAIDKM_OP_ENCODE, 0);
		j.cookie = rounds;
		CHECK(rkm_loop_submit(l, &j) == 0);
		rkm_loop_kick(l);
		CHECK(wait_done(l, rounds + 1));
		for (st = 0; st < 1; st++) {
			ref_encode(l, c, &s, 0, refp);
			if (memcmp(ref[0], ptr(l, s.off[0][4]), 4096))
				bad++;
		}
	}
	CHECK(bad == 5);
	rkm_loop_daemon_stop(&d, on_done, NULL);
	CHECK(d.st.faults == 5);
	rkm_code_destroy(c);
	rkm_loop_destroy(l);
	end();
}

/*
 * RAIDKM_FEAT_RO_INPUT: a kernel end with a staging region.  Outputs go to
 * staging, inputs stay before it (the daemon maps them read-only); an
 * entry that puts an output among the inputs, or an input in staging, is
 * refused with EINVAL and nothing is written.
 */
static void test_staged(void)
{
	struct rkm_loop_daemon d;
	struct rkm_loop_job j;
	struct rkm_loop *l = new_staged_loop(4 << 20);
	struct rkm_code *c = rkm_code_create(8, 3);
	static struct set s;
	uint8_t ref[3][4096], *refp[3] = { ref[0], ref[1], ref[2] };
	uint8_t *ch[RKM_MAX_N], saved[4096];
	uint64_t offs[64], stage, out;
	int st, i, ok = 1;

	begin("daemon/staged outputs: encode and decode into staging, misplaced chunks refused");
	if (!l || rkm_loop_daemon_start(&d, l, &rkmd_cpu_backend, 1)) {
		CHECK(0);
		end();
		return;
	}
	stage = rkm_loop_stage_start(l);
	CHECK(stage > 0);
	/* data in the input part, parity in staging */
	bump = 0;
	set_init(l, &s, 8, 3, 4096, 4);
	out = stage;
	for (st = 0; st < 4; st++)
		for (i = 8; i < 11; i++) {
			s.off[st][i] = out;
			out += 4096;
		}
	reset_done();
	CHECK(submit_set(l, &s, offs, RAIDKM_OP_ENCODE, 0, 0) == 0);
	rkm_loop_kick(l);
	CHECK(wait_done(l, 1) && job_status[0] == 0);
	for (st = 0; st < 4; st++) {
		ref_encode(l, c, &s, st, refp);
		for (i = 0; i < 3; i++)
			ok &= !memcmp(ref[i], ptr(l, s.off[st][8 + i]), 4096);
	}
	CHECK(ok);

	/* decode data chunk 2 and parity 0 from survivors before staging */
	for (st = 0; st < 4; st++)
		for (i = 8; i < 11; i++) {
			uint64_t o = alloc_chunk(l, 4096);

			memcpy(ptr(l, o), ptr(l, s.off[st][i]), 4096);
			s.off[st][i] = o;
		}
	memcpy(saved, ptr(l, s.off[1][2]), 4096);
	for (st = 0; st < 4; st++) {
		s.off[st][2] = out;
		s.off[st][8] = out + 4096;
		out += 8192;
	}
	CHECK(submit_set(l, &s, offs, RAIDKM_OP_DECODE,
			 (1ull << 2) | (1ull << 8), 1) == 0);
	rkm_loop_kick(l);
	CHECK(wait_done(l, 2) && job_status[1] == 0);
	CHECK(!memcmp(saved, ptr(l, s.off[1][2]), 4096));
	for (i = 0; i < 11; i++)
		ch[i] = ptr(l, s.off[1][i]);
	ref_encode(l, c, &s, 1, refp);
	CHECK(!memcmp(ref[0], ch[8], 4096));

	/* misplaced: an output among the inputs, an input in staging */
	s.off[0][8] = s.off[0][9] = s.off[0][10] = 0;
	s.off[0][9] = alloc_chunk(l, 4096);
	job_from_set(l, &s, &j, offs, RAIDKM_OP_ENCODE, 0);
	j.nstripes = 1;
	j.cookie = 2;
	CHECK(rkm_loop_submit(l, &j) == 0);
	s.off[0][9] = out;
	s.off[0][0] = out + 4096;
	job_from_set(l, &s, &j, offs, RAIDKM_OP_ENCODE, 0);
	j.nstripes = 1;
	j.cookie = 3;
	CHECK(rkm_loop_submit(l, &j) == 0);
	rkm_loop_kick(l);
	CHECK(wait_done(l, 4));
	CHECK(job_status[2] == RAIDKM_ST_EINVAL && job_status[3] == RAIDKM_ST_EINVAL);
	CHECK(rkm_loop_daemon_stop(&d, on_done, NULL) == 0);
	CHECK(d.st.rejected == 2);
	rkm_code_destroy(c);
	rkm_loop_destroy(l);
	end();
}

static void test_fault_skip(void)
{
	struct rkm_loop_daemon d;
	struct rkm_loop_job j;
	struct rkm_loop *l = new_loop();
	struct rkm_code *c = rkm_code_create(4, 2);
	static struct set s;
	uint64_t offs[64];
	uint8_t ref[2][4096], *refp[2] = { ref[0], ref[1] };
	int bad = 0, rounds;

	begin("daemon/fault skip:3 answers OK with the parity left alone");
	rkm_loop_daemon_start(&d, l, &rkmd_cpu_backend, 1);
	d.cfg.fault.skip_every = 3;	/* read by the core per job */
	bump = 0;
	set_init(l, &s, 4, 2, 4096, 1);
	reset_done();
	for (rounds = 0; rounds < 9; rounds++) {
		memset(ptr(l, s.off[0][4]), 0xee, 4096);
		job_from_set(l, &s, &j, offs, RAIDKM_OP_ENCODE, 0);
		j.cookie = rounds;
		CHECK(rkm_loop_submit(l, &j) == 0);
		rkm_loop_kick(l);
		CHECK(wait_done(l, rounds + 1));
		CHECK(job_status[rounds] == 0);
		ref_encode(l, c, &s, 0, refp);
		if (memcmp(ref[0], ptr(l, s.off[0][4]), 4096))
			bad++;
	}
	CHECK(bad == 3);
	rkm_loop_daemon_stop(&d, on_done, NULL);
	CHECK(d.st.faults == 3);
	rkm_code_destroy(c);
	rkm_loop_destroy(l);
	end();
}

static void test_corrupt_tail(void)
{
	struct rkm_loop_daemon d;
	struct raidkm_shm_hdr *h;
	struct rkm_loop *l = new_loop();
	time_t t0;

	begin("daemon/impossible submission tail: protocol error, clean exit");
	if (!l || rkm_loop_daemon_start(&d, l, &rkmd_cpu_backend, 1)) {
		CHECK(0);
		end();
		return;
	}
	h = rkm_loop_map(l);
	/* a "kernel" whose tail runs more than a ring ahead of the head */
	__atomic_store_n(&h->sq_ctl.tail, h->sq_ctl.head + 5000,
			 __ATOMIC_RELEASE);
	t0 = time(NULL);
	while (!__atomic_load_n(&d.finished, __ATOMIC_ACQUIRE) &&
	       time(NULL) - t0 < 10)
		rkm_loop_wait(l, 20);
	CHECK(__atomic_load_n(&d.finished, __ATOMIC_ACQUIRE));
	pthread_join(d.th, NULL);
	CHECK(d.ret == -EPROTO);
	CHECK(d.st.jobs == 0);		/* nothing was taken from garbage */
	rkm_loop_destroy(l);
	end();
}

/* ---- the raidkmd binary as a child process ------------------------------ */

static char daemon_path[PATH_MAX];

static pid_t spawn(struct rkm_loop *l, const char *fault, int threads)
{
	char fdarg[32], tharg[32];
	int fd = rkm_loop_daemon_fd(l);
	pid_t pid;

	pid = fork();
	if (pid == 0) {
		int nfd = dup(fd);	/* without CLOEXEC */

		snprintf(fdarg, sizeof(fdarg), "--loopback=fd:%d", nfd);
		snprintf(tharg, sizeof(tharg), "--threads=%d", threads);
		execl(daemon_path, "raidkmd", "--foreground", "--backend=cpu",
		      tharg, fdarg, fault, (char *)NULL);
		_exit(127);
	}
	rkm_loop_release_daemon_fd(l);
	return pid;
}

static int submit_n(struct rkm_loop *l, struct set *s, uint64_t *offs, int n)
{
	struct rkm_loop_job j;
	int i;

	for (i = 0; i < n; i++) {
		job_from_set(l, s, &j, offs, RAIDKM_OP_ENCODE, 0);
		j.cookie = i;
		if (rkm_loop_submit(l, &j))
			break;
	}
	rkm_loop_kick(l);
	return i;
}

static void test_binary_sigterm(void)
{
	struct rkm_loop *l = new_loop();
	struct rkm_loop_stats st;
	static struct set s;
	uint64_t offs[64];
	int status = -1, n;
	time_t t0;
	pid_t pid;

	begin("raidkmd binary/SIGTERM drains in-flight jobs and detaches");
	pid = spawn(l, "--fault=delay:20000", 1);
	CHECK(rkm_loop_wait_attach(l, 10000) == 0);
	bump = 0;
	set_init(l, &s, 8, 3, 4096, 4);
	reset_done();
	n = submit_n(l, &s, offs, 32);
	CHECK(n == 32);
	/* let it take the jobs, then stop it while completions are delayed */
	usleep(50000);
	kill(pid, SIGTERM);
	t0 = time(NULL);
	while (!rkm_loop_wait(l, 20) && time(NULL) - t0 < 20)
		rkm_loop_reap(l, on_done, NULL);
	rkm_loop_reap(l, on_done, NULL);
	waitpid(pid, &status, 0);
	rkm_loop_get_stats(l, &st);
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	CHECK(st.detached);
	CHECK(ndone == 32 && nerr == 0 && st.inflight == 0);
	rkm_loop_destroy(l);
	end();
}

static void test_binary_exit_after(void)
{
	struct rkm_loop *l = new_loop();
	struct rkm_loop_stats st;
	static struct set s;
	uint64_t offs[64];
	int status = -1, n, lost;
	time_t t0;
	pid_t pid;

	begin("raidkmd binary/exit-after: jobs left in flight are re-run");
	pid = spawn(l, "--fault=exit-after:5", 1);
	CHECK(rkm_loop_wait_attach(l, 10000) == 0);
	bump = 0;
	set_init(l, &s, 4, 2, 4096, 1);
	reset_done();
	n = submit_n(l, &s, offs, 20);
	t0 = time(NULL);
	while (!rkm_loop_wait(l, 20) && time(NULL) - t0 < 20)
		rkm_loop_reap(l, on_done, NULL);
	rkm_loop_reap(l, on_done, NULL);
	waitpid(pid, &status, 0);
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 3);
	lost = rkm_loop_abandon(l, on_done, NULL);
	rkm_loop_get_stats(l, &st);
	CHECK(st.gone && !st.detached);
	CHECK(lost >= 1 && st.completed <= 4);
	CHECK(ndone == n && (int)(st.completed + st.abandoned) == n);
	rkm_loop_destroy(l);
	end();
}

static void test_binary_usage(void)
{
	char cmd[PATH_MAX + 64];

	begin("raidkmd binary/usage errors");
	snprintf(cmd, sizeof(cmd), "%s --backend=noop -f 2>/dev/null", daemon_path);
	CHECK(WEXITSTATUS(system(cmd)) == 1);
	snprintf(cmd, sizeof(cmd), "%s --fault=bogus:1 -f 2>/dev/null", daemon_path);
	CHECK(WEXITSTATUS(system(cmd)) == 2);
	snprintf(cmd, sizeof(cmd), "%s --help >/dev/null", daemon_path);
	CHECK(WEXITSTATUS(system(cmd)) == 0);
	snprintf(cmd, sizeof(cmd), "%s -f --device=/nonexistent/raidkm 2>/dev/null",
		 daemon_path);
	CHECK(WEXITSTATUS(system(cmd)) == 1);
	end();
}

int main(int argc, char **argv)
{
	char self[PATH_MAX - 32];
	ssize_t n;
	char *slash;

	signal(SIGPIPE, SIG_IGN);
	rkmd_log_open(RKMD_LOG_QUIET, 0);
	if (rkm_codec_init()) {
		printf("FAIL codec init\n");
		return 1;
	}
	test_inprocess(2, "cpu 2 threads");
	test_inprocess(0, "cpu inline");
	test_malformed();
	test_fault_corrupt();
	test_fault_skip();
	test_corrupt_tail();
	test_staged();
	test_want();

	/* the binary sits in build/bin, this test in build/tests */
	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n > 0) {
		self[n] = 0;
		slash = strrchr(self, '/');
		if (slash)
			*slash = 0;
		snprintf(daemon_path, sizeof(daemon_path), "%s/../bin/raidkmd",
			 self);
	}
	if (argc > 1)
		snprintf(daemon_path, sizeof(daemon_path), "%s", argv[1]);
	if (access(daemon_path, X_OK)) {
		printf("FAIL raidkmd binary: %s not found\n", daemon_path);
		return 1;
	}
	test_binary_usage();
	test_binary_sigterm();
	test_binary_exit_after();
	return failures ? 1 : 0;
}
