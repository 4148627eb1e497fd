// SPDX-License-Identifier: GPL-2.0
/*
 * raidkmd CPU backend: the shared codec (kernel/raidkm/codec, the very
 * code raidkm.ko runs) on a pool of threads.  A job (all its stripes)
 * runs on one thread; several jobs run at once.  With nthreads == 0 jobs
 * run synchronously inside ->submit, on the serving thread.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "codec/rkm_codec.h"
#include "rkmd_backend.h"
#include "rkmd_log.h"

#define CPU_MAX_THREADS	256

struct cpu_backend;

struct cpu_worker {
	struct cpu_backend *b;
	pthread_t th;
	rkm_u8 *scratch;	/* CHECK: m * len bytes */
	size_t scratch_len;
};

struct cpu_backend {
	rkmd_complete_fn done;
	void *ctx;
	int nthreads;
	struct cpu_worker *w;
	struct cpu_worker inline_w;

	pthread_mutex_t lock;
	pthread_cond_t more;	/* queue not empty or stopping */
	pthread_cond_t idle;	/* queued + running reached 0 */
	struct rkmd_job **q;
	size_t qcap, qhead, qlen;
	size_t running;
	int stopping;

	pthread_mutex_t code_lock;
	struct rkm_code *code[RKM_MAX_N + 1][RKM_MAX_M + 1];
};

static struct rkm_code *get_code(struct cpu_backend *b, int k, int m)
{
	struct rkm_code *c;

	pthread_mutex_lock(&b->code_lock);
	c = b->code[k][m];
	if (!c) {
		c = rkm_code_create(k, m);
		b->code[k][m] = c;
	}
	pthread_mutex_unlock(&b->code_lock);
	return c;
}

static int run_job(struct cpu_backend *b, struct cpu_worker *w,
		   struct rkmd_job *j)
{
	int k = j->k, m = j->m, n = k + m, ret = 0;
	struct rkm_code *code;
	rkm_u8 **ch;
	uint32_t s;

	if (!rkm_geometry_ok(k, m) || !rkm_len_ok(j->len))
		return -EINVAL;
	code = __atomic_load_n(&b->code[k][m], __ATOMIC_ACQUIRE);
	if (!code)
		code = get_code(b, k, m);
	if (!code)
		return -ENOMEM;
	if (j->op == RKMD_OP_CHECK && w->scratch_len < (size_t)m * j->len) {
		free(w->scratch);
		w->scratch_len = (size_t)m * j->len;
		w->scratch = aligned_alloc(64, w->scratch_len);
		if (!w->scratch) {
			w->scratch_len = 0;
			return -ENOMEM;
		}
	}
	for (s = 0; s < j->nstripes && !ret; s++) {
		ch = j->chunk + (size_t)s * n;
		switch (j->op) {
		case RKMD_OP_ENCODE:
			ret = rkm_encode(code, j->len,
					 (const rkm_u8 *const *)ch, ch + k);
			break;
		case RKMD_OP_DECODE:
			ret = rkm_decode_want(code, j->len, j->mask,
					      j->want ? j->want : j->mask, ch);
			break;
		case RKMD_OP_DELTA:
			ret = rkm_delta(code, j->len, j->mask,
					(const rkm_u8 *const *)(j->old +
								(size_t)s * k),
					(const rkm_u8 *const *)ch, ch + k);
			break;
		case RKMD_OP_CHECK:
			j->result[s] = rkm_check(code, j->len,
						 (const rkm_u8 *const *)ch,
						 w->scratch);
			if (j->result[s] < 0)
				ret = j->result[s];
			break;
		default:
			ret = -EOPNOTSUPP;
		}
	}
	return ret < 0 ? ret : 0;
}

static void *worker_main(void *arg)
{
	struct cpu_worker *w = arg;
	struct cpu_backend *b = w->b;
	struct rkmd_job *j;
	int st;

	pthread_mutex_lock(&b->lock);
	for (;;) {
		while (!b->qlen && !b->stopping)
			pthread_cond_wait(&b->more, &b->lock);
		if (!b->qlen)
			break;
		j = b->q[b->qhead];
		b->qhead = (b->qhead + 1) % b->qcap;
		b->qlen--;
		b->running++;
		pthread_mutex_unlock(&b->lock);

		st = run_job(b, w, j);
		b->done(b->ctx, j, st);

		pthread_mutex_lock(&b->lock);
		b->running--;
		if (!b->qlen && !b->running)
			pthread_cond_broadcast(&b->idle);
	}
	pthread_mutex_unlock(&b->lock);
	return NULL;
}

static int cpu_probe(char *why, size_t whylen)
{
	snprintf(why, whylen, "codec %s", rkm_codec_impl());
	return 0;
}

