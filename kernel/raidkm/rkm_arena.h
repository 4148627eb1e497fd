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

#endif /* RKM_ARENA_H */
