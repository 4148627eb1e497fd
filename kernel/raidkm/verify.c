// SPDX-License-Identifier: GPL-2.0
/*
 * Taking and checking raidkmd's results: the outputs of a job the daemon
 * completed are copied from staging into the job's own pages (which the
 * daemon cannot write), then recomputed on the in-kernel CPU codec and
 * compared with those copied bytes: what is checked is what is written.
 *
 *  - Spot check (verify_spot, on by default): every job, one random
 *    window of 1/64 of every output chunk, at least 64 bytes, wrapping
 *    at the chunk's end (CHECK: of the stripe), so each byte is looked
 *    at with the same probability however long the job.
 *  - Full check: every byte, for the first verify_fresh_jobs jobs after
 *    each ATTACH and for a verify_ppm sample of the jobs after that.
 *
 * The codec treats every byte position on its own, so a window of the
 * inputs gives exactly that window of the outputs.  Which jobs are
 * checked in full and where the window lies are chosen here, after the
 * completion arrived, so a daemon cannot tell which of its bytes will be
 * looked at.  A CHECK job's window decides only when it is inconsistent:
 * the stripe is then inconsistent, and a daemon that answered
 * "consistent" lied.
 */
#include <linux/kernel.h>
#include <linux/atomic.h>
#include <linux/ktime.h>
#include <linux/mutex.h>
#include <linux/random.h>
#include <linux/string.h>
#include "rkm_job.h"
#include "offload.h"

#define RKM_SPOT_LEN	RKM_LEN_ALIGN	/* spot check window: its unit */
#define RKM_SPOT_SHARE	64		/* ... and 1/RKM_SPOT_SHARE of a job */
#define RKM_FULL_STEP	1024		/* bytes per codec call, full check */

/* verify_lock: the session's count of fresh jobs and the scratch below */
static DEFINE_MUTEX(verify_lock);
static u32 fresh_left;
static u8 vbuf[RKM_MAX_M * RKM_FULL_STEP];
static u8 *vout[RKM_MAX_N];
static const u8 *vin[RKM_MAX_N];
static const u8 *vold[RKM_MAX_K];

/* Checks made and the time they took, per scope (sysfs: their cost) */
static atomic64_t nchecks[RKM_VERIFY_FULL + 1];
static atomic64_t nsecs[RKM_VERIFY_FULL + 1];

void rkm_verify_counts(enum rkm_verify_scope scope, u64 *checks, u64 *ns)
{
	*checks = atomic64_read(&nchecks[scope]);
	*ns = atomic64_read(&nsecs[scope]);
}

void rkm_verify_attach(void)
{
	mutex_lock(&verify_lock);
	fresh_left = rkm_verify_fresh_jobs();
	mutex_unlock(&verify_lock);
}

/* How much of the next completed job to recompute.  verify_lock held. */
static enum rkm_verify_scope pick_scope(void)
{
	unsigned int ppm = rkm_verify_ppm();

	if (fresh_left) {
		fresh_left--;
		return RKM_VERIFY_FULL;
	}
	if (ppm >= 1000000 || (ppm && get_random_u32_below(1000000) < ppm))
		return RKM_VERIFY_FULL;
	return rkm_verify_spot() ? RKM_VERIFY_SPOT : RKM_VERIFY_NONE;
}

/*
 * The chunk index of a job's j-th output: parity for ENCODE and DELTA,
 * the wanted erased chunks in ascending order for DECODE.
 */
static int job_out_index(u8 op, const struct rkm_job *job, int j)
{
	u64 want = rkm_job_want(job);
	int i;

	if (op != RAIDKM_OP_DECODE)
		return rkm_code_k(job->code) + j;
	for (i = 0; i < RKM_MAX_N; i++)
		if ((want & BIT_ULL(i)) && j-- == 0)
			return i;
	return 0;
}

u8 *rkm_job_out(u8 op, const struct rkm_job *job, int j)
{
	return job->chunk[job_out_index(op, job, j)];
}

int rkm_job_nout(u8 op, const struct rkm_job *job)
{
	if (op == RAIDKM_OP_CHECK)
		return 0;
	if (op == RAIDKM_OP_DECODE)
		return hweight64(rkm_job_want(job));
	return rkm_code_m(job->code);
}

/*
 * Where output j lies in staging: DECODE's staged chunks are @staged_set
 * in ascending order (the wanted ones, or every erased one for a daemon
 * without RAIDKM_FEAT_DECODE_WANT); other ops stage output j at j.
 */
