// SPDX-License-Identifier: GPL-2.0
/*
 * covers: km: write plan; km: survivors of wide reads and sync windows
 *
 * Unit test of the stripe I/O planner (kernel/raidkm/personality/plan.c),
 * built from the same source as the module.
 *
 *   plan_write      rmw/rcw choice by I/O count, full-stripe detection,
 *                   degraded plans read k survivors and decode the lost
 *   plan_survivors  the survivors of a wide read: k chunks, none lost,
 *                   the preferred (delivered) data first, then the others
 *                   in chunk order; exhaustive for k + m <= 10
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "personality/plan.h"

#include "unit_report.h"

static const char *check_plan(void)
{
	static const struct {
		km_mask_t need, failed, uptodate, read, decode;
		const char *what;
	} fetch[] = {
		/* a read of lost data 1 with parity 5 also lost */
		{ 0x2, 0x22, 0, 0x1d, 0x22, "degraded read fetch" },
		/* one lost: k survivors, not all five */
		{ 0x2, 0x2, 0, 0x1d, 0x2, "degraded read fetch reads k survivors" },
		/* survivors already cached are not read again */
		{ 0x2, 0x2, 0x5, 0x18, 0x2, "degraded read fetch with cached survivors" },
		/* a check needs every chunk: all survivors in one round */
		{ 0x3f, 0x2, 0, 0x3d, 0x2, "fetch of a whole degraded row" },
		{ 0x2, 0, 0, 0x2, 0, "healthy read fetch" },
	};
	int i;
	struct km_plan p;

	/* 4+2, all data overwritten: full stripe, nothing read */
	km_plan_write(4, 2, 0xf, 0xf, 0, 0, &p);
	if (p.kind != KM_WRITE_FULL || p.read || p.decode)
		return "full stripe";
	/* one chunk of 4+2 replaced: rmw reads 1 + 2, rcw 3: tie -> rmw */
	km_plan_write(4, 2, 0x1, 0x1, 0, 0, &p);
	if (p.kind != KM_WRITE_RMW || p.read != 0x31)
		return "4+2 one chunk: expected rmw (tie)";
	/* two chunks of 4+2: rmw 4 reads, rcw 2 */
	km_plan_write(4, 2, 0x3, 0x3, 0, 0, &p);
	if (p.kind != KM_WRITE_RCW || p.read != 0xc)
		return "4+2 two chunks: expected rcw";
	/* 8+2 one chunk: rmw (3 reads) beats rcw (7) */
	km_plan_write(8, 2, 0x1, 0x1, 0, 0, &p);
	if (p.kind != KM_WRITE_RMW || p.read != (0x1 | 0x300))
		return "8+2 one chunk: expected rmw";
	/* cached pages count as free */
	km_plan_write(8, 2, 0x1, 0x1, 0x300, 0, &p);
	if (p.kind != KM_WRITE_RMW || p.read != 0x1)
		return "8+2 cached: expected rmw reading only the old data";
	km_plan_write(8, 2, 0x1, 0x1, 0xfe, 0, &p);
	if (p.kind != KM_WRITE_RCW || p.read != 0)
		return "8+2 other data cached: expected rcw with no reads";
	/* partial chunk: rcw must read it too (rmw 4, rcw 3) */
	km_plan_write(4, 2, 0x3, 0x1, 0, 0, &p);
	if (p.kind != KM_WRITE_RCW || p.read != 0xe)
		return "partial chunk under rcw";
	/*
	 * degraded: data 2 lost, write data 0: read the first 4 survivors
	 * (old data 0 too: the decode needs it), decode 2
	 */
	km_plan_write(4, 2, 0x1, 0x1, 0, 0x4, &p);
	if (p.kind != KM_WRITE_RCW || p.read != 0x1b || p.decode != 0x4)
		return "degraded data: expected k survivors read and one decode";
	/* degraded parity only: no decode needed for rcw */
	km_plan_write(4, 2, 0x1, 0x1, 0, 0x10, &p);
	if (p.decode || p.read != 0xe)
		return "lost parity: rcw needs no decode";
	/* fetches in 4+2: need, failed, uptodate -> read, decode */
	for (i = 0; i < (int)(sizeof(fetch) / sizeof(fetch[0])); i++) {
		p.need = fetch[i].need;
		km_plan_fetch(4, 6, fetch[i].failed, fetch[i].uptodate, &p);
		if (p.read != fetch[i].read || p.decode != fetch[i].decode)
			return fetch[i].what;
	}
	return NULL;
}

/* The survivor rule, restated independently, for one case. */
static km_mask_t expect_survivors(int k, int n, km_mask_t lost,
				  km_mask_t prefer)
{
	km_mask_t surv = 0;
	int i, c = 0;

	for (i = 0; i < n && c < k; i++)
		if ((prefer & ~lost) >> i & 1) {
			surv |= (km_mask_t)1 << i;
			c++;
		}
	for (i = 0; i < n && c < k; i++)
		if (!((lost | surv) >> i & 1)) {
			surv |= (km_mask_t)1 << i;
			c++;
		}
	return c == k ? surv : 0;
}

