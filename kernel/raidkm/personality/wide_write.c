// SPDX-License-Identifier: GPL-2.0
/*
 * Full stripes in one job.  The part of a write bio that covers whole
 * consecutive chunk stripes is not cut into rows: its stripes are coded
 * by one ENCODE job and written with one multi-page bio per member.
 *
 * Encoding is bytewise, so S consecutive stripes are one job of S chunks'
 * length: buffer c (one per codec chunk, in one run of arena pages) holds
 * chunk c of every stripe of the range, stripe after stripe.  A member's
 * rows of consecutive stripes are consecutive on it, so member j gets one
 * bio over the whole range, each stripe's part from the buffer of the
 * chunk that j holds in that stripe.
 *
 * The range's member rows are claimed from the stripe cache (claim.c)
 * while the write runs: rows cached there are forgotten once idle, and
 * no row stripe is handed out for them until the write is done, so the
 * cache never holds a page older than the members.  Member writes go out
 * after the bitmap is on disk, bracketed by write_gen.c's generations so
 * that wide reads stay coherent.  The bio ends when every member write
 * has; it fails when more than m chunks of the range could not be
 * written, and its end is held while md has a superblock update pending,
 * as for the row path (km_hold_write()).
 *
 * Not taken, and the whole part goes by rows: during a reshape, when the
 * wide writes are off (wide_write_max_stripes = 0), when a member that
 * takes the writes has a bad-block record in the range, or when no
 * memory is free.  The work runs in a work item: claiming may wait.
 */
#include <linux/blkdev.h>
#include <linux/slab.h>
#include <linux/mm.h>
#include <linux/highmem.h>
#include <linux/sched/mm.h>
#include "km.h"
#include "../rkm_arena.h"
#include "../offload.h"
#include "../rkm_copy.h"

struct km_wwrite {
	struct km_conf *conf;
	struct bio *bio;		/* md's clone: whole chunk stripes */
	sector_t s0;			/* first chunk stripe */
	unsigned int stripes;
	unsigned int chunk_pages;	/* pages of one chunk */
	struct km_claim claim;
	void *run;
	unsigned int run_pages;
	bool run_arena;
	void *buf[RKM_MAX_N];		/* per codec chunk */
	struct md_rdev *rdev[RKM_MAX_N];	/* by member */
	struct md_rdev *repl[RKM_MAX_N];	/* by member: replacements */
	km_mask_t failed;		/* members not written, or failed */
	atomic_t pending;
	bool fua;
	bool bitmap_started;
	bool logged;			/* member writes go through the journal */
	struct km_jitem jitem;
	struct rkm_job job;
	struct work_struct work;
};

/* Front of a member bio of a full-stripe write. */
struct km_wwrite_bio {
	struct km_wwrite *w;
	int member;
	bool repl;
	struct bio bio;
};

static km_mask_t km_bit(int i)
{
	return (km_mask_t)1 << i;
}

/* Stripes of one job: 1 MiB per chunk, and the buffers' page bound. */
static unsigned int km_wwrite_max_stripes(struct km_conf *conf)
{
	unsigned int cp = conf->geom.chunk_sectors / KM_ROW_SECTORS;
	unsigned int s = (RAIDKM_MAX_LEN >> PAGE_SHIFT) / cp;

	s = min(s, (unsigned int)(KM_WIDE_MAX_PAGES / (cp * conf->geom.n)));
	/*
	 * With a journal, one record holds the whole range (and
	 * replacements); a member log of an optimal array logs none of it.
	 */
	if (conf->journal && !km_mlog_light(conf))
		s = min(s, km_journal_max_pages(conf) / (2 * cp * conf->geom.n));
	return min(s, READ_ONCE(conf->wide_write_max_stripes));
}

/*
 * How many sectors from @sector (of @nr) to write as whole stripes in one
 * job, or 0 when the next sectors go by rows: the array sectors up to the
 * first stripe boundary are a head that goes by rows.
 */
