// SPDX-License-Identifier: GPL-2.0
/*
 * A load generator for the offload path, independent of md: writing N to
 * /sys/kernel/raidkm/selftest (root) submits N coding jobs of a 4+2 code
 * on arena pages through rkm_job_submit(), as the personality does, 16 in
 * flight, in runs of 8 jobs of one shape (encode, decode, delta, check in
 * turn, so the dispatcher batches them), and compares every
 * result with what the CPU codec computed beforehand.  The write returns
 * when every job has completed: -EIO if any result was wrong.  Reading
 * the file reports the last run.  Guest tests use it to drive the
 * dispatcher (offload, deadlines, daemon loss, verify) deterministically.
 */
#include <linux/kernel.h>
#include <linux/slab.h>
#include <linux/mm.h>
#include <linux/random.h>
#include <linux/completion.h>
#include <linux/mutex.h>
#include <linux/sysfs.h>
#include "rkm_job.h"
#include "rkm_arena.h"
#include "offload.h"

#define ST_K		4
#define ST_M		2
#define ST_N		(ST_K + ST_M)
#define ST_DEPTH	16
#define ST_RUN		8	/* consecutive jobs of one shape */
#define ST_LEN		PAGE_SIZE

struct st_job {
	struct rkm_job job;
	struct completion done;
	struct page *pg[ST_N];
	struct page *old[ST_K];
	u8 *ref;		/* expected outputs, ST_N * ST_LEN */
	u8 *scratch;		/* CHECK */
	int expect;		/* CHECK answer */
};

static DEFINE_MUTEX(st_mutex);
static struct rkm_job_stats st_stats;
static char st_report[128] = "never run\n";

static u8 *chunk(struct st_job *j, int i)
{
	return page_address(j->pg[i]);
}

static void st_done(struct rkm_job *job)
{
	struct st_job *j = container_of(job, struct st_job, job);

	complete(&j->done);
}

static void st_free(struct st_job *j)
{
	int i;

	for (i = 0; i < ST_N; i++)
		rkm_arena_free_page(j->pg[i]);
	for (i = 0; i < ST_K; i++)
		rkm_arena_free_page(j->old[i]);
	kfree(j->ref);
	kfree(j->scratch);
}

static int st_alloc(struct st_job *j)
{
	int i;

	memset(j, 0, sizeof(*j));
	for (i = 0; i < ST_N; i++)
		j->pg[i] = rkm_arena_alloc_page(GFP_KERNEL);
	for (i = 0; i < ST_K; i++)
		j->old[i] = rkm_arena_alloc_page(GFP_KERNEL);
	j->ref = kmalloc_array(ST_N, ST_LEN, GFP_KERNEL);
	j->scratch = kmalloc_array(ST_M, ST_LEN, GFP_KERNEL);
	for (i = 0; i < ST_N; i++)
		if (!j->pg[i])
			return -ENOMEM;
	for (i = 0; i < ST_K; i++)
		if (!j->old[i])
			return -ENOMEM;
	return j->ref && j->scratch ? 0 : -ENOMEM;
}

/* Random data, CPU-encoded parity: a codeword in chunks 0..N-1 */
static void st_codeword(struct st_job *j, struct rkm_code *code)
{
	u8 *p[ST_N];
	int i;

	for (i = 0; i < ST_N; i++)
		p[i] = chunk(j, i);
	for (i = 0; i < ST_K; i++)
		get_random_bytes(p[i], ST_LEN);
	rkm_encode(code, ST_LEN, (const u8 *const *)p, p + ST_K);
}

