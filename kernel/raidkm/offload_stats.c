// SPDX-License-Identifier: GPL-2.0
/*
 * Offload counters: global (indexed by the uapi's RAIDKM_STAT_*) and per
 * array (struct rkm_job_stats, registered by the personality).
 */
#include <linux/kernel.h>
#include <linux/mutex.h>
#include <linux/string.h>
#include "rkm_job.h"
#include "offload.h"

atomic64_t rkm_stats[__RAIDKM_STAT_MAX];

static LIST_HEAD(rkm_array_stats);
static DEFINE_MUTEX(rkm_array_stats_lock);

static atomic64_t *array_counter(struct rkm_job_stats *s, int stat)
{
	switch (stat) {
	case RAIDKM_STAT_JOBS_OFFLOADED:
		return &s->offloaded;
	case RAIDKM_STAT_JOBS_CPU:
		return &s->cpu;
	case RAIDKM_STAT_DEADLINE_MISSES:
		return &s->deadline_misses;
	case RAIDKM_STAT_RERUNS:
		return &s->reruns;
	case RAIDKM_STAT_VERIFY_MISMATCHES:
		return &s->verify_mismatches;
	case RAIDKM_STAT_BYTES_OFFLOADED:
		return &s->bytes_offloaded;
	default:
		return NULL;
	}
}

void rkm_stat_job(const struct rkm_job *job, int stat, u64 v)
{
	atomic64_t *a;

	atomic64_add(v, &rkm_stats[stat]);
	if (job->stats) {
		a = array_counter(job->stats, stat);
		if (a)
			atomic64_add(v, a);
	}
}

void rkm_job_stats_read(const struct rkm_job_stats *s, u64 *cnt)
{
	struct rkm_job_stats *w = (struct rkm_job_stats *)s;
	int i;

	for (i = 0; i < __RAIDKM_STAT_MAX; i++) {
		atomic64_t *a = array_counter(w, i);

		cnt[i] = a ? atomic64_read(a) : 0;
	}
}

void rkm_job_stats_register(struct rkm_job_stats *s, const char *name)
{
	atomic64_set(&s->offloaded, 0);
	atomic64_set(&s->cpu, 0);
	atomic64_set(&s->deadline_misses, 0);
	atomic64_set(&s->reruns, 0);
	atomic64_set(&s->verify_mismatches, 0);
	atomic64_set(&s->bytes_offloaded, 0);
	strscpy(s->name, name, sizeof(s->name));
	mutex_lock(&rkm_array_stats_lock);
	list_add_tail(&s->node, &rkm_array_stats);
	mutex_unlock(&rkm_array_stats_lock);
}

void rkm_job_stats_unregister(struct rkm_job_stats *s)
{
	mutex_lock(&rkm_array_stats_lock);
	list_del_init(&s->node);
	mutex_unlock(&rkm_array_stats_lock);
}

int rkm_job_stats_each(int (*fn)(void *arg, const char *name,
				 const u64 *cnt), void *arg)
{
	u64 cnt[__RAIDKM_STAT_MAX];
	struct rkm_job_stats *s;
	int ret = 0;

	mutex_lock(&rkm_array_stats_lock);
	list_for_each_entry(s, &rkm_array_stats, node) {
		rkm_job_stats_read(s, cnt);
		ret = fn(arg, s->name, cnt);
		if (ret)
			break;
	}
	mutex_unlock(&rkm_array_stats_lock);
	return ret;
}
