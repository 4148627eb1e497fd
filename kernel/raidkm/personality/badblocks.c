// SPDX-License-Identifier: GPL-2.0
/*
 * Bad-block records: a member row that cannot be written is recorded in
 * md's bad-block list of that member (rdev->badblocks, written to the
 * 1.x superblock's bad-block log) instead of failing the whole member,
 * as raid5/6 do.  From then on the row counts as lost on that member:
 * reads are rebuilt from the others (replace.c's km_rdev_covers() asks
 * km_rdev_bad()), and writes skip it while the member has failed a write
 * since the array started (WriteErrorSeen).  A record found without that
 * (from the superblock, at assembly) is written over when the row is
 * written anyway, and dropped when the write succeeds: the disk may have
 * remapped the sector since.
 *
 * A read error is still rebuilt and rewritten first (handle.c); only
 * when that rewrite fails is the row recorded.  When md cannot record it
 * (no bad-block log, as with 0.90 metadata, or the log is full) the
 * member is failed, as before.  Until md has written the record to the
 * superblocks (MD_SB_CHANGE_PENDING, which rdev_set_badblocks() sets)
 * writes are held, as after a member failure (km_hold_write()).
 */
#include "km.h"

/*
 * A member read of member sectors [@sector, +@sectors) failed (@how: ""
 * for the row path, or which path it was): say so and count it against
 * the member, which md fails past max_corr_read_errors, as raid5 does.
 * The caller rebuilds the rows and writes them back.
 */
void km_note_read_error(struct mddev *mddev, struct md_rdev *rdev,
			sector_t sector, unsigned int sectors, const char *how)
{
	pr_warn_ratelimited("md/km:%s: read error on %pg at sector %llu+%u%s, rebuilding it\n",
			    mdname(mddev), rdev->bdev,
			    (unsigned long long)sector, sectors, how);
	if (atomic_inc_return(&rdev->read_errors) >
	    atomic_read(&mddev->max_corr_read_errors)) {
		pr_err("md/km:%s: too many read errors on %pg, failing it\n",
		       mdname(mddev), rdev->bdev);
		md_error(mddev, rdev);
	}
}

/* Whether @rdev has a bad-block record in member sectors [@sector, +@sectors). */
bool km_rdev_bad(struct md_rdev *rdev, sector_t sector, int sectors)
{
	sector_t first_bad;
	int bad_sectors;

	return is_badblock(rdev, sector, sectors, &first_bad, &bad_sectors);
}

/*
 * Whether to write chunk @i of @sh to @rdev (the slot's member, or with
 * @repl its replacement), given the member's bad-block records: not over
 * a record while the member has failed writes; over an older record to
 * make it good (the slot's member only; the record is dropped by
 * km_bb_write_done() if the write succeeds).  A skipped write of the
 * member is flagged as written badly, so that the round counts the chunk
 * as lost.
 */
bool km_bb_write_ok(struct km_stripe *sh, int i, struct md_rdev *rdev,
		    bool repl)
{
	struct km_dev *dev = &sh->dev[i];

	if (!km_rdev_bad(rdev, sh->sector, KM_ROW_SECTORS))
		return true;
	if (test_bit(WriteErrorSeen, &rdev->flags)) {
		if (!repl) {
			set_bit(KM_DEV_WRITE_ERR, &dev->flags);
			set_bit(KM_DEV_BAD_ROW, &dev->flags);
		}
		return false;
	}
	if (!repl && !dev->bb_rdev) {
		atomic_inc(&rdev->nr_pending);
		dev->bb_rdev = rdev;
	}
	return true;
}

/*
 * A write of chunk @i's row to @rdev failed (bio end_io): record the row
 * as bad there.  False when md cannot; the caller fails the member then.
 */
bool km_bb_record(struct km_stripe *sh, int i, struct md_rdev *rdev)
{
	struct km_conf *conf = sh->conf;

	set_bit(WriteErrorSeen, &rdev->flags);
	/* md keeps records against data_offset, which a reshape moves */
	if (conf->reshaping)
		return false;
	if (!rdev_set_badblocks(rdev, sh->sector, KM_ROW_SECTORS, 0))
		return false;
	if (rdev == sh->dev[i].rdev)
		set_bit(KM_DEV_BAD_ROW, &sh->dev[i].flags);
	atomic64_inc(&conf->stats.bad_blocks_recorded);
	pr_warn_ratelimited("md/km:%s: %pg: member sectors %llu-%llu cannot be written: recorded as bad blocks, rebuilt from the other members from now on\n",
			    mdname(conf->mddev), rdev->bdev,
			    (unsigned long long)sh->sector,
			    (unsigned long long)sh->sector + KM_ROW_SECTORS - 1);
	return true;
}

/*
 * md thread, member writes of @sh done: drop the records of rows written
 * over them successfully.
 */
void km_bb_write_done(struct km_stripe *sh)
{
	struct km_conf *conf = sh->conf;
	int i;

	for (i = 0; i < conf->geom.n; i++) {
		struct km_dev *dev = &sh->dev[i];
		struct md_rdev *rdev = dev->bb_rdev;

		if (!rdev)
			continue;
		dev->bb_rdev = NULL;
		if (!test_bit(KM_DEV_WRITE_ERR, &dev->flags) &&
		    !rdev_clear_badblocks(rdev, sh->sector, KM_ROW_SECTORS, 0)) {
			atomic64_inc(&conf->stats.bad_blocks_cleared);
			pr_info_ratelimited("md/km:%s: %pg: member sectors %llu-%llu written again: bad-block record dropped\n",
					    mdname(conf->mddev), rdev->bdev,
					    (unsigned long long)sh->sector,
					    (unsigned long long)sh->sector +
					    KM_ROW_SECTORS - 1);
		}
		rdev_dec_pending(rdev, conf->mddev);
	}
}
