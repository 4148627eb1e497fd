// SPDX-License-Identifier: GPL-2.0
/*
 * km resync, recovery, check and repair.  md's sync thread asks for one
 * stripe row at a time (->sync_request); the row is handled like any
 * other stripe round and md_done_sync() reports it, which is what md's
 * speed_limit_min/max throttling counts.
 *
 *   recovery  read k survivors (or use the cache), one decode for every
 *             chunk not readable, write it to the members being rebuilt
 *   resync    read the row, check it, rewrite parity on mismatch
 *   check     read the row, check it, count mismatches
 *   repair    like check, then (m >= 2) locate the one bad chunk, rebuild
 *             and rewrite it; if no single chunk explains it (or m = 1)
 *             rewrite parity from the data, as raid6 does
 *
 * Where it can, ->sync_request takes a window of many rows at once
 * (wide_sync.c); the windows go back to this row path for errors,
 * mismatches and whatever else they do not handle.
 */
#include <linux/slab.h>
#include <linux/delay.h>
#include "km.h"

static km_mask_t km_parity_mask(struct km_conf *conf)
{
	return km_mask_all(conf->geom.n) & ~km_mask_all(conf->geom.k);
}

/* What md's sync thread is doing now. */
enum km_sync_mode km_sync_mode_of(struct mddev *mddev)
{
	if (!test_bit(MD_RECOVERY_SYNC, &mddev->recovery))
		return KM_SYNC_RECOVER;
	if (test_bit(MD_RECOVERY_CHECK, &mddev->recovery))
		return KM_SYNC_CHECK;
	if (test_bit(MD_RECOVERY_REQUESTED, &mddev->recovery))
		return KM_SYNC_REPAIR;
	return KM_SYNC_RESYNC;
}

void km_sync_start_round(struct km_stripe *sh)
{
	sh->sync_mode = km_sync_mode_of(sh->conf->mddev);
	sh->fixed = 0;
	/* what is on the members is being verified, not what we cache */
	if (sh->sync_mode != KM_SYNC_RECOVER)
		km_invalidate(sh);
}

void km_sync_finish(struct km_stripe *sh, bool ok)
{
	if (test_and_clear_bit(KM_SH_SYNC, &sh->state))
		md_done_sync(sh->conf->mddev, sh->sync_sectors, ok);
}

static void km_sync_done_now(struct km_stripe *sh, bool ok)
{
	km_sync_finish(sh, ok);
	sh->round = NULL;
	sh->phase = KM_PH_IDLE;
}

/* The row is valid in the cache (lost chunks decoded): act on it. */
void km_sync_step(struct km_stripe *sh)
{
	struct km_conf *conf = sh->conf;
	km_mask_t failed = sh->failed, writable = 0;
	int i;

	rcu_read_lock();
	for (i = 0; i < conf->geom.n; i++) {
		struct md_rdev *rdev =
			rcu_dereference(conf->disks[sh->dev[i].member].rdev);

		if (rdev && !test_bit(Faulty, &rdev->flags))
			writable |= (km_mask_t)1 << i;
	}
	rcu_read_unlock();

	if (sh->sync_mode == KM_SYNC_RECOVER) {
		/* members being rebuilt, and replacements (replace.c) */
		km_mask_t which = failed & writable;
		km_mask_t repl = km_replacing_mask(sh);

		if (!which && !repl) {
			km_sync_done_now(sh, true);
			return;
		}
		km_submit_writes_to(sh, which, repl, true);
		return;
	}
	if (failed) {
		/* decoded from survivors: consistent by construction */
		km_sync_done_now(sh, true);
		return;
	}
	if (!sh->scratch) {
		sh->scratch = kmalloc_array(conf->geom.m, PAGE_SIZE, GFP_NOIO);
		if (!sh->scratch) {
			km_sync_done_now(sh, false);
			return;
		}
	}
	km_submit_job(sh, RKM_JOB_CHECK, 0, KM_PH_CHECK);
}

static void km_sync_fix_parity(struct km_stripe *sh)
{
	sh->fixed = km_parity_mask(sh->conf);
	km_submit_job(sh, RKM_JOB_ENCODE, 0, KM_PH_FIX);
}

static void km_report_fix(struct km_stripe *sh)
{
	struct km_conf *conf = sh->conf;
	int i;

	if (sh->sync_mode != KM_SYNC_REPAIR)
		return;
	atomic64_inc(&conf->stats.scrub_repaired);
	if (sh->fixed == km_parity_mask(conf)) {
		pr_info("md/km:%s: repair: rewrote parity of row at member sector %llu (chunk stripe %llu)\n",
			mdname(conf->mddev), (unsigned long long)sh->sector,
			(unsigned long long)sh->cstripe);
		return;
	}
	for (i = 0; i < conf->geom.n; i++)
		if (sh->fixed & ((km_mask_t)1 << i))
			pr_info("md/km:%s: repair: rebuilt corrupted %s chunk %d on member %d at member sector %llu\n",
				mdname(conf->mddev),
				i < conf->geom.k ? "data" : "parity",
				i < conf->geom.k ? i : i - conf->geom.k,
				sh->dev[i].member,
				(unsigned long long)sh->sector);
}

