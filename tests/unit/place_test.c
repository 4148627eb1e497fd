// SPDX-License-Identifier: GPL-2.0
/*
 * covers: offload: job placement by measured cost; offload: placement modes
 *
 * Unit test of the job placement rule (kernel/raidkm/place.c), built from
 * the same source as the module, with synthetic costs: a GFNI-class CPU
 * (50 GB/s, 20 ps per byte), a ring round trip of 25 us, a GPU that
 * streams big jobs at 100 GB/s.
 *
 *   place_small_waited   a waited 4 KiB delta goes to the CPU; a daemon
 *                        60 times slower gets no explore draw, only
 *                        the stale probe; one within
 *                        RKM_PLACE_EXPLORE_RANGE gets one draw in
 *                        RKM_PLACE_EXPLORE, and of those the share
 *                        CPU cost / daemon cost
 *   place_large_decode   an 8+3 decode of 1 MiB chunks with a fast daemon
 *                        goes to the daemon
 *   place_slow_daemon    a daemon that becomes slower than the CPU loses
 *                        the class within a bounded number of jobs, also
 *                        with jobs in flight; a mild slow-down too
 *   place_failing_daemon one failed job moves the class to the CPU; far
 *                        behind, it gets only the stale probe, then
 *                        good completions win the class back
 *   place_late_daemon    an entry out longer than expected counts as a
 *                        slow sample; behind a deep queue it is expected
 *   place_stale          a side whose estimate is old gets one job
 *   place_queue_depth    a deep ring moves waited jobs to the CPU, a
 *                        busy CPU moves them to the daemon
 *   place_work_ahead     a daemon that codes several entries at once
 *                        (one behind others takes its own latency) keeps
 *                        waited jobs behind a few entries; one that codes
 *                        them one after another does not
 *   place_forced         placement=cpu and =daemon, whatever the costs
 *   place_unknown        an unmeasured daemon (or class) is tried first;
 *                        a new daemon starts unmeasured
 *   place_background     a job nobody waits for pays the daemon's
 *                        throughput, not its round trip
 *   place_names          classes, ops, modes and their parsing
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "place.h"

#include "unit_check.h"

#define US		1000ull
#define MS		(1000 * US)
#define KIB		1024ull
#define MIB		(1024 * KIB)
#define CPU_MBS		50000	/* 50 GB/s: 20 ps per byte */
#define RING_NS		(25 * US)
#define GPU_PS		10	/* 100 GB/s streamed */

static const struct rkm_place_load idle = { 0, 0, 4, 0 };
static rkm_u64 now = 10 * 1000 * MS;	/* ten seconds after "boot" */

/* A daemon completion of one job of @op and @bytes taking @ns */
static void daemon_job(struct rkm_place_est *e, int op, rkm_u64 bytes,
		       rkm_u64 ns)
{
	rkm_place_daemon_done(e, op, bytes, bytes, 0, ns, now);
}

/* What the synthetic GPU takes for @bytes: the round trip + streaming */
static rkm_u64 gpu_ns(rkm_u64 bytes)
{
	return RING_NS + bytes * GPU_PS / 1000;
}

static void fresh(struct rkm_place_est *e)
{
	memset(e, 0, sizeof(*e));
	rkm_place_cpu_seed(e, CPU_MBS);
	now += 10 * RKM_PLACE_STALE_NS;
}

/* Both sides measured at @now for op/bytes: the CPU at CPU_MBS */
static void measured(struct rkm_place_est *e, int op, rkm_u64 bytes)
{
	rkm_place_cpu_done(e, op, bytes, bytes * 1000000 / CPU_MBS / 1000,
			   now);
	daemon_job(e, op, bytes, gpu_ns(bytes));
}

static int decide(struct rkm_place_est *e, int mode, int op, rkm_u64 bytes,
		  int waited, const struct rkm_place_load *load,
		  rkm_u32 draw, int *why)
{
	struct rkm_place_job job = { op, bytes, waited };

	return rkm_place_decide(e, mode, &job, load, draw, now, why);
}

