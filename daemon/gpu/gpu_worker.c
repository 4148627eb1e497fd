// SPDX-License-Identifier: GPL-2.0
/*
 * A GPU worker process (gpu_worker.h): the CUDA backend on one device,
 * serving the jobs raidkmd sends over its socket (gpu_wire.h).
 *
 * One thread reads messages and submits jobs; the backend's completion
 * threads send each job's DONE.  When the backend's context dies (a GPU
 * trap, a lost device, a hung batch), the worker sends DEAD once, lets
 * every job it holds complete (failed: raidkmd re-runs or fails them
 * back), and exits without closing the backend: the process's end tears
 * the context down, so nothing it queued can write after raidkmd has
 * reaped it.  raidkmd closing its end of the socket is the order to stop:
 * the worker drains, closes the backend and exits.
 *
 * While it holds jobs, a third thread beats (RKG_MSG_ALIVE) every
 * RKG_PULSE_MS when its GPU finished a batch or one-time work is under
 * way on the launch path: both hold DONEs back without a stall
 * (gpu_stall.h).  The kernels are loaded when the backend opens, not at
 * their first launch (CUDA_MODULE_LOADING=EAGER unless set): a lazy load
 * may wait for every batch in flight.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/socket.h>

#include "rkmd_backend.h"
#include "rkmd_log.h"
#include "cuda_backend.h"
#include "multi_gpu.h"
#include "gpu_wire.h"
#include "gpu_worker.h"

struct worker {
	int fd, index;
	struct rkmd_backend *be;
	pthread_mutex_t wlock;		/* socket writes */
	pthread_mutex_t lock;
	pthread_cond_t cv;
	int dead, eof;			/* under lock */
	int dead_sent;			/* under lock */
	uint64_t held;			/* jobs taken, DONE not sent; lock */
};

/* how often a worker holding jobs may beat (well below RKG_STALL_MS) */
#define RKG_PULSE_MS	5

/* A job as the worker holds it: the arrays follow it in one block */
struct wjob {
	struct rkmd_job job;
	uint64_t id;
};

static void worker_wake(struct worker *w, int dead, int eof)
{
	pthread_mutex_lock(&w->lock);
	w->dead |= dead;
	w->eof |= eof;
	pthread_cond_broadcast(&w->cv);
	pthread_mutex_unlock(&w->lock);
}

/* The context is gone: tell raidkmd once, before that job's DONE */
static void note_dead(struct worker *w)
{
	char why[200] = "";

	if (!rkmd_cuda_dead(w->be, why, sizeof(why)))
		return;
	/* held while sending: no other job's DONE may overtake the DEAD */
	pthread_mutex_lock(&w->lock);
	if (!w->dead_sent)
		rkg_wire_send(w->fd, &w->wlock, RKG_MSG_DEAD, 0, why,
			      strlen(why), NULL, 0);
	w->dead_sent = 1;
	w->dead = 1;
	pthread_cond_broadcast(&w->cv);
	pthread_mutex_unlock(&w->lock);
}

static void send_done(struct worker *w, struct wjob *wj, int status)
{
	struct rkg_wire_done d = { status, 0 };
	const struct rkmd_job *j = &wj->job;

	if (status && status != -EINVAL)
		note_dead(w);
	if (!status && j->op == RKMD_OP_CHECK)
		d.nresult = j->nstripes;
	rkg_wire_send(w->fd, &w->wlock, RKG_MSG_DONE, wj->id, &d, sizeof(d),
		      j->result, d.nresult * sizeof(int32_t));
	free(wj);
	pthread_mutex_lock(&w->lock);
	if (!--w->held)
		pthread_cond_broadcast(&w->cv);
	pthread_mutex_unlock(&w->lock);
}

static void worker_done(void *ctx, struct rkmd_job *job, int status)
{
	send_done(ctx, (struct wjob *)job, status);
}

/* A JOB message's payload as a job, or NULL (a message that lies) */
static struct wjob *job_of(const void *msg, size_t len, uint64_t id)
{
	const struct rkg_wire_job *wj = msg;
	const uint64_t *ptr = (const uint64_t *)(wj + 1);
	uint64_t nch, i;
	struct wjob *j;
	uint8_t **arr;

	if (len < sizeof(*wj) || !wj->nstripes || !wj->k || !wj->m)
		return NULL;
	nch = (uint64_t)wj->nstripes * (wj->k + wj->m);
	if ((wj->nold && wj->nold != (uint64_t)wj->nstripes * wj->k) ||
	    len != sizeof(*wj) + (nch + wj->nold) * sizeof(uint64_t))
		return NULL;
	j = calloc(1, sizeof(*j) + (nch + wj->nold) * sizeof(void *) +
		   (uint64_t)wj->nstripes * sizeof(int32_t));
	if (!j)
		return NULL;
	arr = (uint8_t **)(j + 1);
	for (i = 0; i < nch + wj->nold; i++)
		arr[i] = (uint8_t *)(uintptr_t)ptr[i];
	j->id = id;
	j->job.tag = id;
	j->job.op = wj->op;
	j->job.k = wj->k;
	j->job.m = wj->m;
	j->job.len = wj->len;
	j->job.nstripes = wj->nstripes;
	j->job.mask = wj->mask;
	j->job.want = wj->want;
	j->job.chunk = arr;
	j->job.old = wj->nold ? arr + nch : NULL;
	j->job.result = (int32_t *)(arr + nch + wj->nold);
	return j;
}

