// SPDX-License-Identifier: GPL-2.0
/*
 * km reshape: restripe a running array onto a new shape, more data
 * members (grow k), more parity members (grow m) or both, with md's
 * reshape machinery (check_reshape, start_reshape, the sync thread,
 * finish_reshape, reshape_position in the superblock).
 *
 * While it runs, mddev->private is the conf of the new shape and
 * conf->prev the conf of the old one.  Array sectors below
 * conf->reshape_progress are in the new shape, at each member's
 * new_data_offset; the rest are in the old shape at data_offset.  Bios
 * are routed (and split) by that boundary (request.c).
 *
 * The data moves towards the start of each member: new_data_offset lies
 * below data_offset (mdadm chooses it), so a new chunk stripe is always
 * written below the old rows that still hold live data.  A window of new
 * stripes is done at a time with both confs idle (the gate): read the old
 * stripes it needs (decoding chunks that cannot be read), code the new
 * parity (one encode job per row, through rkm_job_submit(): raidkmd when
 * it serves, the CPU otherwise; the buffers are arena pages), write the
 * new stripes, move the boundary, record it in the
 * superblock, reopen.  Nothing a window writes overlaps an old row above
 * the recorded position, so a crash at any point leaves either layout
 * intact on either side of reshape_position, and the reshape resumes from
 * there when the array is assembled again.
 *
 * See Documentation/personality.rst (Reshape).
 */
#include <linux/blkdev.h>
#include <linux/slab.h>
#include "km.h"
#include "../rkm_arena.h"
#include "../uapi/raidkm_md.h"

/* Largest window: member sectors of new stripes per window. */
#define KM_RESHAPE_WINDOW	2048		/* 1 MiB */
/* Window buffers: pages, as long as a window holds one new stripe. */
#define KM_RESHAPE_PAGES	4096		/* 16 MiB */

struct km_reshape {
	int cpp;		/* pages per chunk */
	int max_new;		/* new chunk stripes per window */
	int max_old;		/* old chunk stripes a window can need */
	sector_t gap;		/* member sectors the data moves down */
	struct page **old;	/* [max_old][n_old][cpp] */
	struct page **par;	/* [max_new][m_new][cpp] */
	km_mask_t *bad;		/* [max_old]: chunks not read */
	struct page **pages;	/* [cpp]: a new chunk being written */
	struct page *zero;
	struct rkm_job *jobs;	/* [max_new][cpp]: the window's encodes */
	atomic_t jobs_pending;
	atomic_t pending;
	wait_queue_head_t wait;
};

/* Array sectors of one conf's shape over the members. */
static sector_t km_shape_sectors(struct km_conf *conf)
{
	return km_array_sectors(&conf->geom, conf->mddev->dev_sectors);
}

/*
 * Whether the new shape md has been asked for can be reached from
 * @mddev's current one by a km reshape (its m and rotation in *@m_out,
 * *@algo_out); names the reason when not.
 */
static int km_check_new_shape(struct mddev *mddev, struct km_conf *conf,
			      int *m_out, int *algo_out)
{
	const char *name = mdname(mddev);
	int n = mddev->raid_disks + mddev->delta_disks;
	int m, algo, ret;

	if (mddev->new_chunk_sectors != mddev->chunk_sectors) {
		pr_err("md/km:%s: reshape cannot change the chunk size\n",
		       name);
		return -EINVAL;
	}
	if (mddev->delta_disks < 0 || mddev->reshape_backwards) {
		pr_err("md/km:%s: reshape cannot remove members\n", name);
		return -EINVAL;
	}
	ret = km_check_shape(mddev, mddev->new_layout, mddev->chunk_sectors,
			     n, &m, &algo);
	if (ret)
		return ret;
	if (m < conf->geom.m || n - m < conf->geom.k) {
		pr_err("md/km:%s: reshape can add data (k %d -> %d) and parity (m %d -> %d) members, not take them away\n",
		       name, conf->geom.k, n - m, conf->geom.m, m);
		return -EINVAL;
	}
	*m_out = m;
	*algo_out = algo;
	return 0;
}

