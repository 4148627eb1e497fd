/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The shared region's mappings, noted when a transport makes them
 * (shm_map.c), so that a GPU worker process (daemon/gpu/gpu_spawn.c), a
 * fork of raidkmd, can make them again at the same addresses with the
 * same protections: /dev/raidkm's mappings are VM_DONTCOPY, a child has a
 * hole where the parent has the arena.  Mappings that fork copies (the
 * loopback's memfd, the bridge's guest RAM) need no note; mapping a noted
 * range again over a copied one changes nothing.
 */
#ifndef RKMD_REMAP_H
#define RKMD_REMAP_H

#include <stddef.h>
#include <sys/types.h>

/* Forget every note: a new region is about to be mapped. */
void rkmd_remap_reset(void);
/* Note one mapping made by mmap(addr, len, prot, flags, fd, off). */
void rkmd_remap_note(void *addr, size_t len, int prot, int flags, int fd,
		     off_t off);
/*
 * In a forked child, before anything else maps memory: map every noted
 * range that lies in [base, base + len) again (MAP_FIXED, from the same
 * file, which must still be the one noted).  0, or -errno with why.
 */
int rkmd_remap_child(void *base, size_t len, char *why, size_t whylen);

#endif /* RKMD_REMAP_H */
