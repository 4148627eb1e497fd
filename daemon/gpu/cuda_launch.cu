// SPDX-License-Identifier: GPL-2.0
/*
 * The CUDA backend's launches: job validation, and queued jobs of one
 * plan merged into one batch on a free slot, its tables, copies and
 * kernels queued on the slot's stream.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda_priv.h"

/* ---- job validation ----------------------------------------------------- */

static int ptr_ok(const struct cuda_backend *b, const uint8_t *ptr,
		  uint32_t len)
{
	uintptr_t a = (uintptr_t)ptr, lo = (uintptr_t)b->base;

	return ptr && !(a % RKG_VEC) && a >= lo &&
	       a - lo <= b->len && b->len - (a - lo) >= len;
}

/* Does job j read or write chunk i of its stripes? */
static int chunk_used(const struct rkmd_job *j, int i)
{
	if (j->op == RKMD_OP_DELTA)
		return i >= j->k || (j->mask >> i & 1);
	if (j->op == RKMD_OP_DECODE)
		return !(j->mask >> i & 1) || (job_want(j) >> i & 1);
	return 1;
}

int job_ok(struct cuda_backend *b, const struct rkmd_job *j)
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
		/*
		 * DELTA: unchanged data chunks may be absent (NULL);
		 * DECODE: erased chunks that are not wanted too
		 */
		for (i = 0; i < n; i++)
			if (chunk_used(j, i) &&
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
		j->mask == h->mask) &&
	       (j->op != RKMD_OP_DECODE || job_want(j) == job_want(h));
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

/* One batch being launched: what its steps share */
struct launch {
	struct plan *p;
	struct rkmd_job *head;
	uint64_t inl[RKG_INLINE];	/* the table, when it fits params */
	uint64_t ntab;			/* table entries */
	struct rkg_launch l;
	struct rkg_jit *jit;		/* NVRTC kernel, or NULL */
	int devtab;			/* the table goes to the device */
	int sf;				/* RKMD_STAGE_* flags used, 0 */
	int queued;			/* something is on the streams */
};

/* Move head and the queued jobs that may share its launch into sl */
static void take_jobs(struct cuda_backend *b, struct slot *sl,
		      struct launch *x)
{
	const uint64_t cap = b->stage_mode & RKMD_STAGE_IN ?
			     STAGE_BATCH_BYTES : MAX_BATCH_BYTES;
	uint64_t bytes = 0;
	size_t i, w;

	sl->jobs.clear();
	sl->nstripes = 0;
	for (i = 0, w = 0; i < b->pending.size(); i++) {
		struct rkmd_job *j = b->pending[i];
		uint64_t jb = (uint64_t)j->len * j->nstripes *
			      (x->p->k + x->p->m);

		if (j == x->head || (sl->jobs.size() < MAX_BATCH_JOBS &&
				     bytes + jb <= cap &&
				     same_plan(j, x->head))) {
			sl->jobs.push_back(j);
			sl->nstripes += j->nstripes;
			bytes += jb;
		} else {
			b->pending[w++] = j;
		}
	}
	b->pending.resize(w);
	sl->p = x->p;
	sl->busy = 1;
	b->nbusy++;
	sl->err = cudaSuccess;
	b->stats.launches++;
	b->stats.jobs += sl->jobs.size();
	b->stats.stripes += sl->nstripes;
}

/* The pointer table (params or pinned host), and the staging chosen */
static cudaError_t build_table(struct cuda_backend *b, struct slot *sl,
			       struct launch *x)
{
	const struct plan *p = x->p;
	uint64_t *t;
	cudaError_t e;
	size_t i;

	x->ntab = sl->nstripes * stride_of(p);
	x->jit = jit_for(b, x->p, (uint64_t)x->head->len * sl->nstripes *
			 p->nin);
	x->devtab = x->ntab > RKG_INLINE || x->jit;
	e = grow(sl, x->devtab ? x->ntab : 0,
		 p->mode == RKG_CHECK ? sl->nstripes : 0);
	if (e != cudaSuccess)
		return e;
	t = x->devtab ? sl->htab : x->inl;
	for (i = 0; i < sl->jobs.size(); i++) {
		fill_table(b, p, sl->jobs[i], t);
		t += (uint64_t)sl->jobs[i]->nstripes * stride_of(p);
	}
	x->sf = stage_flags(b, p, sl->nstripes, x->head->len,
			    sl->jobs.size());
	if (x->sf)
		x->sf = stage_prepare(b, sl, p, x->devtab ? sl->htab : x->inl,
				      x->head->len, x->sf);
	x->queued = 1;
	return cudaSuccess;
}

