// SPDX-License-Identifier: GPL-2.0
/*
 * Rebuild, resync and check by windows of many rows.  md's sync thread
 * asks ->sync_request for one sector at a time; where it can, km answers
 * with a window of rows instead of one row (sync.c keeps the row path):
 *
 *   the window  member rows [lo, hi) of one chunk stripe (chunk roles
 *               change at its end), within md's max_sector and the
 *               bitmap's sync blocks (a clean bitmap chunk ends it), at
 *               most wide_sync_max_rows rows (the ring's longest job:
 *               256) and KM_WIDE_MAX_PAGES pages of buffers;
 *   recovery    one bio per survivor over the window into one arena run,
 *               one DECODE job whose wanted mask is the chunks being
 *               rebuilt (members being recovered, replacements being
 *               built: readable chunks of a replaced slot are copied as
 *               read), one write per rebuilt member and replacement;
 *   resync,     one bio per member, one CHECK job for the window; a
 *   check,      consistent window writes nothing; any mismatch sends the
 *   repair      window to the row path, which counts mismatch_cnt per
 *               row and (resync, repair) rewrites or repairs each row.
 *
 * md_done_sync() is told the window's sectors when it ends, so md's
 * speed_limit_min/max govern windows as they do rows; md_sync_acct_bio()
 * counts their member I/O.
 *
 * Exclusion: a window claims its rows from the stripe cache (claim.c, as
 * a discard does) before its first read and releases them after its last
 * write, so no write round of those rows runs meanwhile: new stripes for
 * them wait in km_get_stripe(), stripes in use drain first.  Its member
 * writes are bracketed by km_gen_write_begin/end(), so wide reads of the
 * chunk stripe that overlap them go by rows (write_gen.c).
 *
 * Fallbacks: the row path (with its error handling) redoes the whole
 * window on a member read or write error, a failed job, a check mismatch,
 * or a member that went away; a bad-block record in the window, more
 * than m lost chunks, a degraded resync or check, or no arena run (with
 * none of its own windows in flight to wait for) send it to rows before
 * any I/O.  Windows are off during a reshape and with
 * wide_sync_max_rows = 0.  Each fallback is counted by reason.
 *
 * A window holds conf->active_reads from its claim to its end, so that a
 * quiesce waits for it.  Windows start while fewer than
 * KM_WSYNC_INFLIGHT windows are in flight and their buffers come to less
 * than KM_WSYNC_INFLIGHT_PAGES (four of the largest windows) and half the
 * arena's run zone (km_wsync_room): a small chunk makes short windows (16
 * rows at 64 KiB), and four of those left the sync waiting on each job's
 * round trip with the CPUs idle.
 */
#include <linux/blkdev.h>
#include <linux/slab.h>
#include <linux/mm.h>
#include "km.h"
#include "../rkm_arena.h"
#include "../offload.h"
#include "../uapi/raidkm.h"

#define KM_WSYNC_INFLIGHT	32
#define KM_WSYNC_INFLIGHT_PAGES	(4 * KM_WIDE_MAX_PAGES)

struct km_wsync {
	struct km_conf *conf;
	struct km_claim claim;		/* rows [lo, hi) */
	enum km_sync_mode mode;
	sector_t cstripe;
	unsigned int rows;
	km_mask_t read;			/* chunks read */
	km_mask_t want;			/* chunks decoded */
	km_mask_t main, repl;		/* written to members, replacements */
	void *run;			/* buffers: rows pages per chunk */
	unsigned int run_pages;
	bool run_arena;			/* from the arena (else kvmalloc) */
	void *scratch;			/* check: m * rows pages */
	void *buf[RKM_MAX_N];
	struct md_rdev *rdev[RKM_MAX_N];	/* read from */
	atomic_t pending;
	bool io_failed;
	struct rkm_job job;
	struct work_struct work;
};

/* Front of a window's member bio (conf->wsync_bio_set). */
struct km_wsync_bio {
	struct km_wsync *w;
	struct md_rdev *rdev;		/* written to (reads: w->rdev) */
	struct bio bio;
};

static km_mask_t km_bit(int i)
{
	return (km_mask_t)1 << i;
}

static sector_t km_wsync_sectors(struct km_wsync *w)
{
	return (sector_t)w->rows * KM_ROW_SECTORS;
}

static void km_wsync_count(struct km_conf *conf, enum km_wsync_fallback why)
{
	atomic64_inc(&conf->wsync_stats.fallbacks[why]);
}

