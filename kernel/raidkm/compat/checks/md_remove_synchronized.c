// SPDX-License-Identifier: GPL-2.0
/* md may have called synchronize_rcu() before ->hot_remove_disk(). */
#include <linux/module.h>
#include "md.h"

int rkm_check(struct md_rdev *rdev);
int rkm_check(struct md_rdev *rdev)
{
	return test_bit(RemoveSynchronized, &rdev->flags);
}