sector_t km_wwrite_sectors(struct km_conf *conf, sector_t sector, sector_t nr)
{
	struct km_geom *g = &conf->geom;
	sector_t ssec = (sector_t)g->chunk_sectors * g->k;
	sector_t t = sector, whole = nr;
	unsigned int max = km_wwrite_max_stripes(conf);

	if (!max || nr < ssec || conf->prev || conf->reshaping)
		return 0;
	if (sector_div(t, ssec))
		return 0;
	sector_div(whole, ssec);
	return min_t(sector_t, whole, max) * ssec;
}

/*
 * Sectors from @sector to the next stripe boundary, where a write that
 * km_wwrite_sectors() would not take in full can start whole stripes.
 */
sector_t km_wwrite_head(struct km_conf *conf, sector_t sector)
{
	sector_t ssec = (sector_t)conf->geom.chunk_sectors * conf->geom.k;
	sector_t t = sector;
	u32 off = sector_div(t, ssec);

	if (!off || !km_wwrite_max_stripes(conf) || conf->prev ||
	    conf->reshaping)
		return 0;
	return ssec - off;
}

/* The member rows of the range, on every member. */
static sector_t km_wwrite_lo(struct km_wwrite *w)
{
	return w->s0 << w->conf->geom.chunk_shift;
}

static sector_t km_wwrite_rows(struct km_wwrite *w)
{
	return (sector_t)w->stripes << w->conf->geom.chunk_shift;
}

static void km_wwrite_put_rdevs(struct km_wwrite *w)
{
	km_wide_put_rdevs(w->conf, w->rdev);
	km_wide_put_rdevs(w->conf, w->repl);
}

static void km_wwrite_free(struct km_wwrite *w)
{
	struct km_conf *conf = w->conf;

	km_wwrite_put_rdevs(w);
	km_wide_put_run(conf, w->run, w->run_pages, w->run_arena);
	kfree(w);
	km_leave(conf);
}

/*
 * Back to the row path, before any member was written (process context).
 * The rows are given back first (the row path takes stripes there); the
 * write count taken in km_wwrite() is dropped once the pieces hold theirs.
 */
static void km_wwrite_by_rows(struct km_wwrite *w, enum km_wide_fallback why)
{
	struct km_conf *conf = w->conf;
	struct bio *bio = w->bio;

	atomic64_inc(&conf->wide_stats.write_fallbacks[why]);
	if (!list_empty(&w->claim.node))
		km_claim_release(conf, &w->claim);
	if (w->bitmap_started)
		rkm_bitmap_endwrite(conf->mddev, km_wwrite_lo(w),
				    km_wwrite_rows(w), false);
	km_attach_bio(conf, bio, true);
	bio_endio(bio);
	md_write_end(conf->mddev);
	km_wwrite_free(w);
}

/*
 * The members that take the writes, referenced: false when one of them
 * has a bad-block record in the range (the row path writes around it).
 */
static bool km_wwrite_get_rdevs(struct km_wwrite *w)
{
	struct km_conf *conf = w->conf;
	int j;

	for (j = 0; j < conf->geom.n; j++) {
		w->rdev[j] = km_write_rdev(conf, j);
		w->repl[j] = km_get_replacement(conf, j);
		if ((w->rdev[j] && km_rdev_bad(w->rdev[j], km_wwrite_lo(w),
					       km_wwrite_rows(w))) ||
		    (w->repl[j] && km_rdev_bad(w->repl[j], km_wwrite_lo(w),
					       km_wwrite_rows(w))))
			return false;
		if (!w->rdev[j])
			w->failed |= km_bit(j);
	}
	return true;
}

/* Copy the bio's data into the data chunks' buffers, stripe by stripe. */
static void km_wwrite_gather(struct km_wwrite *w)
{
	struct km_geom *g = &w->conf->geom;
	struct bio *bio = w->bio;
	unsigned int cbytes = g->chunk_sectors << 9;
	unsigned long pos = 0;	/* bytes into the bio */
	struct bvec_iter iter;
	struct bio_vec bv;

	bio_for_each_segment(bv, bio, iter) {
		unsigned int done = 0;

		while (done < bv.bv_len) {
			unsigned long chunk = pos / cbytes;	/* of the bio */
			unsigned int in = pos % cbytes;
			unsigned int t = chunk / g->k, d = chunk % g->k;
			unsigned int len = min(bv.bv_len - done, cbytes - in);

			rkm_copy_from_page((char *)w->buf[d] +
					   (unsigned long)t * cbytes + in,
					   bv.bv_page, bv.bv_offset + done, len);
			done += len;
			pos += len;
		}
	}
}

