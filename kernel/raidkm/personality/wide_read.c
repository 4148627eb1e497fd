// SPDX-License-Identifier: GPL-2.0
/*
 * Wide degraded reads.  A read that needs a lost chunk and covers at
 * least wide_read_min_rows rows of its chunk stripe is served by row
 * range instead of row by row:
 *
 *   1. the survivors: k readable chunks of the chunk stripe, the data the
 *      read delivers first (plan.c's km_plan_survivors), read over the
 *      rows the read covers with one multi-page bio per member, into one
 *      run of arena pages (so raidkmd sees them without a copy);
 *   2. one DECODE job over those rows, its wanted mask the lost chunks
 *      the read delivers (no other lost chunk is computed);
 *   3. the read is filled from the survivors' buffers and the decoded
 *      chunks, so no member is read twice.
 *
 * It holds conf->active_reads from start to end, as a direct read does,
 * so quiesce, suspend and reshape wait for it.  It goes to the row path
 * (the stripe cache, with its error handling) on a member read error, a
 * bad-block record in the range, a member write into the same chunk
 * stripe (write_gen.c has the rule), a failed decode, or no memory; and
 * it is not tried while a reshape runs.  When no arena run is free, the
 * read waits on conf->wide_waiting for one (never sleeping in md's
 * make_request) and is started by a work item when a run is freed.
 */
#include <linux/blkdev.h>
#include <linux/slab.h>
#include <linux/mm.h>
#include <linux/highmem.h>
#include <linux/delay.h>
#include <linux/module.h>
#include "km.h"
#include "../rkm_arena.h"
#include "../offload.h"

/*
 * Test hook: hold every wide or verified read this long between its
 * member reads and the write-generation check, so that a test's
 * concurrent writes land in the window (tests/guest/km-wide-race.sh).
 */
static unsigned int wide_race_delay_ms;
module_param(wide_race_delay_ms, uint, 0644);
MODULE_PARM_DESC(wide_race_delay_ms,
		 "km: test hook, ms a wide or verified read waits before its coherence check (0)");

/* The test hook's window (process context). */
void km_wide_race_window(void)
{
	unsigned int ms = READ_ONCE(wide_race_delay_ms);

	if (ms)
		msleep(min(ms, 1000u));
}

struct km_wide {
	struct km_conf *conf;
	struct bio *bio;		/* md's clone, within one chunk stripe */
	struct list_head waiting;	/* on conf->wide_waiting */
	struct km_span span;
	sector_t msector;		/* member sector of the first row */
	unsigned int rows;
	km_mask_t surv, want;		/* chunks read, chunks decoded */
	unsigned int gen;		/* write_gen.c */
	void *run;			/* buffers: rows pages per chunk */
	unsigned int run_pages;
	bool run_arena;			/* from the arena (else kvmalloc) */
	void *buf[RKM_MAX_N];		/* per codec chunk, or NULL */
	struct md_rdev *rdev[RKM_MAX_N];
	atomic_t pending;
	atomic_t parts;			/* the survivors' copy, the decode */
	bool read_failed;
	struct rkm_job job;
	struct work_struct work;	/* the decode, or waiting for a run */
	struct work_struct end_work;	/* the read's end after the job */
};

/* Front of a wide read's member bio (conf->wide_bio_set). */
struct km_wide_bio {
	struct km_wide *w;
	struct bio bio;
};

static km_mask_t km_bit(int i)
{
	return (km_mask_t)1 << i;
}

static void km_wide_count(struct km_conf *conf, enum km_wide_fallback why)
{
	atomic64_inc(&conf->wide_stats.fallbacks[why]);
}

/*
 * The chunks of @s's stripe that cannot be read over the member rows
 * [@msector, +@sectors); *@bad when a member that otherwise holds them has
 * a bad-block record there (the row path reads around it row by row).
 * Verified reads (read_verify.c) ask the same.
 */
km_mask_t km_wide_lost(struct km_conf *conf, const struct km_span *s,
			      sector_t msector, int sectors, bool *bad)
{
	struct km_geom *g = &conf->geom;
	km_mask_t lost = 0;
	int i;

	*bad = false;
	rcu_read_lock();
	for (i = 0; i < g->n; i++) {
		int member = km_chunk_member(g, s->stripe, i);
		struct md_rdev *rdev = km_live(rcu_dereference(conf->disks[member].rdev));

		if (rdev && km_rdev_bad(rdev, msector, sectors))
			*bad = true;
		if (!km_slot_readable(conf, member, msector) ||
		    !km_slot_readable(conf, member, msector + sectors -
				      KM_ROW_SECTORS))
			lost |= km_bit(i);
	}
	rcu_read_unlock();
	return lost;
}

