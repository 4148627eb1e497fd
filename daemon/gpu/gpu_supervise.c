// SPDX-License-Identifier: GPL-2.0
/*
 * The multi-GPU backend's workers (multi_priv.h): each instance's worker
 * process started, its messages read, its end handled and, after a
 * backoff, a new one started.
 *
 * One reading thread per worker.  A worker that reports its GPU dead, or
 * ends without saying so (a crash, a kill), is marked down; once its
 * socket is closed it is reaped (killed if it does not exit), and only
 * then are the jobs it never answered handed back (multi_gpu.c re-runs
 * or fails them back): a reaped process's GPU work is gone with its
 * context, so nothing it queued can still write into the arena.  The
 * supervisor thread restarts it after a backoff that doubles with each
 * start that does not last (RKG_BACKOFF_MS up to RKG_BACKOFF_MAX_MS).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <time.h>
#include <unistd.h>
#include <sys/socket.h>

#include "rkmd_log.h"
#include "gpu_wire.h"
#include "gpu_stall.h"
#include "multi_priv.h"

uint32_t rkg_fl_put_locked(struct inst *in, struct rkmd_job *job)
{
	uint32_t id, i, cap;

	if (in->fl_free == UINT32_MAX) {
		cap = in->fl_cap ? 2 * in->fl_cap : 256;
		struct rkmd_job **fl = realloc(in->fl, cap * sizeof(*fl));
		uint64_t *ns = fl ? realloc(in->fl_ns, cap * sizeof(*ns)) :
			       NULL;
		uint32_t *nx = ns ? realloc(in->fl_next, cap * sizeof(*nx)) :
			       NULL;

		if (fl)
			in->fl = fl;
		if (ns)
			in->fl_ns = ns;
		if (!nx)
			return UINT32_MAX;
		in->fl_next = nx;
		for (i = in->fl_cap; i < cap; i++) {
			in->fl[i] = NULL;
			in->fl_next[i] = i + 1 < cap ? i + 1 : UINT32_MAX;
		}
		in->fl_free = in->fl_cap;
		in->fl_cap = cap;
	}
	id = in->fl_free;
	in->fl_free = in->fl_next[id];
	in->fl[id] = job;
	in->fl_ns[id] = rkg_mono_ns();
	return id;
}

struct rkmd_job *rkg_fl_take_locked(struct inst *in, uint64_t id)
{
	struct rkmd_job *job;

	if (id >= in->fl_cap || !in->fl[id])
		return NULL;
	job = in->fl[id];
	in->fl[id] = NULL;
	in->fl_next[id] = in->fl_free;
	in->fl_free = (uint32_t)id;
	return job;
}

static int serving_locked(const struct multi *m)
{
	int i, n = 0;

	for (i = 0; i < m->n; i++)
		n += m->in[i].st.state == RKMD_GPU_UP;
	return n;
}

void rkg_mark_down_locked(struct inst *in, const char *why)
{
	struct multi *m = in->m;
	int live;

	if (in->st.state != RKMD_GPU_UP && in->st.state != RKMD_GPU_STARTING)
		return;
	in->st.state = RKMD_GPU_FAILING;
	in->down_ns = rkg_mono_ns();
	in->st.dropped = 1;
	in->st.dropped_at = time(NULL);
	in->st.faults++;
	snprintf(in->st.why, sizeof(in->st.why), "%s", why);
	live = serving_locked(m);
	rkmd_err("cuda: GPU instance %d (device %d, %s) down: %s; %d of %d serving%s",
		 in->st.index, in->st.device, in->st.where, why, live, m->n,
		 live ? "" : ": jobs fail back to the kernel's CPU codec until one is back");
	rkg_publish_locked(m, 1);
}

int rkg_inst_send(struct inst *in, uint32_t type, uint64_t id,
		  const void *a, size_t alen, const void *b, size_t blen)
{
	int r = -EPIPE;

	pthread_mutex_lock(&in->wlock);
	if (in->fd >= 0)
		r = rkg_wire_send(in->fd, NULL, type, id, a, alen, b, blen);
	pthread_mutex_unlock(&in->wlock);
	return r;
}

static void inst_ready(struct inst *in, const char *where, uint64_t pid)
{
	struct multi *m = in->m;

	pthread_mutex_lock(&m->lock);
	snprintf(in->st.where, sizeof(in->st.where), "%s", where);
	in->st.state = RKMD_GPU_UP;
	in->st.dropped = 0;
	in->settled = 1;
	in->up_ns = rkg_mono_ns();
	in->beat_ns = 0;
	in->fresh = in->st.restarts > 0;
	if (in->st.restarts)
		rkmd_info("cuda: GPU instance %d (device %d, %s) serving again: worker pid %llu, restart %llu; %d of %d serving",
			  in->st.index, in->st.device, where,
			  (unsigned long long)pid,
			  (unsigned long long)in->st.restarts,
			  serving_locked(m), m->n);
	else
		rkmd_info("cuda: GPU instance %d: device %d (%s), worker pid %llu",
			  in->st.index, in->st.device, where,
			  (unsigned long long)pid);
	rkg_publish_locked(m, 1);
	pthread_cond_broadcast(&m->change);
	pthread_mutex_unlock(&m->lock);
}

/* A DONE message: the job's outcome; -EPROTO when it does not parse */
static int inst_done(struct inst *in, uint64_t id, const void *buf,
		     size_t len)
{
	const struct rkg_wire_done *d = buf;
	struct multi *m = in->m;
	struct rkmd_job *job;
	int status;

	if (len < sizeof(*d) ||
	    len != sizeof(*d) + (size_t)d->nresult * sizeof(int32_t))
		return -EPROTO;
	pthread_mutex_lock(&m->lock);
	job = rkg_fl_take_locked(in, id);
	if (job)
		in->out_bytes -= rkg_job_bytes(job);
	in->done_ns = rkg_mono_ns();
	pthread_mutex_unlock(&m->lock);
	if (!job)
		return -EPROTO;
	status = d->status > 0 ? -EIO : d->status;
	rkg_job_back(in, job, status, (const int32_t *)(d + 1), d->nresult);
	return 0;
}

