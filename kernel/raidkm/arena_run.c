// SPDX-License-Identifier: GPL-2.0
/*
 * Runs of the arena: the top arena_run_pct percent of the arena's pages
 * (arena.c keeps them out of its single-page free stack) handed out as
 * virtually contiguous runs of whole pages, next-fit in a bitmap under a
 * spinlock, as the staging pool does (stage.c).  A run lies in the
 * arena's own vmalloc mapping, so rkm_arena_offset() describes it to the
 * daemon as one chunk of many pages: the buffers of wide reads and sync
 * windows (personality/wide_read.c, wide_sync.c).
 */
#include <linux/kernel.h>
#include <linux/mm.h>
#include <linux/vmalloc.h>
#include <linux/bitmap.h>
#include <linux/spinlock.h>
#include "rkm_arena.h"
#include "offload.h"

static struct {
	void *base;			/* address of the zone's first page */
	unsigned long npages;
	spinlock_t lock;		/* used, nfree, next */
	unsigned long *used;
	unsigned long nfree;
	unsigned long next;		/* next-fit hint */
	atomic64_t fallbacks;		/* requests found no free run */
} runs = {
	.lock = __SPIN_LOCK_UNLOCKED(runs.lock),
};

int rkm_arena_runs_init(void *base, unsigned long first, unsigned long count)
{
	runs.base = base + (first << PAGE_SHIFT);
	runs.npages = count;
	runs.nfree = count;
	runs.next = 0;
	if (!count)
		return 0;
	runs.used = bitmap_zalloc(count, GFP_KERNEL);
	if (!runs.used) {
		runs.npages = 0;
		runs.nfree = 0;
		return -ENOMEM;
	}
	return 0;
}

bool rkm_arena_runs_exit(void)
{
	if (runs.nfree != runs.npages)
		return false;
	bitmap_free(runs.used);
	runs.used = NULL;
	runs.npages = 0;
	runs.nfree = 0;
	return true;
}

/* First free run of @n pages from @from, or runs.npages.  runs.lock held */
static unsigned long runs_find(unsigned long from, unsigned long n)
{
	return bitmap_find_next_zero_area(runs.used, runs.npages, from, n, 0);
}

void *rkm_arena_alloc_run(unsigned int npages)
{
	unsigned long idx = ULONG_MAX, flags;

	spin_lock_irqsave(&runs.lock, flags);
	if (npages && npages <= runs.nfree) {
		idx = runs_find(runs.next, npages);
		if (idx >= runs.npages && runs.next)
			idx = runs_find(0, npages);
	}
	if (idx < runs.npages) {
		bitmap_set(runs.used, idx, npages);
		runs.nfree -= npages;
		runs.next = idx + npages < runs.npages ? idx + npages : 0;
	}
	spin_unlock_irqrestore(&runs.lock, flags);
	if (idx >= runs.npages) {
		atomic64_inc(&runs.fallbacks);
		return NULL;
	}
	return runs.base + (idx << PAGE_SHIFT);
}

void rkm_arena_free_run(void *run, unsigned int npages)
{
	unsigned long idx, flags;

	if (!run)
		return;
	idx = (run - runs.base) >> PAGE_SHIFT;
	if (WARN_ON_ONCE(run < runs.base || idx + npages > runs.npages))
		return;
	spin_lock_irqsave(&runs.lock, flags);
	bitmap_clear(runs.used, idx, npages);
	runs.nfree += npages;
	spin_unlock_irqrestore(&runs.lock, flags);
}

struct page *rkm_arena_run_page(void *run, unsigned int j)
{
	return vmalloc_to_page(run + ((unsigned long)j << PAGE_SHIFT));
}

void rkm_arena_run_counts(u64 *total, u64 *free, u64 *fallbacks)
{
	*total = runs.npages;
	*free = READ_ONCE(runs.nfree);
	*fallbacks = atomic64_read(&runs.fallbacks);
}
