// SPDX-License-Identifier: GPL-2.0
/*
 * /sys/block/mdX/md/km/: geometry, the stripe cache size and counters.
 * Writes are validated; bad input returns -EINVAL and changes nothing.
 */
#include <linux/kernel.h>
#include <linux/sysfs.h>
#include "km.h"

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
KM_SHOW(stripe_cache_size, READ_ONCE(conf->max_stripes));

static ssize_t km_stripe_cache_size_store(struct mddev *mddev,
					  const char *page, size_t len)
{
	struct km_conf *conf;
	unsigned int val;
	int err;

	if (len >= PAGE_SIZE)
		return -EINVAL;
	err = kstrtouint(page, 10, &val);
	if (err)
		return -EINVAL;
	if (val < KM_MIN_STRIPES || val > KM_MAX_STRIPES)
		return -EINVAL;
	err = mddev_lock(mddev);
	if (err)
		return err;
	conf = mddev->private;
	if (!conf || !mddev->pers || mddev->pers->level != mddev->level)
		err = -ENODEV;
	else
		err = km_set_cache_size(conf, val);
	mddev_unlock(mddev);
	return err ? err : len;
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
	NULL,
};

const struct attribute_group km_attr_group = {
	.name = "km",
	.attrs = km_attrs,
};