/* Largest row count for a wide read decoding @nwant chunks. */
static unsigned int km_wide_max_rows(struct km_conf *conf, int nwant)
{
	unsigned int rows = KM_WIDE_MAX_PAGES / (conf->geom.k + nwant);

	return min_t(unsigned int, rows, RAIDKM_MAX_LEN >> PAGE_SHIFT);
}

/*
 * How many sectors from @sector (of @nr) to read as one wide read, or 0
 * when the read goes the usual way (direct where the chunk is readable,
 * else by rows) for the rest of its chunk.
 */
sector_t km_wide_sectors(struct km_conf *conf, sector_t sector, sector_t nr)
{
	struct km_geom *g = &conf->geom;
	struct km_span s;
	km_mask_t lost;
	unsigned int rows, max;
	bool bad;

	if (!READ_ONCE(conf->wide_min_rows) || !conf->mddev->degraded)
		return 0;
	km_stripe_span(g, sector, sector + nr, KM_ROW_SECTORS, &s);
	if (s.sparse)
		km_stripe_span(g, sector, km_unmap(g, s.stripe, s.dlo + 1, 0),
			       KM_ROW_SECTORS, &s);
	lost = km_wide_lost(conf, &s, km_span_msector(conf, &s, s.lo),
			    s.hi - s.lo, &bad);
	if (!(lost & km_span_data(&s)))
		return 0;
	if (conf->prev || conf->reshaping) {
		km_wide_count(conf, KM_WF_RESHAPE);
		return 0;
	}
	if (bad) {
		km_wide_count(conf, KM_WF_BAD_BLOCK);
		return 0;
	}
	if (km_popcount(lost) > g->m) {
		km_wide_count(conf, KM_WF_LOST);
		return 0;
	}
	rows = (s.hi - s.lo) / KM_ROW_SECTORS;
	if (rows < READ_ONCE(conf->wide_min_rows))
		return 0;
	max = km_wide_max_rows(conf, km_popcount(lost & km_span_data(&s)));
	if (rows <= max)
		return s.end - sector;
	if (s.dlo != s.dhi)	/* one chunk at a time */
		return km_wide_sectors(conf, sector,
				       km_unmap(g, s.stripe, s.dlo + 1, 0) -
				       sector);
	/* a long part of one chunk: max rows from its first */
	return min_t(sector_t, s.end - sector,
		     (sector_t)max * KM_ROW_SECTORS -
		     (sector & KM_ROW_MASK));
}

static void km_wide_free_run(struct km_wide *w)
{
	km_wide_put_run(w->conf, w->run, w->run_pages, w->run_arena);
	w->run = NULL;
}

static void km_wide_free(struct km_wide *w)
{
	struct km_conf *conf = w->conf;

	km_wide_put_rdevs(w->conf, w->rdev);
	km_wide_free_run(w);
	kfree(w);
	km_leave(conf);
}

/* Serve the read by rows after all (process context). */
static void km_wide_fallback(struct km_wide *w, enum km_wide_fallback why)
{
	struct km_conf *conf = w->conf;
	struct bio *bio = w->bio;

	km_wide_count(conf, why);
	km_wide_put_rdevs(w->conf, w->rdev);
	km_wide_free_run(w);
	km_attach_bio(conf, bio, false);
	bio_endio(bio);
	kfree(w);
	km_leave(conf);
}

static void km_wide_finish(struct km_wide *w)
{
	struct km_conf *conf = w->conf;

	if (w->job.result) {
		pr_warn_ratelimited("md/km:%s: wide decode failed (%d), reading by rows\n",
				    mdname(conf->mddev), w->job.result);
		km_wide_fallback(w, KM_WF_JOB);
		return;
	}
	km_wide_fill(w->conf, w->bio, &w->span, w->buf, w->want);
	atomic64_inc(&conf->wide_stats.reads);
	atomic64_add(bio_sectors(w->bio) << 9, &conf->wide_stats.bytes);
	atomic64_add(w->rows, &conf->wide_stats.rows);
	atomic64_inc(&conf->stats.reconstruct_reads);
	bio_endio(w->bio);
	km_wide_free(w);
}

/*
 * One of the two parts after the reads is over: the last ends the read,
 * at once where it may sleep (@can_sleep), else from a work item.
 */
static void km_wide_part_done(struct km_wide *w, bool can_sleep)
{
	if (!atomic_dec_and_test(&w->parts))
		return;
	if (can_sleep)
		km_wide_finish(w);
	else
		queue_work(w->conf->code_wq, &w->end_work);
}

static void km_wide_end_work(struct work_struct *work)
{
	km_wide_finish(container_of(work, struct km_wide, end_work));
}

