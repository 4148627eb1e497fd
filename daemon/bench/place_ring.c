// SPDX-License-Identifier: GPL-2.0
/*
 * The kernel end of rkm-place-bench: raidkm.ko's dispatcher reduced to
 * what placement sees, over the loopback (daemon/loopback, the kernel's
 * ring code) with an in-process raidkmd core and backend.
 *
 *   submit      under one lock (the dispatcher's spinlock): an entry
 *               slot, the ring entry, the bytes ahead of it, the doorbell;
 *               no free slot means the CPU, as in the kernel
 *   completion  one thread (the kernel's ordered completion work): takes
 *               completions back under the lock, checks each entry's
 *               results as the kernel does (place_verify.c), copies its
 *               outputs from staging to their home, gives the decision
 *               the entry's time, wakes its caller; a wrong result is
 *               counted and the entry coded on the CPU
 *   watchdog    on the same thread every RKM_WATCH_NS while entries are
 *               out: an entry out longer than expected is a sample
 *
 * The loopback is driven by one thread at a time: submit and reap under
 * the lock; the completion thread alone waits on it (the completion
 * ring's consumer side and the control socket), outside the lock.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/futex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "bench/place_bench.h"
#include "rkmd_log.h"

#define PB_ENTRIES	256
/* the kernel's watchdog: a quarter of the default 50 ms deadline */
#define PB_WATCH_NS	(12500ull * 1000)

struct pb_ent {
	int busy;
	int pop;
	int status;
	uint32_t njobs;
	uint64_t opened_ns, ahead, pbytes;
	struct pb_copy copy[PB_MAX_COPIES];
	int ncopy;
	const struct pb_vjob *vjob;
	struct pb_wait *wait;
};

struct pb_ring {
	struct rkm_loop *loop;
	struct rkm_loop_daemon d;
	struct pb_feed *feed;
	struct pb_verify *verify;
	pthread_mutex_t lock;
	uint64_t ring_bytes;		/* place bytes on the ring */
	struct pb_ent ent[PB_ENTRIES];
	uint32_t free_ids[PB_ENTRIES], nfree;
	uint32_t done_ids[PB_ENTRIES], ndone;
	uint64_t failed;
	uint64_t next_watch;
	pthread_t th;
	int stop;
	int started;
};

static void pb_futex(uint32_t *w, int op, uint32_t val)
{
	syscall(SYS_futex, w, op, val, NULL, NULL, 0);
}

void pb_wait_for(struct pb_wait *w)
{
	while (!__atomic_load_n(&w->done, __ATOMIC_ACQUIRE))
		pb_futex(&w->done, FUTEX_WAIT_PRIVATE, 0);
}

static void pb_wake(struct pb_wait *w, int status)
{
	w->status = status;
	__atomic_store_n(&w->done, 1, __ATOMIC_RELEASE);
	pb_futex(&w->done, FUTEX_WAKE_PRIVATE, 1);
}

uint8_t *pb_ring_home(struct pb_ring *r)
{
	return rkm_loop_arena(r->loop);
}

uint8_t *pb_ring_stage(struct pb_ring *r)
{
	return rkm_loop_arena(r->loop) + rkm_loop_stage_start(r->loop);
}

const char *pb_ring_backend(struct pb_ring *r)
{
	return rkm_loop_backend(r->loop);
}

uint64_t pb_ring_bytes(struct pb_ring *r)
{
	return __atomic_load_n(&r->ring_bytes, __ATOMIC_RELAXED);
}

void pb_ring_corrupt(struct pb_ring *r, uint64_t every)
{
	/* the core reads its configuration at every completion */
	__atomic_store_n(&r->d.cfg.fault.corrupt_every, every,
			 __ATOMIC_RELEASE);
}

uint64_t pb_ring_failed(struct pb_ring *r)
{
	return __atomic_load_n(&r->failed, __ATOMIC_RELAXED);
}