static void test_small_waited(void)
{
	struct rkm_place_est e;
	rkm_u64 b = rkm_place_bytes(RKM_PLACE_DELTA, 8, 3, 1, 4096);
	struct rkm_place_job job = { RKM_PLACE_DELTA, 0, 1 };
	struct rkm_place_cell *c;
	int why, i, cpu = 0, explored = 0;
	rkm_u64 cns, dns;

	begin("place_small_waited");
	fresh(&e);
	measured(&e, RKM_PLACE_DELTA, b);
	CHECK(b == 5 * 4096);
	CHECK(decide(&e, RKM_PLACE_AUTO, RKM_PLACE_DELTA, b, 1, &idle, 1,
		     &why) == RKM_PLACE_TO_CPU);
	CHECK(why == RKM_PLACE_WHY_COST);
	for (i = 0; i < 64 * 100; i++) {
		int side = decide(&e, RKM_PLACE_AUTO, RKM_PLACE_DELTA, b, 1,
				  &idle, i + 1, &why);

		cpu += side == RKM_PLACE_TO_CPU;
		explored += why == RKM_PLACE_WHY_EXPLORE &&
			    side == RKM_PLACE_TO_DAEMON;
	}
	/* the daemon's round trip is 60 times the CPU's cost: no explore draw */
	CHECK(cpu == 64 * 100);
	CHECK(explored == 0);
	/* ... only the stale probe, one per RKM_PLACE_STALE_NS */
	now += 2 * RKM_PLACE_STALE_NS;
	CHECK(decide(&e, RKM_PLACE_AUTO, RKM_PLACE_DELTA, b, 1, &idle, 1,
		     &why) == RKM_PLACE_TO_DAEMON);
	CHECK(why == RKM_PLACE_WHY_STALE);
	CHECK(decide(&e, RKM_PLACE_AUTO, RKM_PLACE_DELTA, b, 1, &idle,
		     RKM_PLACE_EXPLORE, &why) == RKM_PLACE_TO_CPU);
	CHECK(why == RKM_PLACE_WHY_COST);
	/* a daemon within RKM_PLACE_EXPLORE_RANGE is explored one in 64 */
	daemon_job(&e, RKM_PLACE_DELTA, b, b * 20 / 1000 * 4);
	for (i = 0; i < 100; i++)
		daemon_job(&e, RKM_PLACE_DELTA, b, b * 20 / 1000 * 4);
	explored = 0;
	for (i = 0; i < 64 * 100; i++)
		explored += decide(&e, RKM_PLACE_AUTO, RKM_PLACE_DELTA, b, 1,
				   &idle, i + 1, &why) == RKM_PLACE_TO_DAEMON &&
			    why == RKM_PLACE_WHY_EXPLORE;
	CHECK(explored == 100);
	/* ... and of the explore draws, the share cpu / daemon (about 1/4) */
	job.bytes = b;
	c = &e.cell[RKM_PLACE_DELTA][rkm_place_class(b)];
	cns = rkm_place_cpu_ns(c, &job, &idle);
	dns = rkm_place_daemon_ns(c, &job, &idle);
	explored = 0;
	for (i = 0; i < RKM_PLACE_EXPLORE_SCALE; i++)
		explored += decide(&e, RKM_PLACE_AUTO, RKM_PLACE_DELTA, b, 1,
				   &idle, i * RKM_PLACE_EXPLORE, &why) ==
				RKM_PLACE_TO_DAEMON &&
			    why == RKM_PLACE_WHY_EXPLORE;
	CHECK(dns > 3 * cns && dns < 5 * cns);
	CHECK(explored == (int)((RKM_PLACE_EXPLORE_SCALE * cns + dns - 1) / dns));
	/* a plain 4 KiB 4+2 encode too */
	b = rkm_place_bytes(RKM_PLACE_ENCODE, 4, 2, 0, 4096);
	measured(&e, RKM_PLACE_ENCODE, b);
	CHECK(decide(&e, RKM_PLACE_AUTO, RKM_PLACE_ENCODE, b, 1, &idle, 1,
		     &why) == RKM_PLACE_TO_CPU);
	end();
}

