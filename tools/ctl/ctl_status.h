/* SPDX-License-Identifier: GPL-2.0 */
/*
 * raidkmctl's view of one GET_STATS reply and of raidkmd's GPU status
 * file (ctl_gpus.h), and how it is printed: text for people, JSON for
 * monitoring systems (ctl_print.c, no netlink, so that the unit test
 * prints made-up replies).
 */
#ifndef RKMCTL_STATUS_H
#define RKMCTL_STATUS_H

#include <stdint.h>
#include <stdio.h>
#include "uapi/raidkm.h"
#include "ctl_gpus.h"
#include "ctl_km.h"

#define RKMCTL_MAX_ARRAYS	256
#define RKMCTL_NAME_MAX		32
#define RKMCTL_WHY_MAX		128

struct rkmctl_counters {
	uint8_t have[RAIDKM_STAT_MAX + 1];
	uint64_t v[RAIDKM_STAT_MAX + 1];
};

struct rkmctl_detach {
	uint64_t ago_s;
	uint32_t pid;
	char backend[RKMCTL_NAME_MAX];
	char why[RKMCTL_WHY_MAX];
	uint32_t reruns;
	int fenced;
};

/* one op and size class of GET_STATS' placement (uapi: RAIDKM_A_PLACE) */
struct rkmctl_place {
	uint8_t op, cls;
	uint64_t cpu_jobs, cpu_bytes, daemon_jobs, daemon_bytes;
	uint32_t cpu_ps, daemon_ns, daemon_ps;	/* estimates, 0: none */
	uint32_t daemon_qps;	/* ps a byte queued ahead adds (0: none) */
};

#define RKMCTL_MAX_PLACE	(RAIDKM_PLACE_OPS * RAIDKM_PLACE_CLASSES)

struct rkmctl_status {
	int attached;
	uint32_t pid;
	char backend[RKMCTL_NAME_MAX];
	struct rkmctl_counters global;
	int narrays;
	struct {
		char name[RKMCTL_NAME_MAX];
		struct rkmctl_counters c;
		struct rkmctl_km km;	/* data path, from sysfs */
	} array[RKMCTL_MAX_ARRAYS];
	int have_latency;
	uint64_t latency[RAIDKM_LAT_BUCKETS];
	int ndetach;
	struct rkmctl_detach detach[RAIDKM_DETACH_LOG];
	struct rkmctl_gpus gpus;	/* the daemon's GPUs, if any */
	char placement[16];		/* "" when the module did not say */
	int has_cpu_busy;		/* the module sent cpu_busy */
	unsigned int cpu_busy;		/* the CPUs' busy share lately, % */
	int nplace;
	struct rkmctl_place place[RKMCTL_MAX_PLACE];
};

/*
 * The @pct-th percentile (0 < pct <= 100) of a latency histogram, as the
 * upper bound in microseconds of the bucket that holds it (2^(b + 1));
 * UINT64_MAX in the open-ended last bucket, 0 for an empty histogram.
 */
uint64_t rkmctl_latency_pct(const uint64_t *hist, double pct);
void rkmctl_print_text(FILE *f, const struct rkmctl_status *s);
/* the GPU lines of the text alone (a host without the module) */
void rkmctl_print_gpus(FILE *f, const struct rkmctl_gpus *g);
void rkmctl_print_json(FILE *f, const struct rkmctl_status *s);

#endif /* RKMCTL_STATUS_H */