/*
 * ->check_reshape: md has set delta_disks, new_layout or new_chunk_sectors
 * (raid_disks, layout or chunk_size written); 0 when nothing needs doing
 * or the change is one a km reshape can make.  Also asked, while a
 * reshape is recorded, whether it may go on.
 */
int km_check_reshape(struct mddev *mddev)
{
	struct km_conf *conf = mddev->private;
	int m, algo;

	if (conf->prev)
		return 0;
	if (!mddev->delta_disks && mddev->new_layout == mddev->layout &&
	    mddev->new_chunk_sectors == mddev->chunk_sectors)
		return 0;
	if (test_bit(MD_HAS_JOURNAL, &mddev->flags)) {
		pr_warn("md/km:%s: cannot reshape an array with a journal\n",
			mdname(mddev));
		return -EINVAL;
	}
	if (RAIDKM_LAYOUT_LOG_CODE(mddev->layout) ||
	    RAIDKM_LAYOUT_LOG_CODE(mddev->new_layout)) {
		pr_warn("md/km:%s: cannot reshape an array with a member log\n",
			mdname(mddev));
		return -EINVAL;
	}
	return km_check_new_shape(mddev, conf, &m, &algo);
}

static void km_reshape_free(struct km_reshape *rs, int nold, int nnew)
{
	int i;

	if (!rs)
		return;
	if (rs->old)
		for (i = 0; i < rs->max_old * nold * rs->cpp; i++)
			if (rs->old[i])
				rkm_arena_free_page(rs->old[i]);
	if (rs->par)
		for (i = 0; i < rs->max_new * nnew * rs->cpp; i++)
			if (rs->par[i])
				rkm_arena_free_page(rs->par[i]);
	kvfree(rs->old);
	kvfree(rs->par);
	kvfree(rs->jobs);
	kfree(rs->bad);
	kfree(rs->pages);
	if (rs->zero)
		rkm_arena_free_page(rs->zero);
	kfree(rs);
}

/* Window buffers for reshaping @prev's shape into @conf's. */
static struct km_reshape *km_reshape_alloc(struct km_conf *conf,
					   struct km_conf *prev, sector_t gap)
{
	struct km_geom *g = &conf->geom, *og = &prev->geom;
	struct km_reshape *rs;
	int nold, npar, i;

	rs = kzalloc(sizeof(*rs), GFP_KERNEL);
	if (!rs)
		return NULL;
	rs->cpp = g->chunk_sectors / KM_ROW_SECTORS;
	rs->gap = gap;
	/* new stripes per window, fewer while the buffers pass 16 MiB */
	rs->max_new = max_t(int, 1, KM_RESHAPE_WINDOW / g->chunk_sectors);
	for (;;) {
		/* old stripes under max_new new ones, one more at the edge */
		rs->max_old = DIV_ROUND_UP(rs->max_new * g->k, og->k) + 1;
		if (rs->max_new == 1 ||
		    (rs->max_old * og->n + rs->max_new * g->m) * rs->cpp <=
		    KM_RESHAPE_PAGES)
			break;
		rs->max_new--;
	}
	init_waitqueue_head(&rs->wait);
	nold = rs->max_old * og->n * rs->cpp;
	npar = rs->max_new * g->m * rs->cpp;
	rs->old = kvcalloc(nold, sizeof(*rs->old), GFP_KERNEL);
	rs->par = kvcalloc(npar, sizeof(*rs->par), GFP_KERNEL);
	rs->bad = kcalloc(rs->max_old, sizeof(*rs->bad), GFP_KERNEL);
	rs->pages = kcalloc(rs->cpp, sizeof(*rs->pages), GFP_KERNEL);
	rs->jobs = kvcalloc(rs->max_new * rs->cpp, sizeof(*rs->jobs),
			    GFP_KERNEL);
	rs->zero = rkm_arena_alloc_page(GFP_KERNEL);
	if (!rs->old || !rs->par || !rs->bad || !rs->pages || !rs->jobs ||
	    !rs->zero)
		goto fail;
	clear_highpage(rs->zero);
	for (i = 0; i < nold; i++) {
		rs->old[i] = rkm_arena_alloc_page(GFP_KERNEL);
		if (!rs->old[i])
			goto fail;
	}
	for (i = 0; i < npar; i++) {
		rs->par[i] = rkm_arena_alloc_page(GFP_KERNEL);
		if (!rs->par[i])
			goto fail;
	}
	return rs;
fail:
	km_reshape_free(rs, og->n, g->m);
	return NULL;
}

