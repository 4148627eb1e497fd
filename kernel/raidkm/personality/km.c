// SPDX-License-Identifier: GPL-2.0
/*
 * The md personality "km".  Placeholder until the personality lands: it
 * registers so md and mdadm know the level, and refuses to run arrays.
 */
#include <linux/module.h>
#include "md.h"
#include "../raidkm.h"
#include "../uapi/raidkm_md.h"

static bool km_make_request(struct mddev *mddev, struct bio *bio)
{
	bio_io_error(bio);
	return true;
}

static int km_run(struct mddev *mddev)
{
	pr_err("md/km:%s: the km personality cannot run arrays yet\n",
	       mdname(mddev));
	return -EOPNOTSUPP;
}

static void km_free(struct mddev *mddev, void *priv)
{
}

static void km_status(struct seq_file *seq, struct mddev *mddev)
{
}

static sector_t km_size(struct mddev *mddev, sector_t sectors, int raid_disks)
{
	return 0;
}

static struct md_personality km_personality = {
	.name		= RAIDKM_LEVEL_NAME,
	.level		= RAIDKM_LEVEL,
	.owner		= THIS_MODULE,
	.make_request	= km_make_request,
	.run		= km_run,
	.free		= km_free,
	.status		= km_status,
	.size		= km_size,
};

int rkm_personality_register(void)
{
	return register_md_personality(&km_personality);
}

void rkm_personality_unregister(void)
{
	unregister_md_personality(&km_personality);
}