/* An ALIVE message: progress, if it counts (gpu_stall.h) */
static int inst_alive(struct inst *in, uint64_t setup_us, size_t len)
{
	struct multi *m = in->m;

	if (len)
		return -EPROTO;
	if (!rkg_beat_counts(setup_us))
		return 0;
	pthread_mutex_lock(&m->lock);
	in->beat_ns = rkg_mono_ns();
	pthread_mutex_unlock(&m->lock);
	return 0;
}

/* One message from the worker; -EPROTO ends it */
static int inst_message(struct inst *in, const struct rkg_msg_hdr *h,
			const char *buf)
{
	struct multi *m = in->m;
	char why[200];

	switch (h->type) {
	case RKG_MSG_READY:
		inst_ready(in, buf, h->id);
		return 0;
	case RKG_MSG_FAIL:
	case RKG_MSG_DEAD:
		snprintf(why, sizeof(why), "%s%s",
			 h->type == RKG_MSG_FAIL ? "did not open: " : "", buf);
		pthread_mutex_lock(&m->lock);
		rkg_mark_down_locked(in, why);
		in->settled = 1;
		pthread_cond_broadcast(&m->change);
		pthread_mutex_unlock(&m->lock);
		return 0;
	case RKG_MSG_DONE:
		return inst_done(in, h->id, buf, h->len);
	case RKG_MSG_ALIVE:
		return inst_alive(in, h->id, h->len);
	}
	return -EPROTO;
}

/* Every job the worker still held, taken back; their count */
static size_t take_all_locked(struct inst *in, struct rkmd_job **out)
{
	size_t n = 0;
	uint32_t i;

	for (i = 0; i < in->fl_cap; i++) {
		struct rkmd_job *j = rkg_fl_take_locked(in, i);

		if (j)
			out[n++] = j;
	}
	in->out_bytes = 0;
	return n;
}

/* When the next start should be: the backoff, doubled for the one after */
static void schedule_restart_locked(struct inst *in)
{
	const uint64_t now = rkg_mono_ns();

	if (in->up_ns && now - in->up_ns >= RKG_STABLE_NS)
		in->backoff_ms = RKG_BACKOFF_MS;
	in->up_ns = 0;
	in->st.state = RKMD_GPU_RESTARTING;
	in->restart_ns = now + (uint64_t)in->backoff_ms * 1000000ull;
	rkmd_info("cuda: GPU instance %d (device %d): new worker in %u ms",
		  in->st.index, in->st.device, in->backoff_ms);
	in->backoff_ms = in->backoff_ms * 2 > RKG_BACKOFF_MAX_MS ?
			 RKG_BACKOFF_MAX_MS : in->backoff_ms * 2;
}