static const char *check_survivors(void)
{
	int n, m;

	/* named cases: 4+2 */
	if (km_plan_survivors(4, 6, 0x2, 0x2) != 0x1d)
		return "4+2 data 1 lost: data 0, 2, 3 and P";
	if (km_plan_survivors(4, 6, 0x3, 0x0) != 0x3c)
		return "4+2 data 0, 1 lost: data 2, 3, P and Q";
	if (km_plan_survivors(4, 6, 0x7, 0x0) != 0)
		return "4+2 three lost: no survivors";
	if (km_plan_survivors(4, 6, 0x20, 0xf) != 0xf)
		return "4+2 Q lost, all data wanted: the data";
	/* exhaustive: every lost set and preferred set for n <= 10 */
	for (n = 3; n <= 10; n++)
		for (m = 1; m <= n - 2; m++) {
			int k = n - m;
			km_mask_t lost, pref, all = km_mask_all(n);

			for (lost = 0; lost <= all; lost++)
				for (pref = 0; pref <= km_mask_all(k);
				     pref++) {
					km_mask_t s = km_plan_survivors(k, n,
							lost, pref);
					km_mask_t e = expect_survivors(k, n,
							lost, pref);

					if (s != e) {
						snprintf(msg, sizeof(msg),
							 "k=%d m=%d lost %llx prefer %llx: %llx, expected %llx",
							 k, m,
							 (unsigned long long)lost,
							 (unsigned long long)pref,
							 (unsigned long long)s,
							 (unsigned long long)e);
						return msg;
					}
					if (s && (km_popcount(s) != k ||
						  (s & lost)))
						return "survivors not k or lost";
				}
		}
	return NULL;
}

/* Recovery windows: what is read and decoded. */
static const char *check_rebuild(void)
{
	km_mask_t read, want;

	/* 4+2, chunk 1 lost and rebuilt: k survivors, decode 1 */
	if (km_plan_rebuild(4, 6, 0x2, 0x2, &read, &want) ||
	    read != 0x1d || want != 0x2)
		return "one lost, rebuilt";
	/* hot replace of readable chunk 2 only: read it, decode nothing */
	if (km_plan_rebuild(4, 6, 0, 0x4, &read, &want) ||
	    read != 0x4 || want)
		return "replace only copies";
	/* chunk 0 lost, chunk 5 replaced: 5 is one of the survivors */
	if (km_plan_rebuild(4, 6, 0x1, 0x21, &read, &want) ||
	    want != 0x1 || read != 0x2e || !(read & 0x20))
		return "replace among survivors";
	/* 2+1 with 2 lost: no decode possible */
	if (km_plan_rebuild(2, 3, 0x3, 0x3, &read, &want) != -1)
		return "too many lost";
	/* lost but not rebuilt (missing member): nothing to do */
	if (km_plan_rebuild(4, 6, 0x2, 0, &read, &want) || read || want)
		return "nothing to rebuild";
	return NULL;
}

/* Decode masks: every chunk but the k survivors read, exactly m of them. */
static const char *check_decode_mask(void)
{
	/* 8+3, data 1 lost: read 0,2..7,P; 1, Q and R erased (1 wanted) */
	if (km_plan_decode_mask(8, 11, 0x1fd, 0x2) != 0x602)
		return "8+3 one lost";
	/* 4+2, data 0 lost, replaced parity Q (5) read: 1,2,3,5 */
	if (km_plan_decode_mask(4, 6, 0x2e, 0x1) != 0x11)
		return "4+2 survivors skip P";
	/* 4+2, P lost and wanted: data read, P and Q erased */
	if (km_plan_decode_mask(4, 6, 0xf, 0x10) != 0x30)
		return "4+2 parity rebuilt";
	/* more read than k: the first k are the survivors, the rest erased */
	if (km_plan_decode_mask(4, 6, 0x3e, 0x1) != 0x21)
		return "extra reads";
	if (km_plan_decode_mask(4, 6, 0x7, 0x8))
		return "fewer than k read";
	if (km_plan_decode_mask(4, 6, 0xf, 0x1))
		return "want among the survivors";
	return NULL;
}

/* Sync windows: chunk stripe end, limit, max rows. */
static const char *check_window_rows(void)
{
	/* 64 KiB chunks (128 sectors): 16 rows from a stripe start */
	if (km_plan_window_rows(0, 1 << 20, 128, 8, 256) != 16)
		return "whole chunk";
	if (km_plan_window_rows(120, 1 << 20, 128, 8, 256) != 1)
		return "last row of a chunk";
	if (km_plan_window_rows(128, 200, 128, 8, 256) != 9)
		return "limit inside the chunk";
	if (km_plan_window_rows(0, 1 << 20, 4096, 8, 256) != 256)
		return "max rows";
	if (km_plan_window_rows(4, 1 << 20, 128, 8, 256) != 0)
		return "unaligned start";
	if (km_plan_window_rows(64, 64, 128, 8, 256) != 0)
		return "at the limit";
	if (km_plan_window_rows(0, 4, 128, 8, 256) != 0)
		return "less than a row left";
	return NULL;
}

