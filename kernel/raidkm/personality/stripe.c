// SPDX-License-Identifier: GPL-2.0
/*
 * The km stripe cache: stripe rows hashed by member sector, bounded by
 * stripe_cache_size, recycled least-recently-used.  A stripe with
 * references is active; the handler list holds one reference per queued
 * stripe.  Idle stripes keep their pages (and what they cache) on the
 * inactive list until they are reused or the cache shrinks.
 */
#include <linux/blkdev.h>
#include <linux/slab.h>
#include <linux/hash.h>
#include "km.h"
#include "../rkm_arena.h"

static struct hlist_head *km_hash_head(struct km_conf *conf, sector_t sector)
{
	return &conf->hash[hash_64(sector >> (PAGE_SHIFT - 9),
				   KM_STRIPE_HASH_BITS)];
}

static void km_free_stripe(struct km_conf *conf, struct km_stripe *sh)
{
	int i;

	for (i = 0; i < conf->geom.n; i++) {
		rkm_arena_free_page(sh->dev[i].page);
		rkm_arena_free_page(sh->dev[i].orig);
	}
	kfree(sh->scratch);
	kfree(sh);
}

static struct km_stripe *km_alloc_stripe(struct km_conf *conf)
{
	int n = conf->geom.n, i;
	struct km_stripe *sh;

	sh = kzalloc(struct_size(sh, dev, n), GFP_NOIO);
	if (!sh)
		return NULL;
	sh->conf = conf;
	INIT_HLIST_NODE(&sh->hash);
	INIT_LIST_HEAD(&sh->lru);
	INIT_WORK(&sh->job_work, km_job_work);
	km_journal_stripe_item(sh);
	for (i = 0; i < n; i++) {
		sh->dev[i].page = rkm_arena_alloc_page(GFP_NOIO);
		if (!sh->dev[i].page)
			goto fail;
		if (i < conf->geom.k) {
			sh->dev[i].orig = rkm_arena_alloc_page(GFP_NOIO);
			if (!sh->dev[i].orig)
				goto fail;
		}
	}
	return sh;
fail:
	km_free_stripe(conf, sh);
	return NULL;
}

/* Point an idle stripe at a new row; everything cached is forgotten. */
static void km_init_stripe(struct km_conf *conf, struct km_stripe *sh,
			   sector_t sector)
{
	int i;

	sh->sector = sector;
	sh->cstripe = sector >> conf->geom.chunk_shift;
	sh->state = 0;
	sh->phase = KM_PH_IDLE;
	sh->round = NULL;
	atomic_set(&sh->pending, 0);
	for (i = 0; i < conf->geom.n; i++) {
		sh->dev[i].flags = 0;
		sh->dev[i].member = km_chunk_member(&conf->geom, sh->cstripe, i);
	}
	hlist_add_head(&sh->hash, km_hash_head(conf, sector));
}

static struct km_stripe *km_find_stripe(struct km_conf *conf, sector_t sector)
{
	struct km_stripe *sh;

	hlist_for_each_entry(sh, km_hash_head(conf, sector), hash)
		if (sh->sector == sector)
			return sh;
	return NULL;
}

/* Take a reference on a stripe found in the hash (conf->lock held). */
static void km_grab(struct km_conf *conf, struct km_stripe *sh)
{
	if (atomic_inc_return(&sh->count) == 1) {
		list_del_init(&sh->lru);
		atomic_inc(&conf->active_stripes);
		km_claim_stripe_active(conf, sh);
	}
}

/*
 * The stripe for member row @sector (aligned to KM_ROW_SECTORS), with a
 * reference.  Waits for a free stripe unless @noblock.
 */
