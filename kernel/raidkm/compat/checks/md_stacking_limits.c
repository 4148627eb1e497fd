// SPDX-License-Identifier: GPL-2.0
/*
 * Queue limits are built in a struct queue_limits with md's stacking
 * helpers and applied at once (mddev->queue and blk_queue_* are gone).
 */
#include <linux/module.h>
#include <linux/blkdev.h>
#include "md.h"

int rkm_check(struct mddev *mddev);
int rkm_check(struct mddev *mddev)
{
	struct queue_limits lim;

	if (mddev_is_dm(mddev))
		return 0;
	md_init_stacking_limits(&lim);
	lim.features &= ~BLK_FEAT_NOWAIT;
	mddev_stack_rdev_limits(mddev, &lim, 0);
	return queue_limits_set(mddev->gendisk->queue, &lim);
}
