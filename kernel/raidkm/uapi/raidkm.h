/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * raidkm offload protocol: the whole contract between raidkm.ko and the
 * user-space coding daemon raidkmd.  Documentation/uapi.rst tells the same
 * story in prose; this header is authoritative.
 *
 * Two channels:
 *
 *  1. A shared mapping of the misc device /dev/raidkm (root only, one
 *     opener at a time).  It holds, at offsets the header page publishes:
 *
 *       +--------------------+ 0
 *       | header page        |  struct raidkm_shm_hdr (magic, version,
 *       |                    |  sizes, offsets, ring control blocks)
 *       +--------------------+ hdr->sq_off
 *       | submission ring    |  sq_entries x struct raidkm_sqe
 *       |                    |  (kernel produces, daemon consumes)
 *       +--------------------+ hdr->cq_off
 *       | completion ring    |  cq_entries x struct raidkm_cqe
 *       |                    |  (daemon produces, kernel consumes)
 *       +--------------------+ hdr->desc_off
 *       | descriptor area    |  nslots x desc_slot_size bytes: per job
 *       |                    |  slot, the arena offsets of its chunks
 *       |                    |  (kernel writes, daemon only reads)
 *       +--------------------+ hdr->arena_off
 *       | arena: inputs      |  the stripe cache's pages: every chunk a
 *       |                    |  job reads (read-only for the daemon)
 *       +- - - - - - - - - - + hdr->stage_off  (RAIDKM_FEAT_RO_INPUT)
 *       | arena: staging     |  stage_size bytes the kernel hands out as
 *       |                    |  job outputs (the daemon writes them)
 *       +--------------------+ hdr->map_size == arena_off + arena_size
 *
 *     Every offset in the header is a multiple of hdr->page_size and every
 *     region is a whole number of pages.  Chunk offsets in descriptors are
 *     relative to arena_off and cover both parts of the arena.
 *
 *     With RAIDKM_FEAT_RO_INPUT (always offered by raidkm.ko, and then
 *     required at ATTACH) the daemon maps three pieces, MAP_SHARED, each
 *     at its own file offset (MAP_FIXED into one reserved range keeps
 *     them contiguous): [0, arena_off) PROT_READ | PROT_WRITE,
 *     [arena_off, stage_off) PROT_READ only, [stage_off, map_size)
 *     PROT_READ | PROT_WRITE.  The kernel refuses (-EACCES) a writable
 *     mapping of any input page and maps input pages without VM_MAYWRITE,
 *     so neither mprotect() nor mremap() nor FOLL_FORCE can make them
 *     writable.  Without the feature (an older kernel end) the daemon
 *     maps [0, map_size) once, read-write.
 *
 *  2. A generic netlink family RAIDKM_GENL_NAME for control: ATTACH,
 *     DETACH, GET_STATS (daemon/tool -> kernel), and the doorbells
 *     DOORBELL (kernel -> daemon, unicast) and COMPLETE (daemon -> kernel).
 *
 * Trust: the kernel never trusts anything the daemon can write.  It keeps
 * private copies of its own ring indices and of every job's descriptor,
 * reads a completion entry exactly once, and validates every field of it
 * (id in range, slot busy, generation match, status, check bitmap).  The
 * daemon, in turn, validates each submission entry and descriptor before
 * it touches memory (offsets inside the arena, aligned, geometry legal,
 * inputs in the input part and outputs in staging), so a garbage ring
 * cannot crash it.
 *
 * Threat model (RAIDKM_FEAT_RO_INPUT; Documentation/offload.rst has the
 * long form).  What a daemon can do, by bug or on purpose, through the
 * shared memory and netlink:
 *
 *  - Read every input page (the stripe cache: user data and parity).
 *    A daemon sees the data of every array it serves.
 *  - Write the rings, descriptors it should only read, and staging.
 *    Garbage there costs it its session (the kernel validates what it
 *    reads once) and never a kernel crash.
 *  - Return wrong outputs, or none.  Outputs are staged: the kernel
 *    copies a job's outputs into the stripe's own pages only when it
 *    accepts the completion, then checks (spot, sampled or full) exactly
 *    those copied bytes; writes to staging after that (the completion
 *    ring's head past the entry tells when, struct raidkm_cqe) reach
 *    that job no more.
 *    What the checks miss of a wrong result is the only way a daemon can
 *    change what reaches the disks: wrong parity (found by a parity
 *    check) or a wrong rebuilt chunk.
 *
 * What it cannot do: write an input page (user data, parity, survivors,
 * DELTA's old data) through its mapping (nor through a device it
 * registers the mapping with, once registered read-only), change outputs
 * after acceptance, make the kernel complete a job wrongly formed, or
 * hang a job (deadlines).  This holds against a buggy daemon and a
 * faulty GPU stack.  A hostile root process is not confined by it: root
 * can load a module or write the member disks; the boundary keeps the
 * daemon's own access to the shared memory from reaching the data.
 *
 * All multi-byte fields are in host byte order.  All structures have
 * explicit widths and no implicit padding.
 */
#ifndef _UAPI_RAIDKM_H
#define _UAPI_RAIDKM_H

#if defined(__KERNEL__) || defined(__linux__)
#include <linux/types.h>
#else
#include <stdint.h>
typedef uint8_t __u8;
typedef uint16_t __u16;
typedef uint32_t __u32;
typedef uint64_t __u64;
typedef int32_t __s32;
#endif

/* ====================================================================== */
/* Versions, limits                                                       */
/* ====================================================================== */

/*
 * Protocol version.  The same number is the generic netlink family version
 * and hdr->version.  A daemon refuses a kernel whose version it does not
 * know; the kernel refuses an ATTACH whose RAIDKM_A_VERSION differs from
 * its own (-EPROTO).  Compatible growth uses feature bits and reserved
 * fields, not version bumps.
 */
#define RAIDKM_PROTO_VERSION	1

/* hdr->magic: "RKM1" read as a little-endian u32 */
#define RAIDKM_SHM_MAGIC	0x314d4b52u

/* The shared-memory header occupies exactly one page of this size.
 * The kernel publishes its real PAGE_SIZE in hdr->page_size (4096 on
 * x86-64); every region offset and size is a multiple of it.
 */
#define RAIDKM_HDR_SIZE		4096

/* Ring sizes: powers of two in [RAIDKM_MIN_ENTRIES, RAIDKM_MAX_ENTRIES]. */
#define RAIDKM_MIN_ENTRIES	8
#define RAIDKM_MAX_ENTRIES	4096

/* Stripes one job may describe (batching): 1..RAIDKM_MAX_STRIPES.  The
 * completion's check bitmap has one bit per stripe, hence 64.
 */
#define RAIDKM_MAX_STRIPES	64

/* Geometry accepted on the ring; same limits as the codec (rkm_codec.h). */
#define RAIDKM_MIN_K		2
#define RAIDKM_MAX_M		16
#define RAIDKM_MAX_N		64	/* k + m */

/* Chunk length: a multiple of RAIDKM_LEN_ALIGN, at most RAIDKM_MAX_LEN. */
#define RAIDKM_LEN_ALIGN	64
#define RAIDKM_MAX_LEN		(1u << 20)

/* Arena offsets of chunks are multiples of this (the kernel's are page
 * aligned today; the daemon accepts any multiple of 64).
 */
#define RAIDKM_OFF_ALIGN	64

/* An unused descriptor entry (DELTA: chunks and old data of unchanged
 * data chunks).  Any other value must name a chunk inside the arena.
 */
#define RAIDKM_OFF_NONE		(~(__u64)0)

/* Backend name: NUL-terminated, [a-z0-9_-], 1..15 characters. */
#define RAIDKM_BACKEND_NAME_MAX	16

/* ====================================================================== */
/* Shared memory: ring control blocks and the header page                 */
/* ====================================================================== */

/*
 * One ring's control block, 256 bytes, each index in its own 64-byte
 * cache line so producer and consumer do not false-share.
 *
 * Indices are free-running u32 counters; the entry for index i is
 * ring[i & (entries - 1)].  The ring is empty when head == tail and full
 * when tail - head == entries (u32 arithmetic).  Each side keeps a private
 * copy of the index it owns and only ever *writes* the shared one; the
 * index it reads from the other side is checked: a value with
 * tail - head > entries is a protocol violation.
 *
 * Ordering (acquire/release, like io_uring):
 *
 *   producer:  write entry ring[tail & mask];
 *              store_release(&ctl->tail, tail + 1);
 *   consumer:  t = load_acquire(&ctl->tail);
 *              read entries [head, t);
 *              store_release(&ctl->head, t);
 *   producer:  h = load_acquire(&ctl->head);   before reusing entries
 *
 * so an entry is fully written before its tail is visible, and fully
 * read before its head is visible.
 *
 * Wake-up suppression (the doorbell protocol, both rings alike):
 *
 *   consumer, before sleeping:
 *              store(&ctl->flags, RAIDKM_RING_NEED_WAKEUP);
 *              full barrier (smp_mb / __atomic_thread_fence(SEQ_CST));
 *              if (load_acquire(&ctl->tail) != head) { clear flag; run }
 *              else sleep until a doorbell arrives;
 *   producer, after publishing tail:
 *              full barrier;
 *              if (load(&ctl->flags) & RAIDKM_RING_NEED_WAKEUP)
 *                      ring the doorbell (one message for the batch);
 *
 * The full barriers on both sides make a lost wake-up impossible.  A
 * consumer that never sets the flag is polling and gets no doorbells.
 * Spurious doorbells are harmless.
 */
struct raidkm_ring_ctl {
	/* written by the consumer only; read by the producer */
	__u32 head;
	__u32 __pad_head[15];
	/* written by the producer only; read by the consumer */
	__u32 tail;
	__u32 __pad_tail[15];
	/* written by the consumer only: RAIDKM_RING_* flags */
	__u32 flags;
	__u32 __pad_flags[15];
	/* written by the kernel at setup, read-only afterwards */
	__u32 entries;		/* power of two */
	__u32 mask;		/* entries - 1 */
	__u32 entry_size;	/* sizeof(struct raidkm_sqe / raidkm_cqe) */
	__u32 __resv[13];
};

/* ctl->flags: the consumer sleeps, the producer must ring the doorbell */
#define RAIDKM_RING_NEED_WAKEUP	(1u << 0)

/* hdr->kstate: written by the kernel only (store_release) */
enum raidkm_kstate {
	RAIDKM_KSTATE_OPEN = 0,		/* mapped, not attached yet */
	RAIDKM_KSTATE_RUNNING = 1,	/* attached: jobs may be submitted */
	/*
	 * No new submission will follow (DETACH received, verify mismatch,
	 * module unloading).  The daemon finishes what is on the ring, posts
	 * the completions, sends COMPLETE, and closes the device.  Jobs it
	 * leaves unfinished are re-run on the CPU by the kernel.
	 */
	RAIDKM_KSTATE_CLOSED = 2,
};

/*
 * The header page, at offset 0 of the mapping.  Written by the kernel
 * when /dev/raidkm is opened, before mmap can succeed; read-only for the
 * daemon except for the ring control fields marked "consumer"/"producer"
 * above (sq_ctl.head, sq_ctl.flags, cq_ctl.tail).
 */
struct raidkm_shm_hdr {
	__u32 magic;		/* RAIDKM_SHM_MAGIC */
	__u32 version;		/* RAIDKM_PROTO_VERSION */
	__u32 hdr_size;		/* sizeof(struct raidkm_shm_hdr) */
	__u32 page_size;	/* kernel PAGE_SIZE */
	__u64 features;		/* RAIDKM_FEAT_* the kernel offers */
	__u64 map_size;		/* bytes to mmap at offset 0 */
	/*
	 * Random per-open cookie: the daemon copies it into ATTACH's
	 * RAIDKM_A_SESSION, which proves the attaching netlink socket
	 * belongs to the process that holds /dev/raidkm open and mapped.
	 */
	__u64 session;
	__u32 kstate;		/* enum raidkm_kstate, kernel-written */
	__u32 __resv0;

	/* submission ring: sq_entries struct raidkm_sqe at sq_off */
	__u64 sq_off;
	__u32 sq_entries;
	__u32 sqe_size;		/* sizeof(struct raidkm_sqe) */
	/* completion ring: cq_entries struct raidkm_cqe at cq_off */
	__u64 cq_off;
	__u32 cq_entries;	/* >= nslots: the CQ can never overflow */
	__u32 cqe_size;		/* sizeof(struct raidkm_cqe) */
	/*
	 * Descriptor area: nslots slots of desc_slot_size bytes each at
	 * desc_off.  Slot i belongs to the job whose sqe.id == i.
	 */
	__u64 desc_off;
	__u32 nslots;		/* jobs in flight at most; == sq_entries */
	__u32 desc_slot_size;	/* bytes per slot, multiple of 8 */
	/* arena: the data pages every chunk offset is relative to */
	__u64 arena_off;
	__u64 arena_size;
	__u32 max_stripes;	/* <= RAIDKM_MAX_STRIPES */
	__u32 max_len;		/* <= RAIDKM_MAX_LEN */
	/*
	 * RAIDKM_FEAT_RO_INPUT: the staging part of the arena, at its end:
	 * arena_off < stage_off, stage_off + stage_size == arena_off +
	 * arena_size.  Output chunks (ENCODE and DELTA parity, DECODE's
	 * rebuilt chunks) lie in it, every other chunk before it.  Both
	 * zero without the feature.
	 */
	__u64 stage_off;
	__u64 stage_size;
	__u64 __resv1[6];	/* zero */

	/* at byte 256 and 512: the two rings' control blocks */
	__u8 __pad_to_ctl[72];	/* up to byte 256 */
	struct raidkm_ring_ctl sq_ctl;	/* kernel produces, daemon consumes */
	struct raidkm_ring_ctl cq_ctl;	/* daemon produces, kernel consumes */
};

/* Feature bits (hdr->features, RAIDKM_A_FEATURES).  The daemon asks for
 * the subset it understands; the ATTACH reply carries the agreed set.
 */
#define RAIDKM_FEAT_NEED_WAKEUP	(1ull << 0)	/* ring flags honoured */
#define RAIDKM_FEAT_CHECK_BITMAP (1ull << 1)	/* cqe.check_bitmap per stripe */
/*
 * Inputs read-only, outputs staged (stage_off, stage_size; the mapping
 * rules above).  A kernel end that offers it requires it: an ATTACH
 * without it is refused with -EPROTO.
 */
#define RAIDKM_FEAT_RO_INPUT	(1ull << 2)
/*
 * sqe.want honoured: a DECODE rebuilds only the erased chunks set in
 * want, and only those are described as outputs (the other erased
 * chunks' descriptor entries are RAIDKM_OFF_NONE).  A daemon asks for it
 * only when every backend it codes with writes just the wanted chunks;
 * without it the kernel describes every erased chunk as an output, as
 * before, and uses only the wanted ones.
 */
#define RAIDKM_FEAT_DECODE_WANT	(1ull << 3)
#define RAIDKM_FEAT_ALL		(RAIDKM_FEAT_NEED_WAKEUP | \
				 RAIDKM_FEAT_CHECK_BITMAP | \
				 RAIDKM_FEAT_RO_INPUT | \
				 RAIDKM_FEAT_DECODE_WANT)

