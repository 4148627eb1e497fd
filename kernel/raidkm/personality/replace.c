// SPDX-License-Identifier: GPL-2.0
/*
 * Hot replace: a member that still works but should go (mdadm --replace)
 * gets a successor in the same slot, its replacement.  md's recovery
 * rebuilds the replacement row by row (sync.c copies each chunk from the
 * member where it reads, and decodes it from the others where it does
 * not), while every write goes to both, so the array never loses
 * redundancy.  When the replacement is complete the old member is marked
 * faulty; removing it moves the replacement into its slot.  If the old
 * member fails first, the replacement goes on as an ordinary rebuild.
 *
 * A slot holds data for a row if either of its two members does: the
 * member while it is in sync (or rebuilt past the row), the replacement
 * where it has been rebuilt.
 */
#include "km.h"

/*
 * Whether @rdev holds valid data for member sectors [@sector, +@sectors):
 * rebuilt there, and no bad-block record (badblocks.c).
 */
static bool km_rdev_covers(struct md_rdev *rdev, sector_t sector, int sectors)
{
	return (test_bit(In_sync, &rdev->flags) ||
		sector + sectors <= rdev->recovery_offset) &&
		!km_rdev_bad(rdev, sector, sectors);
}

/*
 * The member to read slot @member's sectors [@sector, +@sectors) from,
 * referenced (nr_pending): the member itself while it holds them, else
 * its replacement where that has been rebuilt; NULL when neither does.
 */
struct md_rdev *km_read_rdev(struct km_conf *conf, int member,
			     sector_t sector, int sectors)
{
	struct km_disk *p = &conf->disks[member];
	struct md_rdev *rdev;

	rcu_read_lock();
	rdev = km_live(rcu_dereference(p->rdev));
	if (!rdev || !km_rdev_covers(rdev, sector, sectors)) {
		rdev = km_live(rcu_dereference(p->replacement));
		if (rdev && !km_rdev_covers(rdev, sector, sectors))
			rdev = NULL;
	}
	if (rdev)
		atomic_inc(&rdev->nr_pending);
	rcu_read_unlock();
	return rdev;
}

/*
 * Slot @member's member, referenced (nr_pending), when it takes writes:
 * there and not Faulty.  Its replacement, if any, is written besides
 * (km_get_replacement()).
 */
struct md_rdev *km_write_rdev(struct km_conf *conf, int member)
{
	struct md_rdev *rdev;

	rcu_read_lock();
	rdev = km_live(rcu_dereference(conf->disks[member].rdev));
	if (rdev)
		atomic_inc(&rdev->nr_pending);
	rcu_read_unlock();
	return rdev;
}

/* Whether slot @member holds valid data for the row at @sector. */
bool km_slot_readable(struct km_conf *conf, int member, sector_t sector)
{
	struct km_disk *p = &conf->disks[member];
	struct md_rdev *rdev, *repl;
	bool r;

	rcu_read_lock();
	rdev = km_live(rcu_dereference(p->rdev));
	repl = km_live(rcu_dereference(p->replacement));
	r = (rdev && km_rdev_covers(rdev, sector, KM_ROW_SECTORS)) ||
	    (repl && km_rdev_covers(repl, sector, KM_ROW_SECTORS));
	rcu_read_unlock();
	return r;
}

/* Whether slot @member has a member that takes writes. */
bool km_slot_writable(struct km_conf *conf, int member)
{
	struct km_disk *p = &conf->disks[member];
	bool w;

	rcu_read_lock();
	w = km_live(rcu_dereference(p->rdev)) ||
	    km_live(rcu_dereference(p->replacement));
	rcu_read_unlock();
	return w;
}

/* Whether slot @p has a complete member (under rcu or reconfig_mutex). */
bool km_slot_in_sync(struct km_disk *p)
{
	struct md_rdev *rdev = km_live(rcu_dereference_raw(p->rdev));
	struct md_rdev *repl = km_live(rcu_dereference_raw(p->replacement));

	return (rdev && test_bit(In_sync, &rdev->flags)) ||
		(repl && test_bit(In_sync, &repl->flags));
}

/*
 * Slot @member's replacement, referenced, if it takes writes (and is not
 * also the slot's member, for the moment km_promote_replacement() has
 * both pointers on it).
 */
