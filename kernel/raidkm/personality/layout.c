// SPDX-License-Identifier: GPL-2.0
/*
 * km geometry math (freestanding; see layout.h and Documentation/layout.rst).
 */
#include "layout.h"

int km_geom_init(struct km_geom *g, int n, int m, unsigned int chunk_sectors)
{
	unsigned int shift = 0;

	if (m < 1 || n - m < 2 || chunk_sectors == 0 ||
	    (chunk_sectors & (chunk_sectors - 1)))
		return -1;
	while ((1u << shift) < chunk_sectors)
		shift++;
	g->n = n;
	g->m = m;
	g->k = n - m;
	g->chunk_sectors = chunk_sectors;
	g->chunk_shift = shift;
	g->rot = 0;
	return 0;
}

int km_geom_set_rotation(struct km_geom *g, int rot)
{
	if (rot != 0 && rot != 1)
		return -1;
	g->rot = rot;
	return 0;
}

/* First parity member of chunk stripe @stripe. */
static int km_parity0(const struct km_geom *g, km_sector_t stripe)
{
	return g->n - 1 - (int)(stripe % (km_sector_t)g->n);
}

int km_chunk_member(const struct km_geom *g, km_sector_t stripe, int chunk)
{
	int p = km_parity0(g, stripe);

	if (g->rot == 1) {
		/* raid6: parity from p rightwards, then the data */
		if (chunk < g->k)
			return (p + g->m + chunk) % g->n;
		return (p + chunk - g->k) % g->n;
	}
	if (chunk < g->k)
		return (p + 1 + chunk) % g->n;
	return (p - (chunk - g->k) + g->n) % g->n;
}

int km_member_chunk(const struct km_geom *g, km_sector_t stripe, int member)
{
	int p = km_parity0(g, stripe);
	int rel;

	if (g->rot == 1) {
		rel = (member - p + g->n) % g->n;
		return rel < g->m ? g->k + rel : rel - g->m;
	}
	rel = (member - p - 1 + 2 * g->n) % g->n;
	if (rel < g->k)
		return rel;
	/* rel = n - 1 - i for parity chunk i */
	return g->k + (g->n - 1 - rel);
}

void km_map(const struct km_geom *g, km_sector_t sector, struct km_loc *loc)
{
	km_sector_t chunk = sector >> g->chunk_shift;
	km_sector_t off = sector & (g->chunk_sectors - 1);

	loc->stripe = chunk / (km_sector_t)g->k;
	loc->data = (int)(chunk % (km_sector_t)g->k);
	loc->member = km_chunk_member(g, loc->stripe, loc->data);
	loc->msector = (loc->stripe << g->chunk_shift) + off;
}

km_sector_t km_unmap(const struct km_geom *g, km_sector_t stripe, int data,
		     km_sector_t offset)
{
	return ((stripe * (km_sector_t)g->k + (km_sector_t)data)
		<< g->chunk_shift) + offset;
}

km_sector_t km_array_sectors(const struct km_geom *g, km_sector_t member_sectors)
{
	km_sector_t usable = member_sectors & ~(km_sector_t)(g->chunk_sectors - 1);

	return usable * (km_sector_t)g->k;
}

void km_stripe_span(const struct km_geom *g, km_sector_t start,
		    km_sector_t end, unsigned int row_sectors,
		    struct km_span *s)
{
	km_sector_t cs = g->chunk_sectors, rmask = row_sectors - 1;
	km_sector_t base, a, b;

	s->stripe = (start >> g->chunk_shift) / (km_sector_t)g->k;
	base = km_unmap(g, s->stripe, 0, 0);
	s->end = base + cs * (km_sector_t)g->k;
	if (end < s->end)
		s->end = end;
	a = start - base;
	b = s->end - base;
	s->dlo = (int)(a >> g->chunk_shift);
	s->dhi = (int)((b - 1) >> g->chunk_shift);
	a &= cs - 1;
	b = ((b - 1) & (cs - 1)) + 1;
	s->sparse = 0;
	if (s->dlo == s->dhi) {
		s->lo = a;
		s->hi = b;
	} else {
		/* chunks in between are whole; two chunks meet at the edge */
		s->lo = 0;
		s->hi = cs;
		if (s->dhi == s->dlo + 1 &&
		    (a & ~rmask) >= ((b + rmask) & ~rmask))
			s->sparse = 1;
	}
	s->lo &= ~rmask;
	s->hi = (s->hi + rmask) & ~rmask;
}
