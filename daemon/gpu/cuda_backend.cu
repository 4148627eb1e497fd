// SPDX-License-Identifier: GPL-2.0
/*
 * raidkmd CUDA backend (struct rkmd_backend_ops rkmd_cuda_backend).
 *
 * Data path.  The arena is registered once with
 * cudaHostRegister(..., Mapped).  Jobs of less than 4 MiB of inputs run
 * zero-copy: the kernels read the chunks straight out of host memory
 * through their mapped device addresses and write results straight back
 * (no staging, lowest latency).  Batches of larger jobs are staged: the
 * copy engines gather the inputs into device memory (one
 * cudaMemcpyBatchAsync per sub-batch of 16 MiB, on two copy streams
 * shared by all slots and fed in launch order), the kernel runs on device
 * memory, and the results go back by batched copies on a shared
 * device-to-host stream; one such batch in four stays zero-copy, so that
 * the SMs' own PCIe reads fill the copy engines' gaps.  RKMD_CUDA_STAGE
 * selects other paths (cuda_backend.h); Documentation/gpu.rst has the
 * measurements behind the choice.
 *
 * Batching and pipelining: up to NSLOT batches are in flight, each on its
 * own stream with its own pointer table.  Coefficient tables live in a
 * constant-memory pool, one per plan, cached and reference-counted by the
 * batches in flight (a plan's table is uploaded once, when it is first
 * used or after it was evicted to make room).  ->submit launches at once
 * when a slot is free, so a lone job is never held back; when every slot
 * is busy jobs queue, and a slot that frees takes all queued jobs of the
 * same plan (op, k, m, mask, len) into one launch.  Each slot has a
 * completion thread that waits for its batch (sleeping until shortly
 * before the batch should finish, then polling) and completes the
 * batch's jobs as soon as it lands: a zero-copy batch's kernel stores a
 * sequence number in a word of mapped host memory when its last block is
 * done (a plain load sees it), other batches record an event.
 *
 * Specialisation: the generic kernels (rkg_kernels.cu) take the
 * coefficients from constant memory at run time; for encode and decode
 * with three or more outputs a kernel with the coefficients compiled in
 * is built with NVRTC (rkg_jit.cu) when a batch of 1 MiB or more first
 * uses the plan, in the background, and used for such batches once ready:
 * no job waits for it (RKMD_CUDA_JIT=1, the default; =0 never; =sync, for
 * tests: compile at once and use it for every batch of the plan).
 *
 * Failures: a CUDA error or a lost device completes the affected
 * batches' jobs with -EIO (-ENOMEM for an allocation that failed), a batch
 * that never finishes (RKMD_CUDA_HANG_MS, default 20 s) with -ETIMEDOUT;
 * the backend logs one line and, when the error leaves the context
 * unusable, marks itself dead: jobs still queued complete with -EAGAIN
 * (never started: they may run anywhere else), later submits fail with
 * -EIO.  Alone, the core detaches and the kernel falls back to its CPU
 * codec; under the multi-GPU backend (multi_gpu.c) the instance is
 * dropped and its jobs run on another GPU.  Tests make a batch hang
 * (rkmd_cuda_inject_hang): a kernel ahead of it on its stream waits on a
 * word of mapped host memory that close() sets, so that the context can
 * be torn down; or the batch runs and its completion is withheld.
 *
 * Instances: one per device and context.  rkmd_cuda_open_dev() opens
 * device N in its primary context, or in a context of its own (a second
 * instance on the same GPU, for tests: a fault in one does not kill the
 * other).  The arena is registered once per process (portable: every
 * device and context maps it) and unregistered by the last instance.
 * Pinned host memory and the completion threads are placed on the GPU's
 * NUMA node when the host has several (gpu_numa.c).
 */
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/prctl.h>

#include <map>
#include <new>
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

	std::map<std::pair<uint64_t, uint64_t>, struct plan *> plans;
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

	/* NVRTC kernels: 0 off, 1 compiled in the background, 2 at once */
	int jit_mode;
	std::vector<struct plan *> jit_queue;
	pthread_t jit_th;
	int jit_th_ok;
	pthread_cond_t jit_cv;
};

/* ---- contexts: the primary one, or one of the instance's own ---------- */

/*
 * The few driver calls an own context needs, looked up through the
 * runtime (cudaGetDriverEntryPointByVersion): raidkmd does not link
 * libcuda, so that it starts on a host without the NVIDIA driver.
 */
static struct {
	pthread_once_t once;
	PFN_cuDeviceGet_v2000 dev_get;
	PFN_cuCtxCreate_v3020 create;
	PFN_cuCtxDestroy_v4000 destroy;
	PFN_cuCtxSetCurrent_v4000 set_current;
} drv = { PTHREAD_ONCE_INIT };

static void drv_lookup(void)
{
	cudaDriverEntryPointQueryResult q;

	if (cudaGetDriverEntryPointByVersion("cuDeviceGet",
					     (void **)&drv.dev_get, 2000,
					     cudaEnableDefault, &q) ||
	    q != cudaDriverEntryPointSuccess)
		drv.dev_get = NULL;
	if (cudaGetDriverEntryPointByVersion("cuCtxCreate",
					     (void **)&drv.create, 3020,
					     cudaEnableDefault, &q) ||
	    q != cudaDriverEntryPointSuccess)
		drv.create = NULL;
	if (cudaGetDriverEntryPointByVersion("cuCtxDestroy",
					     (void **)&drv.destroy, 4000,
					     cudaEnableDefault, &q) ||
	    q != cudaDriverEntryPointSuccess)
		drv.destroy = NULL;
	if (cudaGetDriverEntryPointByVersion("cuCtxSetCurrent",
					     (void **)&drv.set_current, 4000,
					     cudaEnableDefault, &q) ||
	    q != cudaDriverEntryPointSuccess)
		drv.set_current = NULL;
}

/* Create an own context on dev (and make it current); 0 or a CUresult */
static int ctx_create(int dev, CUcontext *ctx)
{
	CUdevice d;
	CUresult r;

	pthread_once(&drv.once, drv_lookup);
	if (!drv.dev_get || !drv.create || !drv.destroy || !drv.set_current)
		return CUDA_ERROR_NOT_FOUND;
	r = drv.dev_get(&d, dev);
	if (r == CUDA_SUCCESS)
		r = drv.create(ctx, CU_CTX_MAP_HOST, d);
	return r;
}

/* Make the instance's context current to the calling thread. */
static cudaError_t use_ctx(const struct cuda_backend *b)
{
	if (b->cuctx)
		return drv.set_current(b->cuctx) == CUDA_SUCCESS ?
		       cudaSuccess : cudaErrorContextIsDestroyed;
	return cudaSetDevice(b->dev);
}

/*
 * The arena's registration, shared by every instance of the process: a
 * range can be registered only once, and a portable, mapped registration
 * serves all devices and contexts.  It is made in the primary context of
 * the first instance's device (never destroyed here, unlike an own
 * context) and undone there by the last reference.
 */
static struct {
	pthread_mutex_t lock;
	char *base;
	size_t len, ro_len;
	int refs, dev;
} reg = { PTHREAD_MUTEX_INITIALIZER };

/*
 * Which batches take a run-time specialised kernel (when one is ready):
 * encode and decode with at least 3 outputs besides a plain-XOR one (with
 * fewer, the generic kernels are memory bound already and slightly
 * faster) and at least 1 MiB of data (smaller batches are latency bound;
 * RKMD_CUDA_JIT=sync drops this limit so that tests cover the kernels).
 * Documentation/gpu.rst has the numbers.
 */
#define JIT_MIN_OUT	3
#define JIT_MIN_BYTES	(1u << 20)

static int jit_wanted(const struct plan *p)
{
	return p->mode == RKG_STORE && p->nout - p->x0 >= JIT_MIN_OUT;
}

/* Record a specialised build's outcome (@why: its failure) in the plan */
static void jit_record(struct cuda_backend *b, struct plan *p,
		       struct rkg_jit *k, const char *why)
{
	p->jit = k;
	p->jit_state = k ? 2 : 3;
	if (k)
		b->stats.jit_kernels++;
	else
		rkmd_warn("cuda: no specialised kernel for %d+%d (%d outputs): %s; generic kernel used",
			  p->k, p->m, p->nout, why);
}

static void jit_compile(struct cuda_backend *b, struct plan *p)
{
	char why[200];
	struct rkg_jit *k = rkg_jit_build(&p->coef, p->nin, p->nout, why,
					  sizeof(why));

	jit_record(b, p, k, why);
}

