/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Job placement (freestanding, pure): should a coding job run on the CPU
 * codec now or go to raidkmd, by which side is expected to finish it
 * first?  The estimates are learned from the jobs themselves: the CPU's
 * picoseconds per byte from timed CPU runs, the daemon's latency and
 * picoseconds per byte from its completions, each per op and size class.
 * Compiled into raidkm.ko (offload_place.c feeds it) and into the user-
 * space unit test tests/unit/place_test.c.  Documentation/offload.rst,
 * "Placement", gives the rule.
 *
 * Concurrency: the estimates are shared; every field is read and written
 * once per use (rkm_read_once/rkm_write_once), never under a lock.  The
 * daemon's estimates have one writer (the completion work); the CPU's
 * have many (every submitter), and an update lost to a race only delays
 * the average by one sample.
 */
#ifndef RKM_PLACE_H
#define RKM_PLACE_H

#include "codec/rkm_port.h"

enum rkm_place_op {
	RKM_PLACE_ENCODE,
	RKM_PLACE_DECODE,
	RKM_PLACE_DELTA,
	RKM_PLACE_CHECK,
	RKM_PLACE_NOPS
};

/* Size classes: log2 of a job's bytes in steps of 4: <16K ... >=4M */
#define RKM_PLACE_CLASSES	6

enum rkm_place_mode {
	RKM_PLACE_DEFAULT,	/* per array: follow the module parameter */
	RKM_PLACE_AUTO,		/* by the estimates */
	RKM_PLACE_CPU,		/* always the CPU codec */
	RKM_PLACE_DAEMON,	/* always the daemon (when it can take it) */
	RKM_PLACE_NMODES
};

enum rkm_place_side {
	RKM_PLACE_TO_CPU,
	RKM_PLACE_TO_DAEMON,
	RKM_PLACE_NSIDES
};

/*
 * One draw in this many of a class may send its job to the side not
 * chosen, while that side is expected within RKM_PLACE_EXPLORE_RANGE
 * times the cost of the chosen one (farther: only when its estimate is
 * stale), and of those draws the share chosen / other (a second draw
 * from the random number's upper bits, in 1/RKM_PLACE_EXPLORE_SCALE
 * steps): an explored job costs other - chosen more, so exploring adds
 * less than 1/RKM_PLACE_EXPLORE of the chosen side's cost per job.
 */
#define RKM_PLACE_EXPLORE	64
#define RKM_PLACE_EXPLORE_RANGE	8
#define RKM_PLACE_EXPLORE_SCALE	1024
/* A side whose estimate of a class is older than this is tried again. */
#define RKM_PLACE_STALE_NS	(500ull * 1000 * 1000)
/* A failed daemon job: its class's latency becomes at least this. */
#define RKM_PLACE_FAIL_NS	(2u * 1000 * 1000)
/*
 * A CPU job gets the share of the CPUs' time their other work leaves: its
 * estimate is divided by (100 - busy_pct) / 100, busy_pct counted up to
 * this much (a job always gets a tenth).
 */
#define RKM_PLACE_BUSY_MAX	90
/*
 * ... but only a job of at least this many bytes: a smaller one costs the
 * CPUs about as much to send (its entry, staging, completion and its
 * waiter's wake-up) as to code, and its waiter would wait a round trip.
 */
#define RKM_PLACE_BUSY_MIN_BYTES	(128u * 1024)
/* Estimates are capped here (1 s per job, 1 ms per byte). */
#define RKM_PLACE_MAX_NS	(1000u * 1000 * 1000)
#define RKM_PLACE_MAX_PS	(1000u * 1000 * 1000)

/* What is known of one side for one (op, class); 0: not measured yet */
struct rkm_place_cell {
	rkm_u32 cpu_ps;		/* CPU: ps per byte */
	rkm_u32 d_ns;		/* daemon: ns per job with nothing ahead */
	rkm_u32 d_ps;		/* daemon: ps per byte of its entries */
	rkm_u32 d_qps;		/* daemon: ps per byte of work ahead */
	rkm_u64 cpu_at;		/* ns when cpu_ps was last measured */
	rkm_u64 d_at;		/* ns when d_ns/d_ps were last measured */
};

struct rkm_place_est {
	struct rkm_place_cell cell[RKM_PLACE_NOPS][RKM_PLACE_CLASSES];
};

