// SPDX-License-Identifier: GPL-2.0
/*
 * The data arena: arena_mb MiB of ordinary pages (vmalloc_user), mapped
 * into raidkmd through /dev/raidkm, from which the personality takes its
 * stripe pages so the daemon codes them without a copy.
 *
 * rkm_arena_alloc_page() hands out arena pages from a free stack under a
 * spinlock (O(1)); when the arena is exhausted it falls back to
 * alloc_page(), and jobs touching such pages are coded on the CPU.  The
 * arena offset of a kernel address is computed here, by the kernel, from
 * the page it lies in: offsets are never taken from the daemon.
 */
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/mm.h>
#include <linux/vmalloc.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/spinlock.h>
#include <linux/bitmap.h>
#include <linux/highmem.h>
#include "rkm_arena.h"
#include "offload.h"

#define RKM_ARENA_MAX_MB	4096

static unsigned int arena_mb = 64;
module_param(arena_mb, uint, 0444);
MODULE_PARM_DESC(arena_mb,
		 "MiB of stripe pages shared with raidkmd (1-4096, fixed at load)");

static unsigned int arena_run_pct = 50;
module_param(arena_run_pct, uint, 0444);
MODULE_PARM_DESC(arena_run_pct,
		 "percent of the arena kept for multi-page runs of wide reads and sync windows (0-90, fixed at load)");

struct rkm_pfn_idx {
	unsigned long pfn;
	u32 idx;
};

static struct {
	void *base;			/* vmalloc_user() address */
	unsigned long npages;
	unsigned long run_first;	/* pages [run_first, npages): runs */
	struct page **pages;		/* arena page i */
	struct rkm_pfn_idx *by_pfn;	/* sorted by pfn, for lookups */
	spinlock_t lock;		/* free stack and used bitmap */
	u32 *free_stack;
	unsigned long nfree;
	unsigned long *used;
	atomic64_t fallbacks;
} arena = {
	.lock = __SPIN_LOCK_UNLOCKED(arena.lock),
};

static int pfn_cmp(const void *a, const void *b)
{
	const struct rkm_pfn_idx *x = a, *y = b;

	if (x->pfn == y->pfn)
		return 0;
	return x->pfn < y->pfn ? -1 : 1;
}

/* Arena index of @page, or -1 when it is not an arena page */
static long arena_index(struct page *page)
{
	unsigned long pfn = page_to_pfn(page);
	unsigned long hint = page_private(page);
	unsigned long lo = 0, hi = arena.npages;

	if (!arena.npages)
		return -1;
	if (hint < arena.npages && arena.pages[hint] == page)
		return hint;
	while (lo < hi) {
		unsigned long mid = lo + (hi - lo) / 2;

		if (arena.by_pfn[mid].pfn == pfn)
			return arena.by_pfn[mid].idx;
		if (arena.by_pfn[mid].pfn < pfn)
			lo = mid + 1;
		else
			hi = mid;
	}
	return -1;
}

int rkm_arena_init(void)
{
	unsigned long i;

	if (arena_mb < 1 || arena_mb > RKM_ARENA_MAX_MB) {
		pr_err("raidkm: arena_mb=%u out of range 1-%u\n", arena_mb,
		       RKM_ARENA_MAX_MB);
		return -EINVAL;
	}
	if (arena_run_pct > 90) {
		pr_err("raidkm: arena_run_pct=%u out of range 0-90\n",
		       arena_run_pct);
		return -EINVAL;
	}
	arena.npages = ((u64)arena_mb << 20) >> PAGE_SHIFT;
	arena.run_first = arena.npages - arena.npages * arena_run_pct / 100;
	arena.base = vmalloc_user((unsigned long)arena_mb << 20);
	arena.pages = kvcalloc(arena.npages, sizeof(*arena.pages), GFP_KERNEL);
	arena.by_pfn = kvcalloc(arena.npages, sizeof(*arena.by_pfn),
				GFP_KERNEL);
	arena.free_stack = kvcalloc(arena.npages, sizeof(u32), GFP_KERNEL);
	arena.used = kvcalloc(BITS_TO_LONGS(arena.npages), sizeof(long),
			      GFP_KERNEL);
	if (!arena.base || !arena.pages || !arena.by_pfn ||
	    !arena.free_stack || !arena.used)
		goto nomem;

	for (i = 0; i < arena.npages; i++) {
		struct page *page = vmalloc_to_page(arena.base +
						    i * PAGE_SIZE);

		arena.pages[i] = page;
		set_page_private(page, i);
		arena.by_pfn[i].pfn = page_to_pfn(page);
		arena.by_pfn[i].idx = i;
		/* Hand out low indices first: pop from the end. */
		if (i < arena.run_first)
			arena.free_stack[i] = arena.run_first - 1 - i;
	}
	sort(arena.by_pfn, arena.npages, sizeof(*arena.by_pfn), pfn_cmp,
	     NULL);
	arena.nfree = arena.run_first;
	pr_info("raidkm: arena of %u MiB (%lu pages, %lu of them for runs)\n",
		arena_mb, arena.npages, arena.npages - arena.run_first);
	return rkm_arena_runs_init(arena.base, arena.run_first,
				   arena.npages - arena.run_first);

nomem:
	pr_err("raidkm: cannot allocate a %u MiB arena\n", arena_mb);
	vfree(arena.base);
	kvfree(arena.pages);
	kvfree(arena.by_pfn);
	kvfree(arena.free_stack);
	kvfree(arena.used);
	arena.base = NULL;
	arena.npages = 0;
	return -ENOMEM;
}

