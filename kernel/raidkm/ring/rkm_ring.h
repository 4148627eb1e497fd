/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The raidkm offload ring protocol in freestanding C: ring producer and
 * consumer operations with the ordering rules of uapi/raidkm.h, the
 * shared-memory layout, and the validators each side runs on what the
 * other side wrote.  Built into raidkm.ko (kernel end), raidkmd and its
 * loopback (daemon end and a user-space kernel end) and the unit tests.
 *
 * Nothing here allocates, sleeps or locks: callers serialise producers
 * among themselves and consumers among themselves.
 */
#ifndef RKM_RING_H
#define RKM_RING_H

#include "rkm_ring_port.h"
#include "../uapi/raidkm.h"

/* Errors returned by this file (negative, errno values) */
#define RKM_RING_EINVAL		22
#define RKM_RING_EPROTO		71
#define RKM_RING_ESTALE		116
#define RKM_RING_EOPNOTSUPP	95

/* ---------------------------------------------------------------------- */
/* Rings                                                                  */
/* ---------------------------------------------------------------------- */

/*
 * One side's view of a ring.  @local is the index this side owns (tail
 * for a producer, head for a consumer): the private copy, the only one it
 * trusts; the shared copy in @ctl is written from it and never read back.
 * @other caches the last validated value of the other side's index.
 */
struct rkm_ring {
	struct raidkm_ring_ctl *ctl;	/* shared control block */
	void *base;			/* shared entries */
	__u32 entries;			/* power of two */
	__u32 mask;
	__u32 esize;			/* bytes per entry */
	__u32 local;
	__u32 other;
};

/* Kernel end (or loopback): fill a control block at setup. */
void rkm_ring_ctl_setup(struct raidkm_ring_ctl *ctl, __u32 entries,
			__u32 esize);

/*
 * Attach a view to a ring whose indices are both at @start (0 for a fresh
 * ring).  The caller has validated entries (power of two) and esize.
 */
void rkm_ring_init(struct rkm_ring *r, struct raidkm_ring_ctl *ctl,
		   void *base, __u32 entries, __u32 esize, __u32 start);

static inline void *rkm_ring_entry(const struct rkm_ring *r, __u32 idx)
{
	return (char *)r->base + (__u64)(idx & r->mask) * r->esize;
}

/*
 * Producer.  rkm_prod_room() returns the number of free entries (reading
 * the consumer's head with acquire), or -RKM_RING_EPROTO when the shared
 * head is impossible (ahead of the tail or more than a ring behind).
 * rkm_prod_slot() gives the entry at the private tail; the caller fills
 * it and calls rkm_prod_commit(); rkm_prod_publish() makes every committed
 * entry visible (store-release of tail) and returns 1 when the consumer
 * asked for a doorbell (RAIDKM_RING_NEED_WAKEUP), after a full barrier.
 */
int rkm_prod_room(struct rkm_ring *r);

static inline void *rkm_prod_slot(struct rkm_ring *r)
{
	return rkm_ring_entry(r, r->local);
}

static inline void rkm_prod_commit(struct rkm_ring *r)
{
	r->local++;
}

int rkm_prod_publish(struct rkm_ring *r);

/*
 * Consumer.  rkm_cons_avail() returns the number of entries ready
 * (reading the producer's tail with acquire), or -RKM_RING_EPROTO for an
 * impossible tail.  Entries i = 0..avail-1 are at rkm_cons_peek(r, i);
 * rkm_cons_release(r, n) retires the first n (store-release of head).
 * Copy an entry out before validating it: the other side may change it.
 *
 * Sleeping: rkm_cons_prepare_sleep() sets RAIDKM_RING_NEED_WAKEUP, issues
 * a full barrier and re-reads the tail; it returns what rkm_cons_avail()
 * would.  When that is 0 the caller may sleep until the doorbell; else it
 * must not (the flag is cleared again).  rkm_cons_woken() clears the flag.
 */
int rkm_cons_avail(struct rkm_ring *r);

static inline void *rkm_cons_peek(const struct rkm_ring *r, __u32 i)
{
	return rkm_ring_entry(r, r->local + i);
}

void rkm_cons_release(struct rkm_ring *r, __u32 n);
int rkm_cons_prepare_sleep(struct rkm_ring *r);
void rkm_cons_woken(struct rkm_ring *r);

/* ---------------------------------------------------------------------- */
/* Shared-memory layout                                                   */
/* ---------------------------------------------------------------------- */

