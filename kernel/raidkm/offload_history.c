// SPDX-License-Identifier: GPL-2.0
/*
 * What an operator asks after the fact (raidkmctl status): how long the
 * daemon took for the ring entries it completed (a log2 histogram of
 * microseconds from posting to completion) and why its last sessions
 * ended (a log of the last RAIDKM_DETACH_LOG detaches, with the reason
 * the dispatcher logged, the jobs re-run and whether it was fenced).
 */
#include <linux/kernel.h>
#include <linux/log2.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <linux/ktime.h>
#include "offload.h"

static atomic64_t lat_hist[RAIDKM_LAT_BUCKETS];

static DEFINE_SPINLOCK(detach_lock);
static struct rkm_detach_rec detach_log[RAIDKM_DETACH_LOG];
static unsigned int detach_next;	/* records ever made */

void rkm_hist_latency(u64 ns)
{
	u64 us = div_u64(ns, NSEC_PER_USEC);
	unsigned int b = us ? ilog2(us) : 0;

	if (b >= RAIDKM_LAT_BUCKETS)
		b = RAIDKM_LAT_BUCKETS - 1;
	atomic64_inc(&lat_hist[b]);
}

void rkm_hist_latency_read(u64 *cnt)
{
	int b;

	for (b = 0; b < RAIDKM_LAT_BUCKETS; b++)
		cnt[b] = atomic64_read(&lat_hist[b]);
}

void rkm_hist_detach(pid_t pid, const char *backend, const char *why,
		     u32 reruns, bool fenced)
{
	struct rkm_detach_rec *r;
	unsigned long flags;

	rkm_stat_inc(RAIDKM_STAT_DETACHES);
	spin_lock_irqsave(&detach_lock, flags);
	r = &detach_log[detach_next++ % RAIDKM_DETACH_LOG];
	r->when = ktime_get_boottime_seconds();
	r->pid = pid;
	strscpy(r->backend, backend, sizeof(r->backend));
	strscpy(r->why, why, sizeof(r->why));
	r->reruns = reruns;
	r->fenced = fenced;
	spin_unlock_irqrestore(&detach_lock, flags);
}

int rkm_hist_detach_read(struct rkm_detach_rec *out)
{
	unsigned long flags;
	unsigned int i, n, first;

	spin_lock_irqsave(&detach_lock, flags);
	n = min_t(unsigned int, detach_next, RAIDKM_DETACH_LOG);
	first = detach_next - n;
	for (i = 0; i < n; i++)
		out[i] = detach_log[(first + i) % RAIDKM_DETACH_LOG];
	spin_unlock_irqrestore(&detach_lock, flags);
	return n;
}
