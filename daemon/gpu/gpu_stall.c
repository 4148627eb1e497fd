// SPDX-License-Identifier: GPL-2.0
/*
 * The stall decision of the multi-GPU supervisor (gpu_stall.h): a floor
 * (RKMD_GPUS_STALL_MS) plus the time the bytes a worker holds take at
 * RKG_STALL_MIN_MBS, counted from its last progress.
 */
#include "gpu_stall.h"

static uint64_t age(uint64_t now, uint64_t then)
{
	return now > then ? now - then : 0;
}

uint64_t rkg_stall_limit_ns(uint64_t floor_ns, uint64_t held_bytes)
{
	/* bytes / (MB/s) = microseconds; 1000 / MB/s nanoseconds a byte */
	return floor_ns + held_bytes * 1000 / RKG_STALL_MIN_MBS;
}

uint64_t rkg_stalled(const struct rkg_stall_in *in, uint64_t floor_ns,
		     uint64_t now)
{
	uint64_t limit, last;

	if (!floor_ns || !in->held_bytes)
		return 0;
	limit = rkg_stall_limit_ns(floor_ns, in->held_bytes);
	last = in->done_ns > in->beat_ns ? in->done_ns : in->beat_ns;
	if (age(now, in->oldest_ns) < limit || age(now, last) < limit)
		return 0;
	return limit;
}

int rkg_beat_counts(uint64_t setup_us)
{
	return setup_us < (uint64_t)RKG_SETUP_MAX_MS * 1000;
}