/* Prepare job @seq: inputs in place, expected outputs in j->ref. */
static void st_prepare(struct st_job *j, struct rkm_code *code, u32 seq)
{
	struct rkm_job *job = &j->job;
	u32 grp = seq / ST_RUN;	/* runs of one shape: batched on the ring */
	int i, a, b;

	memset(job, 0, sizeof(*job));
	init_completion(&j->done);
	job->code = code;
	job->len = ST_LEN;
	job->done = st_done;
	job->stats = &st_stats;
	for (i = 0; i < ST_N; i++)
		job->chunk[i] = chunk(j, i);
	st_codeword(j, code);

	switch (grp % 4) {
	case 0:		/* encode: parity from scratch */
		job->op = RKM_JOB_ENCODE;
		memcpy(j->ref, chunk(j, ST_K), ST_LEN);
		memcpy(j->ref + ST_LEN, chunk(j, ST_K + 1), ST_LEN);
		memset(chunk(j, ST_K), 0x5a, ST_LEN);
		memset(chunk(j, ST_K + 1), 0xa5, ST_LEN);
		break;
	case 1:		/* decode two erased chunks, or only the first */
		job->op = RKM_JOB_DECODE;
		a = grp % ST_N;
		b = (a + 1 + (grp / 4) % (ST_N - 1)) % ST_N;
		job->mask = (1ull << a) | (1ull << b);
		for (i = 0; i < ST_N; i++)
			memcpy(j->ref + (size_t)i * ST_LEN, chunk(j, i),
			       ST_LEN);
		memset(chunk(j, a), 0xee, ST_LEN);
		memset(chunk(j, b), 0x11, ST_LEN);
		if ((grp / 4) & 1) {
			/* b unwanted: never touched, its pointer NULL */
			job->want = 1ull << a;
			job->chunk[b] = NULL;
			memset(j->ref + (size_t)b * ST_LEN, 0x11, ST_LEN);
		}
		break;
	case 2: {	/* delta: data chunk a changes */
		u8 *p[ST_N];

		job->op = RKM_JOB_DELTA;
		a = grp % ST_K;
		job->mask = 1ull << a;
		job->old[a] = page_address(j->old[a]);
		memcpy(job->old[a], chunk(j, a), ST_LEN);
		/* the new data's parity, computed aside */
		for (i = 0; i < ST_N; i++)
			p[i] = j->ref + (size_t)i * ST_LEN;
		for (i = 0; i < ST_K; i++)
			memcpy(p[i], chunk(j, i), ST_LEN);
		get_random_bytes(p[a], ST_LEN);
		memcpy(chunk(j, a), p[a], ST_LEN);
		rkm_encode(code, ST_LEN, (const u8 *const *)p, p + ST_K);
		memmove(j->ref, p[ST_K], ST_LEN);
		memmove(j->ref + ST_LEN, p[ST_K + 1], ST_LEN);
		break;
	}
	default:	/* check, every other one corrupted */
		job->op = RKM_JOB_CHECK;
		job->scratch = j->scratch;
		j->expect = seq & 1;
		if (j->expect)
			chunk(j, seq % ST_N)[seq % ST_LEN] ^= 0x42;
		break;
	}
}

static bool st_result_ok(struct st_job *j, u32 seq)
{
	struct rkm_job *job = &j->job;
	int i;

	if (job->op == RKM_JOB_CHECK)
		return job->result == j->expect;
	if (job->result)
		return false;
	if (job->op == RKM_JOB_DECODE) {
		/* an unwanted chunk must still hold its poison (ref) */
		for (i = 0; i < ST_N; i++)
			if (memcmp(chunk(j, i), j->ref + (size_t)i * ST_LEN,
				   ST_LEN))
				return false;
		return true;
	}
	return !memcmp(chunk(j, ST_K), j->ref, ST_LEN) &&
	       !memcmp(chunk(j, ST_K + 1), j->ref + ST_LEN, ST_LEN);
}

int rkm_selftest_run(unsigned int njobs)
{
	unsigned long tmo = msecs_to_jiffies(4 * rkm_deadline_ms()) + 30 * HZ;
	struct rkm_code *code;
	struct st_job *jobs;
	u32 seq = 0, bad = 0;
	int i, n, ret = 0;
	bool hung = false;

	jobs = kcalloc(ST_DEPTH, sizeof(*jobs), GFP_KERNEL);
	code = rkm_code_create(ST_K, ST_M);
	if (!jobs || !code) {
		kfree(jobs);
		if (code)
			rkm_code_destroy(code);
		return -ENOMEM;
	}
	mutex_lock(&st_mutex);
	rkm_job_stats_register(&st_stats, "selftest");
	for (i = 0; i < ST_DEPTH; i++) {
		ret = st_alloc(&jobs[i]);
		if (ret)
			goto out;
	}
	while (seq < njobs && !hung) {
		n = min_t(u32, ST_DEPTH, njobs - seq);
		for (i = 0; i < n; i++)
			st_prepare(&jobs[i], code, seq + i);
		for (i = 0; i < n; i++)
			rkm_job_submit(&jobs[i].job);
		for (i = 0; i < n; i++) {
			if (!wait_for_completion_timeout(&jobs[i].done, tmo)) {
				hung = true;
				break;
			}
			if (!st_result_ok(&jobs[i], seq + i))
				bad++;
		}
		seq += n;
	}
out:
	rkm_job_stats_unregister(&st_stats);
	if (hung) {
		/* A job never completed: its pages cannot be freed. */
		pr_err("raidkm: selftest: a job did not complete\n");
		ret = -ETIMEDOUT;
	} else {
		for (i = 0; i < ST_DEPTH; i++)
			st_free(&jobs[i]);
		kfree(jobs);
	}
	rkm_code_destroy(code);
	if (!ret && bad)
		ret = -EIO;
	snprintf(st_report, sizeof(st_report),
		 "jobs %u wrong %u offloaded %lld cpu %lld reruns %lld\n",
		 seq, bad, atomic64_read(&st_stats.offloaded),
		 atomic64_read(&st_stats.cpu), atomic64_read(&st_stats.reruns));
	mutex_unlock(&st_mutex);
	return ret;
}

ssize_t rkm_selftest_report(char *buf)
{
	ssize_t n;

	mutex_lock(&st_mutex);
	n = sysfs_emit(buf, "%s", st_report);
	mutex_unlock(&st_mutex);
	return n;
}
