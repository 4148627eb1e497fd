// SPDX-License-Identifier: GPL-2.0
/*
 * Visibility and knobs of the offload path.
 *
 *   /sys/kernel/raidkm/		daemon_pid, daemon_backend, daemon_state,
 *				jobs_in_flight,
 *				the global counters (one file each), the
 *				result checks made and their time, arena
 *				(single pages and runs) and staging
 *				page counts, staging copies
 *				and their time, selftest
 *				(offload_selftest.c), placement_stats
 *				and placement_reasons (offload_place.c)
 *   /sys/module/raidkm/parameters/	deadline_ms, verify_spot,
 *				verify_fresh_jobs, verify_ppm (writable,
 *				validated: a bad value is refused with
 *				-EINVAL and changes nothing), arena_mb,
 *				stage_mb
 */
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/kobject.h>
#include <linux/sysfs.h>
#include <linux/slab.h>
#include "offload.h"

#define RKM_DEADLINE_MIN_MS	1
#define RKM_DEADLINE_MAX_MS	60000
#define RKM_PPM_MAX		1000000
#define RKM_FRESH_MAX		100000000

static unsigned int deadline_ms = 50;
/*
 * Checks of the daemon's results (verify.c), on by default: a backend
 * that codes wrong, always or now and then, is caught and dropped early.
 * Documentation/offload.rst gives what each one catches and what it
 * costs.
 */
static unsigned int verify_spot = 1;
static unsigned int verify_fresh_jobs = 1024;
static unsigned int verify_ppm = 10000;

static int set_bounded(const char *val, unsigned int *p, unsigned int lo,
		       unsigned int hi)
{
	unsigned int v;

	if (kstrtouint(val, 0, &v) || v < lo || v > hi)
		return -EINVAL;
	WRITE_ONCE(*p, v);
	return 0;
}

static int deadline_set(const char *val, const struct kernel_param *kp)
{
	int ret = set_bounded(val, kp->arg, RKM_DEADLINE_MIN_MS,
			      RKM_DEADLINE_MAX_MS);

	if (!ret)
		rkm_dispatch_deadline_changed();
	return ret;
}

static int ppm_set(const char *val, const struct kernel_param *kp)
{
	return set_bounded(val, kp->arg, 0, RKM_PPM_MAX);
}

static int spot_set(const char *val, const struct kernel_param *kp)
{
	return set_bounded(val, kp->arg, 0, 1);
}

static int fresh_set(const char *val, const struct kernel_param *kp)
{
	return set_bounded(val, kp->arg, 0, RKM_FRESH_MAX);
}

static const struct kernel_param_ops deadline_ops = {
	.set = deadline_set,
	.get = param_get_uint,
};

static const struct kernel_param_ops ppm_ops = {
	.set = ppm_set,
	.get = param_get_uint,
};

static const struct kernel_param_ops spot_ops = {
	.set = spot_set,
	.get = param_get_uint,
};

static const struct kernel_param_ops fresh_ops = {
	.set = fresh_set,
	.get = param_get_uint,
};

module_param_cb(deadline_ms, &deadline_ops, &deadline_ms, 0644);
MODULE_PARM_DESC(deadline_ms,
		 "ms an offloaded job may take before the CPU takes over and the daemon is dropped (1-60000)");
module_param_cb(verify_spot, &spot_ops, &verify_spot, 0644);
MODULE_PARM_DESC(verify_spot,
		 "1: recompute a random 64-byte window of every offloaded result on the CPU (0-1, default 1)");
module_param_cb(verify_fresh_jobs, &fresh_ops, &verify_fresh_jobs, 0644);
MODULE_PARM_DESC(verify_fresh_jobs,
		 "offloaded results re-checked in full on the CPU after each attach (0-100000000, default 1024)");
module_param_cb(verify_ppm, &ppm_ops, &verify_ppm, 0644);
MODULE_PARM_DESC(verify_ppm,
		 "offloaded results re-checked in full on the CPU after those, per million (0-1000000, default 10000)");

unsigned int rkm_deadline_ms(void)
{
	return READ_ONCE(deadline_ms);
}

unsigned int rkm_verify_ppm(void)
{
	return READ_ONCE(verify_ppm);
}

unsigned int rkm_verify_fresh_jobs(void)
{
	return READ_ONCE(verify_fresh_jobs);
}

bool rkm_verify_spot(void)
{
	return READ_ONCE(verify_spot);
}

/* ---- /sys/kernel/raidkm ------------------------------------------------ */

static struct kobject *rkm_kobj;

