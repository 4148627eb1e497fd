// SPDX-License-Identifier: GPL-2.0
/* Personalities set up writes_pending themselves in ->run(). */
#include <linux/module.h>
#include "md.h"

int rkm_check(struct mddev *mddev);
int rkm_check(struct mddev *mddev)
{
	return mddev_init_writes_pending(mddev);
}
