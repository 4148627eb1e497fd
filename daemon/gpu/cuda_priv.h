/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The CUDA backend's own declarations, shared by its files
 * (cuda_backend.cu and cuda_device, _plan, _stage, _launch, _complete.cu):
 * limits, a plan, a slot (one batch in flight), an instance.
 */
#ifndef RKMD_CUDA_PRIV_H
#define RKMD_CUDA_PRIV_H

#include <stdint.h>
#include <time.h>

#include <map>
#include <new>
#include <tuple>
#include <vector>

#include <cuda.h>
#include <cudaTypedefs.h>
#include <cuda_runtime.h>

extern "C" {
#include "codec/rkm_codec.h"
#include "rkmd_backend.h"
#include "rkmd_log.h"
}
#include "rkg.h"
#include "rkg_jit.h"
#include "cuda_backend.h"
#include "gpu_numa.h"

#define NSLOT		8		/* batches in flight */
#define MAX_BATCH_BYTES	(256ull << 20)	/* chunk bytes per merged launch */
#define MAX_BATCH_JOBS	1024
/*
 * RKMD_CUDA_STAGE: RKMD_STAGE_* bits (cuda_backend.h), or "auto" for the
 * default: inputs of batches of at least STAGE_MIN bytes go through the
 * copy engines (Documentation/gpu.rst has the measurements).
 */
#define STAGE_DEFAULT	(RKMD_STAGE_IN | RKMD_STAGE_OUT | RKMD_STAGE_AUTO | \
			 2 << RKMD_STAGE_STREAMS_SHIFT | \
			 4 << RKMD_STAGE_MIX_SHIFT)
#define STAGE_MIN	(4u << 20)	/* staged input bytes */
#define SUB_BYTES	(16u << 20)	/* staged input bytes per sub-batch */
/*
 * Staged batches merge queued jobs only up to this many chunk bytes: a
 * batch completes when its last copy is back, so a few moderate batches
 * staggered over the slots keep the copy engines busier than one huge
 * batch beside small ones.
 */
#define STAGE_BATCH_BYTES (64ull << 20)
/*
 * Completion flags (rkg.h): one word of mapped host memory per slot, 64
 * bytes apart, and one device counter per slot, 128 bytes apart.
 */
#define FLAG_HOST_BYTES	4096
#define FLAG_DEV_BYTES	4096
static_assert(NSLOT * 128 <= FLAG_HOST_BYTES && NSLOT * 128 <= FLAG_DEV_BYTES,
	      "completion words");
/* the release word of an injected hang, after the completion words */
#define HANG_WORD	(FLAG_HOST_BYTES - 64)
static_assert(NSLOT * 128 <= HANG_WORD, "hang word");
/* an injected hang ends by itself after this long (a test that died) */
#define HANG_MAX_NS	(120ull * 1000000000ull)

struct plan {
	int op, k, m, mode, nin, nout;
	uint8_t in_idx[RKG_MAX_IN];	/* chunk index (DELTA: data index) */
	uint8_t out_idx[RKG_MAX_OUT];	/* chunk index */
	struct rkg_coef coef;
	uint32_t *ktab;			/* K table (rkg.h) */
	uint32_t kwords;
	int nreg;			/* pool regions it takes */
	int x0;				/* output 0 is a plain XOR */
	int region;			/* first region while resident, or -1 */
	int refs;			/* batches in flight using it */
	uint64_t lru;
	int jit_state;			/* 0 none, 1 queued, 2 ready, 3 failed */
	struct rkg_jit *jit;		/* its NVRTC kernel, when ready */
	int jit_seen;			/* it was launched once */
};

struct cuda_backend;

