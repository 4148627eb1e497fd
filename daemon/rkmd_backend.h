/* SPDX-License-Identifier: GPL-2.0 */
/*
 * raidkmd backend interface: what a coding backend (CPU, CUDA) offers the
 * daemon core.  The core validates ring entries and turns them into
 * struct rkmd_job with host pointers into the shared arena; a backend never
 * sees ring entries or arena offsets.
 */
#ifndef RKMD_BACKEND_H
#define RKMD_BACKEND_H

#include <stddef.h>
#include <stdint.h>

enum rkmd_op {
	RKMD_OP_ENCODE = 1,	/* chunk[0..k-1] -> chunk[k..k+m-1] */
	RKMD_OP_DECODE,		/* rebuild the chunks set in want */
	RKMD_OP_DELTA,		/* parity ^= f(old[i] ^ chunk[i]), i in mask */
	RKMD_OP_CHECK,		/* result[s]: 0 consistent, 1 mismatch */
};

/*
 * One job: nstripes stripes of the same (k, m, len, op, mask, want).
 * Stripe s uses chunk[s * (k + m) + i] (data then parity) and, for DELTA,
 * old[s * k + i].  All pointers lie inside the arena given to ->open.
 *
 * DECODE: mask is the erased chunks, want (a non-empty subset of mask)
 * the ones to write; the chunks not in mask are the survivors (the first
 * k are read).  chunk[] of a chunk in mask but not in want is NULL.  A
 * backend sees want != mask only when its ops set decode_want; the core
 * asks the kernel end for RAIDKM_FEAT_DECODE_WANT only then, so a backend
 * that ignores want (and rebuilds every chunk in mask) stays correct.
 */
struct rkmd_job {
	uint64_t tag;		/* the core's; backends pass it through */
	uint8_t op, k, m;
	uint32_t len;		/* bytes per chunk, multiple of 64 */
	uint32_t nstripes;
	uint64_t mask;
	uint64_t want;		/* DECODE: the chunks written (see above) */
	uint8_t **chunk;
	uint8_t **old;
	int32_t *result;	/* CHECK: one per stripe */
};

struct rkmd_backend;

/* Called by a backend when a job is done: status 0 or -errno. */
typedef void (*rkmd_complete_fn)(void *ctx, struct rkmd_job *job, int status);

struct rkmd_backend_ops {
	const char *name;		/* "cpu", "cuda" */
	/* Can this backend run here?  0, or -errno with a reason in why. */
	int (*probe)(char *why, size_t whylen);
	/*
	 * Start: the arena [base, base + len) stays mapped until ->close.
	 * Its first ro_len bytes hold job inputs only and are mapped
	 * read-only (RAIDKM_FEAT_RO_INPUT): a backend must not ask for write
	 * access there (the CUDA backend registers them read-only); outputs
	 * lie after them.  nthreads is a hint (-1: the backend's default, 0: code on the
	 * submitting thread where the backend can).  Returns a backend or
	 * NULL (reason in why).
	 */
	struct rkmd_backend *(*open)(void *base, size_t len, size_t ro_len,
				     int nthreads, rkmd_complete_fn done,
				     void *ctx, char *why, size_t whylen);
	/* Queue a job; done() is called once for it, from any thread. */
	int (*submit)(struct rkmd_backend *b, struct rkmd_job *job);
	/* Wait until every submitted job has completed. */
	void (*drain)(struct rkmd_backend *b);
	void (*close)(struct rkmd_backend *b);
	/*
	 * DECODE honours job->want (writes only those chunks).  Last, so
	 * that tables initialised in order leave it 0: not honoured.
	 */
	int decode_want;
};

extern const struct rkmd_backend_ops rkmd_cpu_backend;
extern const struct rkmd_backend_ops rkmd_cuda_backend;

#endif /* RKMD_BACKEND_H */
