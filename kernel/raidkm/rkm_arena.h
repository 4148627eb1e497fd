/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Pages that coding jobs read and write, taken from the arena shared with
 * raidkmd (arena.c) so the daemon sees stripe pages without a copy.  When
 * the arena is exhausted, alloc_page() pages are handed out instead and
 * jobs touching them are coded on the CPU; NULL only when that fails too.
 * Free every page with rkm_arena_free_page(), never __free_page(), and do
 * not use page->private of these pages.
 */
#ifndef RKM_ARENA_H
#define RKM_ARENA_H

#include <linux/gfp.h>
#include <linux/mm_types.h>

struct page *rkm_arena_alloc_page(gfp_t gfp);
void rkm_arena_free_page(struct page *page);

/*
 * A run of @npages virtually contiguous pages of the arena (its own
 * vmalloc mapping), for buffers that a job reads or writes as one chunk of
 * many pages: wide reads and sync windows.  NULL when no run of that size
 * is free (counted): the caller waits for one to be freed, or uses memory
 * of its own and has the job coded on the CPU.  Never sleeps.
 */
void *rkm_arena_alloc_run(unsigned int npages);
void rkm_arena_free_run(void *run, unsigned int npages);
/* Page @j of a run, for bios */
struct page *rkm_arena_run_page(void *run, unsigned int j);

#endif /* RKM_ARENA_H */
