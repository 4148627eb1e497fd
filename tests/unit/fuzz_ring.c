// SPDX-License-Identifier: GPL-2.0
/*
 * covers: offload: ring protocol; offload: ATTACH refusals
 *
 * Fuzz driver for the ring protocol's parsers: the kernel side's
 * completion validation and ATTACH (netlink attribute) parsing, the
 * daemon side's submission/descriptor validation and header check, and
 * the ring index arithmetic, all compiled in user space from the very
 * files raidkm.ko builds.
 *
 * Each input is checked against an independent oracle: whatever a
 * validator accepts must really be in bounds (accepted chunk offsets are
 * touched in a real arena under ASan), and nothing may crash.
 *
 * Default build: a fixed-seed random driver (valid templates with random
 * mutations, plus pure noise) run as a unit test.  With -DRKM_LIBFUZZER
 * and clang -fsanitize=fuzzer: a libFuzzer target over the same
 * fuzz_one().
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ring/rkm_ring.h"

static int failures;
static long accepted[8];

#define ORACLE(cond, what) do { \
	if (!(cond)) { \
		if (failures++ < 10) \
			printf("    oracle violated: %s (%s)\n", what, #cond); \
	} \
} while (0)

enum { K_CQE, K_ATTACH, K_SQE, K_HDR, K_INDEX, K_NKINDS };

static void get(void *dst, size_t n, const uint8_t **p, size_t *left)
{
	size_t take = n < *left ? n : *left;

	memset(dst, 0, n);
	memcpy(dst, *p, take);
	*p += take;
	*left -= take;
}

static int status_known(int32_t s)
{
	return s == 0 || s == RAIDKM_ST_EINVAL || s == RAIDKM_ST_EIO ||
	       s == RAIDKM_ST_EOPNOTSUPP || s == RAIDKM_ST_ENOMEM;
}

static void fuzz_cqe(const uint8_t *p, size_t left)
{
	struct raidkm_cqe c;
	struct rkm_slot_state s;
	uint16_t nslots;
	const char *why;
	int v;

	get(&c, sizeof(c), &p, &left);
	get(&s, sizeof(s), &p, &left);
	get(&nslots, sizeof(nslots), &p, &left);
	v = rkm_cqe_check(&c, nslots, &why);
	ORACLE(v == RKM_CQE_OK || v == RKM_CQE_BAD, "check result");
	if (v != RKM_CQE_OK)
		return;
	ORACLE(c.id < nslots && !c.flags && !c.__resv &&
	       status_known(c.status), "check accepted garbage");
	v = rkm_cqe_match(&c, &s, &why);
	if (v == RKM_CQE_OK) {
		accepted[K_CQE]++;
		ORACLE(s.busy && s.gen == c.gen, "match accepted stale/forged");
		ORACLE(!c.check_bitmap || (s.op == RAIDKM_OP_CHECK &&
					   s.nstripes <= 64 &&
					   !(s.nstripes < 64 &&
					     c.check_bitmap >> s.nstripes)),
		       "bitmap");
	} else if (v == RKM_CQE_STALE) {
		ORACLE((int32_t)(s.gen - c.gen) > 0 ||
		       (s.gen == c.gen && !s.busy), "stale verdict");
	} else {
		ORACLE(v == RKM_CQE_BAD, "match result");
	}
}

static int name_ok(const char *s)
{
	size_t n = strlen(s), i;

	if (n < 1 || n > 15)
		return 0;
	for (i = 0; i < n; i++)
		if (!((s[i] >= 'a' && s[i] <= 'z') ||
		      (s[i] >= '0' && s[i] <= '9') || s[i] == '_' ||
		      s[i] == '-'))
			return 0;
	return 1;
}

static void fuzz_attach(const uint8_t *p, size_t left)
{
	struct rkm_attach_req r;
	const char *why;
	uint64_t session = 0x0123456789abcdefull;
	int ret;

	rkm_attach_init(&r);
	ret = rkm_attach_parse(&r, p, (uint32_t)left, &why);
	ORACLE(ret == 0 || ret == -RKM_RING_EINVAL, "parse result");
	if (ret)
		return;
	ret = rkm_attach_check(&r, session, RAIDKM_FEAT_ALL, &why);
	if (ret)
		return;
	accepted[K_ATTACH]++;
	ORACLE(r.version == RAIDKM_PROTO_VERSION, "version");
	ORACLE(r.session == session, "session");
	ORACLE(r.backend[RAIDKM_BACKEND_NAME_MAX - 1] == 0 &&
	       name_ok(r.backend), "backend name");
	ORACLE(r.max_k >= 2 && r.max_k <= 63 && r.max_m >= 1 &&
	       r.max_m <= 16 && r.batch >= 1 && r.batch <= 64, "limits");
	ORACLE(!(r.features & ~RAIDKM_FEAT_ALL), "features");
	ORACLE(r.features & RAIDKM_FEAT_RO_INPUT, "RO_INPUT required");
}

#define ARENA_SIZE	(256 * 1024)
#define STAGE_START	(128 * 1024)	/* staging: the arena's second half */
static uint8_t *arena;