/* A check, locate or repair job of a sync round finished. */
void km_sync_job_done(struct km_stripe *sh)
{
	struct km_conf *conf = sh->conf;
	struct mddev *mddev = conf->mddev;
	int result = sh->job.result;

	switch (sh->phase) {
	case KM_PH_CHECK:
		if (result < 0) {
			km_sync_done_now(sh, false);
			return;
		}
		if (result == 0) {
			km_sync_done_now(sh, true);
			return;
		}
		atomic64_add(KM_ROW_SECTORS, &mddev->resync_mismatches);
		if (sh->sync_mode == KM_SYNC_CHECK) {
			km_sync_done_now(sh, true);
			return;
		}
		if (sh->sync_mode == KM_SYNC_REPAIR && conf->geom.m >= 2) {
			km_submit_job(sh, RKM_JOB_LOCATE, 0, KM_PH_LOCATE);
			return;
		}
		km_sync_fix_parity(sh);
		return;
	case KM_PH_LOCATE:
		if (result >= 0 && result < conf->geom.n) {
			sh->fixed = (km_mask_t)1 << result;
			km_submit_job(sh, RKM_JOB_DECODE, sh->fixed, KM_PH_FIX);
			return;
		}
		pr_info("md/km:%s: repair: no single corrupted chunk explains row at member sector %llu\n",
			mdname(mddev), (unsigned long long)sh->sector);
		km_sync_fix_parity(sh);
		return;
	case KM_PH_FIX:
		if (result < 0) {
			km_sync_done_now(sh, false);
			return;
		}
		km_report_fix(sh);
		km_submit_writes(sh, sh->fixed, true);
		return;
	default:
		km_sync_done_now(sh, false);
	}
}

/*
 * Sync one row the row path's way: a stripe round for member row @row
 * that tells md_done_sync() @sectors.  Waits for a stripe.
 */
void km_sync_row(struct km_conf *conf, sector_t row, int sectors)
{
	struct km_stripe *sh;

	sh = km_get_stripe(conf, row, true);
	if (!sh) {
		sh = km_get_stripe(conf, row, false);
		/* leave room in the cache for normal I/O */
		schedule_timeout_uninterruptible(1);
	}
	sh->sync_sectors = sectors;
	set_bit(KM_SH_SYNC, &sh->state);
	km_queue_stripe(sh);
	km_put_stripe(sh);
}

static bool km_still_degraded(struct km_conf *conf)
{
	bool degraded = false;
	int i;

	rcu_read_lock();
	for (i = 0; i < conf->geom.n; i++) {
		struct md_rdev *rdev = rcu_dereference(conf->disks[i].rdev);

		if (!rdev || test_bit(Faulty, &rdev->flags))
			degraded = true;
	}
	rcu_read_unlock();
	return degraded;
}

sector_t km_sync_request(struct mddev *mddev, sector_t sector_nr,
			 sector_t max_sector, int *skipped)
{
	struct km_conf *conf = mddev->private;
	sector_t sync_blocks, row = sector_nr & ~KM_ROW_MASK;
	bool still_degraded;
	sector_t done;

	if (test_bit(MD_RECOVERY_RESHAPE, &mddev->recovery))
		return km_reshape_request(mddev, sector_nr, max_sector,
					  skipped);
	if (sector_nr >= max_sector) {
		if (mddev->curr_resync < max_sector)	/* aborted */
			rkm_bitmap_end_sync_aborted(mddev, mddev->curr_resync,
						    &sync_blocks);
		else
			conf->fullsync = 0;
		rkm_bitmap_close_sync(mddev);
		return 0;
	}

	wait_event(conf->wait_for_quiescent, conf->quiesce != 2);

	/* with no redundancy left there is nothing a resync can fix */
	if (mddev->degraded >= conf->geom.m &&
	    test_bit(MD_RECOVERY_SYNC, &mddev->recovery)) {
		*skipped = 1;
		return max_sector - sector_nr;
	}
	if (!test_bit(MD_RECOVERY_REQUESTED, &mddev->recovery) &&
	    !conf->fullsync &&
	    !rkm_bitmap_start_sync(mddev, sector_nr, &sync_blocks, true) &&
	    sync_blocks >= KM_ROW_SECTORS) {
		/* clean in the bitmap: skip whole rows */
		*skipped = 1;
		return sync_blocks & ~KM_ROW_MASK;
	}
	rkm_bitmap_cond_end_sync(mddev, sector_nr, false);

	still_degraded = km_still_degraded(conf);
	/* many rows at once where it can (wide_sync.c) */
	done = km_wsync_window(conf, sector_nr, max_sector, still_degraded,
			       skipped);
	if (done)
		return done;

	rkm_bitmap_start_sync(mddev, sector_nr, &sync_blocks, still_degraded);
	done = KM_ROW_SECTORS - (sector_nr - row);
	km_sync_row(conf, row, done);
	return done;
}