struct km_stripe *km_get_stripe(struct km_conf *conf, sector_t sector,
				bool noblock)
{
	struct km_stripe *sh, *new;
	bool may_alloc = true;

	spin_lock_irq(&conf->lock);
	for (;;) {
		km_claim_wait_row(conf, sector);
		sh = km_find_stripe(conf, sector);
		if (sh) {
			km_grab(conf, sh);
			break;
		}
		if (may_alloc && conf->nr_stripes < conf->max_stripes) {
			conf->nr_stripes++;
			spin_unlock_irq(&conf->lock);
			new = km_alloc_stripe(conf);
			spin_lock_irq(&conf->lock);
			if (!new) {
				/* the lock was dropped: look for the row again */
				conf->nr_stripes--;
				may_alloc = false;
				continue;
			} else if (km_row_claimed(conf, sector)) {
				/* a discard or sync window took the row */
				list_add_tail(&new->lru, &conf->inactive_list);
				continue;
			} else {
				sh = km_find_stripe(conf, sector);
				if (sh) {
					/* raced: keep the new one idle */
					list_add_tail(&new->lru,
						      &conf->inactive_list);
					km_grab(conf, sh);
					break;
				}
				km_init_stripe(conf, new, sector);
				km_grab(conf, new);
				sh = new;
				break;
			}
		}
		if (!list_empty(&conf->inactive_list)) {
			sh = list_first_entry(&conf->inactive_list,
					      struct km_stripe, lru);
			if (!hlist_unhashed(&sh->hash))
				hlist_del_init(&sh->hash);
			km_init_stripe(conf, sh, sector);
			km_grab(conf, sh);
			break;
		}
		if (noblock) {
			sh = NULL;
			break;
		}
		if (!may_alloc) {
			/* no memory for a stripe: wait for one a while, retry */
			wait_event_lock_irq_timeout(conf->wait_for_stripe,
					!list_empty(&conf->inactive_list),
					conf->lock, HZ / 10);
			may_alloc = true;
			continue;
		}
		wait_event_lock_irq(conf->wait_for_stripe,
				    !list_empty(&conf->inactive_list) ||
				    conf->nr_stripes < conf->max_stripes,
				    conf->lock);
	}
	spin_unlock_irq(&conf->lock);
	return sh;
}

/* Does the stripe have work left (conf->lock held)? */
bool km_stripe_busy(struct km_stripe *sh)
{
	int i;

	if (sh->phase != KM_PH_IDLE || sh->round ||
	    test_bit(KM_SH_SYNC, &sh->state))
		return true;
	for (i = 0; i < sh->conf->geom.n; i++) {
		struct km_dev *dev = &sh->dev[i];

		if (dev->toread || dev->towrite || dev->written ||
		    test_bit(KM_DEV_READ_ERR, &dev->flags))
			return true;
	}
	return false;
}

/* Put a stripe on the handler thread's list (without waking it). */
static void km_enqueue(struct km_stripe *sh)
{
	struct km_conf *conf = sh->conf;
	unsigned long flags;

	spin_lock_irqsave(&conf->lock, flags);
	if (!test_and_set_bit(KM_SH_ON_LIST, &sh->state)) {
		km_grab(conf, sh);
		list_add_tail(&sh->lru, &conf->handle_list);
	}
	spin_unlock_irqrestore(&conf->lock, flags);
}

/* Queue a stripe for the handler thread and wake it. */
void km_queue_stripe(struct km_stripe *sh)
{
	km_enqueue(sh);
	md_wakeup_thread(sh->conf->mddev->thread);
}

static void km_unplug(struct blk_plug_cb *cb, bool from_schedule)
{
	struct km_conf *conf = cb->data;

	md_wakeup_thread(conf->mddev->thread);
	kfree(cb);
}

/*
 * Queue a stripe for a submitter: when it holds a plug (a batch of
 * io_submit, a filesystem's writeback), the md thread is woken once when
 * the batch is unplugged, not once per bio, and finds every stripe of the
 * batch on its list.
 */
void km_queue_stripe_plugged(struct km_stripe *sh)
{
	struct km_conf *conf = sh->conf;

	if (!blk_check_plugged(km_unplug, conf, sizeof(struct blk_plug_cb))) {
		km_queue_stripe(sh);
		return;
	}
	km_enqueue(sh);
}