/* ====================================================================== */
/* Ring entries                                                           */
/* ====================================================================== */

/* sqe.op */
enum raidkm_op {
	RAIDKM_OP_ENCODE = 1,	/* chunk[0..k-1] -> chunk[k..k+m-1] */
	RAIDKM_OP_DECODE = 2,	/* rebuild chunks set in want (mask: erased) */
	RAIDKM_OP_DELTA = 3,	/* parity ^= f(old[i] ^ chunk[i]), i in mask */
	RAIDKM_OP_CHECK = 4,	/* per stripe: consistent or not */
	RAIDKM_OP_MAX = 4,
};

/*
 * Submission entry, 64 bytes; written by the kernel, read by the daemon.
 *
 * The job covers nstripes stripes of one geometry (k, m, len, op, mask).
 * Its chunk offsets live in descriptor slot @id (at hdr->desc_off +
 * id * hdr->desc_slot_size) as an array of ndesc __u64 arena offsets:
 *
 *   [s * (k + m) + i]                  chunk i of stripe s, i in 0..k+m-1
 *                                      (data 0..k-1, then parity)
 *   [nstripes * (k + m) + s * k + i]   DELTA only: old contents of data
 *                                      chunk i of stripe s
 *
 * so ndesc = nstripes * (k + m), plus nstripes * k for DELTA.  Chunk c
 * occupies arena bytes [off, off + len).  For DELTA, entries of data
 * chunks whose bit is clear in mask (both new and old) may be
 * RAIDKM_OFF_NONE; for DECODE with a want, entries of chunks in mask but
 * not in want must be RAIDKM_OFF_NONE; every other entry names a chunk
 * in the arena.
 *
 * DECODE: the chunks not in mask are the survivors (the first k of them
 * are read).  want (RAIDKM_FEAT_DECODE_WANT agreed) is the non-empty
 * subset of mask the job rebuilds: only those chunks are outputs.  The
 * kernel may mark more chunks erased than were lost, to choose which k
 * survivors are read.  Without the feature, and for every other op, want
 * is zero and a DECODE rebuilds every chunk in mask.
 *
 * The daemon must check: op known; k >= RAIDKM_MIN_K, 1 <= m <=
 * RAIDKM_MAX_M, k + m <= RAIDKM_MAX_N; len a non-zero multiple of
 * RAIDKM_LEN_ALIGN and <= hdr->max_len; 1 <= nstripes <= hdr->max_stripes;
 * id < hdr->nslots; ndesc equal to the formula above and ndesc * 8 <=
 * desc_slot_size; mask legal for op (DECODE: 1..m bits below k + m;
 * DELTA: 1+ bits below k; ENCODE, CHECK: 0); want legal (DECODE with
 * RAIDKM_FEAT_DECODE_WANT: a non-empty subset of mask; else 0); flags
 * and reserved zero; every offset a multiple of RAIDKM_OFF_ALIGN with
 * off + len <= arena_size, or RAIDKM_OFF_NONE where allowed above; with
 * RAIDKM_FEAT_RO_INPUT, every output chunk (ENCODE and
 * DELTA: chunks k..k+m-1 of each stripe; DECODE: the chunks in want, or
 * in mask without a want)
 * inside staging (off >= stage_off - arena_off) and every other chunk
 * before it (off + len <= stage_off - arena_off).  A bad entry is answered with status -EINVAL; the daemon
 * does not touch the arena for it.  (An entry whose id is out of range
 * cannot be answered: the daemon only logs it, and the kernel, which
 * never writes one, recovers the job by its deadline.)
 */