/* A job to place */
struct rkm_place_job {
	int op;			/* enum rkm_place_op */
	rkm_u64 bytes;		/* rkm_place_bytes() */
	int waited;		/* a caller waits for it: latency-bound */
};

/* The work queued on each side when the job is placed */
struct rkm_place_load {
	rkm_u64 ring_bytes;	/* bytes of jobs staged or on the ring */
	rkm_u64 cpu_bytes;	/* bytes of placed jobs being coded on CPUs */
	rkm_u32 ncpus;		/* CPUs coding (online), at least 1 */
	rkm_u32 busy_pct;	/* their time busy lately, 0-100; 0: unknown */
};

/* How a decision was reached (counted per side) */
enum rkm_place_why {
	RKM_PLACE_WHY_FORCED,	/* placement=cpu or daemon */
	RKM_PLACE_WHY_COST,	/* the lower estimate */
	RKM_PLACE_WHY_UNKNOWN,	/* a side not measured yet is tried */
	RKM_PLACE_WHY_EXPLORE,	/* the explore draw */
	RKM_PLACE_WHY_STALE,	/* the other side's estimate was old */
	RKM_PLACE_NWHY
};

/*
 * Bytes a job codes: the chunks it reads (encode and decode k, check
 * k + m, delta old and new of each changed chunk and the m parity).
 */
rkm_u64 rkm_place_bytes(int op, int k, int m, int nchanged, rkm_u32 len);
int rkm_place_class(rkm_u64 bytes);
const char *rkm_place_class_name(int cls);
const char *rkm_place_op_name(int op);

/* "auto", "cpu", "daemon" (and "default" when @per_array): mode or -1 */
int rkm_place_mode_parse(const char *s, int per_array);
const char *rkm_place_mode_name(int mode);

/* Expected ns until the job would be done on each side; 0: unknown */
/*
 * busy_pct's sample: the share (0-100) of @wall_us of the CPUs' time
 * spent on other work, that is neither the @idle_us idle or waiting for
 * I/O nor the @own_us coding placed jobs (offload_busy.c feeds it).
 */
rkm_u32 rkm_place_busy_share(rkm_u64 wall_us, rkm_u64 idle_us,
			     rkm_u64 own_us);
rkm_u64 rkm_place_cpu_ns(const struct rkm_place_cell *c,
			 const struct rkm_place_job *job,
			 const struct rkm_place_load *load);
rkm_u64 rkm_place_daemon_ns(const struct rkm_place_cell *c,
			    const struct rkm_place_job *job,
			    const struct rkm_place_load *load);

/*
 * Where the job runs, in @mode (AUTO, CPU or DAEMON), at time @now (ns);
 * @draw: a random number (the explore draw).  *why says how it was
 * decided.  May mark a stale estimate as being explored.
 */
int rkm_place_decide(struct rkm_place_est *est, int mode,
		     const struct rkm_place_job *job,
		     const struct rkm_place_load *load, rkm_u32 draw,
		     rkm_u64 now, int *why);

/* A CPU run of @bytes of @op took @ns */
void rkm_place_cpu_done(struct rkm_place_est *est, int op, rkm_u64 bytes,
			rkm_u64 ns, rkm_u64 now);
/* The load-time measurement: @mbs MB/s for every op and class */
void rkm_place_cpu_seed(struct rkm_place_est *est, rkm_u32 mbs);

/*
 * The daemon completed a ring entry of @bytes of @op (its jobs' class is
 * that of @job_bytes) in @ns from submission, with @ahead bytes on the
 * ring before it.
 */
void rkm_place_daemon_done(struct rkm_place_est *est, int op,
			   rkm_u64 job_bytes, rkm_u64 bytes, rkm_u64 ahead,
			   rkm_u64 ns, rkm_u64 now);
/* A daemon job of that class failed: its estimate is inflated at once */
void rkm_place_daemon_failed(struct rkm_place_est *est, int op,
			     rkm_u64 job_bytes, rkm_u64 now);
/*
 * A ring entry as for rkm_place_daemon_done() is still out after @ns:
 * past what the estimates expect of it, that is a (lower-bound) sample.
 */
void rkm_place_daemon_late(struct rkm_place_est *est, int op,
			   rkm_u64 job_bytes, rkm_u64 bytes, rkm_u64 ahead,
			   rkm_u64 ns, rkm_u64 now);
/* A new daemon: forget what the last one measured */
void rkm_place_daemon_reset(struct rkm_place_est *est);

#endif /* RKM_PLACE_H */
