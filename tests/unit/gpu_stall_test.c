// SPDX-License-Identifier: GPL-2.0
/*
 * covers: gpu: fault isolation; gpu: stall detection
 *
 * Unit test of the multi-GPU supervisor's stall decision
 * (daemon/gpu/gpu_stall.c), the pure logic gpu_supervise.c applies every
 * tick to each worker holding jobs:
 *
 *   limit      the floor plus the bytes held at RKG_STALL_MIN_MBS
 *   off        no floor, or nothing held: never stalled
 *   hung       a job held and no DONE past the floor: stalled soon after
 *              the floor, not before
 *   deep       a deep queue of MiB jobs whose last DONE is older than the
 *              floor but younger than the time its bytes take: not stalled
 *   beats      a beat (a batch finished on the GPU, one-time work) is
 *              progress: one-time work that holds DONEs back for longer
 *              than the floor is no stall while it beats; its beats stop
 *              counting after RKG_SETUP_MAX_MS, and a stopped pulse is a
 *              stall again one limit after its last beat
 *   clock      stamps later than now (another thread's clock read) count
 *              as no age at all
 */
#include <stdio.h>
#include <stdint.h>

#include "gpu_stall.h"
#include "unit_report.h"

#define MS	1000000ull
#define FLOOR	(30 * MS)	/* RKG_STALL_MS */
#define MIB	(1ull << 20)

static struct rkg_stall_in held(uint64_t bytes, uint64_t oldest,
				uint64_t done, uint64_t beat)
{
	struct rkg_stall_in v = { bytes, oldest, done, beat };

	return v;
}

static const char *check_limit(void)
{
	/* 2000 MB/s: 2 MB take 1 ms */
	if (rkg_stall_limit_ns(FLOOR, 0) != FLOOR)
		return "the limit with nothing held is not the floor";
	if (rkg_stall_limit_ns(FLOOR, 2000000) != FLOOR + MS)
		return "2 MB held do not add 1 ms";
	if (rkg_stall_limit_ns(FLOOR, 256 * MIB) <= FLOOR + 130 * MS)
		return "256 MiB held add less than 130 ms";
	return NULL;
}

static const char *check_off(void)
{
	struct rkg_stall_in v = held(64 * 1024, 0, 0, 0);

	if (rkg_stalled(&v, 0, 10000 * MS))
		return "stalled with the detector off";
	v.held_bytes = 0;
	if (rkg_stalled(&v, FLOOR, 10000 * MS))
		return "stalled holding nothing";
	return NULL;
}

/* a hung GPU: one 64 KiB job sent at t0 = 1000 ms, no DONE since */
static const char *check_hung(void)
{
	const uint64_t t0 = 1000 * MS;
	struct rkg_stall_in v = held(64 * 1024, t0, t0, 0);
	const uint64_t limit = rkg_stall_limit_ns(FLOOR, 64 * 1024);

	if (rkg_stalled(&v, FLOOR, t0 + FLOOR - 1))
		return "stalled before the floor";
	if (rkg_stalled(&v, FLOOR, t0 + limit) != limit)
		return "not stalled at its limit";
	if (limit > FLOOR + MS)
		return "64 KiB stretch the limit by more than 1 ms";
	/* a DONE of another job 10 ms ago: it moves */
	v.done_ns = t0 + limit - 10 * MS;
	if (rkg_stalled(&v, FLOOR, t0 + limit))
		return "stalled 10 ms after a DONE";
	return NULL;
}

/*
 * 64 jobs of 6 MiB (a 4+2 wide read of 256 rows) held; the last DONE
 * 40 ms ago: past the floor, well within what 384 MiB take at 2 GB/s
 */
static const char *check_deep(void)
{
	const uint64_t now = 5000 * MS, bytes = 64 * 6 * MIB;
	struct rkg_stall_in v = held(bytes, now - 200 * MS, now - 40 * MS, 0);
	const uint64_t limit = rkg_stall_limit_ns(FLOOR, bytes);

	if (rkg_stalled(&v, FLOOR, now))
		return "a deep queue that moves taken for a stall";
	if (rkg_stalled(&v, FLOOR, v.done_ns + limit) != limit)
		return "a deep queue silent past its limit not stalled";
	return NULL;
}

static const char *check_beats(void)
{
	const uint64_t t0 = 1000 * MS, limit = rkg_stall_limit_ns(FLOOR, MIB);
	struct rkg_stall_in v = held(MIB, t0, t0, 0);
	uint64_t t;

	if (!rkg_beat_counts(0))
		return "a batch finished on the GPU does not count";
	if (!rkg_beat_counts(1) ||
	    !rkg_beat_counts((uint64_t)RKG_SETUP_MAX_MS * 1000 - 1))
		return "a beat of one-time work under way does not count";
	if (rkg_beat_counts((uint64_t)RKG_SETUP_MAX_MS * 1000))
		return "one-time work counts past RKG_SETUP_MAX_MS";
	/* one-time work from t0 for 400 ms, a beat every 5 ms, no DONE */
	for (t = t0 + 5 * MS; t <= t0 + 400 * MS; t += 5 * MS) {
		if (rkg_beat_counts((t - t0) / 1000))
			v.beat_ns = t;
		if (rkg_stalled(&v, FLOOR, t + 4 * MS)) {
			snprintf(msg, sizeof(msg),
				 "stalled %llu ms into one-time work that beats",
				 (unsigned long long)((t + 4 * MS - t0) / MS));
			return msg;
		}
	}
	/* the pulse stops (the GPU hung in it): a stall one limit later */
	if (rkg_stalled(&v, FLOOR, v.beat_ns + limit - 1))
		return "stalled before a limit after the last beat";
	if (rkg_stalled(&v, FLOOR, v.beat_ns + limit) != limit)
		return "not stalled a limit after the last beat";
	/* one-time work that never ends: its beats stop counting */
	v.beat_ns = 0;
	for (t = t0 + 5 * MS; t <= t0 + 10000 * MS; t += 5 * MS) {
		if (rkg_beat_counts((t - t0) / 1000))
			v.beat_ns = t;
		if (rkg_stalled(&v, FLOOR, t))
			break;
	}
	if (t - t0 > (uint64_t)RKG_SETUP_MAX_MS * MS + limit + 5 * MS) {
		snprintf(msg, sizeof(msg),
			 "endless one-time work caught after %llu ms",
			 (unsigned long long)((t - t0) / MS));
		return msg;
	}
	if (t - t0 < (uint64_t)RKG_SETUP_MAX_MS * MS)
		return "one-time work taken for a stall before RKG_SETUP_MAX_MS";
	return NULL;
}

static const char *check_clock(void)
{
	const uint64_t now = 1000 * MS;
	struct rkg_stall_in v = held(MIB, now + MS, now + 2 * MS, 0);

	if (rkg_stalled(&v, FLOOR, now))
		return "stamps after now taken for old ones";
	return NULL;
}

int main(void)
{
	report("limit: the floor plus the bytes held at the slowest rate",
	       check_limit());
	report("off: no floor or nothing held", check_off());
	report("hung: a job held, no DONE past its limit", check_hung());
	report("deep: a deep queue of MiB jobs that moves", check_deep());
	report("beats: batches done and one-time work are progress, for so long",
	       check_beats());
	report("clock: stamps after now", check_clock());
	printf("# %d failed\n", failures);
	return failures ? 1 : 0;
}
