// SPDX-License-Identifier: GPL-2.0
/*
 * covers: offload: ring protocol
 *
 * Unit tests of the offload ring protocol (kernel/raidkm/ring): ring
 * wrap-around, full-ring back-pressure, doorbell suppression, corrupt
 * indices, stale and forged completions (also through the loopback's
 * kernel end), malformed submissions, header and ATTACH validation.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ring/rkm_ring.h"
#include "loopback/rkm_loop.h"
#include "unit_check.h"


/* A small mapping in ordinary memory: 8 entries, 64 KiB arena */
static struct raidkm_shm_hdr *make_shm(uint32_t entries, void **mapp)
{
	struct rkm_shm_params p = {
		.page_size = 4096, .entries = entries, .desc_slot_size = 1024,
		.max_stripes = 8, .max_len = 65536, .arena_size = 65536,
		.features = RAIDKM_FEAT_ALL, .session = 0x1234,
	};
	struct raidkm_shm_hdr h;
	void *map;

	if (rkm_shm_layout(&h, &p))
		return NULL;
	map = aligned_alloc(4096, h.map_size);
	memset(map, 0, h.map_size);
	memcpy(map, &h, sizeof(h));
	*mapp = map;
	return map;
}

static void test_wraparound(void)
{
	struct raidkm_shm_hdr *h;
	struct rkm_ring prod, cons;
	struct raidkm_sqe *e;
	uint32_t next_in = 0, next_out = 0, i, round;
	void *map;
	int n, room;

	begin("ring/wrap-around");
	h = make_shm(8, &map);
	CHECK(h != NULL);
	/* Start just below the u32 wrap so the indices overflow too. */
	h->sq_ctl.head = h->sq_ctl.tail = 0xfffffff0u;
	rkm_ring_init(&prod, &h->sq_ctl, (char *)map + h->sq_off, 8,
		      sizeof(*e), 0xfffffff0u);
	rkm_ring_init(&cons, &h->sq_ctl, (char *)map + h->sq_off, 8,
		      sizeof(*e), 0xfffffff0u);
	for (round = 0; round < 1000; round++) {
		room = rkm_prod_room(&prod);
		CHECK(room >= 0 && room <= 8);
		for (i = 0; i < (round % 7) + 1 && (int)i < room; i++) {
			e = rkm_prod_slot(&prod);
			memset(e, 0, sizeof(*e));
			e->id = next_in++;
			rkm_prod_commit(&prod);
		}
		rkm_prod_publish(&prod);
		n = rkm_cons_avail(&cons);
		CHECK(n >= 0 && n <= 8);
		/* consume a varying part of what is there */
		if (n > 0 && round % 3)
			n = n / 2 + 1;
		for (i = 0; (int)i < n; i++) {
			e = rkm_cons_peek(&cons, i);
			CHECK(e->id == next_out);
			next_out++;
		}
		rkm_cons_release(&cons, n);
	}
	CHECK(next_out > 1000);
	CHECK(h->sq_ctl.tail < 0xfffffff0u);	/* it wrapped */
	free(map);
	end();
}

static void test_backpressure(void)
{
	struct raidkm_shm_hdr *h;
	struct rkm_ring prod, cons;
	void *map;
	int i;

	begin("ring/full-ring back-pressure");
	h = make_shm(8, &map);
	rkm_ring_init(&prod, &h->cq_ctl, (char *)map + h->cq_off, 8,
		      sizeof(struct raidkm_cqe), 0);
	rkm_ring_init(&cons, &h->cq_ctl, (char *)map + h->cq_off, 8,
		      sizeof(struct raidkm_cqe), 0);
	for (i = 0; i < 8; i++) {
		CHECK(rkm_prod_room(&prod) == 8 - i);
		((struct raidkm_cqe *)rkm_prod_slot(&prod))->id = i;
		rkm_prod_commit(&prod);
	}
	CHECK(rkm_prod_room(&prod) == 0);
	rkm_prod_publish(&prod);
	CHECK(rkm_prod_room(&prod) == 0);
	CHECK(rkm_cons_avail(&cons) == 8);
	/* consumed but not released: still full */
	CHECK(rkm_prod_room(&prod) == 0);
	rkm_cons_release(&cons, 3);
	CHECK(rkm_prod_room(&prod) == 3);
	CHECK(rkm_cons_avail(&cons) == 5);
	CHECK(((struct raidkm_cqe *)rkm_cons_peek(&cons, 0))->id == 3);
	free(map);
	end();
}

