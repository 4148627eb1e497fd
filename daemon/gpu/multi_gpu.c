// SPDX-License-Identifier: GPL-2.0
/*
 * raidkmd's "cuda" backend as the daemon uses it: one CUDA backend
 * instance (cuda_backend.cu) per GPU of the host, or per entry of
 * --gpus=LIST, behind the same struct rkmd_backend_ops.
 *
 * Spreading: each job goes to the live instance with the fewest bytes
 * outstanding (chunk bytes submitted and not yet completed), so that
 * every link stays busy whatever the job sizes; ties go round robin.
 *
 * Failures: an instance whose context dies (a CUDA error, a trap, a lost
 * device) or whose batch hangs is dropped for good and logged.  Its jobs:
 * - queued and never started (-EAGAIN): re-run on another instance;
 * - in a batch that failed (-EIO): encode, decode and check write every
 *   output from the inputs alone, so they are re-run on another
 *   instance; delta adds into its parity in place, which the failed
 *   batch may have done in part, so it is failed back to the kernel,
 *   which codes it on its CPU from the stripe's own pages;
 * - in a batch that hung (-ETIMEDOUT): failed back to the kernel (the
 *   GPU may still write them, so nothing else may code them here).
 * With no live instance left every job fails and the core detaches.
 * The state of each instance goes to a status file (multi_state.c) that
 * raidkmctl status shows.
 *
 * Tests: RKMD_GPUS=LIST when no --gpus was given; RKMD_GPUS_TRAP=I:N
 * makes instance I trap on the GPU at its N-th job (which kills every
 * instance on that GPU), RKMD_GPUS_FAIL=I:N fail there as a failed launch
 * would, without a GPU fault (one instance of several on one GPU),
 * RKMD_GPUS_HANG=I:N hang there (held on the GPU until the instance is
 * closed; its jobs time out after RKMD_CUDA_HANG_MS).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "rkmd_backend.h"
#include "rkmd_log.h"
#include "cuda_backend.h"
#include "multi_gpu.h"

struct multi;

struct inst {
	struct multi *m;
	struct rkmd_backend *be;	/* NULL: it did not open */
	struct rkmd_gpu_state st;	/* under m->lock */
	uint64_t out_bytes;		/* submitted, not completed */
	uint64_t submitted;
	uint64_t fault_at;		/* RKMD_GPUS_TRAP/FAIL/HANG: at this job */
	enum rkmd_gpu_fault fault;	/* which */
};

struct multi {
	rkmd_complete_fn done;
	void *ctx;
	pthread_mutex_t lock;
	pthread_cond_t idle;
	uint64_t outstanding;		/* jobs taken, done() not returned */
	unsigned int next;		/* round robin among equals */
	uint64_t state_ns;		/* status file last written */
	int n;
	struct inst in[RKMD_GPUS_MAX];
};

static struct {
	char list[256];
	char state_path[256];
} gcfg;

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + ts.tv_nsec;
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

/* The devices to open: --gpus, else RKMD_GPUS, else every usable one. */
static int device_list(int *dev, char *why, size_t whylen)
{
	const char *list = gcfg.list[0] ? gcfg.list : getenv("RKMD_GPUS");
	char w[256];
	int n, i, cnt;

	n = rkmd_gpus_parse(list, dev, why, whylen);
	if (n < 0)
		return n;
	if (n) {
		for (i = 0; i < n; i++)
			if (rkmd_cuda_probe_dev(dev[i], why, whylen))
				return -ENODEV;
		return n;
	}
	cnt = rkmd_cuda_count(why, whylen);
	if (cnt < 0)
		return cnt;
	for (i = 0; i < cnt && n < RKMD_GPUS_MAX; i++)
		if (!rkmd_cuda_probe_dev(i, w, sizeof(w)))
			dev[n++] = i;
		else
			rkmd_warn("cuda: GPU %d not used: %s", i, w);
	if (!n) {
		snprintf(why, whylen, "no usable CUDA device among %d", cnt);
		return -ENODEV;
	}
	return n;
}

