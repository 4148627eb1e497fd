// SPDX-License-Identifier: GPL-2.0
/*
 * Verified reads (km/read_verify: off, detect, correct).  Every read is
 * checked against its stripe's parity before it is returned:
 *
 *   1. the read is cut per chunk stripe like a wide read (wide_read.c);
 *      its rows are the rows of the chunk stripe it touches (all of them
 *      when it spans more than one chunk), and every readable chunk of
 *      them (all k + m but the lost ones) is read with one multi-page
 *      bio per member into one arena run (wide_buf.c); in correct mode
 *      with nothing lost and m >= 3 only the data, P and Q (plan.c's
 *      km_plan_verify_skip: k + 2 chunks detect two bad ones and locate
 *      one), checked with the (k, 2) code, and on a mismatch the range
 *      is read again whole before step 3 locates the bad chunk;
 *   2. lost chunks, if any, are decoded from k of the others, and one
 *      CHECK job compares the range with its parity;
 *   3. consistent: the read is filled from the buffers.  A mismatch
 *      fails the read (-EIO, logged and counted) in detect mode; in
 *      correct mode with two chunks of redundancy left (plan.c's
 *      km_plan_verify_level: Curry's rule) the one bad chunk is located
 *      (a LOCATE job, or with lost chunks by trying each suspect: decode
 *      it from the others, check), the read gets the rebuilt data and
 *      the chunk is written back to its member under a row claim (from
 *      a copy, after the read ended and the run was given back).
 *
 * Coherence is write_gen.c's rule, as for wide reads: member reads start
 * only with no write of the chunk stripe in flight and are used only if
 * no write started meanwhile; else they are read again (KM_VERIFY_TRIES
 * times) and then the read goes by rows, unverified and counted.  The
 * rewrite of a corrected chunk claims the rows (claim.c) and writes only
 * if still no write started since the reads.  A verified read holds
 * conf->active_reads from start to end.  It runs in a work item of
 * conf->code_wq, waiting for its member reads and jobs.
 */
#include <linux/blkdev.h>
#include <linux/slab.h>
#include <linux/delay.h>
#include <linux/module.h>
#include <linux/string.h>
#include "km.h"
#include "../offload.h"

static char *km_read_verify = "off";
module_param(km_read_verify, charp, 0644);
MODULE_PARM_DESC(km_read_verify,
		 "km: read_verify of arrays started from now on: off, detect or correct (off)");

/* Reads of one range that met a write before it goes by rows. */
#define KM_VERIFY_TRIES		4

/* Indexed by enum km_verify_level: the mode, and what reads get now. */
static const char *const km_verify_modes[] = { "off", "detect", "correct" };
static const char *const km_verify_levels[] = {
	"none", "detect-only", "full",
};

/* How a verified read ends. */
enum km_verify_end {
	KM_VE_GOOD,		/* consistent: returned */
	KM_VE_CORRECTED,	/* one chunk rebuilt: returned */
	KM_VE_FAILED,		/* mismatch not corrected: -EIO */
	KM_VE_ROWS,		/* not verified: the row path serves it */
};

struct km_verify {
	struct km_conf *conf;
	struct bio *bio;		/* md's clone, within one chunk stripe */
	struct km_span span;
	sector_t msector;		/* member sector of the first row */
	unsigned int rows;
	int level;			/* enum km_verify_level for the range */
	km_mask_t lost;			/* chunks not read */
	km_mask_t skip;			/* parity not read: the P+Q check */
	bool whole;			/* read every chunk (P or Q disagreed) */
	unsigned int gen;		/* write_gen.c */
	void *run;			/* n + m + 1 chunks of rows pages */
	unsigned int run_pages;
	bool run_arena;
	void *buf[RKM_MAX_N];		/* per codec chunk */
	void *scratch;			/* m chunks: CHECK/LOCATE */
	void *spare;			/* a suspect chunk rebuilt */
	int fixed;			/* the chunk corrected, or -1 */
	struct md_rdev *rdev[RKM_MAX_N];
	struct km_verify_rd {		/* a member read's chunk, for its end */
		struct km_verify *v;
		int chunk;
	} rd[RKM_MAX_N];
	atomic64_t read_err;		/* chunks whose member read failed */
	km_mask_t rerr;			/* of them, rebuilt: to write back */
	atomic_t pending;
	struct completion done;		/* member reads, or a job */
	struct rkm_job job;
	struct work_struct work;
	struct km_claim claim;
};

