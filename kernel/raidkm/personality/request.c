// SPDX-License-Identifier: GPL-2.0
/*
 * Bios from md.  Reads of readable chunks go straight to the members,
 * split on chunk boundaries; reads of lost chunks go by row range where
 * they are long enough (wide_read.c); other reads of lost chunks, and
 * every write, are cut into pieces per member page and attached to
 * stripe rows for the handler.  A direct read that fails is retried through the stripe cache,
 * which rebuilds the chunk, returns good data and rewrites the sector.
 */
#include <linux/blkdev.h>
#include "km.h"

static void km_piece_append(struct km_piece **list, struct km_piece *p)
{
	while (*list)
		list = &(*list)->next;
	p->next = NULL;
	*list = p;
}

/*
 * Attach a bio to the stripe rows it touches: per row, one piece per data
 * chunk it overlaps.  Rows are walked in member order so that a bio
 * covering whole rows fills each stripe before it is handled.  @cstripe
 * counts chunk stripes; a stripe row (@sh) is one page per member.
 */
void km_attach_bio(struct km_conf *conf, struct bio *bio, bool write)
{
	struct km_geom *g = &conf->geom;
	sector_t start = bio->bi_iter.bi_sector, end = bio_end_sector(bio);
	sector_t cs = g->chunk_sectors;
	sector_t sbase, cstripe, last_cstripe;
	struct mddev *mddev = conf->mddev;

	cstripe = (start >> g->chunk_shift) / g->k;
	last_cstripe = ((end - 1) >> g->chunk_shift) / g->k;
	for (; cstripe <= last_cstripe; cstripe++) {
		sector_t a, b, r;
		int dlo, dhi;

		sbase = km_unmap(g, cstripe, 0, 0);
		a = max(start, sbase) - sbase;
		b = min(end, sbase + cs * g->k) - sbase;
		dlo = a >> g->chunk_shift;
		dhi = (b - 1) >> g->chunk_shift;
		for (r = 0; r < cs; r += KM_ROW_SECTORS) {
			struct km_stripe *sh = NULL;
			int d;

			for (d = dlo; d <= dhi; d++) {
				sector_t lo = (sector_t)d * cs + r, hi = lo + KM_ROW_SECTORS;
				struct km_piece *p;

				lo = max(lo, a);
				hi = min(hi, b);
				if (lo >= hi)
					continue;
				if (!sh)
					sh = km_get_stripe(conf,
							   (cstripe << g->chunk_shift) + r,
							   false);
				p = mempool_alloc(conf->piece_pool, GFP_NOIO);
				p->bio = bio;
				p->sector = sbase + lo;
				p->off = (lo & KM_ROW_MASK) << 9;
				p->len = (hi - lo) << 9;
				bio_inc_remaining(bio);
				if (write) {
					md_write_inc(mddev, bio);
					rkm_bitmap_startwrite(mddev, sh->sector,
							      KM_ROW_SECTORS);
				}
				spin_lock_irq(&conf->lock);
				km_piece_append(write ? &sh->dev[d].towrite :
						&sh->dev[d].toread, p);
				spin_unlock_irq(&conf->lock);
			}
			if (sh) {
				km_queue_stripe_plugged(sh);
				km_put_stripe(sh);
			}
		}
	}
}

/*
 * The member holding @loc (or its replacement, replace.c), referenced,
 * when it can serve the read.
 */
static struct md_rdev *km_direct_rdev(struct km_conf *conf,
				      struct km_loc *loc, int sectors)
{
	struct md_rdev *rdev;
	sector_t first_bad;
	int bad_sectors;

	rdev = km_read_rdev(conf, loc->member, loc->msector, sectors);
	if (rdev && is_badblock(rdev, loc->msector, sectors, &first_bad,
				&bad_sectors)) {
		rdev_dec_pending(rdev, conf->mddev);
		rdev = NULL;
	}
	return rdev;
}

static void km_direct_read_done(struct bio *clone)
{
	struct km_read_ctx *ctx = container_of(clone, struct km_read_ctx, bio);
	struct km_conf *conf = ctx->conf;
	struct bio *orig = clone->bi_private;
	blk_status_t status = clone->bi_status;
	unsigned long flags;

	rdev_dec_pending(ctx->rdev, conf->mddev);
	bio_put(clone);
	if (status) {
		/* rebuild it through the stripe cache */
		atomic_inc(&conf->active_reads);
		spin_lock_irqsave(&conf->retry_lock, flags);
		bio_list_add(&conf->retry_list, orig);
		spin_unlock_irqrestore(&conf->retry_lock, flags);
		queue_work(conf->retry_wq, &conf->retry_work);
	} else {
		bio_endio(orig);
	}
	km_leave(conf);
}

