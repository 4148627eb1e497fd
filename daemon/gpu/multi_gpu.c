// SPDX-License-Identifier: GPL-2.0
/*
 * raidkmd's "cuda" backend as the daemon uses it: one worker process per
 * GPU of the host, or per entry of --gpus=LIST, each running the CUDA
 * backend (cuda_backend.cu) on its device, behind one struct
 * rkmd_backend_ops.  raidkmd itself never initialises CUDA (even its
 * probe runs in a child): a GPU fault leaves a CUDA context, and so its
 * process, unusable, and it must take down that GPU's worker alone
 * (Documentation/gpu.rst, "One process per GPU").  Workers are started,
 * read and restarted by gpu_supervise.c; this file decides where jobs go
 * and what a failure means for them.
 *
 * Spreading: each job goes to the serving worker with the fewest bytes
 * outstanding (chunk bytes sent and not yet completed), so that every
 * link stays busy whatever the job sizes; ties go round robin.
 *
 * Failures: a worker whose GPU fails (a CUDA error, a trap, a lost
 * device, a hung batch) says so and ends; one that ends without saying
 * so is down all the same.  Its jobs:
 * - queued and never started (-EAGAIN): re-run on another worker;
 * - in a batch that failed (-EIO), or never answered by a worker that is
 *   now reaped: encode, decode and check write every output from the
 *   inputs alone, so they are re-run on another worker; delta adds into
 *   its parity in place, which the failed batch may have done in part,
 *   so it is failed back to the kernel, which codes it on its CPU from
 *   the stripe's own pages;
 * - in a batch that hung (-ETIMEDOUT): failed back to the kernel.
 * No job is ever reported done unless a worker coded it.  With no
 * worker serving, jobs fail back until one is back.  The down worker
 * restarts after a backoff and rejoins.  The state of each instance goes
 * to a status file (multi_state.c) that raidkmctl status shows.
 *
 * Tests: RKMD_GPUS=LIST when no --gpus was given; RKMD_GPUS_TRAP=I:N
 * makes instance I's worker trap on the GPU at its N-th job,
 * RKMD_GPUS_FAIL=I:N fail there as a failed launch would,
 * RKMD_GPUS_HANG=I:N hang there (held on the GPU; its jobs time out after
 * RKMD_CUDA_HANG_MS).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "codec/rkm_codec.h"
#include "rkmd_backend.h"
#include "rkmd_log.h"
#include "gpu_wire.h"
#include "multi_priv.h"

static struct {
	char list[256];
	char state_path[256];
} gcfg;

uint64_t rkg_mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

uint64_t rkg_job_bytes(const struct rkmd_job *j)
{
	return (uint64_t)j->len * j->nstripes * (j->k + j->m);
}

/*
 * "all" (or empty): every visible device; else a comma-separated list of
 * device indices, repeats allowed.  Returns the count (0 for all) or
 * -EINVAL with the reason in why.
 */
int rkmd_gpus_parse(const char *list, int *dev, char *why, size_t whylen)
{
	const char *s = list;
	int n = 0;

	if (!s || !*s || !strcmp(s, "all"))
		return 0;
	while (*s) {
		char *end;
		long v = strtol(s, &end, 10);

		if (end == s || v < 0 || v > 255 || (*end && *end != ',')) {
			snprintf(why, whylen, "bad GPU list '%s' (all, or device numbers such as 0,1)",
				 list);
			return -EINVAL;
		}
		if (n == RKMD_GPUS_MAX) {
			snprintf(why, whylen, "more than %d GPUs in '%s'",
				 RKMD_GPUS_MAX, list);
			return -EINVAL;
		}
		dev[n++] = (int)v;
		s = *end ? end + 1 : end;
		if (*end && !*s) {
			snprintf(why, whylen, "bad GPU list '%s' (trailing comma)",
				 list);
			return -EINVAL;
		}
	}
	return n;
}

