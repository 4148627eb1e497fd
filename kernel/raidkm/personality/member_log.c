// SPDX-License-Identifier: GPL-2.0
/*
 * The member log: the write journal's log (journal.c) kept on the
 * members themselves, so that an array closes the write hole without a
 * journal device and keeps md's write-intent bitmap (md runs no bitmap
 * beside a journal device, nor beside its own partial parity log).
 *
 * Where: the layout word's log code (RAIDKM_LAYOUT_LOG_SECTORS) gives
 * every member a log area, the last sectors of its data area, past the
 * array's data (mdadm leaves the room at create; the kernel refuses a
 * member without it).  md does not know of it.  One member, the log
 * member, holds the live log: its super and records, as a journal
 * device's; the other members' log supers are cleared whenever the log
 * is started, and a member's when it is added, so the one valid super
 * on an in-sync member with the highest sequence number is the log.
 *
 * What: a write round of the row path (a partial stripe) is logged whole,
 * as with a journal: its new data and parity pages.  A full-stripe write
 * (wide_write.c) of an optimal array (every member in sync, no
 * replacement) needs only to be known as possibly cut short: its parity
 * is computed again from the data on the members before the array
 * serves, so a crash that left some of its members written leaves no
 * stripe whose parity does not match its data.  With md's bitmap, whose
 * bits are on disk before any member write of their region, the bitmap
 * says so: such a write is not logged at all, and ->start recomputes
 * the bitmap's dirty regions after a crash (km_mlog_catch_up()).
 * Without a bitmap it is logged as one KM_JENT_RECOMPUTE entry without
 * pages, recomputed at replay.  Degraded, a full stripe is logged whole.
 * The parity recomputed goes through rkm_job_submit(), like every other
 * coding job.
 *
 * When the log member fails, the log moves: new records wait, the ones
 * whose member writes have not gone yet are written again on the next
 * in-sync member, and md may remove the failed member only after that.
 * See Documentation/personality.rst, "Member log".
 */
#include <linux/blkdev.h>
#include <linux/delay.h>
#include <linux/random.h>
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/seq_file.h>
#include "../uapi/raidkm_md.h"
#include "md.h"
#include "journal.h"

/* Sectors of every member's log area; 0: the array has no member log. */
sector_t km_mlog_sectors(struct mddev *mddev)
{
	return RAIDKM_LAYOUT_LOG_SECTORS(mddev->layout);
}

/* The data sector of @rdev's log super. */
static sector_t km_mlog_base(struct mddev *mddev, struct md_rdev *rdev)
{
	return rdev->sectors - km_mlog_sectors(mddev);
}

/* Whether @rdev holds @dev_sectors of data and the log area after them. */
static bool km_mlog_room(struct mddev *mddev, struct md_rdev *rdev,
			 sector_t dev_sectors)
{
	return rdev->sectors >= dev_sectors + km_mlog_sectors(mddev);
}

static bool km_mlog_member_ok(struct md_rdev *rdev)
{
	return rdev && !test_bit(Faulty, &rdev->flags) &&
	       test_bit(In_sync, &rdev->flags);
}

/* The in-sync member of the lowest slot, other than @not; or NULL. */
static struct md_rdev *km_mlog_pick(struct km_conf *conf,
				    struct md_rdev *not)
{
	struct md_rdev *rdev, *found = NULL;
	int i;

	rcu_read_lock();
	for (i = 0; i < conf->geom.n && !found; i++) {
		rdev = rcu_dereference(conf->disks[i].rdev);
		if (rdev != not && km_mlog_member_ok(rdev))
			found = rdev;
	}
	rcu_read_unlock();
	return found;
}

/* Clear @rdev's log super: whatever it held is not the log. */
static int km_mlog_clear(struct mddev *mddev, struct md_rdev *rdev)
{
	if (!sync_page_io(rdev, km_mlog_base(mddev, rdev), PAGE_SIZE,
			  ZERO_PAGE(0), REQ_OP_WRITE | REQ_SYNC | REQ_FUA,
			  false))
		return -EIO;
	return 0;
}

/* ---- replay: parity recomputed from the data ------------------------ */

static void km_mlog_job_done(struct rkm_job *job)
{
	complete(job->priv);
}