/* Page @r of chunk @c of the window's old stripe @o. */
static struct page *km_old_page(struct km_conf *conf, int o, int c, int r)
{
	struct km_reshape *rs = conf->rs;

	return rs->old[(o * conf->prev->geom.n + c) * rs->cpp + r];
}

static struct page *km_par_page(struct km_conf *conf, int s, int i, int r)
{
	struct km_reshape *rs = conf->rs;

	return rs->par[(s * conf->geom.m + i) * rs->cpp + r];
}

/*
 * Smallest distance (member sectors) by which data moves down, over the
 * members that hold data; 0 when a member's data would move up.
 */
static sector_t km_reshape_gap(struct mddev *mddev)
{
	struct md_rdev *rdev;
	sector_t gap = MaxSector;

	rdev_for_each(rdev, mddev) {
		if (rdev->raid_disk < 0 || test_bit(Faulty, &rdev->flags))
			continue;
		if (rdev->new_data_offset > rdev->data_offset)
			return 0;
		gap = min(gap, rdev->data_offset - rdev->new_data_offset);
	}
	return gap == MaxSector ? 0 : gap;
}

/*
 * Set up a reshape recorded in the superblock (km_run) or just started:
 * @conf is the new shape, @prev the old one.  Returns 0 or -errno.
 */
int km_reshape_setup(struct km_conf *conf, struct km_conf *prev)
{
	struct mddev *mddev = conf->mddev;
	sector_t gap = km_reshape_gap(mddev);

	if (gap < mddev->chunk_sectors) {
		pr_err("md/km:%s: reshape needs each member's data to move down by at least one chunk (new_offset below data_offset by %d sectors); it moves by %llu\n",
		       mdname(mddev), mddev->chunk_sectors,
		       (unsigned long long)gap);
		return -EINVAL;
	}
	conf->rs = km_reshape_alloc(conf, prev, gap);
	if (!conf->rs)
		return -ENOMEM;
	conf->prev = prev;
	conf->job_stats.placement = READ_ONCE(prev->job_stats.placement);
	conf->new_offset = true;
	conf->reshaping = true;
	prev->reshaping = true;
	conf->reshape_progress = mddev->reshape_position;
	return 0;
}

void km_reshape_teardown(struct km_conf *conf)
{
	if (!conf->prev)
		return;
	km_reshape_free(conf->rs, conf->prev->geom.n, conf->geom.m);
	conf->rs = NULL;
}

/* Close the gate: no bio is routed, no stripe of either shape is busy. */
static void km_gate_close(struct km_conf *conf)
{
	struct km_conf *c;

	for (c = conf; c; c = c == conf ? conf->prev : NULL) {
		spin_lock_irq(&c->lock);
		c->quiesce = 2;
		smp_mb();	/* pairs with km_enter(): store, then look */
		wait_event_lock_irq(c->wait_for_quiescent,
				    atomic_read(&c->active_stripes) == 0 &&
				    atomic_read(&c->active_reads) == 0,
				    c->lock);
		c->quiesce = 1;
		spin_unlock_irq(&c->lock);
	}
}

static void km_gate_open(struct km_conf *conf)
{
	struct km_conf *c;

	for (c = conf; c; c = c == conf ? conf->prev : NULL) {
		spin_lock_irq(&c->lock);
		c->quiesce = 0;
		spin_unlock_irq(&c->lock);
		wake_up(&c->wait_for_quiescent);
	}
}

struct km_rs_bio {
	struct km_conf *conf;
	struct md_rdev *rdev;
	km_mask_t *bad;		/* reads: where to record a failure */
	int chunk;
};