int pb_ring_describe(struct pb_ring *r, const struct rkm_loop_job *j,
		     uint8_t *const *chunk, uint8_t *const *old, uint32_t st,
		     uint64_t *offs)
{
	return rkm_loop_describe(r->loop, j, chunk, old, st, offs);
}

int pb_ring_submit(struct pb_ring *r, struct pb_entry_req *q)
{
	struct pb_ent *e;
	uint32_t id;
	int ret;

	pthread_mutex_lock(&r->lock);
	if (!r->nfree) {
		pthread_mutex_unlock(&r->lock);
		return -EAGAIN;
	}
	id = r->free_ids[--r->nfree];
	q->job.cookie = id;
	ret = rkm_loop_submit(r->loop, &q->job);
	if (ret) {
		r->nfree++;
		pthread_mutex_unlock(&r->lock);
		return ret;
	}
	e = &r->ent[id];
	e->busy = 1;
	e->pop = q->pop;
	e->status = 0;
	e->njobs = q->job.nstripes;
	e->opened_ns = pb_now_ns();
	e->ahead = r->ring_bytes;
	e->pbytes = q->pbytes;
	memcpy(e->copy, q->copy, sizeof(e->copy[0]) * q->ncopy);
	e->ncopy = q->ncopy;
	e->vjob = q->vjob;
	e->wait = q->wait;
	__atomic_store_n(&r->ring_bytes, r->ring_bytes + e->pbytes * e->njobs,
			 __ATOMIC_RELAXED);
	rkm_loop_kick(r->loop);
	pthread_mutex_unlock(&r->lock);
	return 0;
}

/* A completion taken back (under the lock): off the ring's bytes */
static void pb_on_done(void *arg, uint64_t cookie, int status, uint64_t bm)
{
	struct pb_ring *r = arg;
	struct pb_ent *e = &r->ent[cookie];

	e->status = status;
	__atomic_store_n(&r->ring_bytes, r->ring_bytes - e->pbytes * e->njobs,
			 __ATOMIC_RELAXED);
	r->done_ids[r->ndone++] = cookie;
}

/* Outputs home, the decision fed, the caller woken, the slot freed */
static void pb_finish(struct pb_ring *r, uint32_t id)
{
	struct pb_ent *e = &r->ent[id];
	struct pb_wait *w = e->wait;
	int i, status = e->status;

	/* a wrong result is re-run on the CPU (the kernel drops the daemon) */
	if (!status && e->vjob && pb_verify_job(r->verify, e->vjob))
		status = -EIO;
	if (!status)
		for (i = 0; i < e->ncopy; i++)
			memcpy(e->copy[i].to, e->copy[i].from, e->copy[i].len);
	else
		__atomic_fetch_add(&r->failed, 1, __ATOMIC_RELAXED);
	pb_feed_daemon_entry(r->feed, e->pop, e->pbytes, e->njobs, e->ahead,
			     pb_now_ns() - e->opened_ns, status != 0);
	pthread_mutex_lock(&r->lock);
	e->busy = 0;
	r->free_ids[r->nfree++] = id;
	pthread_mutex_unlock(&r->lock);
	pb_wake(w, status);
}

/* Entries out longer than the estimates expect count (the watchdog) */
static void pb_watch(struct pb_ring *r)
{
	uint64_t now = pb_now_ns();
	uint32_t id;

	if (now < r->next_watch)
		return;
	r->next_watch = now + PB_WATCH_NS;
	pthread_mutex_lock(&r->lock);
	for (id = 0; id < PB_ENTRIES; id++) {
		struct pb_ent *e = &r->ent[id];

		if (e->busy && now > e->opened_ns)
			pb_feed_daemon_out(r->feed, e->pop, e->pbytes,
					   e->njobs, e->ahead,
					   now - e->opened_ns);
	}
	pthread_mutex_unlock(&r->lock);
}

