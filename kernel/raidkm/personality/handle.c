// SPDX-License-Identifier: GPL-2.0
/*
 * The km stripe state machine, run by the array's md thread.
 *
 * A stripe row is handled by that one thread only.  Each pass looks at
 * what the stripe needs and starts the next step: member reads, one
 * coding job, or member writes.  Completions (bio end_io, job ->done)
 * only count down stripe->pending and queue the stripe again, so a job
 * may finish inline or later from any thread.
 *
 * Work is done in rounds, one at a time per stripe: rewriting chunks that
 * had read errors, a sync step, or a write round over the bios drained
 * at its start.  Bios arriving meanwhile wait for the next round, so
 * concurrent writes never lose an update.  Reads that need the cache
 * (lost chunks, read errors) are served whenever their pages are valid.
 */
#include <linux/module.h>
#include <linux/highmem.h>
#include <linux/blkdev.h>
#include "km.h"
#include "../rkm_copy.h"

static km_mask_t km_bit(int i)
{
	return (km_mask_t)1 << i;
}

/* Sectors of a member page covered by a piece list, as a bit mask. */
km_mask_t km_piece_cover(struct km_piece *p)
{
	km_mask_t cover = 0;

	for (; p; p = p->next) {
		unsigned int s = p->off >> 9, e = (p->off + p->len) >> 9;

		for (; s < e; s++)
			cover |= km_bit(s);
	}
	return cover;
}

/* Copy between a piece's part of its bio and the member page. */
static void km_copy_piece(struct km_dev *dev, struct km_piece *p,
			  bool to_page)
{
	struct bio *bio = p->bio;
	struct bvec_iter iter = bio->bi_iter;
	unsigned int done = 0;
	char *page = page_address(dev->page) + p->off;

	bio_advance_iter(bio, &iter, (p->sector - bio->bi_iter.bi_sector) << 9);
	while (done < p->len) {
		struct bio_vec bv = bio_iter_iovec(bio, iter);
		unsigned int len = min(bv.bv_len, p->len - done);

		if (to_page)
			rkm_copy_from_page(page + done, bv.bv_page,
					   bv.bv_offset, len);
		else
			rkm_copy_to_page(bv.bv_page, bv.bv_offset, page + done,
					 len);
		bio_advance_iter_single(bio, &iter, len);
		done += len;
	}
}

/*
 * Hold a finished write piece while md has a superblock update pending
 * (MD_SB_CHANGE_PENDING: a member failed and the superblocks do not say
 * so yet); km_daemon ends it once md_check_recovery has written them.
 */
bool km_hold_write(struct km_conf *conf, struct km_piece *p)
{
	struct mddev *mddev = conf->mddev;
	unsigned long flags;

	if (!test_bit(MD_SB_CHANGE_PENDING, &mddev->sb_flags))
		return false;
	spin_lock_irqsave(&conf->held_lock, flags);
	p->next = conf->held;
	conf->held = p;
	spin_unlock_irqrestore(&conf->held_lock, flags);
	md_wakeup_thread(mddev->thread);
	return true;
}

/* End the held write pieces: once md is done with the superblock, or now. */
void km_release_held(struct km_conf *conf, bool force)
{
	struct km_piece *p, *next;
	unsigned long flags;

	if (!READ_ONCE(conf->held))
		return;
	if (!force && test_bit(MD_SB_CHANGE_PENDING, &conf->mddev->sb_flags))
		return;
	spin_lock_irqsave(&conf->held_lock, flags);
	p = conf->held;
	conf->held = NULL;
	spin_unlock_irqrestore(&conf->held_lock, flags);
	for (; p; p = next) {
		next = p->next;
		bio_endio(p->bio);
		mempool_free(p, conf->piece_pool);
	}
}

