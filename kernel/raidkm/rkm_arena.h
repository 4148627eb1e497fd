/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Pages that coding jobs read and write.  Backed by plain alloc_page()
 * until the offload path backs them with the arena shared with raidkmd, so
 * the daemon sees stripe pages without a copy.  Allocation never fails
 * over to a different kind of page silently: callers get NULL and retry.
 */
#ifndef RKM_ARENA_H
#define RKM_ARENA_H

#include <linux/gfp.h>
#include <linux/mm_types.h>

struct page *rkm_arena_alloc_page(gfp_t gfp);
void rkm_arena_free_page(struct page *page);

#endif /* RKM_ARENA_H */