/* Curry's rule: detect with m - e >= 1, correct with m - e >= 2. */
static const char *check_verify_level(void)
{
	int m, e;

	for (m = 1; m <= 4; m++)
		for (e = 0; e <= m; e++) {
			km_mask_t lost = km_mask_all(e) << 1;
			int want = m - e >= 2 ? KM_VERIFY_CORRECT :
				   m - e == 1 ? KM_VERIFY_DETECT : KM_VERIFY_NONE;

			if (km_plan_verify_level(m, lost) != want) {
				snprintf(msg, sizeof(msg), "m=%d e=%d: level %d, expected %d",
					 m, e, km_plan_verify_level(m, lost), want);
				return msg;
			}
		}
	if (km_plan_verify_effective(KM_VERIFY_DETECT, 3, 0) != KM_VERIFY_DETECT)
		return "detect mode on a healthy m=3 array is not detect";
	if (km_plan_verify_effective(KM_VERIFY_CORRECT, 2, 1) != KM_VERIFY_DETECT)
		return "correct mode with m=2, e=1 does not degrade to detect";
	if (km_plan_verify_effective(KM_VERIFY_CORRECT, 1, 0) != KM_VERIFY_DETECT)
		return "correct mode with m=1 does not degrade to detect";
	if (km_plan_verify_effective(KM_VERIFY_NONE, 2, 0) != KM_VERIFY_NONE)
		return "off is not off";
	if (km_plan_verify_effective(KM_VERIFY_DETECT, 2, 3) != KM_VERIFY_NONE)
		return "detect with m=2, e=2 is not none";
	return NULL;
}

/*
 * The suspects of a failed check, and for each one a decode that leaves
 * it and the lost chunks out: a valid erased mask (m chunks, survivors
 * readable) for every suspect, with up to m - 2 chunks lost.
 */
static const char *check_verify_suspects(void)
{
	int k = 4, m = 3, n = k + m, j;
	km_mask_t lost = (km_mask_t)1 << 2, sus;

	if (km_plan_verify_suspects(n, 2, lost))
		return "suspects with m=2, e=1 (detect only)";
	if (km_plan_verify_suspects(n, 1, 0))
		return "suspects with m=1";
	sus = km_plan_verify_suspects(n, m, lost);
	if (sus != (km_mask_all(n) & ~lost))
		return "suspects are not the chunks read";
	for (j = 0; j < n; j++) {
		km_mask_t bit = (km_mask_t)1 << j, mask, read;

		if (!(sus & bit))
			continue;
		read = km_mask_all(n) & ~lost & ~bit;
		mask = km_plan_decode_mask(k, n, read, lost | bit);
		if (km_popcount(mask) != m || (mask & (lost | bit)) != (lost | bit)) {
			snprintf(msg, sizeof(msg), "suspect %d: decode mask %llx", j,
				 (unsigned long long)mask);
			return msg;
		}
	}
	return NULL;
}

/*
 * What a verified read may leave unread: parity rows past Q, only in
 * correct mode with nothing lost and m >= 3; what it reads always holds
 * every data chunk, P and Q, and never a chunk more than k + 2.
 */
static const char *check_verify_skip(void)
{
	int k, m;

	for (k = 1; k <= 16; k++) {
		for (m = 1; m <= 16 && k + m <= 32; m++) {
			km_mask_t all = km_mask_all(k + m);
			km_mask_t skip = km_plan_verify_skip(k, m, 0,
							     KM_VERIFY_CORRECT);
			km_mask_t read = all & ~skip;

			if ((skip & ~all) || (read & km_mask_all(k + 2)) !=
			    (km_mask_all(k + 2) & all)) {
				snprintf(msg, sizeof(msg), "%d+%d: skips %llx", k, m,
					 (unsigned long long)skip);
				return msg;
			}
			if (km_popcount(read) != (m >= 3 ? k + 2 : k + m))
				return "a correct read of a whole range reads other than k + min(m, 2) chunks";
			if (km_plan_verify_skip(k, m, 0, KM_VERIFY_DETECT))
				return "detect mode leaves parity unread";
			if (km_plan_verify_skip(k, m, 1, KM_VERIFY_CORRECT))
				return "a range with a chunk lost leaves parity unread";
		}
	}
	return NULL;
}

int main(void)
{
	report("plan_write", check_plan());
	report("plan_survivors", check_survivors());
	report("plan_rebuild", check_rebuild());
	report("plan_window_rows", check_window_rows());
	report("plan_decode_mask", check_decode_mask());
	report("plan_verify_level", check_verify_level());
	report("plan_verify_suspects", check_verify_suspects());
	report("plan_verify_skip", check_verify_skip());
	return failures ? 1 : 0;
}