static void test_corrupt_indices(void)
{
	struct raidkm_shm_hdr *h;
	struct rkm_ring prod, cons;
	void *map;

	begin("ring/impossible indices rejected");
	h = make_shm(8, &map);
	rkm_ring_init(&prod, &h->sq_ctl, (char *)map + h->sq_off, 8,
		      sizeof(struct raidkm_sqe), 0);
	rkm_ring_init(&cons, &h->sq_ctl, (char *)map + h->sq_off, 8,
		      sizeof(struct raidkm_sqe), 0);
	/* a producer tail more than a ring ahead */
	h->sq_ctl.tail = 9;
	CHECK(rkm_cons_avail(&cons) == -RKM_RING_EPROTO);
	/* a tail behind the consumer's head */
	h->sq_ctl.tail = (uint32_t)-1;
	CHECK(rkm_cons_avail(&cons) == -RKM_RING_EPROTO);
	h->sq_ctl.tail = 0;
	/* a consumer head ahead of the producer's tail, seen when full */
	prod.local = 8;
	h->sq_ctl.head = 12;
	CHECK(rkm_prod_room(&prod) == -RKM_RING_EPROTO);
	/* the producer's private tail is what counts, not the shared one */
	h->sq_ctl.head = 0;
	h->sq_ctl.tail = 1000;
	prod.local = 2;
	prod.other = 0;
	CHECK(rkm_prod_room(&prod) == 6);
	free(map);
	end();
}

static void test_need_wakeup(void)
{
	struct raidkm_shm_hdr *h;
	struct rkm_ring prod, cons;
	void *map;

	begin("ring/doorbell only when the consumer sleeps");
	h = make_shm(8, &map);
	rkm_ring_init(&prod, &h->sq_ctl, (char *)map + h->sq_off, 8,
		      sizeof(struct raidkm_sqe), 0);
	rkm_ring_init(&cons, &h->sq_ctl, (char *)map + h->sq_off, 8,
		      sizeof(struct raidkm_sqe), 0);
	rkm_prod_commit(&prod);
	CHECK(rkm_prod_publish(&prod) == 0);	/* consumer awake */
	CHECK(rkm_cons_prepare_sleep(&cons) == 1);	/* must not sleep */
	CHECK(!(h->sq_ctl.flags & RAIDKM_RING_NEED_WAKEUP));
	rkm_cons_release(&cons, 1);
	CHECK(rkm_cons_prepare_sleep(&cons) == 0);	/* may sleep */
	CHECK(h->sq_ctl.flags & RAIDKM_RING_NEED_WAKEUP);
	rkm_prod_commit(&prod);
	CHECK(rkm_prod_publish(&prod) == 1);	/* ring the doorbell */
	rkm_cons_woken(&cons);
	CHECK(h->sq_ctl.flags == 0);
	free(map);
	end();
}

static void test_cqe(void)
{
	struct rkm_slot_state s = { .gen = 10, .busy = 1,
				    .op = RAIDKM_OP_CHECK, .nstripes = 4 };
	struct raidkm_cqe c, good = { .id = 3, .gen = 10, .status = 0,
				      .check_bitmap = 0x5 };
	const char *why;

	begin("completion/valid accepted");
	CHECK(rkm_cqe_check(&good, 8, &why) == RKM_CQE_OK);
	CHECK(rkm_cqe_match(&good, &s, &why) == RKM_CQE_OK);
	end();

	begin("completion/stale rejected");
	c = good;
	c.gen = 9;			/* older generation */
	CHECK(rkm_cqe_match(&c, &s, &why) == RKM_CQE_STALE);
	c.gen = 10 - 0x7fffffff;	/* much older, across wrap */
	CHECK(rkm_cqe_match(&c, &s, &why) == RKM_CQE_STALE);
	c = good;
	s.busy = 0;			/* finished on the CPU already */
	CHECK(rkm_cqe_match(&c, &s, &why) == RKM_CQE_STALE);
	s.busy = 1;
	end();

	begin("completion/forged rejected");
	c = good;
	c.gen = 11;			/* never issued */
	CHECK(rkm_cqe_match(&c, &s, &why) == RKM_CQE_BAD);
	c = good;
	c.id = 8;
	CHECK(rkm_cqe_check(&c, 8, &why) == RKM_CQE_BAD);
	c.id = 0xffffffff;
	CHECK(rkm_cqe_check(&c, 8, &why) == RKM_CQE_BAD);
	c = good;
	c.status = -1;
	CHECK(rkm_cqe_check(&c, 8, &why) == RKM_CQE_BAD);
	c.status = 1;
	CHECK(rkm_cqe_check(&c, 8, &why) == RKM_CQE_BAD);
	c = good;
	c.flags = 1;
	CHECK(rkm_cqe_check(&c, 8, &why) == RKM_CQE_BAD);
	c = good;
	c.__resv = 1;
	CHECK(rkm_cqe_check(&c, 8, &why) == RKM_CQE_BAD);
	c = good;
	c.status = RAIDKM_ST_EIO;	/* failure with a bitmap */
	CHECK(rkm_cqe_check(&c, 8, &why) == RKM_CQE_BAD);
	c = good;
	c.check_bitmap = 0x10;		/* stripe 4 of 4 */
	CHECK(rkm_cqe_match(&c, &s, &why) == RKM_CQE_BAD);
	s.op = RAIDKM_OP_ENCODE;	/* bitmap on a non-CHECK job */
	CHECK(rkm_cqe_match(&good, &s, &why) == RKM_CQE_BAD);
	end();
}

static struct raidkm_sqe valid_sqe(void)
{
	struct raidkm_sqe e;