struct raidkm_sqe {
	__u32 id;		/* job slot: in-flight table and descriptor index */
	__u32 gen;		/* slot generation, bumped by the kernel per use */
	__u8 op;		/* enum raidkm_op */
	__u8 k;			/* data chunks per stripe */
	__u8 m;			/* parity chunks per stripe */
	__u8 flags;		/* none defined: zero */
	__u32 len;		/* bytes per chunk */
	__u32 nstripes;		/* stripes in this job, 1..max_stripes */
	__u32 ndesc;		/* __u64 offsets used in the descriptor slot */
	__u64 mask;		/* DECODE: erased chunks; DELTA: changed data */
	__u64 want;		/* DECODE: the chunks rebuilt (FEAT_DECODE_WANT) */
	__u64 __resv[3];	/* zero */
};

/*
 * Completion entry, 32 bytes; written by the daemon, read by the kernel.
 *
 * Exactly one completion per submission entry the daemon consumed,
 * in any order.  Posting it hands the job's staged outputs to the kernel:
 * the daemon must not write them afterwards.  The kernel copies them out
 * of staging and checks the copy before it moves cq_ctl.head past the
 * entry.  A write after the post and before the head has passed may be
 * copied: it is then checked as the job's result, and a wrong one costs
 * the daemon its session (the CPU's result is used).  A write after the
 * head has passed reaches the job no more; the kernel may have handed
 * that staging to a later job of the daemon's, whose output it then is
 * (checked as one).  The kernel copies the entry once, then accepts it only if
 * id < nslots, slot id is in flight, gen equals that slot's generation,
 * status is 0 or one of the RAIDKM_ST_* errors, check_bitmap is zero
 * unless op == CHECK and status == 0 and only has bits below nstripes,
 * and flags and reserved are zero.  A completion for an idle slot or an older generation (the job
 * was already finished on the CPU after its deadline) is counted and
 * ignored; any other bad completion is a daemon fault: the kernel
 * detaches the daemon and re-runs its jobs on the CPU.
 */
