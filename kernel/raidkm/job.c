// SPDX-License-Identifier: GPL-2.0
/*
 * Coding jobs: the CPU codec runner and the submission entry point.  A
 * job goes to raidkmd when the dispatcher takes it (dispatch.c: a daemon
 * is attached, can take it and placement sends it there), else it is
 * coded here, synchronously, on the in-kernel codec (timed for placement
 * by offload_place.c).
 */
#include <linux/kernel.h>
#include "rkm_job.h"
#include "offload.h"

void rkm_job_run_cpu(struct rkm_job *job)
{
	struct rkm_code *c = job->code;
	int k = rkm_code_k(c);
	u8 *const *chunk = (u8 *const *)job->chunk;

	switch (job->op) {
	case RKM_JOB_ENCODE:
		job->result = rkm_encode(c, job->len, (const u8 *const *)chunk,
					 chunk + k);
		break;
	case RKM_JOB_DECODE:
		job->result = rkm_decode_want(c, job->len, job->mask,
					      rkm_job_want(job), chunk);
		break;
	case RKM_JOB_DELTA:
		job->result = rkm_delta(c, job->len, job->mask,
					(const u8 *const *)job->old,
					(const u8 *const *)chunk, chunk + k);
		break;
	case RKM_JOB_CHECK:
		job->result = rkm_check(c, job->len, (const u8 *const *)chunk,
					job->scratch);
		break;
	case RKM_JOB_LOCATE:
		job->result = rkm_locate(c, job->len, (const u8 *const *)chunk,
					 job->scratch);
		break;
	default:
		job->result = -EINVAL;
	}
}

void rkm_job_submit(struct rkm_job *job)
{
	if (rkm_dispatch_submit(job))
		return;
	rkm_place_run_cpu(job);
	rkm_stat_job(job, RAIDKM_STAT_JOBS_CPU, 1);
	job->done(job);
}