static void take_job(struct worker *w, const void *msg, size_t len,
		     uint64_t id)
{
	struct wjob *j = job_of(msg, len, id);
	struct rkg_wire_done d = { -EINVAL, 0 };
	int r;

	if (!j) {
		rkg_wire_send(w->fd, &w->wlock, RKG_MSG_DONE, id, &d,
			      sizeof(d), NULL, 0);
		return;
	}
	pthread_mutex_lock(&w->lock);
	if (!w->held++)		/* the pulse starts */
		pthread_cond_broadcast(&w->cv);
	pthread_mutex_unlock(&w->lock);
	r = rkmd_cuda_backend.submit(w->be, &j->job);
	if (r)
		send_done(w, j, r);
}

static void take_fault(struct worker *w, uint64_t kind)
{
	if (kind == RKMD_GPU_FAIL)
		rkmd_cuda_inject_fail(w->be);
	else if (kind == RKMD_GPU_HANG)
		rkmd_cuda_inject_hang(w->be, RKMD_HANG_GPU);
	else if (kind == RKMD_GPU_WITHHOLD)
		rkmd_cuda_inject_hang(w->be, RKMD_HANG_WITHHOLD);
	else if (kind == RKMD_GPU_TRAP)
		rkmd_cuda_inject_trap(w->be);
}

/* One beat, if the backend shows a sign of life since the last one */
static void beat(struct worker *w, uint64_t *seen)
{
	struct rkmd_cuda_pulse p;
	struct timespec ts;
	uint64_t id, now;

	rkmd_cuda_pulse(w->be, &p);
	if (p.batches != *seen) {
		id = 0;		/* its GPU finished a batch */
	} else if (p.setup_ns) {
		clock_gettime(CLOCK_MONOTONIC, &ts);
		now = (uint64_t)ts.tv_sec * 1000000000ull + ts.tv_nsec;
		id = now > p.setup_ns ? (now - p.setup_ns) / 1000 : 0;
		id = id ? id : 1;
	} else {
		return;
	}
	*seen = p.batches;
	rkg_wire_send(w->fd, &w->wlock, RKG_MSG_ALIVE, id, NULL, 0, NULL, 0);
}

/* The pulse: beats while the worker holds jobs, until it ends */
static void *worker_pulse(void *arg)
{
	struct worker *w = arg;
	uint64_t seen = 0;

	pthread_mutex_lock(&w->lock);
	while (!w->dead && !w->eof) {
		if (!w->held) {
			pthread_cond_wait(&w->cv, &w->lock);
			continue;
		}
		pthread_mutex_unlock(&w->lock);
		usleep(RKG_PULSE_MS * 1000);
		beat(w, &seen);
		pthread_mutex_lock(&w->lock);
	}
	pthread_mutex_unlock(&w->lock);
	return NULL;
}

/* The reading thread: until raidkmd closes its end */
static void *worker_read(void *arg)
{
	struct worker *w = arg;
	struct rkg_msg_hdr h;
	void *buf = NULL;
	size_t cap = 0;

	while (!rkg_wire_recv(w->fd, &h, &buf, &cap)) {
		if (h.type == RKG_MSG_JOB)
			take_job(w, buf, h.len, h.id);
		else if (h.type == RKG_MSG_FAULT)
			take_fault(w, h.id);
	}
	free(buf);
	worker_wake(w, 0, 1);
	return NULL;
}

void rkg_worker_main(const struct rkg_worker_args *a, int fd)
{
	static struct worker w;
	char why[256] = "", where[64] = "";
	pthread_t th, pulse;
	int dead;

	w.fd = fd;
	w.index = a->index;
	pthread_mutex_init(&w.wlock, NULL);
	pthread_mutex_init(&w.lock, NULL);
	pthread_cond_init(&w.cv, NULL);
	/* every kernel loaded now, none at a first launch under load */
	setenv("CUDA_MODULE_LOADING", "EAGER", 0);
	w.be = rkmd_cuda_open_dev(a->dev, 0, a->base, a->len, a->ro_len,
				  a->nthreads, worker_done, &w, why,
				  sizeof(why));
	if (!w.be) {
		rkg_wire_send(fd, &w.wlock, RKG_MSG_FAIL, 0, why, strlen(why),
			      NULL, 0);
		_exit(2);
	}
	rkmd_cuda_where(w.be, where, sizeof(where));
	if (rkg_wire_send(fd, &w.wlock, RKG_MSG_READY, getpid(), where,
			  strlen(where), NULL, 0) ||
	    pthread_create(&pulse, NULL, worker_pulse, &w) ||
	    pthread_create(&th, NULL, worker_read, &w))
		_exit(2);
	pthread_mutex_lock(&w.lock);
	while (!w.dead && !w.eof)
		pthread_cond_wait(&w.cv, &w.lock);
	dead = w.dead;
	pthread_mutex_unlock(&w.lock);
	/* every job it holds completes (failed, when dead) and is answered */
	rkmd_cuda_backend.drain(w.be);
	pthread_mutex_lock(&w.lock);
	while (w.held)
		pthread_cond_wait(&w.cv, &w.lock);
	pthread_mutex_unlock(&w.lock);
	if (dead)
		_exit(3);	/* the context goes with the process */
	rkmd_cuda_backend.close(w.be);
	_exit(0);
}
