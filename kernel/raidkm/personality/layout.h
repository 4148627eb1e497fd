/* SPDX-License-Identifier: GPL-2.0 */
/*
 * km geometry: where each data and parity chunk of the array lives.
 *
 * Freestanding C (no kernel headers): compiled into raidkm.ko and into the
 * user-space unit test tests/unit/layout_test.c.  All sectors are 512 bytes.
 *
 * An array of n = k + m members is cut into chunk stripes of
 * chunk_sectors per member.  Chunk stripe s holds k data chunks and m
 * parity chunks.  With p = n - 1 - (s mod n), parity chunk i (0..m-1)
 * lives on member (p - i) mod n and data chunk d (0..k-1) on member
 * (p + 1 + d) mod n, so parity walks one member to the left per stripe
 * and data follows it (see Documentation/layout.rst).
 *
 * That is rotation 0.  Rotation 1 (md raid6's left-symmetric placement,
 * for arrays taken over from raid6) puts parity chunk i on member
 * (p + i) mod n and data chunk d on member (p + m + d) mod n: with m = 2,
 * P on p, Q on p + 1 and the data from p + 2, as raid6 does.
 *
 * The codec numbers the chunks of a stripe 0..k-1 (data) and k..n-1
 * (parity); km_member_chunk() gives that number for a member.
 */
#ifndef RKM_LAYOUT_H
#define RKM_LAYOUT_H

#ifdef __KERNEL__
#include <linux/types.h>
typedef u64 km_sector_t;
#else
#include <stdint.h>
typedef uint64_t km_sector_t;
#endif

struct km_geom {
	int k;			/* data chunks per stripe */
	int m;			/* parity chunks per stripe */
	int n;			/* members: k + m */
	unsigned int chunk_shift;	/* log2(chunk_sectors) */
	unsigned int chunk_sectors;	/* a power of two */
	int rot;		/* parity rotation: 0 (km) or 1 (raid6's) */
};

/* Where one array sector lives. */
struct km_loc {
	km_sector_t stripe;	/* chunk stripe number */
	int data;		/* data chunk index 0..k-1 */
	int member;		/* member (raid_disk) holding it */
	km_sector_t msector;	/* sector on that member (from data_offset) */
};

/* Fill @g (rotation 0); returns 0, or -1 when the geometry is not usable. */
int km_geom_init(struct km_geom *g, int n, int m, unsigned int chunk_sectors);

/* Set @g's parity rotation; returns 0, or -1 for an unknown rotation. */
int km_geom_set_rotation(struct km_geom *g, int rot);

/* Array sector -> member location. */
void km_map(const struct km_geom *g, km_sector_t sector, struct km_loc *loc);

/* (chunk stripe, data index, offset in chunk) -> array sector. */
km_sector_t km_unmap(const struct km_geom *g, km_sector_t stripe, int data,
		     km_sector_t offset);

/* Member holding codec chunk @chunk (0..n-1) of chunk stripe @stripe. */
int km_chunk_member(const struct km_geom *g, km_sector_t stripe, int chunk);

/* Codec chunk index (0..n-1) that @member holds in chunk stripe @stripe. */
int km_member_chunk(const struct km_geom *g, km_sector_t stripe, int member);

/*
 * The part of array sectors [start, end) that lies in start's chunk
 * stripe.  Every touched data chunk's part lies within in-chunk sectors
 * [lo, hi), rounded out to multiples of the row size.  sparse: the part
 * touches exactly two chunks whose parts share no in-chunk row (the end
 * of one chunk and the start of the next), so [lo, hi) is mostly rows
 * that nobody asked for.
 */
struct km_span {
	km_sector_t stripe;	/* chunk stripe */
	km_sector_t end;	/* array sector where the part ends */
	int dlo, dhi;		/* first and last data chunk touched */
	km_sector_t lo, hi;	/* in-chunk sectors, row-aligned */
	int sparse;
};

/* @row_sectors: a power of two, at most chunk_sectors. */
void km_stripe_span(const struct km_geom *g, km_sector_t start,
		    km_sector_t end, unsigned int row_sectors,
		    struct km_span *s);

/* Array size in sectors for members of @member_sectors usable sectors. */
km_sector_t km_array_sectors(const struct km_geom *g, km_sector_t member_sectors);

#endif /* RKM_LAYOUT_H */