static ssize_t daemon_pid_show(struct kobject *kobj,
			       struct kobj_attribute *attr, char *buf)
{
	struct rkm_daemon_info di;

	rkm_dispatch_info(&di);
	return sysfs_emit(buf, "%d\n", di.attached ? di.pid : 0);
}

static ssize_t daemon_backend_show(struct kobject *kobj,
				   struct kobj_attribute *attr, char *buf)
{
	struct rkm_daemon_info di;

	rkm_dispatch_info(&di);
	return sysfs_emit(buf, "%s\n", di.attached ? di.backend : "none");
}

static ssize_t daemon_state_show(struct kobject *kobj,
				 struct kobj_attribute *attr, char *buf)
{
	struct rkm_daemon_info di;

	rkm_dispatch_info(&di);
	return sysfs_emit(buf, "%s\n", di.state);
}

static ssize_t jobs_in_flight_show(struct kobject *kobj,
				   struct kobj_attribute *attr, char *buf)
{
	struct rkm_daemon_info di;

	rkm_dispatch_info(&di);
	return sysfs_emit(buf, "%u\n", di.inflight);
}

static ssize_t arena_show(struct kobject *kobj, struct kobj_attribute *attr,
			  char *buf)
{
	const char *name = attr->attr.name;
	u64 total, free, fallbacks;

	if (!strncmp(name, "arena_run_", 10)) {
		rkm_arena_run_counts(&total, &free, &fallbacks);
		name += 10;
	} else {
		rkm_arena_counts(&total, &free, &fallbacks);
		name += 6;
	}
	if (!strcmp(name, "pages"))
		return sysfs_emit(buf, "%llu\n", total);
	if (!strcmp(name, "free_pages"))
		return sysfs_emit(buf, "%llu\n", free);
	return sysfs_emit(buf, "%llu\n", fallbacks);
}

static ssize_t stage_show(struct kobject *kobj, struct kobj_attribute *attr,
			  char *buf)
{
	const char *name = attr->attr.name;
	u64 total, free, held, fallbacks, bytes, ns;

	rkm_stage_counts(&total, &free, &held, &fallbacks, &bytes, &ns);
	if (!strcmp(name, "stage_pages"))
		return sysfs_emit(buf, "%llu\n", total);
	if (!strcmp(name, "stage_free_pages"))
		return sysfs_emit(buf, "%llu\n", free);
	if (!strcmp(name, "stage_held_pages"))
		return sysfs_emit(buf, "%llu\n", held);
	if (!strcmp(name, "stage_fallbacks"))
		return sysfs_emit(buf, "%llu\n", fallbacks);
	if (!strcmp(name, "stage_copy_bytes"))
		return sysfs_emit(buf, "%llu\n", bytes);
	return sysfs_emit(buf, "%llu\n", ns);
}

static ssize_t verify_show(struct kobject *kobj, struct kobj_attribute *attr,
			   char *buf)
{
	const char *name = attr->attr.name;
	enum rkm_verify_scope scope;
	u64 checks, ns;

	scope = strstr(name, "spot") ? RKM_VERIFY_SPOT : RKM_VERIFY_FULL;
	rkm_verify_counts(scope, &checks, &ns);
	return sysfs_emit(buf, "%llu\n", strstr(name, "_ns") ? ns : checks);
}

/*
 * One line per op and size class: "OP CLASS cpu JOBS BYTES daemon JOBS
 * BYTES est cpu_ps PS daemon_ns NS daemon_ps PS daemon_qps PS" (0: not
 * measured).
 */
static ssize_t placement_stats_show(struct kobject *kobj,
				    struct kobj_attribute *attr, char *buf)
{
	struct rkm_place_counts *c = kmalloc(sizeof(*c), GFP_KERNEL);
	const int cs = RKM_PLACE_TO_CPU, ds = RKM_PLACE_TO_DAEMON;
	const struct rkm_place_cell *e;
	ssize_t n = 0;
	int op, cls;

	if (!c)
		return -ENOMEM;
	rkm_place_read(c);
	for (op = 0; op < RKM_PLACE_NOPS; op++)
		for (cls = 0; cls < RKM_PLACE_CLASSES; cls++) {
			e = &c->cell[op][cls];
			n += sysfs_emit_at(buf, n,
					   "%s %s cpu %llu %llu daemon %llu %llu est cpu_ps %u daemon_ns %u daemon_ps %u daemon_qps %u\n",
					   rkm_place_op_name(op),
					   rkm_place_class_name(cls),
					   c->jobs[cs][op][cls],
					   c->bytes[cs][op][cls],
					   c->jobs[ds][op][cls],
					   c->bytes[ds][op][cls],
					   e->cpu_ps, e->d_ns, e->d_ps, e->d_qps);
		}
	kfree(c);
	return n;
}

