// SPDX-License-Identifier: GPL-2.0
/*
 * The md personality "km": k data + m parity chunks per stripe, parity
 * rotating over the members, coded by a GF(2^8) Reed-Solomon code through
 * rkm_job_submit().  This file holds the md_personality table and the
 * array-level callbacks (run, free, status, member changes); see km.h for
 * where the rest lives and Documentation/personality.rst for the design.
 */
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/blkdev.h>
#include <linux/seq_file.h>
#include "km.h"
#include "../raidkm.h"
#include "../uapi/raidkm_md.h"

/*
 * Slots without a complete member, counting replacements (conf->lock not
 * needed).
 */
int km_calc_degraded(struct km_conf *conf)
{
	int i, degraded = 0;

	rcu_read_lock();
	for (i = 0; i < conf->geom.n; i++)
		if (!km_slot_in_sync(&conf->disks[i]))
			degraded++;
	rcu_read_unlock();
	return degraded;
}

static bool km_has_failed(struct km_conf *conf)
{
	int m = conf->geom.m;

	/* during a reshape, the old shape's rows too */
	if (conf->prev)
		m = min(m, conf->prev->geom.m);
	return conf->mddev->degraded > m;
}

/*
 * Check a km shape (layout word, chunk sectors, members) for @mddev;
 * name the problem when refusing.
 */
int km_check_shape(struct mddev *mddev, unsigned int layout, int chunk,
		   int n, int *m_out, int *algo_out)
{
	const char *name = mdname(mddev);
	int m, algo;

	if (layout & RAIDKM_LAYOUT_RESERVED) {
		pr_err("md/km:%s: layout 0x%x has reserved bits set\n", name,
		       layout);
		return -EINVAL;
	}
	m = layout & RAIDKM_LAYOUT_M_MASK;
	algo = (layout & RAIDKM_LAYOUT_ALGO_MASK) >> RAIDKM_LAYOUT_ALGO_SHIFT;
	if (algo != RAIDKM_ROT_KM && algo != RAIDKM_ROT_RAID6) {
		pr_err("md/km:%s: unknown parity rotation algorithm %d\n",
		       name, algo);
		return -EINVAL;
	}
	if (m < RAIDKM_MIN_M || m > RAIDKM_MAX_M) {
		pr_err("md/km:%s: m=%d parity chunks is out of range %d..%d\n",
		       name, m, RAIDKM_MIN_M, RAIDKM_MAX_M);
		return -EINVAL;
	}
	if (n > RAIDKM_MAX_MEMBERS || n - m < RAIDKM_MIN_K) {
		pr_err("md/km:%s: %d members with m=%d: need k >= %d data members and at most %d members\n",
		       name, n, m, RAIDKM_MIN_K, RAIDKM_MAX_MEMBERS);
		return -EINVAL;
	}
	if (!rkm_geometry_ok(n - m, m)) {
		pr_err("md/km:%s: the codec does not support k=%d m=%d\n",
		       name, n - m, m);
		return -EINVAL;
	}
	if (chunk <= 0 || (chunk & (chunk - 1)) ||
	    chunk < RAIDKM_MIN_CHUNK_KIB * 2 || chunk < KM_ROW_SECTORS) {
		pr_err("md/km:%s: chunk size %d KiB must be a power of two of at least %d KiB\n",
		       name, chunk / 2, max(RAIDKM_MIN_CHUNK_KIB,
					   (int)(PAGE_SIZE >> 10)));
		return -EINVAL;
	}
	*m_out = m;
	*algo_out = algo;
	return 0;
}

/*
 * Check the geometry md hands us to run: the shape (the new one while a
 * reshape is recorded) and, for a reshape, the old shape's m and
 * rotation in @om and @oalgo.
 */
