// SPDX-License-Identifier: GPL-2.0
/*
 * The stream's job classes and one job of them, as raidkm.ko would code
 * it: each stripe is one kernel job, placed on its own (the decision of
 * place_feed.c); the ones placed on the daemon go on the ring as one
 * entry, outputs described in staging and copied home at completion; the
 * others are coded on this thread by the CPU codec while the daemon
 * works; the caller waits for both.  An entry that comes back failed is
 * coded on the CPU, as the kernel re-runs it.
 *
 * Every lane (submitter thread) has its own stripes of every class, made
 * at start: random data, parity by the CPU codec, and what each job must
 * produce (the CPU codec's answer) kept aside.  Before a job, a 64-byte
 * window of each output, at home and in staging, is overwritten; after
 * it, the window must hold the expected bytes, and every check_every-th
 * job of a lane all its outputs must (a delta's parity always: it is its
 * own input).  A wrong output is counted, told once in a while, and put
 * right so that the next job starts from a codeword.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/place_bench.h"

#define KIB	1024u
#define MIB	(1024u * KIB)
#define PB_WIN	64u
#define PB_ALIGN	4096u

const struct pb_class pb_classes[PB_NCLASSES] = {
	/* a 4 KiB write: its parity updated, the writer waits */
	{ "delta 8+2 4K", RAIDKM_OP_DELTA, 8, 2, 4 * KIB, 1, 1u << 0, 0,
	  1, 44 },
	/* full-stripe writes of 64 KiB chunks */
	{ "encode 8+2 64K", RAIDKM_OP_ENCODE, 8, 2, 64 * KIB, 1, 0, 0, 1, 8 },
	{ "encode 16+4 64K", RAIDKM_OP_ENCODE, 16, 4, 64 * KIB, 1, 0, 0, 1,
	  6 },
	/* a degraded read of a 1 MiB chunk, three members out */
	{ "decode 8+3 1M", RAIDKM_OP_DECODE, 8, 3, MIB, 1,
	  (1u << 1) | (1u << 5) | (1u << 8), 1u << 1, 1, 2 },
	/* a rebuild window: 4 stripes of 256 KiB onto one new member */
	{ "rebuild 8+3 256Kx4", RAIDKM_OP_DECODE, 8, 3, 256 * KIB, 4,
	  1u << 3, 1u << 3, 0, 4 },
};

/* One class's stripes in one lane */
struct pb_set {
	const struct pb_class *c;
	struct rkm_code *code;
	uint8_t *home;		/* nstripes stripes of k + m chunks */
	uint8_t *alt;		/* DELTA: the changed chunk's other version */
	uint8_t *want;		/* the expected outputs (see pb_set_fill) */
	int state;		/* DELTA: the version the parity is of */
	int n;			/* k + m */
	int nout;		/* outputs per stripe */
};

struct pb_lane {
	struct pb_ring *ring;
	struct pb_feed *feed;
	struct pb_set set[PB_NCLASSES];
	struct pb_lat lat[PB_NCLASSES];
	uint8_t *stage;
	uint64_t seed;
	uint32_t turn;
	int check_every;
	int index;
	uint64_t wrong, checked;
};

/* One stripe coded on the CPU (pb_feed_run_cpu's callee) */
struct pb_cpu {
	struct pb_set *s;
	uint32_t st;
};

static uint64_t pb_rnd(uint64_t *seed)
{
	uint64_t x = *seed;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	*seed = x;
	return x * 2685821657736338717ull;
}

static void pb_fill(uint64_t *seed, uint8_t *p, size_t n)
{
	size_t i;

	for (i = 0; i < n; i += 8) {
		uint64_t r = pb_rnd(seed);

		memcpy(p + i, &r, 8);
	}
}

static uint64_t pb_align(uint64_t v)
{
	return (v + PB_ALIGN - 1) / PB_ALIGN * PB_ALIGN;
}