/* The worker's socket ended: reap it, hand its jobs back, restart */
static void inst_gone(struct inst *in, const char *why)
{
	struct multi *m = in->m;
	struct rkmd_job **left;
	size_t n, i;
	pid_t pid;

	pthread_mutex_lock(&m->lock);
	if (!m->closing)
		rkg_mark_down_locked(in, why);
	left = calloc(in->fl_cap + 1, sizeof(*left));
	n = left ? take_all_locked(in, left) : 0;
	pid = in->pid;
	pthread_mutex_unlock(&m->lock);

	pthread_mutex_lock(&in->wlock);
	close(in->fd);
	in->fd = -1;
	pthread_mutex_unlock(&in->wlock);
	if (pid > 0)
		rkg_reap(pid, RKG_EXIT_MS);
	/* only now: nothing of that process can write any more */
	for (i = 0; i < n; i++)
		rkg_job_back(in, left[i], -EIO, NULL, 0);
	free(left);

	pthread_mutex_lock(&m->lock);
	in->pid = 0;
	in->st.pid = 0;
	in->down_ns = 0;
	in->settled = 1;
	if (m->closing) {
		in->st.state = RKMD_GPU_DOWN;
		in->st.dropped = 1;
	} else {
		schedule_restart_locked(in);
	}
	rkg_publish_locked(m, 1);
	pthread_cond_broadcast(&m->change);
	pthread_mutex_unlock(&m->lock);
}

static void *inst_read(void *arg)
{
	struct inst *in = arg;
	struct rkg_msg_hdr h;
	const char *why = "its worker exited";
	void *buf = NULL;
	size_t cap = 0;
	int r;

	while (!(r = rkg_wire_recv(in->fd, &h, &buf, &cap)))
		if (inst_message(in, &h, buf)) {
			why = "its worker sent a bad message";
			break;
		}
	if (r && r != -EPIPE)
		why = "its worker's socket failed";
	free(buf);
	inst_gone(in, why);
	return NULL;
}

int rkg_inst_start(struct inst *in, char *why, size_t whylen)
{
	struct multi *m = in->m;
	int fd, r;
	pid_t pid;

	pid = rkg_worker_spawn(&in->args, &fd, why, whylen);
	if (pid < 0)
		return (int)pid;
	pthread_mutex_lock(&in->wlock);
	in->fd = fd;
	pthread_mutex_unlock(&in->wlock);
	pthread_mutex_lock(&m->lock);
	in->pid = pid;
	in->st.pid = pid;
	in->st.state = RKMD_GPU_STARTING;
	pthread_mutex_unlock(&m->lock);
	r = pthread_create(&in->reader, NULL, inst_read, in);
	if (r) {
		snprintf(why, whylen, "no thread for the worker: %s",
			 strerror(r));
		shutdown(fd, SHUT_RDWR);
		rkg_reap(pid, 0);
		pthread_mutex_lock(&in->wlock);
		close(fd);
		in->fd = -1;
		pthread_mutex_unlock(&in->wlock);
		return -r;
	}
	in->reader_ok = 1;
	return 0;
}

/* Start instance in's next worker (its restart is due); m->lock held */
static void restart_locked(struct inst *in)
{
	struct multi *m = in->m;
	char why[200];

	in->st.state = RKMD_GPU_STARTING;
	in->st.restarts++;
	pthread_mutex_unlock(&m->lock);
	if (in->reader_ok) {
		pthread_join(in->reader, NULL);
		in->reader_ok = 0;
	}
	if (rkg_inst_start(in, why, sizeof(why))) {
		pthread_mutex_lock(&m->lock);
		rkmd_err("cuda: GPU instance %d: no new worker: %s",
			 in->st.index, why);
		schedule_restart_locked(in);
		return;
	}
	pthread_mutex_lock(&m->lock);
}

/*
 * A worker that said its GPU failed but has not ended RKG_EXIT_MS later
 * (its context's teardown stuck): killed, so that its end is handled.
 */
static void kill_stuck_locked(struct inst *in, uint64_t now)
{
	if (in->st.state != RKMD_GPU_FAILING || in->pid <= 0 ||
	    !in->down_ns ||
	    now - in->down_ns < (uint64_t)RKG_EXIT_MS * 1000000ull)
		return;
	rkmd_warn("cuda: GPU instance %d: worker %d still there %d ms after its GPU failed: killed",
		  in->st.index, (int)in->pid, RKG_EXIT_MS);
	kill(in->pid, SIGKILL);
	in->down_ns = 0;
}

/* When the oldest job in's worker holds was sent (now: none) */
static uint64_t oldest_locked(const struct inst *in, uint64_t now)
{
	uint64_t oldest = now;
	uint32_t i;

	for (i = 0; i < in->fl_cap; i++)
		if (in->fl[i] && in->fl_ns[i] < oldest)
			oldest = in->fl_ns[i];
	return oldest;
}