struct slot {
	struct cuda_backend *b;
	int idx;
	cudaStream_t st;
	cudaEvent_t ev;
	uint64_t *htab, *dtab;		/* pinned host / device tables */
	size_t tabcap;			/* entries */
	int32_t *hflags, *dflags;
	size_t flagcap;
	uint8_t *dstage;		/* device copies of staged inputs */
	size_t stagecap;
	uint8_t *dout;			/* staged outputs (RKMD_STAGE_OUT) */
	size_t outcap;
	std::vector<void *> cp_src, cp_dst;	/* input copies */
	std::vector<size_t> cp_len;
	std::vector<void *> op_src, op_dst;	/* output copies */
	std::vector<size_t> op_len;
	cudaEvent_t cev;		/* a sub-batch's inputs arrived */
	cudaEvent_t kev;		/* a sub-batch's kernel finished */
	cudaEvent_t oev;		/* the batch's outputs are back */
	/* the batch in flight (under b->lock) */
	int busy;
	cudaError_t err;		/* failed before it ran */
	int injected;			/* err is rkmd_cuda_inject_fail()'s */
	int withhold;			/* tests: never seen to complete */
	struct plan *p;
	int holds_region;
	std::vector<struct rkmd_job *> jobs;
	uint64_t nstripes;
	uint64_t deadline_ns;		/* when it should be done */
	/*
	 * Completion by flag (the default for zero-copy batches of one
	 * launch, RKMD_CUDA_FLAG=0: never): the kernel's last block stores
	 * fseq in *hdone; the event is recorded as well and asked every
	 * 20 us, for errors.
	 */
	int flag;
	uint32_t fseq;
	uint32_t *hdone;		/* mapped host word (host address) */
	uint32_t *hdone_d;		/* its device address */
	uint32_t *dcount;		/* zeroed device word */

	pthread_t th;
	int th_ok;
	pthread_cond_t cv;
};

struct cuda_backend {
	char *base;
	size_t ro_len;		/* inputs, registered read-only */
	size_t len;
	intptr_t delta;			/* device address - host address */
	int dev;
	CUcontext cuctx;		/* own context, or NULL: primary */
	int node;			/* NUMA node of the GPU, -1: any */
	char busid[32];			/* PCI address */
	uint64_t hang_ns;		/* a batch running longer is hung */
	int registered;			/* holds an arena reference */
	rkmd_complete_fn done;
	void *ctx;

	pthread_mutex_t lock;
	pthread_cond_t idle;
	std::vector<struct rkmd_job *> pending;
	uint64_t outstanding;		/* submitted, done() not yet returned */
	int dead, stop, inject_trap;
	int inject_fail;		/* tests: fail the next batch */
	int inject_hang;		/* tests: RKMD_HANG_* for the next */
	int hang_armed;			/* a batch waits on *hang_word */
	uint32_t *hang_word;		/* set by close(): release it */
	char dead_why[160];		/* the error that made it dead */
	uint64_t trap_after;	/* RKMD_CUDA_TRAP_AFTER: fault at that job */
	uint64_t busy_until_ns;		/* estimated end of queued GPU work */
	double ns_per_byte;

	/* (op | k << 8 | m << 16, mask, DECODE's want) */
	std::map<std::tuple<uint64_t, uint64_t, uint64_t>, struct plan *> plans;
	struct rkm_code *code[RKM_MAX_N + 1][RKM_MAX_M + 1];
	struct plan *owner[RKG_NREGION];	/* constant pool regions */
	uint64_t lru_clock;
	cudaStream_t upload;
	int nbusy;

	struct slot s[NSLOT];
	struct rkmd_cuda_stats stats;
	int flag_mode;			/* RKMD_CUDA_FLAG (default 1; 2: the
					   kernel fences in every thread,
					   the benchmark's reference) */
	void *fhost, *fhost_d;		/* completion words: host, device */
	void *fdev;			/* their counters */
	int stage_mode;			/* RKMD_STAGE_* bits, 0: zero-copy */
	uint64_t stage_min;		/* auto: stage batches from here */
	uint64_t sub_bytes;		/* staged inputs per sub-batch */
	cudaStream_t h2d[RKMD_STAGE_MAXSTREAMS];	/* shared copy streams */
	int nh2d;			/* how many of them are used */
	uint64_t h2d_next;		/* round robin over them */
	uint64_t mix_next;		/* RKMD_STAGE_MIX: batch counter */
	cudaStream_t d2h;		/* shared, staged outputs */

