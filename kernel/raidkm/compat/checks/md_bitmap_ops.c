// SPDX-License-Identifier: GPL-2.0
/* md's bitmap is reached through mddev->bitmap_ops (md_bitmap_* unexported). */
#include <linux/module.h>
#include "md.h"
#include "md-bitmap.h"

void rkm_check(struct mddev *mddev);
void rkm_check(struct mddev *mddev)
{
	mddev->bitmap_ops->unplug(mddev, true);
	mddev->bitmap_ops->endwrite(mddev, 0, 8);
}
