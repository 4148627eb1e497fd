// SPDX-License-Identifier: GPL-2.0
/* Must always compile: md.h and the kernel headers are usable at all. */
#include <linux/module.h>
#include "md.h"
#include "md-bitmap.h"

int rkm_check(struct mddev *mddev);
int rkm_check(struct mddev *mddev)
{
	return mddev->raid_disks;
}