int rkmd_gpus_configure(const char *list, const char *state_path,
			char *why, size_t whylen)
{
	int dev[RKMD_GPUS_MAX];

	if (list) {
		if (strlen(list) >= sizeof(gcfg.list)) {
			snprintf(why, whylen, "GPU list too long");
			return -EINVAL;
		}
		if (rkmd_gpus_parse(list, dev, why, whylen) < 0)
			return -EINVAL;
		snprintf(gcfg.list, sizeof(gcfg.list), "%s", list);
	}
	if (state_path) {
		if (strlen(state_path) >= sizeof(gcfg.state_path)) {
			snprintf(why, whylen, "status file path too long");
			return -EINVAL;
		}
		snprintf(gcfg.state_path, sizeof(gcfg.state_path), "%s",
			 state_path);
	}
	return 0;
}

static const char *gpu_list(void)
{
	return gcfg.list[0] ? gcfg.list : getenv("RKMD_GPUS");
}

static int multi_probe(char *why, size_t whylen)
{
	int dev[RKMD_GPUS_MAX], n, i;
	size_t len;

	n = rkg_probe_child(gpu_list(), dev, 1, why, whylen);
	if (n < 0)
		return n;
	len = strlen(why);
	if (n > 1 && len < whylen) {
		snprintf(why + len, whylen - len, "; %d instances on devices ",
			 n);
		for (i = 0; i < n; i++) {
			len = strlen(why);
			snprintf(why + len, whylen - len, "%s%d", i ? "," : "",
				 dev[i]);
		}
	}
	return 0;
}

/*
 * Write the status file now (a change of state, a job re-run or failed
 * back), or when the last write is 1 s old (counters).
 */
void rkg_publish_locked(struct multi *m, int force)
{
	struct rkmd_gpu_state st[RKMD_GPUS_MAX];
	uint64_t now = rkg_mono_ns();
	int i;

	if (!gcfg.state_path[0] ||
	    (!force && now - m->state_ns < 1000000000ull))
		return;
	m->state_ns = now;
	for (i = 0; i < m->n; i++)
		st[i] = m->in[i].st;
	rkmd_gpu_state_write(gcfg.state_path, st, m->n);
}

/* The serving instance with the fewest bytes outstanding; ->lock held */
static struct inst *pick_locked(struct multi *m)
{
	struct inst *best = NULL;
	int t;

	for (t = 0; t < m->n; t++) {
		struct inst *in = &m->in[(m->next + t) % m->n];

		if (in->st.state != RKMD_GPU_UP)
			continue;
		if (!best || in->out_bytes < best->out_bytes)
			best = in;
	}
	m->next++;
	return best;
}

/* Send job to in's worker as job id; 0 or -errno */
static int send_job(struct inst *in, uint32_t id, const struct rkmd_job *j)
{
	const uint64_t nch = (uint64_t)j->nstripes * (j->k + j->m);
	const uint64_t nold = j->op == RKMD_OP_DELTA && j->old ?
			      (uint64_t)j->nstripes * j->k : 0;
	struct rkg_wire_job wj = {
		.op = j->op, .k = j->k, .m = j->m, .len = j->len,
		.nstripes = j->nstripes, .nold = (uint32_t)nold,
		.mask = j->mask, .want = j->op == RKMD_OP_DECODE ? j->want : 0,
	};
	uint64_t *p, i;
	int r;

	p = malloc((nch + nold) * sizeof(*p));
	if (!p)
		return -ENOMEM;
	for (i = 0; i < nch; i++)
		p[i] = (uint64_t)(uintptr_t)j->chunk[i];
	for (i = 0; i < nold; i++)
		p[nch + i] = (uint64_t)(uintptr_t)j->old[i];
	r = rkg_inst_send(in, RKG_MSG_JOB, id, &wj, sizeof(wj), p,
			  (nch + nold) * sizeof(*p));
	free(p);
	return r;
}