/* the background compiler: one plan at a time, outside the lock */
static void *jit_thread(void *arg)
{
	struct cuda_backend *b = (struct cuda_backend *)arg;

	use_ctx(b);
	if (b->node >= 0)
		rkg_numa_bind_thread(b->node);
	pthread_mutex_lock(&b->lock);
	for (;;) {
		struct plan *p;
		struct rkg_jit *k;
		char why[200];

		while (b->jit_queue.empty() && !b->stop)
			pthread_cond_wait(&b->jit_cv, &b->lock);
		if (b->stop)
			break;
		p = b->jit_queue.front();
		b->jit_queue.erase(b->jit_queue.begin());
		pthread_mutex_unlock(&b->lock);
		k = rkg_jit_build(&p->coef, p->nin, p->nout, why, sizeof(why));
		pthread_mutex_lock(&b->lock);
		jit_record(b, p, k, why);
	}
	pthread_mutex_unlock(&b->lock);
	return NULL;
}

/* Under b->lock: the plan's specialised kernel if it should be used now */
static struct rkg_jit *jit_for(struct cuda_backend *b, struct plan *p,
			       uint64_t data_bytes)
{
	/* background mode: only batches big enough to gain are worth it */
	if (!b->jit_mode || !jit_wanted(p) ||
	    (b->jit_mode == 1 && data_bytes < JIT_MIN_BYTES))
		return NULL;
	if (p->jit_state == 0) {
		p->jit_state = 1;
		if (b->jit_mode == 2) {
			jit_compile(b, p);
		} else {
			b->jit_queue.push_back(p);
			pthread_cond_signal(&b->jit_cv);
		}
	}
	return p->jit_state == 2 ? p->jit : NULL;
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

static void sleep_ns(uint64_t ns)
{
	struct timespec ts = { (time_t)(ns / 1000000000ull),
			       (long)(ns % 1000000000ull) };

	nanosleep(&ts, NULL);
}

/* Errors after which the context cannot be trusted any more. */
static int cuda_fatal(cudaError_t e)
{
	return e != cudaSuccess && e != cudaErrorMemoryAllocation &&
	       e != cudaErrorInvalidValue;
}

static int cuda_errno(cudaError_t e)
{
	if (e == cudaErrorMemoryAllocation)
		return -ENOMEM;
	if (e == cudaErrorLaunchTimeout)	/* hung: it may still write */
		return -ETIMEDOUT;
	if (e == cudaErrorInvalidValue)
		return -EINVAL;
	return -EIO;
}

/* ---- plans: what a job's (op, k, m, mask) means for the kernel -------- */

static struct rkm_code *get_code(struct cuda_backend *b, int k, int m)
{
	if (!b->code[k][m])
		b->code[k][m] = rkm_code_create(k, m);
	return b->code[k][m];
}

static int popcount64(uint64_t x)
{
	return __builtin_popcountll(x);
}

/* Build the plan for a job; called under b->lock.  NULL: bad job. */
static struct plan *get_plan(struct cuda_backend *b,
			     const struct rkmd_job *j)
{
	const int k = j->k, m = j->m, n = k + m;
	uint64_t mask = j->mask;
	std::pair<uint64_t, uint64_t> key;
	uint8_t par[RKM_MAX_M * RKM_MAX_N];
	struct rkm_code *c;
	struct plan *p;
	int i, e;

	if (j->op == RKMD_OP_ENCODE || j->op == RKMD_OP_CHECK)
		mask = 0;
	key = std::make_pair((uint64_t)j->op | (uint64_t)k << 8 |
			     (uint64_t)m << 16, mask);
	auto it = b->plans.find(key);
	if (it != b->plans.end())
		return it->second;

	c = get_code(b, k, m);
	if (!c)
		return NULL;
	p = (struct plan *)calloc(1, sizeof(*p));
	if (!p)
		return NULL;
	p->op = j->op;
	p->k = k;
	p->m = m;

	switch (j->op) {
	case RKMD_OP_ENCODE:
	case RKMD_OP_CHECK:
		rkm_parity_matrix(k, m, par);
		p->mode = j->op == RKMD_OP_ENCODE ? RKG_STORE : RKG_CHECK;
		p->nin = k;
		p->nout = m;
		for (i = 0; i < k; i++)
			p->in_idx[i] = i;
		for (e = 0; e < m; e++) {
			p->out_idx[e] = k + e;
			for (i = 0; i < k; i++)
				p->coef.coef[i * RKG_MAX_OUT + e] = par[e * k + i];
		}
		break;
	case RKMD_OP_DECODE: {
		uint8_t surv[RKM_MAX_N], rows[RKM_MAX_M * RKM_MAX_N];
		int ne;

		if (!mask || (n < 64 && (mask >> n)) ||
		    popcount64(mask) > m)
			goto bad;
		ne = rkm_decode_matrix(c, mask, surv, rows);
		if (ne <= 0 || ne != popcount64(mask))
			goto bad;
		p->mode = RKG_STORE;
		p->nin = k;
		p->nout = ne;
		for (i = 0; i < k; i++)
			p->in_idx[i] = surv[i];
		for (e = 0, i = 0; i < n; i++)
			if (mask >> i & 1)
				p->out_idx[e++] = i;
		for (e = 0; e < ne; e++)
			for (i = 0; i < k; i++)
				p->coef.coef[i * RKG_MAX_OUT + e] = rows[e * k + i];
		break;
	}
	case RKMD_OP_DELTA: {
		int jj = 0;

		if (!mask || (mask >> k))
			goto bad;
		rkm_parity_matrix(k, m, par);
		p->mode = RKG_XOR_INTO;
		p->nout = m;
		for (e = 0; e < m; e++)
			p->out_idx[e] = k + e;
		for (i = 0; i < k; i++) {
			if (!(mask >> i & 1))
				continue;
			p->in_idx[jj] = i;
			for (e = 0; e < m; e++)
				p->coef.coef[jj * RKG_MAX_OUT + e] = par[e * k + i];
			jj++;
		}
		p->nin = jj;
		break;
	}
	default:
		goto bad;
	}
	p->kwords = rkg_ktab_words(p->nin, p->nout);
	p->nreg = rkg_ktab_regions(p->nin, p->nout);
	p->region = -1;
	p->ktab = (uint32_t *)malloc(p->kwords * sizeof(uint32_t));
	if (!p->ktab)
		goto bad;
	rkg_ktab_build(&p->coef, p->nin, p->nout, p->ktab);
	p->x0 = rkg_coef_x0(&p->coef, p->nin);
	b->plans[key] = p;
	return p;
bad:
	free(p);
	return NULL;
}

/*
 * Make plan p's K table resident in the constant pool and take a
 * reference.  Evicts tables no batch uses.  Returns cudaSuccess,
 * cudaErrorNotReady when every candidate region is in use (try again
 * after a batch completes), or the upload's error.
 */
static cudaError_t pool_get(struct cuda_backend *b, struct plan *p)
{
	int r, i, best = -1;
	cudaError_t e;

	if (p->region >= 0) {
		p->refs++;
		return cudaSuccess;
	}
	/* first fit over free regions, else over idle tables (oldest) */
	for (int pass = 0; pass < 2 && best < 0; pass++) {
		uint64_t best_age = ~0ull;

		for (r = 0; r + p->nreg <= RKG_NREGION; r++) {
			uint64_t age = 0;

			for (i = r; i < r + p->nreg; i++) {
				struct plan *o = b->owner[i];

				if (o && (pass == 0 || o->refs))
					break;
				if (o && o->lru > age)
					age = o->lru;
			}
			if (i < r + p->nreg)
				continue;
			if (pass == 0) {
				best = r;
				break;
			}
			if (age < best_age) {
				best_age = age;
				best = r;
			}
		}
	}
	if (best < 0)
		return cudaErrorNotReady;
	for (i = best; i < best + p->nreg; i++) {
		struct plan *o = b->owner[i];

		if (o) {	/* evict o from all its regions */
			for (r = 0; r < RKG_NREGION; r++)
				if (b->owner[r] == o)
					b->owner[r] = NULL;
			o->region = -1;
		}
	}
	e = rkg_ktab_upload(best * RKG_REGION_WORDS, p->ktab, p->kwords,
			    b->upload);
	if (e == cudaSuccess)
		e = cudaStreamSynchronize(b->upload);
	if (e != cudaSuccess)
		return e;
	for (i = best; i < best + p->nreg; i++)
		b->owner[i] = p;
	p->region = best;
	p->refs = 1;
	b->stats.uploads++;
	return cudaSuccess;
}

static void pool_put(struct cuda_backend *b, struct plan *p)
{
	p->refs--;
	p->lru = ++b->lru_clock;
}

static int stride_of(const struct plan *p)
{
	return p->mode == RKG_XOR_INTO ? 2 * p->nin + p->nout : p->nin + p->nout;
}

/* ---- job validation ----------------------------------------------------- */

static int ptr_ok(const struct cuda_backend *b, const uint8_t *ptr,
		  uint32_t len)
{
	uintptr_t a = (uintptr_t)ptr, lo = (uintptr_t)b->base;

	return ptr && !(a % RKG_VEC) && a >= lo &&
	       a - lo <= b->len && b->len - (a - lo) >= len;
}

static int job_ok(struct cuda_backend *b, const struct rkmd_job *j)
{
	const int n = j->k + j->m;
	const struct plan *p;
	uint32_t s;
	int i;

	if (j->op < RKMD_OP_ENCODE || j->op > RKMD_OP_CHECK ||
	    !rkm_geometry_ok(j->k, j->m) || !rkm_len_ok(j->len) ||
	    j->len % 64 || !j->nstripes || !j->chunk ||
	    (j->op == RKMD_OP_DELTA && !j->old) ||
	    (j->op == RKMD_OP_CHECK && !j->result))
		return -EINVAL;
	p = get_plan(b, j);
	if (!p)
		return -EINVAL;
	for (s = 0; s < j->nstripes; s++) {
		/* DELTA: unchanged data chunks may be absent (NULL) */
		for (i = 0; i < n; i++)
			if ((j->op != RKMD_OP_DELTA || i >= j->k ||
			     (j->mask >> i & 1)) &&
			    !ptr_ok(b, j->chunk[(size_t)s * n + i], j->len))
				return -EINVAL;
		if (j->op == RKMD_OP_DELTA)
			for (i = 0; i < p->nin; i++)
				if (!ptr_ok(b, j->old[(size_t)s * j->k +
						      p->in_idx[i]], j->len))
					return -EINVAL;
	}
	return 0;
}

/* ---- launching a batch (under b->lock) ---------------------------------- */

/* Can job j share a launch with job h? (same plan and chunk length) */
static int same_plan(const struct rkmd_job *j, const struct rkmd_job *h)
{
	return j->op == h->op && j->k == h->k && j->m == h->m &&
	       j->len == h->len &&
	       (j->op == RKMD_OP_ENCODE || j->op == RKMD_OP_CHECK ||
		j->mask == h->mask);
}

/*
 * Make a pinned host buffer and its device twin hold at least @need
 * elements of @elem bytes (capacity doubles from @first); on failure both
 * are freed and the capacity is 0.
 */
static cudaError_t grow_pair(void **host, void **dev, size_t *cap,
			     size_t need, size_t elem, size_t first)
{
	size_t c = *cap ? *cap : first;
	cudaError_t e;

	if (need <= *cap)
		return cudaSuccess;
	while (c < need)
		c *= 2;
	cudaFreeHost(*host);
	cudaFree(*dev);
	*host = NULL;
	*dev = NULL;
	*cap = 0;
	e = cudaMallocHost(host, c * elem);
	if (e == cudaSuccess)
		e = cudaMalloc(dev, c * elem);
	if (e != cudaSuccess)
		return e;
	*cap = c;
	return cudaSuccess;
}

static cudaError_t grow(struct slot *sl, size_t ntab, size_t nflags)
{
	const int node = sl->b->node;
	cudaError_t e;

	if (ntab <= sl->tabcap && nflags <= sl->flagcap)
		return cudaSuccess;
	/* pinned tables on the GPU's node, whichever thread launches */
	if (node >= 0)
		rkg_numa_prefer(node);
	e = grow_pair((void **)&sl->htab, (void **)&sl->dtab, &sl->tabcap,
		      ntab, sizeof(uint64_t), 4096);
	if (e == cudaSuccess)
		e = grow_pair((void **)&sl->hflags, (void **)&sl->dflags,
			      &sl->flagcap, nflags, sizeof(int32_t), 1024);
	if (node >= 0)
		rkg_numa_unprefer();
	return e;
}

static void fill_table(const struct cuda_backend *b, const struct plan *p,
		       const struct rkmd_job *j, uint64_t *t)
{
	const int n = p->k + p->m;
	uint32_t s;
	int i;

	for (s = 0; s < j->nstripes; s++) {
		uint8_t *const *ch = j->chunk + (size_t)s * n;

		for (i = 0; i < p->nin; i++)
			*t++ = (uint64_t)(uintptr_t)ch[p->in_idx[i]] + b->delta;
		if (p->mode == RKG_XOR_INTO)
			for (i = 0; i < p->nin; i++)
				*t++ = (uint64_t)(uintptr_t)
				       j->old[(size_t)s * p->k + p->in_idx[i]] +
				       b->delta;
		for (i = 0; i < p->nout; i++)
			*t++ = (uint64_t)(uintptr_t)ch[p->out_idx[i]] + b->delta;
	}
}

/*
 * Staged path.  The chunks a batch only reads are gathered into device
 * memory by the copy engines (cudaMemcpyBatchAsync), in sub-batches of
 * about b->sub_bytes, on a few copy streams shared by all slots and fed
 * in launch order (so the engines work through the batches one after
 * the other instead of sharing the link among all of them, which left
 * the link idle while every batch wrote its results at the same time);
 * each sub-batch's kernel waits for its copy (an event) on the slot's
 * stream and runs while the next copies stream in.  With RKMD_STAGE_OUT
 * (the default) encode and decode write their results into device
 * buffers, sent back by batched copies on a shared device-to-host stream
 * that waits for each sub-batch's kernel; otherwise the kernel writes
 * them to host memory itself (measured 11-19 % slower: the SMs' posted
 * writes slow the copy engines' reads).  Without room for the buffers
 * the batch stays zero-copy.
 */
static cudaError_t dev_room(uint8_t **buf, size_t *cap, size_t need)
{
	size_t c = 1 << 20;

	if (need <= *cap)
		return cudaSuccess;
	while (c < need)
		c *= 2;
	cudaFree(*buf);
	*buf = NULL;
	*cap = 0;
	if (cudaMalloc(buf, c) != cudaSuccess) {
		cudaGetLastError();	/* not sticky */
		*buf = NULL;
		return cudaErrorMemoryAllocation;
	}
	*cap = c;
	return cudaSuccess;
}

/*
 * Which staging a batch gets (RKMD_STAGE_* bits; 0: zero-copy).  With
 * RKMD_STAGE_AUTO the size that counts is the jobs' (their average), not
 * the merged batch's: a stream of small jobs stays zero-copy even when
 * several of them merge, since a mixture of small zero-copy batches and
 * merged staged ones in flight measured worse than either (1 MiB jobs).
 */
static int stage_flags(struct cuda_backend *b, const struct plan *p,
		       uint64_t nstripes, uint32_t len, size_t njobs)
{
	const int nst = p->mode == RKG_XOR_INTO ? 2 * p->nin :
			p->mode == RKG_CHECK ? stride_of(p) : p->nin;
	int f = b->stage_mode, mix;

	if (!(f & RKMD_STAGE_IN) ||
	    ((f & RKMD_STAGE_AUTO) &&
	     nstripes * nst * len < b->stage_min * njobs))
		return 0;
	/* mixed: one batch in n reads its inputs zero-copy meanwhile */
	mix = (f >> RKMD_STAGE_MIX_SHIFT) & 15;
	if (mix > 1 && ++b->mix_next % mix == 0)
		return 0;
	/*
	 * Results written by the SMs while the copy engines read measured
	 * slower than either path alone: with RKMD_STAGE_OUT, delta (whose
	 * parity the kernel reads and writes in place) stays zero-copy.
	 */
	if (p->mode == RKG_XOR_INTO && (f & RKMD_STAGE_OUT))
		return 0;
	if (p->mode != RKG_STORE)
		f &= ~RKMD_STAGE_OUT;
	return f;
}

/*
 * Point the batch's table at device buffers and build the copy lists:
 * per stripe, nst input copies (host -> device), then, with
 * RKMD_STAGE_OUT, nout output copies (device -> host).  Returns the
 * flags actually used (0 when there was no room: stay zero-copy).
 */
static int stage_prepare(struct cuda_backend *b, struct slot *sl,
			 const struct plan *p, uint64_t *tab, uint32_t len,
			 int f)
{
	const int stride = stride_of(p);
	const int nst = p->mode == RKG_XOR_INTO ? 2 * p->nin :
			p->mode == RKG_CHECK ? stride : p->nin;
	const uint64_t nin = sl->nstripes * nst;
	const uint64_t nout = f & RKMD_STAGE_OUT ? sl->nstripes * p->nout : 0;
	uint64_t s, k = 0, o = 0;
	int q;

	if (dev_room(&sl->dstage, &sl->stagecap, nin * len) != cudaSuccess)
		return 0;
	if (nout && dev_room(&sl->dout, &sl->outcap, nout * len) !=
	    cudaSuccess)
		f &= ~RKMD_STAGE_OUT;
	sl->cp_src.resize(nin);
	sl->cp_dst.resize(nin);
	sl->cp_len.assign(nin, len);
	if (f & RKMD_STAGE_OUT) {
		sl->op_src.resize(nout);
		sl->op_dst.resize(nout);
		sl->op_len.assign(nout, len);
	}
	for (s = 0; s < sl->nstripes; s++) {
		for (q = 0; q < nst; q++, k++) {
			uint64_t *e = &tab[s * stride + q];

			sl->cp_src[k] = (void *)(uintptr_t)(*e - b->delta);
			sl->cp_dst[k] = sl->dstage + k * len;
			*e = (uint64_t)(uintptr_t)sl->cp_dst[k];
		}
		if (!(f & RKMD_STAGE_OUT))
			continue;
		for (q = 0; q < p->nout; q++, o++) {
			uint64_t *e = &tab[s * stride + p->nin + q];

			sl->op_dst[o] = (void *)(uintptr_t)(*e - b->delta);
			sl->op_src[o] = sl->dout + o * len;
			*e = (uint64_t)(uintptr_t)sl->op_src[o];
		}
	}
	b->stats.staged++;
	return f;
}

/* how many shared copy streams the staged path feeds (RKMD_STAGE_STREAMS) */
static void set_streams(struct cuda_backend *b)
{
	int n = (b->stage_mode >> RKMD_STAGE_STREAMS_SHIFT) & 15;

	b->nh2d = n < 1 ? 1 : n > RKMD_STAGE_MAXSTREAMS ?
		  RKMD_STAGE_MAXSTREAMS : n;
}

static cudaError_t batch_copy(void **dst, void **src, size_t *len, size_t n,
			      int f, cudaStream_t st)
{
	struct cudaMemcpyAttributes at;
	size_t ai = 0;

	memset(&at, 0, sizeof(at));
	at.srcAccessOrder = cudaMemcpySrcAccessOrderStream;
	if (f & RKMD_STAGE_CEFLAG)
		at.flags = cudaMemcpyFlagPreferOverlapWithCompute;
	return cudaMemcpyBatchAsync(dst, src, len, n, &at, &ai, 1, st);
}

/*
 * Take the first queued job and every queued job with the same plan and
 * length into slot sl, and queue the batch on its stream.  Errors are
 * left in sl->err for the completion thread.  Returns -EAGAIN (and does
 * nothing) when the plan's coefficients cannot be made resident yet.
 */
static int launch_batch(struct cuda_backend *b, struct slot *sl)
{
	struct rkmd_job *head = b->pending.front();
	struct plan *p = NULL;
	uint64_t inl[RKG_INLINE];
	uint64_t bytes = 0, ntab, *t, now, rd, wr;
	struct rkg_launch l;
	struct rkg_jit *jit;
	size_t i, w;
	int devtab, sf = 0, queued = 0;
	cudaError_t e, pe;

	memset(&l, 0, sizeof(l));
	sl->flag = 0;

	p = get_plan(b, head);		/* validated at submit: cached */
	pe = pool_get(b, p);
	if (pe == cudaErrorNotReady)
		return -EAGAIN;
	sl->holds_region = pe == cudaSuccess;
	sl->jobs.clear();
	sl->nstripes = 0;
	for (i = 0, w = 0; i < b->pending.size(); i++) {
		struct rkmd_job *j = b->pending[i];
		uint64_t jb = (uint64_t)j->len * j->nstripes * (p->k + p->m);

		if (j == head || (sl->jobs.size() < MAX_BATCH_JOBS &&
				  bytes + jb <= (b->stage_mode & RKMD_STAGE_IN ?
						 STAGE_BATCH_BYTES :
						 MAX_BATCH_BYTES) &&
				  same_plan(j, head))) {
			sl->jobs.push_back(j);
			sl->nstripes += j->nstripes;
			bytes += jb;
		} else {
			b->pending[w++] = j;
		}
	}
	b->pending.resize(w);
	sl->p = p;
	sl->busy = 1;
	b->nbusy++;
	sl->err = cudaSuccess;
	b->stats.launches++;
	b->stats.jobs += sl->jobs.size();
	b->stats.stripes += sl->nstripes;

	e = pe;
	if (e != cudaSuccess)
		goto fail;
	ntab = sl->nstripes * stride_of(p);
	jit = jit_for(b, p, (uint64_t)head->len * sl->nstripes * p->nin);
	e = grow(sl, (ntab > RKG_INLINE || jit) ? ntab : 0,
		 p->mode == RKG_CHECK ? sl->nstripes : 0);
	if (e != cudaSuccess)
		goto fail;
	devtab = ntab > RKG_INLINE || jit;
	t = devtab ? sl->htab : inl;
	for (i = 0; i < sl->jobs.size(); i++) {
		fill_table(b, p, sl->jobs[i], t);
		t += (uint64_t)sl->jobs[i]->nstripes * stride_of(p);
	}
	sf = stage_flags(b, p, sl->nstripes, head->len, sl->jobs.size());
	if (sf)
		sf = stage_prepare(b, sl, p, devtab ? sl->htab : inl,
				   head->len, sf);
	queued = 1;

	sl->injected = b->inject_fail;
	if (b->inject_fail) {
		/* as if the launch had failed: no GPU fault, same handling */
		b->inject_fail = 0;
		e = cudaErrorLaunchFailure;
		goto fail;
	}
	if (b->inject_trap) {
		b->inject_trap = 0;
		e = rkg_launch_trap(sl->st);
		if (e != cudaSuccess)
			goto fail;
	}
	sl->withhold = b->inject_hang == RKMD_HANG_WITHHOLD;
	if (b->inject_hang == RKMD_HANG_GPU) {
		/* held on the GPU until close() sets the word */
		e = rkg_launch_spin(sl->st, (const uint32_t *)
				    ((char *)b->fhost_d + HANG_WORD),
				    HANG_MAX_NS);
		if (e != cudaSuccess)
			goto fail;
		b->hang_armed = 1;
	}
	b->inject_hang = 0;
	if (devtab && !sf) {
		e = cudaMemcpyAsync(sl->dtab, sl->htab, ntab * sizeof(uint64_t),
				    cudaMemcpyHostToDevice, sl->st);
		if (e != cudaSuccess)
			goto fail;
	}
	if (p->mode == RKG_CHECK) {
		e = cudaMemsetAsync(sl->dflags, 0,
				    sl->nstripes * sizeof(int32_t), sl->st);
		if (e != cudaSuccess)
			goto fail;
	}
	l.mode = p->mode;
	l.nin = p->nin;
	l.nout = p->nout;
	l.kbase = p->region * RKG_REGION_WORDS;
	l.x0 = p->x0;
	l.len = head->len;
	l.stride = stride_of(p);
	/*
	 * A zero-copy batch of one launch on the generic kernels signals its
	 * end by a word in host memory: the completion thread sees it with
	 * a plain load, 2 us sooner than an event (Documentation/gpu.rst).
	 * CHECK copies its flags back after the kernel: an event.
	 */
	if (b->flag_mode && !sf && !jit && p->mode != RKG_CHECK &&
	    sl->nstripes <= 65535) {
		if (++sl->fseq == 0)
			sl->fseq = 1;
		l.dcount = sl->dcount;
		l.hdone = sl->hdone_d;
		l.seq = sl->fseq;
		l.fence_all = b->flag_mode == 2;
		sl->flag = 1;
	}
	/*
	 * Zero-copy: one launch for the batch.  Staged: one copy and one
	 * launch per sub-batch of about b->sub_bytes of staged inputs.
	 */
	{
		const uint64_t ns = sl->nstripes;
		const int nst = p->mode == RKG_XOR_INTO ? 2 * p->nin :
				p->mode == RKG_CHECK ? l.stride : p->nin;
		uint64_t per = ns, s0, n;

		if (sf) {
			uint64_t sub = (uint64_t)((sf >> RKMD_STAGE_SUB_SHIFT) &
						  0xff) << 20;

			per = (sub ? sub : b->sub_bytes) /
			      ((uint64_t)nst * head->len);
			if (per < 1)
				per = 1;
		}
		for (s0 = 0; s0 < ns; s0 += n) {
			n = ns - s0 < per ? ns - s0 : per;
			if (sf) {
				cudaStream_t cs = b->h2d[b->h2d_next++ %
							 b->nh2d];

				if (devtab && !s0) {
					e = cudaMemcpyAsync(sl->dtab, sl->htab,
							    ntab * sizeof(uint64_t),
							    cudaMemcpyHostToDevice,
							    cs);
					if (e != cudaSuccess)
						goto fail;
				}
				e = batch_copy(&sl->cp_dst[s0 * nst],
					       &sl->cp_src[s0 * nst],
					       &sl->cp_len[s0 * nst], n * nst,
					       sf, cs);
				if (e == cudaSuccess)
					e = cudaEventRecord(sl->cev, cs);
				if (e == cudaSuccess)
					e = cudaStreamWaitEvent(sl->st,
								sl->cev, 0);
				if (e != cudaSuccess)
					goto fail;
			}
			l.nstripes = (uint32_t)n;
			l.dtab = devtab ? sl->dtab + s0 * l.stride : NULL;
			l.inl = inl + (devtab ? 0 : s0 * l.stride);
			l.dflags = sl->dflags ? sl->dflags + s0 : NULL;
			if (jit) {
				e = rkg_jit_launch(jit, &l, sl->st);
				b->stats.jit_launches++;
			} else {
				e = rkg_launch(&l, sl->st);
			}
			if (e != cudaSuccess)
				goto fail;
			if (sf & RKMD_STAGE_OUT) {
				const uint64_t o = s0 * p->nout;

				e = cudaEventRecord(sl->kev, sl->st);
				if (e == cudaSuccess)
					e = cudaStreamWaitEvent(b->d2h,
								sl->kev, 0);
				if (e == cudaSuccess)
					e = batch_copy(&sl->op_dst[o],
						       &sl->op_src[o],
						       &sl->op_len[o],
						       n * p->nout, sf,
						       b->d2h);
				if (e != cudaSuccess)
					goto fail;
			}
		}
		if (sf & RKMD_STAGE_OUT) {
			e = cudaEventRecord(sl->oev, b->d2h);
			if (e == cudaSuccess)
				e = cudaStreamWaitEvent(sl->st, sl->oev, 0);
			if (e != cudaSuccess)
				goto fail;
		}
	}
	if (p->mode == RKG_CHECK) {
		e = cudaMemcpyAsync(sl->hflags, sl->dflags,
				    sl->nstripes * sizeof(int32_t),
				    cudaMemcpyDeviceToHost, sl->st);
		if (e != cudaSuccess)
			goto fail;
	}
	e = cudaEventRecord(sl->ev, sl->st);
	if (e != cudaSuccess)
		goto fail;

	/* When should it land?  All batches share the link. */
	rd = (uint64_t)head->len * sl->nstripes *
	     (p->mode == RKG_XOR_INTO ? 2 * p->nin + p->nout :
	      p->mode == RKG_CHECK ? p->nin + p->nout : p->nin);
	wr = (uint64_t)head->len * sl->nstripes *
	     (p->mode == RKG_CHECK ? 0 : p->nout);
	now = now_ns();
	if (b->busy_until_ns < now)
		b->busy_until_ns = now + 6000;
	b->busy_until_ns += (uint64_t)((rd > wr ? rd : wr) * b->ns_per_byte);
	sl->deadline_ns = b->busy_until_ns;
	b->stats.bytes += rd + wr;
	pthread_cond_signal(&sl->cv);
	return 0;
fail:
	/*
	 * Whatever was queued before the error must not write into the
	 * jobs' buffers after they completed: let it finish (it fails at
	 * once in a context that is gone).
	 */
	if (queued) {
		cudaStreamSynchronize(sl->st);
		for (int q = 0; sf && q < b->nh2d; q++)
			cudaStreamSynchronize(b->h2d[q]);
		if (sf & RKMD_STAGE_OUT)
			cudaStreamSynchronize(b->d2h);
	}
	sl->err = e;
	pthread_cond_signal(&sl->cv);
	return 0;
}

/* Start queued work on free slots while there is some and room for it. */
static void kick(struct cuda_backend *b)
{
	for (int i = 0; i < NSLOT && !b->pending.empty(); i++)
		if (!b->s[i].busy && launch_batch(b, &b->s[i]))
			break;
}

/* ---- completion ------------------------------------------------------- */

static inline void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#elif defined(__aarch64__)
	asm volatile("yield" ::: "memory");
#endif
}

