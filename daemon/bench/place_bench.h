/* SPDX-License-Identifier: GPL-2.0 */
/*
 * rkm-place-bench: job placement (kernel/raidkm/place.c) in user space,
 * with native CPU rates: the decision and the CPU codec on the submitter
 * threads, raidkmd's core and a backend (cpu, cuda) on the other end of
 * the loopback ring.  Documentation/offload.rst, "Placement", tells how
 * to run it and what it prints.
 *
 *   place_feed.c    the decision fed as offload_place.c feeds it
 *   place_ring.c    the kernel end: entries on the ring, staging, the
 *                   completion thread (and its watchdog)
 *   place_job.c     the job classes, their buffers, one job run and
 *                   checked
 *   place_verify.c  the kernel's checks of the daemon's results
 *   place_stats.c   latencies, rates, medians and ratios, printed
 *   place_bench.c   options, the stream, rounds of every mode
 */
#ifndef RKM_PLACE_BENCH_H
#define RKM_PLACE_BENCH_H

#include <pthread.h>
#include <stdint.h>

#include "place.h"
#include "codec/rkm_codec.h"
#include "uapi/raidkm.h"
#include "loopback/rkm_loop_daemon.h"

#define PB_NCLASSES	5	/* the stream's job classes (place_job.c) */

/* Latencies of one class (place_stats.c) */
struct pb_lat {
	uint32_t *us10;		/* latencies in tenths of microseconds */
	uint64_t n, cap;
};

/* ---- place_feed.c: the decision and what it learns ------------------- */

struct pb_feed {
	struct rkm_place_est est;
	int mode;			/* RKM_PLACE_AUTO, _CPU or _DAEMON */
	uint64_t cpu_busy;		/* bytes of placed jobs on the CPUs */
	uint32_t ncpus;
	/* this run's jobs and bytes by side, class of the stream, reason */
	uint64_t jobs[RKM_PLACE_NSIDES][PB_NCLASSES];
	uint64_t why[RKM_PLACE_NSIDES][RKM_PLACE_NWHY];
};

struct pb_pjob {
	struct rkm_place_job pj;
	int cls;			/* the stream's class (counts) */
};

uint64_t pb_now_ns(void);
void pb_feed_init(struct pb_feed *f, uint32_t cpu_mbs);
void pb_feed_clear_counts(struct pb_feed *f);
int pb_feed_to_daemon(struct pb_feed *f, const struct pb_pjob *p,
		      uint64_t ring_bytes, uint32_t draw);
void pb_feed_on_daemon(struct pb_feed *f, const struct pb_pjob *p,
		       uint32_t njobs);
/* Run @fn(@arg) as a placed CPU job: counted, timed, learned from */
void pb_feed_run_cpu(struct pb_feed *f, const struct pb_pjob *p,
		     void (*fn)(void *arg), void *arg);
void pb_feed_daemon_entry(struct pb_feed *f, int op, uint64_t job_bytes,
			  uint32_t njobs, uint64_t ahead, uint64_t ns,
			  int failed);
void pb_feed_daemon_out(struct pb_feed *f, int op, uint64_t job_bytes,
			uint32_t njobs, uint64_t ahead, uint64_t ns);

/* ---- place_verify.c: the kernel's checks of daemon results ---------- */

enum { PB_VERIFY_NONE, PB_VERIFY_SPOT, PB_VERIFY_FULL, PB_VERIFY_NSCOPES };

struct pb_verify_cfg {		/* the module parameters verify_* */
	int spot;
	uint32_t ppm;
	uint64_t fresh;
};

#define PB_MAX_VSTRIPES	4	/* stripes of one entry (a window) */

/* One stripe as the daemon saw it: its outputs are in staging */
struct pb_vstripe {
	uint8_t *chunk[RKM_MAX_N];
	uint8_t *old[RKM_MAX_K];
	uint8_t *home_par[RKM_MAX_M];	/* DELTA: the parity not yet updated */
};

struct pb_vjob {
	struct rkm_code *code;
	uint8_t op, k, m;
	uint32_t len, nstripes;
	uint64_t mask, want;
	struct pb_vstripe st[PB_MAX_VSTRIPES];
};

struct pb_verify;

struct pb_verify *pb_verify_create(const struct pb_verify_cfg *cfg);
void pb_verify_destroy(struct pb_verify *v);
/* Check a completed entry (one thread); how many stripes were wrong */
int pb_verify_job(struct pb_verify *v, const struct pb_vjob *j);
uint64_t pb_verify_count(const struct pb_verify *v, int scope);
uint64_t pb_verify_wrong(const struct pb_verify *v);
/* Still in the fresh window (every job checked in full)? */
int pb_verify_fresh(const struct pb_verify *v);