/* Encode the stripe in @buf (one chunk after another), waited for. */
static int km_mlog_encode(struct km_conf *conf, void *buf, u32 len)
{
	DECLARE_COMPLETION_ONSTACK(done);
	struct rkm_job job = {
		.op = RKM_JOB_ENCODE,
		.code = conf->code,
		.len = len,
		.waited = true,
		.done = km_mlog_job_done,
		.priv = &done,
	};
	int i;

	for (i = 0; i < conf->geom.n; i++)
		job.chunk[i] = (char *)buf + (size_t)i * len;
	if (conf->job_stats_registered)
		job.stats = &conf->job_stats;
	rkm_job_submit(&job);
	wait_for_completion(&done);
	return job.result;
}

/*
 * Read stripe @s's data chunks into their pages @pg (@parity false), or
 * write its parity chunks from theirs to the members present (@parity
 * true).  False
 * when a data chunk's member is missing or out of sync, or a read
 * failed: the stripe cannot be recomputed.
 */
static bool km_mlog_stripe_io(struct km_conf *conf, struct md_rdev **rdev,
			      sector_t s, struct page **pg, bool parity)
{
	struct km_geom *g = &conf->geom;
	unsigned int cp = g->chunk_sectors / KM_ROW_SECTORS;
	int i;

	for (i = 0; i < g->n; i++) {
		int c = km_member_chunk(g, s, i);
		bool ok;

		if ((c >= g->k) != parity || (parity && !rdev[i]))
			continue;
		ok = rdev[i] &&
		     km_j_io(rdev[i], s << g->chunk_shift, pg + c * cp, cp,
			     parity ? REQ_OP_WRITE : REQ_OP_READ);
		if (!ok && !parity)
			return false;
	}
	return true;
}

/*
 * A KM_JENT_RECOMPUTE entry at replay: @rows rows of every member from
 * member sector @lo, whole chunk stripes.  Each stripe's parity is
 * computed from its data on the members and written; a stripe with a
 * data member missing is left (its rows counted in @skipped).  Returns
 * the rows recomputed.  The
 * stripe's buffers are an arena run (wide_buf.c), so that raidkmd codes
 * the encode when one serves.
 */
unsigned int km_mlog_recompute(struct km_journal *j, sector_t lo,
			       unsigned int rows, unsigned int *skipped)
{
	struct km_conf *conf = j->conf;
	struct km_geom *g = &conf->geom;
	unsigned int cp = g->chunk_sectors / KM_ROW_SECTORS;
	unsigned int t, pages = g->n * cp, done = 0;
	struct md_rdev *rdev[RKM_MAX_N];
	sector_t s = lo >> g->chunk_shift;
	struct page **pg;
	bool arena;
	void *buf;
	int i;

	pg = kcalloc(pages, sizeof(*pg), GFP_KERNEL);
	buf = pg ? km_wide_get_run(conf, pages, &arena) : NULL;
	if (!buf) {
		kfree(pg);
		*skipped += rows;
		return 0;
	}
	for (t = 0; t < pages; t++)
		pg[t] = km_wide_page((char *)buf + ((size_t)t << PAGE_SHIFT),
				     arena);
	for (i = 0; i < g->n; i++) {
		rdev[i] = km_j_get_member(conf, i, false);
		if (rdev[i] && !test_bit(In_sync, &rdev[i]->flags)) {
			rdev_dec_pending(rdev[i], conf->mddev);
			rdev[i] = NULL;
		}
	}
	for (t = 0; t < rows / cp; t++, s++) {
		if (!km_mlog_stripe_io(conf, rdev, s, pg, false) ||
		    km_mlog_encode(conf, buf, cp << PAGE_SHIFT)) {
			*skipped += cp;
			continue;
		}
		km_mlog_stripe_io(conf, rdev, s, pg, true);
		done += cp;
	}
	for (i = 0; i < g->n; i++)
		if (rdev[i])
			rdev_dec_pending(rdev[i], conf->mddev);
	km_wide_put_run(conf, buf, pages, arena);
	kfree(pg);
	return done;
}

/* ---- moving the log off a failed member ----------------------------- */

