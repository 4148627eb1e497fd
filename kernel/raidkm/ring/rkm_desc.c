// SPDX-License-Identifier: GPL-2.0
/*
 * The job-to-descriptor encoding, written once: which chunks of a stripe
 * a job reads, writes or leaves out, and the arena offsets that describe
 * them (uapi/raidkm.h, struct raidkm_sqe).  raidkm.ko's dispatcher, the
 * loopback kernel end and the daemon's checks all use it.
 */
#include "rkm_ring.h"

int rkm_chunk_role(__u8 op, __u32 k, __u64 mask, __u64 want, __u32 i)
{
	__u64 bit = (__u64)1 << i;

	switch (op) {
	case RAIDKM_OP_ENCODE:
		return i < k ? RKM_CHUNK_IN : RKM_CHUNK_OUT;
	case RAIDKM_OP_DECODE:
		if (!(mask & bit))
			return RKM_CHUNK_IN;
		return (want ? want : mask) & bit ? RKM_CHUNK_OUT :
						    RKM_CHUNK_UNUSED;
	case RAIDKM_OP_DELTA:
		if (i >= k)
			return RKM_CHUNK_OUT;
		return mask & bit ? RKM_CHUNK_IN : RKM_CHUNK_UNUSED;
	default:
		return RKM_CHUNK_IN;
	}
}

/* The offset of chunk @p; 0 when it is missing or not in the arena */
static __u32 chunk_at(const void *p, __u32 len, rkm_desc_off_fn off_of,
		      void *ctx, __u64 *off)
{
	return p && !off_of(ctx, p, len, off) ? len : 0;
}

/* DELTA's old data of stripe @st: the bytes described, 0 on a bad chunk */
static __u32 encode_old(const struct rkm_desc_job *j, __u64 *desc,
			__u32 st, __u32 ns, rkm_desc_off_fn off_of, void *ctx)
{
	__u32 i, bytes = 0, n = j->k + j->m;
	__u64 off;

	for (i = 0; i < j->k; i++) {
		off = RAIDKM_OFF_NONE;
		if (j->mask & ((__u64)1 << i)) {
			if (!chunk_at(j->old[i], j->len, off_of, ctx, &off))
				return 0;
			bytes += j->len;
		}
		if (desc)
			rkm_ring_write_once(desc[ns * n + st * j->k + i], off);
	}
	return bytes;
}

__u32 rkm_desc_encode(const struct rkm_desc_job *j, __u64 *desc, __u32 st,
		      __u32 ns, __u64 out_off, rkm_desc_off_fn off_of,
		      void *ctx)
{
	__u32 i, bytes = 0, n = j->k + j->m, old;
	__u64 off;
	int role;

	for (i = 0; i < n; i++) {
		off = RAIDKM_OFF_NONE;
		role = rkm_chunk_role(j->op, j->k, j->mask, j->want, i);
		if (role == RKM_CHUNK_OUT && out_off != RKM_DESC_IN_PLACE) {
			off = out_off;
			out_off += j->len;
			bytes += j->len;
		} else if (role != RKM_CHUNK_UNUSED) {
			if (!chunk_at(j->chunk[i], j->len, off_of, ctx, &off))
				return 0;
			bytes += j->len;
		}
		if (desc)
			rkm_ring_write_once(desc[st * n + i], off);
	}
	if (j->op != RAIDKM_OP_DELTA)
		return bytes;
	old = encode_old(j, desc, st, ns, off_of, ctx);
	return old ? bytes + old : 0;
}