static void km_rs_end_io(struct bio *bio)
{
	struct km_rs_bio *rb = bio->bi_private;
	struct km_conf *conf = rb->conf;
	struct km_reshape *rs = conf->rs;

	if (bio->bi_status) {
		if (rb->bad) {
			/* decoded from the others instead */
			set_bit(rb->chunk, (unsigned long *)rb->bad);
		} else {
			pr_err_ratelimited("md/km:%s: reshape write error on %pg\n",
					   mdname(conf->mddev), rb->rdev->bdev);
			md_error(conf->mddev, rb->rdev);
		}
	}
	rdev_dec_pending(rb->rdev, conf->mddev);
	kfree(rb);
	bio_put(bio);
	if (atomic_dec_and_test(&rs->pending))
		wake_up(&rs->wait);
}

/* One chunk's I/O: @pages (cpp of them) at member sector @sector. */
static void km_rs_chunk_io(struct km_conf *conf, struct md_rdev *rdev,
			   sector_t sector, struct page **pages,
			   blk_opf_t opf, km_mask_t *bad, int chunk)
{
	struct km_reshape *rs = conf->rs;
	int r = 0;

	while (r < rs->cpp) {
		int nr = min_t(int, rs->cpp - r, BIO_MAX_VECS), i;
		struct km_rs_bio *rb;
		struct bio *bio;

		rb = kmalloc(sizeof(*rb), GFP_NOIO | __GFP_NOFAIL);
		rb->conf = conf;
		rb->rdev = rdev;
		rb->bad = bad;
		rb->chunk = chunk;
		bio = bio_alloc(rdev->bdev, nr, opf, GFP_NOIO);
		bio->bi_iter.bi_sector = sector + r * KM_ROW_SECTORS;
		for (i = 0; i < nr; i++)
			__bio_add_page(bio, pages[r + i], PAGE_SIZE, 0);
		bio->bi_private = rb;
		bio->bi_end_io = km_rs_end_io;
		md_sync_acct_bio(bio, nr * KM_ROW_SECTORS);
		/* each bio holds its own reference on the member */
		if (r)
			atomic_inc(&rdev->nr_pending);
		atomic_inc(&rs->pending);
		submit_bio_noacct(bio);
		r += nr;
	}
}

static void km_rs_wait(struct km_reshape *rs)
{
	wait_event(rs->wait, !atomic_read(&rs->pending));
}

/*
 * Read the chunks @want of the window's old stripe @o (chunk stripe
 * @stripe); chunks that cannot be read are set in rs->bad[@o].
 */
static void km_rs_read(struct km_conf *conf, int o, sector_t stripe,
		       km_mask_t want)
{
	struct km_conf *prev = conf->prev;
	struct km_geom *og = &prev->geom;
	struct km_reshape *rs = conf->rs;
	sector_t sector = stripe << og->chunk_shift;
	int c;

	for (c = 0; c < og->n; c++) {
		int member = km_chunk_member(og, stripe, c);
		struct md_rdev *rdev;

		if (!(want & ((km_mask_t)1 << c)))
			continue;
		rdev = km_read_rdev(prev, member, sector, og->chunk_sectors);
		if (!rdev) {
			set_bit(c, (unsigned long *)&rs->bad[o]);
			continue;
		}
		km_rs_chunk_io(conf, rdev, sector + rdev->data_offset,
			       &rs->old[(o * og->n + c) * rs->cpp],
			       REQ_OP_READ, &rs->bad[o], c);
	}
}

/*
 * Old stripes [@o0, @o0 + @nold): their data chunks, decoded where a
 * member cannot give them.  Returns false when a stripe lost more than
 * the old shape's m chunks.
 */