static int multi_probe(char *why, size_t whylen)
{
	int dev[RKMD_GPUS_MAX], n, i;
	size_t len;

	n = device_list(dev, why, whylen);
	if (n < 0)
		return n;
	if (rkmd_cuda_probe_dev(dev[0], why, whylen))
		return -ENODEV;
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

static uint64_t job_bytes(const struct rkmd_job *j)
{
	return (uint64_t)j->len * j->nstripes * (j->k + j->m);
}

/*
 * Write the status file now (a drop, a job re-run or failed back), or
 * when the last write is 1 s old (counters).
 */
static void publish_locked(struct multi *m, int force)
{
	struct rkmd_gpu_state st[RKMD_GPUS_MAX];
	uint64_t now = mono_ns();
	int i;

	if (!gcfg.state_path[0] ||
	    (!force && now - m->state_ns < 1000000000ull))
		return;
	m->state_ns = now;
	for (i = 0; i < m->n; i++)
		st[i] = m->in[i].st;
	rkmd_gpu_state_write(gcfg.state_path, st, m->n);
}

/* Take instance in out of service for good; ->lock held. */
static void drop_locked(struct inst *in, const char *why)
{
	struct multi *m = in->m;
	int i, live = 0;

	if (in->st.dropped)
		return;
	in->st.dropped = 1;
	in->st.dropped_at = time(NULL);
	snprintf(in->st.why, sizeof(in->st.why), "%s", why);
	for (i = 0; i < m->n; i++)
		live += m->in[i].be && !m->in[i].st.dropped;
	rkmd_err("cuda: GPU instance %d (device %d, %s) dropped: %s; %d of %d instances left%s",
		 in->st.index, in->st.device, in->st.where, why, live, m->n,
		 live ? "" : ": every job fails back to the kernel's CPU codec");
	publish_locked(m, 1);
}

/* The live instance with the fewest bytes outstanding; ->lock held. */
static struct inst *pick_locked(struct multi *m)
{
	struct inst *best = NULL;
	int t;

	for (t = 0; t < m->n; t++) {
		struct inst *in = &m->in[(m->next + t) % m->n];

		if (!in->be || in->st.dropped)
			continue;
		if (!best || in->out_bytes < best->out_bytes)
			best = in;
	}
	m->next++;
	return best;
}

/*
 * Hand job to a live instance; the job is already counted in
 * m->outstanding.  0, or the error of the last instance tried (-EIO when
 * none is left).
 */
static int place(struct multi *m, struct rkmd_job *job)
{
	const uint64_t bytes = job_bytes(job);
	char why[200];
	int r;

	for (;;) {
		struct inst *in;
		int fault = 0;

		pthread_mutex_lock(&m->lock);
		in = pick_locked(m);
		if (!in) {
			pthread_mutex_unlock(&m->lock);
			return -EIO;
		}
		in->out_bytes += bytes;
		if (in->fault_at && ++in->submitted == in->fault_at)
			fault = 1;
		pthread_mutex_unlock(&m->lock);
		if (fault) {
			static const char *const what[] = {
				[RKMD_GPU_TRAP] = "GPU trap (RKMD_GPUS_TRAP)",
				[RKMD_GPU_FAIL] = "launch failure (RKMD_GPUS_FAIL)",
				[RKMD_GPU_HANG] = "hung batch (RKMD_GPUS_HANG)",
			};

			rkmd_warn("cuda: GPU instance %d: %s injected",
				  in->st.index, what[in->fault]);
			rkmd_gpus_inject_fault((struct rkmd_backend *)m,
					       in->st.index, in->fault);
		}
		r = rkmd_cuda_backend.submit(in->be, job);
		if (!r)
			return 0;
		pthread_mutex_lock(&m->lock);
		in->out_bytes -= bytes;
		if (r == -EIO && rkmd_cuda_dead(in->be, why, sizeof(why))) {
			drop_locked(in, why);
			pthread_mutex_unlock(&m->lock);
			continue;	/* try the next one */
		}
		pthread_mutex_unlock(&m->lock);
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

/* An instance finished a job (from its completion thread). */
static void inst_done(void *ctx, struct rkmd_job *job, int status)
{
	struct inst *in = ctx;
	struct multi *m = in->m;
	const uint64_t bytes = job_bytes(job);
	char why[200];
	int rerun = 0;

	pthread_mutex_lock(&m->lock);
	in->out_bytes -= bytes;
	if (!status) {
		in->st.jobs++;
		in->st.bytes += bytes;
	} else if (status != -EINVAL && status != -ENOMEM &&
		   rkmd_cuda_dead(in->be, why, sizeof(why))) {
		drop_locked(in, why);
		rerun = status == -EAGAIN ||
			(status == -EIO && job->op != RKMD_OP_DELTA);
	}
	publish_locked(m, 0);
	pthread_mutex_unlock(&m->lock);

	if (rerun && !place(m, job)) {
		pthread_mutex_lock(&m->lock);
		in->st.reruns++;
		publish_locked(m, 1);	/* rare: after a drop only */
		pthread_mutex_unlock(&m->lock);
		return;
	}
	if (status && status != -EINVAL) {
		pthread_mutex_lock(&m->lock);
		in->st.failed_back++;
		publish_locked(m, 1);
		pthread_mutex_unlock(&m->lock);
		/* the kernel codes it on its CPU from the stripe's pages */
		status = status == -ENOMEM ? -ENOMEM : -EIO;
	}
	finish(m, job, status);
}

static void multi_close(struct rkmd_backend *be);

static struct rkmd_backend *multi_open(void *base, size_t len, size_t ro_len,
				       int nthreads, rkmd_complete_fn done,
				       void *ctx, char *why, size_t whylen)
{
	static const char *const fault_env[] = {
		[RKMD_GPU_TRAP] = "RKMD_GPUS_TRAP",
		[RKMD_GPU_FAIL] = "RKMD_GPUS_FAIL",
		[RKMD_GPU_HANG] = "RKMD_GPUS_HANG",
	};
	int dev[RKMD_GPUS_MAX], n, i, j, live = 0, fault_i = -1;
	enum rkmd_gpu_fault kind = RKMD_GPU_TRAP;
	const char *fault = NULL;
	unsigned long long fault_n = 0;
	struct multi *m;
	char w[256];

	n = device_list(dev, why, whylen);
	if (n < 0)
		return NULL;
	for (i = RKMD_GPU_TRAP; i <= RKMD_GPU_HANG && !fault; i++) {
		fault = getenv(fault_env[i]);
		kind = (enum rkmd_gpu_fault)i;
	}
	if (fault && sscanf(fault, "%d:%llu", &fault_i, &fault_n) != 2)
		fault_i = -1;
	m = calloc(1, sizeof(*m));
	if (!m) {
		snprintf(why, whylen, "out of memory");
		return NULL;
	}
	m->done = done;
	m->ctx = ctx;
	m->n = n;
	pthread_mutex_init(&m->lock, NULL);
	pthread_cond_init(&m->idle, NULL);
	for (i = 0; i < n; i++) {
		struct inst *in = &m->in[i];
		int own = 0;

		for (j = 0; j < i; j++)
			own |= dev[j] == dev[i];
		in->m = m;
		in->st.index = i;
		in->st.device = dev[i];
		if (i == fault_i) {
			in->fault_at = fault_n;
			in->fault = kind;
		}
		w[0] = 0;
		in->be = rkmd_cuda_open_dev(dev[i], own, base, len, ro_len,
					    nthreads, inst_done, in, w,
					    sizeof(w));
		if (!in->be) {
			rkmd_err("cuda: GPU instance %d (device %d) did not open: %s",
				 i, dev[i], w);
			in->st.dropped = 1;
			in->st.dropped_at = time(NULL);
			snprintf(in->st.why, sizeof(in->st.why),
				 "did not open: %s", w);
			snprintf(why, whylen, "device %d: %s", dev[i], w);
			continue;
		}
		rkmd_cuda_where(in->be, in->st.where, sizeof(in->st.where));
		rkmd_info("cuda: GPU instance %d: device %d (%s)", i, dev[i],
			  in->st.where);
		live++;
	}
	if (!live) {
		multi_close((struct rkmd_backend *)m);
		return NULL;
	}
	if (n > 1)
		rkmd_info("cuda: %d of %d GPU instances serving, jobs to the one with the fewest bytes outstanding",
			  live, n);
	pthread_mutex_lock(&m->lock);
	publish_locked(m, 1);
	pthread_mutex_unlock(&m->lock);
	return (struct rkmd_backend *)m;
}

static int multi_submit(struct rkmd_backend *be, struct rkmd_job *job)
{
	struct multi *m = (struct multi *)be;
	int r;

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

static void multi_close(struct rkmd_backend *be)
{
	struct multi *m = (struct multi *)be;
	int i;

	multi_drain(be);
	for (i = 0; i < m->n; i++) {
		struct inst *in = &m->in[i];

		if (!in->be)
			continue;
		rkmd_cuda_backend.close(in->be);
		in->be = NULL;
		if (m->n > 1)
			rkmd_info("cuda: GPU instance %d (device %d): %llu jobs, %llu MiB%s%s; %llu re-run elsewhere, %llu failed back",
				  i, in->st.device,
				  (unsigned long long)in->st.jobs,
				  (unsigned long long)(in->st.bytes >> 20),
				  in->st.dropped ? ", dropped: " : "",
				  in->st.dropped ? in->st.why : "",
				  (unsigned long long)in->st.reruns,
				  (unsigned long long)in->st.failed_back);
	}
	pthread_mutex_lock(&m->lock);
	publish_locked(m, 1);
	pthread_mutex_unlock(&m->lock);
	pthread_mutex_destroy(&m->lock);
	pthread_cond_destroy(&m->idle);
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
	struct rkmd_backend *in;

	if (index < 0 || index >= m->n || !m->in[index].be)
		return;
	in = m->in[index].be;
	if (fault == RKMD_GPU_FAIL)
		rkmd_cuda_inject_fail(in);
	else if (fault == RKMD_GPU_HANG)
		rkmd_cuda_inject_hang(in, RKMD_HANG_GPU);
	else if (fault == RKMD_GPU_WITHHOLD)
		rkmd_cuda_inject_hang(in, RKMD_HANG_WITHHOLD);
	else
		rkmd_cuda_inject_trap(in);
}

const struct rkmd_backend_ops rkmd_gpus_backend = {
	.name = "cuda",
	.probe = multi_probe,
	.open = multi_open,
	.submit = multi_submit,
	.drain = multi_drain,
	.close = multi_close,
};