/* End one piece of a bio; the bio ends when its last piece does. */
static void km_end_pieces(struct km_stripe *sh, struct km_piece *p,
			  bool write, bool ok, bool bitmap_ok)
{
	struct km_conf *conf = sh->conf;
	struct mddev *mddev = conf->mddev;
	struct km_piece *next;

	for (; p; p = next) {
		next = p->next;
		if (!ok)
			p->bio->bi_status = BLK_STS_IOERR;
		if (write) {
			rkm_bitmap_endwrite(mddev, sh->sector, KM_ROW_SECTORS,
					    bitmap_ok);
			md_write_end(mddev);
			if (km_hold_write(conf, p))
				continue;
		}
		bio_endio(p->bio);
		mempool_free(p, conf->piece_pool);
	}
}

/*
 * Which chunks cannot be read now (failed, missing, not yet rebuilt, or
 * a read error in this row) and which can be written.
 */
static void km_dev_masks(struct km_stripe *sh, km_mask_t *failed,
			 km_mask_t *writable)
{
	struct km_conf *conf = sh->conf;
	int i;

	*failed = 0;
	*writable = 0;
	for (i = 0; i < conf->geom.n; i++) {
		struct km_dev *dev = &sh->dev[i];

		if (test_bit(KM_DEV_READ_ERR, &dev->flags) ||
		    !km_slot_readable(conf, dev->member, sh->sector))
			*failed |= km_bit(i);
		if (km_slot_writable(conf, dev->member))
			*writable |= km_bit(i);
	}
}

static km_mask_t km_flag_mask(struct km_stripe *sh, int flag)
{
	km_mask_t mask = 0;
	int i;

	for (i = 0; i < sh->conf->geom.n; i++)
		if (test_bit(flag, &sh->dev[i].flags))
			mask |= km_bit(i);
	return mask;
}

/* Count down one in-flight operation; the last one queues the stripe. */
static void km_op_done(struct km_stripe *sh)
{
	if (atomic_dec_and_test(&sh->pending)) {
		km_queue_stripe(sh);
		km_put_stripe(sh);
	}
}

/* Start a phase: a reference for it, and a bias while submitting. */
static void km_op_begin(struct km_stripe *sh, enum km_phase phase)
{
	sh->phase = phase;
	atomic_inc(&sh->count);
	atomic_set(&sh->pending, 1);
}

static void km_end_read(struct bio *bio)
{
	struct km_dev *dev = container_of(bio, struct km_dev, bio);
	struct km_stripe *sh = bio->bi_private;
	struct mddev *mddev = sh->conf->mddev;
	struct md_rdev *rdev = dev->rdev;

	if (!bio->bi_status) {
		set_bit(KM_DEV_UPTODATE, &dev->flags);
		clear_bit(KM_DEV_READ_ALONE, &dev->flags);
	} else if (!test_and_set_bit(KM_DEV_READ_ALONE, &dev->flags)) {
		/*
		 * The block layer may have merged this read with its
		 * neighbours' into one request that failed as a whole (a
		 * medium error elsewhere in it): the next pass reads the
		 * page again alone, and only that failure counts.
		 */
		clear_bit(KM_DEV_UPTODATE, &dev->flags);
	} else {
		clear_bit(KM_DEV_UPTODATE, &dev->flags);
		clear_bit(KM_DEV_READ_ALONE, &dev->flags);
		set_bit(KM_DEV_READ_ERR, &dev->flags);
		km_note_read_error(mddev, rdev, sh->sector, KM_ROW_SECTORS, "");
	}
	bio_uninit(bio);
	dev->rdev = NULL;
	rdev_dec_pending(rdev, mddev);
	km_op_done(sh);
}