/*
 * Wait for a batch without burning a core: sleep for half of what the
 * link model says is left, repeatedly, then poll; a late batch is polled
 * with a growing back-off.  The model is optimistic (RKMD_CUDA_GBPS,
 * default 64 GB/s), so it undershoots and the last stretch is polled.
 * A batch with a completion flag (sl->flag) is done when its host word
 * holds sl->fseq (a plain load); its event is asked only every 20 us,
 * for errors.  Other batches: the event.
 */
static cudaError_t wait_batch(struct slot *sl)
{
	const uint64_t t0 = now_ns(), deadline = sl->deadline_ns;
	const uint64_t limit = sl->b->hang_ns;	/* hung past it */
	uint64_t asked = t0;
	unsigned int spins = 0;

	if (sl->withhold) {	/* tests: it runs, nobody looks */
		sleep_ns(limit + 1000000);
		return cudaErrorLaunchTimeout;
	}

	for (;;) {
		cudaError_t e;
		uint64_t t, late;

		if (sl->flag) {
			if (__atomic_load_n(sl->hdone, __ATOMIC_ACQUIRE) ==
			    sl->fseq)
				return cudaSuccess;
			if (++spins % 64) {
				cpu_relax();
				continue;
			}
			t = now_ns();
			if (t - asked >= 20000) {
				asked = t;
				e = cudaEventQuery(sl->ev);
				if (e != cudaErrorNotReady)
					return e;
			}
		} else {
			e = cudaEventQuery(sl->ev);
			if (e != cudaErrorNotReady)
				return e;
			t = now_ns();
		}
		if (t - t0 > limit)
			return cudaErrorLaunchTimeout;
		if (t + 50000 < deadline) {
			sleep_ns((deadline - t) / 2);
			continue;
		}
		late = t > deadline ? t - deadline : 0;
		if (late < 200000) {
			if (++spins % 64 == 0)
				sched_yield();
		} else {
			sleep_ns(late / 16 > 1000000 ? 1000000 : late / 16);
		}
	}
}