static void km_wwrite_end_io(struct bio *bio)
{
	struct km_wwrite_bio *wb = container_of(bio, struct km_wwrite_bio, bio);
	struct km_wwrite *w = wb->w;
	struct km_conf *conf = w->conf;
	struct md_rdev *rdev = wb->repl ? w->repl[wb->member] :
					  w->rdev[wb->member];

	if (bio->bi_status) {
		pr_err_ratelimited("md/km:%s: write error on %pg at sector %llu\n",
				   mdname(conf->mddev), rdev->bdev,
				   (unsigned long long)km_wwrite_lo(w));
		/* a failed replacement fails itself, not the range */
		if (!wb->repl)
			set_bit(wb->member, (unsigned long *)&w->failed);
		md_error(conf->mddev, rdev);
	}
	bio_put(bio);
	if (atomic_dec_and_test(&w->pending))
		queue_work(conf->code_wq, &w->work);
}

/* One bio over the range for member @j (or its replacement). */
static void km_wwrite_submit_member(struct km_wwrite *w, int j, bool repl)
{
	struct km_conf *conf = w->conf;
	struct km_geom *g = &conf->geom;
	struct md_rdev *rdev = repl ? w->repl[j] : w->rdev[j];
	struct km_wwrite_bio *wb;
	struct bio *bio;
	unsigned int t;

	bio = bio_alloc_bioset(rdev->bdev, w->stripes * w->chunk_pages,
			       REQ_OP_WRITE | (w->fua ? REQ_FUA : 0), GFP_NOIO,
			       &conf->wide_write_bio_set);
	wb = container_of(bio, struct km_wwrite_bio, bio);
	wb->w = w;
	wb->member = j;
	wb->repl = repl;
	bio->bi_iter.bi_sector = km_wwrite_lo(w) + km_data_offset(conf, rdev);
	for (t = 0; t < w->stripes; t++) {
		int c = km_member_chunk(g, w->s0 + t, j);
		char *base = (char *)w->buf[c] +
			     ((unsigned long)t * w->chunk_pages << PAGE_SHIFT);

		km_wide_add_pages(bio, base, w->chunk_pages, w->run_arena);
	}
	bio->bi_end_io = km_wwrite_end_io;
	atomic_inc(&w->pending);
	atomic64_inc(&conf->wide_stats.write_member_writes);
	if (w->logged)
		bio_list_add(&w->jitem.bios, bio);
	else
		submit_bio_noacct(bio);
}

/* The bio ends (or is held, km_hold_write()) once md may know. */
static void km_wwrite_end_bio(struct km_wwrite *w, bool ok)
{
	struct km_conf *conf = w->conf;
	struct km_piece *p;

	if (!ok)
		w->bio->bi_status = BLK_STS_IOERR;
	md_write_end(conf->mddev);
	p = mempool_alloc(conf->piece_pool, GFP_NOIO);
	p->bio = w->bio;
	if (km_hold_write(conf, p))
		return;
	mempool_free(p, conf->piece_pool);
	bio_endio(w->bio);
}

/* Every member write ended (process context). */
static void km_wwrite_done(struct work_struct *work)
{
	struct km_wwrite *w = container_of(work, struct km_wwrite, work);
	struct km_conf *conf = w->conf;
	bool ok = km_popcount(w->failed) <= conf->geom.m;
	unsigned int t;

	for (t = 0; t < w->stripes; t++)
		km_gen_write_end(conf, w->s0 + t);
	km_journal_written(&w->jitem);
	km_claim_release(conf, &w->claim);
	rkm_bitmap_endwrite(conf->mddev, km_wwrite_lo(w), km_wwrite_rows(w),
			    ok && !w->failed);
	atomic64_inc(&conf->wide_stats.writes);
	atomic64_add(w->stripes, &conf->wide_stats.write_stripes);
	km_wwrite_end_bio(w, ok);
	km_wwrite_free(w);
}

