// SPDX-License-Identifier: GPL-2.0
/*
 * Layout of the /dev/raidkm mapping: written by the kernel end, checked
 * by the daemon end before it trusts a single size or offset.
 */
#include "rkm_ring.h"

static int is_pow2(__u64 x)
{
	return x && !(x & (x - 1));
}

static __u64 round_up_to(__u64 x, __u64 a)
{
	return (x + a - 1) / a * a;
}

int rkm_shm_layout(struct raidkm_shm_hdr *h, const struct rkm_shm_params *p)
{
	__u64 ps = p->page_size, off;

	if (!is_pow2(ps) || ps < RAIDKM_HDR_SIZE ||
	    !is_pow2(p->entries) || p->entries < RAIDKM_MIN_ENTRIES ||
	    p->entries > RAIDKM_MAX_ENTRIES ||
	    p->desc_slot_size < 8 || p->desc_slot_size % 8 ||
	    p->max_stripes < 1 || p->max_stripes > RAIDKM_MAX_STRIPES ||
	    p->max_len < RAIDKM_LEN_ALIGN || p->max_len % RAIDKM_LEN_ALIGN ||
	    p->max_len > RAIDKM_MAX_LEN ||
	    !p->arena_size || p->arena_size % ps || p->stage_size % ps)
		return -RKM_RING_EINVAL;

	memset(h, 0, sizeof(*h));
	h->magic = RAIDKM_SHM_MAGIC;
	h->version = RAIDKM_PROTO_VERSION;
	h->hdr_size = sizeof(*h);
	h->page_size = ps;
	h->features = p->features & RAIDKM_FEAT_ALL & ~RAIDKM_FEAT_RO_INPUT;
	if (p->stage_size)
		h->features |= RAIDKM_FEAT_RO_INPUT;
	h->session = p->session;
	h->kstate = RAIDKM_KSTATE_OPEN;

	off = ps;
	h->sq_off = off;
	h->sq_entries = p->entries;
	h->sqe_size = sizeof(struct raidkm_sqe);
	off += round_up_to((__u64)p->entries * sizeof(struct raidkm_sqe), ps);

	h->cq_off = off;
	h->cq_entries = p->entries;
	h->cqe_size = sizeof(struct raidkm_cqe);
	off += round_up_to((__u64)p->entries * sizeof(struct raidkm_cqe), ps);

	h->desc_off = off;
	h->nslots = p->entries;
	h->desc_slot_size = p->desc_slot_size;
	off += round_up_to((__u64)p->entries * p->desc_slot_size, ps);

	h->arena_off = off;
	h->arena_size = p->arena_size + p->stage_size;
	off += p->arena_size;
	if (p->stage_size) {
		h->stage_off = off;
		h->stage_size = p->stage_size;
		off += p->stage_size;
	}

	h->map_size = off;
	h->max_stripes = p->max_stripes;
	h->max_len = p->max_len;

	rkm_ring_ctl_setup(&h->sq_ctl, p->entries, sizeof(struct raidkm_sqe));
	rkm_ring_ctl_setup(&h->cq_ctl, p->entries, sizeof(struct raidkm_cqe));
	return 0;
}

/* [off, off + len) inside [ps, map) and page aligned */
static int region_ok(__u64 off, __u64 len, __u64 ps, __u64 map)
{
	return off >= ps && off % ps == 0 && len > 0 && len <= map &&
	       off <= map - len;
}

/* Regions must not overlap: the order is fixed, check it. */
static int ordered(__u64 a_off, __u64 a_len, __u64 b_off)
{
	return a_off + a_len <= b_off;
}