struct md_rdev *km_get_replacement(struct km_conf *conf, int member)
{
	struct km_disk *p = &conf->disks[member];
	struct md_rdev *repl;

	rcu_read_lock();
	repl = km_live(rcu_dereference(p->replacement));
	if (repl && repl == rcu_dereference(p->rdev))
		repl = NULL;
	if (repl)
		atomic_inc(&repl->nr_pending);
	rcu_read_unlock();
	return repl;
}

/* Chunks of @sh whose slot has a replacement still to rebuild this row. */
km_mask_t km_replacing_mask(struct km_stripe *sh)
{
	struct km_conf *conf = sh->conf;
	km_mask_t mask = 0;
	int i;

	rcu_read_lock();
	for (i = 0; i < conf->geom.n; i++) {
		struct km_disk *p = &conf->disks[sh->dev[i].member];
		struct md_rdev *repl = km_live(rcu_dereference(p->replacement));

		if (repl && !km_rdev_covers(repl, sh->sector, KM_ROW_SECTORS))
			mask |= (km_mask_t)1 << i;
	}
	rcu_read_unlock();
	return mask;
}

/*
 * ->hot_add_disk for a spare that no empty slot takes: it becomes the
 * replacement of a member in slots @first..@last that wants one.  The
 * whole member is copied (no bitmap shortcut).
 */
int km_add_replacement(struct km_conf *conf, struct md_rdev *rdev, int first,
		       int last)
{
	int disk;

	for (disk = first; disk <= last; disk++) {
		struct km_disk *p = &conf->disks[disk];
		struct md_rdev *old = rcu_access_pointer(p->rdev);

		if (!old || !test_bit(WantReplacement, &old->flags) ||
		    rcu_access_pointer(p->replacement))
			continue;
		clear_bit(In_sync, &rdev->flags);
		set_bit(Replacement, &rdev->flags);
		rdev->raid_disk = disk;
		conf->fullsync = 1;
		rcu_assign_pointer(p->replacement, rdev);
		pr_info("md/km:%s: %pg replaces %pg in slot %d\n",
			mdname(conf->mddev), rdev->bdev, old->bdev, disk);
		return 0;
	}
	return -EEXIST;
}

/*
 * The slot's member was just taken out (->hot_remove_disk): its
 * replacement, if any, becomes the member.  Readers never find the slot
 * empty: the replacement is in both pointers for a grace period first.
 */
void km_promote_replacement(struct km_conf *conf, struct km_disk *p)
{
	struct md_rdev *repl = rcu_access_pointer(p->replacement);

	if (!repl)
		return;
	rcu_assign_pointer(p->rdev, repl);
	clear_bit(Replacement, &repl->flags);
	synchronize_rcu();
	RCU_INIT_POINTER(p->replacement, NULL);
	pr_info("md/km:%s: %pg now holds slot %d\n", mdname(conf->mddev),
		repl->bdev, repl->raid_disk);
}

/*
 * ->spare_active for slot @p: a replacement rebuilt to the end is in
 * sync, and the member it replaces is marked faulty, to be removed and
 * never taken back.  Returns 1 when the slot was degraded before.
 */
int km_replacement_active(struct km_conf *conf, struct km_disk *p)
{
	struct mddev *mddev = conf->mddev;
	struct md_rdev *repl = rcu_dereference_protected(p->replacement,
			lockdep_is_held(&mddev->reconfig_mutex));
	struct md_rdev *rdev = rcu_dereference_protected(p->rdev,
			lockdep_is_held(&mddev->reconfig_mutex));
	int count = 0;

	if (!repl || repl->recovery_offset != MaxSector ||
	    test_bit(Faulty, &repl->flags) ||
	    test_and_set_bit(In_sync, &repl->flags))
		return 0;
	if (!rdev || !test_and_clear_bit(In_sync, &rdev->flags))
		count = 1;
	if (rdev) {
		set_bit(Faulty, &rdev->flags);
		sysfs_notify_dirent_safe(rdev->sysfs_state);
		pr_info("md/km:%s: replacement of %pg by %pg complete\n",
			mdname(mddev), rdev->bdev, repl->bdev);
	}
	sysfs_notify_dirent_safe(repl->sysfs_state);
	return count;
}
