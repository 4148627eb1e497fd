// SPDX-License-Identifier: GPL-2.0
/*
 * A stand-in for the CUDA backend's instance interface (cuda_backend.h)
 * on the CPU backend, so that raidkmd's GPU worker processes, their
 * supervision and their failures (multi_gpu.c, gpu_supervise.c,
 * gpu_worker.c) are tested by make check-unit on a machine without a GPU
 * (tests/unit/gpu_workers.sh).  RKMD_FAKE_GPUS devices (default 2).
 *
 * Faults as the real backend shows them: a trap or a failed launch fails
 * the job it hits with -EIO and leaves the instance dead; a hang holds
 * the job it hits (never coded; withheld: coded) and after
 * RKMD_CUDA_HANG_MS completes it with -ETIMEDOUT, the instance dead.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rkmd_backend.h"
#include "gpu/cuda_backend.h"

struct fake {
	struct rkmd_backend *cpu;
	rkmd_complete_fn done;
	void *ctx;
	int dev;
	pthread_mutex_t lock;
	int dead;
	int fault;		/* 1 trap, 2 fail, 3 hang, 4 withhold */
	struct rkmd_job *withheld;	/* coded, its completion dropped */
	char why[160];
	uint64_t batches;		/* jobs coded (rkmd_cuda_pulse) */
};

static int fake_count(void)
{
	const char *s = getenv("RKMD_FAKE_GPUS");

	return s ? atoi(s) : 2;
}

int rkmd_cuda_count(char *why, size_t whylen)
{
	int n = fake_count();

	if (n <= 0) {
		snprintf(why, whylen, "no usable CUDA device: none faked");
		return -ENODEV;
	}
	return n;
}

int rkmd_cuda_probe_dev(int dev, char *why, size_t whylen)
{
	if (dev < 0 || dev >= fake_count()) {
		snprintf(why, whylen, "CUDA device %d does not exist (%d found)",
			 dev, fake_count());
		return -ENODEV;
	}
	snprintf(why, whylen, "fake GPU %d (the CPU backend)", dev);
	return 0;
}

static void fake_done(void *ctx, struct rkmd_job *job, int status)
{
	struct fake *f = ctx;
	int drop;

	pthread_mutex_lock(&f->lock);
	drop = job == f->withheld;
	f->batches += !status && !drop;
	pthread_mutex_unlock(&f->lock);
	if (!drop)
		f->done(f->ctx, job, status);
}

struct rkmd_backend *rkmd_cuda_open_dev(int dev, int own_ctx, void *base,
					size_t len, size_t ro_len,
					int nthreads, rkmd_complete_fn done,
					void *ctx, char *why, size_t whylen)
{
	struct fake *f;

	if (rkmd_cuda_probe_dev(dev, why, whylen))
		return NULL;
	f = calloc(1, sizeof(*f));
	if (!f)
		return NULL;
	f->dev = dev;
	f->done = done;
	f->ctx = ctx;
	pthread_mutex_init(&f->lock, NULL);
	f->cpu = rkmd_cpu_backend.open(base, len, ro_len, 2, fake_done, f,
				       why, whylen);
	if (!f->cpu) {
		free(f);
		return NULL;
	}
	return (struct rkmd_backend *)f;
}

struct held {
	struct fake *f;
	struct rkmd_job *job;
	int withhold;
};

static void *hang_timer(void *arg)
{
	struct held *h = arg;
	const char *s = getenv("RKMD_CUDA_HANG_MS");
	int ms = s && atoi(s) > 0 ? atoi(s) : 20000;

	usleep((useconds_t)ms * 1000);
	pthread_mutex_lock(&h->f->lock);
	h->f->withheld = NULL;
	h->f->dead = 1;
	snprintf(h->f->why, sizeof(h->f->why),
		 "a batch hung for %d ms (cudaErrorLaunchTimeout, fake)", ms);
	pthread_mutex_unlock(&h->f->lock);
	h->f->done(h->f->ctx, h->job, -ETIMEDOUT);
	free(h);
	return NULL;
}