static km_mask_t km_bit(int i)
{
	return (km_mask_t)1 << i;
}

/* Member sectors of the range. */
static unsigned int km_verify_len(const struct km_verify *v)
{
	return v->rows * (unsigned int)KM_ROW_SECTORS;
}

void km_verify_init(struct km_conf *conf)
{
	int mode = sysfs_match_string(km_verify_modes, km_read_verify);

	if (mode < 0) {
		pr_warn("md/km:%s: km_read_verify=%s unknown, read_verify off\n",
			mdname(conf->mddev), km_read_verify);
		mode = KM_VERIFY_NONE;
	}
	conf->verify_mode = mode;
	atomic_set(&conf->verify_level, mode);
}

/* What the array's reads get now: the mode, as the lost members allow. */
static int km_verify_level_now(struct km_conf *conf)
{
	int e = min(READ_ONCE(conf->mddev->degraded), 64);

	return km_plan_verify_effective(READ_ONCE(conf->verify_mode),
					conf->geom.m, km_mask_all(e));
}

/*
 * Say so in the log, once per change, when what reads get differs from
 * the mode asked for (members lost, or m = 1 with correct) or is whole
 * again.
 */
void km_verify_note_level(struct km_conf *conf)
{
	int mode = READ_ONCE(conf->verify_mode);
	int now = km_verify_level_now(conf);
	int was = atomic_read(&conf->verify_level);

	if (was == now || atomic_cmpxchg(&conf->verify_level, was, now) != was)
		return;
	if (mode == KM_VERIFY_NONE)
		return;
	if (now < mode)
		pr_warn("md/km:%s: read_verify %s: reads are %s now (%d lost, m=%d: detection needs m - e >= 1, correction m - e >= 2)\n",
			mdname(conf->mddev), km_verify_modes[mode],
			km_verify_levels[now], conf->mddev->degraded,
			conf->geom.m);
	else
		pr_info("md/km:%s: read_verify %s: reads are %s again\n",
			mdname(conf->mddev), km_verify_modes[mode],
			km_verify_levels[now]);
}

ssize_t km_verify_mode_show(struct km_conf *conf, char *page)
{
	return sysfs_emit(page, "%s\n",
			  km_verify_modes[READ_ONCE(conf->verify_mode)]);
}

ssize_t km_verify_state_show(struct km_conf *conf, char *page)
{
	if (!READ_ONCE(conf->verify_mode))
		return sysfs_emit(page, "off\n");
	return sysfs_emit(page, "%s\n",
			  km_verify_levels[km_verify_level_now(conf)]);
}

/* Set the mode from sysfs: -EINVAL for a name not known. */
int km_verify_set_mode(struct km_conf *conf, const char *page)
{
	int mode = sysfs_match_string(km_verify_modes, page);

	if (mode < 0)
		return -EINVAL;
	WRITE_ONCE(conf->verify_mode, mode);
	atomic_set(&conf->verify_level, mode);
	km_verify_note_level(conf);
	return 0;
}

/* Most rows of one verified read: n + m + 1 chunks of buffers. */
static unsigned int km_verify_max_rows(struct km_conf *conf)
{
	struct km_geom *g = &conf->geom;
	unsigned int rows = KM_WIDE_MAX_PAGES / (g->n + g->m + 1);

	return min_t(unsigned int, rows, RAIDKM_MAX_LEN >> PAGE_SHIFT);
}