static void fuzz_sqe(const uint8_t *p, size_t left)
{
	struct rkm_shm_limits l = { .nslots = 16, .desc_slot_size = 4096,
				    .max_stripes = 64, .max_len = 65536,
				    .arena_size = ARENA_SIZE };
	static __u64 desc[512], offs[512];
	struct raidkm_sqe e;
	const char *why;
	uint32_t i;
	volatile uint8_t sink;

	get(&e, sizeof(e), &p, &left);
	get(desc, sizeof(desc), &p, &left);
	/* odd generations: an older kernel end without a staging region */
	l.stage_start = (e.gen & 1) ? 0 : STAGE_START;
	/* generations 2 and 3 mod 4: RAIDKM_FEAT_DECODE_WANT agreed */
	l.features = (e.gen & 2) ? RAIDKM_FEAT_DECODE_WANT : 0;
	if (rkm_sqe_check(&e, &l, &why))
		return;
	ORACLE(!e.want || (e.op == RAIDKM_OP_DECODE && (e.gen & 2) &&
			   !(e.want & ~e.mask)), "want legal");
	ORACLE(e.op != RAIDKM_OP_DECODE || !(e.gen & 2) || e.want,
	       "want present with the feature");
	ORACLE(e.id < 16 && e.op >= 1 && e.op <= 4 && e.k >= 2 &&
	       e.m >= 1 && e.m <= 16 && e.k + e.m <= 64, "sqe shape");
	ORACLE(e.len && e.len % 64 == 0 && e.len <= 65536 && e.nstripes &&
	       e.nstripes <= 64 && e.ndesc * 8 <= 4096, "sqe sizes");
	if (rkm_desc_read(&e, desc, &l, offs, &why))
		return;
	accepted[K_SQE]++;
	for (i = 0; i < e.ndesc; i++) {
		if (offs[i] == RAIDKM_OFF_NONE) {
			ORACLE(e.op == RAIDKM_OP_DELTA ||
			       (e.op == RAIDKM_OP_DECODE &&
				(e.mask & ~e.want) >> (i % (e.k + e.m)) & 1),
			       "NONE outside delta and unwanted chunks");
			continue;
		}
		if (e.op == RAIDKM_OP_DECODE && e.want)
			ORACLE(!((e.mask & ~e.want) >> (i % (e.k + e.m)) & 1),
			       "unwanted chunk described");
		ORACLE(offs[i] % 64 == 0 && offs[i] + e.len <= ARENA_SIZE,
		       "offset in arena");
		if (l.stage_start && rkm_desc_is_output(&e, i))
			ORACLE(offs[i] >= STAGE_START, "output in staging");
		else if (l.stage_start)
			ORACLE(offs[i] + e.len <= STAGE_START,
			       "input before staging");
		if (offs[i] + e.len <= ARENA_SIZE) {
			sink = arena[offs[i]];
			sink = arena[offs[i] + e.len - 1];
			(void)sink;
		}
	}
}

static struct raidkm_shm_hdr base_hdr;