/* Whether @rdev holds member sectors [@lo, @lo + @sectors) rebuilt. */
static bool km_rebuilt(struct md_rdev *rdev, sector_t lo, sector_t sectors)
{
	return test_bit(In_sync, &rdev->flags) ||
		lo + sectors <= rdev->recovery_offset;
}

/*
 * The chunks of @w's window: lost (not readable over all of it), to
 * rebuild on a member (lost, with a live member in the slot), to build
 * on a replacement; *@bad when a member or replacement of the window has
 * a bad-block record there.
 */
static km_mask_t km_wsync_masks(struct km_wsync *w, bool *bad)
{
	struct km_conf *conf = w->conf;
	sector_t lo = w->claim.lo, nr = km_wsync_sectors(w);
	km_mask_t lost = 0;
	int i;

	*bad = false;
	w->main = 0;
	w->repl = 0;
	rcu_read_lock();
	for (i = 0; i < conf->geom.n; i++) {
		int member = km_chunk_member(&conf->geom, w->cstripe, i);
		struct km_disk *p = &conf->disks[member];
		struct md_rdev *rdev = km_live(rcu_dereference(p->rdev));
		struct md_rdev *repl = km_live(rcu_dereference(p->replacement));

		if ((rdev && km_rdev_bad(rdev, lo, nr)) ||
		    (repl && km_rdev_bad(repl, lo, nr)))
			*bad = true;
		if (repl == rdev)
			repl = NULL;
		if (!km_slot_readable(conf, member, lo) ||
		    !km_slot_readable(conf, member, lo + nr - KM_ROW_SECTORS)) {
			lost |= km_bit(i);
			if (rdev && !km_rebuilt(rdev, lo, nr))
				w->main |= km_bit(i);
		}
		if (repl && !km_rebuilt(repl, lo, nr))
			w->repl |= km_bit(i);
	}
	rcu_read_unlock();
	return lost;
}

/*
 * Plan @w: the chunks to read, decode and write.  Returns the reason to
 * go by rows, KM_WS_NR to sync the window, or -1 when there is nothing to
 * write (a recovery window of a slot with no member to rebuild).
 */
static int km_wsync_plan(struct km_wsync *w)
{
	struct km_geom *g = &w->conf->geom;
	km_mask_t lost;
	bool bad;

	lost = km_wsync_masks(w, &bad);
	if (bad)
		return KM_WS_BAD_BLOCK;
	if (km_popcount(lost) > g->m)
		return KM_WS_LOST;
	if (w->mode != KM_SYNC_RECOVER) {
		/* the row path decodes a degraded row and calls it good */
		if (lost)
			return KM_WS_DEGRADED;
		w->read = km_mask_all(g->n);
		w->want = 0;
		return KM_WS_NR;
	}
	if (!(w->main | w->repl))
		return -1;
	if (km_plan_rebuild(g->k, g->n, lost, w->main | w->repl, &w->read,
			    &w->want))
		return KM_WS_LOST;
	return KM_WS_NR;
}

/* Pages of buffers per row: every chunk read or decoded. */
static unsigned int km_wsync_row_pages(struct km_wsync *w)
{
	return km_popcount(w->read | w->want);
}

/*
 * The end of the window from @lo within @end: stop before the first
 * bitmap chunk that needs no sync (unless everything is synced: a full
 * sync, or a check or repair).  Each chunk is started as the row path
 * starts it (md_bitmap_start_sync), the first one included.
 */
static sector_t km_wsync_bitmap_end(struct km_conf *conf, sector_t lo,
				    sector_t end, bool still_degraded)
{
	struct mddev *mddev = conf->mddev;
	bool all = conf->fullsync ||
		   test_bit(MD_RECOVERY_REQUESTED, &mddev->recovery);
	sector_t pos = lo, blocks;

	while (pos < end) {
		bool need = rkm_bitmap_start_sync(mddev, pos, &blocks,
						  still_degraded);

		if (!need && !all && pos > lo)
			break;
		pos += blocks;
	}
	return min(pos, end) & ~KM_ROW_MASK;
}

/*
 * Buffers for @w: an arena run (when every run is taken by windows in
 * flight, wait for them), or memory of its own where the arena has no run
 * that large; a check's scratch besides.  false: no memory.
 */