/* Retry failed direct reads through the stripe cache (a work item). */
void km_retry_reads(struct work_struct *work)
{
	struct km_conf *conf = container_of(work, struct km_conf, retry_work);
	struct bio *bio;

	for (;;) {
		spin_lock_irq(&conf->retry_lock);
		bio = bio_list_pop(&conf->retry_list);
		spin_unlock_irq(&conf->retry_lock);
		if (!bio)
			break;
		km_attach_bio(conf, bio, false);
		bio_endio(bio);
		km_leave(conf);
	}
}

/* Read one piece that lies within one chunk. */
static void km_read_chunk(struct km_conf *conf, struct bio *bio)
{
	struct km_loc loc;
	struct md_rdev *rdev;
	struct bio *clone;
	struct km_read_ctx *ctx;

	km_map(&conf->geom, bio->bi_iter.bi_sector, &loc);
	rdev = km_direct_rdev(conf, &loc, bio_sectors(bio));
	if (!rdev) {
		km_attach_bio(conf, bio, false);
		bio_endio(bio);
		return;
	}
	clone = bio_alloc_clone(rdev->bdev, bio, GFP_NOIO, &conf->bio_set);
	ctx = container_of(clone, struct km_read_ctx, bio);
	ctx->conf = conf;
	ctx->rdev = rdev;
	clone->bi_iter.bi_sector = loc.msector + km_data_offset(conf, rdev);
	clone->bi_private = bio;
	clone->bi_end_io = km_direct_read_done;
	/* counted until the read, or its retry, has been handed on */
	atomic_inc(&conf->active_reads);
	submit_bio_noacct(clone);
}

/* How a part of a read is served (km_read()). */
enum km_read_kind {
	KM_READ_CHUNK,		/* directly, or by rows where lost */
	KM_READ_WIDE,		/* by row range, decoding (wide_read.c) */
	KM_READ_VERIFY,		/* checked against parity (read_verify.c) */
};

/* The first part of a read from @sector of @nr sectors: its kind and size. */
static enum km_read_kind km_read_part(struct km_conf *conf, sector_t sector,
				      sector_t nr, sector_t *sectors)
{
	struct km_geom *g = &conf->geom;

	*sectors = km_verify_sectors(conf, sector, nr);
	if (*sectors)
		return KM_READ_VERIFY;
	*sectors = km_wide_sectors(conf, sector, nr);
	if (*sectors)
		return KM_READ_WIDE;
	*sectors = g->chunk_sectors - (sector & (g->chunk_sectors - 1));
	return KM_READ_CHUNK;
}

/*
 * Read @bio part by part: verified where read_verify asks for it
 * (read_verify.c), a wide read where km_wide_sectors() takes one
 * (wide_read.c), else chunk by chunk, directly where the chunk is
 * readable.
 */
static void km_read(struct km_conf *conf, struct bio *bio)
{
	struct mddev *mddev = conf->mddev;

	for (;;) {
		sector_t sectors;
		enum km_read_kind kind = km_read_part(conf,
						      bio->bi_iter.bi_sector,
						      bio_sectors(bio),
						      &sectors);
		struct bio *split;

		if (sectors >= bio_sectors(bio))
			split = bio;
		else {
			split = bio_split(bio, sectors, GFP_NOIO,
					  &mddev->bio_set);
			bio_chain(split, bio);
		}
		if (kind == KM_READ_VERIFY)
			km_verify_read(conf, split);
		else if (kind == KM_READ_WIDE)
			km_wide_read(conf, split);
		else
			km_read_chunk(conf, split);
		if (split == bio)
			return;
	}
}

/*
 * The member range whose bitmap bits cover array sectors [*@offset,
 * +*@sectors) (md counts writes itself where it calls this): the whole
 * chunk stripes the range touches, on every member.
 */
void km_bitmap_sector(struct mddev *mddev, sector_t *offset,
		      unsigned long *sectors)
{
	struct km_conf *conf = mddev->private;
	struct km_geom *g = &conf->geom;
	sector_t first, last;

	if (!*sectors)
		return;
	first = (*offset >> g->chunk_shift) / g->k;
	last = ((*offset + *sectors - 1) >> g->chunk_shift) / g->k;
	*offset = first << g->chunk_shift;
	*sectors = (last - first + 1) << g->chunk_shift;
}

