/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The multi-GPU backend's own declarations: an instance (one GPU, served
 * by one worker process at a time) and the backend, shared by
 * multi_gpu.c (the ops, where jobs go and what a failure means for them)
 * and gpu_supervise.c (workers started, read, reaped and restarted).
 */
#ifndef RKMD_MULTI_PRIV_H
#define RKMD_MULTI_PRIV_H

#include <pthread.h>
#include <stdint.h>
#include <sys/types.h>

#include "rkmd_backend.h"
#include "multi_gpu.h"
#include "gpu_worker.h"

struct multi;

struct inst {
	struct multi *m;
	struct rkmd_gpu_state st;	/* under m->lock */
	struct rkg_worker_args args;
	/* the worker: fd under wlock (-1: none), the rest under m->lock */
	pthread_mutex_t wlock;
	int fd;
	pid_t pid;
	pthread_t reader;
	int reader_ok;
	int settled;			/* its first start has an outcome */
	int fresh;			/* restarted, no job coded yet */
	uint64_t restart_ns;		/* RESTARTING: when */
	uint64_t up_ns;			/* UP since */
	uint64_t down_ns;		/* FAILING since (0: not) */
	unsigned int backoff_ms;	/* the next restart's delay */
	uint64_t out_bytes;		/* sent, not completed */
	uint64_t done_ns;		/* last DONE, or its first job if idle */
	uint64_t beat_ns;		/* last ALIVE that counted (gpu_stall.h) */
	/* jobs sent to the worker: id = index; free ones chained */
	struct rkmd_job **fl;
	uint64_t *fl_ns;		/* when each was sent */
	uint32_t *fl_next;
	uint32_t fl_cap, fl_free;
	/* tests: RKMD_GPUS_TRAP/FAIL/HANG=I:N, at this job */
	uint64_t submitted, fault_at;
	enum rkmd_gpu_fault fault;
};

struct multi {
	rkmd_complete_fn done;
	void *ctx;
	pthread_mutex_t lock;
	pthread_cond_t idle;		/* outstanding reached 0 */
	pthread_cond_t change;		/* a worker's state changed */
	uint64_t outstanding;		/* jobs taken, done() not returned */
	unsigned int next;		/* round robin among equals */
	uint64_t state_ns;		/* status file last written */
	int closing;
	uint64_t stall_ns;		/* RKMD_GPUS_STALL_MS (0: off) */
	pthread_t sup;
	int sup_ok;
	int n;
	struct inst in[RKMD_GPUS_MAX];
};

/* a restart's first delay, doubled per failed start up to the max */
#define RKG_BACKOFF_MS		500
#define RKG_BACKOFF_MAX_MS	60000
/* a worker serving this long has its backoff reset */
#define RKG_STABLE_NS		(60ull * 1000000000ull)
/* how long a worker may take to exit once told to */
#define RKG_EXIT_MS		10000
/*
 * A serving worker that has held a job this long, plus the time the bytes
 * it holds take at RKG_STALL_MIN_MBS, and shown no progress for as long
 * (no DONE, no beat: gpu_stall.h) is stalled: its GPU trapped, hung or
 * fell off the bus, and the driver has not said so yet.  A deep queue
 * that moves is not, nor one-time work on its launch path that holds its
 * DONEs back (it beats).  The floor is below the kernel's 50 ms job
 * deadline, which would drop the whole daemon.  RKMD_GPUS_STALL_MS
 * overrides the floor, 0 turns the detector off (tests, benchmarks: no
 * kernel deadline).
 */
#define RKG_STALL_MS		30
/* how often the supervisor looks while some worker has jobs out */
#define RKG_TICK_NS		(5ull * 1000000ull)

uint64_t rkg_mono_ns(void);
uint64_t rkg_job_bytes(const struct rkmd_job *j);

/* multi_gpu.c */
void rkg_publish_locked(struct multi *m, int force);
/* a job came back from in's worker (status 0 or -errno; res: CHECK's) */
void rkg_job_back(struct inst *in, struct rkmd_job *job, int status,
		  const int32_t *res, uint32_t nres);

/* gpu_supervise.c */
int rkg_inst_start(struct inst *in, char *why, size_t whylen);
int rkg_inst_send(struct inst *in, uint32_t type, uint64_t id,
		  const void *a, size_t alen, const void *b, size_t blen);
uint32_t rkg_fl_put_locked(struct inst *in, struct rkmd_job *job);
struct rkmd_job *rkg_fl_take_locked(struct inst *in, uint64_t id);
void rkg_mark_down_locked(struct inst *in, const char *why);
int rkg_supervisor_start(struct multi *m);
void rkg_supervisor_stop(struct multi *m);
void rkg_inst_stop(struct inst *in);

#endif /* RKMD_MULTI_PRIV_H */