static void *slot_thread(void *arg)
{
	struct slot *sl = (struct slot *)arg;
	struct cuda_backend *b = sl->b;
	std::vector<struct rkmd_job *> jobs, failed;

	prctl(PR_SET_TIMERSLACK, 1000UL, 0, 0, 0);
	use_ctx(b);
	if (b->node >= 0)	/* it polls host words next to the GPU */
		rkg_numa_bind_thread(b->node);
	pthread_mutex_lock(&b->lock);
	for (;;) {
		cudaError_t e;
		int status = 0;
		size_t i;

		while (!sl->busy && !b->stop)
			pthread_cond_wait(&sl->cv, &b->lock);
		if (!sl->busy)
			break;
		e = sl->err;
		pthread_mutex_unlock(&b->lock);
		if (e == cudaSuccess && !b->dead)
			e = wait_batch(sl);
		else if (e == cudaSuccess)
			e = cudaEventQuery(sl->ev) == cudaSuccess ?
			    cudaSuccess : cudaErrorDevicesUnavailable;
		pthread_mutex_lock(&b->lock);

		if (sl->holds_region)
			pool_put(b, sl->p);
		sl->holds_region = 0;
		if (!--b->nbusy)
			b->busy_until_ns = 0;
		if (e != cudaSuccess) {
			status = cuda_errno(e);
			b->stats.errors++;
			rkmd_err("cuda: batch of %zu jobs failed: %s (%s)%s",
				 sl->jobs.size(), cudaGetErrorName(e),
				 cudaGetErrorString(e),
				 cuda_fatal(e) && !b->dead ?
				 "; GPU unusable, failing all jobs" : "");
			if (cuda_fatal(e) && !b->dead) {
				if (e == cudaErrorLaunchTimeout)
					snprintf(b->dead_why, sizeof(b->dead_why),
						 "a batch hung for %llu ms",
						 (unsigned long long)(b->hang_ns / 1000000));
				else
					snprintf(b->dead_why, sizeof(b->dead_why),
						 "%s (%s)%s", cudaGetErrorName(e),
						 cudaGetErrorString(e),
						 sl->injected ? ", injected" : "");
				__atomic_store_n(&b->dead, 1, __ATOMIC_RELEASE);
			}
		} else if (sl->p->mode == RKG_CHECK) {
			const int32_t *f = sl->hflags;

			for (i = 0; i < sl->jobs.size(); i++) {
				struct rkmd_job *j = sl->jobs[i];

				for (uint32_t s = 0; s < j->nstripes; s++)
					j->result[s] = *f++ ? 1 : 0;
			}
		}
		jobs.swap(sl->jobs);
		sl->jobs.clear();
		sl->busy = 0;
		sl->p = NULL;
		if (b->dead) {
			failed.swap(b->pending);
			b->pending.clear();
		} else {
			kick(b);
		}
		pthread_mutex_unlock(&b->lock);

		for (i = 0; i < jobs.size(); i++)
			b->done(b->ctx, jobs[i], status);
		for (i = 0; i < failed.size(); i++)	/* never started */
			b->done(b->ctx, failed[i], -EAGAIN);

		/* a done() that re-ran a job on another instance switched */
		use_ctx(b);
		pthread_mutex_lock(&b->lock);
		b->outstanding -= jobs.size() + failed.size();
		if (!b->outstanding)
			pthread_cond_broadcast(&b->idle);
		jobs.clear();
		failed.clear();
	}
	pthread_mutex_unlock(&b->lock);
	return NULL;
}