struct raidkm_cqe {
	__u32 id;		/* sqe.id */
	__u32 gen;		/* sqe.gen */
	__s32 status;		/* 0, or a RAIDKM_ST_* (negative errno) */
	__u32 flags;		/* none defined: zero */
	/* CHECK: bit s set = stripe s is not a codeword.  Otherwise 0. */
	__u64 check_bitmap;
	__u64 __resv;		/* zero */
};

/* cqe.status: any non-zero status makes the kernel run the job on the CPU */
#define RAIDKM_ST_OK		0
#define RAIDKM_ST_EINVAL	(-22)	/* malformed submission entry */
#define RAIDKM_ST_EIO		(-5)	/* the backend failed */
#define RAIDKM_ST_EOPNOTSUPP	(-95)	/* op or geometry not supported */
#define RAIDKM_ST_ENOMEM	(-12)	/* backend out of memory */

/* ====================================================================== */
/* Generic netlink                                                        */
/* ====================================================================== */

#define RAIDKM_GENL_NAME	"raidkm"
#define RAIDKM_GENL_VERSION	RAIDKM_PROTO_VERSION

/*
 * Commands.  "admin" commands need CAP_NET_ADMIN (GENL_ADMIN_PERM) and
 * CAP_SYS_ADMIN (checked by the handler).
 *
 * RAIDKM_CMD_ATTACH (daemon -> kernel, admin, request + reply)
 *	Required: VERSION, SESSION, BACKEND.  Optional: FEATURES (default
 *	0), MAX_K (default RAIDKM_MAX_N - 1), MAX_M (default RAIDKM_MAX_M),
 *	BATCH (preferred stripes per job, default 1), OPS (bit 1 << op per
 *	supported op, default all).  The sender's netlink port becomes the
 *	doorbell target; the sending process must hold /dev/raidkm open
 *	(SESSION matches).  Reply: ATTACH with VERSION and FEATURES (the
 *	agreed set).  Errors: -EPERM (no CAP_SYS_ADMIN), -EBUSY (a daemon is
 *	attached), -ENODEV (/dev/raidkm not open), -ESTALE (SESSION does not
 *	match), -EPROTO (VERSION), -EINVAL (bad attribute; extack says
 *	which).  On success the kernel stores kstate = RUNNING.
 *
 * RAIDKM_CMD_DETACH (daemon -> kernel, admin)
 *	No attributes.  The kernel stops submitting, stores kstate = CLOSED,
 *	and keeps accepting completions until the device is closed; jobs
 *	still in flight at close are re-run on the CPU.  Only the attached
 *	port may detach (-EPERM otherwise).
 *
 * RAIDKM_CMD_DOORBELL (kernel -> daemon, unicast to the attached port)
 *	Sent after the kernel published submissions while the daemon's
 *	sq_ctl.flags had RAIDKM_RING_NEED_WAKEUP set; one message covers
 *	every entry up to SQ_TAIL (informational).  The kernel may also ring
 *	on kstate changes.  Not a request: the daemon never replies.
 *
 * RAIDKM_CMD_COMPLETE (daemon -> kernel, admin, no reply unless NLM_F_ACK)
 *	Sent after the daemon published completions while cq_ctl.flags had
 *	RAIDKM_RING_NEED_WAKEUP set; CQ_TAIL is informational (the kernel
 *	reads the tail from shared memory).  Only the attached port.
 *
 * RAIDKM_CMD_GET_STATS (anyone -> kernel, request + reply)
 *	Reply: ATTACHED, and when attached PID and BACKEND; STATS (global
 *	counters, nested RAIDKM_STAT_*); one ARRAY nest per km array with
 *	ARRAY_NAME ("md0") and STATS; LATENCY (nest of RAIDKM_LAT_BUCKETS
 *	u64 counts, attribute type b + 1 for bucket b: ring entries the
 *	daemon completed within [2^b, 2^(b + 1)) microseconds of their
 *	posting, the last bucket open-ended); one DETACH nest per recorded
 *	end of a daemon's session, oldest first, at most RAIDKM_DETACH_LOG
 *	(DETACH_AGO_S, DETACH_PID, DETACH_BACKEND, DETACH_WHY,
 *	DETACH_RERUNS, DETACH_FENCED).  PLACEMENT (the module parameter
 *	placement: "auto", "cpu" or "daemon") and one PLACE nest per op and
 *	size class that has coded a job or has a daemon estimate (PLACE_OP:
 *	0 encode, 1 decode, 2 delta, 3 check; PLACE_CLASS c: jobs of
 *	[2^(12 + 2c), 2^(14 + 2c)) bytes coded, class 0 from 0, the last
 *	open-ended; the jobs and bytes coded on the CPU and by the daemon;
 *	the estimates, 0 when not measured: the CPU's picoseconds per byte,
 *	the daemon's nanoseconds per job with nothing ahead and picoseconds
 *	per byte of its backlog).  Documentation/offload.rst, "Placement".
 */
