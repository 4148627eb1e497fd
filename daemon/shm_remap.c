// SPDX-License-Identifier: GPL-2.0
/*
 * Notes of the shared region's mappings for GPU worker processes
 * (rkmd_remap.h).  A note keeps the file's identity (device and inode) so
 * that a descriptor number reused by another file is never mapped in its
 * place.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>

#include "rkmd_remap.h"

#define REMAP_MAX	8

struct remap_note {
	char *addr;
	size_t len;
	int prot, flags, fd;
	off_t off;
	dev_t dev;
	ino_t ino;
};

static struct {
	pthread_mutex_t lock;
	int n;
	struct remap_note note[REMAP_MAX];
} notes = { .lock = PTHREAD_MUTEX_INITIALIZER };

void rkmd_remap_reset(void)
{
	pthread_mutex_lock(&notes.lock);
	notes.n = 0;
	pthread_mutex_unlock(&notes.lock);
}

void rkmd_remap_note(void *addr, size_t len, int prot, int flags, int fd,
		     off_t off)
{
	struct stat st;
	struct remap_note *r;

	if (fstat(fd, &st))
		return;
	pthread_mutex_lock(&notes.lock);
	if (notes.n < REMAP_MAX) {
		r = &notes.note[notes.n++];
		r->addr = addr;
		r->len = len;
		r->prot = prot;
		r->flags = (flags & ~MAP_POPULATE) | MAP_FIXED;
		r->fd = fd;
		r->off = off;
		r->dev = st.st_dev;
		r->ino = st.st_ino;
	}
	pthread_mutex_unlock(&notes.lock);
}

/* Does note r still name its file, and lie inside [lo, hi)? */
static int note_usable(const struct remap_note *r, uintptr_t lo,
		       uintptr_t hi)
{
	uintptr_t a = (uintptr_t)r->addr;
	struct stat st;

	if (a < lo || a + r->len > hi || a + r->len < a)
		return 0;
	return !fstat(r->fd, &st) && st.st_dev == r->dev &&
	       st.st_ino == r->ino;
}

int rkmd_remap_child(void *base, size_t len, char *why, size_t whylen)
{
	const uintptr_t lo = (uintptr_t)base, hi = lo + len;
	int i;

	/* a fork: no other thread of this process touches the notes */
	for (i = 0; i < notes.n; i++) {
		const struct remap_note *r = &notes.note[i];

		if (!note_usable(r, lo, hi))
			continue;
		if (mmap(r->addr, r->len, r->prot, r->flags, r->fd, r->off) ==
		    MAP_FAILED) {
			snprintf(why, whylen,
				 "mapping %zu bytes of the shared region again: %s",
				 r->len, strerror(errno));
			return -errno;
		}
	}
	return 0;
}