/* The fault a test asked for at in's N-th job (RKMD_GPUS_TRAP, ...) */
static void fault_due(struct inst *in)
{
	static const char *const what[] = {
		[RKMD_GPU_TRAP] = "GPU trap (RKMD_GPUS_TRAP)",
		[RKMD_GPU_FAIL] = "launch failure (RKMD_GPUS_FAIL)",
		[RKMD_GPU_HANG] = "hung batch (RKMD_GPUS_HANG)",
		[RKMD_GPU_WITHHOLD] = "withheld completion",
	};

	rkmd_warn("cuda: GPU instance %d: %s injected", in->st.index,
		  what[in->fault]);
	rkg_inst_send(in, RKG_MSG_FAULT, in->fault, NULL, 0, NULL, 0);
}

/*
 * Hand job to a serving worker; the job is already counted in
 * m->outstanding.  0, or -EIO when none serves (the kernel codes it).
 */
static int place(struct multi *m, struct rkmd_job *job)
{
	const uint64_t bytes = rkg_job_bytes(job);

	for (;;) {
		struct inst *in;
		uint32_t id;
		int fault = 0, r;

		pthread_mutex_lock(&m->lock);
		in = pick_locked(m);
		if (!in) {
			pthread_mutex_unlock(&m->lock);
			return -EIO;
		}
		id = rkg_fl_put_locked(in, job);
		if (id == UINT32_MAX) {
			pthread_mutex_unlock(&m->lock);
			return -ENOMEM;
		}
		if (!in->out_bytes) {
			in->done_ns = rkg_mono_ns();
			if (m->stall_ns)	/* the supervisor's tick starts */
				pthread_cond_broadcast(&m->change);
		}
		in->out_bytes += bytes;
		if (in->fault_at && ++in->submitted == in->fault_at)
			fault = 1;
		pthread_mutex_unlock(&m->lock);
		if (fault)
			fault_due(in);
		r = send_job(in, id, job);
		if (!r)
			return 0;
		pthread_mutex_lock(&m->lock);
		if (rkg_fl_take_locked(in, id) != job) {
			/* its reader took it back: it is handled there */
			pthread_mutex_unlock(&m->lock);
			return 0;
		}
		in->out_bytes -= bytes;
		if (r != -ENOMEM)
			rkg_mark_down_locked(in, "its worker's socket failed");
		pthread_mutex_unlock(&m->lock);
		if (r == -ENOMEM)
			return r;
	}
}

static void finish(struct multi *m, struct rkmd_job *job, int status)
{
	m->done(m->ctx, job, status);
	pthread_mutex_lock(&m->lock);
	if (!--m->outstanding)
		pthread_cond_broadcast(&m->idle);
	pthread_mutex_unlock(&m->lock);
}

/* May a job that came back with status run again elsewhere? */
static int may_rerun(const struct rkmd_job *job, int status)
{
	return status == -EAGAIN ||
	       (status == -EIO && job->op != RKMD_OP_DELTA);
}

void rkg_job_back(struct inst *in, struct rkmd_job *job, int status,
		  const int32_t *res, uint32_t nres)
{
	struct multi *m = in->m;
	int down;

	if (!status && job->op == RKMD_OP_CHECK) {
		if (nres == job->nstripes)
			memcpy(job->result, res, nres * sizeof(*res));
		else
			status = -EIO;
	}
	pthread_mutex_lock(&m->lock);
	down = in->st.state != RKMD_GPU_UP;
	if (!status) {
		in->st.jobs++;
		in->st.bytes += rkg_job_bytes(job);
		if (in->fresh)
			rkmd_info("cuda: GPU instance %d coded a job again after restart %llu",
				  in->st.index,
				  (unsigned long long)in->st.restarts);
		in->fresh = 0;
	}
	rkg_publish_locked(m, 0);
	pthread_mutex_unlock(&m->lock);

	if (status && down && may_rerun(job, status) && !place(m, job)) {
		pthread_mutex_lock(&m->lock);
		in->st.reruns++;
		rkg_publish_locked(m, 1);	/* rare: after a fault only */
		pthread_mutex_unlock(&m->lock);
		return;
	}
	if (status && status != -EINVAL) {
		pthread_mutex_lock(&m->lock);
		in->st.failed_back++;
		rkg_publish_locked(m, 1);
		pthread_mutex_unlock(&m->lock);
		/* the kernel codes it on its CPU from the stripe's pages */
		status = status == -ENOMEM ? -ENOMEM : -EIO;
	}
	finish(m, job, status);
}