static bool km_wsync_buffers(struct km_wsync *w)
{
	struct km_conf *conf = w->conf;

	w->run_pages = km_wsync_row_pages(w) * w->rows;
	if (km_wide_run_fits(w->run_pages)) {
		w->run = rkm_arena_alloc_run(w->run_pages);
		if (!w->run && atomic_read(&conf->wsync_inflight)) {
			wait_event(conf->wsync_wait,
				   !atomic_read(&conf->wsync_inflight));
			w->run = rkm_arena_alloc_run(w->run_pages);
		}
		w->run_arena = w->run != NULL;
	} else {
		w->run = km_wide_own_buf((size_t)w->run_pages << PAGE_SHIFT);
	}
	if (!w->run)
		return false;
	km_wide_carve(w->run, w->rows, w->read | w->want, conf->geom.n, w->buf);
	if (w->mode == KM_SYNC_RECOVER)
		return true;
	w->scratch = km_wide_own_buf((size_t)conf->geom.m * w->rows *
				      PAGE_SIZE);
	return w->scratch != NULL;
}

static void km_wsync_free_buffers(struct km_wsync *w)
{
	struct km_conf *conf = w->conf;

	kvfree(w->scratch);
	w->scratch = NULL;
	km_wide_put_run(conf, w->run, w->run_pages, w->run_arena);
	w->run = NULL;
}

/* Take a reference on every member read; false if one went away. */
static bool km_wsync_get_rdevs(struct km_wsync *w)
{
	struct km_conf *conf = w->conf;
	int i;

	for (i = 0; i < conf->geom.n; i++) {
		if (!(w->read & km_bit(i)))
			continue;
		w->rdev[i] = km_read_rdev(conf,
					  km_chunk_member(&conf->geom,
							  w->cstripe, i),
					  w->claim.lo, km_wsync_sectors(w));
		if (!w->rdev[i])
			return false;
	}
	return true;
}

/* The window is over: let quiesce and the next window go on. */
static void km_wsync_leave(struct km_wsync *w)
{
	struct km_conf *conf = w->conf;

	km_leave(conf);
	atomic_sub(w->run_pages, &conf->wsync_pages);
	atomic_dec(&conf->wsync_inflight);
	wake_up(&conf->wsync_wait);
}

static void km_wsync_count_size(struct km_conf *conf, unsigned int rows)
{
	int b = rows < 16 ? 0 : rows < 64 ? 1 : rows < 128 ? 2 :
		rows < 256 ? 3 : 4;

	atomic64_inc(&conf->wsync_stats.sizes[b]);
}

/* The window is synced: tell md. */
static void km_wsync_done(struct km_wsync *w)
{
	struct km_conf *conf = w->conf;

	km_wide_put_rdevs(w->conf, w->rdev);
	km_wsync_free_buffers(w);
	km_claim_release(conf, &w->claim);
	atomic64_inc(&conf->wsync_stats.whole);
	md_done_sync(conf->mddev, km_wsync_sectors(w), 1);
	km_wsync_leave(w);
	kfree(w);
}

/*
 * Redo the window by rows (process context, nothing of it in flight):
 * the row path tells md_done_sync() each row's sectors.
 */
static void km_wsync_fallback(struct km_wsync *w, enum km_wsync_fallback why)
{
	struct km_conf *conf = w->conf;
	sector_t row;

	km_wsync_count(conf, why);
	km_wide_put_rdevs(w->conf, w->rdev);
	km_wsync_free_buffers(w);
	km_claim_release(conf, &w->claim);
	for (row = w->claim.lo; row < w->claim.hi; row += KM_ROW_SECTORS)
		km_sync_row(conf, row, KM_ROW_SECTORS);
	km_wsync_leave(w);
	kfree(w);
}

static struct bio *km_wsync_bio(struct km_wsync *w, struct md_rdev *rdev,
				int i, blk_opf_t opf, bio_end_io_t *end_io)
{
	struct km_conf *conf = w->conf;
	struct km_wsync_bio *wb;
	struct bio *bio;

	bio = bio_alloc_bioset(rdev->bdev, w->rows, opf, GFP_NOIO,
			       &conf->wsync_bio_set);
	wb = container_of(bio, struct km_wsync_bio, bio);
	wb->w = w;
	wb->rdev = rdev;
	bio->bi_iter.bi_sector = w->claim.lo + km_data_offset(conf, rdev);
	km_wide_add_pages(bio, w->buf[i], w->rows, w->run_arena);
	bio->bi_end_io = end_io;
	md_sync_acct_bio(bio, km_wsync_sectors(w));
	atomic64_inc(&conf->wsync_stats.member_bios);
	atomic64_add(km_wsync_sectors(w) << 9, &conf->wsync_stats.member_bytes);
	atomic_inc(&w->pending);
	return bio;
}