static const u8 *staged_out(u8 op, const struct rkm_job *job,
			    const u8 *staged, u64 staged_set, int j)
{
	int i = job_out_index(op, job, j);

	if (op == RAIDKM_OP_DECODE)
		j = hweight64(staged_set & (BIT_ULL(i) - 1));
	return staged + (size_t)j * job->len;
}

/* @p + @off; NULL stays NULL (chunks a DELTA job does not use) */
static const u8 *at(const void *p, u32 off)
{
	return p ? (const u8 *)p + off : NULL;
}

/*
 * Recompute bytes [off, off + n) of the job's outputs into vbuf (output j
 * at j * n) from its inputs (DELTA: from the parity in the stripe's pages,
 * which must not be overwritten yet at that window); CHECK returns 1 when
 * that window of the stripe is inconsistent.  Returns the codec's answer
 * (negative: the CPU cannot tell).  verify_lock held.
 */
static int window_expect(u8 op, const struct rkm_job *job, u32 off, u32 n)
{
	struct rkm_code *c = job->code;
	int k = rkm_code_k(c), m = rkm_code_m(c), i, e = 0;

	switch (op) {
	case RAIDKM_OP_ENCODE:
		for (i = 0; i < k; i++)
			vin[i] = at(job->chunk[i], off);
		for (i = 0; i < m; i++)
			vout[i] = vbuf + i * n;
		return rkm_encode(c, n, vin, vout);
	case RAIDKM_OP_DECODE:
		for (i = 0; i < k + m; i++) {
			if (!(job->mask & BIT_ULL(i)))
				vout[i] = (u8 *)at(job->chunk[i], off);
			else if (rkm_job_want(job) & BIT_ULL(i))
				vout[i] = vbuf + (e++) * n;
			else
				vout[i] = NULL;
		}
		return rkm_decode_want(c, n, job->mask, rkm_job_want(job),
				       vout);
	case RAIDKM_OP_DELTA:
		for (i = 0; i < m; i++) {
			vout[i] = vbuf + i * n;
			memcpy(vout[i], job->chunk[k + i] + off, n);
		}
		for (i = 0; i < k; i++) {
			vin[i] = at(job->chunk[i], off);
			vold[i] = at(job->old[i], off);
		}
		return rkm_delta(c, n, job->mask, vold, vin, vout);
	case RAIDKM_OP_CHECK:
		for (i = 0; i < k + m; i++)
			vin[i] = at(job->chunk[i], off);
		return rkm_check(c, n, vin, vbuf);
	}
	return -EINVAL;
}

/* Do the daemon's outputs hold vbuf's bytes at [off, off + n)? */
static bool window_same(u8 op, const struct rkm_job *job, u32 off, u32 n)
{
	int j;

	for (j = 0; j < rkm_job_nout(op, job); j++)
		if (memcmp(rkm_job_out(op, job, j) + off, vbuf + j * n, n))
			return false;
	return true;
}

/* Copy bytes [off, off + n) of every staged output into the job's pages */
static void window_take(u8 op, struct rkm_job *job, const u8 *staged,
			u64 sset, u32 off, u32 n)
{
	int j;

	for (j = 0; j < rkm_job_nout(op, job); j++)
		rkm_stage_copy(rkm_job_out(op, job, j) + off,
			       staged_out(op, job, staged, sset, j) + off, n);
}

/*
 * [off, off + n) of the outputs: after a mismatch, the CPU's bytes
 * (recomputed from inputs the daemon cannot write, DELTA's parity still
 * untouched there); else the daemon's.  verify_lock held.
 */
static void window_fill(u8 op, struct rkm_job *job, const u8 *staged,
			u64 sset, u32 off, u32 n, bool cpu)
{
	u32 step;
	int j;

	if (!cpu) {
		window_take(op, job, staged, sset, off, n);
		return;
	}
	for (; n; off += step, n -= step) {
		step = min_t(u32, n, RKM_FULL_STEP);
		window_expect(op, job, off, step);
		for (j = 0; j < rkm_job_nout(op, job); j++)
			memcpy(rkm_job_out(op, job, j) + off, vbuf + j * step,
			       step);
	}
}

/*
 * Check window [off, off + n) and take it: its expected bytes are computed
 * before the window is overwritten (DELTA reads the old parity there),
 * then the staged bytes are copied and compared where they now lie.  A
 * wrong window gets the CPU's bytes.  Returns false when it was wrong.
 */
