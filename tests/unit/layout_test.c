// SPDX-License-Identifier: GPL-2.0
/*
 * covers: km: layout; km: stripe spans of wide reads
 *
 * Unit test of the km geometry (kernel/raidkm/personality/layout.c),
 * built from the same source as the module (plan.c: plan_test.c).
 *
 *   bijection   every array sector maps to a distinct (member, sector),
 *               data never lands on a parity position, and unmap inverts
 *               map, exhaustively over n * 4 chunk stripes
 *   parity      over any n consecutive stripes every member holds exactly
 *               m parity chunks and k data chunks
 *   chunkmap    km_member_chunk inverts km_chunk_member
 *   (the three above for rotation 0, km's, and rotation 1, raid6's)
 *   raid6       rotation 1 with m = 2 places P, Q and the data where md
 *               raid6's left-symmetric layout does (raid5.c's rule,
 *               restated here independently)
 *   span        the rows of one chunk stripe that a read covers
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "personality/layout.h"

#include "unit_report.h"

/* parity rotation the bijection and parity checks run with */
static int rot;

/* Is (n, m, chunk) mapped one-to-one over @stripes chunk stripes? */
static const char *check_bijection(int n, int m, unsigned int cs, int stripes)
{
	struct km_geom g;
	km_sector_t total, s, span;
	unsigned char *seen;
	struct km_loc loc;

	if (km_geom_init(&g, n, m, cs) || km_geom_set_rotation(&g, rot))
		return "geom_init refused a valid geometry";
	span = (km_sector_t)stripes * cs;	/* member sectors covered */
	total = (km_sector_t)stripes * cs * g.k;	/* array sectors */
	if (km_array_sectors(&g, span) != total)
		return "km_array_sectors is not k * member size";
	seen = calloc((size_t)(span * n), 1);
	if (!seen)
		return "out of memory";
	for (s = 0; s < total; s++) {
		int chunk;

		km_map(&g, s, &loc);
		if (loc.member < 0 || loc.member >= n || loc.msector >= span) {
			snprintf(msg, sizeof(msg), "n=%d m=%d cs=%u: sector %llu out of range",
				 n, m, cs, (unsigned long long)s);
			free(seen);
			return msg;
		}
		if (seen[loc.msector * n + loc.member]++) {
			snprintf(msg, sizeof(msg), "n=%d m=%d cs=%u: sector %llu collides",
				 n, m, cs, (unsigned long long)s);
			free(seen);
			return msg;
		}
		chunk = km_member_chunk(&g, loc.stripe, loc.member);
		if (chunk != loc.data) {
			snprintf(msg, sizeof(msg), "n=%d m=%d cs=%u: sector %llu on chunk %d, expected data %d",
				 n, m, cs, (unsigned long long)s, chunk, loc.data);
			free(seen);
			return msg;
		}
		if (km_unmap(&g, loc.stripe, loc.data, loc.msector & (cs - 1)) != s) {
			free(seen);
			return "unmap does not invert map";
		}
	}
	free(seen);
	return NULL;
}

static const char *check_parity(int n, int m)
{
	struct km_geom g;
	int load[64], dload[64], start, s, i;

	km_geom_init(&g, n, m, 8);
	km_geom_set_rotation(&g, rot);
	for (start = 0; start < 3 * n; start += n - 1) {
		memset(load, 0, sizeof(load));
		memset(dload, 0, sizeof(dload));
		for (s = start; s < start + n; s++) {
			unsigned long long used = 0;

			for (i = 0; i < n; i++) {
				int mem = km_chunk_member(&g, s, i);

				if (mem < 0 || mem >= n || (used >> mem & 1))
					return "chunks of a stripe share a member";
				used |= 1ull << mem;
				if (km_member_chunk(&g, s, mem) != i)
					return "member_chunk does not invert chunk_member";
				if (i >= g.k)
					load[mem]++;
				else
					dload[mem]++;
			}
		}
		for (i = 0; i < n; i++)
			if (load[i] != m || dload[i] != g.k) {
				snprintf(msg, sizeof(msg), "n=%d m=%d: member %d holds %d parity, %d data chunks over %d stripes",
					 n, m, i, load[i], dload[i], n);
				return msg;
			}
	}
	return NULL;
}

/*
 * md raid6, left-symmetric: in chunk stripe s of n members, P is on
 * member n - 1 - (s mod n), Q on the next member (wrapping), and data
 * chunk d on the member d + 2 after P; Q's coefficient for data chunk d
 * is g^d, as the codec's parity row 1 (so only placement is checked).
 */