/* Tests: a failed launch, a trap or a hang asked for this batch */
static cudaError_t inject_faults(struct cuda_backend *b, struct slot *sl)
{
	cudaError_t e;

	sl->injected = b->inject_fail;
	if (b->inject_fail) {
		/* as if the launch had failed: no GPU fault, same handling */
		b->inject_fail = 0;
		return cudaErrorLaunchFailure;
	}
	if (b->inject_trap) {
		b->inject_trap = 0;
		e = rkg_launch_trap(sl->st);
		if (e != cudaSuccess)
			return e;
	}
	sl->withhold = b->inject_hang == RKMD_HANG_WITHHOLD;
	if (b->inject_hang == RKMD_HANG_GPU) {
		/* held on the GPU until close() sets the word */
		e = rkg_launch_spin(sl->st, (const uint32_t *)
				    ((char *)b->fhost_d + HANG_WORD),
				    HANG_MAX_NS);
		if (e != cudaSuccess)
			return e;
		b->hang_armed = 1;
	}
	b->inject_hang = 0;
	return cudaSuccess;
}

/* Ahead of the kernels on the slot's stream: table copy, CHECK's flags */
static cudaError_t queue_prelude(struct slot *sl, const struct launch *x)
{
	cudaError_t e;

	if (x->devtab && !x->sf) {
		e = cudaMemcpyAsync(sl->dtab, sl->htab,
				    x->ntab * sizeof(uint64_t),
				    cudaMemcpyHostToDevice, sl->st);
		if (e != cudaSuccess)
			return e;
	}
	if (x->p->mode == RKG_CHECK)
		return cudaMemsetAsync(sl->dflags, 0,
				       sl->nstripes * sizeof(int32_t), sl->st);
	return cudaSuccess;
}

/* The kernel's parameters, and whether it signals by completion flag */
static void set_params(struct cuda_backend *b, struct slot *sl,
		       struct launch *x)
{
	const struct plan *p = x->p;
	struct rkg_launch *l = &x->l;

	memset(l, 0, sizeof(*l));
	sl->flag = 0;
	l->mode = p->mode;
	l->nin = p->nin;
	l->nout = p->nout;
	l->kbase = p->region * RKG_REGION_WORDS;
	l->x0 = p->x0;
	l->len = x->head->len;
	l->stride = stride_of(p);
	/*
	 * A zero-copy batch of one launch on the generic kernels signals its
	 * end by a word in host memory: the completion thread sees it with
	 * a plain load, 2 us sooner than an event (Documentation/gpu.rst).
	 * CHECK copies its flags back after the kernel: an event.
	 */
	if (b->flag_mode && !x->sf && !x->jit && p->mode != RKG_CHECK &&
	    sl->nstripes <= 65535) {
		if (++sl->fseq == 0)
			sl->fseq = 1;
		l->dcount = sl->dcount;
		l->hdone = sl->hdone_d;
		l->seq = sl->fseq;
		l->fence_all = b->flag_mode == 2;
		sl->flag = 1;
	}
}

/* Staged: stripes s0.. (n of them) gathered on a shared copy stream */
static cudaError_t queue_inputs(struct cuda_backend *b, struct slot *sl,
				const struct launch *x, uint64_t s0,
				uint64_t n, int nst)
{
	cudaStream_t cs = b->h2d[b->h2d_next++ % b->nh2d];
	cudaError_t e;

	if (x->devtab && !s0) {
		e = cudaMemcpyAsync(sl->dtab, sl->htab,
				    x->ntab * sizeof(uint64_t),
				    cudaMemcpyHostToDevice, cs);
		if (e != cudaSuccess)
			return e;
	}
	e = batch_copy(&sl->cp_dst[s0 * nst], &sl->cp_src[s0 * nst],
		       &sl->cp_len[s0 * nst], n * nst, x->sf, cs);
	if (e == cudaSuccess)
		e = cudaEventRecord(sl->cev, cs);
	if (e == cudaSuccess)
		e = cudaStreamWaitEvent(sl->st, sl->cev, 0);
	return e;
}

