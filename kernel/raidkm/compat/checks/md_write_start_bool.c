// SPDX-License-Identifier: GPL-2.0
/* md_write_start() can refuse (REQ_NOWAIT) and says so. */
#include <linux/module.h>
#include "md.h"

bool rkm_check(struct mddev *mddev, struct bio *bio);
bool rkm_check(struct mddev *mddev, struct bio *bio)
{
	bool ok = md_write_start(mddev, bio);

	return ok;
}