/* The part from @sector (of @nr) that one verified read takes. */
static sector_t km_verify_cut(struct km_conf *conf, sector_t sector,
			      sector_t nr)
{
	struct km_geom *g = &conf->geom;
	unsigned int max = km_verify_max_rows(conf);
	struct km_span s;

	km_stripe_span(g, sector, sector + nr, KM_ROW_SECTORS, &s);
	if (s.sparse)
		km_stripe_span(g, sector, km_unmap(g, s.stripe, s.dlo + 1, 0),
			       KM_ROW_SECTORS, &s);
	if ((s.hi - s.lo) / KM_ROW_SECTORS <= max)
		return s.end - sector;
	if (s.dlo != s.dhi)	/* one chunk at a time */
		return km_verify_cut(conf, sector,
				     km_unmap(g, s.stripe, s.dlo + 1, 0) -
				     sector);
	return min_t(sector_t, s.end - sector,
		     (sector_t)max * KM_ROW_SECTORS - (sector & KM_ROW_MASK));
}

/*
 * How many sectors from @sector (of @nr) to read as one verified read,
 * or 0 when reads are not verified (mode off, no redundancy left, a
 * reshape running).
 */
sector_t km_verify_sectors(struct km_conf *conf, sector_t sector,
			   sector_t nr)
{
	if (!READ_ONCE(conf->verify_mode))
		return 0;
	km_verify_note_level(conf);
	if (conf->prev || conf->reshaping ||
	    atomic_read(&conf->verify_level) == KM_VERIFY_NONE) {
		atomic64_inc(&conf->verify_stats.unverified);
		return 0;
	}
	return km_verify_cut(conf, sector, nr);
}

/* A reference on every member read; false if one went away. */
static bool km_verify_get_rdevs(struct km_verify *v)
{
	struct km_conf *conf = v->conf;
	int i;

	for (i = 0; i < conf->geom.n; i++) {
		if ((v->lost | v->skip) & km_bit(i))
			continue;
		v->rdev[i] = km_read_rdev(conf,
					  km_chunk_member(&conf->geom,
							  v->span.stripe, i),
					  v->msector, km_verify_len(v));
		if (!v->rdev[i])
			return false;
	}
	return true;
}

/* The run: chunk buffers, then m chunks of scratch, then the spare. */
static bool km_verify_buffers(struct km_verify *v)
{
	struct km_conf *conf = v->conf;
	int n = conf->geom.n;

	v->run_pages = (n + conf->geom.m + 1) * v->rows;
	v->run = km_wide_get_run(conf, v->run_pages, &v->run_arena);
	if (!v->run)
		return false;
	km_wide_carve(v->run, v->rows, km_mask_all(n), n, v->buf);
	v->scratch = (char *)v->run + ((size_t)n * v->rows << PAGE_SHIFT);
	v->spare = (char *)v->scratch +
		   ((size_t)conf->geom.m * v->rows << PAGE_SHIFT);
	return true;
}

static void km_verify_end_read(struct bio *bio)
{
	struct km_verify_rd *rd = bio->bi_private;
	struct km_verify *v = rd->v;

	if (bio->bi_status)
		atomic64_or(km_bit(rd->chunk), &v->read_err);
	bio_put(bio);
	if (atomic_dec_and_test(&v->pending))
		complete(&v->done);
}

/* One bio per member read over the rows; wait for them all. */
static void km_verify_submit_reads(struct km_verify *v)
{
	struct km_conf *conf = v->conf;
	int i;

	reinit_completion(&v->done);
	atomic_set(&v->pending, 1);
	for (i = 0; i < conf->geom.n; i++) {
		struct bio *bio;

		if (!v->rdev[i])
			continue;
		bio = km_wide_member_bio(conf, v->rdev[i], REQ_OP_READ,
					 v->msector, v->buf[i], v->rows,
					 v->run_arena);
		v->rd[i].v = v;
		v->rd[i].chunk = i;
		bio->bi_private = &v->rd[i];
		bio->bi_end_io = km_verify_end_read;
		atomic_inc(&v->pending);
		submit_bio_noacct(bio);
	}
	if (atomic_dec_and_test(&v->pending))
		complete(&v->done);
	wait_for_completion(&v->done);
}

/*
 * Member reads of chunks @failed failed (a medium error, or a member
 * going bad): count them as the row path does (km_note_read_error()) and
 * verify the range without them, rebuilt from the others, if the
 * redundancy left allows: the level drops as for lost members, and once
 * the range checks they are written back (km_verify_write_back()).
 * Whether the range can still be verified.
 */