/*
 * Whether no record of the log is being written, and every record whose
 * member writes went has seen them end (j->lock held).
 */
static bool km_mlog_settled(struct km_journal *j)
{
	struct km_jrec *rec;

	list_for_each_entry(rec, &j->records, node) {
		if (rec->state == KM_JR_WRITING)
			return false;
		if (rec->state == KM_JR_RELEASED && rec->users)
			return false;
	}
	return true;
}

/*
 * Start the log afresh on @to (j->lock held): records done go back to
 * the pool, and the ones whose member writes have not gone are placed
 * again, in order, to be written there; *@seq is the sequence number at
 * the log's start.  False when they do not fit (never: they fitted a log
 * of the same size before).
 */
static bool km_mlog_rehome(struct km_journal *j, struct md_rdev *to,
			   u64 *seq)
{
	struct km_jrec *rec, *tmp;

	list_for_each_entry_safe(rec, tmp, &j->records, node)
		if (rec->state == KM_JR_RELEASED)
			km_j_free_record(j, rec);
	j->head = 0;
	j->tail = 0;
	*seq = j->next_seq;
	list_for_each_entry(rec, &j->records, node) {
		if (rec->state == KM_JR_OPEN)
			continue;
		if (!km_j_place(j, rec))
			return false;
		rec->state = KM_JR_CLOSED;
	}
	j->rdev = to;
	j->base = km_mlog_base(j->conf->mddev, to);
	return true;
}

/* No member to move to: writes go on, unprotected, as without a log. */
static void km_mlog_give_up(struct km_journal *j)
{
	WRITE_ONCE(j->failed, true);
	WRITE_ONCE(j->moving, false);
	pr_crit("md/km:%s: member log: no in-sync member to hold it: writes are not logged (the write hole is open) until the array is assembled again\n",
		mdname(j->conf->mddev));
}

static void km_mlog_move_work(struct work_struct *work)
{
	struct km_journal *j = container_of(work, struct km_journal,
					    move_work);
	struct mddev *mddev = j->conf->mddev;
	struct md_rdev *from = j->rdev, *to;
	u64 seq;

	mutex_lock(&j->cp_mutex);
	for (;;) {
		spin_lock_irq(&j->lock);
		if (km_mlog_settled(j))
			break;
		spin_unlock_irq(&j->lock);
		usleep_range(5000, 10000);
	}
	to = km_mlog_pick(j->conf, from);
	if (!to || !km_mlog_rehome(j, to, &seq)) {
		km_mlog_give_up(j);
		spin_unlock_irq(&j->lock);
		goto out;
	}
	spin_unlock_irq(&j->lock);
	if (km_j_write_super(j, 0, seq)) {
		/* that member fails too: km_error() queues this again */
		md_error(mddev, to);
		goto out;
	}
	atomic64_inc(&j->stats.moves);
	pr_warn("md/km:%s: member log moved from %pg to %pg\n",
		mdname(mddev), from->bdev, to->bdev);
	spin_lock_irq(&j->lock);
	WRITE_ONCE(j->moving, false);
	spin_unlock_irq(&j->lock);
out:
	mutex_unlock(&j->cp_mutex);
	md_wakeup_thread(mddev->thread);
}

/* km_error(): @rdev failed; when it holds the log, the log moves. */
void km_mlog_member_failed(struct km_conf *conf, struct md_rdev *rdev)
{
	struct km_journal *j = conf->journal;
	unsigned long flags;

	if (!j || !j->members || READ_ONCE(j->rdev) != rdev)
		return;
	spin_lock_irqsave(&j->lock, flags);
	WRITE_ONCE(j->moving, true);
	spin_unlock_irqrestore(&j->lock, flags);
	queue_work(conf->retry_wq, &j->move_work);
}

/* ---- start, members coming and going -------------------------------- */

/* The in-sync member whose log super is valid and newest, or NULL. */
static struct md_rdev *km_mlog_find(struct km_journal *j)
{
	struct km_conf *conf = j->conf;
	struct md_rdev *rdev, *best = NULL;
	u64 seq, best_seq = 0;
	sector_t tail;
	int i;