static void km_wsync_written(struct work_struct *work)
{
	struct km_wsync *w = container_of(work, struct km_wsync, work);

	km_gen_write_end(w->conf, w->cstripe);
	if (READ_ONCE(w->io_failed)) {
		km_wsync_fallback(w, KM_WS_WRITE_ERROR);
		return;
	}
	km_wsync_done(w);
}

static void km_wsync_end_write(struct bio *bio)
{
	struct km_wsync_bio *wb = container_of(bio, struct km_wsync_bio, bio);
	struct km_wsync *w = wb->w;

	if (bio->bi_status)
		WRITE_ONCE(w->io_failed, true);
	rdev_dec_pending(wb->rdev, w->conf->mddev);
	bio_put(bio);
	if (atomic_dec_and_test(&w->pending)) {
		INIT_WORK(&w->work, km_wsync_written);
		queue_work(w->conf->retry_wq, &w->work);
	}
}

/* The member of chunk @i's slot, or with @repl its replacement, to write. */
static struct md_rdev *km_wsync_target(struct km_wsync *w, int i, bool repl)
{
	struct km_conf *conf = w->conf;
	int member = km_chunk_member(&conf->geom, w->cstripe, i);

	return repl ? km_get_replacement(conf, member) :
		      km_write_rdev(conf, member);
}

/* One write per rebuilt member and replacement over the whole window. */
static void km_wsync_write(struct km_wsync *w)
{
	struct km_conf *conf = w->conf;
	int i, r;

	km_gen_write_begin(conf, w->cstripe);
	atomic_set(&w->pending, 1);
	for (i = 0; i < conf->geom.n; i++) {
		for (r = 0; r < 2; r++) {
			km_mask_t which = r ? w->repl : w->main;
			struct md_rdev *rdev;

			if (!(which & km_bit(i)))
				continue;
			rdev = km_wsync_target(w, i, r);
			if (!rdev) {
				/* gone since the plan: the row path decides */
				WRITE_ONCE(w->io_failed, true);
				continue;
			}
			submit_bio_noacct(km_wsync_bio(w, rdev, i,
						       REQ_OP_WRITE,
						       km_wsync_end_write));
		}
	}
	if (atomic_dec_and_test(&w->pending))
		km_wsync_written(&w->work);
}

static void km_wsync_job_done_work(struct work_struct *work)
{
	struct km_wsync *w = container_of(work, struct km_wsync, work);
	int result = w->job.result;

	if (result < 0) {
		pr_warn_ratelimited("md/km:%s: sync window job failed (%d), syncing by rows\n",
				    mdname(w->conf->mddev), result);
		km_wsync_fallback(w, KM_WS_JOB);
	} else if (w->mode == KM_SYNC_RECOVER) {
		km_wsync_write(w);
	} else if (result) {
		/* the row path finds, counts and fixes the rows */
		km_wsync_fallback(w, KM_WS_MISMATCH);
	} else {
		km_wsync_done(w);
	}
}

static void km_wsync_job_done(struct rkm_job *job)
{
	struct km_wsync *w = job->priv;

	INIT_WORK(&w->work, km_wsync_job_done_work);
	queue_work(w->conf->retry_wq, &w->work);
}

/* One DECODE (recovery) or CHECK job over the window. */
static void km_wsync_submit_job(struct km_wsync *w)
{
	struct km_conf *conf = w->conf;
	struct km_geom *g = &conf->geom;
	struct rkm_job *job = &w->job;
	int i;

	memset(job, 0, sizeof(*job));
	job->code = conf->code;
	job->len = w->rows << PAGE_SHIFT;
	if (w->mode == KM_SYNC_RECOVER) {
		/* the first k chunks read are the decode's survivors */
		job->op = RKM_JOB_DECODE;
		job->mask = km_plan_decode_mask(g->k, g->n, w->read, w->want);
		job->want = w->want;
	} else {
		job->op = RKM_JOB_CHECK;
		job->scratch = w->scratch;
	}
	for (i = 0; i < g->n; i++)
		job->chunk[i] = w->buf[i];
	if (conf->job_stats_registered)
		job->stats = &conf->job_stats;
	job->done = km_wsync_job_done;
	job->priv = w;
	atomic64_inc(&conf->wsync_stats.jobs);
	rkm_job_submit(job);
}