static void test_large_decode(void)
{
	struct rkm_place_est e;
	rkm_u64 b = rkm_place_bytes(RKM_PLACE_DECODE, 8, 3, 0, MIB);
	int why;

	begin("place_large_decode");
	fresh(&e);
	CHECK(b == 8 * MIB);
	CHECK(rkm_place_class(b) == RKM_PLACE_CLASSES - 1);
	/* a decode of three lost costs the CPU three passes: 60 ps a byte */
	rkm_place_cpu_done(&e, RKM_PLACE_DECODE, b, b * 60 / 1000, now);
	daemon_job(&e, RKM_PLACE_DECODE, b, gpu_ns(b));
	CHECK(decide(&e, RKM_PLACE_AUTO, RKM_PLACE_DECODE, b, 1, &idle, 1,
		     &why) == RKM_PLACE_TO_DAEMON);
	CHECK(why == RKM_PLACE_WHY_COST);
	CHECK(decide(&e, RKM_PLACE_AUTO, RKM_PLACE_DECODE, b, 0, &idle, 1,
		     &why) == RKM_PLACE_TO_DAEMON);
	/* the explore draw sends one to the CPU */
	CHECK(decide(&e, RKM_PLACE_AUTO, RKM_PLACE_DECODE, b, 1, &idle,
		     RKM_PLACE_EXPLORE, &why) == RKM_PLACE_TO_CPU);
	CHECK(why == RKM_PLACE_WHY_EXPLORE);
	end();
}

/*
 * Jobs of @bytes whose daemon completions now take @slow_ns, each seen
 * @lag placements after it was made (jobs in flight): how many go to the
 * daemon before the first that goes to the CPU (explore draws off)?
 */
static int jobs_until_cpu(struct rkm_place_est *e, rkm_u64 bytes,
			  rkm_u64 slow_ns, int lag)
{
	int n = 0, owed = 0, why;

	while (n < 1000) {
		if (decide(e, RKM_PLACE_AUTO, RKM_PLACE_ENCODE, bytes, 1,
			   &idle, 1, &why) == RKM_PLACE_TO_CPU)
			return n;
		n++;
		owed++;
		if (owed > lag) {
			daemon_job(e, RKM_PLACE_ENCODE, bytes, slow_ns);
			owed--;
		}
	}
	return n;
}

static void test_slow_daemon(void)
{
	struct rkm_place_est e;
	rkm_u64 b = rkm_place_bytes(RKM_PLACE_ENCODE, 8, 3, 0, 256 * KIB);
	rkm_u64 cpu_ns = b * 20 / 1000;
	int i;

	begin("place_slow_daemon");
	/* 2 MiB: CPU 42 us, GPU 46 us once, then many times faster */
	fresh(&e);
	rkm_place_cpu_done(&e, RKM_PLACE_ENCODE, b, cpu_ns, now);
	for (i = 0; i < 50; i++)
		daemon_job(&e, RKM_PLACE_ENCODE, b, cpu_ns / 4);
	CHECK(jobs_until_cpu(&e, b, cpu_ns / 4, 0) == 1000);
	/* ten times slower: the next completion decides */
	CHECK(jobs_until_cpu(&e, b, 10 * cpu_ns, 0) <= 1);
	fresh(&e);
	rkm_place_cpu_done(&e, RKM_PLACE_ENCODE, b, cpu_ns, now);
	for (i = 0; i < 50; i++)
		daemon_job(&e, RKM_PLACE_ENCODE, b, cpu_ns / 4);
	/* with 16 jobs in flight: those, and one or two more */
	CHECK(jobs_until_cpu(&e, b, 10 * cpu_ns, 16) <= 18);
	/* barely slower than the CPU: a few completions */
	fresh(&e);
	rkm_place_cpu_done(&e, RKM_PLACE_ENCODE, b, cpu_ns, now);
	for (i = 0; i < 50; i++)
		daemon_job(&e, RKM_PLACE_ENCODE, b, cpu_ns / 4);
	CHECK(jobs_until_cpu(&e, b, cpu_ns + cpu_ns / 4, 0) <= 4);
	end();
}

