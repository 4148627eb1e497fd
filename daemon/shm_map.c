// SPDX-License-Identifier: GPL-2.0
/*
 * Mapping the kernel end's shared region with the protections the uapi
 * asks for: with RAIDKM_FEAT_RO_INPUT the control region and staging
 * read-write and the input part of the arena read-only, as three
 * mappings placed (MAP_FIXED) into one reserved range so that every
 * offset in the header is still an offset from one base.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>

#include "ring/rkm_ring.h"
#include "rkmd.h"
#include "rkmd_remap.h"

void *rkmd_map_shm(int fd, const struct raidkm_shm_hdr *h, int flags,
		   char *why, size_t whylen)
{
	struct { __u64 off, len; int prot; } part[3];
	size_t len = h->map_size;
	int i, n = 0;
	char *base;
	void *p;

	/* GPU workers map it again from these notes (rkmd_remap.h) */
	rkmd_remap_reset();
	if (!(h->features & RAIDKM_FEAT_RO_INPUT)) {
		p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED | flags,
			 fd, 0);
		if (p == MAP_FAILED) {
			snprintf(why, whylen, "mmap (%zu bytes): %s", len,
				 strerror(errno));
			return NULL;
		}
		rkmd_remap_note(p, len, PROT_READ | PROT_WRITE,
				MAP_SHARED | flags, fd, 0);
		return p;
	}
	part[n].off = 0;
	part[n].len = h->arena_off;
	part[n++].prot = PROT_READ | PROT_WRITE;
	part[n].off = h->arena_off;
	part[n].len = h->stage_off - h->arena_off;
	part[n++].prot = PROT_READ;
	part[n].off = h->stage_off;
	part[n].len = h->stage_size;
	part[n++].prot = PROT_READ | PROT_WRITE;

	base = mmap(NULL, len, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS |
		    MAP_NORESERVE, -1, 0);
	if (base == MAP_FAILED) {
		snprintf(why, whylen, "reserving %zu bytes: %s", len,
			 strerror(errno));
		return NULL;
	}
	for (i = 0; i < n; i++) {
		p = mmap(base + part[i].off, part[i].len, part[i].prot,
			 MAP_SHARED | MAP_FIXED | flags, fd, part[i].off);
		if (p == MAP_FAILED) {
			snprintf(why, whylen, "mmap of the %s (%llu bytes at %llu): %s",
				 i == 0 ? "control region" : i == 1 ?
				 "input arena, read-only" : "staging region",
				 (unsigned long long)part[i].len,
				 (unsigned long long)part[i].off,
				 strerror(errno));
			munmap(base, len);
			rkmd_remap_reset();
			return NULL;
		}
		rkmd_remap_note(p, part[i].len, part[i].prot,
				MAP_SHARED | flags, fd, part[i].off);
	}
	return base;
}
