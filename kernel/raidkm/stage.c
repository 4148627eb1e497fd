// SPDX-License-Identifier: GPL-2.0
/*
 * The staging pool: stage_mb MiB of pages (vmalloc_user) mapped writable
 * into raidkmd after the arena, where the daemon writes job outputs.  The
 * arena itself (the stripe cache) is mapped read-only (shm.c), so nothing
 * the daemon writes reaches a stripe page until the kernel accepts a
 * completion and copies the outputs over (dispatch.c, verify.c).
 *
 * A job's outputs are one run of whole pages, found next-fit in a bitmap
 * under a spinlock: a run freed is reused as late as possible, so a late
 * write of a daemon into outputs it already handed over rarely lands in
 * another job's.  No run free: the job is coded on the CPU (counted).
 *
 * The runs of jobs the daemon failed or still held when it was dropped
 * are not freed but held (rkm_stage_hold): its GPU may still be writing
 * them (a hung batch).  They go back to the pool when the daemon's file
 * is released, that is when no mapping of the pool is left
 * (rkm_stage_release_held).
 */
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/mm.h>
#include <linux/vmalloc.h>
#include <linux/slab.h>
#include <linux/bitmap.h>
#include <linux/spinlock.h>
#include <linux/ktime.h>
#include "offload.h"
#include "rkm_copy.h"

#define RKM_STAGE_MAX_MB	1024

static unsigned int stage_mb = 16;
module_param(stage_mb, uint, 0444);
MODULE_PARM_DESC(stage_mb,
		 "MiB of output staging shared writable with raidkmd (1-1024, fixed at load)");

static struct {
	void *base;
	unsigned long npages;
	spinlock_t lock;		/* bitmap, nfree, next */
	unsigned long *used;
	unsigned long *held;		/* runs held until the daemon is gone */
	unsigned long nfree;
	unsigned long nheld;
	unsigned long next;		/* next-fit hint */
	atomic64_t fallbacks;		/* jobs sent to the CPU: pool full */
	atomic64_t copy_bytes;		/* staged bytes copied (fill, commit) */
	atomic64_t copy_ns;
} stage = {
	.lock = __SPIN_LOCK_UNLOCKED(stage.lock),
};

void rkm_stage_exit(void)
{
	vfree(stage.base);
	bitmap_free(stage.used);
	bitmap_free(stage.held);
	stage.base = NULL;
	stage.used = NULL;
	stage.held = NULL;
	stage.npages = 0;
}

int rkm_stage_init(void)
{
	if (stage_mb < 1 || stage_mb > RKM_STAGE_MAX_MB) {
		pr_err("raidkm: stage_mb=%u out of range 1-%u\n", stage_mb,
		       RKM_STAGE_MAX_MB);
		return -EINVAL;
	}
	stage.npages = ((u64)stage_mb << 20) >> PAGE_SHIFT;
	stage.base = vmalloc_user((unsigned long)stage_mb << 20);
	stage.used = bitmap_zalloc(stage.npages, GFP_KERNEL);
	stage.held = bitmap_zalloc(stage.npages, GFP_KERNEL);
	if (!stage.base || !stage.used || !stage.held) {
		rkm_stage_exit();
		return -ENOMEM;
	}
	stage.nfree = stage.npages;
	return 0;
}

u64 rkm_stage_bytes(void)
{
	return (u64)stage.npages << PAGE_SHIFT;
}

struct page *rkm_stage_page(unsigned long idx)
{
	return idx < stage.npages ?
	       vmalloc_to_page(stage.base + (idx << PAGE_SHIFT)) : NULL;
}

void *rkm_stage_alloc(u32 bytes, u64 *off)
{
	unsigned long n = DIV_ROUND_UP(bytes, PAGE_SIZE), idx, flags;

	if (!bytes || n > stage.npages)
		goto full;
	spin_lock_irqsave(&stage.lock, flags);
	idx = stage.nfree < n ? stage.npages :
	      bitmap_find_next_zero_area(stage.used, stage.npages,
					 stage.next, n, 0);
	if (idx >= stage.npages && stage.next && stage.nfree >= n)
		idx = bitmap_find_next_zero_area(stage.used, stage.npages, 0,
						 n, 0);
	if (idx < stage.npages) {
		bitmap_set(stage.used, idx, n);
		stage.nfree -= n;
		stage.next = idx + n < stage.npages ? idx + n : 0;
	}
	spin_unlock_irqrestore(&stage.lock, flags);
	if (idx >= stage.npages)
		goto full;
	*off = (u64)idx << PAGE_SHIFT;
	return stage.base + (idx << PAGE_SHIFT);
full:
	atomic64_inc(&stage.fallbacks);
	return NULL;
}

/*
 * Give back the run at @p of @bytes: to the pool, or (@hold) into the
 * held runs (stage.used stays set for them).
 */
static void stage_put(void *p, u32 bytes, bool hold)
{
	unsigned long n = DIV_ROUND_UP(bytes, PAGE_SIZE), idx, flags;

	if (!p)
		return;
	idx = (p - stage.base) >> PAGE_SHIFT;
	if (WARN_ON_ONCE(p < stage.base || idx + n > stage.npages))
		return;
	spin_lock_irqsave(&stage.lock, flags);
	if (hold) {
		bitmap_set(stage.held, idx, n);
		stage.nheld += n;
	} else {
		bitmap_clear(stage.used, idx, n);
		stage.nfree += n;
	}
	spin_unlock_irqrestore(&stage.lock, flags);
}

void rkm_stage_free(void *p, u32 bytes)
{
	stage_put(p, bytes, false);
}

/* Keep a run out of the pool until rkm_stage_release_held(). */
void rkm_stage_hold(void *p, u32 bytes)
{
	stage_put(p, bytes, true);
}

/* The daemon's mappings are gone: held runs go back to the pool. */
void rkm_stage_release_held(void)
{
	unsigned long flags;

	spin_lock_irqsave(&stage.lock, flags);
	if (stage.nheld) {
		bitmap_andnot(stage.used, stage.used, stage.held,
			      stage.npages);
		bitmap_zero(stage.held, stage.npages);
		stage.nfree += stage.nheld;
		stage.nheld = 0;
	}
	spin_unlock_irqrestore(&stage.lock, flags);
}

void rkm_stage_copy(void *dst, const void *src, u32 n)
{
	u64 t0 = ktime_get_ns();

	rkm_copy(dst, src, n);
	atomic64_add(ktime_get_ns() - t0, &stage.copy_ns);
	atomic64_add(n, &stage.copy_bytes);
}

void rkm_stage_counts(u64 *total, u64 *free, u64 *held, u64 *fallbacks,
		      u64 *bytes, u64 *ns)
{
	*total = stage.npages;
	*free = READ_ONCE(stage.nfree);
	*held = READ_ONCE(stage.nheld);
	*fallbacks = atomic64_read(&stage.fallbacks);
	*bytes = atomic64_read(&stage.copy_bytes);
	*ns = atomic64_read(&stage.copy_ns);
}