static void test_failing_daemon(void)
{
	struct rkm_place_est e;
	rkm_u64 b = rkm_place_bytes(RKM_PLACE_DECODE, 8, 3, 0, MIB);
	int why, i;

	begin("place_failing_daemon");
	fresh(&e);
	measured(&e, RKM_PLACE_DECODE, b);
	rkm_place_cpu_done(&e, RKM_PLACE_DECODE, b, b * 60 / 1000, now);
	CHECK(decide(&e, RKM_PLACE_AUTO, RKM_PLACE_DECODE, b, 1, &idle, 1,
		     &why) == RKM_PLACE_TO_DAEMON);
	rkm_place_daemon_failed(&e, RKM_PLACE_DECODE, b, now);
	CHECK(decide(&e, RKM_PLACE_AUTO, RKM_PLACE_DECODE, b, 1, &idle, 1,
		     &why) == RKM_PLACE_TO_CPU);
	CHECK(decide(&e, RKM_PLACE_AUTO, RKM_PLACE_DECODE, b, 0, &idle, 1,
		     &why) == RKM_PLACE_TO_CPU);
	/*
	 * 2 ms now against the CPU's 0.2: beyond RKM_PLACE_EXPLORE_RANGE, no
	 * explore draw, only the stale probe; good completions then win the
	 * class back
	 */
	CHECK(decide(&e, RKM_PLACE_AUTO, RKM_PLACE_DECODE, b, 1, &idle,
		     RKM_PLACE_EXPLORE, &why) == RKM_PLACE_TO_CPU);
	now += 2 * RKM_PLACE_STALE_NS;
	CHECK(decide(&e, RKM_PLACE_AUTO, RKM_PLACE_DECODE, b, 1, &idle, 1,
		     &why) == RKM_PLACE_TO_DAEMON);
	CHECK(why == RKM_PLACE_WHY_STALE);
	for (i = 0; i < 1000 && decide(&e, RKM_PLACE_AUTO, RKM_PLACE_DECODE,
				       b, 1, &idle, 1, &why) ==
				RKM_PLACE_TO_CPU; i++)
		daemon_job(&e, RKM_PLACE_DECODE, b, gpu_ns(b));
	CHECK(why == RKM_PLACE_WHY_COST);
	/* other classes and ops are not affected */
	measured(&e, RKM_PLACE_ENCODE, b);
	rkm_place_cpu_done(&e, RKM_PLACE_ENCODE, b, b * 60 / 1000, now);
	rkm_place_daemon_failed(&e, RKM_PLACE_DECODE, b, now);
	CHECK(decide(&e, RKM_PLACE_AUTO, RKM_PLACE_ENCODE, b, 1, &idle, 1,
		     &why) == RKM_PLACE_TO_DAEMON);
	end();
}

static void test_late_daemon(void)
{
	struct rkm_place_est e;
	rkm_u64 b = rkm_place_bytes(RKM_PLACE_DECODE, 8, 3, 0, MIB);
	int why;

	begin("place_late_daemon");
	fresh(&e);
	measured(&e, RKM_PLACE_DECODE, b);
	rkm_place_cpu_done(&e, RKM_PLACE_DECODE, b, b * 60 / 1000, now);
	/* out for less than its estimate: nothing changes */
	rkm_place_daemon_late(&e, RKM_PLACE_DECODE, b, b, 0, gpu_ns(b) / 2,
			      now);
	CHECK(decide(&e, RKM_PLACE_AUTO, RKM_PLACE_DECODE, b, 1, &idle, 1,
		     &why) == RKM_PLACE_TO_DAEMON);
	/* behind a deep queue it may take longer: still as expected */
	rkm_place_daemon_late(&e, RKM_PLACE_DECODE, b, b, 64 * b,
			      gpu_ns(b) + 60 * b * GPU_PS / 1000, now);
	CHECK(decide(&e, RKM_PLACE_AUTO, RKM_PLACE_DECODE, b, 1, &idle, 1,
		     &why) == RKM_PLACE_TO_DAEMON);
	/* still out after 10 ms (a hung batch): the CPU takes the class */
	rkm_place_daemon_late(&e, RKM_PLACE_DECODE, b, b, 0, 10 * MS, now);
	CHECK(decide(&e, RKM_PLACE_AUTO, RKM_PLACE_DECODE, b, 1, &idle, 1,
		     &why) == RKM_PLACE_TO_CPU);
	end();
}

