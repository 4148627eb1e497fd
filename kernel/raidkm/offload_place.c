// SPDX-License-Identifier: GPL-2.0
/*
 * Job placement in the kernel: feeds the rule of place.c with what the
 * dispatcher and the CPU runs measure, and keeps its knobs and counts.
 *
 *   placement (module parameter)	auto, cpu or daemon
 *   struct rkm_job_stats.placement	per array: default (the parameter)
 *					or one of those
 *   /sys/kernel/raidkm/placement_stats	per op and size class: jobs and
 *					bytes coded on each side, the
 *					estimates
 *   /sys/kernel/raidkm/placement_reasons	decisions by side and reason
 *
 * The estimates are one table of plain words read and written once each
 * (place.h); the counts are per CPU, the CPU runs' coding time too
 * (offload_busy.c).  The only shared word written per job is cpu_busy,
 * and only while a daemon is attached (the submitter then takes the
 * dispatcher's spinlock anyway); an auto decision reads the busy share,
 * which offload_busy.c samples at most every 10 ms.
 */
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/percpu.h>
#include <linux/cpumask.h>
#include <linux/random.h>
#include <linux/ktime.h>
#include <linux/preempt.h>
#include <linux/sched/clock.h>
#include "rkm_job.h"
#include "offload.h"
#include "place.h"

/* CPU runs timed while no daemon is attached: one in this many */
#define RKM_PLACE_CPU_SAMPLE	16

static int placement = RKM_PLACE_AUTO;
static struct rkm_place_est est;
static atomic64_t cpu_busy;	/* bytes of placed jobs on the CPUs now */
static bool live;		/* a daemon is attached */

struct rkm_place_tally {
	u64 jobs[RKM_PLACE_NSIDES][RKM_PLACE_NOPS][RKM_PLACE_CLASSES];
	u64 bytes[RKM_PLACE_NSIDES][RKM_PLACE_NOPS][RKM_PLACE_CLASSES];
	u64 why[RKM_PLACE_NSIDES][RKM_PLACE_NWHY];
	u32 tick;
};

static DEFINE_PER_CPU(struct rkm_place_tally, tally);

static int placement_set(const char *val, const struct kernel_param *kp)
{
	int mode = rkm_place_mode_parse(val, 0);

	if (mode < 0)
		return -EINVAL;
	WRITE_ONCE(placement, mode);
	return 0;
}

static int placement_get(char *buf, const struct kernel_param *kp)
{
	return scnprintf(buf, PAGE_SIZE, "%s\n",
			 rkm_place_mode_name(READ_ONCE(placement)));
}

static const struct kernel_param_ops placement_ops = {
	.set = placement_set,
	.get = placement_get,
};

module_param_cb(placement, &placement_ops, NULL, 0644);
MODULE_PARM_DESC(placement,
		 "where jobs are coded while raidkmd is attached: auto (where they finish first), cpu or daemon");

/* The job's place op and bytes; false for jobs placement leaves alone */
bool rkm_place_job_of(const struct rkm_job *job, struct rkm_place_job *pj)
{
	int k, m;

	switch (job->op) {
	case RKM_JOB_ENCODE:
		pj->op = RKM_PLACE_ENCODE;
		break;
	case RKM_JOB_DECODE:
		pj->op = RKM_PLACE_DECODE;
		break;
	case RKM_JOB_DELTA:
		pj->op = RKM_PLACE_DELTA;
		break;
	case RKM_JOB_CHECK:
		pj->op = RKM_PLACE_CHECK;
		break;
	default:
		return false;
	}
	if (!job->code)
		return false;
	k = rkm_code_k(job->code);
	m = rkm_code_m(job->code);
	pj->bytes = rkm_place_bytes(pj->op, k, m, hweight64(job->mask),
				    job->len);
	pj->waited = job->waited;
	return true;
}

