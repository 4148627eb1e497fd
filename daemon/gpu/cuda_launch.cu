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
void kick(struct cuda_backend *b)
{
	for (int i = 0; i < NSLOT && !b->pending.empty(); i++)
		if (!b->s[i].busy && launch_batch(b, &b->s[i]))
			break;
}