static void fuzz_hdr(const uint8_t *p, size_t left)
{
	struct raidkm_shm_hdr h = base_hdr;
	const char *why;
	uint16_t pos;
	uint8_t val;

	/* (position, byte) pairs mutate a valid header */
	while (left >= 3) {
		get(&pos, 2, &p, &left);
		get(&val, 1, &p, &left);
		((uint8_t *)&h)[pos % sizeof(h)] = val;
	}
	if (rkm_shm_check(&h, 0, &why))
		return;
	accepted[K_HDR]++;
	ORACLE(h.sq_off + (uint64_t)h.sq_entries * 64 <= h.map_size &&
	       h.cq_off + (uint64_t)h.cq_entries * 32 <= h.map_size &&
	       h.desc_off + (uint64_t)h.nslots * h.desc_slot_size <=
	       h.map_size && h.arena_off + h.arena_size <= h.map_size &&
	       h.arena_off >= h.page_size, "regions inside the mapping");
	ORACLE(h.sq_entries && !(h.sq_entries & (h.sq_entries - 1)) &&
	       h.cq_entries >= h.nslots && h.nslots == h.sq_entries,
	       "ring sizes");
}

static void fuzz_index(const uint8_t *p, size_t left)
{
	struct raidkm_ring_ctl ctl;
	static struct raidkm_cqe ents[16];
	struct rkm_ring r;
	uint32_t local, head, tail;
	int n;

	get(&local, 4, &p, &left);
	get(&head, 4, &p, &left);
	get(&tail, 4, &p, &left);
	memset(&ctl, 0, sizeof(ctl));
	rkm_ring_init(&r, &ctl, ents, 16, sizeof(ents[0]), local);
	ctl.tail = tail;
	n = rkm_cons_avail(&r);
	ORACLE(n == -RKM_RING_EPROTO || (n >= 0 && n <= 16 &&
					 (uint32_t)(tail - local) == (uint32_t)n),
	       "consumer avail");
	if (n > 0)
		((volatile struct raidkm_cqe *)rkm_cons_peek(&r, n - 1))->id++;
	rkm_ring_init(&r, &ctl, ents, 16, sizeof(ents[0]), local);
	r.other = local - 16;	/* looks full: forces a read of head */
	ctl.head = head;
	n = rkm_prod_room(&r);
	ORACLE(n == -RKM_RING_EPROTO || (n >= 0 && n <= 16), "producer room");
}

static void fuzz_one(const uint8_t *data, size_t size)
{
	if (!size)
		return;
	switch (data[0] % K_NKINDS) {
	case K_CQE:
		fuzz_cqe(data + 1, size - 1);
		break;
	case K_ATTACH:
		fuzz_attach(data + 1, size - 1);
		break;
	case K_SQE:
		fuzz_sqe(data + 1, size - 1);
		break;
	case K_HDR:
		fuzz_hdr(data + 1, size - 1);
		break;
	default:
		fuzz_index(data + 1, size - 1);
		break;
	}
}

static void setup(void)
{
	struct rkm_shm_params sp = {
		.page_size = 4096, .entries = 64, .desc_slot_size = 4096,
		.max_stripes = 64, .max_len = 65536, .arena_size = 1 << 20,
		.stage_size = 1 << 18, .features = RAIDKM_FEAT_ALL,
		.session = 42,
	};

	arena = malloc(ARENA_SIZE);
	memset(arena, 0, ARENA_SIZE);
	rkm_shm_layout(&base_hdr, &sp);
}

#ifdef RKM_LIBFUZZER
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (!arena)
		setup();
	fuzz_one(data, size);
	if (failures)
		abort();
	return 0;
}
#else

static uint64_t rng = 0x5eed20261121ull;

static uint64_t rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static size_t put_attr(uint8_t *b, size_t pos, uint16_t type, const void *d,
		       uint16_t len)
{
	uint16_t h[2] = { (uint16_t)(len + 4), type };

	memcpy(b + pos, h, 4);
	memcpy(b + pos + 4, d, len);
	return pos + 4 + ((len + 3u) & ~3u);
}