static int km_check_geometry(struct mddev *mddev, int *m_out, int *algo_out,
			     int *om, int *oalgo)
{
	const char *name = mdname(mddev);
	int ret;

	if (mddev->new_level != RAIDKM_LEVEL || mddev->level != RAIDKM_LEVEL) {
		pr_err("md/km:%s: level %d is not km (%d)\n", name,
		       mddev->new_level, RAIDKM_LEVEL);
		return -EINVAL;
	}
	if (mddev->reshape_position == MaxSector &&
	    (mddev->new_layout != mddev->layout ||
	     mddev->new_chunk_sectors != mddev->chunk_sectors ||
	     mddev->delta_disks)) {
		pr_err("md/km:%s: a new shape is recorded but no reshape position\n",
		       name);
		return -EINVAL;
	}
	if (mddev->reshape_position != MaxSector) {
		if (mddev->new_chunk_sectors != mddev->chunk_sectors ||
		    mddev->delta_disks < 0 || mddev->reshape_backwards) {
			pr_err("md/km:%s: the recorded reshape (chunk change or fewer members) is not one km makes\n",
			       name);
			return -EINVAL;
		}
		ret = km_check_shape(mddev, mddev->layout,
				     mddev->chunk_sectors,
				     mddev->raid_disks - mddev->delta_disks,
				     om, oalgo);
		if (ret)
			return ret;
	}
	return km_check_shape(mddev, mddev->new_layout,
			      mddev->new_chunk_sectors, mddev->raid_disks,
			      m_out, algo_out);
}

static sector_t km_size(struct mddev *mddev, sector_t sectors, int raid_disks)
{
	struct km_conf *conf = mddev->private;

	if (!sectors)
		sectors = mddev->dev_sectors;
	if (!conf)
		return 0;
	/* until a reshape is done, the old shape's size */
	if (conf->prev)
		conf = conf->prev;
	return km_array_sectors(&conf->geom, sectors);
}

void km_free_conf(struct km_conf *conf)
{
	if (!conf)
		return;
	if (conf->prev) {
		km_reshape_teardown(conf);
		km_free_conf(conf->prev);
	}
	km_journal_exit(conf);
	if (conf->job_stats_registered)
		rkm_job_stats_unregister(&conf->job_stats);
	if (conf->retry_wq)
		destroy_workqueue(conf->retry_wq);
	if (conf->code_wq)
		destroy_workqueue(conf->code_wq);
	km_stripes_exit(conf);
	km_wide_exit(conf);
	km_wsync_exit(conf);
	km_gen_exit(conf);
	bioset_exit(&conf->bio_set);
	mempool_destroy(conf->piece_pool);
	kmem_cache_destroy(conf->piece_cache);
	if (conf->code)
		rkm_code_destroy(conf->code);
	if (conf->code_pq)
		rkm_code_destroy(conf->code_pq);
	kfree(conf->disks);
	kfree(conf);
}

/*
 * A conf of @n members (mddev->raid_disks, or fewer for the old shape of a
 * reshape, which leaves out the members in the new slots).
 */
struct km_conf *km_setup_conf(struct mddev *mddev, int n, int m, int algo)
{
	struct km_conf *conf;
	struct md_rdev *rdev;
	char name[48];
	int i;