static const char *check_raid6(int n)
{
	struct km_geom g;
	int s, d, pd;

	if (km_geom_init(&g, n, 2, 8) || km_geom_set_rotation(&g, 1))
		return "rotation 1 refused";
	for (s = 0; s < 3 * n; s++) {
		pd = n - 1 - s % n;
		if (km_chunk_member(&g, s, g.k) != pd ||
		    km_chunk_member(&g, s, g.k + 1) != (pd + 1) % n) {
			snprintf(msg, sizeof(msg), "n=%d stripe %d: P/Q on %d/%d, raid6 has %d/%d",
				 n, s, km_chunk_member(&g, s, g.k),
				 km_chunk_member(&g, s, g.k + 1), pd, (pd + 1) % n);
			return msg;
		}
		for (d = 0; d < g.k; d++)
			if (km_chunk_member(&g, s, d) != (pd + 2 + d) % n) {
				snprintf(msg, sizeof(msg), "n=%d stripe %d: data %d on %d, raid6 has %d",
					 n, s, d, km_chunk_member(&g, s, d),
					 (pd + 2 + d) % n);
				return msg;
			}
	}
	return NULL;
}

/* Spans of one chunk stripe: the in-chunk rows a wide read covers. */
static const char *check_span(void)
{
	struct km_geom g;
	struct km_span s;

	/* 4+2, 64 KiB chunks (128 sectors), rows of 8 sectors */
	km_geom_init(&g, 6, 2, 128);
	/* inside one chunk: its own rows, rounded out */
	km_stripe_span(&g, 128 + 10, 128 + 30, 8, &s);
	if (s.stripe != 0 || s.dlo != 1 || s.dhi != 1 || s.lo != 8 ||
	    s.hi != 32 || s.sparse || s.end != 128 + 30)
		return "part of one chunk";
	/* the whole stripe and beyond: ends at the stripe */
	km_stripe_span(&g, 0, 2048, 8, &s);
	if (s.dlo != 0 || s.dhi != 3 || s.lo != 0 || s.hi != 128 ||
	    s.end != 512 || s.sparse)
		return "a whole stripe";
	/* the end of chunk 0 and the start of chunk 1: sparse */
	km_stripe_span(&g, 100, 140, 8, &s);
	if (!s.sparse || s.dlo != 0 || s.dhi != 1)
		return "two chunks meeting at the edge are sparse";
	/* two chunks whose rows overlap: all rows, not sparse */
	km_stripe_span(&g, 60, 128 + 70, 8, &s);
	if (s.sparse || s.lo != 0 || s.hi != 128)
		return "two chunks sharing rows";
	/* three chunks: the middle one is whole */
	km_stripe_span(&g, 120, 256 + 8, 8, &s);
	if (s.sparse || s.lo != 0 || s.hi != 128 || s.dlo != 0 ||
	    s.dhi != 2)
		return "three chunks";
	/* second stripe, starting inside it */
	km_stripe_span(&g, 512 + 200, 512 + 210, 8, &s);
	if (s.stripe != 1 || s.dlo != 1 || s.lo != 72 || s.hi != 88)
		return "second stripe";
	return NULL;
}

int main(void)
{
	static const struct { int n, m; } geo[] = {
		{3, 1}, {6, 2}, {9, 3}, {12, 4}, {11, 8}, {16, 4}, {5, 3},
		{18, 16}, {64, 16}, {64, 1}, {4, 2},
	};
	static const unsigned int chunks[] = { 8, 16, 128, 1024 };
	const char *why = NULL;
	unsigned int g, c;

	for (rot = 0; rot <= 1; rot++) {
		const char *name = rot ? "layout_bijection_raid6_rotation" :
					 "layout_bijection";
		const char *pname = rot ? "layout_parity_even_raid6_rotation" :
					  "layout_parity_even";

		why = NULL;
		for (g = 0; g < sizeof(geo) / sizeof(geo[0]) && !why; g++)
			for (c = 0; c < sizeof(chunks) / sizeof(chunks[0]) && !why; c++)
				why = check_bijection(geo[g].n, geo[g].m,
						      chunks[c], geo[g].n * 4);
		report(name, why);

		why = NULL;
		for (g = 3; g <= 64 && !why; g++) {
			unsigned int m;

			for (m = 1; m <= 16 && (int)g - (int)m >= 2 && !why; m++)
				why = check_parity(g, m);
		}
		report(pname, why);
	}

	why = NULL;
	for (g = 4; g <= 64 && !why; g++)
		why = check_raid6(g);
	report("layout_raid6_left_symmetric", why);

	{
		struct km_geom geom;

		why = NULL;
		if (!km_geom_init(&geom, 3, 2, 8))
			why = "accepted k=1";
		else if (!km_geom_init(&geom, 6, 2, 12))
			why = "accepted a chunk that is not a power of two";
		else if (!km_geom_init(&geom, 6, 0, 8))
			why = "accepted m=0";
		else if (km_geom_init(&geom, 6, 2, 8) ||
			 !km_geom_set_rotation(&geom, 2))
			why = "accepted rotation 2";
		report("layout_geometry_checks", why);
	}
	report("layout_span", check_span());
	return failures ? 1 : 0;
}
