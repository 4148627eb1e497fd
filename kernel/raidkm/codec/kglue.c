// SPDX-License-Identifier: GPL-2.0
/*
 * Kernel-only glue of the codec: the module parameters under
 * /sys/module/raidkm/parameters/.  codec_impl names the implementation
 * rkm_codec_init() chose, codec_decode_form and codec_pq the choices it
 * measured (the form of m = 2-style decodes, the 2^j row of P+Q); root
 * may write another name to any of them to force it, for tests (an
 * implementation after its known-answer check and self-test, as
 * rkm_codec_use() does; at run time only, not at load).
 */
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/string.h>
#include "rkm_codec.h"
#include "rkm_codec_int.h"

static int rkm_codec_impl_get(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%s\n", rkm_codec_impl());
}

/* A name of rkm_codec_impl_name()'s, usable here: switch to it */
static int rkm_codec_impl_set(const char *val, const struct kernel_param *kp)
{
	const char *name;
	int i;

	for (i = 0; (name = rkm_codec_impl_name(i)); i++)
		if (sysfs_streq(val, name))
			return rkm_codec_use(name) ? -EINVAL : 0;
	return -EINVAL;
}

static const struct kernel_param_ops rkm_codec_impl_ops = {
	.get = rkm_codec_impl_get,
	.set = rkm_codec_impl_set,
};

module_param_cb(codec_impl, &rkm_codec_impl_ops, NULL, 0644);
MODULE_PARM_DESC(codec_impl,
		 "codec implementation in use: the fastest that passes its checks at load; write another usable one to force it (tests)");

static int rkm_decode_form_get(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%s\n", rkm_decode_form_name(rkm_decode_form()));
}

/* which of the @n names @name(i) @val is, or -EINVAL */
static int rkm_param_index(const char *val, int n, const char *(*name)(int))
{
	int i;

	for (i = 0; i < n; i++)
		if (sysfs_streq(val, name(i)))
			return i;
	return -EINVAL;
}

static int rkm_decode_form_param_set(const char *val,
				     const struct kernel_param *kp)
{
	int form = rkm_param_index(val, RKM_NFORMS, rkm_decode_form_name);

	if (form < 0)
		return form;
	rkm_decode_form_set(form);
	return 0;
}

static const struct kernel_param_ops rkm_decode_form_ops = {
	.get = rkm_decode_form_get,
	.set = rkm_decode_form_param_set,
};

module_param_cb(codec_decode_form, &rkm_decode_form_ops, NULL, 0644);
MODULE_PARM_DESC(codec_decode_form,
		 "form of m = 2-style decodes: rows, fused or syndrome (measured at load; write to force)");

static int rkm_q_form_get(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%s\n", rkm_q_form_name(READ_ONCE(rkm_q_horner)));
}

static int rkm_q_form_param_set(const char *val,
				const struct kernel_param *kp)
{
	int form = rkm_param_index(val, RKM_NPQ, rkm_q_form_name);

	if (form < 0)
		return form;
	rkm_q_form_set(form);
	return 0;
}

static const struct kernel_param_ops rkm_q_form_ops = {
	.get = rkm_q_form_get,
	.set = rkm_q_form_param_set,
};

module_param_cb(codec_pq, &rkm_q_form_ops, NULL, 0644);
MODULE_PARM_DESC(codec_pq,
		 "P+Q's 2^j row: table, horner or horner-blend (AVX2's doubling by VPBLENDVB; elsewhere as horner); measured at load, write to force");