static bool km_verify_take_read_errors(struct km_verify *v, km_mask_t failed)
{
	struct km_conf *conf = v->conf;
	int j;

	for (j = 0; j < conf->geom.n; j++)
		if (failed & km_bit(j))
			km_note_read_error(conf->mddev, v->rdev[j], v->msector,
					   km_verify_len(v), " (verified read)");
	v->lost |= failed;
	v->rerr = failed;
	v->level = km_plan_verify_effective(READ_ONCE(conf->verify_mode),
					    conf->geom.m, v->lost);
	return v->level != KM_VERIFY_NONE;
}

/*
 * Read every readable chunk of the range once: 0, -EAGAIN when a write of
 * the chunk stripe was in flight or started meanwhile (or a member went
 * away), else -EIO (the row path serves the read: a bad-block record, no
 * redundancy left to verify with, also after member read errors).
 */
static int km_verify_read_members(struct km_verify *v)
{
	struct km_conf *conf = v->conf;
	sector_t stripe = v->span.stripe;
	km_mask_t failed;
	bool bad;

	km_wide_put_rdevs(v->conf, v->rdev);
	v->lost = km_wide_lost(conf, &v->span, v->msector, km_verify_len(v),
			       &bad);
	v->level = km_plan_verify_effective(READ_ONCE(conf->verify_mode),
					    conf->geom.m, v->lost);
	if (bad || v->level == KM_VERIFY_NONE)
		return -EIO;
	v->skip = 0;
	if (!v->whole && conf->code_pq)
		v->skip = km_plan_verify_skip(conf->geom.k, conf->geom.m,
					      v->lost, v->level);
	if (!km_verify_get_rdevs(v) ||
	    !km_gen_read_begin(conf, stripe, &v->gen))
		return -EAGAIN;
	atomic64_set(&v->read_err, 0);
	v->rerr = 0;
	km_verify_submit_reads(v);
	failed = atomic64_read(&v->read_err);
	if (failed && v->skip) {
		/* a read error: the parity left unread is needed after all */
		v->whole = true;
		return km_verify_read_members(v);
	}
	if (failed && !km_verify_take_read_errors(v, failed))
		return -EIO;
	km_wide_race_window();
	return km_gen_read_valid(conf, stripe, v->gen) ? 0 : -EAGAIN;
}

/* The range's chunks read into the run, coherently: true, else false. */
static bool km_verify_read_coherent(struct km_verify *v)
{
	int try, r = -EAGAIN;

	for (try = 0; try < KM_VERIFY_TRIES && r == -EAGAIN; try++) {
		if (try) {
			atomic64_inc(&v->conf->verify_stats.retried);
			usleep_range(100, 1000);
		}
		r = km_verify_read_members(v);
	}
	if (r == -EAGAIN)
		atomic64_inc(&v->conf->verify_stats.raced);
	return !r;
}

/* The range's chunks, read coherently; false: go by rows. */
static bool km_verify_fetch(struct km_verify *v)
{
	return km_verify_buffers(v) && km_verify_read_coherent(v);
}

static void km_verify_job_done(struct rkm_job *job)
{
	struct km_verify *v = job->priv;

	complete(&v->done);
}

/*
 * Run one job over the range's rows and wait: @op on @chunk; a DECODE
 * rebuilds @want from the chunks read outside it.  While it runs, the
 * data chunks in @fill are copied into the reader's pages (a read that
 * then fails ends with an error, so what they hold is not data).  The
 * job's result.
 */