/* A write to a replacement ended: its failure fails it, not the row. */
static void km_end_rwrite(struct bio *bio)
{
	struct km_dev *dev = container_of(bio, struct km_dev, rbio);
	struct km_stripe *sh = bio->bi_private;
	struct mddev *mddev = sh->conf->mddev;
	struct md_rdev *rdev = dev->rrdev;

	if (bio->bi_status) {
		pr_err_ratelimited("md/km:%s: write error on replacement %pg at sector %llu\n",
				   mdname(mddev), rdev->bdev,
				   (unsigned long long)sh->sector);
		if (!km_bb_record(sh, dev - sh->dev, rdev))
			md_error(mddev, rdev);
	}
	bio_uninit(bio);
	dev->rrdev = NULL;
	rdev_dec_pending(rdev, mddev);
	km_op_done(sh);
}

static void km_end_write(struct bio *bio)
{
	struct km_dev *dev = container_of(bio, struct km_dev, bio);
	struct km_stripe *sh = bio->bi_private;
	struct mddev *mddev = sh->conf->mddev;
	struct md_rdev *rdev = dev->rdev;

	if (bio->bi_status) {
		set_bit(KM_DEV_WRITE_ERR, &dev->flags);
		pr_err_ratelimited("md/km:%s: write error on %pg at sector %llu\n",
				   mdname(mddev), rdev->bdev,
				   (unsigned long long)sh->sector);
		if (!km_bb_record(sh, dev - sh->dev, rdev))
			md_error(mddev, rdev);
	}
	clear_bit(KM_DEV_WRITING, &dev->flags);
	bio_uninit(bio);
	dev->rdev = NULL;
	rdev_dec_pending(rdev, mddev);
	km_op_done(sh);
}

/*
 * The member to read chunk @i from (the slot's member, or its replacement
 * where only that holds the row), or to write it to (the slot's member;
 * a replacement is written besides, km_submit_writes_to()), referenced.
 */
static struct md_rdev *km_get_rdev(struct km_stripe *sh, int i, bool write)
{
	if (write)
		return km_write_rdev(sh->conf, sh->dev[i].member);
	return km_read_rdev(sh->conf, sh->dev[i].member, sh->sector,
			    KM_ROW_SECTORS);
}

/* Submit chunk @i's page to @rdev; @repl: the write to a replacement. */
static void km_submit_dev(struct km_stripe *sh, int i, struct md_rdev *rdev,
			  blk_opf_t opf, bool sync, bool repl)
{
	struct km_dev *dev = &sh->dev[i];
	struct bio *bio = repl ? &dev->rbio : &dev->bio;

	if (repl)
		dev->rrdev = rdev;
	else
		dev->rdev = rdev;
	bio_init(bio, rdev->bdev, repl ? &dev->rvec : &dev->vec, 1, opf);
	bio->bi_iter.bi_sector = sh->sector + km_data_offset(sh->conf, rdev);
	__bio_add_page(bio, dev->page, PAGE_SIZE, 0);
	bio->bi_private = sh;
	if (repl)
		bio->bi_end_io = km_end_rwrite;
	else
		bio->bi_end_io = op_is_write(opf) ? km_end_write : km_end_read;
	if (!op_is_write(opf) && test_bit(KM_DEV_READ_ALONE, &dev->flags))
		bio->bi_opf |= REQ_NOMERGE;
	if (sync)
		md_sync_acct_bio(bio, KM_ROW_SECTORS);
	atomic_inc(&sh->pending);
	if (op_is_write(opf) && test_bit(KM_SH_JOURNAL, &sh->state)) {
		/* ... and for the journal (journal.c) */
		bio_list_add(&sh->jitem.bios, bio);
	} else if (op_is_write(opf)) {
		/* writes wait for the bitmap to reach disk (km_daemon) */
		bio_list_add(&sh->conf->deferred_writes, bio);
	} else {
		submit_bio_noacct(bio);
	}
}

static void km_submit_reads(struct km_stripe *sh, km_mask_t which, bool sync)
{
	int i;

	km_op_begin(sh, KM_PH_READ);
	for (i = 0; i < sh->conf->geom.n; i++) {
		struct md_rdev *rdev;

		if (!(which & km_bit(i)))
			continue;
		rdev = km_get_rdev(sh, i, false);
		if (!rdev) {
			/* it went away since we looked: rebuild it instead */
			set_bit(KM_DEV_READ_ERR, &sh->dev[i].flags);
			continue;
		}
		km_submit_dev(sh, i, rdev, REQ_OP_READ, sync, false);
	}
	km_op_done(sh);
}

