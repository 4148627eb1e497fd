// SPDX-License-Identifier: GPL-2.0
/*
 * Bring-up and tear-down of the offload path: arena, shared control
 * region, dispatcher, sysfs, generic netlink, then /dev/raidkm last (the
 * daemon's way in); torn down in reverse.
 */
#include <linux/kernel.h>
#include "raidkm.h"
#include "offload.h"
#include "codec/rkm_codec.h"

int rkm_offload_init(void)
{
	int ret;

	rkm_place_init(min_t(unsigned long, rkm_codec_mbs(), U32_MAX));
	ret = rkm_arena_init();
	if (ret)
		goto err_place;
	ret = rkm_stage_init();
	if (ret)
		goto err_arena;
	ret = rkm_shm_init();
	if (ret)
		goto err_stage;
	ret = rkm_dispatch_init();
	if (ret)
		goto err_shm;
	ret = rkm_offload_sysfs_init();
	if (ret)
		goto err_dispatch;
	ret = rkm_netlink_init();
	if (ret)
		goto err_sysfs;
	ret = rkm_chardev_init();
	if (ret)
		goto err_netlink;
	return 0;

err_netlink:
	rkm_netlink_exit();
err_sysfs:
	rkm_offload_sysfs_exit();
err_dispatch:
	rkm_dispatch_exit();
err_shm:
	rkm_shm_exit();
err_stage:
	rkm_stage_exit();
err_arena:
	rkm_arena_exit();
err_place:
	rkm_place_exit();
	pr_err("raidkm: offload path init failed: %d\n", ret);
	return ret;
}

void rkm_offload_exit(void)
{
	rkm_chardev_exit();
	rkm_netlink_exit();
	rkm_offload_sysfs_exit();
	rkm_dispatch_exit();
	rkm_shm_exit();
	rkm_stage_exit();
	rkm_arena_exit();
	rkm_place_exit();
}