	/* rkmd_cuda_pulse(): read without the lock (atomics) */
	uint64_t pulse_batches;		/* batches the GPU finished */
	uint64_t setup_ns;		/* one-time work since (0: none) */
	int setup_depth;		/* its nesting; under lock */
	uint32_t kseen[2][3];		/* generic kernels launched: x0,
					   mode, bit nout - 1 */

	/* NVRTC kernels: 0 off, 1 compiled in the background, 2 at once */
	int jit_mode;
	std::vector<struct plan *> jit_queue;
	pthread_t jit_th;
	int jit_th_ok;
	pthread_cond_t jit_cv;
};

static inline uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

static inline void sleep_ns(uint64_t ns)
{
	struct timespec ts = { (time_t)(ns / 1000000000ull),
			       (long)(ns % 1000000000ull) };

	nanosleep(&ts, NULL);
}

/*
 * One-time work on the launch path (under b->lock, or in open) begins and
 * ends: it may wait for every batch in flight (cudaFree, a kernel's lazy
 * load) and holds their completions back meanwhile, so rkmd_cuda_pulse()
 * says so.
 */
static inline void setup_begin(struct cuda_backend *b)
{
	if (!b->setup_depth++)
		__atomic_store_n(&b->setup_ns, now_ns(), __ATOMIC_RELAXED);
}

static inline void setup_end(struct cuda_backend *b)
{
	if (!--b->setup_depth)
		__atomic_store_n(&b->setup_ns, 0, __ATOMIC_RELAXED);
}

/* Errors after which the context cannot be trusted any more. */
static inline int cuda_fatal(cudaError_t e)
{
	return e != cudaSuccess && e != cudaErrorMemoryAllocation &&
	       e != cudaErrorInvalidValue;
}

/* DECODE: the chunks a job writes (want, 0 meaning all of mask) */
static inline uint64_t job_want(const struct rkmd_job *j)
{
	return j->want ? j->want : j->mask;
}

static inline int cuda_errno(cudaError_t e)
{
	if (e == cudaErrorMemoryAllocation)
		return -ENOMEM;
	if (e == cudaErrorLaunchTimeout)	/* hung: it may still write */
		return -ETIMEDOUT;
	if (e == cudaErrorInvalidValue)
		return -EINVAL;
	return -EIO;
}

/* cuda_device.cu */
cudaError_t use_ctx(const struct cuda_backend *b);
int pick_device(void);
cudaError_t arena_get(struct cuda_backend *b, size_t ro_len,
			     void **dptr, char *why, size_t whylen);
void arena_put(struct cuda_backend *b);
cudaError_t start_context(struct cuda_backend *b, int own_ctx,
				 char *why, size_t whylen);
void ctx_release(struct cuda_backend *b);

/* cuda_complete.cu */
void *slot_thread(void *arg);

/* cuda_launch.cu */
int job_ok(struct cuda_backend *b, const struct rkmd_job *j);
void kick(struct cuda_backend *b);

/* cuda_plan.cu */
void *jit_thread(void *arg);
struct rkg_jit *jit_for(struct cuda_backend *b, struct plan *p,
			       uint64_t data_bytes);
struct plan *get_plan(struct cuda_backend *b,
			     const struct rkmd_job *j);
cudaError_t pool_get(struct cuda_backend *b, struct plan *p);
void pool_put(struct cuda_backend *b, struct plan *p);
int stride_of(const struct plan *p);

/* cuda_stage.cu */
cudaError_t grow(struct slot *sl, size_t ntab, size_t nflags);
int stage_flags(struct cuda_backend *b, const struct plan *p,
		       uint64_t nstripes, uint32_t len, size_t njobs);
int stage_prepare(struct cuda_backend *b, struct slot *sl,
			 const struct plan *p, uint64_t *tab, uint32_t len,
			 int f);
void set_streams(struct cuda_backend *b);
cudaError_t batch_copy(void **dst, void **src, size_t *len, size_t n,
			      int f, cudaStream_t st);

#endif /* RKMD_CUDA_PRIV_H */
