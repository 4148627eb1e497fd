// SPDX-License-Identifier: GPL-2.0
/*
 * /sys/block/mdX/md/km/: geometry, the stripe cache size and counters.
 * Writes are validated; bad input returns -EINVAL and changes nothing.
 */
#include <linux/kernel.h>
#include <linux/sysfs.h>
#include "km.h"
#include "../uapi/raidkm.h"
#include "../place.h"

/* Run @fn on the array's conf under mddev->lock, if the array runs km. */
static ssize_t km_show_u64(struct mddev *mddev, char *page,
			   u64 (*get)(struct km_conf *conf))
{
	struct km_conf *conf;
	ssize_t ret = 0;

	spin_lock(&mddev->lock);
	conf = mddev->private;
	if (conf && mddev->pers && mddev->pers->level == mddev->level)
		ret = sysfs_emit(page, "%llu\n", (unsigned long long)get(conf));
	spin_unlock(&mddev->lock);
	return ret;
}

#define KM_SHOW(_name, _expr)						\
static u64 km_get_##_name(struct km_conf *conf)				\
{									\
	return _expr;							\
}									\
static ssize_t km_##_name##_show(struct mddev *mddev, char *page)	\
{									\
	return km_show_u64(mddev, page, km_get_##_name);		\
}

#define KM_RO_ATTR(_name, _expr)					\
KM_SHOW(_name, _expr)							\
static struct md_sysfs_entry km_attr_##_name =				\
	__ATTR(_name, 0444, km_##_name##_show, NULL)

/*
 * A store into the array's conf: @set(conf, page) under mddev_lock, if
 * the array runs km.  @set parses and checks the value and changes
 * nothing when it returns an error.
 */
static ssize_t km_store_locked(struct mddev *mddev, const char *page,
			       size_t len,
			       int (*set)(struct km_conf *conf, const char *page))
{
	struct km_conf *conf;
	int err;

	if (len >= PAGE_SIZE)
		return -EINVAL;
	err = mddev_lock(mddev);
	if (err)
		return err;
	conf = mddev->private;
	if (!conf || !mddev->pers || mddev->pers->level != mddev->level)
		err = -ENODEV;
	else
		err = set(conf, page);
	mddev_unlock(mddev);
	return err ? err : len;
}

/* A writable knob: show, range check @_valid, store into conf->@_field. */
#define KM_KNOB(_name, _field, _valid)					\
KM_SHOW(_name, READ_ONCE(conf->_field))					\
static int km_##_name##_set(struct km_conf *conf, const char *page)	\
{									\
	unsigned int val;						\
									\
	if (kstrtouint(page, 10, &val) || !(_valid))			\
		return -EINVAL;						\
	WRITE_ONCE(conf->_field, val);					\
	return 0;							\
}									\
static ssize_t km_##_name##_store(struct mddev *mddev,			\
				  const char *page, size_t len)		\
{									\
	return km_store_locked(mddev, page, len, km_##_name##_set);	\
}									\
static struct md_sysfs_entry km_attr_##_name =				\
	__ATTR(_name, 0644, km_##_name##_show, km_##_name##_store)

KM_RO_ATTR(data_disks, conf->geom.k);
KM_RO_ATTR(parity_disks, conf->geom.m);
KM_RO_ATTR(stripe_cache_active, atomic_read(&conf->active_stripes));
KM_RO_ATTR(reconstruct_reads, atomic64_read(&conf->stats.reconstruct_reads));
KM_RO_ATTR(rmw_writes, atomic64_read(&conf->stats.rmw_writes));
KM_RO_ATTR(rcw_writes, atomic64_read(&conf->stats.rcw_writes));
KM_RO_ATTR(full_stripe_writes, atomic64_read(&conf->stats.full_stripe_writes));
KM_RO_ATTR(read_errors_corrected,
	   atomic64_read(&conf->stats.read_errors_corrected));
KM_RO_ATTR(scrub_repaired, atomic64_read(&conf->stats.scrub_repaired));
KM_RO_ATTR(bad_blocks_recorded,
	   atomic64_read(&conf->stats.bad_blocks_recorded));
KM_RO_ATTR(bad_blocks_cleared,
	   atomic64_read(&conf->stats.bad_blocks_cleared));
KM_RO_ATTR(discards, atomic64_read(&conf->stats.discards));
KM_RO_ATTR(wide_reads, atomic64_read(&conf->wide_stats.reads));
KM_RO_ATTR(wide_read_bytes, atomic64_read(&conf->wide_stats.bytes));
KM_RO_ATTR(wide_read_rows, atomic64_read(&conf->wide_stats.rows));
KM_RO_ATTR(wide_member_reads, atomic64_read(&conf->wide_stats.member_reads));
KM_RO_ATTR(wide_member_read_bytes,
	   atomic64_read(&conf->wide_stats.member_bytes));
KM_RO_ATTR(wide_run_waits, atomic64_read(&conf->wide_stats.waits));

/* Why wide reads went by rows: one "reason count" line each. */
static const char *const km_wide_fallback_names[KM_WF_NR] = {
	[KM_WF_READ_ERROR]	= "read_error",
	[KM_WF_BAD_BLOCK]	= "bad_block",
	[KM_WF_RACE]		= "write_race",
	[KM_WF_ALLOC]		= "no_memory",
	[KM_WF_RESHAPE]		= "reshape",
	[KM_WF_JOB]		= "decode_failed",
	[KM_WF_LOST]		= "too_many_lost",
	[KM_WF_LOG]		= "log_record",
};

/* 0 turns wide reads off; else the fewest rows a read must cover. */
KM_KNOB(wide_read_min_rows, wide_min_rows,
	val <= (RAIDKM_MAX_LEN >> PAGE_SHIFT));

/* Sync windows (wide_sync.c) */
KM_RO_ATTR(wide_sync_windows, atomic64_read(&conf->wsync_stats.windows));
KM_RO_ATTR(wide_sync_rows, atomic64_read(&conf->wsync_stats.rows));
KM_RO_ATTR(wide_sync_whole, atomic64_read(&conf->wsync_stats.whole));
KM_RO_ATTR(wide_sync_member_bios,
	   atomic64_read(&conf->wsync_stats.member_bios));
KM_RO_ATTR(wide_sync_member_bytes,
	   atomic64_read(&conf->wsync_stats.member_bytes));
KM_RO_ATTR(wide_sync_jobs, atomic64_read(&conf->wsync_stats.jobs));

static const char *const km_wsync_fallback_names[KM_WS_NR] = {
	[KM_WS_READ_ERROR]	= "read_error",
	[KM_WS_WRITE_ERROR]	= "write_error",
	[KM_WS_BAD_BLOCK]	= "bad_block",
	[KM_WS_MISMATCH]	= "mismatch",
	[KM_WS_ALLOC]		= "no_memory",
	[KM_WS_JOB]		= "job_failed",
	[KM_WS_LOST]		= "too_many_lost",
	[KM_WS_DEGRADED]	= "degraded_check",
	[KM_WS_GONE]		= "member_gone",
};

static const char *const km_wsync_size_names[KM_WS_SIZES] = {
	"1-15", "16-63", "64-127", "128-255", "256",
};

/* "name count" lines of @nr counters, if the array runs km. */
static ssize_t km_show_lines(struct mddev *mddev, char *page,
			     const char *const *names, int nr,
			     atomic64_t *(*get)(struct km_conf *conf))
{
	struct km_conf *conf;
	ssize_t ret = 0;
	int i;

	spin_lock(&mddev->lock);
	conf = mddev->private;
	if (conf && mddev->pers && mddev->pers->level == mddev->level)
		for (i = 0; i < nr; i++)
			ret += sysfs_emit_at(page, ret, "%s %llu\n", names[i],
					     (unsigned long long)atomic64_read(&get(conf)[i]));
	spin_unlock(&mddev->lock);
	return ret;
}

/* A read-only file of "name count" lines: @_names over conf->@_field[]. */
#define KM_LINES_ATTR(_name, _names, _nr, _field)			\
static atomic64_t *km_##_name##_counters(struct km_conf *conf)		\
{									\
	return conf->_field;						\
}									\
static ssize_t km_##_name##_show(struct mddev *mddev, char *page)	\
{									\
	return km_show_lines(mddev, page, _names, _nr,			\
			     km_##_name##_counters);			\
}									\
static struct md_sysfs_entry km_attr_##_name =				\
	__ATTR(_name, 0444, km_##_name##_show, NULL)

KM_LINES_ATTR(wide_read_fallbacks, km_wide_fallback_names, KM_WF_NR,
	      wide_stats.fallbacks);

/* Full stripes in one job (wide_write.c) */
KM_RO_ATTR(wide_writes, atomic64_read(&conf->wide_stats.writes));
KM_RO_ATTR(wide_write_stripes, atomic64_read(&conf->wide_stats.write_stripes));
KM_RO_ATTR(wide_write_member_writes,
	   atomic64_read(&conf->wide_stats.write_member_writes));

KM_LINES_ATTR(wide_write_fallbacks, km_wide_fallback_names, KM_WF_NR,
	      wide_stats.write_fallbacks);

/* 0 writes full stripes by rows; else the most stripes of one job. */
KM_KNOB(wide_write_max_stripes, wide_write_max_stripes,
	val <= KM_WIDE_DEFAULT_WRITE_STRIPES);

KM_LINES_ATTR(wide_sync_fallbacks, km_wsync_fallback_names, KM_WS_NR,
	      wsync_stats.fallbacks);

/* Windows synced whole, by size in rows. */
KM_LINES_ATTR(wide_sync_window_rows, km_wsync_size_names, KM_WS_SIZES,
	      wsync_stats.sizes);

/* 0 syncs by rows only; else the most rows a sync window takes. */
KM_KNOB(wide_sync_max_rows, wsync_max_rows,
	val <= KM_WSYNC_MAX_ROWS && val != 1);

/* Verified reads (read_verify.c) */
KM_RO_ATTR(read_verify_reads, atomic64_read(&conf->verify_stats.reads));
KM_RO_ATTR(read_verify_mismatches,
	   atomic64_read(&conf->verify_stats.mismatches));
KM_RO_ATTR(read_verify_corrected,
	   atomic64_read(&conf->verify_stats.corrected));
KM_RO_ATTR(read_verify_failed, atomic64_read(&conf->verify_stats.failed));
KM_RO_ATTR(read_verify_unverified,
	   atomic64_read(&conf->verify_stats.unverified));
KM_RO_ATTR(read_verify_raced, atomic64_read(&conf->verify_stats.raced));
KM_RO_ATTR(read_verify_retried, atomic64_read(&conf->verify_stats.retried));

/* A text file of the array's conf, shown by @show, if it runs km. */
static ssize_t km_show_text(struct mddev *mddev, char *page,
			    ssize_t (*show)(struct km_conf *conf, char *page))
{
	struct km_conf *conf;
	ssize_t ret = 0;

	spin_lock(&mddev->lock);
	conf = mddev->private;
	if (conf && mddev->pers && mddev->pers->level == mddev->level)
		ret = show(conf, page);
	spin_unlock(&mddev->lock);
	return ret;
}

static ssize_t km_read_verify_show(struct mddev *mddev, char *page)
{
	return km_show_text(mddev, page, km_verify_mode_show);
}

static ssize_t km_read_verify_store(struct mddev *mddev, const char *page,
				    size_t len)
{
	return km_store_locked(mddev, page, len, km_verify_set_mode);
}

static struct md_sysfs_entry km_attr_read_verify =
	__ATTR(read_verify, 0644, km_read_verify_show, km_read_verify_store);

static ssize_t km_read_verify_state_show(struct mddev *mddev, char *page)
{
	return km_show_text(mddev, page, km_verify_state_show);
}

static struct md_sysfs_entry km_attr_read_verify_state =
	__ATTR(read_verify_state, 0444, km_read_verify_state_show, NULL);

/* The write journal: its state and counters (journal.c). */
static ssize_t km_journal_attr_show(struct mddev *mddev, char *page)
{
	return km_show_text(mddev, page, km_journal_show);
}

static struct md_sysfs_entry km_attr_journal =
	__ATTR(journal, 0444, km_journal_attr_show, NULL);

/*
 * Where the array's jobs are coded while raidkmd is attached: default
 * (the module parameter placement), auto, cpu or daemon.
 */
static ssize_t km_placement_text(struct km_conf *conf, char *page)
{
	return sysfs_emit(page, "%s\n",
			  rkm_place_mode_name(READ_ONCE(conf->job_stats.placement)));
}

static ssize_t km_placement_show(struct mddev *mddev, char *page)
{
	return km_show_text(mddev, page, km_placement_text);
}

static int km_placement_set(struct km_conf *conf, const char *page)
{
	int mode = rkm_place_mode_parse(page, 1);

	if (mode < 0)
		return -EINVAL;
	WRITE_ONCE(conf->job_stats.placement, mode);
	return 0;
}

static ssize_t km_placement_store(struct mddev *mddev, const char *page,
				  size_t len)
{
	return km_store_locked(mddev, page, len, km_placement_set);
}

static struct md_sysfs_entry km_attr_placement =
	__ATTR(placement, 0644, km_placement_show, km_placement_store);

KM_SHOW(stripe_cache_size, READ_ONCE(conf->max_stripes));

static int km_stripe_cache_size_set(struct km_conf *conf, const char *page)
{
	unsigned int val;

	if (kstrtouint(page, 10, &val) ||
	    val < KM_MIN_STRIPES || val > KM_MAX_STRIPES)
		return -EINVAL;
	return km_set_cache_size(conf, val);
}

static ssize_t km_stripe_cache_size_store(struct mddev *mddev,
					  const char *page, size_t len)
{
	return km_store_locked(mddev, page, len, km_stripe_cache_size_set);
}

static struct md_sysfs_entry km_attr_stripe_cache_size_rw =
	__ATTR(stripe_cache_size, 0644, km_stripe_cache_size_show,
	       km_stripe_cache_size_store);

static struct attribute *km_attrs[] = {
	&km_attr_data_disks.attr,
	&km_attr_parity_disks.attr,
	&km_attr_stripe_cache_size_rw.attr,
	&km_attr_stripe_cache_active.attr,
	&km_attr_reconstruct_reads.attr,
	&km_attr_rmw_writes.attr,
	&km_attr_rcw_writes.attr,
	&km_attr_full_stripe_writes.attr,
	&km_attr_read_errors_corrected.attr,
	&km_attr_scrub_repaired.attr,
	&km_attr_bad_blocks_recorded.attr,
	&km_attr_bad_blocks_cleared.attr,
	&km_attr_discards.attr,
	&km_attr_wide_read_min_rows.attr,
	&km_attr_wide_reads.attr,
	&km_attr_wide_read_bytes.attr,
	&km_attr_wide_read_rows.attr,
	&km_attr_wide_member_reads.attr,
	&km_attr_wide_member_read_bytes.attr,
	&km_attr_wide_run_waits.attr,
	&km_attr_wide_read_fallbacks.attr,
	&km_attr_wide_write_max_stripes.attr,
	&km_attr_wide_writes.attr,
	&km_attr_wide_write_stripes.attr,
	&km_attr_wide_write_member_writes.attr,
	&km_attr_wide_write_fallbacks.attr,
	&km_attr_wide_sync_max_rows.attr,
	&km_attr_wide_sync_windows.attr,
	&km_attr_wide_sync_rows.attr,
	&km_attr_wide_sync_whole.attr,
	&km_attr_wide_sync_member_bios.attr,
	&km_attr_wide_sync_member_bytes.attr,
	&km_attr_wide_sync_jobs.attr,
	&km_attr_wide_sync_window_rows.attr,
	&km_attr_wide_sync_fallbacks.attr,
	&km_attr_read_verify.attr,
	&km_attr_read_verify_state.attr,
	&km_attr_read_verify_reads.attr,
	&km_attr_read_verify_mismatches.attr,
	&km_attr_read_verify_corrected.attr,
	&km_attr_read_verify_failed.attr,
	&km_attr_read_verify_unverified.attr,
	&km_attr_read_verify_raced.attr,
	&km_attr_read_verify_retried.attr,
	&km_attr_placement.attr,
	&km_attr_journal.attr,
	NULL,
};

const struct attribute_group km_attr_group = {
	.name = "km",
	.attrs = km_attrs,
};