static void km_wide_job_done(struct rkm_job *job)
{
	km_wide_part_done(job->priv, false);
}

/*
 * Every member read is in: decode the wanted chunks, and copy the data
 * the survivors hold into the reader's pages while the job runs (the
 * decoded chunks follow when it is done; a failed job sends the whole
 * read to the rows, which fill every page again).  Process context.
 */
static void km_wide_decode(struct work_struct *work)
{
	struct km_wide *w = container_of(work, struct km_wide, work);
	struct km_conf *conf = w->conf;
	struct rkm_job *job = &w->job;
	int i;

	if (READ_ONCE(w->read_failed)) {
		km_wide_fallback(w, KM_WF_READ_ERROR);
		return;
	}
	km_wide_race_window();
	if (!km_gen_read_valid(conf, w->span.stripe, w->gen)) {
		km_wide_fallback(w, KM_WF_RACE);
		return;
	}
	km_wide_put_rdevs(w->conf, w->rdev);
	memset(job, 0, sizeof(*job));
	job->op = RKM_JOB_DECODE;
	job->code = conf->code;
	job->len = w->rows << PAGE_SHIFT;
	job->mask = km_mask_all(conf->geom.n) & ~w->surv;
	job->want = w->want;
	job->waited = true;	/* a reader */
	for (i = 0; i < conf->geom.n; i++)
		job->chunk[i] = w->buf[i];
	if (conf->job_stats_registered)
		job->stats = &conf->job_stats;
	job->done = km_wide_job_done;
	job->priv = w;
	atomic_set(&w->parts, 2);
	rkm_job_submit(job);
	km_wide_fill(conf, w->bio, &w->span, w->buf,
		     km_span_data(&w->span) & w->surv);
	km_wide_part_done(w, true);
}

static void km_wide_end_read(struct bio *bio)
{
	struct km_wide_bio *wb = container_of(bio, struct km_wide_bio, bio);
	struct km_wide *w = wb->w;

	if (bio->bi_status)
		WRITE_ONCE(w->read_failed, true);
	bio_put(bio);
	if (atomic_dec_and_test(&w->pending)) {
		INIT_WORK(&w->work, km_wide_decode);
		queue_work(w->conf->code_wq, &w->work);
	}
}

/*
 * One bio per survivor over the rows, into its buffer; none while a
 * member write of the chunk stripe is in flight (write_gen.c).
 */
static void km_wide_submit_reads(struct km_wide *w)
{
	struct km_conf *conf = w->conf;
	int i;

	if (!km_gen_read_begin(conf, w->span.stripe, &w->gen)) {
		km_wide_fallback(w, KM_WF_RACE);
		return;
	}
	atomic_set(&w->pending, 1);
	for (i = 0; i < conf->geom.n; i++) {
		struct md_rdev *rdev = w->rdev[i];
		struct km_wide_bio *wb;
		struct bio *bio;

		if (!(w->surv & km_bit(i)))
			continue;
		bio = km_wide_member_bio(conf, rdev, REQ_OP_READ, w->msector,
					 w->buf[i], w->rows, w->run_arena);
		wb = container_of(bio, struct km_wide_bio, bio);
		wb->w = w;
		bio->bi_end_io = km_wide_end_read;
		atomic_inc(&w->pending);
		atomic64_inc(&conf->wide_stats.member_reads);
		atomic64_add(w->rows << PAGE_SHIFT,
			     &conf->wide_stats.member_bytes);
		submit_bio_noacct(bio);
	}
	if (atomic_dec_and_test(&w->pending)) {
		INIT_WORK(&w->work, km_wide_decode);
		queue_work(conf->code_wq, &w->work);
	}
}

/* Point every read or decoded chunk at its part of the run. */
static void km_wide_carve_read(struct km_wide *w)
{
	km_wide_carve(w->run, w->rows, w->surv | w->want, w->conf->geom.n,
		      w->buf);
}

/* An arena run for @w, or false (it stays waiting). */
static bool km_wide_take_run(struct km_wide *w)
{
	w->run = rkm_arena_alloc_run(w->run_pages);
	if (!w->run)
		return false;
	w->run_arena = true;
	km_wide_carve_read(w);
	return true;
}

/* Start the reads that waited for a run, while runs are free. */
void km_wide_start_waiting(struct work_struct *work)
{
	struct km_conf *conf = container_of(work, struct km_conf, wide_work);
	struct km_wide *w;

	for (;;) {
		spin_lock_irq(&conf->wide_lock);
		w = list_first_entry_or_null(&conf->wide_waiting,
					     struct km_wide, waiting);
		if (w && km_wide_take_run(w))
			list_del_init(&w->waiting);
		else
			w = NULL;
		spin_unlock_irq(&conf->wide_lock);
		if (!w)
			return;
		km_wide_submit_reads(w);
	}
}

