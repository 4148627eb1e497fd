// SPDX-License-Identifier: GPL-2.0
/*
 * Personalities map array ranges to bitmap ranges (->bitmap_sector): md's
 * md_account_bio() then does the bitmap write accounting itself.
 */
#include <linux/module.h>
#include "md.h"

static void rkm_bitmap_sector(struct mddev *mddev, sector_t *offset,
			      unsigned long *sectors)
{
}

struct md_personality rkm_check = {
	.bitmap_sector = rkm_bitmap_sector,
};