/* ---- backend ops ---------------------------------------------------------- */

static int pick_device(void)
{
	const char *s = getenv("RKMD_CUDA_DEVICE");

	return s ? atoi(s) : 0;
}

extern "C" int rkmd_cuda_count(char *why, size_t whylen)
{
	int n = 0;
	cudaError_t e = cudaGetDeviceCount(&n);

	if (e == cudaErrorInsufficientDriver) {
		void *h = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_LOCAL);

		if (!h) {
			snprintf(why, whylen,
				 "no usable CUDA device: no NVIDIA driver (libcuda.so.1 not found)");
			return -ENODEV;
		}
		dlclose(h);
	}
	if (e != cudaSuccess) {
		snprintf(why, whylen, "no usable CUDA device: %s (%s)",
			 cudaGetErrorString(e), cudaGetErrorName(e));
		return -ENODEV;
	}
	return n;
}

extern "C" int rkmd_cuda_probe_dev(int dev, char *why, size_t whylen)
{
	struct cudaDeviceProp pr;
	int n, rt = 0, drv_v = 0;
	cudaError_t e;

	n = rkmd_cuda_count(why, whylen);
	if (n < 0)
		return n;
	if (dev < 0 || dev >= n) {
		snprintf(why, whylen, "CUDA device %d does not exist (%d found)",
			 dev, n);
		return -ENODEV;
	}
	e = cudaGetDeviceProperties(&pr, dev);
	if (e != cudaSuccess) {
		snprintf(why, whylen, "CUDA device %d: %s", dev,
			 cudaGetErrorString(e));
		return -ENODEV;
	}
	if (pr.major < 7) {
		snprintf(why, whylen,
			 "%s has compute capability %d.%d; raidkmd needs 7.0 or newer",
			 pr.name, pr.major, pr.minor);
		return -ENODEV;
	}
	if (!pr.canMapHostMemory || !pr.unifiedAddressing) {
		snprintf(why, whylen, "%s cannot map host memory", pr.name);
		return -ENODEV;
	}
	cudaRuntimeGetVersion(&rt);
	cudaDriverGetVersion(&drv_v);
	snprintf(why, whylen,
		 "%s (sm_%d%d, %d SMs, %zu MiB), driver %d.%d, runtime %d.%d",
		 pr.name, pr.major, pr.minor, pr.multiProcessorCount,
		 pr.totalGlobalMem >> 20, drv_v / 1000, drv_v % 1000 / 10,
		 rt / 1000, rt % 1000 / 10);
	return 0;
}