/*
 * Write the chunks in @main to their slots' members and those in @repl to
 * their slots' replacements, where there are such members.
 */
void km_submit_writes_to(struct km_stripe *sh, km_mask_t main, km_mask_t repl,
			 bool sync)
{
	blk_opf_t opf = REQ_OP_WRITE;
	int i;

	if (test_bit(KM_SH_FUA, &sh->state))
		opf |= REQ_FUA;
	if (!test_and_set_bit(KM_SH_WRITE_GEN, &sh->state))
		km_gen_write_begin(sh->conf, sh->cstripe);
	/* a write round's pages reach the journal before the members */
	if (sh->round == &km_round_write && km_journal_on(sh->conf))
		set_bit(KM_SH_JOURNAL, &sh->state);
	km_op_begin(sh, KM_PH_WRITE);
	for (i = 0; i < sh->conf->geom.n; i++) {
		struct km_dev *dev = &sh->dev[i];
		struct md_rdev *rdev;

		clear_bit(KM_DEV_WRITE_ERR, &dev->flags);
		clear_bit(KM_DEV_BAD_ROW, &dev->flags);
		if (main & km_bit(i)) {
			rdev = km_get_rdev(sh, i, true);
			if (rdev && !km_bb_write_ok(sh, i, rdev, false)) {
				rdev_dec_pending(rdev, sh->conf->mddev);
				rdev = NULL;
			}
			if (rdev) {
				set_bit(KM_DEV_WRITING, &dev->flags);
				km_submit_dev(sh, i, rdev, opf, sync, false);
			}
		}
		if (repl & km_bit(i)) {
			rdev = km_get_replacement(sh->conf, dev->member);
			if (rdev && !km_bb_write_ok(sh, i, rdev, true)) {
				rdev_dec_pending(rdev, sh->conf->mddev);
				rdev = NULL;
			}
			if (rdev)
				km_submit_dev(sh, i, rdev, opf, sync, true);
		}
	}
	if (!bio_list_empty(&sh->jitem.bios))
		km_journal_queue(sh->conf, &sh->jitem);
	clear_bit(KM_SH_JOURNAL, &sh->state);
	km_op_done(sh);
}

/* Write the chunks in @which to every member that can take them. */
void km_submit_writes(struct km_stripe *sh, km_mask_t which, bool sync)
{
	km_submit_writes_to(sh, which, which, sync);
}

static void km_job_done(struct rkm_job *job)
{
	km_op_done(job->priv);
}

static bool km_async_coding = true;
module_param_named(km_async_coding, km_async_coding, bool, 0644);
MODULE_PARM_DESC(km_async_coding, "km: run coding jobs on a workqueue (all CPUs) instead of the md thread");

void km_job_work(struct work_struct *work)
{
	struct km_stripe *sh = container_of(work, struct km_stripe, job_work);

	rkm_job_submit(&sh->job);
}

/*
 * Run one coding job over the stripe's pages.  Encode, decode and check
 * jobs are submitted from a work item, so that coding runs on every CPU
 * while the md thread goes on with other stripes; the job's ->done queues
 * the stripe again.
 */
void km_submit_job(struct km_stripe *sh, enum rkm_job_op op, km_mask_t mask,
		   enum km_phase phase)
{
	struct km_conf *conf = sh->conf;
	struct rkm_job *job = &sh->job;
	int i;