/* Staged with RKMD_STAGE_OUT: stripes s0..'s results sent back */
static cudaError_t queue_outputs(struct cuda_backend *b, struct slot *sl,
				 const struct launch *x, uint64_t s0,
				 uint64_t n)
{
	const uint64_t o = s0 * x->p->nout;
	cudaError_t e;

	e = cudaEventRecord(sl->kev, sl->st);
	if (e == cudaSuccess)
		e = cudaStreamWaitEvent(b->d2h, sl->kev, 0);
	if (e == cudaSuccess)
		e = batch_copy(&sl->op_dst[o], &sl->op_src[o], &sl->op_len[o],
			       n * x->p->nout, x->sf, b->d2h);
	return e;
}

/* Stripes per launch: all (zero-copy), or a sub-batch's worth (staged) */
static uint64_t stripes_per_launch(const struct cuda_backend *b,
				   const struct launch *x, int nst)
{
	uint64_t sub, per;

	if (!x->sf)
		return UINT64_MAX;
	sub = (uint64_t)((x->sf >> RKMD_STAGE_SUB_SHIFT) & 0xff) << 20;
	per = (sub ? sub : b->sub_bytes) / ((uint64_t)nst * x->head->len);
	return per < 1 ? 1 : per;
}

/*
 * Zero-copy: one launch for the batch.  Staged: one copy and one launch
 * per sub-batch of about b->sub_bytes of staged inputs.
 */
static cudaError_t queue_kernels(struct cuda_backend *b, struct slot *sl,
				 struct launch *x)
{
	const struct plan *p = x->p;
	const uint64_t ns = sl->nstripes;
	const int nst = p->mode == RKG_XOR_INTO ? 2 * p->nin :
			p->mode == RKG_CHECK ? x->l.stride : p->nin;
	const uint64_t per = stripes_per_launch(b, x, nst);
	struct rkg_launch *l = &x->l;
	uint64_t s0, n;
	cudaError_t e;

	for (s0 = 0; s0 < ns; s0 += n) {
		n = ns - s0 < per ? ns - s0 : per;
		if (x->sf) {
			e = queue_inputs(b, sl, x, s0, n, nst);
			if (e != cudaSuccess)
				return e;
		}
		l->nstripes = (uint32_t)n;
		l->dtab = x->devtab ? sl->dtab + s0 * l->stride : NULL;
		l->inl = x->inl + (x->devtab ? 0 : s0 * l->stride);
		l->dflags = sl->dflags ? sl->dflags + s0 : NULL;
		if (x->jit) {
			e = rkg_jit_launch(x->jit, l, sl->st);
			b->stats.jit_launches++;
		} else {
			e = rkg_launch(l, sl->st);
		}
		if (e == cudaSuccess && (x->sf & RKMD_STAGE_OUT))
			e = queue_outputs(b, sl, x, s0, n);
		if (e != cudaSuccess)
			return e;
	}
	if (x->sf & RKMD_STAGE_OUT) {
		e = cudaEventRecord(sl->oev, b->d2h);
		if (e == cudaSuccess)
			e = cudaStreamWaitEvent(sl->st, sl->oev, 0);
		if (e != cudaSuccess)
			return e;
	}
	return cudaSuccess;
}

/* After the kernels: CHECK's flags back, the batch's event */
static cudaError_t queue_epilogue(struct slot *sl, const struct launch *x)
{
	cudaError_t e;

	if (x->p->mode == RKG_CHECK) {
		e = cudaMemcpyAsync(sl->hflags, sl->dflags,
				    sl->nstripes * sizeof(int32_t),
				    cudaMemcpyDeviceToHost, sl->st);
		if (e != cudaSuccess)
			return e;
	}
	return cudaEventRecord(sl->ev, sl->st);
}

