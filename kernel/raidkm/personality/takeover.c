// SPDX-License-Identifier: GPL-2.0
/*
 * Takeover: a running md raid6 array becomes a km array in place.
 *
 * md calls ->takeover when the array's level is written
 * (echo km > /sys/block/mdX/md/level, or mdadm --grow --level=km).  km's
 * parity rows 0 and 1 are raid6's P and Q, and km's rotation 1
 * (layout.c) places P, Q and the data chunks where raid6's
 * left-symmetric layout (md's default) puts them, with Q's coefficient
 * for data chunk d being g^d in both.  So such an array is already a
 * valid km m=2 array: nothing on the members is rewritten, only the
 * level and layout words of the superblocks change (md writes them after
 * the switch).  Other raid6 layouts place their chunks differently and
 * are refused.  See Documentation/personality.rst, "Takeover".
 */
#include <linux/module.h>
#include "km.h"
#include "../uapi/raidkm_md.h"

/*
 * md raid6's ALGORITHM_LEFT_SYMMETRIC (drivers/md/raid5.h, not a header
 * out-of-tree modules get): a value kept in superblocks, so it does not
 * change.
 */
#define KM_RAID6_LEFT_SYMMETRIC	2

void *km_takeover(struct mddev *mddev)
{
	const char *name = mdname(mddev);
	unsigned int layout = RAIDKM_LAYOUT_ROT(2, RAIDKM_ROT_RAID6);
	struct km_conf *conf;
	int m, algo, ret;

	if (mddev->level != 6) {
		pr_warn("md/km:%s: cannot take over level %d: only raid6 arrays\n",
			name, mddev->level);
		return ERR_PTR(-EINVAL);
	}
	if (mddev->layout != KM_RAID6_LEFT_SYMMETRIC) {
		pr_warn("md/km:%s: cannot take over raid6 layout %d: only left-symmetric (%d, the default) places chunks as km can\n",
			name, mddev->layout, KM_RAID6_LEFT_SYMMETRIC);
		return ERR_PTR(-EINVAL);
	}
	if (test_bit(MD_HAS_JOURNAL, &mddev->flags) ||
	    test_bit(MD_HAS_PPL, &mddev->flags)) {
		pr_warn("md/km:%s: cannot take over a raid6 array with a journal or a partial parity log\n",
			name);
		return ERR_PTR(-EINVAL);
	}
	if (mddev->reshape_position != MaxSector || mddev->delta_disks ||
	    mddev->new_layout != mddev->layout ||
	    mddev->new_chunk_sectors != mddev->chunk_sectors) {
		pr_warn("md/km:%s: cannot take over a raid6 array in or set for a reshape\n",
			name);
		return ERR_PTR(-EBUSY);
	}
	ret = km_check_shape(mddev, layout, mddev->chunk_sectors,
			     mddev->raid_disks, &m, &algo);
	if (ret)
		return ERR_PTR(ret);
	conf = km_setup_conf(mddev, mddev->raid_disks, m, algo);
	if (IS_ERR(conf))
		return conf;
	/* md moves these into level/layout and calls ->run with @conf */
	mddev->new_level = RAIDKM_LEVEL;
	mddev->new_layout = layout;
	mddev->new_chunk_sectors = mddev->chunk_sectors;
	pr_info("md/km:%s: taking over raid6 (left-symmetric) as km m=2, raid6 rotation: no data moves\n",
		name);
	return conf;
}
