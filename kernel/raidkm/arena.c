// SPDX-License-Identifier: GPL-2.0
/*
 * Stripe-page allocator.  Plain pages for now; the offload path backs it
 * with the arena shared with raidkmd.
 */
#include <linux/gfp.h>
#include "rkm_arena.h"

struct page *rkm_arena_alloc_page(gfp_t gfp)
{
	return alloc_page(gfp);
}

void rkm_arena_free_page(struct page *page)
{
	if (page)
		__free_page(page);
}