	memset(job, 0, sizeof(*job));
	job->op = op;
	job->code = conf->code;
	job->len = PAGE_SIZE;
	job->mask = mask;
	for (i = 0; i < conf->geom.n; i++) {
		job->chunk[i] = page_address(sh->dev[i].page);
		if (i < conf->geom.k)
			job->old[i] = page_address(sh->dev[i].orig);
	}
	job->scratch = sh->scratch;
	/* a sync round's jobs are background work; the rest hold bios */
	job->waited = sh->round != &km_round_sync &&
		      !test_bit(KM_SH_SYNC, &sh->state);
	if (conf->job_stats_registered)
		job->stats = &conf->job_stats;
	job->done = km_job_done;
	job->priv = sh;
	km_op_begin(sh, phase);
	/* a delta codes one or few chunks: not worth the hop */
	if (km_async_coding && op != RKM_JOB_DELTA)
		queue_work(conf->code_wq, &sh->job_work);
	else
		rkm_job_submit(job);
}

/* More than m chunks lost: fail everything waiting on the stripe. */
static void km_fail_stripe(struct km_stripe *sh)
{
	struct km_conf *conf = sh->conf;
	struct km_piece *rd[RKM_MAX_N], *wr[RKM_MAX_N], *wn[RKM_MAX_N];
	int i, n = conf->geom.n;

	pr_err_ratelimited("md/km:%s: stripe at member sector %llu has lost more than %d chunks: failing I/O\n",
			   mdname(conf->mddev),
			   (unsigned long long)sh->sector, conf->geom.m);
	spin_lock_irq(&conf->lock);
	for (i = 0; i < n; i++) {
		struct km_dev *dev = &sh->dev[i];

		rd[i] = dev->toread;
		wr[i] = dev->towrite;
		wn[i] = dev->written;
		dev->toread = NULL;
		dev->towrite = NULL;
		dev->written = NULL;
	}
	spin_unlock_irq(&conf->lock);
	for (i = 0; i < n; i++) {
		km_end_pieces(sh, rd[i], false, false, false);
		km_end_pieces(sh, wr[i], true, false, false);
		km_end_pieces(sh, wn[i], true, false, false);
		sh->dev[i].flags = 0;
	}
	if (sh->round == &km_round_sync || test_bit(KM_SH_SYNC, &sh->state))
		km_sync_finish(sh, false);
	sh->round = NULL;
	sh->phase = KM_PH_IDLE;
}

/* Serve cache reads whose pages are valid. */
static void km_serve_reads(struct km_stripe *sh, km_mask_t failed)
{
	struct km_conf *conf = sh->conf;
	struct km_piece *list[RKM_MAX_K];
	int i, k = conf->geom.k;
	bool any = false;

	spin_lock_irq(&conf->lock);
	for (i = 0; i < k; i++) {
		list[i] = NULL;
		if (test_bit(KM_DEV_UPTODATE, &sh->dev[i].flags)) {
			list[i] = sh->dev[i].toread;
			sh->dev[i].toread = NULL;
		}
	}
	spin_unlock_irq(&conf->lock);
	for (i = 0; i < k; i++) {
		struct km_piece *p;

		if (!list[i])
			continue;
		for (p = list[i]; p; p = p->next)
			km_copy_piece(&sh->dev[i], p, false);
		if (failed & km_bit(i))
			any = true;
		km_end_pieces(sh, list[i], false, true, false);
	}
	if (any)
		atomic64_inc(&conf->stats.reconstruct_reads);
}

/* Drain the bios waiting to be written into a write round; any? */
static bool km_drain_writes(struct km_stripe *sh)
{
	struct km_conf *conf = sh->conf;
	bool fua = false;
	int i;

	sh->written = 0;
	spin_lock_irq(&conf->lock);
	for (i = 0; i < conf->geom.k; i++) {
		struct km_dev *dev = &sh->dev[i];
		struct km_piece *p;

		if (!dev->towrite)
			continue;
		dev->written = dev->towrite;
		dev->towrite = NULL;
		sh->written |= km_bit(i);
		for (p = dev->written; p; p = p->next)
			if (p->bio->bi_opf & REQ_FUA)
				fua = true;
	}
	spin_unlock_irq(&conf->lock);
	if (fua)
		set_bit(KM_SH_FUA, &sh->state);
	else
		clear_bit(KM_SH_FUA, &sh->state);
	return sh->written;
}