static bool km_rs_load(struct km_conf *conf, sector_t o0, int nold)
{
	struct km_conf *prev = conf->prev;
	struct km_geom *og = &prev->geom;
	struct km_reshape *rs = conf->rs;
	km_mask_t data = km_mask_all(og->k);
	u8 *ptr[RAIDKM_MAX_MEMBERS];
	int o, c, r;

	for (o = 0; o < nold; o++) {
		rs->bad[o] = 0;
		km_rs_read(conf, o, o0 + o, data);
	}
	km_rs_wait(rs);
	/* stripes with a lost data chunk: read their parity too */
	for (o = 0; o < nold; o++)
		if (rs->bad[o])
			km_rs_read(conf, o, o0 + o, ~data & km_mask_all(og->n));
	km_rs_wait(rs);
	for (o = 0; o < nold; o++) {
		if (!rs->bad[o])
			continue;
		if (km_popcount(rs->bad[o]) > og->m)
			return false;
		for (r = 0; r < rs->cpp; r++) {
			for (c = 0; c < og->n; c++)
				ptr[c] = page_address(km_old_page(conf, o, c, r));
			if (rkm_decode(prev->code, PAGE_SIZE, rs->bad[o], ptr))
				return false;
		}
	}
	return true;
}

/* Page @r of data chunk @d of new stripe @stripe (window base @o0). */
static struct page *km_rs_data_page(struct km_conf *conf, sector_t stripe,
				    int d, int r, sector_t o0,
				    sector_t old_sectors)
{
	struct km_geom *g = &conf->geom, *og = &conf->prev->geom;
	sector_t a = km_unmap(g, stripe, d, 0), chunk;
	u32 data;

	if (a >= old_sectors)
		return conf->rs->zero;	/* space the reshape adds */
	chunk = a >> g->chunk_shift;
	data = do_div(chunk, og->k);	/* chunk becomes the old stripe */
	return km_old_page(conf, chunk - o0, data, r);
}

static void km_rs_job_done(struct rkm_job *job)
{
	struct km_reshape *rs = job->priv;

	if (atomic_dec_and_test(&rs->jobs_pending))
		wake_up(&rs->wait);
}

/*
 * The parity of new stripes [@s0, @s0 + @nnew): one encode job per row,
 * all in flight at once.  Returns false when one failed.
 */
static bool km_rs_code(struct km_conf *conf, sector_t s0, int nnew,
		       sector_t o0, sector_t old_sectors)
{
	struct km_geom *g = &conf->geom;
	struct km_reshape *rs = conf->rs;
	int s, c, r, n = nnew * rs->cpp, i;

	atomic_set(&rs->jobs_pending, n + 1);
	for (s = 0; s < nnew; s++)
		for (r = 0; r < rs->cpp; r++) {
			struct rkm_job *job = &rs->jobs[s * rs->cpp + r];

			memset(job, 0, sizeof(*job));
			job->op = RKM_JOB_ENCODE;
			job->code = conf->code;
			job->len = PAGE_SIZE;
			for (c = 0; c < g->k; c++)
				job->chunk[c] = page_address(km_rs_data_page(conf,
						s0 + s, c, r, o0, old_sectors));
			for (c = 0; c < g->m; c++)
				job->chunk[g->k + c] =
					page_address(km_par_page(conf, s, c, r));
			job->done = km_rs_job_done;
			job->priv = rs;
			job->stats = &conf->job_stats;
			rkm_job_submit(job);
		}
	if (!atomic_dec_and_test(&rs->jobs_pending))
		wait_event(rs->wait, !atomic_read(&rs->jobs_pending));
	for (i = 0; i < n; i++)
		if (rs->jobs[i].result)
			return false;
	return true;
}

/* Write new stripes [@s0, @s0 + @nnew), coded by km_rs_code(). */
static void km_rs_store(struct km_conf *conf, sector_t s0, int nnew,
			sector_t o0, sector_t old_sectors)
{
	struct km_geom *g = &conf->geom;
	struct km_reshape *rs = conf->rs;
	struct page **pages = rs->pages;
	int s, c, r;

	for (s = 0; s < nnew; s++) {
		sector_t stripe = s0 + s;

		for (c = 0; c < g->n; c++) {
			int member = km_chunk_member(g, stripe, c);
			struct md_rdev *rdev = km_write_rdev(conf, member);

			if (!rdev)
				continue;
			for (r = 0; r < rs->cpp; r++)
				pages[r] = c < g->k ?
					km_rs_data_page(conf, stripe, c, r, o0,
							old_sectors) :
					km_par_page(conf, s, c - g->k, r);
			km_rs_chunk_io(conf, rdev, (stripe << g->chunk_shift) +
				       rdev->new_data_offset, pages,
				       REQ_OP_WRITE, NULL, c);
		}
	}
	km_rs_wait(rs);
}

