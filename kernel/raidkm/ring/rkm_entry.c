// SPDX-License-Identifier: GPL-2.0
/*
 * Ring entry validation.  The daemon checks submission entries and their
 * descriptors before touching the arena; the kernel checks completion
 * entries before they complete anything.  Both work on private copies.
 */
#include "rkm_ring.h"

static int popcount64(__u64 x)
{
	int n = 0;

	while (x) {
		x &= x - 1;
		n++;
	}
	return n;
}

static __u64 low_bits(__u32 n)
{
	return n >= 64 ? ~(__u64)0 : (((__u64)1 << n) - 1);
}

void rkm_sqe_read(const struct raidkm_sqe *shared, struct raidkm_sqe *e)
{
	int i;

	e->id = rkm_ring_read_once(shared->id);
	e->gen = rkm_ring_read_once(shared->gen);
	e->op = rkm_ring_read_once(shared->op);
	e->k = rkm_ring_read_once(shared->k);
	e->m = rkm_ring_read_once(shared->m);
	e->flags = rkm_ring_read_once(shared->flags);
	e->len = rkm_ring_read_once(shared->len);
	e->nstripes = rkm_ring_read_once(shared->nstripes);
	e->ndesc = rkm_ring_read_once(shared->ndesc);
	e->mask = rkm_ring_read_once(shared->mask);
	e->want = rkm_ring_read_once(shared->want);
	for (i = 0; i < 3; i++)
		e->__resv[i] = rkm_ring_read_once(shared->__resv[i]);
}

/*
 * want: with RAIDKM_FEAT_DECODE_WANT, a DECODE's non-empty subset of its
 * (checked) mask; zero otherwise.  NULL when legal, else the reason.
 */
static const char *sqe_want_bad(const struct raidkm_sqe *e,
				const struct rkm_shm_limits *l)
{
	if (!(l->features & RAIDKM_FEAT_DECODE_WANT) ||
	    e->op != RAIDKM_OP_DECODE)
		return e->want ? "want set without a DECODE_WANT decode" : NULL;
	if (!e->want)
		return "want empty";
	if (e->want & ~e->mask)
		return "want not a subset of the erasure mask";
	return NULL;
}

int rkm_sqe_check(const struct raidkm_sqe *e, const struct rkm_shm_limits *l,
		  const char **why)
{
	__u32 k = e->k, m = e->m, n = k + m;
	int bits = popcount64(e->mask);

	*why = NULL;
	if (e->id >= l->nslots)
		*why = "job id out of range";
	else if (e->op < RAIDKM_OP_ENCODE || e->op > RAIDKM_OP_MAX)
		*why = "unknown op";
	else if (e->flags || e->__resv[0] || e->__resv[1] || e->__resv[2])
		*why = "reserved field set";
	else if (k < RAIDKM_MIN_K || m < 1 || m > RAIDKM_MAX_M ||
		 n > RAIDKM_MAX_N)
		*why = "bad geometry";
	else if (!e->len || e->len % RAIDKM_LEN_ALIGN || e->len > l->max_len)
		*why = "bad chunk length";
	else if (!e->nstripes || e->nstripes > l->max_stripes ||
		 e->nstripes > RAIDKM_MAX_STRIPES)
		*why = "bad stripe count";
	else if (e->ndesc != rkm_job_ndesc(e->op, k, m, e->nstripes) ||
		 (__u64)e->ndesc * 8 > l->desc_slot_size)
		*why = "bad descriptor count";
	else if (e->op == RAIDKM_OP_DECODE &&
		 (bits < 1 || bits > (int)m || (e->mask & ~low_bits(n))))
		*why = "bad erasure mask";
	else if (e->op == RAIDKM_OP_DELTA &&
		 (bits < 1 || (e->mask & ~low_bits(k))))
		*why = "bad changed-data mask";
	else if ((e->op == RAIDKM_OP_ENCODE || e->op == RAIDKM_OP_CHECK) &&
		 e->mask)
		*why = "mask set for an op without one";
	else
		*why = sqe_want_bad(e, l);
	return *why ? RAIDKM_ST_EINVAL : 0;
}

/* May descriptor entry @i of a DELTA job be RAIDKM_OFF_NONE? */
static int delta_optional(const struct raidkm_sqe *e, __u32 i)
{
	__u32 n = e->k + e->m, first_old = e->nstripes * n, c;

	if (i < first_old) {
		c = i % n;
		return c < e->k && !(e->mask & ((__u64)1 << c));
	}
	c = (i - first_old) % e->k;
	return !(e->mask & ((__u64)1 << c));
}