/* Choose the next round for an idle stripe, or none. */
static void km_start_round(struct km_stripe *sh)
{
	if (km_flag_mask(sh, KM_DEV_READ_ERR)) {
		sh->round = &km_round_rewrite;
	} else if (test_bit(KM_SH_SYNC, &sh->state)) {
		sh->round = &km_round_sync;
		km_sync_start_round(sh);
	} else if (km_drain_writes(sh)) {
		sh->round = &km_round_write;
	}
}

/* Apply the drained writes to the pages and start the parity job. */
static void km_compute_write(struct km_stripe *sh)
{
	struct km_conf *conf = sh->conf;
	int i;

	for (i = 0; i < conf->geom.k; i++) {
		struct km_dev *dev = &sh->dev[i];
		struct km_piece *p;

		if (!(sh->written & km_bit(i)))
			continue;
		if (sh->write_kind == KM_WRITE_RMW)
			memcpy(page_address(dev->orig), page_address(dev->page),
			       PAGE_SIZE);
		for (p = dev->written; p; p = p->next)
			km_copy_piece(dev, p, true);
		set_bit(KM_DEV_UPTODATE, &dev->flags);
	}
	switch (sh->write_kind) {
	case KM_WRITE_FULL:
		atomic64_inc(&conf->stats.full_stripe_writes);
		break;
	case KM_WRITE_RMW:
		atomic64_inc(&conf->stats.rmw_writes);
		km_submit_job(sh, RKM_JOB_DELTA, sh->written, KM_PH_COMPUTE);
		return;
	default:
		atomic64_inc(&conf->stats.rcw_writes);
		break;
	}
	km_submit_job(sh, RKM_JOB_ENCODE, 0, KM_PH_COMPUTE);
}

void km_invalidate(struct km_stripe *sh)
{
	int i;

	for (i = 0; i < sh->conf->geom.n; i++)
		clear_bit(KM_DEV_UPTODATE, &sh->dev[i].flags);
}

/* A write round's member writes are done: end its bios. */
static void km_finish_write_round(struct km_stripe *sh)
{
	struct km_conf *conf = sh->conf;
	km_mask_t failed, writable, lost;
	bool ok;
	int i;

	km_dev_masks(sh, &failed, &writable);
	lost = failed | sh->failed | km_flag_mask(sh, KM_DEV_WRITE_ERR);
	ok = km_popcount(lost) <= conf->geom.m;
	if (!ok)
		km_invalidate(sh);
	for (i = 0; i < conf->geom.k; i++) {
		struct km_piece *list = sh->dev[i].written;

		sh->dev[i].written = NULL;
		km_end_pieces(sh, list, true, ok, ok && !lost);
	}
}

static void km_finish_rewrite(struct km_stripe *sh)
{
	struct km_conf *conf = sh->conf;
	int i;

	for (i = 0; i < conf->geom.n; i++) {
		struct km_dev *dev = &sh->dev[i];

		if (!test_bit(KM_DEV_READ_ERR, &dev->flags))
			continue;
		if ((sh->fixed & km_bit(i)) &&
		    !test_bit(KM_DEV_WRITE_ERR, &dev->flags)) {
			atomic64_inc(&conf->stats.read_errors_corrected);
			pr_info_ratelimited("md/km:%s: read error corrected (chunk %d, member %d, sector %llu)\n",
					    mdname(conf->mddev), i, dev->member,
					    (unsigned long long)sh->sector);
		}
		clear_bit(KM_DEV_READ_ERR, &dev->flags);
	}
}

/* The rewrite round: chunks that had read errors, once rebuilt. */
static km_mask_t km_rewrite_need(struct km_stripe *sh, km_mask_t failed,
				 km_mask_t uptodate)
{
	return km_flag_mask(sh, KM_DEV_READ_ERR);
}