static int mode_of(const struct rkm_job *job)
{
	int mode = job->stats ? READ_ONCE(job->stats->placement) :
				RKM_PLACE_DEFAULT;

	if (mode <= RKM_PLACE_DEFAULT || mode >= RKM_PLACE_NMODES)
		mode = READ_ONCE(placement);
	return mode;
}

static void count(const struct rkm_place_job *pj, int side)
{
	int cls = rkm_place_class(pj->bytes);

	this_cpu_inc(tally.jobs[side][pj->op][cls]);
	this_cpu_add(tally.bytes[side][pj->op][cls], pj->bytes);
}

bool rkm_place_to_daemon(const struct rkm_job *job,
			 const struct rkm_place_job *pj, u64 ring_bytes)
{
	u64 now = ktime_get_ns();
	struct rkm_place_load load = {
		.ring_bytes = ring_bytes,
		.cpu_bytes = atomic64_read(&cpu_busy),
		.ncpus = num_online_cpus(),
	};
	int mode = mode_of(job), why, side;
	u32 draw = 1;

	if (mode == RKM_PLACE_AUTO) {
		draw = get_random_u32();
		load.busy_pct = rkm_cpus_busy_pct(now);
	}
	side = rkm_place_decide(&est, mode, pj, &load, draw, now, &why);
	this_cpu_inc(tally.why[side][why]);
	return side == RKM_PLACE_TO_DAEMON;
}

void rkm_place_on_daemon(const struct rkm_place_job *pj)
{
	count(pj, RKM_PLACE_TO_DAEMON);
}

/* Time this CPU run?  Every one while a daemon is attached. */
static bool cpu_timed(void)
{
	return READ_ONCE(live) ||
	       this_cpu_inc_return(tally.tick) % RKM_PLACE_CPU_SAMPLE == 0;
}

/*
 * A CPU run's own time: where the caller may be preempted the codec yields
 * between slices (RKM_RESCHED), and the time the job spent switched out is
 * not the codec's, so a preempt notifier on the running task counts it and
 * the sample leaves it out (elsewhere nothing yields: the wall time is the
 * codec's).  Without preempt notifiers the sample is the run's wall time.
 */
struct cpu_clock {
#ifdef CONFIG_PREEMPT_NOTIFIERS
	struct preempt_notifier pn;
	u64 out_at;		/* local_clock() when switched out */
	bool on;		/* registered on current */
#endif
	u64 off_ns;		/* time switched out so far */
};

#ifdef CONFIG_PREEMPT_NOTIFIERS
static void cpu_clock_in(struct preempt_notifier *pn, int cpu)
{
	struct cpu_clock *c = container_of(pn, struct cpu_clock, pn);
	u64 now = local_clock();

	/* switched back in on another CPU, whose clock may be behind */
	if (now > c->out_at)
		c->off_ns += now - c->out_at;
}

static void cpu_clock_out(struct preempt_notifier *pn,
			  struct task_struct *next)
{
	container_of(pn, struct cpu_clock, pn)->out_at = local_clock();
}

static struct preempt_ops cpu_clock_ops = {
	.sched_in = cpu_clock_in,
	.sched_out = cpu_clock_out,
};

static void cpu_clock_start(struct cpu_clock *c)
{
	c->off_ns = 0;
	c->on = preemptible();
	if (!c->on)
		return;
	preempt_notifier_init(&c->pn, &cpu_clock_ops);
	preempt_notifier_register(&c->pn);
}

static void cpu_clock_stop(struct cpu_clock *c)
{
	if (c->on)
		preempt_notifier_unregister(&c->pn);
}

static void cpu_clock_setup(bool on)
{
	if (on)
		preempt_notifier_inc();
	else
		preempt_notifier_dec();
}
#else
static void cpu_clock_start(struct cpu_clock *c)
{
	c->off_ns = 0;
}

static void cpu_clock_stop(struct cpu_clock *c)
{
}