static int pb_nout(const struct pb_class *c)
{
	if (c->op == RAIDKM_OP_DECODE)
		return __builtin_popcountll(c->want);
	return c->m;
}

/* The changed chunk of a DELTA class (its one mask bit) */
static int pb_delta_chunk(const struct pb_class *c)
{
	return __builtin_ctzll(c->mask);
}

static uint64_t pb_set_home_bytes(const struct pb_class *c)
{
	uint64_t b = (uint64_t)c->nstripes * (c->k + c->m) * c->len;

	if (c->op == RAIDKM_OP_DELTA)
		b += c->len;
	return pb_align(b);
}

uint64_t pb_lane_home_bytes(void)
{
	uint64_t b = 0;
	int i;

	for (i = 0; i < PB_NCLASSES; i++)
		b += pb_set_home_bytes(&pb_classes[i]);
	return b;
}

uint64_t pb_lane_stage_bytes(void)
{
	uint64_t b, max = 0;
	int i;

	for (i = 0; i < PB_NCLASSES; i++) {
		b = (uint64_t)pb_classes[i].nstripes * pb_nout(&pb_classes[i]) *
		    pb_classes[i].len;
		if (b > max)
			max = b;
	}
	return pb_align(max);
}

static uint8_t *pb_chunk(const struct pb_set *s, uint32_t st, int i)
{
	return s->home + ((uint64_t)st * s->n + i) * s->c->len;
}

/* Output @o of stripe @st at home (its chunk index in @idx) */
static uint8_t *pb_out(const struct pb_set *s, uint32_t st, int o, int *idx)
{
	uint64_t w = s->c->op == RAIDKM_OP_DECODE ? s->c->want : 0;
	int i = s->c->k + o;

	if (w) {
		while (o--)
			w &= w - 1;
		i = __builtin_ctzll(w);
	}
	if (idx)
		*idx = i;
	return pb_chunk(s, st, i);
}

/* The expected bytes of output @o of stripe @st (DELTA: of the state) */
static uint8_t *pb_expect(const struct pb_set *s, uint32_t st, int o)
{
	uint64_t i = ((uint64_t)s->state * s->c->nstripes + st) * s->nout + o;

	return s->want + i * s->c->len;
}

/* Stripe @st's chunk pointers; DELTA: new data and old data of state */
static void pb_ptrs(const struct pb_set *s, uint32_t st, uint8_t **chunk,
		    uint8_t **old)
{
	const struct pb_class *c = s->c;
	int i, d;

	for (i = 0; i < s->n; i++)
		chunk[i] = pb_chunk(s, st, i);
	if (c->op == RAIDKM_OP_DECODE)
		for (i = 0; i < s->n; i++)
			if ((c->mask & ~c->want) >> i & 1)
				chunk[i] = NULL;
	if (c->op != RAIDKM_OP_DELTA)
		return;
	d = pb_delta_chunk(c);
	memset(old, 0, sizeof(*old) * c->k);
	old[d] = s->state ? s->alt : pb_chunk(s, st, d);
	chunk[d] = s->state ? pb_chunk(s, st, d) : s->alt;
}

static int pb_code(const struct pb_set *s, uint8_t **chunk, uint8_t **old)
{
	const struct pb_class *c = s->c;

	switch (c->op) {
	case RAIDKM_OP_ENCODE:
		return rkm_encode(s->code, c->len,
				  (const uint8_t *const *)chunk, chunk + c->k);
	case RAIDKM_OP_DECODE:
		return rkm_decode_want(s->code, c->len, c->mask, c->want,
				       chunk);
	case RAIDKM_OP_DELTA:
		return rkm_delta(s->code, c->len, c->mask,
				 (const uint8_t *const *)old,
				 (const uint8_t *const *)chunk, chunk + c->k);
	}
	return -RKM_EINVAL;
}

static void pb_cpu_stripe(void *arg)
{
	struct pb_cpu *a = arg;
	uint8_t *chunk[RKM_MAX_N], *old[RKM_MAX_K];

	pb_ptrs(a->s, a->st, chunk, old);
	pb_code(a->s, chunk, old);
}

