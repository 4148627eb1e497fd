// SPDX-License-Identifier: GPL-2.0
/*
 * Coding job dispatch.  Every job runs on the in-kernel CPU codec; the
 * offload path hooks in here to route jobs to raidkmd.
 */
#include <linux/kernel.h>
#include "rkm_job.h"

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
		job->result = rkm_decode(c, job->len, job->mask, chunk);
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
	rkm_job_run_cpu(job);
	job->done(job);
}