	for (i = 0; i < conf->geom.n; i++) {
		rdev = rcu_access_pointer(conf->disks[i].rdev);
		if (!km_mlog_member_ok(rdev))
			continue;
		j->rdev = rdev;
		j->base = km_mlog_base(conf->mddev, rdev);
		if (km_j_read_super(j, &tail, &seq) &&
		    (!best || seq > best_seq)) {
			best = rdev;
			best_seq = seq;
		}
	}
	return best;
}

/* Whether every member (and replacement) has room for the log. */
static bool km_mlog_fits(struct km_conf *conf, sector_t dev_sectors)
{
	struct mddev *mddev = conf->mddev;
	struct md_rdev *rdev;

	rdev_for_each(rdev, mddev) {
		if (rdev->raid_disk < 0 || test_bit(Journal, &rdev->flags))
			continue;
		if (!km_mlog_room(mddev, rdev, dev_sectors)) {
			pr_err("md/km:%s: member %pg has no room for the member log: %llu sectors, %llu of data and %llu of log needed\n",
			       mdname(mddev), rdev->bdev,
			       (unsigned long long)rdev->sectors,
			       (unsigned long long)dev_sectors,
			       (unsigned long long)km_mlog_sectors(mddev));
			return false;
		}
	}
	return true;
}

/* Start the log on @j->rdev: replay a log found there, or a new one. */
static int km_mlog_start(struct km_journal *j, bool found)
{
	struct mddev *mddev = j->conf->mddev;

	if (found)
		return km_j_recover(j);
	j->head = 0;
	j->tail = 0;
	j->next_seq = get_random_u64() >> 1;
	pr_info("md/km:%s: member log on %pg: new, %llu KiB of log\n",
		mdname(mddev), j->rdev->bdev,
		(unsigned long long)j->size / 2);
	return km_j_write_super(j, 0, j->next_seq);
}

/*
 * At run: an array whose layout has a member log finds its log on the
 * in-sync members, replays it before anything else, and logs from now
 * on; the other members' log supers are cleared.
 */
int km_mlog_init(struct km_conf *conf)
{
	struct mddev *mddev = conf->mddev;
	sector_t size = (km_mlog_sectors(mddev) - KM_J_SUPER_SECTORS) &
			~(sector_t)KM_ROW_MASK;
	struct md_rdev *rdev, *found;
	struct km_journal *j;
	int ret;

	if (!km_mlog_sectors(mddev))
		return 0;
	if (conf->prev) {
		pr_err("md/km:%s: a reshape cannot run with a member log\n",
		       mdname(mddev));
		return -EINVAL;
	}
	if (!km_mlog_fits(conf, mddev->dev_sectors))
		return -EINVAL;
	j = km_j_alloc(conf, NULL, 0, size);
	if (!j)
		return -ENOMEM;
	if (!j->max_pages) {
		pr_err("md/km:%s: a member log of %llu KiB is too small for %d members: %d KiB at least\n",
		       mdname(mddev),
		       (unsigned long long)km_mlog_sectors(mddev) / 2,
		       conf->geom.n, RAIDKM_JOURNAL_MIN_KIB(conf->geom.n));
		km_j_free(j);
		return -EINVAL;
	}
	j->members = true;
	INIT_WORK(&j->move_work, km_mlog_move_work);
	found = km_mlog_find(j);
	j->rdev = found ? found : km_mlog_pick(conf, NULL);
	if (!j->rdev) {
		km_j_free(j);
		return -EIO;
	}
	j->base = km_mlog_base(mddev, j->rdev);
	ret = km_mlog_start(j, found);
	if (ret) {
		pr_err("md/km:%s: member log on %pg cannot be started: %d\n",
		       mdname(mddev), j->rdev->bdev, ret);
		km_j_free(j);
		return ret;
	}
	rdev_for_each(rdev, mddev)
		if (rdev->raid_disk >= 0 && rdev != j->rdev &&
		    !test_bit(Faulty, &rdev->flags) &&
		    !test_bit(Journal, &rdev->flags))
			km_mlog_clear(mddev, rdev);
	conf->journal = j;
	return 0;
}

/*
 * Whether a full-stripe write may log recompute entries: the array
 * has a member log that is not moving and no member is missing.
 */
