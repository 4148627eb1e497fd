/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Messages between raidkmd and its GPU worker processes (one per GPU,
 * Documentation/gpu.rst "One process per GPU"), over a stream socketpair:
 * a header, then len bytes of payload.  Both ends are raidkmd, one a fork
 * of the other, so that chunk pointers mean the same in both (the worker
 * maps the shared region at the parent's addresses); the worker still
 * checks every message, and its CUDA backend every pointer.
 */
#ifndef RKMD_GPU_WIRE_H
#define RKMD_GPU_WIRE_H

#include <stdint.h>

enum rkg_msg_type {
	/* raidkmd -> worker */
	RKG_MSG_JOB = 1,	/* id: raidkmd's; payload rkg_wire_job + pointers */
	RKG_MSG_FAULT,		/* tests: id = enum rkmd_gpu_fault, next batch */
	/* worker -> raidkmd */
	RKG_MSG_READY,		/* open: payload "where" text */
	RKG_MSG_FAIL,		/* did not open: payload the reason */
	RKG_MSG_DONE,		/* id's job: rkg_wire_done [+ int32 results] */
	RKG_MSG_DEAD,		/* the GPU's context is gone: payload why */
	/*
	 * while it holds jobs, at most every few ms, no payload: id 0, its
	 * GPU finished a batch (DONEs may follow late); id N > 0, one-time
	 * work under way for N us (gpu_stall.h)
	 */
	RKG_MSG_ALIVE,
};

struct rkg_msg_hdr {
	uint32_t type;
	uint32_t len;		/* payload bytes */
	uint64_t id;
};

/*
 * A job: nstripes * (k + m) chunk pointers follow (0: NULL, as DELTA's
 * unchanged and DECODE's unwanted chunks may be), then, for DELTA,
 * nstripes * k old-data pointers (0: none).
 */
struct rkg_wire_job {
	uint8_t op, k, m, pad;
	uint32_t len;
	uint32_t nstripes;
	uint32_t nold;
	uint64_t mask;
	uint64_t want;		/* DECODE: the chunks written (0: all of mask) */
};

/* status 0 or -errno; CHECK: nresult int32 per stripe follow */
struct rkg_wire_done {
	int32_t status;
	uint32_t nresult;
};

/* the largest payload either end accepts */
#define RKG_WIRE_MAX	(64u << 20)

#include <stddef.h>
#include <pthread.h>

/*
 * Send one message (header, then the parts a and b), whole, under lock
 * (NULL: the caller holds what serialises its writes);
 * 0 or -errno (-EPIPE: the other end is gone).
 */
int rkg_wire_send(int fd, pthread_mutex_t *lock, uint32_t type, uint64_t id,
		  const void *a, size_t alen, const void *b, size_t blen);
/*
 * Receive one message: its header into h and its payload into *buf
 * (grown as needed, *cap its size).  0, -EPIPE at the end of the stream,
 * -EPROTO for a payload over RKG_WIRE_MAX, or -errno.
 */
int rkg_wire_recv(int fd, struct rkg_msg_hdr *h, void **buf, size_t *cap);
#endif /* RKMD_GPU_WIRE_H */
