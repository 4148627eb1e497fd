// SPDX-License-Identifier: GPL-2.0
/*
 * Discard (TRIM) on a km array.
 *
 * Only whole chunk stripes are discarded, on every member (data and
 * parity alike), and only when the administrator has declared that the
 * members read discarded blocks back as zeroes (module parameter
 * km_devices_handle_discard_safely, md raid456's rule under km's own
 * name): zero data implies zero parity for a linear code, so a stripe
 * whose every chunk reads back zero is consistent.  The parts of a
 * discard that cover a chunk stripe only partly are left alone (a
 * discard is a hint; zeroing them through the write path would cost a
 * read-modify-write for no gain).  Without the parameter, or with a
 * member that cannot discard whole chunks, the queue limits say "no
 * discard" and a discard bio that still arrives ends EOPNOTSUPP.
 *
 * One discard runs at a time per array.  It takes the member rows it
 * covers away from the stripe cache with a row claim (claim.c, shared
 * with sync windows): new stripes for those rows wait, stripes in use
 * there drain, idle ones are forgotten.  The md thread then
 * submits one discard per member after the bitmap's unplug, like any
 * write; when the last one ends the rows are released.  A member whose
 * discard fails is failed: its rows may still hold old data.
 */
#include <linux/module.h>
#include <linux/blkdev.h>
#include <linux/log2.h>
#include "km.h"

static bool km_devices_handle_discard_safely;
module_param(km_devices_handle_discard_safely, bool, 0644);
MODULE_PARM_DESC(km_devices_handle_discard_safely,
		 "km: set to Y if every member of km arrays started from now on reads discarded blocks back as zeroes; discards of whole stripes are then passed on");

/*
 * Whether a discard of whole chunks at @rdev's data is discarded whole
 * there: it supports discard, its granularity divides the chunk, and
 * chunk boundaries fall on its discard alignment.
 */
static bool km_rdev_discards(struct km_conf *conf, struct md_rdev *rdev)
{
	struct block_device *bdev = rdev->bdev;
	unsigned int gran = bdev_discard_granularity(bdev) >> 9;
	unsigned int align = bdev_discard_alignment(bdev) >> 9;

	if (!bdev_max_discard_sectors(bdev))
		return false;
	if (!gran)
		gran = 1;
	return conf->geom.chunk_sectors % gran == 0 &&
		rdev->data_offset % gran == align % gran;
}

/*
 * Call @fn on every member that takes writes: each slot's member and its
 * replacement that are there and not Faulty (a replacement that is the
 * member itself, as md moves it into the member's place, once).  Stops
 * at, and returns false from, the first @fn that returns false.  The
 * caller holds rcu_read_lock.
 */
static bool km_walk_writers(struct km_conf *conf,
			    bool (*fn)(struct km_conf *conf,
				       struct md_rdev *rdev, void *arg),
			    void *arg)
{
	int i, j;

	for (i = 0; i < conf->geom.n; i++) {
		struct md_rdev *r[2] = {
			rcu_dereference(conf->disks[i].rdev),
			rcu_dereference(conf->disks[i].replacement),
		};

		for (j = 0; j < 2; j++) {
			if (!r[j] || test_bit(Faulty, &r[j]->flags) ||
			    (j && r[j] == r[0]))
				continue;
			if (!fn(conf, r[j], arg))
				return false;
		}
	}
	return true;
}

static bool km_writer_discards(struct km_conf *conf, struct md_rdev *rdev,
			       void *arg)
{
	return km_rdev_discards(conf, rdev);
}

/* Whether every member that takes writes discards whole chunks. */
static bool km_members_discard(struct km_conf *conf)
{
	bool ok;

	rcu_read_lock();
	ok = km_walk_writers(conf, km_writer_discards, NULL);
	rcu_read_unlock();
	return ok;
}

/*
 * The array's discard granularity in bytes (a data stripe, rounded up to
 * a power of two for the block layer), or 0 when km must not discard.
 * Decided at ->run.
 */
unsigned int km_discard_granularity(struct km_conf *conf)
{
	if (!km_devices_handle_discard_safely || !km_members_discard(conf))
		return 0;
	return roundup_pow_of_two((conf->geom.chunk_sectors << 9) *
				  conf->geom.k);
}

/* The last member discard ended: release the rows, end the bio. */
static void km_discard_done(struct km_conf *conf)
{
	struct km_discard *d = &conf->discard;
	struct mddev *mddev = conf->mddev;
	struct bio *bio = d->bio;
	struct km_piece *p = d->piece;
	bool failed = d->failed;
	unsigned long flags;

	rkm_bitmap_endwrite(mddev, d->claim.lo, d->claim.hi - d->claim.lo,
			    !failed);
	if (d->refused)
		bio->bi_status = BLK_STS_NOTSUPP;
	else if (mddev->degraded > conf->geom.m)
		bio->bi_status = BLK_STS_IOERR;
	km_claim_release(conf, &d->claim);
	spin_lock_irqsave(&conf->lock, flags);
	d->bio = NULL;
	d->piece = NULL;
	spin_unlock_irqrestore(&conf->lock, flags);
	wake_up(&conf->wait_for_stripe);

	md_write_end(mddev);
	/* as for writes: not before md has recorded a member it failed */
	p->bio = bio;
	if (!km_hold_write(conf, p)) {
		bio_endio(bio);
		mempool_free(p, conf->piece_pool);
	}
	km_leave(conf);
}

static void km_discard_put(struct km_conf *conf)
{
	if (atomic_dec_and_test(&conf->discard.pending))
		km_discard_done(conf);
}