enum raidkm_cmd {
	RAIDKM_CMD_UNSPEC,
	RAIDKM_CMD_ATTACH,
	RAIDKM_CMD_DETACH,
	RAIDKM_CMD_DOORBELL,
	RAIDKM_CMD_COMPLETE,
	RAIDKM_CMD_GET_STATS,
	__RAIDKM_CMD_MAX,
};
#define RAIDKM_CMD_MAX	(__RAIDKM_CMD_MAX - 1)

/* Attributes, with their netlink types (policy) */
enum raidkm_attr {
	RAIDKM_A_UNSPEC,
	RAIDKM_A_VERSION,	/* u32: RAIDKM_PROTO_VERSION */
	RAIDKM_A_FEATURES,	/* u64: RAIDKM_FEAT_* */
	RAIDKM_A_SESSION,	/* u64: hdr->session */
	RAIDKM_A_BACKEND,	/* NUL string, < RAIDKM_BACKEND_NAME_MAX */
	RAIDKM_A_MAX_K,		/* u8: RAIDKM_MIN_K..RAIDKM_MAX_N - 1 */
	RAIDKM_A_MAX_M,		/* u8: 1..RAIDKM_MAX_M */
	RAIDKM_A_BATCH,		/* u32: 1..RAIDKM_MAX_STRIPES */
	RAIDKM_A_OPS,		/* u32: bit (1 << op), op in enum raidkm_op */
	RAIDKM_A_SQ_TAIL,	/* u32: DOORBELL, informational */
	RAIDKM_A_CQ_TAIL,	/* u32: COMPLETE, informational */
	RAIDKM_A_ATTACHED,	/* u8: 0 or 1 (GET_STATS) */
	RAIDKM_A_PID,		/* u32: attached daemon's tgid (GET_STATS) */
	RAIDKM_A_STATS,		/* nest of RAIDKM_STAT_* */
	RAIDKM_A_ARRAY,		/* nest: ARRAY_NAME + STATS, one per array */
	RAIDKM_A_ARRAY_NAME,	/* NUL string: md device name */
	RAIDKM_A_PAD,		/* padding for 64-bit attributes */
	RAIDKM_A_LATENCY,	/* nest: u64 per bucket, type = bucket + 1 */
	RAIDKM_A_DETACH,	/* nest: DETACH_*, one per recorded detach */
	RAIDKM_A_DETACH_AGO_S,	/* u64: seconds since it happened */
	RAIDKM_A_DETACH_PID,	/* u32: the daemon's tgid */
	RAIDKM_A_DETACH_BACKEND,	/* NUL string */
	RAIDKM_A_DETACH_WHY,	/* NUL string: the reason, as in dmesg */
	RAIDKM_A_DETACH_RERUNS,	/* u32: jobs in flight re-run on the CPU */
	RAIDKM_A_DETACH_FENCED,	/* u8: its arena mapping was revoked */
	RAIDKM_A_PLACEMENT,	/* NUL string: "auto", "cpu" or "daemon" */
	RAIDKM_A_PLACE,		/* nest: PLACE_*, one per op and size class */
	RAIDKM_A_PLACE_OP,	/* u8: 0 encode, 1 decode, 2 delta, 3 check */
	RAIDKM_A_PLACE_CLASS,	/* u8: 0..RAIDKM_PLACE_CLASSES - 1 */
	RAIDKM_A_PLACE_CPU_JOBS,	/* u64: jobs coded on the CPU */
	RAIDKM_A_PLACE_CPU_BYTES,	/* u64: their bytes */
	RAIDKM_A_PLACE_DAEMON_JOBS,	/* u64: jobs the daemon took */
	RAIDKM_A_PLACE_DAEMON_BYTES,	/* u64: their bytes */
	RAIDKM_A_PLACE_CPU_PS,	/* u32: CPU estimate, ps per byte */
	RAIDKM_A_PLACE_DAEMON_NS,	/* u32: daemon, ns per job */
	RAIDKM_A_PLACE_DAEMON_PS,	/* u32: daemon, ps per byte of backlog */
	RAIDKM_A_PLACE_DAEMON_QPS,	/* u32: daemon, ps a byte ahead adds */
	RAIDKM_A_PLACE_CPU_BUSY,	/* u8: the CPUs' busy share lately, 0-100 */
	__RAIDKM_A_MAX,
};
#define RAIDKM_A_MAX	(__RAIDKM_A_MAX - 1)

