// SPDX-License-Identifier: GPL-2.0
/*
 * The decision (kernel/raidkm/place.c, the same source) fed as
 * kernel/raidkm/offload_place.c feeds it in raidkm.ko, with a daemon
 * attached throughout:
 *
 *   seed      rkm_place_cpu_seed() from the MB/s the codec measured
 *   decide    the load: bytes on the ring (the kernel end's count),
 *             bytes of placed jobs on the CPUs now, the online CPUs;
 *             the explore draw in auto only
 *   CPU run   every one timed (a daemon is attached), cpu_busy around it
 *   daemon    each entry's time from its submission to its outputs
 *             copied back, with the bytes ahead of it; a failed entry;
 *             the watchdog's entries still out
 *
 * Counts are per stream class (the kernel's are per op and size class).
 */
#include <string.h>
#include <time.h>

#include "bench/place_bench.h"

uint64_t pb_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

void pb_feed_init(struct pb_feed *f, uint32_t cpu_mbs)
{
	memset(f, 0, sizeof(*f));
	f->mode = RKM_PLACE_AUTO;
	rkm_place_cpu_seed(&f->est, cpu_mbs);
	/* a new daemon starts unmeasured (rkm_place_attached) */
	rkm_place_daemon_reset(&f->est);
}

void pb_feed_clear_counts(struct pb_feed *f)
{
	memset(f->jobs, 0, sizeof(f->jobs));
	memset(f->why, 0, sizeof(f->why));
}

static void pb_count(struct pb_feed *f, const struct pb_pjob *p, int side,
		     uint32_t njobs)
{
	__atomic_fetch_add(&f->jobs[side][p->cls], njobs, __ATOMIC_RELAXED);
}

int pb_feed_to_daemon(struct pb_feed *f, const struct pb_pjob *p,
		      uint64_t ring_bytes, uint32_t draw)
{
	struct rkm_place_load load = {
		.ring_bytes = ring_bytes,
		.cpu_bytes = __atomic_load_n(&f->cpu_busy, __ATOMIC_RELAXED),
		.ncpus = f->ncpus,
	};
	int mode = __atomic_load_n(&f->mode, __ATOMIC_RELAXED), why, side;

	if (mode != RKM_PLACE_AUTO)
		draw = 1;
	side = rkm_place_decide(&f->est, mode, &p->pj, &load,
				draw, pb_now_ns(), &why);
	__atomic_fetch_add(&f->why[side][why], 1, __ATOMIC_RELAXED);
	return side == RKM_PLACE_TO_DAEMON;
}

void pb_feed_on_daemon(struct pb_feed *f, const struct pb_pjob *p,
		       uint32_t njobs)
{
	pb_count(f, p, RKM_PLACE_TO_DAEMON, njobs);
}

void pb_feed_run_cpu(struct pb_feed *f, const struct pb_pjob *p,
		     void (*fn)(void *arg), void *arg)
{
	uint64_t t0;

	pb_count(f, p, RKM_PLACE_TO_CPU, 1);
	__atomic_fetch_add(&f->cpu_busy, p->pj.bytes, __ATOMIC_RELAXED);
	t0 = pb_now_ns();
	fn(arg);
	rkm_place_cpu_done(&f->est, p->pj.op, p->pj.bytes, pb_now_ns() - t0,
			   pb_now_ns());
	__atomic_fetch_sub(&f->cpu_busy, p->pj.bytes, __ATOMIC_RELAXED);
}

void pb_feed_daemon_entry(struct pb_feed *f, int op, uint64_t job_bytes,
			  uint32_t njobs, uint64_t ahead, uint64_t ns,
			  int failed)
{
	if (failed)
		rkm_place_daemon_failed(&f->est, op, job_bytes, pb_now_ns());
	else
		rkm_place_daemon_done(&f->est, op, job_bytes,
				      job_bytes * njobs, ahead, ns,
				      pb_now_ns());
}

void pb_feed_daemon_out(struct pb_feed *f, int op, uint64_t job_bytes,
			uint32_t njobs, uint64_t ahead, uint64_t ns)
{
	rkm_place_daemon_late(&f->est, op, job_bytes, job_bytes * njobs,
			      ahead, ns, pb_now_ns());
}