static bool window_check(u8 op, struct rkm_job *job, const u8 *staged,
			 u64 sset, u32 off, u32 n, int *bad)
{
	int r, j;

	r = window_expect(op, job, off, n);
	if (op == RAIDKM_OP_CHECK) {
		if (r > 0)
			*bad = 1;
		return true;
	}
	window_take(op, job, staged, sset, off, n);
	if (r < 0 || window_same(op, job, off, n))
		return true;
	for (j = 0; j < rkm_job_nout(op, job); j++)
		memcpy(rkm_job_out(op, job, j) + off, vbuf + j * n, n);
	return false;
}

/*
 * Check and take [off, off + n) in steps the scratch holds; once a step
 * was wrong the rest gets the CPU's bytes.  Returns false when one was.
 */
static bool range_check(u8 op, struct rkm_job *job, const u8 *staged,
			u64 sset, u32 off, u32 n, bool same, int *bad)
{
	u32 step;

	for (; n; off += step, n -= step) {
		step = min_t(u32, n, RKM_FULL_STEP);
		if (same)
			same = window_check(op, job, staged, sset, off, step,
					    bad);
		else
			window_fill(op, job, staged, sset, off, step, true);
	}
	return same;
}

/* The spot window of a job of @len bytes: 1/64 of it, whole units */
static u32 spot_len(u32 len)
{
	return max_t(u32, RKM_SPOT_LEN,
		     rounddown(len / RKM_SPOT_SHARE, RKM_SPOT_LEN));
}

/*
 * The spot check: a window of spot_len() bytes from a random unit,
 * wrapping at the end, so that every byte of a job is covered with the
 * same probability.  The window first, while everything else is
 * untouched (DELTA reads the old parity there), then the rest, from the
 * daemon or, after a wrong window, from the CPU.
 */
static bool spot_check(u8 op, struct rkm_job *job, const u8 *staged,
		       u64 sset, int *bad)
{
	u32 len = job->len, w = spot_len(len), off, end;
	bool same;

	off = get_random_u32_below(len / RKM_SPOT_LEN) * RKM_SPOT_LEN;
	end = min(len, off + w);
	same = range_check(op, job, staged, sset, off, end - off, true, bad);
	w -= end - off;		/* what wraps to the start */
	same = range_check(op, job, staged, sset, 0, w, same, bad);
	if (op == RAIDKM_OP_CHECK)
		return same;
	window_fill(op, job, staged, sset, w, off - w, !same);
	window_fill(op, job, staged, sset, end, len - end, !same);
	return same;
}

bool rkm_verify_commit(u8 op, struct rkm_job *job, const u8 *staged,
		       u64 sset, enum rkm_verify_scope *scope, u64 *ns)
{
	u32 len = job->len;
	bool same = true;
	int bad = 0;
	u64 t0;

	mutex_lock(&verify_lock);
	*scope = pick_scope();
	*ns = 0;
	t0 = ktime_get_ns();
	switch (*scope) {
	case RKM_VERIFY_NONE:
		if (op != RAIDKM_OP_CHECK)
			window_take(op, job, staged, sset, 0, len);
		mutex_unlock(&verify_lock);
		return true;
	case RKM_VERIFY_SPOT:
		same = spot_check(op, job, staged, sset, &bad);
		break;
	default:
		same = range_check(op, job, staged, sset, 0, len, true, &bad);
		break;
	}
	atomic64_inc(&nchecks[*scope]);
	*ns = ktime_get_ns() - t0;
	atomic64_add(*ns, &nsecs[*scope]);
	mutex_unlock(&verify_lock);
	if (op != RAIDKM_OP_CHECK)
		return same;
	/* A consistent window says nothing about the rest of the stripe. */
	if (*scope == RKM_VERIFY_SPOT)
		return !bad || job->result;
	return bad == job->result;
}

static int advise_array(void *arg, const char *name, const u64 *cnt)
{
	if (cnt[RAIDKM_STAT_JOBS_OFFLOADED])
		pr_err("raidkm: %s: %llu jobs were coded by a daemon: echo check > /sys/block/%s/md/sync_action\n",
		       name, cnt[RAIDKM_STAT_JOBS_OFFLOADED], name);
	return 0;
}

void rkm_verify_advise(pid_t pid, const char *backend)
{
	pr_err("raidkm: earlier results of daemon pid %d (%s) were not all checked in full and may be on disk: run a parity check ('echo check > /sys/block/mdX/md/sync_action', then 'repair' if mismatch_cnt is not 0) on every array it served\n",
	       pid, backend);
	rkm_job_stats_each(advise_array, NULL);
}

const char *rkm_verify_scope_name(enum rkm_verify_scope scope)
{
	switch (scope) {
	case RKM_VERIFY_SPOT:
		return "spot check";
	case RKM_VERIFY_FULL:
		return "full check";
	default:
		return "no check";
	}
}
