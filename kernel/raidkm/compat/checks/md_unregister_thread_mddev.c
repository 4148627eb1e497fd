// SPDX-License-Identifier: GPL-2.0
/* md_unregister_thread() takes the mddev as well as the thread pointer. */
#include <linux/module.h>
#include "md.h"

void rkm_check(struct mddev *mddev);
void rkm_check(struct mddev *mddev)
{
	md_unregister_thread(mddev, &mddev->thread);
}