	conf = kzalloc(sizeof(*conf), GFP_KERNEL);
	if (!conf)
		return ERR_PTR(-ENOMEM);
	conf->mddev = mddev;
	conf->recovery_disabled = mddev->recovery_disabled - 1;
	spin_lock_init(&conf->lock);
	spin_lock_init(&conf->retry_lock);
	spin_lock_init(&conf->held_lock);
	bio_list_init(&conf->retry_list);
	bio_list_init(&conf->deferred_writes);
	INIT_WORK(&conf->retry_work, km_retry_reads);
	if (km_geom_init(&conf->geom, n, m,
			 mddev->chunk_sectors) ||
	    km_geom_set_rotation(&conf->geom, algo))
		goto einval;
	conf->disks = kcalloc(conf->geom.n, sizeof(*conf->disks), GFP_KERNEL);
	if (!conf->disks)
		goto enomem;
	rdev_for_each(rdev, mddev) {
		struct km_disk *p;

		if (rdev->raid_disk < 0 || test_bit(Journal, &rdev->flags))
			continue;
		if (rdev->raid_disk >= conf->geom.n && n < mddev->raid_disks)
			continue;	/* the old shape of a reshape */
		if (rdev->raid_disk >= conf->geom.n) {
			pr_err("md/km:%s: member %pg in slot %d is not supported\n",
			       mdname(mddev), rdev->bdev, rdev->raid_disk);
			goto einval;
		}
		p = &conf->disks[rdev->raid_disk];
		if (test_bit(Replacement, &rdev->flags)) {
			if (rcu_access_pointer(p->replacement)) {
				pr_err("md/km:%s: two replacements for slot %d\n",
				       mdname(mddev), rdev->raid_disk);
				goto einval;
			}
			rcu_assign_pointer(p->replacement, rdev);
		} else {
			rcu_assign_pointer(p->rdev, rdev);
		}
	}
	/* a replacement whose member is gone is all the slot has */
	for (i = 0; i < conf->geom.n; i++) {
		struct km_disk *p = &conf->disks[i];
		struct md_rdev *repl = rcu_access_pointer(p->replacement);

		if (repl && !rcu_access_pointer(p->rdev)) {
			clear_bit(Replacement, &repl->flags);
			rcu_assign_pointer(p->rdev, repl);
			RCU_INIT_POINTER(p->replacement, NULL);
		} else if (repl) {
			/* a replacement is copied whole, never by the bitmap */
			conf->fullsync = 1;
		}
	}
	conf->code = rkm_code_create(conf->geom.k, m);
	if (!conf->code) {
		pr_err("md/km:%s: cannot create the k=%d m=%d code\n",
		       mdname(mddev), conf->geom.k, m);
		goto enomem;
	}
	/* verified reads' P+Q check (read_verify.c); without it they read all */
	if (m >= 3)
		conf->code_pq = rkm_code_create(conf->geom.k, 2);
	if (km_stripes_init(conf))
		goto enomem;
	snprintf(name, sizeof(name), "km_%s", mdname(mddev));
	conf->piece_cache = kmem_cache_create(name, sizeof(struct km_piece),
					      0, 0, NULL);
	if (!conf->piece_cache)
		goto enomem;
	conf->piece_pool = mempool_create_slab_pool(256, conf->piece_cache);
	if (!conf->piece_pool)
		goto enomem;
	if (bioset_init(&conf->bio_set, BIO_POOL_SIZE,
			offsetof(struct km_read_ctx, bio), 0))
		goto enomem;
	if (km_gen_init(conf) || km_wide_init(conf))
		goto enomem;
	km_verify_init(conf);
	if (km_wsync_init(conf))
		goto enomem;
	conf->retry_wq = alloc_workqueue("km_retry_%s", WQ_MEM_RECLAIM, 0,
					 mdname(mddev));
	if (!conf->retry_wq)
		goto enomem;
	/*
	 * Coding work runs at the priority of the tasks it serves, as md's
	 * raid5wq does: at nice -20 (WQ_HIGHPRI) a CPU coding megabytes
	 * starves raidkmd, whose late completions then make the daemon look
	 * slow to the placement (issue #30).
	 */
	conf->code_wq = alloc_workqueue("km_code_%s",
					WQ_UNBOUND | WQ_MEM_RECLAIM |
					WQ_CPU_INTENSIVE, 0, mdname(mddev));
	if (!conf->code_wq)
		goto enomem;
	return conf;
einval:
	km_free_conf(conf);
	return ERR_PTR(-EINVAL);
enomem:
	km_free_conf(conf);
	return ERR_PTR(-ENOMEM);
}

int km_set_limits(struct km_conf *conf)
{
	struct mddev *mddev = conf->mddev;
	unsigned int chunk = mddev->chunk_sectors << 9;

	/*
	 * Bios are cut per chunk (reads) or per stripe row (writes) here, so
	 * the members' own limits need not shrink what md hands over: take
	 * at least a whole data stripe, and no less than 1 MiB, at once.
	 * Discards only where km may pass them on (discard.c).
	 */
	conf->discard_granularity = km_discard_granularity(conf);
	return rkm_md_set_limits(mddev, chunk, chunk * conf->geom.k,
				 clamp_t(unsigned int,
					 mddev->chunk_sectors * conf->geom.k,
					 KM_MIN_REQ_SECTORS,
					 KM_MAX_REQ_SECTORS),
				 conf->discard_granularity);
}

