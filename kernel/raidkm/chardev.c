// SPDX-License-Identifier: GPL-2.0
/*
 * /dev/raidkm: the misc device through which raidkmd maps the shared
 * region (header, rings, descriptors, arena).  Root only (mode 0600 and
 * CAP_SYS_ADMIN at open), one opener at a time; releasing the file ends
 * the daemon's session and re-runs its jobs on the CPU.
 */
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/fs.h>
#include <linux/miscdevice.h>
#include <linux/capability.h>
#include <linux/mm.h>
#include "offload.h"

static int rkm_dev_open(struct inode *inode, struct file *file)
{
	if (!capable(CAP_SYS_ADMIN))
		return -EPERM;
	return rkm_dispatch_open(file);
}

static int rkm_dev_release(struct inode *inode, struct file *file)
{
	rkm_dispatch_release(file);
	return 0;
}

static int rkm_dev_mmap(struct file *file, struct vm_area_struct *vma)
{
	return rkm_dispatch_mmap(file, vma);
}

static const struct file_operations rkm_dev_fops = {
	.owner		= THIS_MODULE,
	.open		= rkm_dev_open,
	.release	= rkm_dev_release,
	.mmap		= rkm_dev_mmap,
	.llseek		= noop_llseek,
};

static struct miscdevice rkm_miscdev = {
	.minor	= MISC_DYNAMIC_MINOR,
	.name	= "raidkm",
	.fops	= &rkm_dev_fops,
	.mode	= 0600,
};

int rkm_chardev_init(void)
{
	return misc_register(&rkm_miscdev);
}

void rkm_chardev_exit(void)
{
	misc_deregister(&rkm_miscdev);
}
