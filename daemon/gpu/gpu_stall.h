/* SPDX-License-Identifier: GPL-2.0 */
/*
 * When is a GPU worker stalled?  The supervisor's decision
 * (gpu_supervise.c) as pure functions of what the worker holds and when
 * it last showed progress, tested without a GPU
 * (tests/unit/gpu_stall_test.c).
 *
 * Progress is a DONE, or a beat (RKG_MSG_ALIVE, gpu_wire.h) that counts:
 * its GPU finished a batch (whose DONEs may wait behind one-time work on
 * the launch path), or one-time work (a staging buffer grown, a kernel's
 * first load, a compile) under way for less than RKG_SETUP_MAX_MS.
 */
#ifndef RKMD_GPU_STALL_H
#define RKMD_GPU_STALL_H

#include <stdint.h>

/*
 * The slowest a healthy worker moves the bytes it holds (MB/s): a
 * twentieth of what one H100 link does, staged or zero-copy, so that a
 * deep queue of large jobs that moves is never taken for a stall.
 */
#define RKG_STALL_MIN_MBS	2000
/* one-time work longer than this is no excuse any more (a GPU hung in it) */
#define RKG_SETUP_MAX_MS	1000

struct rkg_stall_in {
	uint64_t held_bytes;	/* chunk bytes sent and not completed */
	uint64_t oldest_ns;	/* when the oldest job it holds was sent */
	uint64_t done_ns;	/* its last DONE, or its first job if idle */
	uint64_t beat_ns;	/* its last beat that counted (0: none) */
};

/* How long a worker holding held_bytes may go without progress */
uint64_t rkg_stall_limit_ns(uint64_t floor_ns, uint64_t held_bytes);
/*
 * Is the worker stalled at now: has it held a job and shown no progress
 * for longer than its limit?  0 (no; always with floor_ns 0, off), else
 * the limit it passed.
 */
uint64_t rkg_stalled(const struct rkg_stall_in *in, uint64_t floor_ns,
		     uint64_t now);
/*
 * Does a beat count as progress?  setup_us: 0 for a batch finished on the
 * GPU, else how long one-time work has been under way (microseconds).
 */
int rkg_beat_counts(uint64_t setup_us);

#endif /* RKMD_GPU_STALL_H */
