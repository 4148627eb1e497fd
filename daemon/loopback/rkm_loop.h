/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The loopback: a user-space stand-in for raidkm.ko's end of the offload
 * protocol, so raidkmd and its backends run, are tested and benchmarked
 * without the kernel (for instance on the GPU host).  Same uapi
 * structures, same ring code (kernel/raidkm/ring), the same completion
 * and ATTACH validation the kernel runs; a memfd instead of /dev/raidkm
 * and a SOCK_SEQPACKET socket (loop_proto.h) instead of generic netlink.
 *
 * Single-threaded: one thread drives a struct rkm_loop.
 */
#ifndef RKM_LOOP_H
#define RKM_LOOP_H

#include <stddef.h>
#include <stdint.h>

struct rkm_loop;

struct rkm_loop_params {
	uint32_t entries;	/* ring entries = job slots, power of two */
	uint32_t desc_slot_size;	/* bytes of offsets per job */
	uint32_t max_stripes;
	uint32_t max_len;
	uint64_t arena_size;	/* bytes, page multiple */
	/*
	 * Staging bytes after the arena (page multiple): 0 (the default)
	 * lays out an older kernel end, any chunk anywhere in the arena;
	 * else RAIDKM_FEAT_RO_INPUT: outputs must lie in staging.
	 */
	uint64_t stage_size;
};

/* Sensible defaults: 256 slots, 4 KiB descriptors, 64 MiB arena */
void rkm_loop_default_params(struct rkm_loop_params *p);

/* Create the memfd mapping and the control socketpair. */
struct rkm_loop *rkm_loop_create(const struct rkm_loop_params *p,
				 char *why, size_t whylen);
void rkm_loop_destroy(struct rkm_loop *l);

/*
 * The daemon's end of the control socket, for an in-process daemon
 * (rkmd_loop_open) or for a child process (raidkmd --loopback=fd:N).
 * rkm_loop_release_daemon_fd() closes this process's copy (after fork).
 */
int rkm_loop_daemon_fd(struct rkm_loop *l);
void rkm_loop_release_daemon_fd(struct rkm_loop *l);

/* Serve a daemon that connects to a unix socket at @path instead. */
int rkm_loop_listen_accept(struct rkm_loop *l, const char *path,
			   int timeout_ms);

/* Wait for ATTACH (validated like the kernel does) and answer it. */
int rkm_loop_wait_attach(struct rkm_loop *l, int timeout_ms);
const char *rkm_loop_backend(struct rkm_loop *l);

/* The shared arena and the whole mapping */
uint8_t *rkm_loop_arena(struct rkm_loop *l);
uint64_t rkm_loop_arena_size(struct rkm_loop *l);
/* Arena offset where staging starts (0: no staging) */
uint64_t rkm_loop_stage_start(struct rkm_loop *l);
void *rkm_loop_map(struct rkm_loop *l);

struct rkm_loop_job {
	uint8_t op, k, m;
	uint32_t len;
	uint32_t nstripes;
	uint64_t mask;
	/*
	 * DECODE: the chunks wanted (0: all of mask).  Sent in sqe.want when
	 * the daemon agreed RAIDKM_FEAT_DECODE_WANT; describe the job with
	 * rkm_loop_describe(), which knows what was agreed.
	 */
	uint64_t want;
	const uint64_t *offs;	/* ndesc arena offsets, see uapi/raidkm.h */
	uint64_t cookie;	/* returned with the completion */
};

/*
 * The descriptor offsets of stripe @st of a job of @ns stripes, as
 * raidkm.ko writes them (rkm_desc_encode): @chunk[k + m] (and DELTA's
 * @old[k]) are pointers into the arena, outputs described in place.
 * DECODE describes the wanted chunks as outputs when the daemon agreed
 * RAIDKM_FEAT_DECODE_WANT, else every erased chunk (which then must not
 * be NULL).  Returns 0, or -EINVAL when a chunk it needs is NULL or
 * outside the arena.
 */
int rkm_loop_describe(struct rkm_loop *l, const struct rkm_loop_job *j,
		      uint8_t *const *chunk, uint8_t *const *old,
		      uint32_t st, uint64_t *offs);

/* The RAIDKM_FEAT_* agreed at ATTACH */
uint64_t rkm_loop_features(struct rkm_loop *l);

/*
 * Queue a job (not visible until rkm_loop_kick).  Returns 0, -EAGAIN when
 * no slot or ring entry is free, -EINVAL for a bad shape, -ESHUTDOWN
 * after the session closed.
 */
int rkm_loop_submit(struct rkm_loop *l, const struct rkm_loop_job *j);
/* Publish queued jobs; ring the doorbell if the daemon sleeps. */
int rkm_loop_kick(struct rkm_loop *l);

typedef void (*rkm_loop_done_fn)(void *arg, uint64_t cookie, int status,
				 uint64_t check_bitmap);

/*
 * Take completions off the ring and validate them like the kernel does;
 * done() is called for each accepted one.  Returns how many jobs
 * completed, or -EPROTO after a daemon fault (bad completion: the session
 * is closed, as the kernel would detach).
 */
int rkm_loop_reap(struct rkm_loop *l, rkm_loop_done_fn done, void *arg);

/*
 * Sleep until a completion doorbell, a control message or @timeout_ms.
 * Returns 0, or -ENOTCONN once the daemon is gone.
 */
int rkm_loop_wait(struct rkm_loop *l, int timeout_ms);

/* Close the session from the kernel end (kstate = CLOSED + doorbell). */
void rkm_loop_close_session(struct rkm_loop *l);

/*
 * After the daemon is gone: report every job still in flight with status
 * -ESHUTDOWN (the kernel would re-run them on the CPU) and free the slots.
 */
int rkm_loop_abandon(struct rkm_loop *l, rkm_loop_done_fn done, void *arg);

struct rkm_loop_stats {
	uint64_t submitted, completed;
	uint64_t stale, bad;		/* rejected completions */
	uint64_t doorbells_out, doorbells_in;
	uint64_t abandoned;
	uint32_t inflight;
	int attached, detached, gone;
};

void rkm_loop_get_stats(struct rkm_loop *l, struct rkm_loop_stats *s);

#endif