static void cpu_clock_setup(bool on)
{
}
#endif

void rkm_place_run_cpu(struct rkm_job *job)
{
	struct rkm_place_job pj;
	struct cpu_clock clock;
	bool busy;
	u64 t0, ns;

	if (!rkm_place_job_of(job, &pj)) {
		rkm_job_run_cpu(job);
		return;
	}
	count(&pj, RKM_PLACE_TO_CPU);
	if (!cpu_timed()) {
		rkm_job_run_cpu(job);
		return;
	}
	busy = READ_ONCE(live);
	if (busy)
		atomic64_add(pj.bytes, &cpu_busy);
	cpu_clock_start(&clock);
	t0 = ktime_get_ns();
	rkm_job_run_cpu(job);
	ns = ktime_get_ns() - t0;
	cpu_clock_stop(&clock);
	ns -= min(ns, clock.off_ns);
	rkm_place_cpu_done(&est, pj.op, pj.bytes, ns, ktime_get_ns());
	rkm_cpus_busy_coded(ns);
	if (busy)
		atomic64_sub(pj.bytes, &cpu_busy);
}

void rkm_place_daemon_entry(int op, u64 job_bytes, u32 njobs, u64 ahead,
			    u64 ns, bool failed)
{
	if (failed)
		rkm_place_daemon_failed(&est, op, job_bytes, ktime_get_ns());
	else
		rkm_place_daemon_done(&est, op, job_bytes, job_bytes * njobs,
				      ahead, ns, ktime_get_ns());
}

void rkm_place_daemon_out(int op, u64 job_bytes, u32 njobs, u64 ahead,
			  u64 ns)
{
	rkm_place_daemon_late(&est, op, job_bytes, job_bytes * njobs, ahead,
			      ns, ktime_get_ns());
}

void rkm_place_attached(bool attached)
{
	if (attached)
		rkm_place_daemon_reset(&est);
	WRITE_ONCE(live, attached);
}

void rkm_place_init(u32 cpu_mbs)
{
	rkm_place_cpu_seed(&est, cpu_mbs);
	cpu_clock_setup(true);
}

void rkm_place_exit(void)
{
	cpu_clock_setup(false);
}

int rkm_place_mode(void)
{
	return READ_ONCE(placement);
}

static void add_tally(struct rkm_place_counts *c,
		      const struct rkm_place_tally *t)
{
	int side, op, cls, why;

	for (side = 0; side < RKM_PLACE_NSIDES; side++) {
		for (op = 0; op < RKM_PLACE_NOPS; op++)
			for (cls = 0; cls < RKM_PLACE_CLASSES; cls++) {
				c->jobs[side][op][cls] += t->jobs[side][op][cls];
				c->bytes[side][op][cls] +=
					t->bytes[side][op][cls];
			}
		for (why = 0; why < RKM_PLACE_NWHY; why++)
			c->why[side][why] += t->why[side][why];
	}
}

static void read_cell(struct rkm_place_cell *to,
		      const struct rkm_place_cell *from)
{
	to->cpu_ps = READ_ONCE(from->cpu_ps);
	to->d_ns = READ_ONCE(from->d_ns);
	to->d_ps = READ_ONCE(from->d_ps);
	to->d_qps = READ_ONCE(from->d_qps);
	to->cpu_at = READ_ONCE(from->cpu_at);
	to->d_at = READ_ONCE(from->d_at);
}

void rkm_place_read(struct rkm_place_counts *c)
{
	int cpu, op, cls;

	memset(c, 0, sizeof(*c));
	for_each_possible_cpu(cpu)
		add_tally(c, per_cpu_ptr(&tally, cpu));
	for (op = 0; op < RKM_PLACE_NOPS; op++)
		for (cls = 0; cls < RKM_PLACE_CLASSES; cls++)
			read_cell(&c->cell[op][cls], &est.cell[op][cls]);
}
