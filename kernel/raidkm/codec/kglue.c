// SPDX-License-Identifier: GPL-2.0
/*
 * Kernel-only glue of the codec: the read-only module parameter
 * codec_impl (/sys/module/raidkm/parameters/codec_impl) naming the
 * implementation rkm_codec_init() chose.
 */
#include <linux/module.h>
#include <linux/moduleparam.h>
#include "rkm_codec.h"

static int rkm_codec_impl_get(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%s\n", rkm_codec_impl());
}

static const struct kernel_param_ops rkm_codec_impl_ops = {
	.get = rkm_codec_impl_get,
};

module_param_cb(codec_impl, &rkm_codec_impl_ops, NULL, 0444);
MODULE_PARM_DESC(codec_impl, "codec implementation in use (read-only)");