static const char *const place_why_names[RKM_PLACE_NWHY] = {
	[RKM_PLACE_WHY_FORCED] = "forced",
	[RKM_PLACE_WHY_COST] = "cost",
	[RKM_PLACE_WHY_UNKNOWN] = "unmeasured",
	[RKM_PLACE_WHY_EXPLORE] = "explore",
	[RKM_PLACE_WHY_STALE] = "stale",
};

/* "SIDE REASON COUNT" lines: the decisions made while a daemon ran */
static ssize_t placement_reasons_show(struct kobject *kobj,
				      struct kobj_attribute *attr, char *buf)
{
	struct rkm_place_counts *c = kmalloc(sizeof(*c), GFP_KERNEL);
	ssize_t n = 0;
	int side, why;

	if (!c)
		return -ENOMEM;
	rkm_place_read(c);
	for (side = 0; side < RKM_PLACE_NSIDES; side++)
		for (why = 0; why < RKM_PLACE_NWHY; why++)
			n += sysfs_emit_at(buf, n, "%s %s %llu\n",
					   side == RKM_PLACE_TO_CPU ? "cpu" :
					   "daemon", place_why_names[why],
					   c->why[side][why]);
	kfree(c);
	return n;
}

#define RKM_SELFTEST_MAX	1000000

static ssize_t selftest_show(struct kobject *kobj,
			     struct kobj_attribute *attr, char *buf)
{
	return rkm_selftest_report(buf);
}

static ssize_t selftest_store(struct kobject *kobj,
			      struct kobj_attribute *attr, const char *buf,
			      size_t count)
{
	unsigned int n;
	int ret;

	if (kstrtouint(buf, 0, &n) || n < 1 || n > RKM_SELFTEST_MAX)
		return -EINVAL;
	ret = rkm_selftest_run(n);
	return ret ? ret : count;
}

struct rkm_stat_attr {
	struct kobj_attribute attr;
	int stat;
};

static ssize_t stat_show(struct kobject *kobj, struct kobj_attribute *attr,
			 char *buf)
{
	struct rkm_stat_attr *sa = container_of(attr, struct rkm_stat_attr,
						attr);

	return sysfs_emit(buf, "%lld\n", atomic64_read(&rkm_stats[sa->stat]));
}

#define RKM_STAT_ATTR(_name, _stat)					\
	static struct rkm_stat_attr stat_attr_##_name = {		\
		.attr = __ATTR(_name, 0444, stat_show, NULL),		\
		.stat = _stat,						\
	}

RKM_STAT_ATTR(jobs_offloaded, RAIDKM_STAT_JOBS_OFFLOADED);
RKM_STAT_ATTR(jobs_cpu, RAIDKM_STAT_JOBS_CPU);
RKM_STAT_ATTR(deadline_misses, RAIDKM_STAT_DEADLINE_MISSES);
RKM_STAT_ATTR(reruns, RAIDKM_STAT_RERUNS);
RKM_STAT_ATTR(verify_mismatches, RAIDKM_STAT_VERIFY_MISMATCHES);
RKM_STAT_ATTR(bytes_offloaded, RAIDKM_STAT_BYTES_OFFLOADED);
RKM_STAT_ATTR(bad_completions, RAIDKM_STAT_BAD_COMPLETIONS);
RKM_STAT_ATTR(stale_completions, RAIDKM_STAT_STALE_COMPLETIONS);
RKM_STAT_ATTR(doorbells, RAIDKM_STAT_DOORBELLS);
RKM_STAT_ATTR(attaches, RAIDKM_STAT_ATTACHES);
RKM_STAT_ATTR(detaches, RAIDKM_STAT_DETACHES);

static struct kobj_attribute daemon_pid_attr = __ATTR_RO(daemon_pid);
static struct kobj_attribute daemon_backend_attr = __ATTR_RO(daemon_backend);
static struct kobj_attribute daemon_state_attr = __ATTR_RO(daemon_state);
static struct kobj_attribute jobs_in_flight_attr = __ATTR_RO(jobs_in_flight);
static struct kobj_attribute arena_pages_attr =
	__ATTR(arena_pages, 0444, arena_show, NULL);
static struct kobj_attribute arena_free_attr =
	__ATTR(arena_free_pages, 0444, arena_show, NULL);
