/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Stripe I/O planning (freestanding, pure): which chunks of one stripe row
 * must be read or rebuilt before a write, a degraded read or a sync can
 * proceed, and how a partial-stripe write updates parity.
 *
 * Masks are over codec chunk indices: bit d for data chunk d (0..k-1),
 * bit k + i for parity chunk i.
 */
#ifndef RKM_PLAN_H
#define RKM_PLAN_H

#include "layout.h"

#ifdef __KERNEL__
#include <linux/types.h>
typedef u64 km_mask_t;
#else
#include <stdint.h>
typedef uint64_t km_mask_t;
#endif

enum km_write_kind {
	KM_WRITE_FULL = 1,	/* every data chunk overwritten: encode only */
	KM_WRITE_RMW,		/* delta: read old data being replaced + parity */
	KM_WRITE_RCW,		/* reconstruct: read the other data, encode */
};

struct km_plan {
	int kind;		/* enum km_write_kind, or 0 for no write */
	km_mask_t need;		/* chunks whose contents must be known */
	km_mask_t read;		/* chunks to read from members */
	km_mask_t decode;	/* chunks to rebuild with one decode */
};

static inline km_mask_t km_mask_all(int n)
{
	return n >= 64 ? ~(km_mask_t)0 : (((km_mask_t)1 << n) - 1);
}

int km_popcount(km_mask_t x);

/*
 * Fill read/decode for plan->need: chunks in need that are not uptodate
 * are read, unless one of them is failed; then every failed chunk not
 * uptodate is decoded, from the first k chunks that are not (the codec's
 * survivors), and of those the ones not uptodate are read.  If need holds
 * more surviving chunks than that, every surviving chunk is read.
 */
void km_plan_fetch(int k, int n, km_mask_t failed, km_mask_t uptodate,
		   struct km_plan *plan);

/*
 * Plan a write round.  @written: data chunks with new data; @full: data
 * chunks overwritten completely; @uptodate: chunks whose cached contents
 * are valid; @failed: chunks that cannot be read (at most m of them).
 */
void km_plan_write(int k, int m, km_mask_t written, km_mask_t full,
		   km_mask_t uptodate, km_mask_t failed, struct km_plan *plan);

/*
 * The k chunks a wide read or a window decode reads (codec chunk indices,
 * ascending use by the codec): none in @lost, those in @prefer first (the
 * data the caller delivers anyway, so no chunk is read twice), then the
 * others in chunk order, data before parity.  0 when fewer than k chunks
 * survive.
 */
km_mask_t km_plan_survivors(int k, int n, km_mask_t lost, km_mask_t prefer);

/*
 * What a recovery window reads and decodes.  @lost: chunks not readable
 * over the window; @rebuild: chunks to write (lost chunks of members
 * being rebuilt, chunks whose slot has a replacement being built).
 * *@want: the chunks of @rebuild that are lost, decoded in one job;
 * *@read: k survivors for that decode (the readable chunks of @rebuild
 * first, copied as they are read), or, when nothing of @rebuild is
 * lost, only its readable chunks.  -1 when fewer than k chunks survive.
 */
int km_plan_rebuild(int k, int n, km_mask_t lost, km_mask_t rebuild,
		    km_mask_t *read, km_mask_t *want);

/*
 * The erased mask of a DECODE job that computes @want (its wanted mask)
 * from the chunks in @read (at least k of them): every chunk but the
 * first k read ones, which are the survivors, so that every chunk outside
 * the mask is an input the job has (the ring describes each as one) and
 * the mask holds exactly m chunks.  0 when fewer than k chunks were read
 * or @want overlaps the survivors.
 */
km_mask_t km_plan_decode_mask(int k, int n, km_mask_t read, km_mask_t want);

/*
 * Rows of a sync window at member sector @start (row-aligned, else 0):
 * up to the end of @start's chunk stripe (chunk roles change there) and
 * @limit (the end of the sync, of the bitmap's sync blocks), at most
 * @max_rows.  chunk_sectors and row_sectors are powers of two.
 */
unsigned int km_plan_window_rows(km_sector_t start, km_sector_t limit,
				 unsigned int chunk_sectors,
				 unsigned int row_sectors,
				 unsigned int max_rows);

/*
 * Verified reads (read_verify.c): what a row range with @lost chunks
 * lost (of m parity) still allows, by Curry's rule: detecting a silent
 * error needs one redundant chunk left (m - e >= 1), locating and
 * correcting one needs two (m - e >= 2).
 */
enum km_verify_level {
	KM_VERIFY_NONE = 0,	/* no redundancy left: reads unverified */
	KM_VERIFY_DETECT,	/* a mismatch fails the read */
	KM_VERIFY_CORRECT,	/* a single bad chunk is located and fixed */
};

int km_plan_verify_level(int m, km_mask_t lost);

/*
 * The level a read gets with the array's mode @want (KM_VERIFY_NONE: off,
 * DETECT, CORRECT) and @lost chunks lost: the lower of the two.
 */
int km_plan_verify_effective(int want, int m, km_mask_t lost);

/*
 * The candidates for the bad chunk of a verified range that failed its
 * check with @lost chunks lost: every chunk read, when the level allows
 * correction; else 0.
 */
km_mask_t km_plan_verify_suspects(int n, int m, km_mask_t lost);

/*
 * The parity chunks (codec indices k + 2 .. k + m - 1) that a verified
 * read at @level of a range with nothing lost may leave unread: with the
 * k data chunks, P and Q (the first rows of every km code, so the (k, 2)
 * code checks them) it detects two bad chunks and locates one; a
 * mismatch is then read again whole.  0 unless @level is CORRECT, nothing
 * is lost and m >= 3 (detect mode reads every parity chunk: a mismatch
 * in any of them fails the read).
 */
km_mask_t km_plan_verify_skip(int k, int m, km_mask_t lost, int level);

#endif /* RKM_PLAN_H */
