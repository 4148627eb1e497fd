/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Coding jobs: the one interface between the md personality and whatever
 * codes its stripes: raidkmd, the user-space daemon, when one is attached
 * and the job can go to it (dispatch.c), else the in-kernel CPU codec.
 *
 * A job's ->done callback may run synchronously inside rkm_job_submit()
 * or later from another context (softirq excluded: process context or a
 * workqueue), so the submitter must not hold locks ->done takes.
 */
#ifndef RKM_JOB_H
#define RKM_JOB_H

#include <linux/types.h>
#include <linux/atomic.h>
#include <linux/list.h>
#include "codec/rkm_codec.h"

enum rkm_job_op {
	RKM_JOB_ENCODE = 1,	/* chunk[0..k-1] -> chunk[k..k+m-1] */
	RKM_JOB_DECODE,		/* rebuild chunks set in want from the others */
	RKM_JOB_DELTA,		/* parity += f(old[i] ^ chunk[i]) for i in mask */
	RKM_JOB_CHECK,		/* result: 0 consistent, 1 mismatch */
	RKM_JOB_LOCATE,		/* result: chunk index or RKM_LOCATE_* */
};

struct rkm_job {
	enum rkm_job_op op;
	struct rkm_code *code;		/* the array's (k, m) context */
	u32 len;			/* bytes per chunk, RKM_LEN_ALIGN multiple */
	u64 mask;			/* DECODE: erased; DELTA: changed data */
	u64 want;			/* DECODE: the chunks written; 0: mask */
	void *chunk[RKM_MAX_N];		/* data 0..k-1, then parity */
	void *old[RKM_MAX_K];		/* DELTA: old contents of changed data */
	void *scratch;			/* CHECK/LOCATE: m * len bytes */
	int result;			/* 0 or -errno; CHECK/LOCATE answer */
	bool waited;			/* a reader or writer waits on it */
	void (*done)(struct rkm_job *job);
	void *priv;			/* the submitter's */
	struct rkm_job_stats *stats;	/* NULL, or the array's counters */
};

/*
 * Per-array offload counters.  An array that wants them registers one
 * (name: the md device, "md0") and points its jobs' ->stats at it; they
 * are shown by raidkmctl status (netlink GET_STATS) next to the global
 * counters of /sys/kernel/raidkm.  Unregister before freeing.
 */
struct rkm_job_stats {
	atomic64_t offloaded;		/* jobs completed by the daemon */
	atomic64_t cpu;			/* jobs run on the in-kernel codec */
	atomic64_t deadline_misses;	/* offloaded jobs past their deadline */
	atomic64_t reruns;		/* re-run on the CPU after daemon loss */
	atomic64_t verify_mismatches;	/* verify_ppm re-checks that differed */
	atomic64_t bytes_offloaded;	/* chunk bytes described to the daemon */
	int placement;			/* enum rkm_place_mode (place.h) */
	struct list_head node;		/* registry (offload_stats.c) */
	char name[32];
};

/*
 * DECODE: the chunks not in ->mask are the survivors (the first k are
 * read); ->want, a non-empty subset of ->mask, says which erased chunks
 * are rebuilt into chunk[] (0: all of ->mask).  Chunks in ->mask but not
 * in ->want may have a NULL chunk[] and are never touched, by the CPU or
 * by the daemon.  A caller choosing which k survivors are read marks the
 * others erased too (mask may then hold m chunks, want one).
 */
static inline u64 rkm_job_want(const struct rkm_job *job)
{
	return job->want ? job->want : job->mask;
}

void rkm_job_stats_register(struct rkm_job_stats *s, const char *name);
void rkm_job_stats_unregister(struct rkm_job_stats *s);

/* Code the job; ->done is called exactly once, maybe before this returns. */
void rkm_job_submit(struct rkm_job *job);

/* Run a job on the CPU codec, synchronously (no ->done call). */
void rkm_job_run_cpu(struct rkm_job *job);

#endif /* RKM_JOB_H */