static void km_discard_endio(struct bio *bio)
{
	struct km_read_ctx *ctx = container_of(bio, struct km_read_ctx, bio);
	struct km_conf *conf = ctx->conf;
	struct md_rdev *rdev = ctx->rdev;
	struct mddev *mddev = conf->mddev;

	if (bio->bi_status) {
		/* its rows may hold old data while the others read zero */
		pr_err_ratelimited("md/km:%s: discard failed on %pg (%d), failing it\n",
				   mdname(mddev), rdev->bdev,
				   blk_status_to_errno(bio->bi_status));
		conf->discard.failed = true;
		md_error(mddev, rdev);
	}
	rdev_dec_pending(rdev, mddev);
	bio_put(bio);
	km_discard_put(conf);
}

/* Queue one member's discard of rows [lo, hi) for the md thread's flush. */
static void km_discard_member(struct km_conf *conf, struct md_rdev *rdev)
{
	struct km_discard *d = &conf->discard;
	struct km_read_ctx *ctx;
	struct bio *bio;

	bio = bio_alloc_bioset(rdev->bdev, 0, REQ_OP_DISCARD, GFP_NOIO,
			       &conf->bio_set);
	ctx = container_of(bio, struct km_read_ctx, bio);
	ctx->conf = conf;
	ctx->rdev = rdev;
	bio->bi_iter.bi_sector = d->claim.lo + km_data_offset(conf, rdev);
	bio->bi_iter.bi_size = (d->claim.hi - d->claim.lo) << 9;
	bio->bi_end_io = km_discard_endio;
	atomic_inc(&d->pending);
	bio_list_add(&conf->deferred_writes, bio);
}

/* The members km_discard_submit() sends the discard to. */
struct km_discard_targets {
	struct md_rdev *rdev[2 * RKM_MAX_N];
	int nr;
	bool refused;		/* one cannot discard whole chunks */
};

/* km_discard_submit(): take a reference on @rdev for its discard. */
static bool km_discard_target(struct km_conf *conf, struct md_rdev *rdev,
			      void *arg)
{
	struct km_discard_targets *t = arg;

	/* a member added since km_discard() looked */
	if (!km_rdev_discards(conf, rdev))
		t->refused = true;
	atomic_inc(&rdev->nr_pending);
	t->rdev[t->nr++] = rdev;
	return true;
}

/*
 * md thread: submit the queued discard to every member that takes writes
 * (km_daemon's flush sends them after the bitmap is on disk).
 */
void km_discard_submit(struct km_conf *conf)
{
	struct km_discard *d = &conf->discard;
	struct km_discard_targets t = { .nr = 0 };
	int i;

	spin_lock_irq(&conf->lock);
	if (!d->queued) {
		spin_unlock_irq(&conf->lock);
		return;
	}
	d->queued = false;
	spin_unlock_irq(&conf->lock);

	rcu_read_lock();
	km_walk_writers(conf, km_discard_target, &t);
	rcu_read_unlock();
	d->refused = t.refused;
	for (i = 0; i < t.nr; i++) {
		if (t.refused)
			rdev_dec_pending(t.rdev[i], conf->mddev);
		else
			km_discard_member(conf, t.rdev[i]);
	}
	if (!t.refused)
		atomic64_inc(&conf->stats.discards);
	km_discard_put(conf);
}

/*
 * A discard bio (md's clone, counted by md_write_start): discard the
 * whole chunk stripes it covers.  Runs in the submitter's context.
 */
void km_discard(struct km_conf *conf, struct bio *bio)
{
	struct km_geom *g = &conf->geom;
	struct km_discard *d = &conf->discard;
	struct mddev *mddev = conf->mddev;
	sector_t first, last, chunks;
	struct km_piece *p;

	/* the chunk stripes wholly inside the bio */
	chunks = (bio->bi_iter.bi_sector + g->chunk_sectors - 1) >> g->chunk_shift;
	first = (chunks + g->k - 1) / g->k;
	last = (bio_end_sector(bio) >> g->chunk_shift) / g->k;
	/* one member bio each (the limits keep bios below this anyway) */
	last = min_t(sector_t, last,
		     first + ((UINT_MAX >> 9) >> g->chunk_shift));
	if (first >= last) {
		/* no whole stripe: nothing to do */
		bio_endio(bio);
		return;
	}
	if (!km_members_discard(conf)) {
		/* a member added since ->run cannot take it */
		pr_warn_ratelimited("md/km:%s: a member cannot discard whole chunks: discard refused\n",
				    mdname(mddev));
		bio->bi_status = BLK_STS_NOTSUPP;
		bio_endio(bio);
		return;
	}
	p = mempool_alloc(conf->piece_pool, GFP_NOIO);
	atomic_inc(&conf->active_reads);

	spin_lock_irq(&conf->lock);
	wait_event_lock_irq(conf->wait_for_stripe, !d->bio, conf->lock);
	d->bio = bio;
	d->piece = p;
	d->failed = false;
	d->refused = false;
	atomic_set(&d->pending, 1);
	/* new stripes there wait from here on; those in use drain */
	km_claim_rows(conf, &d->claim, first << g->chunk_shift,
		      last << g->chunk_shift);
	spin_unlock_irq(&conf->lock);

	md_write_inc(mddev, bio);
	rkm_bitmap_startwrite(mddev, d->claim.lo, d->claim.hi - d->claim.lo);

	spin_lock_irq(&conf->lock);
	d->queued = true;
	spin_unlock_irq(&conf->lock);
	md_wakeup_thread(mddev->thread);
}