/* When should it land?  All batches share the link. */
static void set_deadline(struct cuda_backend *b, struct slot *sl,
			 const struct launch *x)
{
	const struct plan *p = x->p;
	const uint64_t len = x->head->len;
	uint64_t rd, wr, now;

	rd = len * sl->nstripes *
	     (p->mode == RKG_XOR_INTO ? 2 * p->nin + p->nout :
	      p->mode == RKG_CHECK ? p->nin + p->nout : p->nin);
	wr = len * sl->nstripes * (p->mode == RKG_CHECK ? 0 : p->nout);
	now = now_ns();
	if (b->busy_until_ns < now)
		b->busy_until_ns = now + 6000;
	b->busy_until_ns += (uint64_t)((rd > wr ? rd : wr) * b->ns_per_byte);
	sl->deadline_ns = b->busy_until_ns;
	b->stats.bytes += rd + wr;
}

/*
 * A step failed: whatever was queued before the error must not write
 * into the jobs' buffers after they completed, so let it finish (it fails
 * at once in a context that is gone); the completion thread reports e.
 */
static void launch_failed(struct cuda_backend *b, struct slot *sl,
			  const struct launch *x, cudaError_t e)
{
	if (x->queued) {
		cudaStreamSynchronize(sl->st);
		for (int q = 0; x->sf && q < b->nh2d; q++)
			cudaStreamSynchronize(b->h2d[q]);
		if (x->sf & RKMD_STAGE_OUT)
			cudaStreamSynchronize(b->d2h);
	}
	sl->err = e;
}

/*
 * Is this the first launch of its kernel (a generic shape or a plan's
 * NVRTC kernel)?  Loaded lazily, it may wait for the whole context.
 */
static int first_launch(struct cuda_backend *b, struct launch *x)
{
	uint32_t *seen, bit;

	if (x->jit) {
		if (x->p->jit_seen)
			return 0;
		x->p->jit_seen = 1;
		return 1;
	}
	seen = &b->kseen[!!x->l.x0][x->l.mode];
	bit = 1u << (x->l.nout - 1);
	if (*seen & bit)
		return 0;
	*seen |= bit;
	return 1;
}

/* The kernels queued, as one-time work the first time of each kernel */
static cudaError_t queue_kernels_once(struct cuda_backend *b,
				      struct slot *sl, struct launch *x)
{
	const int first = first_launch(b, x);
	cudaError_t e;

	if (first)
		setup_begin(b);
	e = queue_kernels(b, sl, x);
	if (first)
		setup_end(b);
	return e;
}

/*
 * Take the first queued job and every queued job with the same plan and
 * length into slot sl, and queue the batch on its stream.  Errors are
 * left in sl->err for the completion thread.  Returns -EAGAIN (and does
 * nothing) when the plan's coefficients cannot be made resident yet.
 */
static int launch_batch(struct cuda_backend *b, struct slot *sl)
{
	struct launch x;
	cudaError_t e, pe;

	memset(&x, 0, sizeof(x));
	x.head = b->pending.front();
	x.p = get_plan(b, x.head);	/* validated at submit: cached */
	pe = pool_get(b, x.p);
	if (pe == cudaErrorNotReady)
		return -EAGAIN;
	sl->holds_region = pe == cudaSuccess;
	take_jobs(b, sl, &x);
	sl->flag = 0;

	e = pe;
	if (e == cudaSuccess)
		e = build_table(b, sl, &x);
	if (e == cudaSuccess)
		e = inject_faults(b, sl);
	if (e == cudaSuccess)
		e = queue_prelude(sl, &x);
	if (e == cudaSuccess) {
		set_params(b, sl, &x);
		e = queue_kernels_once(b, sl, &x);
	}
	if (e == cudaSuccess)
		e = queue_epilogue(sl, &x);
	if (e == cudaSuccess)
		set_deadline(b, sl, &x);
	else
		launch_failed(b, sl, &x, e);
	pthread_cond_signal(&sl->cv);
	return 0;
}

/* Start queued work on free slots while there is some and room for it. */
void kick(struct cuda_backend *b)
{
	for (int i = 0; i < NSLOT && !b->pending.empty(); i++)
		if (!b->s[i].busy && launch_batch(b, &b->s[i]))
			break;
}
