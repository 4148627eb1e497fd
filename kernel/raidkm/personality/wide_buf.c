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
#include "km.h"
#include "../rkm_arena.h"
#include "../offload.h"

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

/* Add the @pages pages of a wide buffer at @addr to @bio. */
void km_wide_add_pages(struct bio *bio, void *addr, unsigned int pages,
		       bool arena)
{
	unsigned int j;

	for (j = 0; j < pages; j++) {
		void *p = (char *)addr + ((size_t)j << PAGE_SHIFT);

		__bio_add_page(bio, arena || is_vmalloc_addr(p) ?
			       vmalloc_to_page(p) : virt_to_page(p),
			       PAGE_SIZE, 0);
	}
}
