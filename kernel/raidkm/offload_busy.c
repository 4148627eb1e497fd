// SPDX-License-Identifier: GPL-2.0
/*
 * How busy the CPUs are with other work, for placement (place.h's
 * busy_pct): the share of the online CPUs' time lately not spent idle,
 * waiting for I/O or coding placed jobs, from the per-CPU counters NO_HZ
 * keeps (get_cpu_idle_time_us(), get_cpu_iowait_time_us()) less the CPU
 * runs' own time (rkm_cpus_busy_coded(): the CPU side's queue is already
 * in its estimate, as cpu_bytes).  A decision samples them at most once
 * each RKM_BUSY_PERIOD_NS; each sample moves the average a quarter of the
 * way.  Where the kernel keeps no such counters the share stays 0
 * (unknown).
 */
#include <linux/kernel.h>
#include <linux/cpumask.h>
#include <linux/spinlock.h>
#include <linux/percpu.h>
#include <linux/tick.h>
#include "offload.h"

#define RKM_BUSY_PERIOD_NS	(10 * NSEC_PER_MSEC)

static struct {
	spinlock_t lock;	/* one sampler at a time */
	u64 at;			/* ns of the last sample */
	u64 idle_us;		/* the CPUs' idle + iowait time then */
	u64 coded_ns;		/* placed jobs' coding time then */
	unsigned int ncpus;	/* online then */
	u32 pct;		/* the average */
} busy = {
	.lock = __SPIN_LOCK_UNLOCKED(busy.lock),
};

/* placed jobs' coding time on each CPU, all told (no shared write) */
static DEFINE_PER_CPU(u64, coded_ns);

void rkm_cpus_busy_coded(u64 ns)
{
	this_cpu_add(coded_ns, ns);
}

/* every CPU's coding time: possible CPUs, so the sum never goes back */
static u64 cpus_coded_ns(void)
{
	u64 sum = 0;
	int cpu;

	for_each_possible_cpu(cpu)
		sum += READ_ONCE(*per_cpu_ptr(&coded_ns, cpu));
	return sum;
}

/* The online CPUs' idle and iowait time in us, or U64_MAX: unknown */
static u64 cpus_idle_us(unsigned int *ncpus)
{
	u64 sum = 0, t;
	int cpu;

	*ncpus = 0;
	for_each_online_cpu(cpu) {
		t = get_cpu_idle_time_us(cpu, NULL);
		if (t == (u64)-1)
			return U64_MAX;
		sum += t;
		t = get_cpu_iowait_time_us(cpu, NULL);
		if (t != (u64)-1)
			sum += t;
		(*ncpus)++;
	}
	return sum;
}

/* The share of the last period the CPUs were busy with other work */
static u32 busy_sample(u64 idle_us, u64 coded, unsigned int ncpus, u64 now)
{
	u64 wall_us = (now - busy.at) / NSEC_PER_USEC * ncpus;
	u64 idle = idle_us - busy.idle_us;
	u64 own = (coded - busy.coded_ns) / NSEC_PER_USEC;

	if (!wall_us || idle_us < busy.idle_us || ncpus != busy.ncpus)
		return busy.pct;
	return rkm_place_busy_share(wall_us, idle, own);
}

u32 rkm_cpus_busy_pct(u64 now)
{
	unsigned long flags;
	unsigned int ncpus;
	u64 idle_us, coded;
	u32 pct;

	if (now - READ_ONCE(busy.at) < RKM_BUSY_PERIOD_NS ||
	    !spin_trylock_irqsave(&busy.lock, flags))
		return READ_ONCE(busy.pct);
	idle_us = cpus_idle_us(&ncpus);
	if (idle_us == U64_MAX) {
		WRITE_ONCE(busy.at, now);
		spin_unlock_irqrestore(&busy.lock, flags);
		return 0;
	}
	coded = cpus_coded_ns();
	pct = busy.at ? busy_sample(idle_us, coded, ncpus, now) : 0;
	WRITE_ONCE(busy.pct, (3 * busy.pct + pct) / 4);
	busy.idle_us = idle_us;
	busy.coded_ns = coded;
	busy.ncpus = ncpus;
	WRITE_ONCE(busy.at, now);
	spin_unlock_irqrestore(&busy.lock, flags);
	return READ_ONCE(busy.pct);
}