/* A wide member write: its slot and first row (journal.c). */
static void km_wwrite_jentry(struct km_jitem *it, struct bio *bio,
			     struct km_jent *e)
{
	struct km_wwrite *w = container_of(it, struct km_wwrite, jitem);
	struct km_wwrite_bio *wb = container_of(bio, struct km_wwrite_bio, bio);

	km_journal_entry(e, km_wwrite_lo(w), wb->member, wb->repl);
}

/*
 * With a member log, whether the range needs only its parity recomputed
 * after a crash (member_log.c): every member in sync takes its write, no
 * replacement.
 */
static bool km_wwrite_light(struct km_wwrite *w)
{
	int j;

	if (!km_mlog_light(w->conf))
		return false;
	for (j = 0; j < w->conf->geom.n; j++)
		if (!w->rdev[j] || !test_bit(In_sync, &w->rdev[j]->flags) ||
		    w->repl[j])
			return false;
	return true;
}

/*
 * How the range is logged: not at all (no journal; or a member log that
 * md's bitmap stands in for), as one recompute entry, or with its pages
 * (false when they would not fit one record: the range goes by rows).
 */
static bool km_wwrite_log_plan(struct km_wwrite *w)
{
	struct km_conf *conf = w->conf;
	unsigned int pages = 0;
	int j;

	w->logged = km_journal_on(conf);
	if (!w->logged)
		return true;
	if (km_wwrite_light(w)) {
		/* with a bitmap, its bits are the record (member_log.c) */
		if (km_mlog_bitmap_takes(conf)) {
			w->logged = false;
			return true;
		}
		w->jitem.recompute = true;
		w->jitem.rsector = km_wwrite_lo(w);
		w->jitem.rrows = km_wwrite_rows(w) / KM_ROW_SECTORS;
		return true;
	}
	for (j = 0; j < conf->geom.n; j++)
		pages += (!!w->rdev[j] + !!w->repl[j]) * w->stripes *
			 w->chunk_pages;
	return pages <= km_journal_max_pages(conf);
}

/* Parity is in: the bitmap to disk, then one bio per member. */
static void km_wwrite_submit(struct work_struct *work)
{
	struct km_wwrite *w = container_of(work, struct km_wwrite, work);
	struct km_conf *conf = w->conf;
	unsigned int t;
	int j;

	if (w->job.result) {
		pr_err_ratelimited("md/km:%s: full-stripe encode failed (%d), writing by rows\n",
				   mdname(conf->mddev), w->job.result);
		km_wwrite_by_rows(w, KM_WF_JOB);
		return;
	}
	if (!km_wwrite_log_plan(w)) {
		/* degraded meanwhile: the member log takes it by rows */
		km_wwrite_by_rows(w, KM_WF_LOG);
		return;
	}
	rkm_bitmap_unplug(conf->mddev);
	for (t = 0; t < w->stripes; t++)
		km_gen_write_begin(conf, w->s0 + t);
	INIT_WORK(&w->work, km_wwrite_done);
	atomic_set(&w->pending, 1);
	/* with a journal, the member writes reach it first (journal.c) */
	for (j = 0; j < conf->geom.n; j++) {
		if (w->rdev[j])
			km_wwrite_submit_member(w, j, false);
		if (w->repl[j])
			km_wwrite_submit_member(w, j, true);
	}
	if (!bio_list_empty(&w->jitem.bios))
		km_journal_queue(conf, &w->jitem);
	if (atomic_dec_and_test(&w->pending))
		queue_work(conf->code_wq, &w->work);
}

static void km_wwrite_job_done(struct rkm_job *job)
{
	struct km_wwrite *w = job->priv;

	INIT_WORK(&w->work, km_wwrite_submit);
	queue_work(w->conf->code_wq, &w->work);
}