int rkm_shm_check(const struct raidkm_shm_hdr *h, __u64 mapped,
		  const char **why)
{
	__u64 ps = h->page_size, map = h->map_size;
	__u64 sq_len = (__u64)h->sq_entries * sizeof(struct raidkm_sqe);
	__u64 cq_len = (__u64)h->cq_entries * sizeof(struct raidkm_cqe);
	__u64 desc_len = (__u64)h->nslots * h->desc_slot_size;

	*why = NULL;
	if (h->magic != RAIDKM_SHM_MAGIC) {
		*why = "bad magic (not a raidkm device?)";
		return -RKM_RING_EPROTO;
	}
	if (h->version != RAIDKM_PROTO_VERSION) {
		*why = "protocol version mismatch";
		return -RKM_RING_EPROTO;
	}
	if (h->hdr_size < sizeof(*h) || h->hdr_size > RAIDKM_HDR_SIZE)
		*why = "bad header size";
	else if (!is_pow2(ps) || ps < RAIDKM_HDR_SIZE)
		*why = "bad page size";
	else if (mapped && map > mapped)
		*why = "map_size larger than the mapping";
	else if (map % ps)
		*why = "map_size not page aligned";
	else if (!is_pow2(h->sq_entries) || h->sq_entries < RAIDKM_MIN_ENTRIES ||
		 h->sq_entries > RAIDKM_MAX_ENTRIES ||
		 !is_pow2(h->cq_entries) || h->cq_entries > RAIDKM_MAX_ENTRIES)
		*why = "bad ring size";
	else if (h->sqe_size != sizeof(struct raidkm_sqe) ||
		 h->cqe_size != sizeof(struct raidkm_cqe))
		*why = "bad ring entry size";
	else if (h->nslots != h->sq_entries || h->cq_entries < h->nslots)
		*why = "slot count does not match the rings";
	else if (h->desc_slot_size < 8 || h->desc_slot_size % 8 ||
		 h->desc_slot_size > (1u << 20))
		*why = "bad descriptor slot size";
	else if (h->max_stripes < 1 || h->max_stripes > RAIDKM_MAX_STRIPES)
		*why = "bad max_stripes";
	else if (h->max_len < RAIDKM_LEN_ALIGN ||
		 h->max_len % RAIDKM_LEN_ALIGN || h->max_len > RAIDKM_MAX_LEN)
		*why = "bad max_len";
	else if (!region_ok(h->sq_off, sq_len, ps, map) ||
		 !region_ok(h->cq_off, cq_len, ps, map) ||
		 !region_ok(h->desc_off, desc_len, ps, map) ||
		 !region_ok(h->arena_off, h->arena_size, ps, map))
		*why = "region outside the mapping";
	else if (!ordered(h->sq_off, sq_len, h->cq_off) ||
		 !ordered(h->cq_off, cq_len, h->desc_off) ||
		 !ordered(h->desc_off, desc_len, h->arena_off))
		*why = "regions overlap";
	else if (h->arena_size % ps)
		*why = "arena not page aligned";
	else if (!(h->features & RAIDKM_FEAT_RO_INPUT) &&
		 (h->stage_off || h->stage_size))
		*why = "staging region without RAIDKM_FEAT_RO_INPUT";
	else if ((h->features & RAIDKM_FEAT_RO_INPUT) &&
		 (!h->stage_size || h->stage_size % ps ||
		  h->stage_off % ps || h->stage_off <= h->arena_off ||
		  h->stage_size >= h->arena_size ||
		  h->stage_off != h->arena_off + h->arena_size - h->stage_size))
		*why = "staging region is not the page-aligned end of the arena";
	else if (h->sq_ctl.entries != h->sq_entries ||
		 h->sq_ctl.mask != h->sq_entries - 1 ||
		 h->cq_ctl.entries != h->cq_entries ||
		 h->cq_ctl.mask != h->cq_entries - 1)
		*why = "ring control block does not match the header";
	return *why ? -RKM_RING_EINVAL : 0;
}

void rkm_shm_limits(const struct raidkm_shm_hdr *h, struct rkm_shm_limits *l)
{
	l->nslots = h->nslots;
	l->desc_slot_size = h->desc_slot_size;
	l->max_stripes = h->max_stripes;
	l->max_len = h->max_len;
	l->arena_size = h->arena_size;
	l->stage_start = (h->features & RAIDKM_FEAT_RO_INPUT) ?
			 h->stage_off - h->arena_off : 0;
}