static int km_run(struct mddev *mddev)
{
	struct km_conf *conf;
	struct md_rdev *rdev;
	struct md_thread *thread;
	int m, algo, om = 0, oalgo = 0, ret;

	if (rkm_md_init_writes_pending(mddev) < 0)
		return -ENOMEM;
	ret = km_check_geometry(mddev, &m, &algo, &om, &oalgo);
	if (ret)
		return ret;
	/* a takeover (takeover.c) has set up the conf already */
	conf = mddev->private;
	if (!conf) {
		conf = km_setup_conf(mddev, mddev->raid_disks, m, algo);
		if (IS_ERR(conf))
			return PTR_ERR(conf);
		mddev->private = conf;
	}
	if (mddev->reshape_position != MaxSector && !conf->prev) {
		/* a reshape goes on where the superblock says (reshape.c) */
		struct km_conf *prev;

		prev = km_setup_conf(mddev, mddev->raid_disks -
				     mddev->delta_disks, om, oalgo);
		if (IS_ERR(prev)) {
			ret = PTR_ERR(prev);
			goto abort;
		}
		ret = km_reshape_setup(conf, prev);
		if (ret) {
			km_free_conf(prev);
			goto abort;
		}
		pr_info("md/km:%s: reshape k=%d m=%d -> k=%d m=%d resumes at array sector %llu\n",
			mdname(mddev), prev->geom.k, prev->geom.m,
			conf->geom.k, conf->geom.m,
			(unsigned long long)mddev->reshape_position);
	}

	mddev->dev_sectors &= ~((sector_t)mddev->chunk_sectors - 1);
	if (mddev->dev_sectors < mddev->chunk_sectors) {
		pr_err("md/km:%s: members are smaller than one %d KiB chunk\n",
		       mdname(mddev), mddev->chunk_sectors / 2);
		ret = -EINVAL;
		goto abort;
	}
	rdev_for_each(rdev, mddev) {
		if (rdev->raid_disk < 0)
			continue;
		if (rdev->sectors < mddev->dev_sectors) {
			pr_err("md/km:%s: member %pg is too small (%llu < %llu sectors)\n",
			       mdname(mddev), rdev->bdev,
			       (unsigned long long)rdev->sectors,
			       (unsigned long long)mddev->dev_sectors);
			ret = -EINVAL;
			goto abort;
		}
	}
	mddev->resync_max_sectors = mddev->dev_sectors;
	mddev->degraded = km_calc_degraded(conf);
	km_verify_note_level(conf);
	if (km_has_failed(conf)) {
		pr_err("md/km:%s: not enough operational members (%d of %d failed, m=%d)\n",
		       mdname(mddev), mddev->degraded, conf->geom.n, m);
		ret = -EIO;
		goto abort;
	}
	if (mddev->degraded == m && RKM_RESYNC_OFFSET(mddev) != MaxSector) {
		if (mddev->ok_start_degraded) {
			pr_crit("md/km:%s: starting dirty array with no redundancy left - data corruption possible\n",
				mdname(mddev));
		} else {
			pr_err("md/km:%s: cannot start a dirty array with no redundancy left\n",
			       mdname(mddev));
			ret = -EIO;
			goto abort;
		}
	}

	/* a journal replays what a crash cut short, before anything else */
	ret = km_journal_init(conf);
	if (ret)
		goto abort;

	thread = md_register_thread(km_daemon, mddev, "km");
	if (!thread) {
		ret = -ENOMEM;
		goto abort;
	}
	rcu_assign_pointer(mddev->thread, thread);
	if (mddev->to_remove == &km_attr_group)
		mddev->to_remove = NULL;
	else if (mddev->kobj.sd && sysfs_create_group(&mddev->kobj, &km_attr_group))
		pr_warn("md/km:%s: cannot create sysfs attributes\n",
			mdname(mddev));
	md_set_array_sectors(mddev, km_size(mddev, 0, 0));
	ret = km_set_limits(conf);
	if (ret) {
		pr_err("md/km:%s: cannot set the queue limits: %d\n",
		       mdname(mddev), ret);
		goto abort;
	}
	rkm_job_stats_register(&conf->job_stats, mdname(mddev));
	conf->job_stats_registered = true;
	pr_info("md/km:%s: km k=%d m=%d, %d KiB chunk, active with %d of %d members, codec %s\n",
		mdname(mddev), conf->geom.k, m, mddev->chunk_sectors / 2,
		conf->geom.n - mddev->degraded, conf->geom.n,
		rkm_codec_impl());
	return 0;
abort:
	rkm_md_unregister_thread(mddev, &mddev->thread);
	mddev->private = NULL;
	km_free_conf(conf);
	return ret;
}