/* Counters inside RAIDKM_A_STATS, each a u64 (padded with RAIDKM_STAT_PAD) */
enum raidkm_stat {
	RAIDKM_STAT_UNSPEC,
	RAIDKM_STAT_JOBS_OFFLOADED,	/* jobs completed by the daemon */
	RAIDKM_STAT_JOBS_CPU,		/* jobs run on the in-kernel codec */
	RAIDKM_STAT_DEADLINE_MISSES,	/* offloaded jobs past their deadline */
	RAIDKM_STAT_RERUNS,		/* in-flight jobs re-run after daemon loss */
	RAIDKM_STAT_VERIFY_MISMATCHES,	/* verify_ppm re-checks that differed */
	RAIDKM_STAT_BYTES_OFFLOADED,	/* chunk bytes described to the daemon */
	RAIDKM_STAT_BAD_COMPLETIONS,	/* rejected completions (daemon fault) */
	RAIDKM_STAT_STALE_COMPLETIONS,	/* late completions, ignored */
	RAIDKM_STAT_DOORBELLS,		/* DOORBELL messages sent */
	RAIDKM_STAT_ATTACHES,		/* successful ATTACH commands */
	RAIDKM_STAT_PAD,
	RAIDKM_STAT_DETACHES,		/* daemon sessions ended, any reason */
	__RAIDKM_STAT_MAX,
};
#define RAIDKM_STAT_MAX	(__RAIDKM_STAT_MAX - 1)

/* GET_STATS' latency histogram and detach log sizes */
#define RAIDKM_LAT_BUCKETS	24
#define RAIDKM_DETACH_LOG	8
/* GET_STATS' placement: ops and size classes (PLACE_OP, PLACE_CLASS) */
#define RAIDKM_PLACE_OPS	4
#define RAIDKM_PLACE_CLASSES	6

#endif /* _UAPI_RAIDKM_H */