/* What the kernel end chooses; the rest of the header follows from it. */
struct rkm_shm_params {
	__u32 page_size;	/* power of two, >= 4096 */
	__u32 entries;		/* sq and cq entries and slots, power of two */
	__u32 desc_slot_size;	/* bytes of offsets per job, multiple of 8 */
	__u32 max_stripes;	/* 1..RAIDKM_MAX_STRIPES */
	__u32 max_len;		/* RAIDKM_LEN_ALIGN multiple, <= RAIDKM_MAX_LEN */
	__u64 arena_size;	/* input part of the arena: page multiple, > 0 */
	/*
	 * Staging part, after the inputs: page multiple; 0 for none (then
	 * RAIDKM_FEAT_RO_INPUT is not offered, whatever @features says).
	 */
	__u64 stage_size;
	__u64 features;		/* RAIDKM_FEAT_* offered */
	__u64 session;		/* random cookie */
};

/*
 * Kernel end: lay out the mapping and fill struct raidkm_shm_hdr
 * (zeroing it first, then magic, sizes, offsets, ring control blocks;
 * kstate = OPEN).  The rest of the header page is the caller's to zero.
 * @h may be a scratch copy (only sizeof(*h) bytes are written).
 * Returns 0 or -RKM_RING_EINVAL on bad parameters.
 */
int rkm_shm_layout(struct raidkm_shm_hdr *h, const struct rkm_shm_params *p);

/*
 * Daemon end: check a header page it mapped before trusting any size or
 * offset in it.  @mapped is how many bytes are actually mapped (at least
 * RAIDKM_HDR_SIZE, or h->map_size once the whole device is mapped: pass
 * 0 to only check the header is self-consistent).  Returns 0, or
 * -RKM_RING_EPROTO (magic/version) / -RKM_RING_EINVAL with a reason.
 */
int rkm_shm_check(const struct raidkm_shm_hdr *h, __u64 mapped,
		  const char **why);

/* The daemon's validated copy of the limits it checks entries against */
struct rkm_shm_limits {
	__u32 nslots;
	__u32 desc_slot_size;
	__u32 max_stripes;
	__u32 max_len;
	__u64 arena_size;
	/*
	 * Arena offset where staging starts (RAIDKM_FEAT_RO_INPUT): outputs
	 * must lie at or after it, inputs end before it.  0: no split, any
	 * chunk anywhere in the arena (an older kernel end).
	 */
	__u64 stage_start;
	/*
	 * RAIDKM_FEAT_* agreed at ATTACH (rkm_shm_limits() sets 0; the
	 * daemon fills it in from the reply): sqe.want is legal only with
	 * RAIDKM_FEAT_DECODE_WANT.
	 */
	__u64 features;
};

void rkm_shm_limits(const struct raidkm_shm_hdr *h, struct rkm_shm_limits *l);

/* ---------------------------------------------------------------------- */
/* Submission entries: daemon-side validation                             */
/* ---------------------------------------------------------------------- */

/* Number of descriptor offsets a job of this shape uses */
static inline __u32 rkm_job_ndesc(__u8 op, __u32 k, __u32 m, __u32 nstripes)
{
	__u32 n = nstripes * (k + m);

	if (op == RAIDKM_OP_DELTA)
		n += nstripes * k;
	return n;
}

/* Copy a submission entry out of the ring, each field read once. */
void rkm_sqe_read(const struct raidkm_sqe *shared, struct raidkm_sqe *e);

/*
 * Validate a copied entry (everything but the offsets).  Returns 0 or a
 * RAIDKM_ST_* status (negative) with a reason.
 */
int rkm_sqe_check(const struct raidkm_sqe *e, const struct rkm_shm_limits *l,
		  const char **why);

/*
 * Is descriptor entry @i of a checked entry an output chunk (ENCODE and
 * DELTA: parity; DECODE: a wanted erased chunk)?  Everything else is an
 * input or unused (rkm_chunk_role).
 */
int rkm_desc_is_output(const struct raidkm_sqe *e, __u32 i);

/*
 * Copy and validate the offsets of a checked entry from its descriptor
 * slot @desc (shared) into @offs (ndesc entries, private): aligned, inside
 * the arena, and with l->stage_start, outputs in staging and inputs
 * before it.  Returns 0 or RAIDKM_ST_EINVAL with a reason.
 */
int rkm_desc_read(const struct raidkm_sqe *e, const __u64 *desc,
		  const struct rkm_shm_limits *l, __u64 *offs,
		  const char **why);

/* ---------------------------------------------------------------------- */
/* Descriptors: the job-to-descriptor encoding (rkm_desc.c)               */
/* ---------------------------------------------------------------------- */

/* What chunk i of a stripe is to a job */
enum rkm_chunk_role {
	/* RAIDKM_OFF_NONE (DELTA: unchanged data; DECODE: erased, unwanted) */
	RKM_CHUNK_UNUSED = 0,
	RKM_CHUNK_IN,		/* read */
	RKM_CHUNK_OUT,		/* written */
};

/*
 * The role of chunk @i (0..k+m-1) of a stripe in a job of @op with @mask
 * and, for DECODE, @want (the chunks rebuilt; 0: all of mask).
 */
int rkm_chunk_role(__u8 op, __u32 k, __u64 mask, __u64 want, __u32 i);