/* Every member read is in (process context). */
static void km_wsync_read_done(struct work_struct *work)
{
	struct km_wsync *w = container_of(work, struct km_wsync, work);

	km_wide_put_rdevs(w->conf, w->rdev);
	if (READ_ONCE(w->io_failed)) {
		km_wsync_fallback(w, KM_WS_READ_ERROR);
		return;
	}
	if (w->mode == KM_SYNC_RECOVER && !w->want) {
		/* a replacement copied from the member it replaces */
		km_wsync_write(w);
		return;
	}
	km_wsync_submit_job(w);
}

static void km_wsync_end_read(struct bio *bio)
{
	struct km_wsync_bio *wb = container_of(bio, struct km_wsync_bio, bio);
	struct km_wsync *w = wb->w;

	if (bio->bi_status)
		WRITE_ONCE(w->io_failed, true);
	bio_put(bio);
	if (atomic_dec_and_test(&w->pending)) {
		INIT_WORK(&w->work, km_wsync_read_done);
		queue_work(w->conf->code_wq, &w->work);
	}
}

/* One bio per member read, over the whole window. */
static void km_wsync_submit_reads(struct km_wsync *w)
{
	int i;

	atomic_set(&w->pending, 1);
	for (i = 0; i < w->conf->geom.n; i++)
		if (w->read & km_bit(i))
			submit_bio_noacct(km_wsync_bio(w, w->rdev[i], i,
						       REQ_OP_READ,
						       km_wsync_end_read));
	if (atomic_dec_and_test(&w->pending)) {
		INIT_WORK(&w->work, km_wsync_read_done);
		queue_work(w->conf->code_wq, &w->work);
	}
}

/*
 * Count the window in (conf->active_reads, for quiesce; the windows and
 * their buffer pages in flight), unless a quiesce is under way: then
 * false, and the caller goes by rows.
 */
static bool km_wsync_enter(struct km_wsync *w)
{
	struct km_conf *conf = w->conf;

	atomic_inc(&conf->active_reads);
	smp_mb__after_atomic();	/* count, then look at quiesce */
	if (READ_ONCE(conf->quiesce)) {
		km_leave(conf);
		return false;
	}
	atomic_inc(&conf->wsync_inflight);
	atomic_add(w->run_pages, &conf->wsync_pages);
	return true;
}

/*
 * Room for one more window in flight: fewer than KM_WSYNC_INFLIGHT, and
 * their buffers under KM_WSYNC_INFLIGHT_PAGES and half the arena's run
 * zone (the rest stays for wide reads and writes).
 */
static bool km_wsync_room(struct km_conf *conf)
{
	u64 total, free, fallbacks, cap = KM_WSYNC_INFLIGHT_PAGES;

	rkm_arena_run_counts(&total, &free, &fallbacks);
	cap = min(cap, max_t(u64, total / 2, 1));
	return atomic_read(&conf->wsync_inflight) < KM_WSYNC_INFLIGHT &&
	       atomic_read(&conf->wsync_pages) < cap;
}

/*
 * Size and plan a window from member row @lo: *@plan is KM_WS_NR to sync
 * it, a reason to sync its rows by rows, or -1 for nothing to write.
 * false: not a window; the caller syncs one row.
 */
static bool km_wsync_prepare(struct km_wsync *w, sector_t lo,
			     sector_t max_sector, bool still_degraded,
			     int *plan)
{
	struct km_conf *conf = w->conf;
	struct km_geom *g = &conf->geom;
	unsigned int max = min_t(unsigned int,
				 READ_ONCE(conf->wsync_max_rows),
				 KM_WSYNC_MAX_ROWS);
	sector_t hi;

	w->mode = km_sync_mode_of(conf->mddev);
	w->cstripe = lo >> g->chunk_shift;
	w->claim.lo = lo;
	w->rows = km_plan_window_rows(lo, max_sector, g->chunk_sectors,
				      KM_ROW_SECTORS, max);
	if (w->rows < 2)
		return false;
	/* buffers bound the window, then the bitmap */
	if (km_wsync_plan(w) == KM_WS_NR)
		w->rows = min_t(unsigned int, w->rows,
				KM_WIDE_MAX_PAGES / km_wsync_row_pages(w));
	hi = km_wsync_bitmap_end(conf, lo, lo + km_wsync_sectors(w),
				 still_degraded);
	w->rows = (hi - lo) / KM_ROW_SECTORS;
	w->claim.hi = hi;
	if (w->rows < 2)
		return false;
	*plan = km_wsync_plan(w);
	return true;
}