/* Record the boundary in the superblock and wait for it to be written. */
static bool km_rs_checkpoint(struct km_conf *conf)
{
	struct mddev *mddev = conf->mddev;

	mddev->reshape_position = conf->reshape_progress;
	mddev->curr_resync_completed =
		div_u64(conf->reshape_progress, conf->geom.k);
	set_bit(MD_SB_CHANGE_DEVS, &mddev->sb_flags);
	md_wakeup_thread(mddev->thread);
	wait_event(mddev->sb_wait, mddev->sb_flags == 0 ||
		   test_bit(MD_RECOVERY_INTR, &mddev->recovery));
	return !test_bit(MD_RECOVERY_INTR, &mddev->recovery);
}

/* The reshape is complete: every sector is in the new shape. */
static void km_reshape_end(struct km_conf *conf)
{
	struct mddev *mddev = conf->mddev;

	km_gate_close(conf);
	spin_lock_irq(&conf->lock);
	md_finish_reshape(mddev);
	WRITE_ONCE(conf->reshape_progress, MaxSector);
	mddev->reshape_position = MaxSector;
	spin_unlock_irq(&conf->lock);
	km_gate_open(conf);
	set_bit(MD_SB_CHANGE_DEVS, &mddev->sb_flags);
	md_wakeup_thread(mddev->thread);
}

/*
 * ->sync_request while MD_RECOVERY_RESHAPE: one window.  md counts
 * member sectors of the new shape (0 .. dev_sectors).
 */
sector_t km_reshape_request(struct mddev *mddev, sector_t sector_nr,
			    sector_t max_sector, int *skipped)
{
	struct km_conf *conf = mddev->private;
	struct km_conf *prev = conf->prev;
	struct km_geom *g = &conf->geom, *og;
	struct km_reshape *rs = conf->rs;
	sector_t stripes = mddev->dev_sectors >> g->chunk_shift;
	sector_t s0, o0, o1, a0, a1, old_sectors, limit;
	int nnew, nold;

	if (!prev)
		return 0;
	og = &prev->geom;
	if (sector_nr >= max_sector) {
		if (!test_bit(MD_RECOVERY_INTR, &mddev->recovery) &&
		    READ_ONCE(conf->reshape_progress) >= km_shape_sectors(conf))
			km_reshape_end(conf);
		return 0;
	}
	s0 = div_u64(conf->reshape_progress, (u32)g->k << g->chunk_shift);
	if (sector_nr < (s0 << g->chunk_shift)) {
		/* resuming: md starts counting from 0 */
		*skipped = 1;
		mddev->curr_resync_completed = s0 << g->chunk_shift;
		return (s0 << g->chunk_shift) - sector_nr;
	}
	if (s0 >= stripes) {
		*skipped = 1;
		return max_sector - sector_nr;
	}
	old_sectors = km_shape_sectors(prev);
	/*
	 * How far this window may go: its new rows end at most rs->gap
	 * member sectors above the first old row that still holds live
	 * data (the old stripe holding the boundary).
	 */
	o0 = div_u64(min(conf->reshape_progress, old_sectors),
		     (u32)og->k << og->chunk_shift);
	limit = o0 + (rs->gap >> g->chunk_shift);
	nnew = min_t(sector_t, rs->max_new, stripes - s0);
	if (s0 + nnew > limit)
		nnew = limit > s0 ? limit - s0 : 0;
	if (!nnew) {
		pr_err("md/km:%s: reshape cannot go on: too little room below the data\n",
		       mdname(mddev));
		return 0;
	}
	a0 = km_unmap(g, s0, 0, 0);
	a1 = km_unmap(g, s0 + nnew, 0, 0);
	nold = 0;
	if (a0 < old_sectors) {
		o1 = DIV_ROUND_UP_SECTOR_T(min(a1, old_sectors),
					   (u32)og->k << og->chunk_shift);
		nold = o1 - o0;
	}

	km_gate_close(conf);
	if (nold && !km_rs_load(conf, o0, nold)) {
		km_gate_open(conf);
		pr_err("md/km:%s: reshape stopped: old stripes from %llu cannot be read (more than m=%d chunks lost)\n",
		       mdname(mddev), (unsigned long long)o0, og->m);
		return 0;
	}
	if (!km_rs_code(conf, s0, nnew, o0, old_sectors)) {
		km_gate_open(conf);
		pr_err("md/km:%s: reshape stopped: the parity of new stripes from %llu could not be coded\n",
		       mdname(mddev), (unsigned long long)s0);
		return 0;
	}
	km_rs_store(conf, s0, nnew, o0, old_sectors);
	spin_lock_irq(&conf->lock);
	WRITE_ONCE(conf->reshape_progress, a1);
	spin_unlock_irq(&conf->lock);
	/* writes to the moved window go to the new shape only once recorded */
	if (!km_rs_checkpoint(conf)) {
		km_gate_open(conf);
		return 0;
	}
	km_gate_open(conf);
	md_done_sync(mddev, nnew << g->chunk_shift, 1);
	return nnew << g->chunk_shift;
}