static int cuda_probe(char *why, size_t whylen)
{
	return rkmd_cuda_probe_dev(pick_device(), why, whylen);
}

static void cuda_close(struct rkmd_backend *be);

/*
 * Register the arena for zero-copy access (in the current context): its
 * first b->ro_len bytes (job inputs, mapped read-only by the kernel)
 * read-only for the device too, the rest (outputs) read-write.
 */
static cudaError_t register_arena(struct cuda_backend *b, char *why,
				  size_t whylen)
{
	const unsigned int fl = cudaHostRegisterMapped |
				cudaHostRegisterPortable;
	const size_t ro_len = b->ro_len;
	cudaError_t e;

	if (!ro_len) {
		e = cudaHostRegister(b->base, b->len, fl);
		if (e != cudaSuccess)
			snprintf(why, whylen, "cudaHostRegister(arena, %zu MiB): %s",
				 b->len >> 20, cudaGetErrorString(e));
		return e;
	}
	e = cudaHostRegister(b->base, ro_len, fl | cudaHostRegisterReadOnly);
	if (e != cudaSuccess) {
		snprintf(why, whylen, "cudaHostRegister(inputs, %zu MiB, read-only): %s",
			 ro_len >> 20, cudaGetErrorString(e));
		return e;
	}
	e = cudaHostRegister(b->base + ro_len, b->len - ro_len, fl);
	if (e != cudaSuccess) {
		snprintf(why, whylen, "cudaHostRegister(outputs, %zu MiB): %s",
			 (b->len - ro_len) >> 20, cudaGetErrorString(e));
		cudaHostUnregister(b->base);
	}
	return e;
}

static void unregister_arena(char *base, size_t ro_len)
{
	if (ro_len)
		cudaHostUnregister(base + ro_len);
	cudaHostUnregister(base);
}

/*
 * Take a reference on the process's registration of the arena (made by
 * the first instance, in its device's primary context) and find the
 * arena's device address in this instance's context.  Both parts must
 * translate with one offset.
 */
static cudaError_t arena_get(struct cuda_backend *b, size_t ro_len,
			     void **dptr, char *why, size_t whylen)
{
	void *d2 = NULL;
	cudaError_t e = cudaSuccess;
	int ro_ok = 0;

	b->ro_len = !ro_len || ro_len >= b->len ? 0 : ro_len;
	if (b->ro_len) {
		cudaDeviceGetAttribute(&ro_ok,
				       cudaDevAttrHostRegisterReadOnlySupported,
				       b->dev);
		if (!ro_ok) {
			snprintf(why, whylen, "the kernel maps job inputs read-only and this GPU cannot register read-only host memory");
			return cudaErrorNotSupported;
		}
	}
	pthread_mutex_lock(&reg.lock);
	if (reg.refs && (reg.base != b->base || reg.len != b->len ||
			 reg.ro_len != b->ro_len)) {
		snprintf(why, whylen, "another arena is registered in this process");
		e = cudaErrorInvalidValue;
	} else if (!reg.refs) {
		e = cudaSetDevice(b->dev);	/* its primary context */
		if (e == cudaSuccess)
			e = register_arena(b, why, whylen);
		else
			snprintf(why, whylen, "CUDA device %d: %s", b->dev,
				 cudaGetErrorString(e));
		if (use_ctx(b) != cudaSuccess && e == cudaSuccess) {
			unregister_arena(b->base, b->ro_len);
			snprintf(why, whylen, "cannot return to the instance's context");
			e = cudaErrorContextIsDestroyed;
		}
		if (e == cudaSuccess) {
			reg.base = b->base;
			reg.len = b->len;
			reg.ro_len = b->ro_len;
			reg.dev = b->dev;
		}
	}
	if (e == cudaSuccess) {
		reg.refs++;
		b->registered = 1;
	}
	pthread_mutex_unlock(&reg.lock);
	if (e != cudaSuccess)
		return e;

	e = cudaHostGetDevicePointer(dptr, b->base, 0);
	if (e == cudaSuccess && b->ro_len)
		e = cudaHostGetDevicePointer(&d2, b->base + b->ro_len, 0);
	if (e == cudaSuccess && b->ro_len &&
	    (char *)d2 - (char *)*dptr != (ptrdiff_t)b->ro_len) {
		snprintf(why, whylen, "the two registrations of the arena do not translate alike");
		e = cudaErrorInvalidValue;
	} else if (e != cudaSuccess) {
		snprintf(why, whylen, "cudaHostGetDevicePointer(arena): %s",
			 cudaGetErrorString(e));
	}
	return e;
}