static void km_rewrite_act(struct km_stripe *sh, km_mask_t writable)
{
	sh->fixed = km_flag_mask(sh, KM_DEV_READ_ERR) & writable;
	km_submit_writes(sh, sh->fixed, false);
}

/* The sync round (sync.c): recovery needs the lost, the others all. */
static km_mask_t km_sync_need(struct km_stripe *sh, km_mask_t failed,
			      km_mask_t uptodate)
{
	if (sh->sync_mode == KM_SYNC_RECOVER)
		return failed | km_replacing_mask(sh);
	return km_mask_all(sh->conf->geom.n);
}

static void km_sync_act(struct km_stripe *sh, km_mask_t writable)
{
	km_sync_step(sh);
}

static void km_sync_written(struct km_stripe *sh)
{
	/* a row recorded bad is no reason to stop the sync */
	km_sync_finish(sh, !(km_flag_mask(sh, KM_DEV_WRITE_ERR) &
			     ~km_flag_mask(sh, KM_DEV_BAD_ROW)));
}

/* The write round: what the write plan must read (plan.c). */
static km_mask_t km_write_need(struct km_stripe *sh, km_mask_t failed,
			       km_mask_t uptodate)
{
	struct km_geom *g = &sh->conf->geom;
	struct km_plan plan = { 0 };
	km_mask_t full = 0;
	int i;

	for (i = 0; i < g->k; i++)
		if ((sh->written & km_bit(i)) &&
		    km_piece_cover(sh->dev[i].written) ==
		    km_mask_all(KM_ROW_SECTORS))
			full |= km_bit(i);
	km_plan_write(g->k, g->m, sh->written, full, uptodate, failed, &plan);
	sh->write_kind = plan.kind;
	return plan.need;
}

static void km_write_act(struct km_stripe *sh, km_mask_t writable)
{
	km_compute_write(sh);
}

const struct km_round km_round_rewrite = {
	.name = "rewrite",
	.need = km_rewrite_need,
	.act = km_rewrite_act,
	.written = km_finish_rewrite,
};

const struct km_round km_round_sync = {
	.name = "sync",
	.need = km_sync_need,
	.act = km_sync_act,
	.written = km_sync_written,
};

const struct km_round km_round_write = {
	.name = "write",
	.need = km_write_need,
	.act = km_write_act,
	.written = km_finish_write_round,
};

/* Chunks that waiting cache reads need. */
static km_mask_t km_read_need(struct km_stripe *sh)
{
	km_mask_t need = 0;
	int i;

	for (i = 0; i < sh->conf->geom.k; i++)
		if (READ_ONCE(sh->dev[i].toread))
			need |= km_bit(i);
	return need;
}

/*
 * Nothing in flight: start or continue the stripe's work.  Reads and
 * decodes come first, for waiting reads and the round alike; then the
 * waiting reads are served and the round acts.
 */
static void km_advance(struct km_stripe *sh)
{
	struct km_conf *conf = sh->conf;
	int k = conf->geom.k, n = conf->geom.n;
	km_mask_t failed, writable, uptodate;
	struct km_plan plan = { 0 };

	km_dev_masks(sh, &failed, &writable);
	if (km_popcount(failed) > conf->geom.m) {
		km_fail_stripe(sh);
		return;
	}
	if (!sh->round)
		km_start_round(sh);
	sh->failed = failed;
	uptodate = km_flag_mask(sh, KM_DEV_UPTODATE);
	plan.need = km_read_need(sh);
	if (sh->round)
		plan.need |= sh->round->need(sh, failed, uptodate);
	if (!plan.need && !sh->round)
		return;
	km_plan_fetch(k, n, failed, uptodate, &plan);
	if (plan.read) {
		km_submit_reads(sh, plan.read, sh->round == &km_round_sync);
		return;
	}
	if (plan.decode) {
		km_submit_job(sh, RKM_JOB_DECODE, plan.decode, KM_PH_DECODE);
		return;
	}
	km_serve_reads(sh, failed);
	if (sh->round)
		sh->round->act(sh, writable);
}

