// SPDX-License-Identifier: GPL-2.0
/*
 * Ring producer and consumer operations (see uapi/raidkm.h for the
 * ownership and ordering rules they implement).
 */
#include "rkm_ring.h"

void rkm_ring_ctl_setup(struct raidkm_ring_ctl *ctl, __u32 entries,
			__u32 esize)
{
	memset(ctl, 0, sizeof(*ctl));
	ctl->entries = entries;
	ctl->mask = entries - 1;
	ctl->entry_size = esize;
}

void rkm_ring_init(struct rkm_ring *r, struct raidkm_ring_ctl *ctl,
		   void *base, __u32 entries, __u32 esize, __u32 start)
{
	r->ctl = ctl;
	r->base = base;
	r->entries = entries;
	r->mask = entries - 1;
	r->esize = esize;
	r->local = start;
	r->other = start;
}

int rkm_prod_room(struct rkm_ring *r)
{
	__u32 used = r->local - r->other;

	if (used < r->entries)
		return r->entries - used;
	/* Looks full: refresh the consumer's head. */
	r->other = rkm_ring_load_acquire(&r->ctl->head);
	used = r->local - r->other;
	if (used > r->entries)
		return -RKM_RING_EPROTO;
	return r->entries - used;
}

int rkm_prod_publish(struct rkm_ring *r)
{
	rkm_ring_store_release(&r->ctl->tail, r->local);
	/* Pairs with the consumer's barrier in rkm_cons_prepare_sleep(). */
	rkm_ring_mb();
	return (rkm_ring_read_once(r->ctl->flags) & RAIDKM_RING_NEED_WAKEUP) != 0;
}

int rkm_cons_avail(struct rkm_ring *r)
{
	__u32 tail = rkm_ring_load_acquire(&r->ctl->tail);

	if (tail - r->local > r->entries)
		return -RKM_RING_EPROTO;
	r->other = tail;
	return tail - r->local;
}

void rkm_cons_release(struct rkm_ring *r, __u32 n)
{
	r->local += n;
	rkm_ring_store_release(&r->ctl->head, r->local);
}

int rkm_cons_prepare_sleep(struct rkm_ring *r)
{
	int n;

	rkm_ring_write_once(r->ctl->flags, RAIDKM_RING_NEED_WAKEUP);
	/* Pairs with the producer's barrier in rkm_prod_publish(). */
	rkm_ring_mb();
	n = rkm_cons_avail(r);
	if (n != 0)
		rkm_ring_write_once(r->ctl->flags, 0);
	return n;
}

void rkm_cons_woken(struct rkm_ring *r)
{
	rkm_ring_write_once(r->ctl->flags, 0);
}