static void hold(struct fake *f, struct rkmd_job *job, int withhold)
{
	struct held *h = calloc(1, sizeof(*h));
	pthread_t th;

	h->f = f;
	h->job = job;
	if (withhold) {
		/* it runs; its completion is never seen */
		pthread_mutex_lock(&f->lock);
		f->withheld = job;
		pthread_mutex_unlock(&f->lock);
		rkmd_cpu_backend.submit(f->cpu, job);
		rkmd_cpu_backend.drain(f->cpu);
	}
	pthread_create(&th, NULL, hang_timer, h);
	pthread_detach(th);
}

static int fake_submit(struct rkmd_backend *b, struct rkmd_job *job)
{
	struct fake *f = (struct fake *)b;
	int fault;

	pthread_mutex_lock(&f->lock);
	if (f->dead) {
		pthread_mutex_unlock(&f->lock);
		return -EIO;
	}
	fault = f->fault;
	f->fault = 0;
	if (fault == 1 || fault == 2) {
		f->dead = 1;
		snprintf(f->why, sizeof(f->why),
			 "cudaErrorLaunchFailure (unspecified launch failure, fake %s)",
			 fault == 1 ? "trap" : "failed launch");
	}
	pthread_mutex_unlock(&f->lock);
	if (fault == 1 || fault == 2) {
		f->done(f->ctx, job, -EIO);
		return 0;
	}
	if (fault == 3 || fault == 4) {
		hold(f, job, fault == 4);
		return 0;
	}
	return rkmd_cpu_backend.submit(f->cpu, job);
}

static void fake_drain(struct rkmd_backend *b)
{
	rkmd_cpu_backend.drain(((struct fake *)b)->cpu);
}

static void fake_close(struct rkmd_backend *b)
{
	struct fake *f = (struct fake *)b;

	rkmd_cpu_backend.close(f->cpu);
	free(f);
}

static int fake_probe(char *why, size_t whylen)
{
	return rkmd_cuda_probe_dev(0, why, whylen);
}

static struct rkmd_backend *fake_open(void *base, size_t len, size_t ro_len,
				      int nthreads, rkmd_complete_fn done,
				      void *ctx, char *why, size_t whylen)
{
	return rkmd_cuda_open_dev(0, 0, base, len, ro_len, nthreads, done,
				  ctx, why, whylen);
}

const struct rkmd_backend_ops rkmd_cuda_backend = {
	.name = "cuda",
	.probe = fake_probe,
	.open = fake_open,
	.submit = fake_submit,
	.drain = fake_drain,
	.close = fake_close,
	.decode_want = 1,	/* the CPU backend under it does */
};

int rkmd_cuda_dead(struct rkmd_backend *b, char *why, size_t len)
{
	struct fake *f = (struct fake *)b;
	int d;

	pthread_mutex_lock(&f->lock);
	d = f->dead;
	if (d)
		snprintf(why, len, "%s", f->why);
	pthread_mutex_unlock(&f->lock);
	return d;
}

void rkmd_cuda_where(struct rkmd_backend *b, char *buf, size_t len)
{
	snprintf(buf, len, "fake:%d, node -1", ((struct fake *)b)->dev);
}

static void set_fault(struct rkmd_backend *b, int fault)
{
	struct fake *f = (struct fake *)b;

	pthread_mutex_lock(&f->lock);
	f->fault = fault;
	pthread_mutex_unlock(&f->lock);
}

void rkmd_cuda_inject_trap(struct rkmd_backend *b)
{
	set_fault(b, 1);
}

void rkmd_cuda_inject_fail(struct rkmd_backend *b)
{
	set_fault(b, 2);
}

void rkmd_cuda_inject_hang(struct rkmd_backend *b, int how)
{
	set_fault(b, how == RKMD_HANG_WITHHOLD ? 4 : 3);
}

/* a job the CPU coded is a batch done; one-time work there is none */
void rkmd_cuda_pulse(struct rkmd_backend *b, struct rkmd_cuda_pulse *p)
{
	struct fake *f = (struct fake *)b;

	pthread_mutex_lock(&f->lock);
	p->batches = f->batches;
	pthread_mutex_unlock(&f->lock);
	p->setup_ns = 0;
}

void rkmd_cuda_get_stats(struct rkmd_backend *b, struct rkmd_cuda_stats *st)
{
	memset(st, 0, sizeof(*st));
}

void rkmd_cuda_set_stage(struct rkmd_backend *b, int mode)
{
}