void km_handle_stripe(struct km_stripe *sh)
{
	struct km_conf *conf = sh->conf;
	km_mask_t parity = km_mask_all(conf->geom.n) & ~km_mask_all(conf->geom.k);
	int i;

	if (atomic_read(&sh->pending))
		return;
	switch (sh->phase) {
	case KM_PH_IDLE:
	case KM_PH_READ:
		break;
	case KM_PH_DECODE:
		if (sh->job.result) {
			pr_err_ratelimited("md/km:%s: decode failed (%d) at member sector %llu\n",
					   mdname(conf->mddev), sh->job.result,
					   (unsigned long long)sh->sector);
			sh->phase = KM_PH_IDLE;
			km_fail_stripe(sh);
			return;
		}
		for (i = 0; i < conf->geom.n; i++)
			if (sh->job.mask & km_bit(i))
				set_bit(KM_DEV_UPTODATE, &sh->dev[i].flags);
		break;
	case KM_PH_COMPUTE:
		if (sh->job.result) {
			pr_err_ratelimited("md/km:%s: parity computation failed (%d)\n",
					   mdname(conf->mddev), sh->job.result);
			sh->phase = KM_PH_IDLE;
			km_fail_stripe(sh);
			return;
		}
		for (i = conf->geom.k; i < conf->geom.n; i++)
			set_bit(KM_DEV_UPTODATE, &sh->dev[i].flags);
		km_submit_writes(sh, sh->written | parity, false);
		return;
	case KM_PH_CHECK:
	case KM_PH_LOCATE:
	case KM_PH_FIX:
		km_sync_job_done(sh);
		if (sh->phase != KM_PH_IDLE)
			return;
		break;
	case KM_PH_WRITE:
		if (test_and_clear_bit(KM_SH_WRITE_GEN, &sh->state))
			km_gen_write_end(conf, sh->cstripe);
		km_journal_written(&sh->jitem);
		km_bb_write_done(sh);
		if (sh->round)
			sh->round->written(sh);
		sh->round = NULL;
		break;
	}
	sh->phase = KM_PH_IDLE;
	km_advance(sh);
}

/* Submit the writes collected in this pass, after the bitmap is on disk. */
static void km_flush_writes(struct km_conf *conf)
{
	struct bio *bio;

	km_journal_flush(conf);
	if (bio_list_empty(&conf->deferred_writes))
		return;
	rkm_bitmap_unplug(conf->mddev);
	while ((bio = bio_list_pop(&conf->deferred_writes)))
		submit_bio_noacct(bio);
}

/* Handle one conf's stripes (the md thread). */
static void km_handle_conf(struct km_conf *conf)
{
	struct km_stripe *sh;
	int handled = 0;

	km_release_held(conf, false);
	km_discard_submit(conf);
	do {
		while ((sh = km_next_stripe(conf))) {
			km_handle_stripe(sh);
			km_put_stripe(sh);
			if (++handled % 32 == 0) {
				km_flush_writes(conf);
				cond_resched();
			}
		}
		/* writes completing at once queue their stripes again */
		km_flush_writes(conf);
	} while (!list_empty_careful(&conf->handle_list) && handled < 4096);
}

/* The array's md thread: the conf, and during a reshape the old one. */
void km_daemon(struct md_thread *thread)
{
	struct mddev *mddev = thread->mddev;
	struct km_conf *conf, *prev;
	struct blk_plug plug;

	md_check_recovery(mddev);
	conf = mddev->private;
	prev = conf->prev;
	blk_start_plug(&plug);
	km_handle_conf(conf);
	if (prev)
		km_handle_conf(prev);
	blk_finish_plug(&plug);
}