static int km_verify_job(struct km_verify *v, enum rkm_job_op op,
			 void **chunk, km_mask_t want, km_mask_t fill)
{
	struct km_conf *conf = v->conf;
	struct km_geom *g = &conf->geom;
	struct rkm_job *job = &v->job;

	memset(job, 0, sizeof(*job));
	job->op = op;
	/* a range read without its parity past Q is checked by P and Q */
	job->code = op == RKM_JOB_CHECK && v->skip ? conf->code_pq : conf->code;
	job->len = v->rows << PAGE_SHIFT;
	job->waited = true;	/* a reader */
	memcpy(job->chunk, chunk, sizeof(void *) * g->n);
	if (op == RKM_JOB_DECODE) {
		job->mask = km_plan_decode_mask(g->k, g->n,
						km_mask_all(g->n) & ~want,
						want);
		job->want = want;
	} else {
		job->scratch = v->scratch;
	}
	if (conf->job_stats_registered)
		job->stats = &conf->job_stats;
	job->done = km_verify_job_done;
	job->priv = v;
	reinit_completion(&v->done);
	rkm_job_submit(job);
	if (fill)
		km_wide_fill(conf, v->bio, &v->span, chunk, fill);
	wait_for_completion(&v->done);
	return job->result;
}

/*
 * Whether the range is consistent with chunk @j (-1: none) left out and
 * rebuilt into the spare, lost chunks rebuilt too: 1 yes, 0 no, or a
 * job's error.  The first try (@j -1) fills the reader's pages while its
 * check runs: consistent, the read is done.
 */
static int km_verify_try(struct km_verify *v, int j)
{
	km_mask_t out = v->lost | (j >= 0 ? km_bit(j) : 0);
	void *chunk[RKM_MAX_N];
	int r;

	memcpy(chunk, v->buf, sizeof(chunk));
	if (j >= 0)
		chunk[j] = v->spare;
	if (out) {
		r = km_verify_job(v, RKM_JOB_DECODE, chunk, out, 0);
		if (r)
			return r < 0 ? r : -EIO;
	}
	r = km_verify_job(v, RKM_JOB_CHECK, chunk, 0,
			 j < 0 ? km_span_data(&v->span) : 0);
	return r < 0 ? r : !r;
}

/*
 * The one chunk whose rebuilt contents make the range consistent (left
 * rebuilt in the spare), or -1.  Healthy ranges ask the LOCATE job;
 * with chunks lost, each suspect is tried.
 */
static int km_verify_locate(struct km_verify *v)
{
	struct km_geom *g = &v->conf->geom;
	km_mask_t sus = km_plan_verify_suspects(g->n, g->m, v->lost);
	int j;

	if (!v->lost) {
		j = km_verify_job(v, RKM_JOB_LOCATE, v->buf, 0, 0);
		return j >= 0 && j < g->n && km_verify_try(v, j) == 1 ? j : -1;
	}
	for (j = 0; j < g->n; j++)
		if ((sus & km_bit(j)) && km_verify_try(v, j) == 1)
			return j;
	return -1;
}

/* One member write of @data (chunk @j) over the range; whether written. */
static bool km_verify_write_chunk(struct km_verify *v, int j, void *data)
{
	struct md_rdev *rdev = v->rdev[j];
	struct bio *bio;
	bool ok;

	if (!km_live(rdev))
		return false;
	bio = km_wide_member_bio(v->conf, rdev, REQ_OP_WRITE, v->msector,
				 data, v->rows, false);
	ok = !submit_bio_wait(bio);
	bio_put(bio);
	if (!ok && !rdev_set_badblocks(rdev, v->msector, km_verify_len(v), 0))
		md_error(v->conf->mddev, rdev);
	return ok;
}

/*
 * Write the chunks @which rebuilt (from @data, by codec index) back to
 * the members they were read from, with the rows claimed from the stripe
 * cache and only if no write of the chunk stripe started since the reads
 * (it would be newer); all under one claim, as one write of the chunk
 * stripe.  A failed write records a bad block (or fails the member).
 * The chunks written.
 */
static km_mask_t km_verify_rewrite(struct km_verify *v, km_mask_t which,
				   void **data)
{
	struct km_conf *conf = v->conf;
	km_mask_t written = 0;
	int j;

	spin_lock_irq(&conf->lock);
	km_claim_rows(conf, &v->claim, v->msector,
		      v->msector + km_verify_len(v));
	spin_unlock_irq(&conf->lock);
	if (km_gen_read_valid(conf, v->span.stripe, v->gen)) {
		km_gen_write_begin(conf, v->span.stripe);
		for (j = 0; j < conf->geom.n; j++)
			if ((which & km_bit(j)) && data[j] &&
			    km_verify_write_chunk(v, j, data[j]))
				written |= km_bit(j);
		km_gen_write_end(conf, v->span.stripe);
	}
	km_claim_release(conf, &v->claim);
	return written;
}