/*
 * The plan again once the rows are claimed: a member may have failed, or
 * a row of the window been recorded bad, since.  KM_WS_NR when nothing
 * changed, else the reason to go by rows.
 */
static int km_wsync_replan(struct km_wsync *w)
{
	km_mask_t read = w->read, want = w->want;
	km_mask_t main = w->main, repl = w->repl;
	int plan = km_wsync_plan(w);

	if (plan != KM_WS_NR)
		return plan < 0 ? KM_WS_GONE : plan;
	if (read != w->read || want != w->want || main != w->main ||
	    repl != w->repl)
		return KM_WS_GONE;
	return KM_WS_NR;
}

/* Claim the rows, take the members, read: the window is under way. */
static bool km_wsync_start(struct km_wsync *w, int *why)
{
	struct km_conf *conf = w->conf;

	if (!km_wsync_buffers(w)) {
		*why = KM_WS_ALLOC;
		km_wsync_free_buffers(w);
		return false;
	}
	if (!km_wsync_enter(w)) {
		*why = -1;
		km_wsync_free_buffers(w);
		return false;
	}
	spin_lock_irq(&conf->lock);
	km_claim_rows(conf, &w->claim, w->claim.lo, w->claim.hi);
	spin_unlock_irq(&conf->lock);
	*why = km_wsync_replan(w);
	if (*why != KM_WS_NR || !km_wsync_get_rdevs(w)) {
		if (*why == KM_WS_NR)
			*why = KM_WS_GONE;
		km_wide_put_rdevs(w->conf, w->rdev);
		km_wsync_free_buffers(w);
		km_claim_release(conf, &w->claim);
		km_wsync_leave(w);
		return false;
	}
	atomic64_inc(&conf->wsync_stats.windows);
	atomic64_add(w->rows, &conf->wsync_stats.rows);
	km_wsync_count_size(conf, w->rows);
	km_wsync_submit_reads(w);
	return true;
}

/* Sync the window's rows by the row path, now. */
static void km_wsync_rows_now(struct km_conf *conf, sector_t lo,
			      unsigned int rows)
{
	unsigned int j;

	for (j = 0; j < rows; j++)
		km_sync_row(conf, lo + (sector_t)j * KM_ROW_SECTORS,
			    KM_ROW_SECTORS);
}

/*
 * ->sync_request's window from member sector @lo (sync.c): the sectors
 * md is to count for it (synced by a window, or by rows here when the
 * window cannot be), or 0 when the caller syncs one row as before.
 */
sector_t km_wsync_window(struct km_conf *conf, sector_t lo,
			 sector_t max_sector, bool still_degraded,
			 int *skipped)
{
	struct km_wsync *w;
	int plan, why;
	sector_t sectors;

	if (!READ_ONCE(conf->wsync_max_rows) || conf->prev ||
	    conf->reshaping)
		return 0;
	wait_event(conf->wsync_wait, km_wsync_room(conf));
	w = kzalloc(sizeof(*w), GFP_NOIO);
	if (!w)
		return 0;
	w->conf = conf;
	INIT_LIST_HEAD(&w->claim.node);
	if (!km_wsync_prepare(w, lo, max_sector, still_degraded, &plan)) {
		kfree(w);
		return 0;
	}
	sectors = km_wsync_sectors(w);
	if (plan < 0) {
		/* nothing to rebuild in the window */
		*skipped = 1;
		kfree(w);
		return sectors;
	}
	why = plan;
	if (plan == KM_WS_NR && km_wsync_start(w, &why))
		return sectors;
	if (why < 0) {
		/* quiescing: one row as before */
		kfree(w);
		return 0;
	}
	km_wsync_count(conf, why);
	kfree(w);
	km_wsync_rows_now(conf, lo, sectors / KM_ROW_SECTORS);
	return sectors;
}

int km_wsync_init(struct km_conf *conf)
{
	conf->wsync_max_rows = KM_WSYNC_MAX_ROWS;
	atomic_set(&conf->wsync_inflight, 0);
	atomic_set(&conf->wsync_pages, 0);
	init_waitqueue_head(&conf->wsync_wait);
	return bioset_init(&conf->wsync_bio_set, BIO_POOL_SIZE,
			   offsetof(struct km_wsync_bio, bio),
			   BIOSET_NEED_BVECS | BIOSET_NEED_RESCUER);
}

void km_wsync_exit(struct km_conf *conf)
{
	bioset_exit(&conf->wsync_bio_set);
}