/* Drop a reference; an unused, idle stripe goes to the inactive list. */
void km_put_stripe(struct km_stripe *sh)
{
	struct km_conf *conf = sh->conf;
	unsigned long flags;
	bool requeue = false;

	spin_lock_irqsave(&conf->lock, flags);
	if (atomic_dec_and_test(&sh->count)) {
		if (km_stripe_busy(sh) && !atomic_read(&sh->pending)) {
			/* work arrived without a queueing: handle it */
			requeue = true;
			atomic_inc(&sh->count);
			set_bit(KM_SH_ON_LIST, &sh->state);
			list_add_tail(&sh->lru, &conf->handle_list);
		} else {
			km_claim_stripe_idle(conf, sh);
			list_add_tail(&sh->lru, &conf->inactive_list);
			atomic_dec(&conf->active_stripes);
			wake_up(&conf->wait_for_stripe);
			if (conf->quiesce)
				wake_up(&conf->wait_for_quiescent);
		}
	}
	spin_unlock_irqrestore(&conf->lock, flags);
	if (requeue)
		md_wakeup_thread(conf->mddev->thread);
}

/* Next stripe for the handler, with the list's reference, or NULL. */
struct km_stripe *km_next_stripe(struct km_conf *conf)
{
	struct km_stripe *sh = NULL;

	spin_lock_irq(&conf->lock);
	if (!list_empty(&conf->handle_list)) {
		sh = list_first_entry(&conf->handle_list, struct km_stripe,
				      lru);
		list_del_init(&sh->lru);
		clear_bit(KM_SH_ON_LIST, &sh->state);
	}
	spin_unlock_irq(&conf->lock);
	return sh;
}

/* Resize the cache; idle stripes beyond the new size are freed. */
int km_set_cache_size(struct km_conf *conf, int size)
{
	struct km_stripe *sh;
	LIST_HEAD(victims);

	if (size < KM_MIN_STRIPES || size > KM_MAX_STRIPES)
		return -EINVAL;
	spin_lock_irq(&conf->lock);
	conf->max_stripes = size;
	while (conf->nr_stripes > size &&
	       !list_empty(&conf->inactive_list)) {
		sh = list_first_entry(&conf->inactive_list, struct km_stripe,
				      lru);
		list_move(&sh->lru, &victims);
		if (!hlist_unhashed(&sh->hash))
			hlist_del_init(&sh->hash);
		conf->nr_stripes--;
	}
	spin_unlock_irq(&conf->lock);
	wake_up(&conf->wait_for_stripe);
	while (!list_empty(&victims)) {
		sh = list_first_entry(&victims, struct km_stripe, lru);
		list_del(&sh->lru);
		km_free_stripe(conf, sh);
	}
	return 0;
}

int km_stripes_init(struct km_conf *conf)
{
	int i;

	conf->hash = kcalloc(1 << KM_STRIPE_HASH_BITS, sizeof(*conf->hash),
			     GFP_KERNEL);
	if (!conf->hash)
		return -ENOMEM;
	for (i = 0; i < (1 << KM_STRIPE_HASH_BITS); i++)
		INIT_HLIST_HEAD(&conf->hash[i]);
	INIT_LIST_HEAD(&conf->handle_list);
	INIT_LIST_HEAD(&conf->inactive_list);
	INIT_LIST_HEAD(&conf->claims);
	init_waitqueue_head(&conf->wait_for_stripe);
	init_waitqueue_head(&conf->wait_for_quiescent);
	/* KM_DEFAULT_STRIPES rows, fewer for wide arrays: about 16 MiB */
	conf->max_stripes = clamp_t(int, KM_CACHE_BYTES /
				    ((conf->geom.n + conf->geom.k) * PAGE_SIZE),
				    KM_MIN_STRIPES * 4, KM_DEFAULT_STRIPES);
	return 0;
}

/* Free every stripe; the array is stopped, so all of them are idle. */
void km_stripes_exit(struct km_conf *conf)
{
	struct km_stripe *sh, *tmp;

	list_for_each_entry_safe(sh, tmp, &conf->inactive_list, lru) {
		list_del(&sh->lru);
		km_free_stripe(conf, sh);
	}
	WARN_ON(!list_empty(&conf->handle_list));
	kfree(conf->hash);
	conf->hash = NULL;
}