static void km_wwrite_encode(struct km_wwrite *w)
{
	struct km_conf *conf = w->conf;
	struct rkm_job *job = &w->job;
	int i;

	memset(job, 0, sizeof(*job));
	job->op = RKM_JOB_ENCODE;
	job->code = conf->code;
	job->len = (w->stripes * w->chunk_pages) << PAGE_SHIFT;
	job->waited = true;	/* the writes wait for their parity */
	for (i = 0; i < conf->geom.n; i++)
		job->chunk[i] = w->buf[i];
	if (conf->job_stats_registered)
		job->stats = &conf->job_stats;
	job->done = km_wwrite_job_done;
	job->priv = w;
	rkm_job_submit(job);
}

/* Claim the rows, take the members and buffers, gather, encode. */
static void km_wwrite_start(struct work_struct *work)
{
	struct km_wwrite *w = container_of(work, struct km_wwrite, work);
	struct km_conf *conf = w->conf;
	unsigned int chunk_bytes, i;

	spin_lock_irq(&conf->lock);
	km_claim_rows(conf, &w->claim, km_wwrite_lo(w),
		      km_wwrite_lo(w) + km_wwrite_rows(w));
	spin_unlock_irq(&conf->lock);
	if (!km_wwrite_get_rdevs(w)) {
		km_wwrite_by_rows(w, KM_WF_BAD_BLOCK);
		return;
	}
	w->run_pages = conf->geom.n * w->stripes * w->chunk_pages;
	w->run = km_wide_get_run(conf, w->run_pages, &w->run_arena);
	if (!w->run) {
		km_wwrite_by_rows(w, KM_WF_ALLOC);
		return;
	}
	chunk_bytes = (w->stripes * w->chunk_pages) << PAGE_SHIFT;
	for (i = 0; i < conf->geom.n; i++)
		w->buf[i] = (char *)w->run + (unsigned long)i * chunk_bytes;
	km_wwrite_gather(w);
	rkm_bitmap_startwrite(conf->mddev, km_wwrite_lo(w), km_wwrite_rows(w));
	w->bitmap_started = true;
	atomic64_inc(&conf->stats.full_stripe_writes);
	km_wwrite_encode(w);
}

/*
 * Write @bio (whole chunk stripes, as km_wwrite_sectors() chose) as one
 * job; it is started from a work item, since claiming rows may wait.
 */
void km_wwrite(struct km_conf *conf, struct bio *bio)
{
	struct km_geom *g = &conf->geom;
	struct km_wwrite *w;
	sector_t s0 = bio->bi_iter.bi_sector, n = bio_sectors(bio);

	w = kzalloc(sizeof(*w), GFP_NOIO);
	if (!w) {
		atomic64_inc(&conf->wide_stats.write_fallbacks[KM_WF_ALLOC]);
		km_attach_bio(conf, bio, true);
		bio_endio(bio);
		return;
	}
	atomic_inc(&conf->active_reads);
	/* until the bio ends: the array is not marked clean meanwhile */
	md_write_inc(conf->mddev, bio);
	w->conf = conf;
	w->bio = bio;
	km_journal_item_init(&w->jitem, km_wwrite_jentry);
	sector_div(s0, (sector_t)g->chunk_sectors * g->k);
	sector_div(n, (sector_t)g->chunk_sectors * g->k);
	w->s0 = s0;
	w->stripes = n;
	w->chunk_pages = g->chunk_sectors / KM_ROW_SECTORS;
	w->fua = bio->bi_opf & REQ_FUA;
	INIT_LIST_HEAD(&w->claim.node);
	INIT_WORK(&w->work, km_wwrite_start);
	queue_work(conf->code_wq, &w->work);
}

int km_wwrite_init(struct km_conf *conf)
{
	return bioset_init(&conf->wide_write_bio_set, BIO_POOL_SIZE,
			   offsetof(struct km_wwrite_bio, bio),
			   BIOSET_NEED_BVECS);
}