/*
 * Buffers for @w: an arena run, else (none of that size exists) memory of
 * its own, coded on the CPU.  false: @w waits for a run.
 */
static bool km_wide_buffers(struct km_wide *w)
{
	struct km_conf *conf = w->conf;

	w->run_pages = km_popcount(w->surv | w->want) * w->rows;
	if (!km_wide_run_fits(w->run_pages)) {
		w->run = km_wide_own_buf((size_t)w->run_pages << PAGE_SHIFT);
		if (w->run)
			km_wide_carve_read(w);
		return true;
	}
	spin_lock_irq(&conf->wide_lock);
	if (list_empty(&conf->wide_waiting) && km_wide_take_run(w)) {
		spin_unlock_irq(&conf->wide_lock);
		return true;
	}
	list_add_tail(&w->waiting, &conf->wide_waiting);
	spin_unlock_irq(&conf->wide_lock);
	atomic64_inc(&conf->wide_stats.waits);
	/* a run may have been freed before we were on the list */
	queue_work(conf->retry_wq, &conf->wide_work);
	return false;
}

/* Take a reference on every survivor's member; false if one went away. */
static bool km_wide_get_rdevs(struct km_wide *w)
{
	struct km_conf *conf = w->conf;
	int i;

	for (i = 0; i < conf->geom.n; i++) {
		if (!(w->surv & km_bit(i)))
			continue;
		w->rdev[i] = km_read_rdev(conf,
					  km_chunk_member(&conf->geom,
							  w->span.stripe, i),
					  w->msector, w->rows * KM_ROW_SECTORS);
		if (!w->rdev[i])
			return false;
	}
	return true;
}

/*
 * Read @bio (a part that km_wide_sectors() chose) by its row range.  Any
 * reason not to goes to the row path, counted.
 */
void km_wide_read(struct km_conf *conf, struct bio *bio)
{
	struct km_geom *g = &conf->geom;
	struct km_wide *w;
	km_mask_t lost, data;
	bool bad;

	w = kzalloc(sizeof(*w), GFP_NOIO);
	if (!w) {
		km_wide_count(conf, KM_WF_ALLOC);
		km_attach_bio(conf, bio, false);
		bio_endio(bio);
		return;
	}
	atomic_inc(&conf->active_reads);
	w->conf = conf;
	w->bio = bio;
	INIT_LIST_HEAD(&w->waiting);
	INIT_WORK(&w->end_work, km_wide_end_work);
	km_stripe_span(g, bio->bi_iter.bi_sector, bio_end_sector(bio),
		       KM_ROW_SECTORS, &w->span);
	w->msector = km_span_msector(conf, &w->span, w->span.lo);
	w->rows = (w->span.hi - w->span.lo) / KM_ROW_SECTORS;
	data = km_span_data(&w->span);
	lost = km_wide_lost(conf, &w->span, w->msector,
			    w->rows * KM_ROW_SECTORS, &bad);
	w->surv = km_plan_survivors(g->k, g->n, lost, data);
	w->want = lost & data;
	if (bad || !w->surv || !w->want) {
		km_wide_fallback(w, bad ? KM_WF_BAD_BLOCK : KM_WF_LOST);
		return;
	}
	if (!km_wide_get_rdevs(w)) {
		km_wide_fallback(w, KM_WF_LOST);
		return;
	}
	if (!km_wide_buffers(w))
		return;		/* started when a run is free */
	if (!w->run) {
		km_wide_fallback(w, KM_WF_ALLOC);
		return;
	}
	km_wide_submit_reads(w);
}

int km_wide_init(struct km_conf *conf)
{
	conf->wide_min_rows = KM_WIDE_DEFAULT_MIN_ROWS;
	conf->wide_write_max_stripes = KM_WIDE_DEFAULT_WRITE_STRIPES;
	spin_lock_init(&conf->wide_lock);
	INIT_LIST_HEAD(&conf->wide_waiting);
	INIT_WORK(&conf->wide_work, km_wide_start_waiting);
	init_waitqueue_head(&conf->wide_run_wait);
	if (bioset_init(&conf->wide_bio_set, BIO_POOL_SIZE,
			offsetof(struct km_wide_bio, bio),
			BIOSET_NEED_BVECS | BIOSET_NEED_RESCUER))
		return -ENOMEM;
	return km_wwrite_init(conf);
}

void km_wide_exit(struct km_conf *conf)
{
	bioset_exit(&conf->wide_bio_set);
	bioset_exit(&conf->wide_write_bio_set);
}
