// SPDX-License-Identifier: GPL-2.0
/*
 * Row claims: a range of member rows taken away from the stripe cache
 * while someone works on the members underneath it (a discard,
 * discard.c; a sync window, wide_sync.c).
 *
 * A claim covers member rows [lo, hi) of every member.  While it is on
 * conf->claims, km_get_stripe() does not hand out a stripe for one of
 * its rows (it waits on conf->wait_for_stripe), the stripes there that
 * hold references drain, and idle ones are taken out of the hash (their
 * pages would no longer match the members).  The drain counts the
 * stripes there that hold references (->busy, kept where a stripe gets
 * its first reference and drops its last), so a stripe release costs a
 * range check per claim, not a walk of the stripe hash.  Claims never
 * overlap: a new one waits until no claim on the list shares a row with
 * it, so a discard and a sync window never work on the same rows.
 *
 * Everything here runs under conf->lock, except km_claim_release(),
 * which takes it.
 */
#include "km.h"

static bool km_claim_covers(const struct km_claim *c, sector_t sector)
{
	return sector >= c->lo && sector < c->hi;
}

/* The claim that covers member row @sector, or NULL (conf->lock held). */
static struct km_claim *km_claim_of(struct km_conf *conf, sector_t sector)
{
	struct km_claim *c;

	list_for_each_entry(c, &conf->claims, node)
		if (km_claim_covers(c, sector))
			return c;
	return NULL;
}

/* Whether member row @sector is claimed (conf->lock held). */
bool km_row_claimed(struct km_conf *conf, sector_t sector)
{
	return !list_empty(&conf->claims) && km_claim_of(conf, sector);
}

/* km_get_stripe(): wait while row @sector is claimed (lock held). */
void km_claim_wait_row(struct km_conf *conf, sector_t sector)
{
	if (unlikely(km_row_claimed(conf, sector)))
		wait_event_lock_irq(conf->wait_for_stripe,
				    !km_row_claimed(conf, sector),
				    conf->lock);
}

static bool km_claims_overlap(struct km_conf *conf, sector_t lo, sector_t hi)
{
	struct km_claim *c;

	list_for_each_entry(c, &conf->claims, node)
		if (lo < c->hi && c->lo < hi)
			return true;
	return false;
}

/*
 * Count the stripes of @c in use into ->busy; take the idle ones out of
 * the hash.  The one walk of the hash per claim.
 */
static void km_claim_scan(struct km_conf *conf, struct km_claim *c)
{
	struct hlist_node *tmp;
	struct km_stripe *sh;
	int i;

	c->busy = 0;
	for (i = 0; i < (1 << KM_STRIPE_HASH_BITS); i++) {
		hlist_for_each_entry_safe(sh, tmp, &conf->hash[i], hash) {
			if (!km_claim_covers(c, sh->sector))
				continue;
			if (atomic_read(&sh->count))
				c->busy++;
			else
				hlist_del_init(&sh->hash);
		}
	}
}

/*
 * Claim member rows [@lo, @hi) with @c (conf->lock held, may sleep with
 * it dropped): wait until no other claim shares a row, put @c on the
 * list (new stripes there wait from here on), and wait until the stripes
 * there in use have drained.
 */
void km_claim_rows(struct km_conf *conf, struct km_claim *c, sector_t lo,
		   sector_t hi)
{
	wait_event_lock_irq(conf->wait_for_stripe,
			    !km_claims_overlap(conf, lo, hi), conf->lock);
	c->lo = lo;
	c->hi = hi;
	list_add_tail(&c->node, &conf->claims);
	km_claim_scan(conf, c);
	wait_event_lock_irq(conf->wait_for_stripe, !c->busy, conf->lock);
}

/* Give the rows back: stripes waiting for them go on. */
void km_claim_release(struct km_conf *conf, struct km_claim *c)
{
	unsigned long flags;

	spin_lock_irqsave(&conf->lock, flags);
	list_del_init(&c->node);
	spin_unlock_irqrestore(&conf->lock, flags);
	wake_up(&conf->wait_for_stripe);
}

/* km_grab(): @sh got its first reference (conf->lock held). */
void km_claim_stripe_active(struct km_conf *conf, struct km_stripe *sh)
{
	struct km_claim *c;

	list_for_each_entry(c, &conf->claims, node)
		if (km_claim_covers(c, sh->sector))
			c->busy++;
}

/*
 * km_put_stripe(): @sh lost its last reference and goes idle (conf->lock
 * held).  In claimed rows it is forgotten, and the claim waits for one
 * stripe fewer (km_put_stripe() wakes it).
 */
void km_claim_stripe_idle(struct km_conf *conf, struct km_stripe *sh)
{
	struct km_claim *c;
	bool claimed = false;

	list_for_each_entry(c, &conf->claims, node) {
		if (km_claim_covers(c, sh->sector)) {
			c->busy--;
			claimed = true;
		}
	}
	if (claimed)
		hlist_del_init(&sh->hash);
}