static void km_free(struct mddev *mddev, void *priv)
{
	struct km_conf *conf = priv;

	/* the next assembly need not replay what is on the members */
	km_journal_quiet(conf);
	flush_workqueue(conf->retry_wq);
	/* md has written its final superblocks: end what is still held */
	km_release_held(conf, true);
	if (conf->prev) {
		/* stopped during a reshape: the old shape's conf too */
		flush_workqueue(conf->prev->retry_wq);
		km_release_held(conf->prev, true);
	}
	km_free_conf(conf);
	mddev->to_remove = &km_attr_group;
}

static void km_status(struct seq_file *seq, struct mddev *mddev)
{
	struct km_conf *conf = mddev->private;
	int i;

	seq_printf(seq, " km m=%d, %dk chunk, algorithm %d [%d/%d] [",
		   conf->geom.m, mddev->chunk_sectors / 2, conf->geom.rot,
		   conf->geom.n, conf->geom.n - mddev->degraded);
	rcu_read_lock();
	for (i = 0; i < conf->geom.n; i++)
		seq_putc(seq, km_slot_in_sync(&conf->disks[i]) ? 'U' : '_');
	rcu_read_unlock();
	seq_putc(seq, ']');
	km_mlog_status(seq, conf);
}

static void km_error(struct mddev *mddev, struct md_rdev *rdev)
{
	struct km_conf *conf = mddev->private;
	unsigned long flags;

	if (test_bit(Journal, &rdev->flags)) {
		km_journal_error(conf, rdev);
		return;
	}
	spin_lock_irqsave(&conf->lock, flags);
	if (test_and_set_bit(Faulty, &rdev->flags)) {
		spin_unlock_irqrestore(&conf->lock, flags);
		return;
	}
	clear_bit(In_sync, &rdev->flags);
	mddev->degraded = km_calc_degraded(conf);
	spin_unlock_irqrestore(&conf->lock, flags);

	pr_crit("md/km:%s: disk failure on %pg, disabling device\n",
		mdname(mddev), rdev->bdev);
	km_mlog_member_failed(conf, rdev);
	km_verify_note_level(conf);
	if (km_has_failed(conf)) {
		set_bit(MD_BROKEN, &mddev->flags);
		conf->recovery_disabled = mddev->recovery_disabled;
		pr_crit("md/km:%s: cannot continue: %d of %d members failed, m=%d\n",
			mdname(mddev), mddev->degraded, conf->geom.n,
			conf->geom.m);
	} else {
		pr_crit("md/km:%s: operation continuing on %d of %d members\n",
			mdname(mddev), conf->geom.n - mddev->degraded,
			conf->geom.n);
	}
	set_bit(MD_RECOVERY_INTR, &mddev->recovery);
	set_mask_bits(&mddev->sb_flags, 0,
		      BIT(MD_SB_CHANGE_DEVS) | BIT(MD_SB_CHANGE_PENDING));
}