static void cpu_close(struct rkmd_backend *be);

static struct rkmd_backend *cpu_open(void *base, size_t len, size_t ro_len,
				     int nthreads,
				     rkmd_complete_fn done, void *ctx,
				     char *why, size_t whylen)
{
	struct cpu_backend *b;
	int i;

	if (rkm_codec_init()) {
		snprintf(why, whylen, "codec initialisation failed");
		return NULL;
	}
	if (nthreads < 0) {
		nthreads = (int)sysconf(_SC_NPROCESSORS_ONLN);
		if (nthreads < 1)
			nthreads = 1;
	}
	if (nthreads > CPU_MAX_THREADS)
		nthreads = CPU_MAX_THREADS;
	b = calloc(1, sizeof(*b));
	if (!b) {
		snprintf(why, whylen, "out of memory");
		return NULL;
	}
	b->done = done;
	b->ctx = ctx;
	b->qcap = 64;
	b->q = calloc(b->qcap, sizeof(*b->q));
	pthread_mutex_init(&b->lock, NULL);
	pthread_mutex_init(&b->code_lock, NULL);
	pthread_cond_init(&b->more, NULL);
	pthread_cond_init(&b->idle, NULL);
	b->inline_w.b = b;
	b->w = calloc(nthreads ? nthreads : 1, sizeof(*b->w));
	if (!b->q || !b->w) {
		snprintf(why, whylen, "out of memory");
		cpu_close((struct rkmd_backend *)b);
		return NULL;
	}
	for (i = 0; i < nthreads; i++) {
		b->w[i].b = b;
		if (pthread_create(&b->w[i].th, NULL, worker_main, &b->w[i])) {
			snprintf(why, whylen, "cannot start thread %d", i);
			cpu_close((struct rkmd_backend *)b);
			return NULL;
		}
		b->nthreads++;
	}
	rkmd_info("cpu backend: codec %s, %d thread(s)%s", rkm_codec_impl(),
		  nthreads, nthreads ? "" : " (jobs run on the serving thread)");
	return (struct rkmd_backend *)b;
}

static int cpu_submit(struct rkmd_backend *be, struct rkmd_job *j)
{
	struct cpu_backend *b = (struct cpu_backend *)be;
	struct rkmd_job **nq;
	size_t i;

	if (!b->nthreads) {
		b->done(b->ctx, j, run_job(b, &b->inline_w, j));
		return 0;
	}
	pthread_mutex_lock(&b->lock);
	if (b->qlen == b->qcap) {
		nq = calloc(b->qcap * 2, sizeof(*nq));
		if (!nq) {
			pthread_mutex_unlock(&b->lock);
			return -ENOMEM;
		}
		for (i = 0; i < b->qlen; i++)
			nq[i] = b->q[(b->qhead + i) % b->qcap];
		free(b->q);
		b->q = nq;
		b->qhead = 0;
		b->qcap *= 2;
	}
	b->q[(b->qhead + b->qlen) % b->qcap] = j;
	b->qlen++;
	pthread_cond_signal(&b->more);
	pthread_mutex_unlock(&b->lock);
	return 0;
}

static void cpu_drain(struct rkmd_backend *be)
{
	struct cpu_backend *b = (struct cpu_backend *)be;

	pthread_mutex_lock(&b->lock);
	while (b->qlen || b->running)
		pthread_cond_wait(&b->idle, &b->lock);
	pthread_mutex_unlock(&b->lock);
}

static void cpu_close(struct rkmd_backend *be)
{
	struct cpu_backend *b = (struct cpu_backend *)be;
	int i, k, m;

	pthread_mutex_lock(&b->lock);
	b->stopping = 1;
	pthread_cond_broadcast(&b->more);
	pthread_mutex_unlock(&b->lock);
	for (i = 0; i < b->nthreads; i++) {
		pthread_join(b->w[i].th, NULL);
		free(b->w[i].scratch);
	}
	free(b->inline_w.scratch);
	for (k = 0; k <= RKM_MAX_N; k++)
		for (m = 0; m <= RKM_MAX_M; m++)
			if (b->code[k][m])
				rkm_code_destroy(b->code[k][m]);
	pthread_mutex_destroy(&b->lock);
	pthread_mutex_destroy(&b->code_lock);
	pthread_cond_destroy(&b->more);
	pthread_cond_destroy(&b->idle);
	free(b->w);
	free(b->q);
	free(b);
}

const struct rkmd_backend_ops rkmd_cpu_backend = {
	.name = "cpu",
	.decode_want = 1,
	.probe = cpu_probe,
	.open = cpu_open,
	.submit = cpu_submit,
	.drain = cpu_drain,
	.close = cpu_close,
};