static void test_stale(void)
{
	struct rkm_place_est e;
	rkm_u64 b = rkm_place_bytes(RKM_PLACE_ENCODE, 4, 2, 0, 4096);
	rkm_u64 big = rkm_place_bytes(RKM_PLACE_DECODE, 8, 3, 0, MIB);
	int why;

	begin("place_stale");
	fresh(&e);
	measured(&e, RKM_PLACE_ENCODE, b);
	CHECK(decide(&e, RKM_PLACE_AUTO, RKM_PLACE_ENCODE, b, 1, &idle, 1,
		     &why) == RKM_PLACE_TO_CPU);
	/* the daemon's estimate of the class grows old: one job, once */
	now += RKM_PLACE_STALE_NS + 1;
	CHECK(decide(&e, RKM_PLACE_AUTO, RKM_PLACE_ENCODE, b, 1, &idle, 1,
		     &why) == RKM_PLACE_TO_DAEMON);
	CHECK(why == RKM_PLACE_WHY_STALE);
	CHECK(decide(&e, RKM_PLACE_AUTO, RKM_PLACE_ENCODE, b, 1, &idle, 1,
		     &why) == RKM_PLACE_TO_CPU);
	CHECK(why == RKM_PLACE_WHY_COST);
	/* and the CPU's, where the daemon is chosen */
	measured(&e, RKM_PLACE_DECODE, big);
	rkm_place_cpu_done(&e, RKM_PLACE_DECODE, big, big * 60 / 1000, now);
	now += RKM_PLACE_STALE_NS + 1;
	daemon_job(&e, RKM_PLACE_DECODE, big, gpu_ns(big));
	CHECK(decide(&e, RKM_PLACE_AUTO, RKM_PLACE_DECODE, big, 1, &idle, 1,
		     &why) == RKM_PLACE_TO_CPU);
	CHECK(why == RKM_PLACE_WHY_STALE);
	CHECK(decide(&e, RKM_PLACE_AUTO, RKM_PLACE_DECODE, big, 1, &idle, 1,
		     &why) == RKM_PLACE_TO_DAEMON);
	end();
}

static void test_queue_depth(void)
{
	struct rkm_place_est e;
	rkm_u64 b = rkm_place_bytes(RKM_PLACE_ENCODE, 8, 3, 0, 512 * KIB);
	struct rkm_place_load deep = { 256 * MIB, 0, 4, 0 };
	struct rkm_place_load busy = { 0, 64 * MIB, 1, 0 };
	int why;

	begin("place_queue_depth");
	fresh(&e);
	/* 4 MiB: CPU 84 us, GPU 67 us on an empty ring */
	measured(&e, RKM_PLACE_ENCODE, b);
	CHECK(decide(&e, RKM_PLACE_AUTO, RKM_PLACE_ENCODE, b, 1, &idle, 1,
		     &why) == RKM_PLACE_TO_DAEMON);
	CHECK(decide(&e, RKM_PLACE_AUTO, RKM_PLACE_ENCODE, b, 1, &deep, 1,
		     &why) == RKM_PLACE_TO_CPU);
	CHECK(decide(&e, RKM_PLACE_AUTO, RKM_PLACE_ENCODE, b, 0, &deep, 1,
		     &why) == RKM_PLACE_TO_CPU);
	/* the CPU estimate is the winner once the daemon is measured slow */
	fresh(&e);
	rkm_place_cpu_done(&e, RKM_PLACE_ENCODE, b, b * 20 / 1000, now);
	daemon_job(&e, RKM_PLACE_ENCODE, b, 2 * b * 20 / 1000);
	CHECK(decide(&e, RKM_PLACE_AUTO, RKM_PLACE_ENCODE, b, 1, &idle, 1,
		     &why) == RKM_PLACE_TO_CPU);
	/* ... unless the CPUs are busy with more than the daemon's backlog */
	CHECK(decide(&e, RKM_PLACE_AUTO, RKM_PLACE_ENCODE, b, 1, &busy, 1,
		     &why) == RKM_PLACE_TO_DAEMON);
	end();
}

/* The CPU's estimate of @op and @bytes settled at @ns a job */
static void slow_cpu(struct rkm_place_est *e, int op, rkm_u64 bytes,
		     rkm_u64 ns)
{
	int i;

	for (i = 0; i < 64; i++)
		rkm_place_cpu_done(e, op, bytes, ns, now);
}

/*
 * CPUs busy with other work give a CPU job only the rest of their time:
 * a decode the CPU codes in 1.5 ms beats a 2 ms daemon while the CPUs
 * idle, and loses once they are half busy; a busy share past
 * RKM_PLACE_BUSY_MAX counts as that much.  A job under
 * RKM_PLACE_BUSY_MIN_BYTES (a 4 KiB read's check) keeps its own cost:
 * 100 us on the CPU beats the 2 ms daemon however busy the CPUs are.
 */