/* Drop the reference; the last one undoes the registration. */
static void arena_put(struct cuda_backend *b)
{
	if (!b->registered)
		return;
	b->registered = 0;
	pthread_mutex_lock(&reg.lock);
	if (!--reg.refs) {
		if (cudaSetDevice(reg.dev) == cudaSuccess)
			unregister_arena(reg.base, reg.ro_len);
		use_ctx(b);
		reg.base = NULL;
	}
	pthread_mutex_unlock(&reg.lock);
}

/* Start CUDA on the instance's device, in its primary or own context. */
static cudaError_t start_context(struct cuda_backend *b, int own_ctx,
				 char *why, size_t whylen)
{
	cudaError_t e;
	int r;

	if (own_ctx) {
		r = ctx_create(b->dev, &b->cuctx);
		if (r) {
			b->cuctx = NULL;
			snprintf(why, whylen, "cannot create a CUDA context on device %d: driver error %d",
				 b->dev, r);
			return cudaErrorUnknown;
		}
		e = cudaSuccess;
	} else {
		e = cudaSetDevice(b->dev);
		if (e == cudaSuccess)
			e = cudaFree(0);	/* create the context now */
		if (e != cudaSuccess)
			snprintf(why, whylen, "cannot start CUDA on device %d: %s",
				 b->dev, cudaGetErrorString(e));
	}
	if (cudaDeviceGetPCIBusId(b->busid, sizeof(b->busid), b->dev) !=
	    cudaSuccess)
		b->busid[0] = 0;
	b->node = rkg_numa_node(b->busid);
	return e;
}

static void ctx_release(struct cuda_backend *b)
{
	if (b->cuctx)
		drv.destroy(b->cuctx);
	b->cuctx = NULL;
}

static struct rkmd_backend *cuda_open(void *base, size_t len, size_t ro_len,
				      int nthreads,
				      rkmd_complete_fn done, void *ctx,
				      char *why, size_t whylen)
{
	return rkmd_cuda_open_dev(pick_device(), 0, base, len, ro_len,
				  nthreads, done, ctx, why, whylen);
}

extern "C" struct rkmd_backend *
rkmd_cuda_open_dev(int dev, int own_ctx, void *base, size_t len,
		   size_t ro_len, int nthreads, rkmd_complete_fn done,
		   void *ctx, char *why, size_t whylen)
{
	struct cuda_backend *b;
	void *dptr = NULL;
	const char *gbps = getenv("RKMD_CUDA_GBPS");
	const char *stage = getenv("RKMD_CUDA_STAGE");
	const char *hang = getenv("RKMD_CUDA_HANG_MS");
	cudaError_t e;
	int i;

	if (rkmd_cuda_probe_dev(dev, why, whylen))
		return NULL;
	b = new (std::nothrow) cuda_backend();
	if (!b) {
		snprintf(why, whylen, "out of memory");
		return NULL;
	}
	b->base = (char *)base;
	b->len = len;
	b->dev = dev;
	b->node = -1;
	b->hang_ns = (hang && atoi(hang) > 0 ? (uint64_t)atoi(hang) :
		      20000ull) * 1000000ull;
	b->done = done;
	b->ctx = ctx;
	b->ns_per_byte = 1.0 / (gbps && atof(gbps) > 0 ? atof(gbps) : 64.0);
	b->stage_mode = !stage || !strcmp(stage, "auto") ? STAGE_DEFAULT :
			(int)strtol(stage, NULL, 0);
	b->stage_min = STAGE_MIN;
	{
		/* Tests: a device-side trap at the N-th job kills the context. */
		const char *trap = getenv("RKMD_CUDA_TRAP_AFTER");

		b->trap_after = trap ? strtoull(trap, NULL, 0) : 0;
	}
	{
		const char *sub = getenv("RKMD_CUDA_SUB_MIB");
		const char *mn = getenv("RKMD_CUDA_STAGE_MIN_KIB");

		if (mn && atoi(mn) > 0)
			b->stage_min = (uint64_t)atoi(mn) << 10;

		b->sub_bytes = sub && atoi(sub) > 0 ?
			       (uint64_t)atoi(sub) << 20 : SUB_BYTES;
	}
	set_streams(b);
	{
		const char *f = getenv("RKMD_CUDA_FLAG");

		b->flag_mode = f ? atoi(f) : 1;
	}
	{
		const char *j = getenv("RKMD_CUDA_JIT");

		b->jit_mode = !j ? 1 : !strcmp(j, "sync") ? 2 : atoi(j) ? 1 : 0;
		if (b->jit_mode && !rkg_jit_available(NULL, 0))
			b->jit_mode = 0;
	}
	pthread_cond_init(&b->jit_cv, NULL);
	pthread_mutex_init(&b->lock, NULL);
	pthread_cond_init(&b->idle, NULL);

	why[0] = 0;
	e = start_context(b, own_ctx, why, whylen);
	if (e != cudaSuccess)
		goto fail_early;
	e = arena_get(b, ro_len, &dptr, why, whylen);
	if (e != cudaSuccess)
		goto fail_early;
	b->delta = (intptr_t)((char *)dptr - (char *)base);
	if (b->node >= 0)	/* the completion words next to the GPU */
		rkg_numa_prefer(b->node);
	e = cudaHostAlloc(&b->fhost, FLAG_HOST_BYTES, cudaHostAllocMapped |
			  cudaHostAllocPortable);
	if (b->node >= 0)
		rkg_numa_unprefer();
	if (e == cudaSuccess) {
		memset(b->fhost, 0, FLAG_HOST_BYTES);
		b->hang_word = (uint32_t *)((char *)b->fhost + HANG_WORD);
		e = cudaHostGetDevicePointer(&b->fhost_d, b->fhost, 0);
	}
	if (e == cudaSuccess)
		e = cudaMalloc(&b->fdev, FLAG_DEV_BYTES);
	if (e == cudaSuccess)
		e = cudaMemset(b->fdev, 0, FLAG_DEV_BYTES);
	if (e != cudaSuccess) {
		snprintf(why, whylen, "CUDA completion words: %s",
			 cudaGetErrorString(e));
		cudaFreeHost(b->fhost);
		cudaFree(b->fdev);
		goto fail_early;
	}
	e = cudaStreamCreateWithFlags(&b->upload, cudaStreamNonBlocking);
	for (i = 0; i < RKMD_STAGE_MAXSTREAMS && e == cudaSuccess; i++)
		e = cudaStreamCreateWithFlags(&b->h2d[i],
					      cudaStreamNonBlocking);
	if (e == cudaSuccess)
		e = cudaStreamCreateWithFlags(&b->d2h, cudaStreamNonBlocking);
	if (e != cudaSuccess) {
		cudaFreeHost(b->fhost);
		cudaFree(b->fdev);
		snprintf(why, whylen, "CUDA stream setup: %s",
			 cudaGetErrorString(e));
		goto fail_early;
	}

	for (i = 0; i < NSLOT; i++) {
		struct slot *sl = &b->s[i];

		sl->b = b;
		sl->idx = i;
		sl->hdone = (uint32_t *)((char *)b->fhost + i * 64);
		sl->hdone_d = (uint32_t *)((char *)b->fhost_d + i * 64);
		sl->dcount = (uint32_t *)((char *)b->fdev + i * 128);
		pthread_cond_init(&sl->cv, NULL);
		e = cudaStreamCreateWithFlags(&sl->st, cudaStreamNonBlocking);
		if (e == cudaSuccess)
			e = cudaEventCreateWithFlags(&sl->ev,
						     cudaEventDisableTiming);
		if (e == cudaSuccess)
			e = cudaEventCreateWithFlags(&sl->cev,
						     cudaEventDisableTiming);
		if (e == cudaSuccess)
			e = cudaEventCreateWithFlags(&sl->kev,
						     cudaEventDisableTiming);
		if (e == cudaSuccess)
			e = cudaEventCreateWithFlags(&sl->oev,
						     cudaEventDisableTiming);
		if (e == cudaSuccess)
			e = grow(sl, 4096, 1024);
		if (e != cudaSuccess) {
			snprintf(why, whylen, "CUDA stream setup: %s",
				 cudaGetErrorString(e));
			cuda_close((struct rkmd_backend *)b);
			return NULL;
		}
		if (pthread_create(&sl->th, NULL, slot_thread, sl)) {
			snprintf(why, whylen, "cannot start thread");
			cuda_close((struct rkmd_backend *)b);
			return NULL;
		}
		sl->th_ok = 1;
	}
	if (b->jit_mode == 1) {
		if (pthread_create(&b->jit_th, NULL, jit_thread, b))
			b->jit_mode = 0;
		else
			b->jit_th_ok = 1;
	}
	return (struct rkmd_backend *)b;

fail_early:
	arena_put(b);
	ctx_release(b);
	pthread_mutex_destroy(&b->lock);
	pthread_cond_destroy(&b->idle);
	delete b;
	return NULL;
}