static int km_add_disk(struct mddev *mddev, struct md_rdev *rdev)
{
	struct km_conf *conf = mddev->private;
	int first = 0, last = conf->geom.n - 1, disk;

	if (test_bit(Journal, &rdev->flags))
		return km_journal_add(conf, rdev);
	if (mddev->recovery_disabled == conf->recovery_disabled ||
	    conf->prev)
		return -EBUSY;
	if (rdev->saved_raid_disk < 0 && km_has_failed(conf))
		return -EINVAL;
	if (km_mlog_add(conf, rdev))
		return -EINVAL;
	if (rdev->raid_disk >= 0)
		first = last = rdev->raid_disk;
	/* marked as a replacement (mdadm --replace --with): only that */
	if (test_bit(Replacement, &rdev->flags))
		return km_add_replacement(conf, rdev, first, last);
	if (rdev->saved_raid_disk >= first && rdev->saved_raid_disk <= last &&
	    !rcu_access_pointer(conf->disks[rdev->saved_raid_disk].rdev))
		first = rdev->saved_raid_disk;
	for (disk = first; disk <= last; disk++) {
		if (rcu_access_pointer(conf->disks[disk].rdev))
			continue;
		clear_bit(In_sync, &rdev->flags);
		rdev->raid_disk = disk;
		if (rdev->saved_raid_disk != disk)
			conf->fullsync = 1;
		rcu_assign_pointer(conf->disks[disk].rdev, rdev);
		return 0;
	}
	/* no empty slot: replace a member that wants it (mdadm --replace) */
	return km_add_replacement(conf, rdev, first, last);
}

static int km_remove_disk(struct mddev *mddev, struct md_rdev *rdev)
{
	struct km_conf *conf = mddev->private;
	int number = rdev->raid_disk;
	struct km_disk *p;

	struct md_rdev __rcu **slot;

	if (test_bit(Journal, &rdev->flags))
		return km_journal_remove(conf, rdev);
	if (number < 0 || number >= conf->geom.n)
		return 0;
	if (km_mlog_remove(conf, rdev))
		return -EBUSY;
	/* the old shape's conf points at the members too */
	if (conf->prev)
		return -EBUSY;
	p = conf->disks + number;
	if (rcu_access_pointer(p->rdev) == rdev)
		slot = &p->rdev;
	else if (rcu_access_pointer(p->replacement) == rdev)
		slot = &p->replacement;
	else
		return 0;
	if (test_bit(In_sync, &rdev->flags) ||
	    atomic_read(&rdev->nr_pending))
		return -EBUSY;
	/* keep a member being rebuilt unless rebuilding is impossible */
	if (!test_bit(Faulty, &rdev->flags) &&
	    mddev->recovery_disabled != conf->recovery_disabled &&
	    !km_has_failed(conf))
		return -EBUSY;
	RCU_INIT_POINTER(*slot, NULL);
	if (!rkm_rdev_remove_synchronized(rdev)) {
		synchronize_rcu();
		if (atomic_read(&rdev->nr_pending)) {
			rcu_assign_pointer(*slot, rdev);
			return -EBUSY;
		}
	}
	/* the member left: its replacement takes the slot */
	if (slot == &p->rdev)
		km_promote_replacement(conf, p);
	clear_bit(WantReplacement, &rdev->flags);
	return 0;
}

static int km_spare_active(struct mddev *mddev)
{
	struct km_conf *conf = mddev->private;
	unsigned long flags;
	int i, count = 0;

	for (i = 0; i < conf->geom.n; i++) {
		struct md_rdev *rdev = rcu_dereference_protected(conf->disks[i].rdev,
				lockdep_is_held(&mddev->reconfig_mutex));
		int done = km_replacement_active(conf, &conf->disks[i]);

		if (done) {
			count += done;
			continue;
		}
		if (rdev && rdev->recovery_offset == MaxSector &&
		    !test_bit(Faulty, &rdev->flags) &&
		    !test_and_set_bit(In_sync, &rdev->flags)) {
			count++;
			sysfs_notify_dirent_safe(rdev->sysfs_state);
		}
	}
	spin_lock_irqsave(&conf->lock, flags);
	mddev->degraded = km_calc_degraded(conf);
	spin_unlock_irqrestore(&conf->lock, flags);
	km_verify_note_level(conf);
	return count;
}