static void test_busy_cpus(void)
{
	struct rkm_place_est e;
	rkm_u64 b = rkm_place_bytes(RKM_PLACE_DECODE, 4, 2, 0, 64 * KIB);
	struct rkm_place_load half = { 0, 0, 2, 50 };
	struct rkm_place_load full = { 0, 0, 2, 100 };
	struct rkm_place_load most = { 0, 0, 2, RKM_PLACE_BUSY_MAX };
	struct rkm_place_job job = { RKM_PLACE_DECODE, b, 1 };
	rkm_u64 sb = rkm_place_bytes(RKM_PLACE_CHECK, 4, 2, 0, 4 * KIB);
	struct rkm_place_job small = { RKM_PLACE_CHECK, sb, 1 };
	struct rkm_place_cell *c;
	int i, why;

	begin("place_busy_cpus");
	fresh(&e);
	slow_cpu(&e, RKM_PLACE_DECODE, b, 3 * MS / 2);
	for (i = 0; i < 64; i++)
		daemon_job(&e, RKM_PLACE_DECODE, b, 2 * MS);
	CHECK(decide(&e, RKM_PLACE_AUTO, RKM_PLACE_DECODE, b, 1, &idle, 1,
		     &why) == RKM_PLACE_TO_CPU);
	CHECK(decide(&e, RKM_PLACE_AUTO, RKM_PLACE_DECODE, b, 1, &half, 1,
		     &why) == RKM_PLACE_TO_DAEMON);
	CHECK(why == RKM_PLACE_WHY_COST);
	c = &e.cell[RKM_PLACE_DECODE][rkm_place_class(b)];
	CHECK(rkm_place_cpu_ns(c, &job, &half) ==
	      2 * rkm_place_cpu_ns(c, &job, &idle));
	CHECK(rkm_place_cpu_ns(c, &job, &full) ==
	      rkm_place_cpu_ns(c, &job, &most));
	CHECK(rkm_place_cpu_ns(c, &job, &full) ==
	      10 * rkm_place_cpu_ns(c, &job, &idle));

	/* the share counts other work: not idle, not placed jobs' coding */
	CHECK(rkm_place_busy_share(1000, 200, 0) == 80);
	CHECK(rkm_place_busy_share(1000, 200, 600) == 20);
	CHECK(rkm_place_busy_share(1000, 200, 900) == 0);
	CHECK(rkm_place_busy_share(1000, 1000, 0) == 0);
	CHECK(rkm_place_busy_share(0, 0, 0) == 0);

	CHECK(sb < RKM_PLACE_BUSY_MIN_BYTES && b >= RKM_PLACE_BUSY_MIN_BYTES);
	slow_cpu(&e, RKM_PLACE_CHECK, sb, 100 * US);
	for (i = 0; i < 64; i++)
		daemon_job(&e, RKM_PLACE_CHECK, sb, 2 * MS);
	c = &e.cell[RKM_PLACE_CHECK][rkm_place_class(sb)];
	CHECK(rkm_place_cpu_ns(c, &small, &full) ==
	      rkm_place_cpu_ns(c, &small, &idle));
	CHECK(decide(&e, RKM_PLACE_AUTO, RKM_PLACE_CHECK, sb, 1, &full, 1,
		     &why) == RKM_PLACE_TO_CPU);
	CHECK(why == RKM_PLACE_WHY_COST);
	end();
}

/*
 * Waited 8+3 decodes of 64 KiB chunks (2 ms on a slow CPU) against a daemon of 1.5 ms a lone entry; @serial: an entry behind others
 * waits for theirs too, else it takes its own latency.  Where does a job
 * go behind two entries, after twenty completed behind two?
 */
static int behind_two(int serial)
{
	struct rkm_place_est e;
	rkm_u64 b = rkm_place_bytes(RKM_PLACE_DECODE, 8, 3, 0, 64 * KIB);
	struct rkm_place_load two = { 2 * b, 0, 4, 0 };
	int i, why;

	fresh(&e);
	slow_cpu(&e, RKM_PLACE_DECODE, b, 2 * MS);
	daemon_job(&e, RKM_PLACE_DECODE, b, 3 * MS / 2);
	for (i = 0; i < 20; i++)
		rkm_place_daemon_done(&e, RKM_PLACE_DECODE, b, b, 2 * b,
				      (serial ? 3 : 1) * 3 * MS / 2, now);
	return decide(&e, RKM_PLACE_AUTO, RKM_PLACE_DECODE, b, 1, &two, 1,
		      &why);
}