bool km_mlog_light(struct km_conf *conf)
{
	struct km_journal *j = conf->journal;

	return j && j->members && !READ_ONCE(j->failed) &&
	       !conf->mddev->degraded;
}

/* A member or replacement added: it needs the room; its log is cleared. */
int km_mlog_add(struct km_conf *conf, struct md_rdev *rdev)
{
	struct mddev *mddev = conf->mddev;

	if (!conf->journal || !conf->journal->members)
		return 0;
	if (!km_mlog_room(mddev, rdev, mddev->dev_sectors)) {
		pr_err("md/km:%s: %pg has no room for the member log: %llu sectors, %llu needed\n",
		       mdname(mddev), rdev->bdev,
		       (unsigned long long)rdev->sectors,
		       (unsigned long long)(mddev->dev_sectors +
					    km_mlog_sectors(mddev)));
		return -EINVAL;
	}
	return km_mlog_clear(mddev, rdev);
}

/* The log member leaves only once the log has moved off it. */
int km_mlog_remove(struct km_conf *conf, struct md_rdev *rdev)
{
	struct km_journal *j = conf->journal;

	if (j && j->members && READ_ONCE(j->rdev) == rdev)
		return -EBUSY;
	return 0;
}

/* mdadm --grow --size: the data may not reach into the log areas. */
int km_mlog_resize(struct km_conf *conf, sector_t sectors)
{
	if (!km_mlog_sectors(conf->mddev) || km_mlog_fits(conf, sectors))
		return 0;
	return -EINVAL;
}

/* /proc/mdstat: where the log is, after the members' pattern. */
void km_mlog_status(struct seq_file *seq, struct km_conf *conf)
{
	struct km_journal *j = conf->journal;

	if (!j || !j->members)
		return;
	if (READ_ONCE(j->moving))
		seq_puts(seq, " member log moving");
	else if (READ_ONCE(j->failed))
		seq_puts(seq, " member log unprotected");
	else
		seq_printf(seq, " member log on %pg", READ_ONCE(j->rdev)->bdev);
}

/*
 * ->start, the bitmap loaded, before the array serves: after a crash,
 * the parity of the bitmap's dirty regions (where full stripes of an
 * optimal array went unlogged) is computed again from the data.  The
 * bits stay for md's resync, which then finds nothing to mend.
 */
void km_mlog_catch_up(struct km_conf *conf)
{
	struct mddev *mddev = conf->mddev;
	struct km_journal *j = conf->journal;
	sector_t cs = conf->geom.chunk_sectors, pos = 0, done = 0, blocks;
	unsigned int skipped = 0;
	u64 rows = 0;

	if (!j || !j->members || !mddev->bitmap ||
	    RKM_RESYNC_OFFSET(mddev) == MaxSector)
		return;
	if (mddev->degraded) {
		pr_warn("md/km:%s: member log: a member is missing: the bitmap's dirty regions are left to md's resync\n",
			mdname(mddev));
		return;
	}
	while (pos < mddev->dev_sectors) {
		/* degraded=true: a query, the bits are not touched */
		bool need = rkm_bitmap_start_sync(mddev, pos, &blocks, true);
		sector_t lo = max(round_down(pos, cs), done);
		sector_t hi = min(round_up(pos + blocks, cs),
				  mddev->dev_sectors);

		if (!blocks)
			break;
		if (need && lo < hi) {
			rows += km_mlog_recompute(j, lo,
						  (hi - lo) / KM_ROW_SECTORS,
						  &skipped);
			done = hi;
		}
		pos += blocks;
	}
	atomic64_add(rows, &j->stats.recomputed_rows);
	atomic64_add(skipped, &j->stats.skipped_rows);
	pr_info("md/km:%s: member log: parity of %llu rows in the bitmap's dirty regions recomputed (%u rows skipped)\n",
		mdname(mddev), (unsigned long long)rows, skipped);
}

/*
 * Whether a full-stripe write of an optimal array (km_mlog_light()) goes
 * unlogged: md's bitmap marks its region before its member writes.
 */
bool km_mlog_bitmap_takes(struct km_conf *conf)
{
	if (!conf->mddev->bitmap)
		return false;
	atomic64_inc(&conf->journal->stats.bitmap_writes);
	return true;
}