static int km_resize(struct mddev *mddev, sector_t sectors)
{
	struct km_conf *conf = mddev->private;
	sector_t newsize;
	int ret;

	sectors &= ~((sector_t)mddev->chunk_sectors - 1);
	newsize = km_array_sectors(&conf->geom, sectors);
	if (mddev->external_size && mddev->array_sectors > newsize)
		return -EINVAL;
	ret = km_mlog_resize(conf, sectors);
	if (ret)
		return ret;
	ret = rkm_bitmap_resize(mddev, sectors);
	if (ret)
		return ret;
	md_set_array_sectors(mddev, newsize);
	if (sectors > mddev->dev_sectors &&
	    RKM_RESYNC_OFFSET(mddev) > mddev->dev_sectors) {
		RKM_RESYNC_OFFSET(mddev) = mddev->dev_sectors;
		set_bit(MD_RECOVERY_NEEDED, &mddev->recovery);
	}
	mddev->dev_sectors = sectors;
	mddev->resync_max_sectors = sectors;
	return 0;
}

static void km_quiesce_conf(struct km_conf *conf, int quiesce)
{
	if (quiesce) {
		spin_lock_irq(&conf->lock);
		conf->quiesce = 2;
		smp_mb();	/* against km_enter()'s count, then look */
		wait_event_lock_irq(conf->wait_for_quiescent,
				    atomic_read(&conf->active_stripes) == 0 &&
				    atomic_read(&conf->active_reads) == 0,
				    conf->lock);
		conf->quiesce = 1;
		spin_unlock_irq(&conf->lock);
		/* nothing in flight: the journal's checkpoint catches up */
		km_journal_quiet(conf);
	} else {
		spin_lock_irq(&conf->lock);
		conf->quiesce = 0;
		spin_unlock_irq(&conf->lock);
	}
	wake_up(&conf->wait_for_quiescent);
}

static void km_quiesce(struct mddev *mddev, int quiesce)
{
	struct km_conf *conf = mddev->private;

	km_quiesce_conf(conf, quiesce);
	if (conf->prev)
		km_quiesce_conf(conf->prev, quiesce);
}

/* consistency_policy: "resync" drops a failed and removed journal. */
static int km_change_consistency_policy(struct mddev *mddev, const char *buf)
{
	struct km_conf *conf = mddev->private;

	if (!sysfs_streq(buf, "resync"))
		return -EINVAL;
	return km_journal_drop(conf);
}

static int km_start(struct mddev *mddev)
{
	/* the bitmap is loaded: the member log's dirty regions, first */
	km_mlog_catch_up(mddev->private);
	rkm_md_started(mddev);
	return 0;
}

static struct md_personality km_personality = {
	.name		= RAIDKM_LEVEL_NAME,
	.level		= RAIDKM_LEVEL,
	.owner		= THIS_MODULE,
	.make_request	= km_make_request,
	.run		= km_run,
	.start		= km_start,
	.free		= km_free,
	.status		= km_status,
	.error_handler	= km_error,
	.hot_add_disk	= km_add_disk,
	.hot_remove_disk = km_remove_disk,
	.spare_active	= km_spare_active,
	.sync_request	= rkm_md_sync_request,
	.resize		= km_resize,
	.size		= km_size,
	.quiesce	= km_quiesce,
	.takeover	= km_takeover,
	.check_reshape	= km_check_reshape,
	.start_reshape	= km_start_reshape,
	.finish_reshape	= km_finish_reshape,
	.change_consistency_policy = km_change_consistency_policy,
};

int rkm_personality_register(void)
{
	rkm_md_set_bitmap_sector(&km_personality, km_bitmap_sector);
	return register_md_personality(&km_personality);
}

void rkm_personality_unregister(void)
{
	unregister_md_personality(&km_personality);
}