/* Random stripes, their parity, and what every job must produce */
static int pb_set_fill(struct pb_set *s, uint64_t *seed)
{
	const struct pb_class *c = s->c;
	uint8_t *chunk[RKM_MAX_N];
	uint32_t st;
	int o, v, d = pb_delta_chunk(c);

	for (st = 0; st < c->nstripes; st++) {
		pb_fill(seed, pb_chunk(s, st, 0), (uint64_t)c->k * c->len);
		if (c->op == RAIDKM_OP_DELTA)
			pb_fill(seed, s->alt, c->len);
		for (v = 0; v < (c->op == RAIDKM_OP_DELTA ? 2 : 1); v++) {
			for (o = 0; o < s->n; o++)
				chunk[o] = pb_chunk(s, st, o);
			if (v)
				chunk[d] = s->alt;
			if (rkm_encode(s->code, c->len,
				       (const uint8_t *const *)chunk,
				       chunk + c->k))
				return -1;
			s->state = v;
			for (o = 0; o < s->nout; o++)
				memcpy(pb_expect(s, st, o),
				       pb_out(s, st, o, NULL), c->len);
		}
		/* DELTA: the parity is of version 0 (the home chunk) */
		if (c->op == RAIDKM_OP_DELTA) {
			s->state = 0;
			for (o = 0; o < s->nout; o++)
				memcpy(pb_out(s, st, o, NULL),
				       pb_expect(s, st, o), c->len);
		}
	}
	return 0;
}

struct pb_lane *pb_lane_create(struct pb_ring *r, struct pb_feed *f,
			       int index, int check_every, uint64_t seed)
{
	struct pb_lane *l = calloc(1, sizeof(*l));
	uint8_t *home = pb_ring_home(r) + index * pb_lane_home_bytes();
	const struct pb_class *c;
	struct pb_set *s;
	int i;

	if (!l)
		return NULL;
	l->ring = r;
	l->feed = f;
	l->index = index;
	l->check_every = check_every > 0 ? check_every : 1;
	l->seed = seed | 1;
	l->stage = pb_ring_stage(r) + index * pb_lane_stage_bytes();
	for (i = 0; i < PB_NCLASSES; i++) {
		c = &pb_classes[i];
		s = &l->set[i];
		s->c = c;
		s->n = c->k + c->m;
		s->nout = pb_nout(c);
		s->home = home;
		s->alt = home + (uint64_t)c->nstripes * s->n * c->len;
		home += pb_set_home_bytes(c);
		s->code = rkm_code_create(c->k, c->m);
		s->want = malloc((uint64_t)c->nstripes * s->nout * c->len *
				 (c->op == RAIDKM_OP_DELTA ? 2 : 1));
		if (!s->code || !s->want || pb_set_fill(s, &l->seed)) {
			pb_lane_destroy(l);
			return NULL;
		}
	}
	return l;
}

void pb_lane_destroy(struct pb_lane *l)
{
	int i;

	for (i = 0; i < PB_NCLASSES; i++) {
		if (l->set[i].code)
			rkm_code_destroy(l->set[i].code);
		free(l->set[i].want);
		free(l->lat[i].us10);
	}
	free(l);
}

uint64_t pb_lane_wrong(const struct pb_lane *l)
{
	return l->wrong;
}

uint64_t pb_lane_checked(const struct pb_lane *l)
{
	return l->checked;
}

void pb_lane_clear(struct pb_lane *l)
{
	int i;

	for (i = 0; i < PB_NCLASSES; i++)
		l->lat[i].n = 0;
}

const struct pb_lat *pb_lane_lat(const struct pb_lane *l, int cls)
{
	return &l->lat[cls];
}

