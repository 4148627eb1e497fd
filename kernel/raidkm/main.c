// SPDX-License-Identifier: GPL-2.0
/*
 * raidkm module core: brings up the codec, then registers the md
 * personality "km"; tears down in reverse order.
 */
#include <linux/module.h>
#include <linux/kernel.h>
#include <linux/stringify.h>
#include "raidkm.h"
#include "codec/rkm_codec.h"
#include "uapi/raidkm_md.h"

static int __init raidkm_init(void)
{
	int ret;

	ret = rkm_codec_init();
	if (ret) {
		pr_err("raidkm: codec init failed: %d\n", ret);
		return ret;
	}
	pr_info("raidkm: codec implementation %s\n", rkm_codec_impl());

	ret = rkm_offload_init();
	if (ret)
		return ret;

	ret = rkm_personality_register();
	if (ret) {
		rkm_offload_exit();
		return ret;
	}
	pr_info("raidkm: md personality %s registered as level %d\n",
		RAIDKM_LEVEL_NAME, RAIDKM_LEVEL);
	return 0;
}

static void __exit raidkm_exit(void)
{
	rkm_personality_unregister();
	rkm_offload_exit();
	pr_info("raidkm: unloaded\n");
}

module_init(raidkm_init);
module_exit(raidkm_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("raidkm: k+m Reed-Solomon md personality with GPU offload");
MODULE_ALIAS("md-km");
MODULE_ALIAS("md-level-" __stringify(RAIDKM_LEVEL));
