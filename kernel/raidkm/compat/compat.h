/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The kernel and md interfaces that differ between the kernels raidkm
 * builds for (Debian 12's 6.1, 6.12), in one place.  rkm_kconf.h holds
 * what kernel/raidkm/compat/conftest.sh found by compiling a test per
 * interface against the target kernel; this header turns it into helpers
 * with one meaning on every kernel.  Nothing else tests RKM_HAVE_* or a
 * kernel version.  See Documentation/kernels.rst.
 */
#ifndef RKM_COMPAT_H
#define RKM_COMPAT_H

#include <linux/blkdev.h>
#include <linux/mm.h>
#include "rkm_kconf.h"
#include "md.h"
#include "md-bitmap.h"

/* ---- memory maps ------------------------------------------------------ */

static inline void rkm_vm_flags_set(struct vm_area_struct *vma,
				    unsigned long flags)
{
#ifdef RKM_HAVE_VM_FLAGS_SET
	vm_flags_set(vma, flags);
#else
	vma->vm_flags |= flags;
#endif
}

static inline void rkm_vm_flags_clear(struct vm_area_struct *vma,
				      unsigned long flags)
{
#ifdef RKM_HAVE_VM_FLAGS_SET
	vm_flags_clear(vma, flags);
#else
	vma->vm_flags &= ~flags;
#endif
}

/* ---- md core ---------------------------------------------------------- */

/* Where a resync has to restart (MaxSector: the array is in sync). */
#ifdef RKM_HAVE_MD_RESYNC_OFFSET
#define RKM_RESYNC_OFFSET(mddev)	((mddev)->resync_offset)
#else
#define RKM_RESYNC_OFFSET(mddev)	((mddev)->recovery_cp)
#endif

/* Stop and free a thread of @mddev (*@threadp becomes NULL). */
#ifdef RKM_HAVE_MD_UNREGISTER_THREAD_MDDEV
static inline void rkm_md_unregister_thread(struct mddev *mddev,
					    struct md_thread __rcu **threadp)
{
	md_unregister_thread(mddev, threadp);
}
#else
static inline void rkm_md_unregister_thread(struct mddev *mddev,
					    struct md_thread **threadp)
{
	md_unregister_thread(threadp);
}
#endif

/* What ->run() must set up before the array takes writes. */
static inline int rkm_md_init_writes_pending(struct mddev *mddev)
{
#ifdef RKM_HAVE_MDDEV_INIT_WRITES_PENDING
	return mddev_init_writes_pending(mddev);
#else
	return 0;	/* md core does it */
#endif
}

/* md_write_start(): false when a REQ_NOWAIT bio would have to wait. */
static inline bool rkm_md_write_start(struct mddev *mddev, struct bio *bio)
{
#ifdef RKM_HAVE_MD_WRITE_START_BOOL
	return md_write_start(mddev, bio);
#else
	md_write_start(mddev, bio);
	return true;
#endif
}

/*
 * ->hot_remove_disk(): whether md already waited for an RCU grace period
 * since the member was marked for removal.  Where md does not say, the
 * personality waits itself.
 */
static inline bool rkm_rdev_remove_synchronized(struct md_rdev *rdev)
{
#ifdef RKM_HAVE_MD_REMOVE_SYNCHRONIZED
	return test_bit(RemoveSynchronized, &rdev->flags);
#else
	return false;
#endif
}

/*
 * ->sync_request(): km's (personality/sync.c) takes the sector the sync
 * ends at on every kernel; rkm_md_sync_request() is it with the type md
 * wants.  Where md does not pass the end it is the member size (md syncs
 * every kind of pass to dev_sectors there).
 */
sector_t km_sync_request(struct mddev *mddev, sector_t sector_nr,
			 sector_t max_sector, int *skipped);

#ifdef RKM_HAVE_MD_SYNC_REQUEST_MAX_SECTOR
static inline sector_t rkm_md_sync_request(struct mddev *mddev,
					   sector_t sector_nr,
					   sector_t max_sector, int *skipped)
{
	return km_sync_request(mddev, sector_nr, max_sector, skipped);
}
#else
static inline sector_t rkm_md_sync_request(struct mddev *mddev,
					   sector_t sector_nr, int *skipped)
{
	return km_sync_request(mddev, sector_nr, mddev->dev_sectors, skipped);
}
#endif

/* ---- the write-intent bitmap ------------------------------------------ */

#if defined(RKM_HAVE_MD_BITMAP_OPS) && !defined(RKM_HAVE_MD_BITMAP_SECTOR)
#error "md has bitmap_ops but no ->bitmap_sector: this kernel's md is not supported"
#endif

/*
 * Who counts writes in the bitmap.  Where md has ->bitmap_sector, md does
 * it for every bio passed through md_account_bio() (km passes every bio
 * it accepts), over the member range ->bitmap_sector gives; km must not
 * count them too.  Elsewhere (6.1) km counts each stripe row a write
 * touches, from the bio's arrival at the row to the end of the row's
 * write round; @ok false keeps the row's bit (a member write failed).
 */
#ifdef RKM_HAVE_MD_BITMAP_SECTOR
/* before registering @pers: md's hook for the range it counts */
static inline void rkm_md_set_bitmap_sector(struct md_personality *pers,
					    void (*fn)(struct mddev *mddev,
						       sector_t *offset,
						       unsigned long *sectors))
{
	pers->bitmap_sector = fn;
}

static inline void rkm_bitmap_startwrite(struct mddev *mddev, sector_t sector,
					 unsigned long sectors)
{
}

static inline void rkm_bitmap_endwrite(struct mddev *mddev, sector_t sector,
				       unsigned long sectors, bool ok)
{
}
#else
static inline void rkm_md_set_bitmap_sector(struct md_personality *pers,
					    void (*fn)(struct mddev *mddev,
						       sector_t *offset,
						       unsigned long *sectors))
{
}

static inline void rkm_bitmap_startwrite(struct mddev *mddev, sector_t sector,
					 unsigned long sectors)
{
	md_bitmap_startwrite(mddev->bitmap, sector, sectors, false);
}

static inline void rkm_bitmap_endwrite(struct mddev *mddev, sector_t sector,
				       unsigned long sectors, bool ok)
{
	md_bitmap_endwrite(mddev->bitmap, sector, sectors, ok, false);
}
#endif

/* Write the bitmap's dirty bits before the writes they cover. */
static inline void rkm_bitmap_unplug(struct mddev *mddev)
{
	if (!mddev->bitmap)
		return;
#ifdef RKM_HAVE_MD_BITMAP_OPS
	mddev->bitmap_ops->unplug(mddev, true);
#else
	md_bitmap_unplug(mddev->bitmap);
#endif
}

/* Whether [@offset, +*@blocks) needs syncing; sets *@blocks. */
static inline bool rkm_bitmap_start_sync(struct mddev *mddev, sector_t offset,
					 sector_t *blocks, bool degraded)
{
#ifdef RKM_HAVE_MD_BITMAP_OPS
	return mddev->bitmap_ops->start_sync(mddev, offset, blocks, degraded);
#else
	return md_bitmap_start_sync(mddev->bitmap, offset, blocks, degraded);
#endif
}

/* A sync stopped at @offset: the rest keeps its bits. */
static inline void rkm_bitmap_end_sync_aborted(struct mddev *mddev,
					       sector_t offset,
					       sector_t *blocks)
{
#ifdef RKM_HAVE_MD_BITMAP_OPS
	mddev->bitmap_ops->end_sync(mddev, offset, blocks);
#else
	md_bitmap_end_sync(mddev->bitmap, offset, blocks, 1);
#endif
}

static inline void rkm_bitmap_close_sync(struct mddev *mddev)
{
#ifdef RKM_HAVE_MD_BITMAP_OPS
	mddev->bitmap_ops->close_sync(mddev);
#else
	md_bitmap_close_sync(mddev->bitmap);
#endif
}

static inline void rkm_bitmap_cond_end_sync(struct mddev *mddev,
					    sector_t sector, bool force)
{
#ifdef RKM_HAVE_MD_BITMAP_OPS
	mddev->bitmap_ops->cond_end_sync(mddev, sector, force);
#else
	md_bitmap_cond_end_sync(mddev->bitmap, sector, force);
#endif
}

/* The members grew or shrank to @blocks sectors. */
static inline int rkm_bitmap_resize(struct mddev *mddev, sector_t blocks)
{
	if (!mddev->bitmap)
		return 0;
#ifdef RKM_HAVE_MD_BITMAP_OPS
	return mddev->bitmap_ops->resize(mddev, blocks, 0, false);
#else
	return md_bitmap_resize(mddev->bitmap, blocks, 0, 0);
#endif
}

/* ---- queue limits ----------------------------------------------------- */

/*
 * The array's queue limits: members' limits stacked, @io_min and @io_opt
 * bytes, at most @max_hw_sectors per bio, any number of segments, no
 * write-zeroes, write cache and FUA passed on, and no REQ_NOWAIT (km may
 * sleep in ->make_request()).  Discard: none when @discard_granularity
 * is 0, else discards of up to 4 GiB at that granularity (bytes, a power
 * of two) counted from the array's start.  Arrays inside device-mapper
 * (dm-raid) keep dm's limits.  Call from ->run().
 */
#define RKM_MAX_DISCARD_SECTORS(gran) \
	(round_down(UINT_MAX, (gran)) >> SECTOR_SHIFT)

static inline int rkm_md_set_limits(struct mddev *mddev, unsigned int io_min,
				    unsigned int io_opt,
				    unsigned int max_hw_sectors,
				    unsigned int discard_granularity)
{
#ifdef RKM_HAVE_MD_STACKING_LIMITS
	struct queue_limits lim;
	int ret;

	if (mddev_is_dm(mddev))
		return 0;
	md_init_stacking_limits(&lim);
	lim.io_min = io_min;
	lim.io_opt = io_opt;
	ret = mddev_stack_rdev_limits(mddev, &lim, 0);
	if (ret)
		return ret;
	lim.features &= ~BLK_FEAT_NOWAIT;
	lim.max_hw_discard_sectors = 0;
	if (discard_granularity) {
		lim.discard_granularity = discard_granularity;
		lim.discard_alignment = 0;
		lim.max_hw_discard_sectors =
			RKM_MAX_DISCARD_SECTORS(discard_granularity);
	}
	lim.max_write_zeroes_sectors = 0;
	lim.max_hw_sectors = max_hw_sectors;
	lim.max_segments = USHRT_MAX;
	return queue_limits_set(mddev->gendisk->queue, &lim);
#else
	struct request_queue *q = mddev->queue;
	struct md_rdev *rdev;

	if (!q)
		return 0;
	blk_queue_io_min(q, io_min);
	blk_queue_io_opt(q, io_opt);
	rdev_for_each(rdev, mddev)
		disk_stack_limits(mddev->gendisk, rdev->bdev,
				  rdev->data_offset << 9);
	blk_queue_max_discard_sectors(q, 0);
	if (discard_granularity) {
		q->limits.discard_granularity = discard_granularity;
		q->limits.discard_alignment = 0;
		q->limits.discard_misaligned = 0;
		blk_queue_max_discard_sectors(q,
			RKM_MAX_DISCARD_SECTORS(discard_granularity));
	}
	blk_queue_max_write_zeroes_sectors(q, 0);
	blk_queue_max_hw_sectors(q, max_hw_sectors);
	blk_queue_max_segments(q, USHRT_MAX);
	return 0;
#endif
}

/*
 * Undo what md sets on its own after ->run() (call from ->start()): where
 * md sets the queue flags itself it turns on REQ_NOWAIT when every member
 * has it.
 */
static inline void rkm_md_started(struct mddev *mddev)
{
#ifndef RKM_HAVE_MD_STACKING_LIMITS
	if (mddev->queue)
		blk_queue_flag_clear(QUEUE_FLAG_NOWAIT, mddev->queue);
#endif
}

#endif /* RKM_COMPAT_H */