static void test_work_ahead(void)
{
	struct rkm_place_est e;
	rkm_u64 b = rkm_place_bytes(RKM_PLACE_DECODE, 8, 3, 0, 64 * KIB);
	struct rkm_place_load two = { 2 * b, 0, 4, 0 };
	int why;

	begin("place_work_ahead");
	/* measured alone: two entries ahead look like 4.5 ms, the CPU wins */
	fresh(&e);
	slow_cpu(&e, RKM_PLACE_DECODE, b, 2 * MS);
	daemon_job(&e, RKM_PLACE_DECODE, b, 3 * MS / 2);
	CHECK(decide(&e, RKM_PLACE_AUTO, RKM_PLACE_DECODE, b, 1, &idle, 1,
		     &why) == RKM_PLACE_TO_DAEMON);
	CHECK(decide(&e, RKM_PLACE_AUTO, RKM_PLACE_DECODE, b, 1, &two, 1,
		     &why) == RKM_PLACE_TO_CPU);
	CHECK(behind_two(0) == RKM_PLACE_TO_DAEMON);
	CHECK(behind_two(1) == RKM_PLACE_TO_CPU);
	end();
}

static void test_forced(void)
{
	struct rkm_place_est e;
	rkm_u64 small = rkm_place_bytes(RKM_PLACE_DELTA, 8, 3, 1, 4096);
	rkm_u64 big = rkm_place_bytes(RKM_PLACE_DECODE, 8, 3, 0, MIB);
	rkm_u32 draw;
	int why, ok = 1;

	begin("place_forced");
	fresh(&e);
	measured(&e, RKM_PLACE_DELTA, small);
	measured(&e, RKM_PLACE_DECODE, big);
	for (draw = 0; draw < 2 * RKM_PLACE_EXPLORE; draw++) {
		ok &= decide(&e, RKM_PLACE_CPU, RKM_PLACE_DECODE, big, 1,
			     &idle, draw, &why) == RKM_PLACE_TO_CPU;
		ok &= why == RKM_PLACE_WHY_FORCED;
		ok &= decide(&e, RKM_PLACE_DAEMON, RKM_PLACE_DELTA, small, 1,
			     &idle, draw, &why) == RKM_PLACE_TO_DAEMON;
		ok &= why == RKM_PLACE_WHY_FORCED;
	}
	CHECK(ok);
	/* forced modes also ignore stale estimates and failures */
	now += 2 * RKM_PLACE_STALE_NS;
	rkm_place_daemon_failed(&e, RKM_PLACE_DELTA, small, now);
	CHECK(decide(&e, RKM_PLACE_DAEMON, RKM_PLACE_DELTA, small, 1, &idle,
		     1, &why) == RKM_PLACE_TO_DAEMON);
	/* an op outside the table stays on the CPU */
	CHECK(decide(&e, RKM_PLACE_AUTO, RKM_PLACE_NOPS, small, 1, &idle, 1,
		     &why) == RKM_PLACE_TO_CPU);
	end();
}

static void test_unknown(void)
{
	struct rkm_place_est e;
	rkm_u64 b = rkm_place_bytes(RKM_PLACE_DELTA, 8, 3, 1, 4096);
	rkm_u64 other = rkm_place_bytes(RKM_PLACE_CHECK, 8, 3, 0, 64 * KIB);
	int why;

	begin("place_unknown");
	fresh(&e);
	CHECK(decide(&e, RKM_PLACE_AUTO, RKM_PLACE_DELTA, b, 1, &idle, 1,
		     &why) == RKM_PLACE_TO_DAEMON);
	CHECK(why == RKM_PLACE_WHY_UNKNOWN);
	measured(&e, RKM_PLACE_DELTA, b);
	CHECK(decide(&e, RKM_PLACE_AUTO, RKM_PLACE_DELTA, b, 1, &idle, 1,
		     &why) == RKM_PLACE_TO_CPU);
	/* a class of its own is measured on its own */
	CHECK(decide(&e, RKM_PLACE_AUTO, RKM_PLACE_CHECK, other, 1, &idle, 1,
		     &why) == RKM_PLACE_TO_DAEMON);
	CHECK(why == RKM_PLACE_WHY_UNKNOWN);
	/* a CPU never measured (no seed) is tried too */
	memset(&e, 0, sizeof(e));
	daemon_job(&e, RKM_PLACE_DELTA, b, RING_NS);
	CHECK(decide(&e, RKM_PLACE_AUTO, RKM_PLACE_DELTA, b, 1, &idle, 1,
		     &why) == RKM_PLACE_TO_CPU);
	CHECK(why == RKM_PLACE_WHY_UNKNOWN);
	/* a new daemon is measured afresh */
	rkm_place_cpu_seed(&e, CPU_MBS);
	rkm_place_daemon_reset(&e);
	CHECK(decide(&e, RKM_PLACE_AUTO, RKM_PLACE_DELTA, b, 1, &idle, 1,
		     &why) == RKM_PLACE_TO_DAEMON);
	CHECK(why == RKM_PLACE_WHY_UNKNOWN);
	end();
}