/* Take back what completed; the entries to finish in @ids; -EPROTO */
static int pb_reap(struct pb_ring *r, uint32_t *ids, uint32_t *n,
		   uint32_t *out)
{
	int ret;

	pthread_mutex_lock(&r->lock);
	r->ndone = 0;
	ret = rkm_loop_reap(r->loop, pb_on_done, r);
	memcpy(ids, r->done_ids, sizeof(ids[0]) * r->ndone);
	*n = r->ndone;
	*out = PB_ENTRIES - r->nfree - r->ndone;
	pthread_mutex_unlock(&r->lock);
	return ret < 0 ? ret : 0;
}

/* After a daemon fault: every entry out comes back failed */
static void pb_abandon(struct pb_ring *r)
{
	uint32_t id;

	fprintf(stderr, "rkm-place-bench: the daemon faulted; jobs out fail back\n");
	pthread_mutex_lock(&r->lock);
	r->ndone = 0;
	rkm_loop_abandon(r->loop, pb_on_done, r);
	pthread_mutex_unlock(&r->lock);
	for (id = 0; id < r->ndone; id++)
		pb_finish(r, r->done_ids[id]);
}

static void *pb_ring_main(void *arg)
{
	struct pb_ring *r = arg;
	uint32_t ids[PB_ENTRIES], n, out, i;

	for (;;) {
		if (pb_reap(r, ids, &n, &out)) {
			pb_abandon(r);
			break;
		}
		for (i = 0; i < n; i++)
			pb_finish(r, ids[i]);
		if (out)
			pb_watch(r);
		if (!n && !out && __atomic_load_n(&r->stop, __ATOMIC_ACQUIRE))
			break;
		if (!n && rkm_loop_wait(r->loop, out ? 2 : 5) < 0) {
			pb_abandon(r);
			break;
		}
	}
	return NULL;
}

struct pb_ring *pb_ring_start(const char *backend, int threads,
			      uint64_t home_bytes, uint64_t stage_bytes,
			      struct pb_feed *feed, struct pb_verify *v)
{
	const struct rkmd_backend_ops *be = rkmd_find_backend(backend);
	uint64_t pg = (uint64_t)sysconf(_SC_PAGESIZE);
	struct rkm_loop_params p;
	struct pb_ring *r;
	char why[256];
	uint32_t i;

	if (!be) {
		fprintf(stderr, "rkm-place-bench: no backend '%s' in this build\n",
			backend);
		return NULL;
	}
	if (be->probe && be->probe(why, sizeof(why))) {
		fprintf(stderr, "rkm-place-bench: backend %s: %s\n", backend,
			why);
		return NULL;
	}
	r = calloc(1, sizeof(*r));
	if (!r)
		return NULL;
	r->feed = feed;
	r->verify = v;
	pthread_mutex_init(&r->lock, NULL);
	for (i = 0; i < PB_ENTRIES; i++)
		r->free_ids[r->nfree++] = PB_ENTRIES - 1 - i;
	rkm_loop_default_params(&p);
	p.entries = PB_ENTRIES;
	p.arena_size = (home_bytes + stage_bytes + pg - 1) / pg * pg;
	p.stage_size = (stage_bytes + pg - 1) / pg * pg;
	r->loop = rkm_loop_create(&p, why, sizeof(why));
	if (!r->loop) {
		fprintf(stderr, "rkm-place-bench: loopback: %s\n", why);
		free(r);
		return NULL;
	}
	if (rkm_loop_daemon_start(&r->d, r->loop, be, threads)) {
		fprintf(stderr, "rkm-place-bench: daemon start with --backend=%s failed\n",
			backend);
		rkm_loop_destroy(r->loop);
		free(r);
		return NULL;
	}
	r->started = !pthread_create(&r->th, NULL, pb_ring_main, r);
	if (!r->started) {
		pb_ring_stop(r);
		return NULL;
	}
	return r;
}

void pb_ring_stop(struct pb_ring *r)
{
	if (r->started) {
		__atomic_store_n(&r->stop, 1, __ATOMIC_RELEASE);
		pthread_join(r->th, NULL);
	}
	rkm_loop_daemon_stop(&r->d, NULL, NULL);
	rkm_loop_destroy(r->loop);
	free(r);
}