static void multi_close(struct rkmd_backend *be);

/* RKMD_GPUS_TRAP/FAIL/HANG=I:N: which instance, at which job, what */
static void fault_from_env(struct multi *m)
{
	static const char *const env[] = {
		[RKMD_GPU_TRAP] = "RKMD_GPUS_TRAP",
		[RKMD_GPU_FAIL] = "RKMD_GPUS_FAIL",
		[RKMD_GPU_HANG] = "RKMD_GPUS_HANG",
	};
	unsigned long long at;
	const char *s;
	int k, i;

	for (k = RKMD_GPU_TRAP; k <= RKMD_GPU_HANG; k++) {
		s = getenv(env[k]);
		if (s && sscanf(s, "%d:%llu", &i, &at) == 2 && i >= 0 &&
		    i < m->n) {
			m->in[i].fault_at = at;
			m->in[i].fault = (enum rkmd_gpu_fault)k;
			unsetenv(env[k]);	/* once a process */
			return;
		}
	}
}

static struct multi *multi_alloc(const int *dev, int n, void *base,
				 size_t len, size_t ro_len, int nthreads)
{
	struct multi *m = calloc(1, sizeof(*m));
	pthread_condattr_t ca;
	const char *s;
	int i;

	if (!m)
		return NULL;
	m->n = n;
	pthread_mutex_init(&m->lock, NULL);
	pthread_cond_init(&m->idle, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&m->change, &ca);
	pthread_condattr_destroy(&ca);
	for (i = 0; i < n; i++) {
		struct inst *in = &m->in[i];

		in->m = m;
		in->fd = -1;
		in->fl_free = UINT32_MAX;
		in->backoff_ms = RKG_BACKOFF_MS;
		pthread_mutex_init(&in->wlock, NULL);
		in->st.index = i;
		in->st.device = dev[i];
		in->st.dropped = 1;
		in->args.index = i;
		in->args.dev = dev[i];
		in->args.nthreads = nthreads;
		in->args.base = base;
		in->args.len = len;
		in->args.ro_len = ro_len;
	}
	fault_from_env(m);
	s = getenv("RKMD_GPUS_STALL_MS");
	m->stall_ns = (uint64_t)(s ? strtoul(s, NULL, 10) : RKG_STALL_MS) *
		      1000000ull;
	return m;
}

/* Wait until every first start has an outcome; the number serving */
static int wait_settled(struct multi *m, char *why, size_t whylen)
{
	uint64_t end = rkg_mono_ns() + 120 * 1000000000ull;
	struct timespec ts;
	int i, settled, live = 0;

	pthread_mutex_lock(&m->lock);
	for (;;) {
		settled = 1;
		for (i = 0; i < m->n; i++)
			settled &= m->in[i].settled;
		if (settled || rkg_mono_ns() > end)
			break;
		clock_gettime(CLOCK_MONOTONIC, &ts);
		ts.tv_sec += 1;
		pthread_cond_timedwait(&m->change, &m->lock, &ts);
	}
	for (i = 0; i < m->n; i++) {
		live += m->in[i].st.state == RKMD_GPU_UP;
		if (m->in[i].st.state != RKMD_GPU_UP && m->in[i].st.why[0])
			snprintf(why, whylen, "device %d: %s",
				 m->in[i].st.device, m->in[i].st.why);
	}
	pthread_mutex_unlock(&m->lock);
	return live;
}