/*
 * ->start_reshape: md has checked the new shape (check_reshape) and mdadm
 * has set every member's new_offset.  Put the spares into the new slots,
 * set up the new shape's conf beside the old one and let md start the
 * reshape thread.
 */
int km_start_reshape(struct mddev *mddev)
{
	struct km_conf *old = mddev->private, *conf;
	int n = mddev->raid_disks + mddev->delta_disks;
	const char *name = mdname(mddev);
	struct md_rdev *rdev;
	int m, algo, ret, i, spares = 0, slot;

	if (old->prev)
		return -EBUSY;
	if (!mddev->delta_disks && mddev->new_layout == mddev->layout) {
		pr_err("md/km:%s: no new shape to reshape to (set raid_disks and layout first)\n",
		       name);
		return -EINVAL;
	}
	ret = km_check_new_shape(mddev, old, &m, &algo);
	if (ret)
		return ret;
	if (mddev->bitmap) {
		pr_err("md/km:%s: reshape needs the write-intent bitmap removed first (mdadm --grow --bitmap=none)\n",
		       name);
		return -EBUSY;
	}
	if (mddev->degraded || test_bit(MD_RECOVERY_RUNNING, &mddev->recovery) ||
	    RKM_RESYNC_OFFSET(mddev) != MaxSector) {
		pr_err("md/km:%s: reshape needs a complete, clean array: let recovery or resync finish first\n",
		       name);
		return -EBUSY;
	}
	for (i = 0; i < old->geom.n; i++)
		if (rcu_access_pointer(old->disks[i].replacement)) {
			pr_err("md/km:%s: reshape cannot run beside a hot replace\n",
			       name);
			return -EBUSY;
		}
	rdev_for_each(rdev, mddev) {
		if (rdev->badblocks.count && rdev->raid_disk >= 0) {
			pr_err("md/km:%s: member %pg has recorded bad blocks: replace it before a reshape\n",
			       name, rdev->bdev);
			return -EBUSY;
		}
		if (rdev->raid_disk < 0 && !test_bit(Faulty, &rdev->flags) &&
		    !test_bit(Journal, &rdev->flags))
			spares++;
	}
	if (spares < n - old->geom.n) {
		pr_err("md/km:%s: reshape to %d members needs %d spare(s), the array has %d\n",
		       name, n, n - old->geom.n, spares);
		return -EINVAL;
	}

	/* the spares take the new slots: the reshape writes all of them */
	slot = old->geom.n;
	rdev_for_each(rdev, mddev) {
		if (slot >= n)
			break;
		if (rdev->raid_disk >= 0 || test_bit(Faulty, &rdev->flags) ||
		    test_bit(Journal, &rdev->flags))
			continue;
		rdev->raid_disk = slot++;
		rdev->recovery_offset = MaxSector;
		set_bit(In_sync, &rdev->flags);
	}
	conf = km_setup_conf(mddev, n, m, algo);
	if (IS_ERR(conf)) {
		ret = PTR_ERR(conf);
		goto undo;
	}
	mddev->reshape_position = 0;
	ret = km_reshape_setup(conf, old);
	if (ret) {
		mddev->reshape_position = MaxSector;
		km_free_conf(conf);
		goto undo;
	}
	rdev_for_each(rdev, mddev)
		if (rdev->raid_disk >= old->geom.n)
			sysfs_link_rdev(mddev, rdev);	/* failure is fine */

	/* requests enter the new conf from here on (km_enter) */
	km_gate_close(old);
	mddev->private = conf;
	mddev->raid_disks = n;
	km_gate_open(old);
	mddev->degraded = km_calc_degraded(conf);
	set_bit(MD_SB_CHANGE_DEVS, &mddev->sb_flags);
	clear_bit(MD_RECOVERY_SYNC, &mddev->recovery);
	clear_bit(MD_RECOVERY_CHECK, &mddev->recovery);
	clear_bit(MD_RECOVERY_DONE, &mddev->recovery);
	set_bit(MD_RECOVERY_RESHAPE, &mddev->recovery);
	set_bit(MD_RECOVERY_NEEDED, &mddev->recovery);
	pr_info("md/km:%s: reshape k=%d m=%d -> k=%d m=%d started (data moves down %llu sectors per member)\n",
		name, old->geom.k, old->geom.m, conf->geom.k, conf->geom.m,
		(unsigned long long)conf->rs->gap);
	return 0;
undo:
	rdev_for_each(rdev, mddev)
		if (rdev->raid_disk >= old->geom.n) {
			clear_bit(In_sync, &rdev->flags);
			rdev->raid_disk = -1;
		}
	return ret;
}