/* ---- place_ring.c: the kernel end ------------------------------------ */

#define PB_MAX_COPIES	16	/* staged outputs of one entry */

/* A caller waiting for one entry */
struct pb_wait {
	uint32_t done;			/* futex word */
	int status;
};

struct pb_copy {
	uint8_t *to;
	const uint8_t *from;
	uint32_t len;
};

/* One entry to put on the ring */
struct pb_entry_req {
	struct rkm_loop_job job;	/* offs: its descriptor */
	int pop;			/* enum rkm_place_op */
	uint64_t pbytes;		/* place bytes of each of its jobs */
	struct pb_copy copy[PB_MAX_COPIES];	/* staging -> home at the end */
	int ncopy;
	const struct pb_vjob *vjob;	/* what the kernel's checks see */
	struct pb_wait *wait;
};

struct pb_ring;

struct pb_ring *pb_ring_start(const char *backend, int threads,
			      uint64_t home_bytes, uint64_t stage_bytes,
			      struct pb_feed *feed, struct pb_verify *v);
void pb_ring_stop(struct pb_ring *r);
uint8_t *pb_ring_home(struct pb_ring *r);
uint8_t *pb_ring_stage(struct pb_ring *r);
const char *pb_ring_backend(struct pb_ring *r);
uint64_t pb_ring_bytes(struct pb_ring *r);
/* Describe stripe @st of @j (chunk and old pointers) into its offsets */
int pb_ring_describe(struct pb_ring *r, const struct rkm_loop_job *j,
		     uint8_t *const *chunk, uint8_t *const *old, uint32_t st,
		     uint64_t *offs);
/* 0: on the ring; -EAGAIN: no room (the CPU takes it); else an error */
int pb_ring_submit(struct pb_ring *r, struct pb_entry_req *e);
void pb_wait_for(struct pb_wait *w);
/* Tests: the daemon corrupts a result in @every (--fault=corrupt:N) */
void pb_ring_corrupt(struct pb_ring *r, uint64_t every);
/* Entries that came back failed so far (re-run on the CPU) */
uint64_t pb_ring_failed(struct pb_ring *r);

/* ---- place_job.c: classes, buffers, one job ------------------------- */

struct pb_class {
	const char *name;
	uint8_t op, k, m;
	uint32_t len, nstripes;		/* a window: nstripes jobs */
	uint64_t mask, want;
	int waited;
	int weight;			/* in every 64 jobs of the stream */
};

extern const struct pb_class pb_classes[PB_NCLASSES];

/* Per-thread state: a copy of every class's stripes and expectations */
struct pb_lane;

struct pb_lane *pb_lane_create(struct pb_ring *r, struct pb_feed *f,
			       int index, int check_every, uint64_t seed);
void pb_lane_destroy(struct pb_lane *l);
/* Bytes of the arena (inputs) and of staging one lane uses */
uint64_t pb_lane_home_bytes(void);
uint64_t pb_lane_stage_bytes(void);
/* Run one job of class @cls, placed; its place bytes, or 0 */
uint64_t pb_lane_run(struct pb_lane *l, int cls);
uint64_t pb_lane_wrong(const struct pb_lane *l);
const struct pb_lat *pb_lane_lat(const struct pb_lane *l, int cls);
/* Forget the latencies recorded (a new run) */
void pb_lane_clear(struct pb_lane *l);
uint64_t pb_lane_checked(const struct pb_lane *l);

/* ---- place_stats.c ---------------------------------------------------- */

struct pb_run {			/* one mode in one round */
	double secs;
	uint64_t bytes[PB_NCLASSES];
	struct pb_lat lat[PB_NCLASSES];
	uint64_t jobs[RKM_PLACE_NSIDES][PB_NCLASSES];
	uint64_t why[RKM_PLACE_NSIDES][RKM_PLACE_NWHY];
	/* summaries */
	double gbs[PB_NCLASSES + 1];
	double p50[PB_NCLASSES], p99[PB_NCLASSES];
};

void pb_lat_add(struct pb_lat *l, uint64_t ns);
void pb_run_reset(struct pb_run *r);
void pb_run_merge_lat(struct pb_run *r, int cls, const struct pb_lat *l);
void pb_run_summarize(struct pb_run *r);
void pb_run_print(const struct pb_run *r, int round, const char *mode);
/* runs[round * 3 + mode], modes cpu, daemon, auto (pb_mode_names) */
void pb_print_summary(const struct pb_run *runs, int nrounds);
extern const char *const pb_mode_names[3];

#endif /* RKM_PLACE_BENCH_H */