/* The 64-byte window this job checks (a different one each job) */
static uint32_t pb_win(const struct pb_lane *l, const struct pb_set *s)
{
	return (uint32_t)((uint64_t)l->turn * 4160u % s->c->len) & ~(PB_WIN - 1);
}

/* Overwrite the window of every output at home (DELTA: none) */
static void pb_poison(struct pb_lane *l, struct pb_set *s)
{
	uint32_t st, w = pb_win(l, s), i;
	int o;

	if (s->c->op == RAIDKM_OP_DELTA)
		return;
	for (st = 0; st < s->c->nstripes; st++)
		for (o = 0; o < s->nout; o++) {
			uint8_t *p = pb_out(s, st, o, NULL) + w;
			const uint8_t *e = pb_expect(s, st, o) + w;

			for (i = 0; i < PB_WIN; i++)
				p[i] = ~e[i];
		}
}

static void pb_wrong(struct pb_lane *l, struct pb_set *s, uint32_t st,
		     int o, const char *side, uint32_t off, uint32_t len)
{
	int idx;
	uint8_t *p = pb_out(s, st, o, &idx);

	if (l->wrong++ < 8)
		fprintf(stderr, "rkm-place-bench: WRONG %s (%s): lane %d stripe %u chunk %d bytes %u+%u differ from the CPU codec's\n",
			s->c->name, side, l->index, st, idx, off, len);
	memcpy(p, pb_expect(s, st, o), s->c->len);
}

/* The outputs against the CPU codec's answer: the window, or all */
static void pb_check(struct pb_lane *l, struct pb_set *s, const char *side)
{
	int full = s->c->op == RAIDKM_OP_DELTA ||
		   l->turn % l->check_every == 0;
	uint32_t st, off = full ? 0 : pb_win(l, s);
	uint32_t len = full ? s->c->len : PB_WIN;
	int o;

	l->checked++;
	for (st = 0; st < s->c->nstripes; st++)
		for (o = 0; o < s->nout; o++)
			if (memcmp(pb_out(s, st, o, NULL) + off,
				   pb_expect(s, st, o) + off, len))
				pb_wrong(l, s, st, o, side, off, len);
}

/*
 * Stripe @st of @s into entry @q as its @j-th: descriptor offsets with
 * the outputs in staging at *@stage (poisoned window), the copies home,
 * what the kernel's checks see (@vs)
 */
static int pb_entry_add(struct pb_lane *l, struct pb_set *s, uint32_t st,
			uint32_t j, struct pb_entry_req *q, uint64_t *offs,
			uint8_t **stage, struct pb_vstripe *vs)
{
	uint8_t *chunk[RKM_MAX_N], *old[RKM_MAX_K], *home;
	uint32_t w = pb_win(l, s), i;
	int o, idx;

	pb_ptrs(s, st, chunk, old);
	for (o = 0; o < s->nout; o++) {
		home = pb_out(s, st, o, &idx);
		if (s->c->op == RAIDKM_OP_DELTA)
			memcpy(*stage, home, s->c->len);
		else
			for (i = 0; i < PB_WIN; i++)
				(*stage)[w + i] = ~pb_expect(s, st, o)[w + i];
		chunk[idx] = *stage;
		vs->home_par[o] = home;
		q->copy[q->ncopy].to = home;
		q->copy[q->ncopy].from = *stage;
		q->copy[q->ncopy].len = s->c->len;
		q->ncopy++;
		*stage += s->c->len;
	}
	memcpy(vs->chunk, chunk, sizeof(vs->chunk));
	memcpy(vs->old, old, sizeof(vs->old));
	return pb_ring_describe(l->ring, &q->job, chunk, old, j, offs);
}

/* The stripes in @dm (bit per stripe) to the daemon: 0, or not taken */
static int pb_to_ring(struct pb_lane *l, struct pb_set *s,
		      const struct pb_pjob *p, uint32_t dm,
		      struct pb_wait *wait, struct pb_vjob *v)
{
	static __thread uint64_t offs[RAIDKM_MAX_STRIPES * RKM_MAX_N * 2];
	const struct pb_class *c = s->c;
	struct pb_entry_req q;
	uint8_t *stage = l->stage;
	uint32_t st, j = 0;