	memset(&e, 0, sizeof(e));
	e.id = 2;
	e.gen = 7;
	e.op = RAIDKM_OP_DECODE;
	e.k = 4;
	e.m = 2;
	e.len = 4096;
	e.nstripes = 2;
	e.ndesc = 12;
	e.mask = 0x3;
	return e;
}

static void test_sqe(void)
{
	struct rkm_shm_limits l = { .nslots = 8, .desc_slot_size = 1024,
				    .max_stripes = 8, .max_len = 65536,
				    .arena_size = 65536 };
	struct raidkm_sqe e;
	__u64 desc[128], offs[128];
	const char *why;
	int i, bad = 0;

	begin("submission/valid accepted");
	e = valid_sqe();
	CHECK(rkm_sqe_check(&e, &l, &why) == 0);
	for (i = 0; i < 12; i++)
		desc[i] = i * 4096;
	CHECK(rkm_desc_read(&e, desc, &l, offs, &why) == 0);
	CHECK(offs[11] == 11 * 4096);
	end();

	begin("submission/malformed rejected");
#define BAD(stmt) do { e = valid_sqe(); stmt; \
	if (rkm_sqe_check(&e, &l, &why) != RAIDKM_ST_EINVAL) { \
		printf("    accepted: %s\n", #stmt); bad++; } } while (0)
	BAD(e.id = 8);
	BAD(e.op = 0);
	BAD(e.op = 5);
	BAD(e.flags = 1);
	BAD(e.__resv[2] = 1);
	BAD(e.want = 1);		/* want without the feature */
	BAD(e.k = 1);
	BAD(e.m = 0);
	BAD(e.m = 17);
	BAD((e.k = 60, e.m = 5, e.ndesc = 130));
	BAD(e.len = 0);
	BAD(e.len = 4000);
	BAD(e.len = 131072);
	BAD(e.nstripes = 0);
	BAD((e.nstripes = 9, e.ndesc = 54));
	BAD(e.ndesc = 13);
	BAD((e.nstripes = 8, e.k = 60, e.m = 4, e.mask = 1, e.ndesc = 512));
	BAD(e.mask = 0);
	BAD(e.mask = 0x7);		/* 3 erasures, m = 2 */
	BAD(e.mask = 1ull << 6);	/* beyond k + m */
	BAD((e.op = RAIDKM_OP_ENCODE));	/* mask set */
	BAD((e.op = RAIDKM_OP_CHECK));
	BAD((e.op = RAIDKM_OP_DELTA, e.ndesc = 20, e.mask = 1 << 4));
	BAD((e.op = RAIDKM_OP_DELTA, e.ndesc = 20, e.mask = 0));
#undef BAD
	CHECK(bad == 0);
	/* descriptors */
	e = valid_sqe();
	desc[5] = 65536 - 4096 + 64;	/* runs past the arena */
	CHECK(rkm_desc_read(&e, desc, &l, offs, &why) == RAIDKM_ST_EINVAL);
	desc[5] = 100;			/* misaligned */
	CHECK(rkm_desc_read(&e, desc, &l, offs, &why) == RAIDKM_ST_EINVAL);
	desc[5] = RAIDKM_OFF_NONE;	/* not allowed for DECODE */
	CHECK(rkm_desc_read(&e, desc, &l, offs, &why) == RAIDKM_ST_EINVAL);
	desc[5] = ~0ull - 4095;		/* wraps around */
	CHECK(rkm_desc_read(&e, desc, &l, offs, &why) == RAIDKM_ST_EINVAL);
	end();

	begin("submission/delta unused offsets");
	e = valid_sqe();
	e.op = RAIDKM_OP_DELTA;
	e.mask = 0x2;			/* data chunk 1 changed */
	e.ndesc = 2 * 6 + 2 * 4;
	CHECK(rkm_sqe_check(&e, &l, &why) == 0);
	for (i = 0; i < 20; i++)
		desc[i] = i * 64;
	desc[0] = RAIDKM_OFF_NONE;	/* stripe 0 data 0: unchanged */
	desc[12 + 4 + 3] = RAIDKM_OFF_NONE;	/* stripe 1 old 3 */
	CHECK(rkm_desc_read(&e, desc, &l, offs, &why) == 0);
	desc[12 + 4 + 1] = RAIDKM_OFF_NONE;	/* stripe 1 old 1: changed */
	CHECK(rkm_desc_read(&e, desc, &l, offs, &why) == RAIDKM_ST_EINVAL);
	desc[12 + 4 + 1] = 0;
	desc[4] = RAIDKM_OFF_NONE;	/* stripe 0 parity */
	CHECK(rkm_desc_read(&e, desc, &l, offs, &why) == RAIDKM_ST_EINVAL);
	end();
}

/* RAIDKM_FEAT_DECODE_WANT: sqe.want and its descriptor rules */
static void test_sqe_want(void)
{
	struct rkm_shm_limits l = { .nslots = 8, .desc_slot_size = 1024,
				    .max_stripes = 8, .max_len = 65536,
				    .arena_size = 65536, .stage_start = 32768,
				    .features = RAIDKM_FEAT_DECODE_WANT };
	struct raidkm_sqe e;
	__u64 desc[128], offs[128];
	const char *why;
	int i, bad = 0;

	begin("submission/want checked");
	e = valid_sqe();		/* DECODE 4+2, mask 0x3, 2 stripes */
	e.want = 0x1;
	CHECK(rkm_sqe_check(&e, &l, &why) == 0);
	e.want = 0x3;
	CHECK(rkm_sqe_check(&e, &l, &why) == 0);
#define BAD(stmt) do { e = valid_sqe(); e.want = 0x1; stmt; \
	if (rkm_sqe_check(&e, &l, &why) != RAIDKM_ST_EINVAL) { \
		printf("    accepted: %s\n", #stmt); bad++; } } while (0)
	BAD(e.want = 0);		/* empty */
	BAD(e.want = 0x4);		/* not in mask */
	BAD(e.want = 0x5);		/* partly not in mask */
	BAD(e.want = 1ull << 6);	/* beyond k + m */
	BAD(e.want = 1ull << 63);
	BAD((e.op = RAIDKM_OP_ENCODE, e.mask = 0));	/* want on ENCODE */
	BAD((e.op = RAIDKM_OP_DELTA, e.ndesc = 20, e.mask = 1));
#undef BAD
	CHECK(bad == 0);
	end();

	begin("submission/want descriptors: wanted in staging, unwanted none");
	e = valid_sqe();
	e.want = 0x2;			/* chunk 1 of the erased 0, 1 */
	for (i = 0; i < 12; i++)
		desc[i] = (i % 6) * 4096;	/* inputs below 32768 */
	desc[0] = desc[6] = RAIDKM_OFF_NONE;
	desc[1] = 32768;
	desc[7] = 32768 + 4096;
	CHECK(rkm_desc_read(&e, desc, &l, offs, &why) == 0);
	CHECK(rkm_desc_is_output(&e, 1) && !rkm_desc_is_output(&e, 0) &&
	      rkm_desc_is_output(&e, 7) && !rkm_desc_is_output(&e, 2));
	desc[6] = 40960;		/* unwanted chunk described */
	CHECK(rkm_desc_read(&e, desc, &l, offs, &why) == RAIDKM_ST_EINVAL);
	desc[6] = RAIDKM_OFF_NONE;
	desc[7] = RAIDKM_OFF_NONE;	/* wanted chunk not described */
	CHECK(rkm_desc_read(&e, desc, &l, offs, &why) == RAIDKM_ST_EINVAL);
	desc[7] = 4096;			/* wanted chunk among the inputs */
	CHECK(rkm_desc_read(&e, desc, &l, offs, &why) == RAIDKM_ST_EINVAL);
	end();
}

static int test_off_of(void *ctx, const void *p, __u32 len, __u64 *off)
{
	const uint8_t *base = ctx, *c = p;

	if (c < base || c + len > base + 65536)
		return -1;
	*off = (__u64)(c - base);
	return 0;
}

/* rkm_desc_encode: roles, staging, in place, missing chunks */
static void test_desc_encode(void)
{
	static uint8_t arena[65536];
	void *chunk[6], *old[4];
	__u64 desc[64];
	struct rkm_desc_job j = { .op = RAIDKM_OP_DECODE, .k = 4, .m = 2,
				  .len = 4096, .mask = 0x11, .want = 0x10,
				  .chunk = chunk, .old = old };
	int i;

	begin("descriptor/encode: decode want, delta, encode");
	for (i = 0; i < 6; i++)
		chunk[i] = arena + i * 4096;
	for (i = 0; i < 4; i++)
		old[i] = arena + (6 + i) * 4096;
	chunk[0] = NULL;		/* unwanted: never looked at */
	/* stripe 1 of 2, outputs staged at 40960 */
	CHECK(rkm_desc_encode(&j, desc, 1, 2, 40960, test_off_of, arena) ==
	      5 * 4096);
	CHECK(desc[6] == RAIDKM_OFF_NONE && desc[7] == 4096 &&
	      desc[9] == 3 * 4096 && desc[10] == 40960 &&
	      desc[11] == 5 * 4096);
	CHECK(rkm_chunk_role(RAIDKM_OP_DECODE, 4, 0x11, 0, 0) ==
	      RKM_CHUNK_OUT);
	CHECK(rkm_chunk_role(RAIDKM_OP_DECODE, 4, 0x11, 0x10, 0) ==
	      RKM_CHUNK_UNUSED);
	/* in place: the wanted chunk where it lies */
	CHECK(rkm_desc_encode(&j, desc, 0, 1, RKM_DESC_IN_PLACE, test_off_of,
			      arena) == 5 * 4096 && desc[4] == 4 * 4096);
	chunk[1] = arena + 65536 - 64;	/* an input outside the arena */
	CHECK(rkm_desc_encode(&j, NULL, 0, 1, 40960, test_off_of, arena) == 0);
	chunk[1] = arena + 4096;
	j.want = 0x11;			/* chunk 0 wanted in place: NULL */
	CHECK(rkm_desc_encode(&j, NULL, 0, 1, RKM_DESC_IN_PLACE, test_off_of,
			      arena) == 0);
	chunk[0] = arena;
	j.op = RAIDKM_OP_DELTA;
	j.mask = 0x2;
	j.want = 0;
	CHECK(rkm_desc_encode(&j, desc, 0, 1, 40960, test_off_of, arena) ==
	      4 * 4096);
	CHECK(desc[0] == RAIDKM_OFF_NONE && desc[1] == 4096 &&
	      desc[4] == 40960 && desc[5] == 40960 + 4096 &&
	      desc[6] == RAIDKM_OFF_NONE && desc[7] == 7 * 4096 &&
	      desc[8] == RAIDKM_OFF_NONE);
	j.op = RAIDKM_OP_ENCODE;
	j.mask = 0;
	CHECK(rkm_desc_encode(&j, desc, 0, 1, 40960, test_off_of, arena) ==
	      6 * 4096 && desc[3] == 3 * 4096 && desc[5] == 40960 + 4096);
	end();
}

/* RAIDKM_FEAT_RO_INPUT: outputs in staging, inputs before it */
static void test_split_desc(void)
{
	struct rkm_shm_limits l = { .nslots = 8, .desc_slot_size = 1024,
				    .max_stripes = 8, .max_len = 65536,
				    .arena_size = 65536, .stage_start = 32768 };
	struct raidkm_sqe e;
	__u64 desc[128], offs[128];
	const char *why;
	int i;

	begin("split/outputs in staging, inputs before it");
	e = valid_sqe();		/* DECODE 4+2, 2 stripes, erased 0, 1 */
	for (i = 0; i < 12; i++)
		desc[i] = 4096 * (i % 6);
	/* stripe 0 and 1: chunks 0, 1 erased -> staging */
	desc[0] = 32768;
	desc[1] = 36864;
	desc[6] = 40960;
	desc[7] = 45056;
	CHECK(rkm_desc_read(&e, desc, &l, offs, &why) == 0);
	CHECK(rkm_desc_is_output(&e, 7) && !rkm_desc_is_output(&e, 8));
	desc[8] = 32768;		/* survivor in staging */
	CHECK(rkm_desc_read(&e, desc, &l, offs, &why) == RAIDKM_ST_EINVAL);
	desc[8] = 32768 - 64;		/* survivor straddles the boundary */
	CHECK(rkm_desc_read(&e, desc, &l, offs, &why) == RAIDKM_ST_EINVAL);
	desc[8] = 8192;
	desc[7] = 4096;			/* output among the inputs */
	CHECK(rkm_desc_read(&e, desc, &l, offs, &why) == RAIDKM_ST_EINVAL);
	desc[7] = 65536 - 4096;		/* last chunk of staging */
	CHECK(rkm_desc_read(&e, desc, &l, offs, &why) == 0);
	l.stage_start = 0;		/* no split: anywhere goes */
	desc[8] = 40960;
	CHECK(rkm_desc_read(&e, desc, &l, offs, &why) == 0);
	l.stage_start = 65536 + 4096;	/* beyond the arena */
	CHECK(rkm_desc_read(&e, desc, &l, offs, &why) == RAIDKM_ST_EINVAL);
	end();

	begin("split/encode and delta: parity staged, old data input");
	l.stage_start = 32768;
	e = valid_sqe();
	e.op = RAIDKM_OP_DELTA;
	e.mask = 0x2;
	e.ndesc = 2 * 6 + 2 * 4;
	for (i = 0; i < 20; i++)
		desc[i] = i * 64;
	desc[4] = 32768;
	desc[5] = 36864;
	desc[10] = 40960;
	desc[11] = 45056;
	CHECK(rkm_desc_read(&e, desc, &l, offs, &why) == 0);
	desc[12 + 1] = 49152;		/* old data in staging */
	CHECK(rkm_desc_read(&e, desc, &l, offs, &why) == RAIDKM_ST_EINVAL);
	desc[12 + 1] = 0;
	desc[1] = 49152;		/* new data in staging */
	CHECK(rkm_desc_read(&e, desc, &l, offs, &why) == RAIDKM_ST_EINVAL);
	desc[1] = 64;
	e.op = RAIDKM_OP_ENCODE;
	e.mask = 0;
	e.ndesc = 12;
	CHECK(rkm_desc_read(&e, desc, &l, offs, &why) == 0);
	desc[11] = 8192;		/* parity among the inputs */
	CHECK(rkm_desc_read(&e, desc, &l, offs, &why) == RAIDKM_ST_EINVAL);
	e.op = RAIDKM_OP_CHECK;		/* CHECK: no outputs at all */
	for (i = 0; i < 12; i++)
		desc[i] = i * 2048;
	CHECK(rkm_desc_read(&e, desc, &l, offs, &why) == 0);
	desc[11] = 45056;
	CHECK(rkm_desc_read(&e, desc, &l, offs, &why) == RAIDKM_ST_EINVAL);
	end();
}

static void test_split_layout(void)
{
	struct rkm_shm_params p = {
		.page_size = 4096, .entries = 8, .desc_slot_size = 1024,
		.max_stripes = 8, .max_len = 65536, .arena_size = 65536,
		.stage_size = 16384, .features = RAIDKM_FEAT_ALL,
		.session = 1,
	};
	struct raidkm_shm_hdr h, c;
	struct rkm_shm_limits l;
	const char *why;
	int bad = 0;

	begin("split/layout: staging at the end of the arena");
	CHECK(rkm_shm_layout(&h, &p) == 0);
	CHECK(h.features & RAIDKM_FEAT_RO_INPUT);
	CHECK(h.arena_size == 65536 + 16384);
	CHECK(h.stage_off == h.arena_off + 65536 && h.stage_size == 16384);
	CHECK(h.map_size == h.stage_off + h.stage_size);
	CHECK(rkm_shm_check(&h, h.map_size, &why) == 0);
	rkm_shm_limits(&h, &l);
	CHECK(l.stage_start == 65536 && l.arena_size == 65536 + 16384);
#define MUT(stmt) do { c = h; stmt; \
	if (!rkm_shm_check(&c, 0, &why)) { \
		printf("    accepted: %s\n", #stmt); bad++; } } while (0)
	MUT(c.stage_off += 4096);
	MUT(c.stage_off -= 4096);
	MUT(c.stage_off += 64);
	MUT(c.stage_size = 0);
	MUT((c.stage_off = c.arena_off, c.stage_size = c.arena_size));
	MUT(c.features &= ~RAIDKM_FEAT_RO_INPUT);
#undef MUT
	CHECK(bad == 0);
	p.stage_size = 0;		/* no staging: no feature, no fields */
	CHECK(rkm_shm_layout(&h, &p) == 0);
	CHECK(!(h.features & RAIDKM_FEAT_RO_INPUT) && !h.stage_off);
	CHECK(rkm_shm_check(&h, h.map_size, &why) == 0);
	rkm_shm_limits(&h, &l);
	CHECK(l.stage_start == 0);
	c = h;
	c.stage_size = 4096;
	CHECK(rkm_shm_check(&c, 0, &why) != 0);
	p.stage_size = 100;
	CHECK(rkm_shm_layout(&h, &p) != 0);
	end();
}

static void test_shm_check(void)
{
	struct raidkm_shm_hdr *h, c;
	const char *why;
	void *map;
	int bad = 0;

	begin("header/layout accepted, mutations rejected");
	h = make_shm(16, &map);
	CHECK(rkm_shm_check(h, h->map_size, &why) == 0);
	CHECK(rkm_shm_check(h, h->map_size - 4096, &why) != 0);
#define MUT(stmt) do { c = *h; stmt; \
	if (!rkm_shm_check(&c, 0, &why)) { \
		printf("    accepted: %s\n", #stmt); bad++; } } while (0)
	MUT(c.magic++);
	MUT(c.version = 2);
	MUT(c.page_size = 1000);
	MUT(c.sq_entries = 12);
	MUT(c.sq_entries = 8192);
	MUT(c.cq_entries = 8);
	MUT(c.nslots = 8);
	MUT(c.sqe_size = 32);
	MUT(c.desc_slot_size = 12);
	MUT(c.arena_off += 4096);
	MUT(c.arena_size += 4096);
	MUT(c.arena_off = 1ull << 63);
	MUT(c.cq_off = c.sq_off);
	MUT(c.desc_off = c.arena_off + 4096);
	MUT(c.max_stripes = 65);
	MUT(c.max_len = 100);
	MUT(c.sq_ctl.mask = 3);
	MUT(c.map_size = 4096);
#undef MUT
	CHECK(bad == 0);
	free(map);
	end();
}

static uint32_t put(uint8_t *b, uint32_t pos, uint16_t type, const void *d,
		    uint16_t len)
{
	uint16_t hd[2] = { (uint16_t)(len + 4), type };

	memcpy(b + pos, hd, 4);
	memcpy(b + pos + 4, d, len);
	memset(b + pos + 4 + len, 0, (4 - len % 4) % 4);
	return pos + 4 + ((len + 3) & ~3u);
}

static int attach(const uint8_t *b, uint32_t len, struct rkm_attach_req *r)
{
	const char *why;
	int ret;

	rkm_attach_init(r);
	ret = rkm_attach_parse(r, b, len, &why);
	return ret ? ret : rkm_attach_check(r, 0xabcdef, RAIDKM_FEAT_NEED_WAKEUP,
					    &why);
}

static void test_attach(void)
{
	struct rkm_attach_req r;
	uint8_t b[512];
	uint32_t pos, v1 = RAIDKM_PROTO_VERSION, v2 = 2, batch = 65;
	uint64_t ses = 0xabcdef, feat = ~0ull;
	uint8_t mk = 1;
	const char *why;

	begin("attach/valid accepted, features agreed");
	pos = put(b, 0, RAIDKM_A_VERSION, &v1, 4);
	pos = put(b, pos, RAIDKM_A_SESSION, &ses, 8);
	pos = put(b, pos, RAIDKM_A_BACKEND, "cpu", 4);
	pos = put(b, pos, RAIDKM_A_FEATURES, &feat, 8);
	pos = put(b, pos, 200, "x", 1);		/* unknown: ignored */
	CHECK(attach(b, pos, &r) == 0);
	CHECK(!strcmp(r.backend, "cpu"));
	CHECK(r.features == RAIDKM_FEAT_NEED_WAKEUP);
	CHECK(r.batch == 1 && r.max_m == RAIDKM_MAX_M);
	end();

	begin("attach/RAIDKM_FEAT_RO_INPUT required when offered");
	feat = RAIDKM_FEAT_NEED_WAKEUP;
	pos = put(b, 0, RAIDKM_A_VERSION, &v1, 4);
	pos = put(b, pos, RAIDKM_A_SESSION, &ses, 8);
	pos = put(b, pos, RAIDKM_A_BACKEND, "cpu", 4);
	pos = put(b, pos, RAIDKM_A_FEATURES, &feat, 8);
	rkm_attach_init(&r);
	CHECK(rkm_attach_parse(&r, b, pos, &why) == 0);
	CHECK(rkm_attach_check(&r, ses, RAIDKM_FEAT_ALL, &why) ==
	      -RKM_RING_EPROTO);
	feat = RAIDKM_FEAT_ALL;
	pos = put(b, 0, RAIDKM_A_VERSION, &v1, 4);
	pos = put(b, pos, RAIDKM_A_SESSION, &ses, 8);
	pos = put(b, pos, RAIDKM_A_BACKEND, "cpu", 4);
	pos = put(b, pos, RAIDKM_A_FEATURES, &feat, 8);
	rkm_attach_init(&r);
	CHECK(rkm_attach_parse(&r, b, pos, &why) == 0);
	CHECK(rkm_attach_check(&r, ses, RAIDKM_FEAT_ALL, &why) == 0);
	CHECK(r.features == RAIDKM_FEAT_ALL);
	feat = ~0ull;
	end();

	begin("attach/bad requests refused");
	pos = put(b, 0, RAIDKM_A_VERSION, &v1, 4);
	pos = put(b, pos, RAIDKM_A_SESSION, &ses, 8);
	CHECK(attach(b, pos, &r) == -RKM_RING_EINVAL);	/* no backend */
	pos = put(b, 0, RAIDKM_A_VERSION, &v2, 4);
	pos = put(b, pos, RAIDKM_A_SESSION, &ses, 8);
	pos = put(b, pos, RAIDKM_A_BACKEND, "cpu", 4);
	CHECK(attach(b, pos, &r) == -RKM_RING_EPROTO);
	ses = 1;
	pos = put(b, 0, RAIDKM_A_VERSION, &v1, 4);
	pos = put(b, pos, RAIDKM_A_SESSION, &ses, 8);
	pos = put(b, pos, RAIDKM_A_BACKEND, "cpu", 4);
	CHECK(attach(b, pos, &r) == -RKM_RING_ESTALE);
	ses = 0xabcdef;
	pos = put(b, 0, RAIDKM_A_VERSION, &v1, 4);
	pos = put(b, pos, RAIDKM_A_SESSION, &ses, 8);
	pos = put(b, pos, RAIDKM_A_BACKEND, "CPU!", 5);
	CHECK(attach(b, pos, &r) == -RKM_RING_EINVAL);	/* bad name */
	pos = put(b, 0, RAIDKM_A_VERSION, &v1, 4);
	pos = put(b, pos, RAIDKM_A_SESSION, &ses, 8);
	pos = put(b, pos, RAIDKM_A_BACKEND, "cpu", 3);	/* no NUL */
	CHECK(attach(b, pos, &r) == -RKM_RING_EINVAL);
	pos = put(b, 0, RAIDKM_A_VERSION, &v1, 4);
	pos = put(b, pos, RAIDKM_A_SESSION, &ses, 8);
	pos = put(b, pos, RAIDKM_A_BACKEND, "averyveryverylongname", 22);
	CHECK(attach(b, pos, &r) == -RKM_RING_EINVAL);
	pos = put(b, 0, RAIDKM_A_VERSION, &v1, 2);	/* short u32 */
	CHECK(attach(b, pos, &r) == -RKM_RING_EINVAL);
	pos = put(b, 0, RAIDKM_A_VERSION, &v1, 4);
	pos = put(b, pos, RAIDKM_A_VERSION, &v1, 4);	/* repeated */
	CHECK(attach(b, pos, &r) == -RKM_RING_EINVAL);
	pos = put(b, 0, RAIDKM_A_VERSION, &v1, 4);
	pos = put(b, pos, RAIDKM_A_SESSION, &ses, 8);
	pos = put(b, pos, RAIDKM_A_BACKEND, "cpu", 4);
	pos = put(b, pos, RAIDKM_A_BATCH, &batch, 4);	/* > 64 */
	CHECK(attach(b, pos, &r) == -RKM_RING_EINVAL);
	pos = put(b, 0, RAIDKM_A_VERSION, &v1, 4);
	pos = put(b, pos, RAIDKM_A_SESSION, &ses, 8);
	pos = put(b, pos, RAIDKM_A_BACKEND, "cpu", 4);
	pos = put(b, pos, RAIDKM_A_MAX_K, &mk, 1);	/* < 2 */
	CHECK(attach(b, pos, &r) == -RKM_RING_EINVAL);
	/* truncated attribute */
	pos = put(b, 0, RAIDKM_A_VERSION, &v1, 4);
	CHECK(attach(b, pos - 1, &r) == -RKM_RING_EINVAL);
	b[0] = 200;			/* length beyond the buffer */
	CHECK(attach(b, pos, &r) == -RKM_RING_EINVAL);
	end();
}

/* ---- the loopback's kernel end against a hand-driven fake daemon ----- */

static uint64_t done_cookies[64];
static int ndone;

static void on_done(void *arg, uint64_t cookie, int status, uint64_t bm)
{
	if (ndone < 64)
		done_cookies[ndone++] = cookie;
}

static void fake_complete(struct rkm_ring *cq, uint32_t id, uint32_t gen,
			  int32_t status)
{
	struct raidkm_cqe *c = rkm_prod_slot(cq);

	memset(c, 0, sizeof(*c));
	c->id = id;
	c->gen = gen;
	c->status = status;
	rkm_prod_commit(cq);
	rkm_prod_publish(cq);
}

static void test_loop_completions(void)
{
	struct rkm_loop_params p;
	struct rkm_loop_stats st;
	struct raidkm_shm_hdr *h;
	struct rkm_loop *l;
	struct rkm_ring sq, cq;
	struct rkm_loop_job j;
	struct raidkm_sqe e[3];
	uint64_t offs[6] = { 0, 4096, 8192, 12288, 16384, 20480 };
	char why[128];
	int i;

	begin("loopback kernel end/stale and forged completions");
	rkm_loop_default_params(&p);
	p.entries = 8;
	p.arena_size = 1 << 20;
	l = rkm_loop_create(&p, why, sizeof(why));
	CHECK(l != NULL);
	if (!l) {
		end();
		return;
	}
	h = rkm_loop_map(l);
	rkm_ring_init(&sq, &h->sq_ctl, (char *)h + h->sq_off, 8,
		      sizeof(struct raidkm_sqe), 0);
	rkm_ring_init(&cq, &h->cq_ctl, (char *)h + h->cq_off, 8,
		      sizeof(struct raidkm_cqe), 0);
	memset(&j, 0, sizeof(j));
	j.op = RAIDKM_OP_ENCODE;
	j.k = 4;
	j.m = 2;
	j.len = 4096;
	j.nstripes = 1;
	j.offs = offs;
	for (i = 0; i < 3; i++) {
		j.cookie = 100 + i;
		CHECK(rkm_loop_submit(l, &j) == 0);
	}
	rkm_loop_kick(l);
	CHECK(rkm_cons_avail(&sq) == 3);
	for (i = 0; i < 3; i++)
		rkm_sqe_read(rkm_cons_peek(&sq, i), &e[i]);
	rkm_cons_release(&sq, 3);
	/* job 0 completes; a duplicate of it is stale */
	fake_complete(&cq, e[0].id, e[0].gen, 0);
	fake_complete(&cq, e[0].id, e[0].gen, 0);
	/* an older generation of job 1's slot: stale */
	fake_complete(&cq, e[1].id, e[1].gen - 1, 0);
	CHECK(rkm_loop_reap(l, on_done, NULL) == 1);
	CHECK(ndone == 1 && done_cookies[0] == 100);
	rkm_loop_get_stats(l, &st);
	CHECK(st.stale == 2 && st.bad == 0 && st.inflight == 2);
	/* job 1 completes with an error status: reported, not rejected */
	fake_complete(&cq, e[1].id, e[1].gen, RAIDKM_ST_EIO);
	CHECK(rkm_loop_reap(l, on_done, NULL) == 1);
	/* a forged generation for job 2: a daemon fault, session closed */
	fake_complete(&cq, e[2].id, e[2].gen + 1, 0);
	CHECK(rkm_loop_reap(l, on_done, NULL) == -EPROTO);
	rkm_loop_get_stats(l, &st);
	CHECK(st.bad == 1 && st.inflight == 1);
	CHECK(h->kstate == RAIDKM_KSTATE_CLOSED);
	CHECK(rkm_loop_submit(l, &j) == -ESHUTDOWN);
	/* the job whose completion was forged is re-run by the kernel end */
	ndone = 0;
	CHECK(rkm_loop_abandon(l, on_done, NULL) == 1);
	CHECK(ndone == 1 && done_cookies[0] == 102);
	rkm_loop_destroy(l);
	end();

	begin("loopback kernel end/back-pressure");
	l = rkm_loop_create(&p, why, sizeof(why));
	for (i = 0; i < 8; i++)
		CHECK(rkm_loop_submit(l, &j) == 0);
	CHECK(rkm_loop_submit(l, &j) == -EAGAIN);
	j.nstripes = 0;
	CHECK(rkm_loop_submit(l, &j) == -EINVAL);
	rkm_loop_destroy(l);
	end();
}

int main(void)
{
	test_wraparound();
	test_backpressure();
	test_corrupt_indices();
	test_need_wakeup();
	test_cqe();
	test_sqe();
	test_split_desc();
	test_sqe_want();
	test_desc_encode();
	test_split_layout();
	test_shm_check();
	test_attach();
	test_loop_completions();
	return failures ? 1 : 0;
}