/* End held write pieces of @prev through @conf (superblock pending). */
static void km_move_held(struct km_conf *conf, struct km_conf *prev)
{
	struct km_piece *p, *next;

	spin_lock_irq(&prev->held_lock);
	p = prev->held;
	prev->held = NULL;
	spin_unlock_irq(&prev->held_lock);
	spin_lock_irq(&conf->held_lock);
	for (; p; p = next) {
		next = p->next;
		p->next = conf->held;
		conf->held = p;
	}
	spin_unlock_irq(&conf->held_lock);
}

/*
 * ->finish_reshape (md thread, after the reshape thread): the old conf
 * goes and the array takes its new size.
 */
void km_finish_reshape(struct mddev *mddev)
{
	struct km_conf *conf = mddev->private, *prev = conf->prev;

	if (!prev || test_bit(MD_RECOVERY_INTR, &mddev->recovery) ||
	    conf->reshape_progress != MaxSector)
		return;
	km_gate_close(conf);
	km_reshape_teardown(conf);
	conf->prev = NULL;
	conf->new_offset = false;
	conf->reshaping = false;
	km_gate_open(conf);
	km_move_held(conf, prev);
	if (prev->job_stats_registered) {
		/* the array's placement is written to the new conf since */
		rkm_job_stats_unregister(&prev->job_stats);
		prev->job_stats_registered = false;
		rkm_job_stats_register(&conf->job_stats, mdname(mddev));
		conf->job_stats_registered = true;
	}
	km_free_conf(prev);
	mddev->layout = mddev->new_layout;
	mddev->delta_disks = 0;
	mddev->reshape_backwards = 0;
	md_set_array_sectors(mddev, km_shape_sectors(conf));
	set_capacity_and_notify(mddev->gendisk, mddev->array_sectors);
	pr_info("md/km:%s: reshape done: k=%d m=%d over %d members, %llu sectors\n",
		mdname(mddev), conf->geom.k, conf->geom.m, conf->geom.n,
		(unsigned long long)mddev->array_sectors);
}
