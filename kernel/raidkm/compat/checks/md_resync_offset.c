// SPDX-License-Identifier: GPL-2.0
/* Where resync must restart is mddev->resync_offset (was recovery_cp). */
#include <linux/module.h>
#include "md.h"

sector_t rkm_check(struct mddev *mddev);
sector_t rkm_check(struct mddev *mddev)
{
	return mddev->resync_offset;
}