/* A stalled worker's reason, for the log and the status file */
static void stall_why(const struct rkg_stall_in *v, uint64_t limit,
		      uint64_t now, char *why, size_t len)
{
	const uint64_t last = v->done_ns > v->beat_ns ? v->done_ns :
			      v->beat_ns;

	snprintf(why, len,
		 "stalled: no progress for %llu ms (limit %llu ms with %llu KiB held), a job out for %llu ms (a hung or faulted GPU)",
		 (unsigned long long)((now - last) / 1000000ull),
		 (unsigned long long)(limit / 1000000ull),
		 (unsigned long long)(v->held_bytes >> 10),
		 (unsigned long long)((now - v->oldest_ns) / 1000000ull));
}

/*
 * in's worker has held a job and shown no progress for longer than its
 * limit (gpu_stall.h): its GPU stalled.  Fail its jobs back now (the
 * kernel codes them on its CPU and keeps their staging from late writes,
 * Documentation/offload.rst) rather than let the kernel's deadline drop
 * the whole daemon, and kill it; its reader then reaps it and it
 * restarts.  m->lock held; dropped and taken again while the jobs go
 * back.
 */
static void stall_locked(struct inst *in, uint64_t now)
{
	struct multi *m = in->m;
	struct rkmd_job **left;
	struct rkg_stall_in v;
	uint64_t limit;
	char why[160];
	size_t n, i;

	if (in->st.state != RKMD_GPU_UP || !in->out_bytes || !m->stall_ns)
		return;
	v.held_bytes = in->out_bytes;
	v.oldest_ns = oldest_locked(in, now);
	v.done_ns = in->done_ns;
	v.beat_ns = in->beat_ns;
	limit = rkg_stalled(&v, m->stall_ns, now);
	if (!limit)
		return;
	stall_why(&v, limit, now, why, sizeof(why));
	rkg_mark_down_locked(in, why);
	if (in->pid > 0)
		kill(in->pid, SIGKILL);
	left = calloc(in->fl_cap + 1, sizeof(*left));
	n = left ? take_all_locked(in, left) : 0;
	pthread_mutex_unlock(&m->lock);
	for (i = 0; i < n; i++)
		rkg_job_back(in, left[i], -ETIMEDOUT, NULL, 0);
	free(left);
	pthread_mutex_lock(&m->lock);
}

static void *supervise(void *arg)
{
	struct multi *m = arg;
	int i;

	pthread_mutex_lock(&m->lock);
	while (!m->closing) {
		uint64_t now = rkg_mono_ns(), next = now + 1000000000ull;
		struct timespec ts;
		struct inst *due = NULL;

		for (i = 0; i < m->n && !due; i++) {
			struct inst *in = &m->in[i];

			kill_stuck_locked(in, now);
			stall_locked(in, now);
			if (in->st.state == RKMD_GPU_UP && in->out_bytes &&
			    m->stall_ns && now + RKG_TICK_NS < next)
				next = now + RKG_TICK_NS;
			if (in->st.state != RKMD_GPU_RESTARTING)
				continue;
			if (in->restart_ns <= now)
				due = in;
			else if (in->restart_ns < next)
				next = in->restart_ns;
		}
		if (due) {
			restart_locked(due);
			continue;
		}
		clock_gettime(CLOCK_MONOTONIC, &ts);
		next -= now;
		ts.tv_sec += next / 1000000000ull;
		ts.tv_nsec += next % 1000000000ull;
		if (ts.tv_nsec >= 1000000000l) {
			ts.tv_sec++;
			ts.tv_nsec -= 1000000000l;
		}
		pthread_cond_timedwait(&m->change, &m->lock, &ts);
	}
	pthread_mutex_unlock(&m->lock);
	return NULL;
}

int rkg_supervisor_start(struct multi *m)
{
	m->sup_ok = !pthread_create(&m->sup, NULL, supervise, m);
	return m->sup_ok ? 0 : -ENOMEM;
}

void rkg_supervisor_stop(struct multi *m)
{
	pthread_mutex_lock(&m->lock);
	m->closing = 1;
	pthread_cond_broadcast(&m->change);
	pthread_mutex_unlock(&m->lock);
	if (m->sup_ok)
		pthread_join(m->sup, NULL);
	m->sup_ok = 0;
}

/* Tell in's worker to stop (it drains and exits) and wait for its end */
void rkg_inst_stop(struct inst *in)
{
	pthread_mutex_lock(&in->wlock);
	if (in->fd >= 0)
		shutdown(in->fd, SHUT_WR);
	pthread_mutex_unlock(&in->wlock);
	if (in->reader_ok)
		pthread_join(in->reader, NULL);
	in->reader_ok = 0;
	free(in->fl);
	free(in->fl_ns);
	free(in->fl_next);
	in->fl = NULL;
	in->fl_ns = NULL;
	in->fl_next = NULL;
	in->fl_cap = 0;
	in->fl_free = UINT32_MAX;
}