/*
 * Copies of the chunks to write back: the one corrected (its buffer is
 * the spare by now) and those whose member reads failed (rebuilt in
 * their buffers), in memory of their own (the arena run is given back
 * before the rows are claimed, so that a wide write holding a claim
 * there never waits for our run); NULL where memory ran out (that chunk
 * is not written back).  The chunks to write back.
 */
static km_mask_t km_verify_keep(struct km_verify *v, enum km_verify_end how,
				void **copy)
{
	size_t bytes = (size_t)v->rows << PAGE_SHIFT;
	km_mask_t which = v->rerr;
	int j;

	if (how == KM_VE_CORRECTED)
		which |= km_bit(v->fixed);
	for (j = 0; j < v->conf->geom.n; j++) {
		copy[j] = NULL;
		if (!(which & km_bit(j)))
			continue;
		copy[j] = km_wide_own_buf(bytes);
		if (copy[j])
			memcpy(copy[j], v->buf[j], bytes);
	}
	return which;
}

/*
 * Write back what the read rebuilt (the chunks of km_verify_keep()), say
 * so in the kernel log as check/repair and the row path's read errors do,
 * count the read errors corrected, free the copies.
 */
static void km_verify_write_back(struct km_verify *v, km_mask_t which,
				 void **copy)
{
	struct km_conf *conf = v->conf;
	struct km_geom *g = &conf->geom;
	km_mask_t written = km_verify_rewrite(v, which, copy);
	int j;

	for (j = 0; j < g->n; j++) {
		if (!(which & km_bit(j)))
			continue;
		kvfree(copy[j]);
		if (j == v->fixed) {
			pr_warn_ratelimited("md/km:%s: read_verify: corrected %s chunk %d on member %d at member sector %llu (%u sectors)%s\n",
					    mdname(conf->mddev),
					    j < g->k ? "data" : "parity",
					    j < g->k ? j : j - g->k,
					    km_chunk_member(g, v->span.stripe, j),
					    (unsigned long long)v->msector,
					    km_verify_len(v),
					    written & km_bit(j) ? "" : ", not rewritten");
		} else if (written & km_bit(j)) {
			atomic64_inc(&conf->stats.read_errors_corrected);
			pr_info_ratelimited("md/km:%s: read error corrected (chunk %d, member %d, sector %llu+%u) by a verified read\n",
					    mdname(conf->mddev), j,
					    km_chunk_member(g, v->span.stripe, j),
					    (unsigned long long)v->msector,
					    km_verify_len(v));
		}
	}
}

/* The check failed: locate the one bad chunk if the level allows. */
static enum km_verify_end km_verify_correct(struct km_verify *v)
{
	struct km_conf *conf = v->conf;

	atomic64_inc(&conf->verify_stats.mismatches);
	v->fixed = v->level == KM_VERIFY_CORRECT ? km_verify_locate(v) : -1;
	if (v->fixed < 0) {
		pr_err_ratelimited("md/km:%s: read_verify: parity mismatch in chunk stripe %llu, member sectors %llu+%u, %s: read failed\n",
				   mdname(conf->mddev),
				   (unsigned long long)v->span.stripe,
				   (unsigned long long)v->msector,
				   km_verify_len(v),
				   v->level == KM_VERIFY_CORRECT ?
				   "no single chunk explains it" :
				   "detect only");
		return KM_VE_FAILED;
	}
	atomic64_inc(&conf->verify_stats.corrected);
	/* the spare holds the chunk rebuilt: the read gets it */
	v->buf[v->fixed] = v->spare;
	return KM_VE_CORRECTED;
}