void rkm_arena_exit(void)
{
	unsigned long i;

	if (!arena.npages)
		return;
	if (arena.nfree != arena.run_first || !rkm_arena_runs_exit()) {
		/* Pages still in use: leaking beats freeing them under a user. */
		pr_err("raidkm: %lu arena pages still in use, arena leaked\n",
		       arena.run_first - arena.nfree);
		return;
	}
	for (i = 0; i < arena.npages; i++)
		set_page_private(arena.pages[i], 0);
	vfree(arena.base);
	kvfree(arena.pages);
	kvfree(arena.by_pfn);
	kvfree(arena.free_stack);
	kvfree(arena.used);
	arena.npages = 0;
}

struct page *rkm_arena_alloc_page(gfp_t gfp)
{
	struct page *page = NULL;
	unsigned long flags;
	u32 idx;

	spin_lock_irqsave(&arena.lock, flags);
	if (arena.nfree) {
		idx = arena.free_stack[--arena.nfree];
		__set_bit(idx, arena.used);
		page = arena.pages[idx];
	}
	spin_unlock_irqrestore(&arena.lock, flags);

	if (!page) {
		atomic64_inc(&arena.fallbacks);
		return alloc_page(gfp);
	}
	if (gfp & __GFP_ZERO)
		clear_highpage(page);
	return page;
}

void rkm_arena_free_page(struct page *page)
{
	unsigned long flags;
	long idx;

	if (!page)
		return;
	idx = arena_index(page);
	if (idx < 0) {
		__free_page(page);
		return;
	}
	spin_lock_irqsave(&arena.lock, flags);
	if (__test_and_clear_bit(idx, arena.used))
		arena.free_stack[arena.nfree++] = idx;
	else
		idx = -1;
	spin_unlock_irqrestore(&arena.lock, flags);
	if (idx < 0)
		pr_err_ratelimited("raidkm: arena page freed twice, ignored\n");
}

bool rkm_arena_offset(const void *ptr, u32 len, u64 *off)
{
	unsigned long addr = (unsigned long)ptr;
	unsigned long base = (unsigned long)arena.base;
	unsigned long npg, j;
	long idx;

	if (!arena.npages || !len)
		return false;
	/* The arena's own vmalloc mapping: contiguous by construction. */
	if (addr >= base && addr - base < (arena.npages << PAGE_SHIFT)) {
		if (len > (arena.npages << PAGE_SHIFT) - (addr - base))
			return false;
		*off = addr - base;
		return true;
	}
	/* The direct map: every page spanned must be the next arena page. */
	if (!virt_addr_valid(ptr))
		return false;
	idx = arena_index(virt_to_page(ptr));
	if (idx < 0)
		return false;
	npg = (offset_in_page(addr) + len + PAGE_SIZE - 1) >> PAGE_SHIFT;
	if (npg > arena.npages - idx)
		return false;
	for (j = 1; j < npg; j++) {
		const void *p = (const void *)(addr + j * PAGE_SIZE);

		if (!virt_addr_valid(p) ||
		    virt_to_page(p) != arena.pages[idx + j])
			return false;
	}
	*off = ((u64)idx << PAGE_SHIFT) + offset_in_page(addr);
	return true;
}

u64 rkm_arena_bytes(void)
{
	return (u64)arena.npages << PAGE_SHIFT;
}

unsigned long rkm_arena_npages(void)
{
	return arena.npages;
}

struct page *rkm_arena_page(unsigned long idx)
{
	return idx < arena.npages ? arena.pages[idx] : NULL;
}

void rkm_arena_counts(u64 *total, u64 *free, u64 *fallbacks)
{
	*total = arena.npages;
	*free = READ_ONCE(arena.nfree);
	*fallbacks = atomic64_read(&arena.fallbacks);
}