	memset(&q, 0, sizeof(q));
	q.job.op = c->op;
	q.job.k = c->k;
	q.job.m = c->m;
	q.job.len = c->len;
	q.job.nstripes = __builtin_popcount(dm);
	q.job.mask = c->op == RAIDKM_OP_ENCODE ? 0 : c->mask;
	q.job.want = c->op == RAIDKM_OP_DECODE ? c->want : 0;
	q.job.offs = offs;
	q.pop = p->pj.op;
	q.pbytes = p->pj.bytes;
	q.wait = wait;
	q.vjob = v;
	v->code = s->code;
	v->op = c->op;
	v->k = c->k;
	v->m = c->m;
	v->len = c->len;
	v->nstripes = q.job.nstripes;
	v->mask = q.job.mask;
	v->want = q.job.want;
	for (st = 0; st < c->nstripes; st++) {
		if (!(dm >> st & 1))
			continue;
		if (pb_entry_add(l, s, st, j, &q, offs, &stage, &v->st[j])) {
			fprintf(stderr, "rkm-place-bench: %s: stripe %u not described (a bug here): coded on the CPU\n",
				c->name, st);
			return -1;
		}
		j++;
	}
	return pb_ring_submit(l->ring, &q);
}

static void pb_place_job(const struct pb_class *c, int cls,
			 struct pb_pjob *p)
{
	p->cls = cls;
	p->pj.op = c->op == RAIDKM_OP_ENCODE ? RKM_PLACE_ENCODE :
		   c->op == RAIDKM_OP_DECODE ? RKM_PLACE_DECODE :
					       RKM_PLACE_DELTA;
	p->pj.bytes = rkm_place_bytes(p->pj.op, c->k, c->m,
				      __builtin_popcountll(c->mask), c->len);
	p->pj.waited = c->waited;
}

uint64_t pb_lane_run(struct pb_lane *l, int cls)
{
	struct pb_set *s = &l->set[cls];
	const struct pb_class *c = s->c;
	struct pb_wait wait = { 0, 0 };
	struct pb_cpu a = { s, 0 };
	struct pb_vjob vjob;
	uint32_t st, dm = 0, cm = 0;
	struct pb_pjob p;
	uint64_t t0;

	l->turn++;
	pb_place_job(c, cls, &p);
	pb_poison(l, s);
	t0 = pb_now_ns();
	/* each stripe a job: those before it on the ring are ahead of it */
	for (st = 0; st < c->nstripes; st++)
		if (pb_feed_to_daemon(l->feed, &p, pb_ring_bytes(l->ring) +
				      __builtin_popcount(dm) * p.pj.bytes,
				      (uint32_t)pb_rnd(&l->seed)))
			dm |= 1u << st;
	if (dm && pb_to_ring(l, s, &p, dm, &wait, &vjob))
		dm = 0;
	if (dm)
		pb_feed_on_daemon(l->feed, &p, __builtin_popcount(dm));
	for (a.st = 0; a.st < c->nstripes; a.st++)
		if (!(dm >> a.st & 1))
			pb_feed_run_cpu(l->feed, &p, pb_cpu_stripe, &a);
	if (dm) {
		pb_wait_for(&wait);
		cm = wait.status ? dm : 0;
	}
	/* failed back: coded on the CPU, as raidkm.ko re-runs them */
	for (a.st = 0; a.st < c->nstripes; a.st++)
		if (cm >> a.st & 1)
			pb_cpu_stripe(&a);
	pb_lat_add(&l->lat[cls], pb_now_ns() - t0);
	if (c->op == RAIDKM_OP_DELTA)
		s->state ^= 1;
	pb_check(l, s, dm && !cm ? "daemon" : "cpu");
	return p.pj.bytes * c->nstripes;
}
