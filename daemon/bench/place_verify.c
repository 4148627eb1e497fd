// SPDX-License-Identifier: GPL-2.0
/*
 * The kernel's checks of the daemon's results (kernel/raidkm/verify.c)
 * on rkm-place-bench's completion thread, before the outputs are copied
 * home, with the module's defaults unless told otherwise: every job a
 * spot window of 1/64 of each output (whole 64-byte units, at least one,
 * from a random unit, wrapping at the chunk's end); every byte of the
 * first verify_fresh_jobs jobs after the attach and of a verify_ppm
 * sample, 1 KiB per codec call.  Their time is in the daemon's sample,
 * as in the kernel.  A window is recomputed on the CPU codec from the
 * same window of the inputs (a delta's from the parity at home, not yet
 * overwritten) and compared with the daemon's bytes in staging.
 */
#include <stdlib.h>
#include <string.h>

#include "bench/place_bench.h"

#define PB_UNIT		64	/* RKM_LEN_ALIGN: the window's unit */
#define PB_SHARE	64	/* the spot window: 1/64 of the job */
#define PB_STEP		1024	/* bytes per codec call */

struct pb_verify {
	struct pb_verify_cfg cfg;
	uint64_t fresh_left;
	uint64_t seed;
	uint64_t n[PB_VERIFY_NSCOPES];
	uint64_t wrong;
	uint8_t scratch[RKM_MAX_M * PB_STEP];
};

struct pb_verify *pb_verify_create(const struct pb_verify_cfg *cfg)
{
	struct pb_verify *v = calloc(1, sizeof(*v));

	if (!v)
		return NULL;
	v->cfg = *cfg;
	v->fresh_left = cfg->fresh;
	v->seed = 0x5eed5eedull;
	return v;
}

void pb_verify_destroy(struct pb_verify *v)
{
	free(v);
}

uint64_t pb_verify_count(const struct pb_verify *v, int scope)
{
	return v->n[scope];
}

uint64_t pb_verify_wrong(const struct pb_verify *v)
{
	return v->wrong;
}

int pb_verify_fresh(const struct pb_verify *v)
{
	return v->fresh_left > 0;
}

static uint32_t pb_vdraw(struct pb_verify *v, uint32_t below)
{
	v->seed ^= v->seed << 13;
	v->seed ^= v->seed >> 7;
	v->seed ^= v->seed << 17;
	return (uint32_t)(v->seed % below);
}

static int pb_vscope(struct pb_verify *v)
{
	if (v->fresh_left) {
		v->fresh_left--;
		return PB_VERIFY_FULL;
	}
	if (v->cfg.ppm >= 1000000 ||
	    (v->cfg.ppm && pb_vdraw(v, 1000000) < v->cfg.ppm))
		return PB_VERIFY_FULL;
	return v->cfg.spot ? PB_VERIFY_SPOT : PB_VERIFY_NONE;
}

/* Recompute [off, off + n) of stripe @s's outputs; 1 when they differ */
static int pb_vwin(struct pb_verify *v, const struct pb_vjob *j,
		   const struct pb_vstripe *s, uint32_t off, uint32_t n)
{
	uint8_t *ptr[RKM_MAX_N], *out[RKM_MAX_M];
	const uint8_t *old[RKM_MAX_K], *got[RKM_MAX_M];
	int i, o = 0;

	for (i = 0; i < j->k + j->m; i++) {
		ptr[i] = s->chunk[i] ? s->chunk[i] + off : NULL;
		if (j->op == RAIDKM_OP_DECODE && !(j->mask >> i & 1))
			continue;
		if (j->op == RAIDKM_OP_DECODE && !(j->want >> i & 1)) {
			ptr[i] = NULL;
			continue;
		}
		if (j->op != RAIDKM_OP_DECODE && i < j->k)
			continue;
		out[o] = v->scratch + (size_t)o * n;
		got[o] = ptr[i];
		if (j->op == RAIDKM_OP_DELTA)
			memcpy(out[o], s->home_par[o] + off, n);
		ptr[i] = out[o++];
	}
	switch (j->op) {
	case RAIDKM_OP_ENCODE:
		rkm_encode(j->code, n, (const uint8_t *const *)ptr, ptr + j->k);
		break;
	case RAIDKM_OP_DECODE:
		rkm_decode_want(j->code, n, j->mask, j->want, ptr);
		break;
	case RAIDKM_OP_DELTA:
		for (i = 0; i < j->k; i++)
			old[i] = s->old[i] ? s->old[i] + off : NULL;
		rkm_delta(j->code, n, j->mask, old,
			  (const uint8_t *const *)ptr, ptr + j->k);
		break;
	}
	for (i = 0; i < o; i++)
		if (memcmp(out[i], got[i], n))
			return 1;
	return 0;
}

/* [off, off + n) of the chunk, wrapping at its end, a step at a time */
static int pb_vrange(struct pb_verify *v, const struct pb_vjob *j,
		     const struct pb_vstripe *s, uint32_t off, uint32_t n)
{
	uint32_t step;

	while (n) {
		off %= j->len;
		step = n < PB_STEP ? n : PB_STEP;
		if (step > j->len - off)
			step = j->len - off;
		if (pb_vwin(v, j, s, off, step))
			return 1;
		off += step;
		n -= step;
	}
	return 0;
}

int pb_verify_job(struct pb_verify *v, const struct pb_vjob *j)
{
	uint32_t st, units = j->len / PB_UNIT, w;
	int scope, bad = 0;

	w = units / PB_SHARE ? units / PB_SHARE * PB_UNIT : PB_UNIT;
	for (st = 0; st < j->nstripes; st++) {
		scope = pb_vscope(v);
		v->n[scope]++;
		if (scope == PB_VERIFY_FULL)
			bad |= pb_vrange(v, j, &j->st[st], 0, j->len);
		else if (scope == PB_VERIFY_SPOT)
			bad |= pb_vrange(v, j, &j->st[st],
					 pb_vdraw(v, units) * PB_UNIT, w);
	}
	v->wrong += bad;
	return bad;
}