/* A valid input of each kind, for mutation */
static size_t template(int kind, uint8_t *b)
{
	struct raidkm_cqe c = { .id = 3, .gen = 9, .check_bitmap = 1 };
	struct rkm_slot_state s = { .gen = 9, .busy = 1,
				    .op = RAIDKM_OP_CHECK, .nstripes = 2 };
	struct raidkm_sqe e = { .id = 1, .gen = 2, .op = RAIDKM_OP_DELTA,
				.k = 4, .m = 2, .len = 4096, .nstripes = 2,
				.ndesc = 20, .mask = 0x5 };
	uint64_t ses = 0x0123456789abcdefull, off;
	uint32_t v = 1, batch = 8, i;
	uint64_t feat = RAIDKM_FEAT_ALL;
	uint16_t nslots = 16;
	size_t n = 1;

	b[0] = kind;
	switch (kind) {
	case K_CQE:
		memcpy(b + n, &c, sizeof(c));
		n += sizeof(c);
		memcpy(b + n, &s, sizeof(s));
		n += sizeof(s);
		memcpy(b + n, &nslots, 2);
		return n + 2;
	case K_ATTACH:
		n = put_attr(b, n, RAIDKM_A_VERSION, &v, 4);
		n = put_attr(b, n, RAIDKM_A_SESSION, &ses, 8);
		n = put_attr(b, n, RAIDKM_A_BACKEND, "cuda", 5);
		n = put_attr(b, n, RAIDKM_A_BATCH, &batch, 4);
		n = put_attr(b, n, RAIDKM_A_FEATURES, &feat, 8);
		return n;
	case K_SQE:
		memcpy(b + n, &e, sizeof(e));
		n += sizeof(e);
		for (i = 0; i < 20; i++) {
			/* parity (outputs) in staging, the rest before it */
			off = (uint64_t)i * 4096;
			if (i < 12 && i % 6 >= 4)
				off += STAGE_START;
			memcpy(b + n + i * 8, &off, 8);
		}
		return n + 20 * 8;
	case K_HDR:
		return 1;
	default:
		for (i = 0; i < 12; i++)
			b[n + i] = rnd();
		return n + 12;
	}
}

int main(int argc, char **argv)
{
	static uint8_t buf[8192];
	long iters = argc > 1 ? atol(argv[1]) : 300000, i, per[K_NKINDS] = {0};
	size_t n, j, nmut;
	int kind, bad = 0;

	setup();
	for (i = 0; i < iters; i++) {
		kind = rnd() % K_NKINDS;
		if (rnd() % 8 == 0) {
			/* pure noise */
			n = 1 + rnd() % 600;
			for (j = 0; j < n; j++)
				buf[j] = rnd();
			buf[0] = kind;
		} else {
			n = template(kind, buf);
			if (kind == K_HDR || rnd() % 4 == 0) {
				/* append or extend */
				size_t extra = rnd() % 64;

				for (j = 0; j < extra && n < sizeof(buf); j++)
					buf[n++] = rnd();
			}
			nmut = rnd() % 4;
			for (j = 0; j < nmut && n > 1; j++) {
				size_t at = 1 + rnd() % (n - 1);

				switch (rnd() % 4) {
				case 0:
					buf[at] ^= 1 << (rnd() % 8);
					break;
				case 1:
					buf[at] = rnd();
					break;
				case 2:
					buf[at] = (uint8_t)(buf[at] + 1);
					break;
				default:
					if (rnd() % 2)
						n = at;	/* truncate */
					break;
				}
			}
		}
		per[kind]++;
		fuzz_one(buf, n);
	}
	if (!accepted[K_CQE] || !accepted[K_ATTACH] || !accepted[K_SQE] ||
	    !accepted[K_HDR]) {
		printf("FAIL fuzz/ring parsers: a validator accepted nothing (oracles unexercised)\n");
		bad = 1;
	} else if (failures) {
		printf("FAIL fuzz/ring parsers: %d oracle violations in %ld inputs\n",
		       failures, iters);
		bad = 1;
	} else {
		printf("PASS fuzz/ring parsers: %ld inputs (completion %ld/%ld accepted, attach %ld/%ld, submission %ld/%ld, header %ld/%ld, indices %ld)\n",
		       iters, accepted[K_CQE], per[K_CQE], accepted[K_ATTACH],
		       per[K_ATTACH], accepted[K_SQE], per[K_SQE],
		       accepted[K_HDR], per[K_HDR], per[K_INDEX]);
	}
	return bad;
}
#endif