static struct rkmd_backend *multi_open(void *base, size_t len, size_t ro_len,
				       int nthreads, rkmd_complete_fn done,
				       void *ctx, char *why, size_t whylen)
{
	int dev[RKMD_GPUS_MAX], n, i, live;
	struct multi *m;
	char w[140];

	n = rkg_probe_child(gpu_list(), dev, 0, why, whylen);
	if (n < 0)
		return NULL;
	m = multi_alloc(dev, n, base, len, ro_len, nthreads);
	if (!m) {
		snprintf(why, whylen, "out of memory");
		return NULL;
	}
	m->done = done;
	m->ctx = ctx;
	for (i = 0; i < n; i++)
		if (rkg_inst_start(&m->in[i], w, sizeof(w))) {
			snprintf(m->in[i].st.why, sizeof(m->in[i].st.why),
				 "no worker: %s", w);
			m->in[i].settled = 1;
		}
	live = wait_settled(m, why, whylen);
	if (!live || rkg_supervisor_start(m)) {
		multi_close((struct rkmd_backend *)m);
		return NULL;
	}
	if (n > 1)
		rkmd_info("cuda: %d of %d GPU workers serving, jobs to the one with the fewest bytes outstanding",
			  live, n);
	return (struct rkmd_backend *)m;
}

/* A chunk the workers may use: inside the arena, 16-byte aligned */
static int ptr_ok(const struct multi *m, const uint8_t *p, uint32_t len)
{
	const uintptr_t a = (uintptr_t)p, lo = (uintptr_t)m->in[0].args.base;
	const size_t size = m->in[0].args.len;

	return p && !(a % 16) && a >= lo && a - lo <= size &&
	       size - (a - lo) >= len;
}

/* Does the mask fit the op? (ENCODE and CHECK ignore it) */
static int mask_ok(const struct rkmd_job *j)
{
	const int n = j->k + j->m;

	if (j->op == RKMD_OP_DECODE)
		return j->mask && !(n < 64 && j->mask >> n) &&
		       __builtin_popcountll(j->mask) <= j->m &&
		       !(j->want & ~j->mask);
	if (j->op == RKMD_OP_DELTA)
		return j->mask && !(j->mask >> j->k);
	return 1;
}

/*
 * Refuse a bad job here, as the CUDA backend would (-EINVAL, no
 * completion), rather than from a worker, later.
 */
static int job_ok(const struct multi *m, const struct rkmd_job *j)
{
	const int n = j->k + j->m;
	uint32_t s;
	int i;

	if (j->op < RKMD_OP_ENCODE || j->op > RKMD_OP_CHECK ||
	    !rkm_geometry_ok(j->k, j->m) || !rkm_len_ok(j->len) ||
	    j->len % 64 || !j->nstripes || !j->chunk || !mask_ok(j) ||
	    (j->op == RKMD_OP_DELTA && !j->old) ||
	    (j->op == RKMD_OP_CHECK && !j->result))
		return 0;
	for (s = 0; s < j->nstripes; s++) {
		for (i = 0; i < n; i++) {
			/*
			 * DELTA: unchanged data chunks may be absent;
			 * DECODE: erased chunks that are not wanted too
			 */
			const uint64_t want = j->want ? j->want : j->mask;
			int used = j->op == RKMD_OP_DELTA ?
				   i >= j->k || (j->mask >> i & 1) :
				   j->op == RKMD_OP_DECODE ?
				   !(j->mask >> i & 1) || (want >> i & 1) : 1;

			if (used && !ptr_ok(m, j->chunk[(size_t)s * n + i],
					    j->len))
				return 0;
			if (j->op == RKMD_OP_DELTA && i < j->k &&
			    (j->mask >> i & 1) &&
			    !ptr_ok(m, j->old[(size_t)s * j->k + i], j->len))
				return 0;
		}
	}
	return 1;
}

static int multi_submit(struct rkmd_backend *be, struct rkmd_job *job)
{
	struct multi *m = (struct multi *)be;
	int r;

	if (!job_ok(m, job))
		return -EINVAL;
	pthread_mutex_lock(&m->lock);
	m->outstanding++;
	pthread_mutex_unlock(&m->lock);
	r = place(m, job);
	if (r) {
		pthread_mutex_lock(&m->lock);
		if (!--m->outstanding)
			pthread_cond_broadcast(&m->idle);
		pthread_mutex_unlock(&m->lock);
	}
	return r;
}

