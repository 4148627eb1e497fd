// SPDX-License-Identifier: GPL-2.0
/*
 * The buffers of the wide paths (wide_read.c, wide_write.c, wide_sync.c):
 * one run of pages per range, carved into one chunk's rows per codec
 * chunk.  A run comes from the arena's run zone (arena_run.c) so that
 * raidkmd codes it in place; one larger than the whole zone is memory of
 * the wide path's own (kvmalloc), whose jobs are coded on the CPU.
 */
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/sched/mm.h>
#include <linux/highmem.h>
#include "km.h"
#include "../rkm_arena.h"
#include "../offload.h"
#include "../rkm_copy.h"

/* @bytes of the wide path's own memory, allocated without I/O. */
void *km_wide_own_buf(size_t bytes)
{
	unsigned int noio = memalloc_noio_save();
	void *p = kvmalloc(bytes, GFP_KERNEL);

	memalloc_noio_restore(noio);
	return p;
}

/* Whether a run of @pages fits the arena's run zone at all. */
bool km_wide_run_fits(unsigned int pages)
{
	u64 total, free, fallbacks;

	rkm_arena_run_counts(&total, &free, &fallbacks);
	return pages <= total;
}

/*
 * A run of @pages for a caller that may sleep (wide writes): from the
 * arena, waiting for one to be freed, or (more than the run zone holds)
 * memory of its own.  NULL: no memory.
 */
void *km_wide_get_run(struct km_conf *conf, unsigned int pages, bool *arena)
{
	void *run = NULL;

	*arena = km_wide_run_fits(pages);
	if (!*arena)
		return km_wide_own_buf((size_t)pages << PAGE_SHIFT);
	wait_event(conf->wide_run_wait,
		   (run = rkm_arena_alloc_run(pages)) != NULL);
	return run;
}

/*
 * Give a run back: an arena run may start a waiting wide read, or wake a
 * wide write waiting in km_wide_get_run().
 */
void km_wide_put_run(struct km_conf *conf, void *run, unsigned int pages,
		     bool arena)
{
	if (!run)
		return;
	if (!arena) {
		kvfree(run);
		return;
	}
	rkm_arena_free_run(run, pages);
	if (!list_empty_careful(&conf->wide_waiting))
		queue_work(conf->retry_wq, &conf->wide_work);
	wake_up(&conf->wide_run_wait);
}

/* Point buf[i] of every chunk i in @which at its @rows pages of @run. */
void km_wide_carve(void *run, unsigned int rows, km_mask_t which, int n,
		   void **buf)
{
	unsigned int slot = 0;
	int i;

	for (i = 0; i < n; i++)
		if (which & ((km_mask_t)1 << i))
			buf[i] = (char *)run +
				 ((size_t)slot++ * rows << PAGE_SHIFT);
}

/* The page of a wide buffer (an arena run's when @arena) at @p. */
struct page *km_wide_page(void *p, bool arena)
{
	return arena || is_vmalloc_addr(p) ? vmalloc_to_page(p)
					   : virt_to_page(p);
}

/* Add the @pages pages of a wide buffer at @addr to @bio. */
void km_wide_add_pages(struct bio *bio, void *addr, unsigned int pages,
		       bool arena)
{
	unsigned int j;

	for (j = 0; j < pages; j++)
		__bio_add_page(bio, km_wide_page((char *)addr +
						 ((size_t)j << PAGE_SHIFT),
						 arena),
			       PAGE_SIZE, 0);
}

/*
 * A bio of the wide paths' bio set (conf->wide_bio_set, front pad of
 * struct km_wide_bio) for @op of @rows pages at @buf to @rdev's member
 * rows from @msector.  The caller sets its end_io.
 */
struct bio *km_wide_member_bio(struct km_conf *conf, struct md_rdev *rdev,
			       blk_opf_t op, sector_t msector, void *buf,
			       unsigned int rows, bool arena)
{
	struct bio *bio;

	bio = bio_alloc_bioset(rdev->bdev, rows, op, GFP_NOIO,
			       &conf->wide_bio_set);
	bio->bi_iter.bi_sector = msector + km_data_offset(conf, rdev);
	km_wide_add_pages(bio, buf, rows, arena);
	return bio;
}

/*
 * Copy the sectors @bio reads (within span @s of one chunk stripe) from
 * the chunk buffers @buf (each the span's rows of its data chunk), of the
 * data chunks in @which only.
 */
void km_wide_fill(struct km_conf *conf, struct bio *bio,
		  const struct km_span *s, void *const *buf, km_mask_t which)
{
	struct km_geom *g = &conf->geom;
	sector_t base = km_unmap(g, s->stripe, 0, 0);
	sector_t sector = bio->bi_iter.bi_sector;
	struct bvec_iter iter;
	struct bio_vec bv;

	bio_for_each_segment(bv, bio, iter) {
		unsigned int done = 0;

		while (done < bv.bv_len) {
			sector_t rel = sector - base;
			int d = rel >> g->chunk_shift;
			sector_t off = (rel & (g->chunk_sectors - 1)) - s->lo;
			unsigned int room = (g->chunk_sectors - s->lo -
					     off) << 9;
			unsigned int len = min(bv.bv_len - done, room);

			if (which & ((km_mask_t)1 << d))
				rkm_copy_to_page(bv.bv_page,
						 bv.bv_offset + done,
						 (char *)buf[d] + (off << 9),
						 len);
			done += len;
			sector += len >> 9;
		}
	}
}

/* Drop the references of @rdev's members (geom.n slots; NULL: none). */
void km_wide_put_rdevs(struct km_conf *conf, struct md_rdev **rdev)
{
	int i;

	for (i = 0; i < conf->geom.n; i++) {
		if (rdev[i])
			rdev_dec_pending(rdev[i], conf->mddev);
		rdev[i] = NULL;
	}
}