static void test_background(void)
{
	struct rkm_place_est e;
	rkm_u64 b = rkm_place_bytes(RKM_PLACE_CHECK, 8, 3, 0, 64 * KIB);
	int why;

	begin("place_background");
	fresh(&e);
	/* learned with 16 MiB ahead: 25 us + 16.7 MiB at 10 ps a byte */
	rkm_place_cpu_done(&e, RKM_PLACE_CHECK, b, b * 20 / 1000, now);
	rkm_place_daemon_done(&e, RKM_PLACE_CHECK, b, b, 16 * MIB,
			      gpu_ns(16 * MIB + b), now);
	/* a reader waits for the round trip: CPU; a scrub streams: daemon */
	CHECK(decide(&e, RKM_PLACE_AUTO, RKM_PLACE_CHECK, b, 1, &idle, 1,
		     &why) == RKM_PLACE_TO_CPU);
	CHECK(decide(&e, RKM_PLACE_AUTO, RKM_PLACE_CHECK, b, 0, &idle, 1,
		     &why) == RKM_PLACE_TO_DAEMON);
	end();
}

static void test_names(void)
{
	begin("place_names");
	CHECK(rkm_place_class(0) == 0);
	CHECK(rkm_place_class(4096) == 0);
	CHECK(rkm_place_class(16 * KIB - 1) == 0);
	CHECK(rkm_place_class(16 * KIB) == 1);
	CHECK(rkm_place_class(64 * KIB) == 2);
	CHECK(rkm_place_class(256 * KIB) == 3);
	CHECK(rkm_place_class(MIB) == 4);
	CHECK(rkm_place_class(4 * MIB - 1) == 4);
	CHECK(rkm_place_class(4 * MIB) == 5);
	CHECK(rkm_place_class(1ull << 40) == 5);
	CHECK(!strcmp(rkm_place_class_name(0), "0-16K"));
	CHECK(!strcmp(rkm_place_class_name(RKM_PLACE_CLASSES), "?"));
	CHECK(!strcmp(rkm_place_op_name(RKM_PLACE_CHECK), "check"));
	CHECK(rkm_place_bytes(RKM_PLACE_CHECK, 4, 2, 0, 4096) == 6 * 4096);
	CHECK(rkm_place_mode_parse("auto", 0) == RKM_PLACE_AUTO);
	CHECK(rkm_place_mode_parse("cpu\n", 0) == RKM_PLACE_CPU);
	CHECK(rkm_place_mode_parse("daemon", 1) == RKM_PLACE_DAEMON);
	CHECK(rkm_place_mode_parse("default\n", 1) == RKM_PLACE_DEFAULT);
	CHECK(rkm_place_mode_parse("default", 0) == -1);
	CHECK(rkm_place_mode_parse("cpu\n\n", 0) == -1);
	CHECK(rkm_place_mode_parse("autox", 0) == -1);
	CHECK(rkm_place_mode_parse("", 1) == -1);
	CHECK(rkm_place_mode_parse("GPU", 1) == -1);
	CHECK(!strcmp(rkm_place_mode_name(RKM_PLACE_DAEMON), "daemon"));
	end();
}

int main(void)
{
	test_small_waited();
	test_large_decode();
	test_slow_daemon();
	test_failing_daemon();
	test_late_daemon();
	test_stale();
	test_queue_depth();
	test_busy_cpus();
	test_work_ahead();
	test_forced();
	test_unknown();
	test_background();
	test_names();
	return failures ? 1 : 0;
}