static int cuda_submit(struct rkmd_backend *be, struct rkmd_job *job)
{
	struct cuda_backend *b = (struct cuda_backend *)be;
	int r;

	pthread_mutex_lock(&b->lock);
	if (b->dead) {
		pthread_mutex_unlock(&b->lock);
		return -EIO;
	}
	/* the submitting thread may serve several instances */
	if (use_ctx(b) != cudaSuccess) {
		pthread_mutex_unlock(&b->lock);
		return -EIO;
	}
	r = job_ok(b, job);
	if (r) {
		pthread_mutex_unlock(&b->lock);
		return r;
	}
	if (b->trap_after && !--b->trap_after)
		b->inject_trap = 1;
	b->pending.push_back(job);
	b->outstanding++;
	kick(b);
	pthread_mutex_unlock(&b->lock);
	return 0;
}

static void cuda_drain(struct rkmd_backend *be)
{
	struct cuda_backend *b = (struct cuda_backend *)be;

	pthread_mutex_lock(&b->lock);
	while (b->outstanding)
		pthread_cond_wait(&b->idle, &b->lock);
	pthread_mutex_unlock(&b->lock);
}

static void cuda_close(struct rkmd_backend *be)
{
	struct cuda_backend *b = (struct cuda_backend *)be;
	int i;

	cuda_drain(be);
	use_ctx(b);
	pthread_mutex_lock(&b->lock);
	if (b->hang_armed) {	/* let the held batch end, then tear down */
		__atomic_store_n(b->hang_word, 1, __ATOMIC_RELEASE);
		rkmd_info("cuda: the injected hang on device %d released", b->dev);
	}
	b->stop = 1;
	for (i = 0; i < NSLOT; i++)
		pthread_cond_signal(&b->s[i].cv);
	pthread_cond_signal(&b->jit_cv);
	pthread_mutex_unlock(&b->lock);
	if (b->jit_th_ok)
		pthread_join(b->jit_th, NULL);
	for (i = 0; i < NSLOT; i++) {
		struct slot *sl = &b->s[i];

		if (sl->th_ok)
			pthread_join(sl->th, NULL);
		if (sl->st)
			cudaStreamSynchronize(sl->st);
		if (sl->ev)
			cudaEventDestroy(sl->ev);
		if (sl->cev)
			cudaEventDestroy(sl->cev);
		if (sl->kev)
			cudaEventDestroy(sl->kev);
		if (sl->oev)
			cudaEventDestroy(sl->oev);
		if (sl->st)
			cudaStreamDestroy(sl->st);
		cudaFreeHost(sl->htab);
		cudaFree(sl->dtab);
		cudaFreeHost(sl->hflags);
		cudaFree(sl->dflags);
		cudaFree(sl->dstage);
		cudaFree(sl->dout);
		pthread_cond_destroy(&sl->cv);
	}
	if (b->stats.launches)
		rkmd_info("cuda: %llu jobs (%llu stripes) in %llu launches, %llu MiB moved, %llu coefficient uploads, %llu errors",
			  (unsigned long long)b->stats.jobs,
			  (unsigned long long)b->stats.stripes,
			  (unsigned long long)b->stats.launches,
			  (unsigned long long)(b->stats.bytes >> 20),
			  (unsigned long long)b->stats.uploads,
			  (unsigned long long)b->stats.errors);
	if (b->stats.jit_kernels)
		rkmd_info("cuda: %llu specialised kernels compiled, %llu launches used them",
			  (unsigned long long)b->stats.jit_kernels,
			  (unsigned long long)b->stats.jit_launches);
	if (b->upload)
		cudaStreamDestroy(b->upload);
	for (i = 0; i < RKMD_STAGE_MAXSTREAMS; i++)
		if (b->h2d[i]) {
			cudaStreamSynchronize(b->h2d[i]);
			cudaStreamDestroy(b->h2d[i]);
		}
	if (b->d2h) {
		cudaStreamSynchronize(b->d2h);
		cudaStreamDestroy(b->d2h);
	}
	cudaFreeHost(b->fhost);
	cudaFree(b->fdev);
	arena_put(b);
	for (auto &kv : b->plans) {
		rkg_jit_free(kv.second->jit);
		free(kv.second->ktab);
		free(kv.second);
	}
	for (i = 0; i <= RKM_MAX_N; i++)
		for (int m = 0; m <= RKM_MAX_M; m++)
			if (b->code[i][m])
				rkm_code_destroy(b->code[i][m]);
	ctx_release(b);
	pthread_cond_destroy(&b->jit_cv);
	pthread_mutex_destroy(&b->lock);
	pthread_cond_destroy(&b->idle);
	delete b;
}

extern "C" int rkmd_cuda_dead(struct rkmd_backend *be, char *why,
			      size_t len)
{
	struct cuda_backend *b = (struct cuda_backend *)be;
	int dead;

	pthread_mutex_lock(&b->lock);
	dead = b->dead;
	if (dead && why)
		snprintf(why, len, "%s", b->dead_why);
	pthread_mutex_unlock(&b->lock);
	return dead;
}

extern "C" void rkmd_cuda_where(struct rkmd_backend *be, char *buf,
				size_t len)
{
	struct cuda_backend *b = (struct cuda_backend *)be;

	snprintf(buf, len, "%s, node %d%s", b->busid[0] ? b->busid : "?",
		 b->node, b->cuctx ? ", own context" : "");
}

extern "C" void rkmd_cuda_inject_trap(struct rkmd_backend *be)
{
	struct cuda_backend *b = (struct cuda_backend *)be;

	pthread_mutex_lock(&b->lock);
	b->inject_trap = 1;
	pthread_mutex_unlock(&b->lock);
}

extern "C" void rkmd_cuda_inject_fail(struct rkmd_backend *be)
{
	struct cuda_backend *b = (struct cuda_backend *)be;

	pthread_mutex_lock(&b->lock);
	b->inject_fail = 1;
	pthread_mutex_unlock(&b->lock);
}

extern "C" void rkmd_cuda_inject_hang(struct rkmd_backend *be, int how)
{
	struct cuda_backend *b = (struct cuda_backend *)be;

	pthread_mutex_lock(&b->lock);
	b->inject_hang = how;
	pthread_mutex_unlock(&b->lock);
}

extern "C" void rkmd_cuda_set_stage(struct rkmd_backend *be, int mode)
{
	struct cuda_backend *b = (struct cuda_backend *)be;

	pthread_mutex_lock(&b->lock);
	b->stage_mode = mode < 0 ? STAGE_DEFAULT : mode;
	set_streams(b);
	pthread_mutex_unlock(&b->lock);
}

extern "C" void rkmd_cuda_get_stats(struct rkmd_backend *be,
				    struct rkmd_cuda_stats *st)
{
	struct cuda_backend *b = (struct cuda_backend *)be;

	pthread_mutex_lock(&b->lock);
	*st = b->stats;
	pthread_mutex_unlock(&b->lock);
}

extern "C" const struct rkmd_backend_ops rkmd_cuda_backend = {
	"cuda",
	cuda_probe,
	cuda_open,
	cuda_submit,
	cuda_drain,
	cuda_close,
};
