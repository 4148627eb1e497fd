// SPDX-License-Identifier: GPL-2.0
/*
 * Stripe I/O planning: read-modify-write vs reconstruct-write by I/O count,
 * and the survivors a wide read or window decode reads
 * (freestanding; see plan.h).
 */
#include "plan.h"

int km_popcount(km_mask_t x)
{
	int c = 0;

	while (x) {
		x &= x - 1;
		c++;
	}
	return c;
}

void km_plan_fetch(int k, int n, km_mask_t failed, km_mask_t uptodate,
		   struct km_plan *plan)
{
	km_mask_t all = km_mask_all(n);
	km_mask_t missing = plan->need & ~uptodate & all;

	if (missing & failed) {
		km_mask_t lost = all & failed & ~uptodate;
		km_mask_t avail = all & ~lost, surv = 0;
		int i, c = 0;

		/* the codec rebuilds from the first k chunks not lost */
		for (i = 0; i < n && c < k; i++)
			if (avail & ((km_mask_t)1 << i)) {
				surv |= (km_mask_t)1 << i;
				c++;
			}
		/* other chunks needed as well: read them in the same round */
		if (plan->need & avail & ~surv & ~uptodate)
			surv = avail;
		plan->read = surv & ~uptodate;
		plan->decode = lost;
	} else {
		plan->read = missing;
		plan->decode = 0;
	}
}

void km_plan_write(int k, int m, km_mask_t written, km_mask_t full,
		   km_mask_t uptodate, km_mask_t failed, struct km_plan *plan)
{
	int n = k + m;
	km_mask_t data = km_mask_all(k);
	km_mask_t parity = km_mask_all(n) & ~data;
	km_mask_t rmw_need, rcw_need;

	written &= data;
	full &= written;
	plan->read = 0;
	plan->decode = 0;

	if (full == data) {
		plan->kind = KM_WRITE_FULL;
		plan->need = 0;
		return;
	}

	/* reconstruct-write: the data not replaced, and partial chunks */
	rcw_need = (data & ~written) | (written & ~full);
	if (failed) {
		/* degraded: always reconstruct (decoding what is lost) */
		plan->kind = KM_WRITE_RCW;
		plan->need = rcw_need;
		km_plan_fetch(k, n, failed, uptodate, plan);
		return;
	}

	/*
	 * read-modify-write: old contents of replaced data, and parity.  On
	 * a tie it wins: the delta codes only the replaced chunks.
	 */
	rmw_need = written | parity;
	if (km_popcount(rmw_need & ~uptodate) <=
	    km_popcount(rcw_need & ~uptodate)) {
		plan->kind = KM_WRITE_RMW;
		plan->need = rmw_need;
	} else {
		plan->kind = KM_WRITE_RCW;
		plan->need = rcw_need;
	}
	km_plan_fetch(k, n, failed, uptodate, plan);
}

km_mask_t km_plan_survivors(int k, int n, km_mask_t lost, km_mask_t prefer)
{
	km_mask_t avail = km_mask_all(n) & ~lost;
	km_mask_t surv = prefer & avail;
	int i, c = km_popcount(surv);

	if (km_popcount(avail) < k)
		return 0;
	while (c > k) {
		/* more preferred than needed: drop the highest */
		for (i = n - 1; !(surv & ((km_mask_t)1 << i)); i--)
			;
		surv &= ~((km_mask_t)1 << i);
		c--;
	}
	for (i = 0; i < n && c < k; i++) {
		km_mask_t b = (km_mask_t)1 << i;

		if ((avail & b) && !(surv & b)) {
			surv |= b;
			c++;
		}
	}
	return surv;
}

int km_plan_rebuild(int k, int n, km_mask_t lost, km_mask_t rebuild,
		    km_mask_t *read, km_mask_t *want)
{
	km_mask_t copy = rebuild & ~lost;	/* readable: copied as read */

	*want = rebuild & lost;
	if (!*want) {
		*read = copy;
		return 0;
	}
	*read = km_plan_survivors(k, n, lost, copy);
	if (!*read)
		return -1;
	/* more chunks to copy than the decode reads: read them too */
	*read |= copy;
	return 0;
}

unsigned int km_plan_window_rows(km_sector_t start, km_sector_t limit,
				 unsigned int chunk_sectors,
				 unsigned int row_sectors,
				 unsigned int max_rows)
{
	km_sector_t end = (start | (chunk_sectors - 1)) + 1;
	km_sector_t rows;

	if (start & (row_sectors - 1) || limit <= start)
		return 0;
	if (limit < end)
		end = limit;
	rows = (end - start) / row_sectors;
	return rows < max_rows ? (unsigned int)rows : max_rows;
}

km_mask_t km_plan_decode_mask(int k, int n, km_mask_t read, km_mask_t want)
{
	km_mask_t surv = km_plan_survivors(k, n, ~read, 0);

	if (!surv || (want & surv))
		return 0;
	return km_mask_all(n) & ~surv;
}

int km_plan_verify_level(int m, km_mask_t lost)
{
	int left = m - km_popcount(lost);

	if (left >= 2)
		return KM_VERIFY_CORRECT;
	return left == 1 ? KM_VERIFY_DETECT : KM_VERIFY_NONE;
}

int km_plan_verify_effective(int want, int m, km_mask_t lost)
{
	int can = km_plan_verify_level(m, lost);

	return want < can ? want : can;
}

km_mask_t km_plan_verify_suspects(int n, int m, km_mask_t lost)
{
	if (km_plan_verify_level(m, lost) < KM_VERIFY_CORRECT)
		return 0;
	return km_mask_all(n) & ~lost;
}

km_mask_t km_plan_verify_skip(int k, int m, km_mask_t lost, int level)
{
	if (level != KM_VERIFY_CORRECT || lost || m < 3)
		return 0;
	return km_mask_all(k + m) & ~km_mask_all(k + 2);
}