static void multi_drain(struct rkmd_backend *be)
{
	struct multi *m = (struct multi *)be;

	pthread_mutex_lock(&m->lock);
	while (m->outstanding)
		pthread_cond_wait(&m->idle, &m->lock);
	pthread_mutex_unlock(&m->lock);
}

static void log_summary(const struct inst *in)
{
	rkmd_info("cuda: GPU instance %d (device %d): %llu jobs, %llu MiB; %llu faults, %llu restarts; %llu re-run elsewhere, %llu failed back",
		  in->st.index, in->st.device,
		  (unsigned long long)in->st.jobs,
		  (unsigned long long)(in->st.bytes >> 20),
		  (unsigned long long)in->st.faults,
		  (unsigned long long)in->st.restarts,
		  (unsigned long long)in->st.reruns,
		  (unsigned long long)in->st.failed_back);
}

static void multi_close(struct rkmd_backend *be)
{
	struct multi *m = (struct multi *)be;
	int i;

	multi_drain(be);
	rkg_supervisor_stop(m);
	for (i = 0; i < m->n; i++) {
		rkg_inst_stop(&m->in[i]);
		if (m->n > 1)
			log_summary(&m->in[i]);
		pthread_mutex_destroy(&m->in[i].wlock);
	}
	pthread_mutex_lock(&m->lock);
	rkg_publish_locked(m, 1);
	pthread_mutex_unlock(&m->lock);
	pthread_mutex_destroy(&m->lock);
	pthread_cond_destroy(&m->idle);
	pthread_cond_destroy(&m->change);
	free(m);
}

int rkmd_gpus_get(struct rkmd_backend *be, struct rkmd_gpu_state *st,
		  int max)
{
	struct multi *m = (struct multi *)be;
	int i;

	pthread_mutex_lock(&m->lock);
	for (i = 0; i < m->n && i < max; i++)
		st[i] = m->in[i].st;
	pthread_mutex_unlock(&m->lock);
	return i;
}

void rkmd_gpus_inject_fault(struct rkmd_backend *be, int index,
			    enum rkmd_gpu_fault fault)
{
	struct multi *m = (struct multi *)be;

	if (index >= 0 && index < m->n)
		rkg_inst_send(&m->in[index], RKG_MSG_FAULT, fault, NULL, 0,
			      NULL, 0);
}

int rkmd_gpus_wait_up(struct rkmd_backend *be, int index, uint64_t restarts,
		      int ms)
{
	struct multi *m = (struct multi *)be;
	const uint64_t end = rkg_mono_ns() + (uint64_t)ms * 1000000ull;
	struct timespec ts;
	int ok = 0;

	if (index < 0 || index >= m->n)
		return -EINVAL;
	pthread_mutex_lock(&m->lock);
	for (;;) {
		const struct rkmd_gpu_state *s = &m->in[index].st;

		ok = s->state == RKMD_GPU_UP && s->restarts >= restarts;
		if (ok || rkg_mono_ns() > end)
			break;
		clock_gettime(CLOCK_MONOTONIC, &ts);
		ts.tv_nsec += 50 * 1000000;
		if (ts.tv_nsec >= 1000000000l) {
			ts.tv_sec++;
			ts.tv_nsec -= 1000000000l;
		}
		pthread_cond_timedwait(&m->change, &m->lock, &ts);
	}
	pthread_mutex_unlock(&m->lock);
	return ok ? 0 : -ETIMEDOUT;
}

const struct rkmd_backend_ops rkmd_gpus_backend = {
	.name = "cuda",
	.probe = multi_probe,
	.open = multi_open,
	.submit = multi_submit,
	.drain = multi_drain,
	.close = multi_close,
	.decode_want = 1,	/* the workers' CUDA backend honours want */
};
