// SPDX-License-Identifier: GPL-2.0
/*
 * The CUDA backend's plans: what a job's (op, k, m, mask) means for the
 * kernel, the coefficient tables in the constant pool, and the NVRTC
 * kernels specialised for a plan (rkg_jit.cu), built in the background.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda_priv.h"

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
void *jit_thread(void *arg)
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
struct rkg_jit *jit_for(struct cuda_backend *b, struct plan *p,
			       uint64_t data_bytes)
{
	/* background mode: only batches big enough to gain are worth it */
	if (!b->jit_mode || !jit_wanted(p) ||
	    (b->jit_mode == 1 && data_bytes < JIT_MIN_BYTES))
		return NULL;
	if (p->jit_state == 0) {
		p->jit_state = 1;
		if (b->jit_mode == 2) {
			setup_begin(b);	/* NVRTC: up to seconds */
			jit_compile(b, p);
			setup_end(b);
		} else {
			b->jit_queue.push_back(p);
			pthread_cond_signal(&b->jit_cv);
		}
	}
	return p->jit_state == 2 ? p->jit : NULL;
}

/* ---- plans: what a job's (op, k, m, mask, want) means for the kernel -- */

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
struct plan *get_plan(struct cuda_backend *b,
			     const struct rkmd_job *j)
{
	const int k = j->k, m = j->m, n = k + m;
	uint64_t mask = j->mask, want = 0;
	std::tuple<uint64_t, uint64_t, uint64_t> key;
	uint8_t par[RKM_MAX_M * RKM_MAX_N];
	struct rkm_code *c;
	struct plan *p;
	int i, e;

	if (j->op == RKMD_OP_ENCODE || j->op == RKMD_OP_CHECK)
		mask = 0;
	if (j->op == RKMD_OP_DECODE)
		want = job_want(j);
	key = std::make_tuple((uint64_t)j->op | (uint64_t)k << 8 |
			      (uint64_t)m << 16, mask, want);
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

		/* outputs: the wanted chunks only, rows only for them */
		if (!mask || (n < 64 && (mask >> n)) ||
		    popcount64(mask) > m || (want & ~mask))
			goto bad;
		ne = rkm_decode_matrix_want(c, mask, want, surv, rows);
		if (ne <= 0 || ne != popcount64(want))
			goto bad;
		p->mode = RKG_STORE;
		p->nin = k;
		p->nout = ne;
		for (i = 0; i < k; i++)
			p->in_idx[i] = surv[i];
		for (e = 0, i = 0; i < n; i++)
			if (want >> i & 1)
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
cudaError_t pool_get(struct cuda_backend *b, struct plan *p)
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

void pool_put(struct cuda_backend *b, struct plan *p)
{
	p->refs--;
	p->lru = ++b->lru_clock;
}

int stride_of(const struct plan *p)
{
	return p->mode == RKG_XOR_INTO ? 2 * p->nin + p->nout : p->nin + p->nout;
}