/* The role of descriptor entry @i of a checked entry (old data: input) */
static int desc_role(const struct raidkm_sqe *e, __u32 i)
{
	__u32 n = e->k + e->m;

	if (i >= e->nstripes * n)
		return RKM_CHUNK_IN;	/* DELTA's old data */
	return rkm_chunk_role(e->op, e->k, e->mask, e->want, i % n);
}

int rkm_desc_is_output(const struct raidkm_sqe *e, __u32 i)
{
	return desc_role(e, i) == RKM_CHUNK_OUT;
}

int rkm_desc_read(const struct raidkm_sqe *e, const __u64 *desc,
		  const struct rkm_shm_limits *l, __u64 *offs,
		  const char **why)
{
	__u64 off, lo, hi;
	__u32 i;

	*why = NULL;
	if (l->arena_size < e->len || l->stage_start > l->arena_size) {
		*why = "arena smaller than a chunk";
		return RAIDKM_ST_EINVAL;
	}
	for (i = 0; i < e->ndesc; i++) {
		off = rkm_ring_read_once(desc[i]);
		offs[i] = off;
		if (off == RAIDKM_OFF_NONE && e->op == RAIDKM_OP_DELTA &&
		    delta_optional(e, i))
			continue;
		if (e->op == RAIDKM_OP_DECODE &&
		    desc_role(e, i) == RKM_CHUNK_UNUSED) {
			if (off == RAIDKM_OFF_NONE)
				continue;
			*why = "unwanted erased chunk described";
			return RAIDKM_ST_EINVAL;
		}
		if (off % RAIDKM_OFF_ALIGN || off > l->arena_size - e->len) {
			*why = "chunk offset outside the arena or misaligned";
			return RAIDKM_ST_EINVAL;
		}
		if (!l->stage_start)
			continue;
		/* [lo, hi): where this chunk must lie */
		lo = rkm_desc_is_output(e, i) ? l->stage_start : 0;
		hi = lo ? l->arena_size : l->stage_start;
		if (off < lo || off > hi - e->len || hi - lo < e->len) {
			*why = lo ? "output chunk outside the staging region" :
				    "input chunk outside the input region";
			return RAIDKM_ST_EINVAL;
		}
	}
	return 0;
}

void rkm_cqe_read(const struct raidkm_cqe *shared, struct raidkm_cqe *c)
{
	c->id = rkm_ring_read_once(shared->id);
	c->gen = rkm_ring_read_once(shared->gen);
	c->status = rkm_ring_read_once(shared->status);
	c->flags = rkm_ring_read_once(shared->flags);
	c->check_bitmap = rkm_ring_read_once(shared->check_bitmap);
	c->__resv = rkm_ring_read_once(shared->__resv);
}

int rkm_cqe_check(const struct raidkm_cqe *c, __u32 nslots, const char **why)
{
	*why = NULL;
	if (c->id >= nslots)
		*why = "completion id out of range";
	else if (c->flags || c->__resv)
		*why = "completion reserved field set";
	else if (c->status != RAIDKM_ST_OK && c->status != RAIDKM_ST_EINVAL &&
		 c->status != RAIDKM_ST_EIO &&
		 c->status != RAIDKM_ST_EOPNOTSUPP &&
		 c->status != RAIDKM_ST_ENOMEM)
		*why = "completion status unknown";
	else if (c->status != RAIDKM_ST_OK && c->check_bitmap)
		*why = "check bitmap on a failed completion";
	return *why ? RKM_CQE_BAD : RKM_CQE_OK;
}

int rkm_cqe_match(const struct raidkm_cqe *c, const struct rkm_slot_state *s,
		  const char **why)
{
	__s32 age = (__s32)(s->gen - c->gen);

	*why = NULL;
	if (age < 0) {
		*why = "completion generation never issued (forged)";
		return RKM_CQE_BAD;
	}
	if (age > 0) {
		*why = "completion for an older generation";
		return RKM_CQE_STALE;
	}
	if (!s->busy) {
		*why = "completion for a job no longer in flight";
		return RKM_CQE_STALE;
	}
	if (c->check_bitmap && (s->op != RAIDKM_OP_CHECK ||
				s->nstripes > RAIDKM_MAX_STRIPES ||
				(c->check_bitmap & ~low_bits(s->nstripes)))) {
		*why = "check bitmap does not fit the job";
		return RKM_CQE_BAD;
	}
	return RKM_CQE_OK;
}