/*
 * P or Q disagreed with the data of a range read without the parity
 * past them: read the range again, every chunk, and check it whole (1
 * consistent, 0 not, or a job's error).  When it cannot be read again
 * coherently the read fails (the level drops to detect): a mismatch was
 * seen, so what the row path would return is not to be trusted.
 */
static int km_verify_widen(struct km_verify *v)
{
	v->whole = true;
	if (km_verify_read_coherent(v))
		return km_verify_try(v, -1);
	v->level = KM_VERIFY_DETECT;
	return 0;
}

/* Decode lost chunks, check; on a mismatch, correct or fail. */
static enum km_verify_end km_verify_check(struct km_verify *v)
{
	int r = km_verify_try(v, -1);

	if (r == 0 && v->skip)
		r = km_verify_widen(v);
	if (r < 0) {
		pr_warn_ratelimited("md/km:%s: read_verify: job failed (%d), reading by rows\n",
				    mdname(v->conf->mddev), r);
		return KM_VE_ROWS;
	}
	return r ? KM_VE_GOOD : km_verify_correct(v);
}

static void km_verify_put_run(struct km_verify *v)
{
	km_wide_put_run(v->conf, v->run, v->run_pages, v->run_arena);
	v->run = NULL;
}

static void km_verify_free(struct km_verify *v)
{
	struct km_conf *conf = v->conf;

	km_wide_put_rdevs(v->conf, v->rdev);
	km_verify_put_run(v);
	kfree(v);
	km_leave(conf);
}

/* End the read as @how says; then write a corrected chunk back. */
static void km_verify_finish(struct km_verify *v, enum km_verify_end how)
{
	struct km_conf *conf = v->conf;
	struct bio *bio = v->bio;
	void *copy[RKM_MAX_N];
	km_mask_t which = 0;

	if (how == KM_VE_ROWS) {
		atomic64_inc(&conf->verify_stats.unverified);
		km_attach_bio(conf, bio, false);
	} else {
		atomic64_inc(&conf->verify_stats.reads);
		if (how == KM_VE_FAILED) {
			atomic64_inc(&conf->verify_stats.failed);
			bio->bi_status = BLK_STS_IOERR;
		} else if (how == KM_VE_CORRECTED) {
			/*
			 * the rest went in while the first check ran; the
			 * lost chunks were rebuilt again without the bad one
			 */
			km_wide_fill(conf, bio, &v->span, v->buf,
				     (km_bit(v->fixed) | v->lost) &
				     km_span_data(&v->span));
		}
	}
	/* rebuilt data to write back: not after a failed or unverified read */
	if (how == KM_VE_GOOD || how == KM_VE_CORRECTED)
		which = km_verify_keep(v, how, copy);
	bio_endio(bio);
	km_verify_put_run(v);
	if (which)
		km_verify_write_back(v, which, copy);
	km_verify_free(v);
}

static void km_verify_work(struct work_struct *work)
{
	struct km_verify *v = container_of(work, struct km_verify, work);

	if (!km_verify_fetch(v))
		km_verify_finish(v, KM_VE_ROWS);
	else
		km_verify_finish(v, km_verify_check(v));
}

/* Read @bio (a part km_verify_sectors() chose), verified. */
void km_verify_read(struct km_conf *conf, struct bio *bio)
{
	struct km_verify *v = kzalloc(sizeof(*v), GFP_NOIO);

	if (!v) {
		atomic64_inc(&conf->verify_stats.unverified);
		km_attach_bio(conf, bio, false);
		bio_endio(bio);
		return;
	}
	atomic_inc(&conf->active_reads);
	v->conf = conf;
	v->bio = bio;
	v->fixed = -1;
	km_stripe_span(&conf->geom, bio->bi_iter.bi_sector, bio_end_sector(bio),
		       KM_ROW_SECTORS, &v->span);
	v->msector = km_span_msector(conf, &v->span, v->span.lo);
	v->rows = (v->span.hi - v->span.lo) / KM_ROW_SECTORS;
	init_completion(&v->done);
	INIT_LIST_HEAD(&v->claim.node);
	INIT_WORK(&v->work, km_verify_work);
	queue_work(conf->code_wq, &v->work);
}