/* A job's stripe as its submitter holds it: chunk pointers */
struct rkm_desc_job {
	__u8 op;		/* RAIDKM_OP_* */
	__u32 k, m;
	__u32 len;
	__u64 mask;
	__u64 want;		/* DECODE: chunks described as outputs; 0: mask */
	void *const *chunk;	/* [k + m]: data, then parity */
	void *const *old;	/* DELTA: [k] old data */
};

/*
 * The arena offset of the @len bytes at @p: 0 and *off set, or non-zero
 * when they are not (all) in the arena.
 */
typedef int (*rkm_desc_off_fn)(void *ctx, const void *p, __u32 len,
			       __u64 *off);

/* rkm_desc_encode's @out_off: outputs described where their chunks lie */
#define RKM_DESC_IN_PLACE	(~(__u64)0)

/*
 * Describe stripe @st of an entry of @ns stripes (the uapi layout) into
 * @desc, or with @desc NULL only check it: inputs at the offsets @off_of
 * gives for their chunks; outputs consecutive from arena offset @out_off
 * (staging: their chunk pointers are not looked at) or, with
 * RKM_DESC_IN_PLACE, where their chunks lie; unused entries
 * RAIDKM_OFF_NONE.  Returns the chunk bytes described, or 0 when a chunk
 * the job reads (or, in place, writes) is NULL or outside the arena.
 */
__u32 rkm_desc_encode(const struct rkm_desc_job *j, __u64 *desc, __u32 st,
		      __u32 ns, __u64 out_off, rkm_desc_off_fn off_of,
		      void *ctx);

/* ---------------------------------------------------------------------- */
/* Completion entries: kernel-side validation                             */
/* ---------------------------------------------------------------------- */

/* Outcomes of completion validation */
#define RKM_CQE_OK	0	/* completes the job in slot id */
#define RKM_CQE_STALE	1	/* late or duplicate: count, ignore */
#define RKM_CQE_BAD	(-1)	/* malformed or forged: daemon fault */

/* Copy a completion entry out of the ring, each field read once. */
void rkm_cqe_read(const struct raidkm_cqe *shared, struct raidkm_cqe *c);

/* Checks that need no job state: id range, status, flags, reserved. */
int rkm_cqe_check(const struct raidkm_cqe *c, __u32 nslots, const char **why);

/* The kernel's view of job slot c->id when the completion is matched */
struct rkm_slot_state {
	__u32 gen;		/* generation last issued for this slot */
	__u8 busy;		/* a job with that generation is in flight */
	__u8 op;		/* its op */
	__u16 __pad;
	__u32 nstripes;		/* its stripe count */
};

/*
 * Match a checked completion against its slot: OK when busy and the
 * generation is current; STALE when the generation is current but the
 * slot is idle (finished on the CPU) or the generation is older; BAD
 * when it is newer (never issued) or the check bitmap does not fit op
 * and nstripes.
 */
int rkm_cqe_match(const struct raidkm_cqe *c, const struct rkm_slot_state *s,
		  const char **why);

/* ---------------------------------------------------------------------- */
/* ATTACH request: kernel-side validation                                 */
/* ---------------------------------------------------------------------- */

struct rkm_attach_req {
	__u32 present;		/* bit (1 << RAIDKM_A_*) per attribute seen */
	__u32 version;
	__u64 features;
	__u64 session;
	char backend[RAIDKM_BACKEND_NAME_MAX];
	__u32 max_k;
	__u32 max_m;
	__u32 batch;
	__u32 ops;
};

/* Defaults for the optional attributes */
void rkm_attach_init(struct rkm_attach_req *r);

/*
 * Take one attribute (type, payload, payload length) of an ATTACH
 * message.  Checks the payload length for the attribute's type exactly,
 * and the string form of BACKEND.  Unknown types are ignored (growth);
 * a repeated attribute is an error.  Returns 0 or -RKM_RING_EINVAL.
 */
int rkm_attach_attr(struct rkm_attach_req *r, __u16 type, const void *data,
		    __u32 len, const char **why);

/*
 * Check a complete request against this open's session and the kernel's
 * features; on success r->features is the agreed set.  Returns 0,
 * -RKM_RING_EINVAL (missing/out-of-range attribute), -RKM_RING_EPROTO
 * (version) or -RKM_RING_ESTALE (session), with a reason.
 */
int rkm_attach_check(struct rkm_attach_req *r, __u64 session,
		     __u64 offered, const char **why);

/*
 * Walk a buffer of netlink attributes (struct nlattr TLVs, 4-byte
 * aligned) calling rkm_attach_attr() for each: the path the fuzz test
 * drives with raw bytes.  Returns 0 or -RKM_RING_EINVAL.
 */
int rkm_attach_parse(struct rkm_attach_req *r, const void *buf, __u32 len,
		     const char **why);

#endif /* RKM_RING_H */