/*
 * Enter the array's current conf for one bio: counted in active_reads
 * until km_leave(), so that a quiesce (md's, or a reshape window's gate)
 * waits until the bio is attached to its stripes or reads.
 */
static struct km_conf *km_enter(struct mddev *mddev)
{
	struct km_conf *conf;

	for (;;) {
		conf = READ_ONCE(mddev->private);
		atomic_inc(&conf->active_reads);
		smp_mb__after_atomic();	/* count, then look at quiesce */
		if (!READ_ONCE(conf->quiesce) &&
		    conf == READ_ONCE(mddev->private))
			return conf;
		km_leave(conf);
		wait_event(conf->wait_for_quiescent,
			   !READ_ONCE(conf->quiesce) ||
			   conf != READ_ONCE(mddev->private));
	}
}

/*
 * Write @bio part by part: whole chunk stripes as one job where
 * km_wwrite_sectors() takes them (wide_write.c), the rest by rows.
 */
static void km_write(struct km_conf *conf, struct bio *bio)
{
	for (;;) {
		sector_t sector = bio->bi_iter.bi_sector, n = bio_sectors(bio);
		sector_t wide = km_wwrite_sectors(conf, sector, n);
		sector_t len = wide ? wide : km_wwrite_head(conf, sector);
		struct bio *split = bio;

		if (len && len < n) {
			split = bio_split(bio, len, GFP_NOIO,
					  &conf->mddev->bio_set);
			bio_chain(split, bio);
		}
		if (wide) {
			km_wwrite(conf, split);
		} else {
			km_attach_bio(conf, split, true);
			bio_endio(split);
		}
		if (split == bio)
			return;
	}
}

static void km_dispatch(struct km_conf *conf, struct bio *bio, bool write)
{
	if (write)
		km_write(conf, bio);
	else
		km_read(conf, bio);
}

/*
 * During a reshape (reshape.c): the part of @bio below the boundary goes
 * to the new shape, the rest to the old one.
 */
static void km_dispatch_reshape(struct km_conf *conf, struct bio *bio,
				bool write)
{
	sector_t p = READ_ONCE(conf->reshape_progress);

	if (bio->bi_iter.bi_sector < p && bio_end_sector(bio) > p) {
		struct bio *split;

		split = bio_split(bio, p - bio->bi_iter.bi_sector, GFP_NOIO,
				  &conf->mddev->bio_set);
		bio_chain(split, bio);
		km_dispatch(conf, split, write);
	}
	km_dispatch(bio->bi_iter.bi_sector < p ? conf : conf->prev, bio,
		    write);
}

bool km_make_request(struct mddev *mddev, struct bio *bio)
{
	struct km_conf *conf;
	bool write = bio_data_dir(bio) == WRITE;

	if (unlikely(bio->bi_opf & REQ_PREFLUSH) &&
	    md_flush_request(mddev, bio))
		return true;
	if (!rkm_md_write_start(mddev, bio))
		return false;
	conf = READ_ONCE(mddev->private);
	if (unlikely((bio_op(bio) == REQ_OP_DISCARD &&
		      !conf->discard_granularity) ||
		     bio_op(bio) == REQ_OP_SECURE_ERASE ||
		     bio_op(bio) == REQ_OP_WRITE_ZEROES)) {
		bio->bi_status = BLK_STS_NOTSUPP;
		bio_endio(bio);
		md_write_end(mddev);
		return true;
	}
	if (!bio_sectors(bio)) {
		bio_endio(bio);
		if (write)
			md_write_end(mddev);
		return true;
	}
	if (write && unlikely(km_journal_blocks_writes(conf))) {
		/* as md raid5: no unprotected writes while the journal is out */
		bio_io_error(bio);
		md_write_end(mddev);
		return true;
	}
	conf = km_enter(mddev);
	/*
	 * From here on km works on md's clone of the bio: it holds the
	 * array's active_io until it ends, so that mddev_suspend() waits for
	 * it, and is counted in the array's I/O statistics (and, where md
	 * counts writes in the bitmap, there; see km_bitmap_sector()).
	 */
	md_account_bio(mddev, &bio);
	if (unlikely(bio_op(bio) == REQ_OP_DISCARD)) {
		/* a hint: none is passed on while a reshape moves the rows */
		if (conf->prev)
			bio_endio(bio);
		else
			km_discard(conf, bio);
	} else if (unlikely(conf->prev)) {
		km_dispatch_reshape(conf, bio, write);
	} else {
		km_dispatch(conf, bio, write);
	}
	km_leave(conf);
	if (write)
		md_write_end(mddev);
	return true;
}