static struct kobj_attribute arena_fallbacks_attr =
	__ATTR(arena_fallbacks, 0444, arena_show, NULL);
static struct kobj_attribute arena_run_pages_attr =
	__ATTR(arena_run_pages, 0444, arena_show, NULL);
static struct kobj_attribute arena_run_free_attr =
	__ATTR(arena_run_free_pages, 0444, arena_show, NULL);
static struct kobj_attribute arena_run_fallbacks_attr =
	__ATTR(arena_run_fallbacks, 0444, arena_show, NULL);
static struct kobj_attribute verify_spot_checks_attr =
	__ATTR(verify_spot_checks, 0444, verify_show, NULL);
static struct kobj_attribute verify_spot_ns_attr =
	__ATTR(verify_spot_ns, 0444, verify_show, NULL);
static struct kobj_attribute verify_full_checks_attr =
	__ATTR(verify_full_checks, 0444, verify_show, NULL);
static struct kobj_attribute verify_full_ns_attr =
	__ATTR(verify_full_ns, 0444, verify_show, NULL);
static struct kobj_attribute stage_pages_attr =
	__ATTR(stage_pages, 0444, stage_show, NULL);
static struct kobj_attribute stage_free_attr =
	__ATTR(stage_free_pages, 0444, stage_show, NULL);
static struct kobj_attribute stage_held_attr =
	__ATTR(stage_held_pages, 0444, stage_show, NULL);
static struct kobj_attribute stage_fallbacks_attr =
	__ATTR(stage_fallbacks, 0444, stage_show, NULL);
static struct kobj_attribute stage_copy_bytes_attr =
	__ATTR(stage_copy_bytes, 0444, stage_show, NULL);
static struct kobj_attribute stage_copy_ns_attr =
	__ATTR(stage_copy_ns, 0444, stage_show, NULL);
static struct kobj_attribute selftest_attr = __ATTR_RW_MODE(selftest, 0600);
static struct kobj_attribute placement_stats_attr =
	__ATTR_RO(placement_stats);
static struct kobj_attribute placement_reasons_attr =
	__ATTR_RO(placement_reasons);

static struct attribute *rkm_attrs[] = {
	&daemon_pid_attr.attr,
	&daemon_backend_attr.attr,
	&daemon_state_attr.attr,
	&jobs_in_flight_attr.attr,
	&stat_attr_jobs_offloaded.attr.attr,
	&stat_attr_jobs_cpu.attr.attr,
	&stat_attr_deadline_misses.attr.attr,
	&stat_attr_reruns.attr.attr,
	&stat_attr_verify_mismatches.attr.attr,
	&stat_attr_bytes_offloaded.attr.attr,
	&stat_attr_bad_completions.attr.attr,
	&stat_attr_stale_completions.attr.attr,
	&stat_attr_doorbells.attr.attr,
	&stat_attr_attaches.attr.attr,
	&stat_attr_detaches.attr.attr,
	&verify_spot_checks_attr.attr,
	&verify_spot_ns_attr.attr,
	&verify_full_checks_attr.attr,
	&verify_full_ns_attr.attr,
	&arena_pages_attr.attr,
	&arena_free_attr.attr,
	&arena_fallbacks_attr.attr,
	&arena_run_pages_attr.attr,
	&arena_run_free_attr.attr,
	&arena_run_fallbacks_attr.attr,
	&stage_pages_attr.attr,
	&stage_free_attr.attr,
	&stage_held_attr.attr,
	&stage_fallbacks_attr.attr,
	&stage_copy_bytes_attr.attr,
	&stage_copy_ns_attr.attr,
	&selftest_attr.attr,
	&placement_stats_attr.attr,
	&placement_reasons_attr.attr,
	NULL,
};

static const struct attribute_group rkm_attr_group = {
	.attrs = rkm_attrs,
};

int rkm_offload_sysfs_init(void)
{
	int ret;

	rkm_kobj = kobject_create_and_add("raidkm", kernel_kobj);
	if (!rkm_kobj)
		return -ENOMEM;
	ret = sysfs_create_group(rkm_kobj, &rkm_attr_group);
	if (ret) {
		kobject_put(rkm_kobj);
		rkm_kobj = NULL;
	}
	return ret;
}

void rkm_offload_sysfs_exit(void)
{
	if (!rkm_kobj)
		return;
	sysfs_remove_group(rkm_kobj, &rkm_attr_group);
	kobject_put(rkm_kobj);
	rkm_kobj = NULL;
}
