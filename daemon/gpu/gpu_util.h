/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers shared by the GPU test and benchmark: an arena in a memfd
 * mapping (what the loopback and /dev/raidkm give the daemon), a chunk
 * allocator that scatters chunks over it, jobs that record their
 * completion, random data, clocks.
 */
#ifndef RKG_GPU_UTIL_H
#define RKG_GPU_UTIL_H

#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/mman.h>

extern "C" {
#include "rkmd_backend.h"
}

static inline double tu_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* xorshift64*: reproducible random data */
static inline uint64_t tu_rand(uint64_t *s)
{
	uint64_t x = *s;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	*s = x;
	return x * 2685821657736338717ull;
}

static inline void tu_fill(uint8_t *p, size_t n, uint64_t *s)
{
	size_t i;

	for (i = 0; i + 8 <= n; i += 8) {
		uint64_t r = tu_rand(s);

		memcpy(p + i, &r, 8);
	}
	for (; i < n; i++)
		p[i] = (uint8_t)tu_rand(s);
}

/* ---- the arena: a memfd mapping, chunks handed out scattered ---------- */

struct tu_arena {
	uint8_t *base;
	size_t size;
	size_t used;
};

static inline int tu_arena_init(struct tu_arena *a, size_t size)
{
	int fd = memfd_create("rkg-arena", 0);

	a->base = NULL;
	a->size = size;
	a->used = 0;
	if (fd < 0)
		return -errno;
	if (ftruncate(fd, size)) {
		close(fd);
		return -errno;
	}
	a->base = (uint8_t *)mmap(NULL, size, PROT_READ | PROT_WRITE,
				  MAP_SHARED | MAP_POPULATE, fd, 0);
	close(fd);
	if (a->base == MAP_FAILED) {
		a->base = NULL;
		return -errno;
	}
	return 0;
}

static inline void tu_arena_reset(struct tu_arena *a)
{
	a->used = 0;
}

/*
 * n chunks of len bytes each, in a random order over a fresh region, each
 * at an `align` boundary (4096 like pages, or 64 to test odd placements).
 * Returns 0 or -ENOSPC.
 */
static inline int tu_chunks(struct tu_arena *a, uint8_t **out, size_t n,
			    size_t len, size_t align, uint64_t *seed)
{
	size_t step = (len + align - 1) / align * align, i;
	size_t *perm;

	a->used = (a->used + 4095) & ~(size_t)4095;
	if (a->used + step * n > a->size)
		return -ENOSPC;
	perm = (size_t *)malloc(n * sizeof(*perm));
	if (!perm)
		return -ENOMEM;
	for (i = 0; i < n; i++)
		perm[i] = i;
	for (i = n; i > 1; i--) {
		size_t j = tu_rand(seed) % i, t = perm[i - 1];

		perm[i - 1] = perm[j];
		perm[j] = t;
	}
	for (i = 0; i < n; i++)
		out[i] = a->base + a->used + perm[i] * step;
	a->used += step * n;
	free(perm);
	return 0;
}

/* ---- jobs that remember their completion ------------------------------ */

struct tu_job {
	struct rkmd_job job;	/* first: the callback casts back */
	volatile int done;
	int status;
	double t_done;
};

struct tu_sink {
	pthread_mutex_t lock;
	pthread_cond_t cv;
	uint64_t completed;
	uint64_t calls_after_done;	/* done() twice for one job */
};

static inline void tu_sink_init(struct tu_sink *s)
{
	pthread_mutex_init(&s->lock, NULL);
	pthread_cond_init(&s->cv, NULL);
	s->completed = 0;
	s->calls_after_done = 0;
}

static void tu_complete(void *ctx, struct rkmd_job *job, int status)
{
	struct tu_sink *s = (struct tu_sink *)ctx;
	struct tu_job *t = (struct tu_job *)job;

	t->t_done = tu_now();
	pthread_mutex_lock(&s->lock);
	if (t->done)
		s->calls_after_done++;
	t->status = status;
	__atomic_store_n(&t->done, 1, __ATOMIC_RELEASE);
	s->completed++;
	pthread_cond_broadcast(&s->cv);
	pthread_mutex_unlock(&s->lock);
}

/* Wait for one job by spinning (latency measurements). */
static inline void tu_spin(struct tu_job *t)
{
	while (!__atomic_load_n(&t->done, __ATOMIC_ACQUIRE))
		;
}

/* Wait for one job without spinning. */
static inline void tu_wait_job(struct tu_sink *s, struct tu_job *t)
{
	pthread_mutex_lock(&s->lock);
	while (!t->done)
		pthread_cond_wait(&s->cv, &s->lock);
	pthread_mutex_unlock(&s->lock);
}

/* Wait until the sink saw `n` completions in total. */
static inline void tu_wait_count(struct tu_sink *s, uint64_t n)
{
	pthread_mutex_lock(&s->lock);
	while (s->completed < n)
		pthread_cond_wait(&s->cv, &s->lock);
	pthread_mutex_unlock(&s->lock);
}

#endif /* RKG_GPU_UTIL_H */
