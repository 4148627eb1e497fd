// SPDX-License-Identifier: GPL-2.0
/*
 * What rkm-place-bench prints: per round and mode, each class's share of
 * the throughput (its place bytes over the round's time, so the classes
 * add up to the total), its caller-observed latency (p50, p99) and the
 * jobs each side coded; then per mode and class the median and range
 * over the rounds, and the ratios the issue asks for, per round and
 * their median:
 *
 *   auto throughput / max(cpu, daemon)
 *   auto p99 / cpu p99 of the waited 4 KiB updates (class 0)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/place_bench.h"

const char *const pb_mode_names[3] = { "cpu", "daemon", "auto" };

static const char *const pb_why_names[RKM_PLACE_NWHY] = {
	"forced", "cost", "unmeasured", "explore", "stale",
};

void pb_lat_add(struct pb_lat *l, uint64_t ns)
{
	uint64_t v = ns / 100;

	if (l->n == l->cap) {
		uint64_t cap = l->cap ? l->cap * 2 : 1024;
		uint32_t *p = realloc(l->us10, cap * sizeof(*p));

		if (!p)
			return;
		l->us10 = p;
		l->cap = cap;
	}
	l->us10[l->n++] = v > UINT32_MAX ? UINT32_MAX : (uint32_t)v;
}

void pb_run_reset(struct pb_run *r)
{
	int c;

	for (c = 0; c < PB_NCLASSES; c++)
		free(r->lat[c].us10);
	memset(r, 0, sizeof(*r));
}

void pb_run_merge_lat(struct pb_run *r, int cls, const struct pb_lat *l)
{
	uint64_t i;

	for (i = 0; i < l->n; i++)
		pb_lat_add(&r->lat[cls], (uint64_t)l->us10[i] * 100);
}

static int pb_cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

static int pb_cmp_dbl(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* The @pct percentile of sorted @l, in microseconds */
static double pb_pct(const struct pb_lat *l, int pct)
{
	uint64_t i;

	if (!l->n)
		return 0;
	i = (l->n * pct + 99) / 100;
	return l->us10[i ? i - 1 : 0] / 10.0;
}

void pb_run_summarize(struct pb_run *r)
{
	uint64_t all = 0;
	int c;

	for (c = 0; c < PB_NCLASSES; c++) {
		qsort(r->lat[c].us10, r->lat[c].n, sizeof(uint32_t),
		      pb_cmp_u32);
		r->p50[c] = pb_pct(&r->lat[c], 50);
		r->p99[c] = pb_pct(&r->lat[c], 99);
		r->gbs[c] = r->secs > 0 ? r->bytes[c] / r->secs / 1e9 : 0;
		all += r->bytes[c];
	}
	r->gbs[PB_NCLASSES] = r->secs > 0 ? all / r->secs / 1e9 : 0;
}

static void pb_print_why(const struct pb_run *r)
{
	int side, why;

	printf("  decisions:");
	for (side = 0; side < RKM_PLACE_NSIDES; side++)
		for (why = 0; why < RKM_PLACE_NWHY; why++)
			if (r->why[side][why])
				printf(" %s/%s %llu",
				       side == RKM_PLACE_TO_CPU ? "cpu" : "daemon",
				       pb_why_names[why],
				       (unsigned long long)r->why[side][why]);
	printf("\n");
}

void pb_run_print(const struct pb_run *r, int round, const char *mode)
{
	int c;

	printf("round %d %-6s %7.3f s %8.3f GB/s\n", round, mode, r->secs,
	       r->gbs[PB_NCLASSES]);
	printf("  %-20s %8s %8s %8s %9s %9s\n", "class", "cpu", "daemon",
	       "GB/s", "p50 us", "p99 us");
	for (c = 0; c < PB_NCLASSES; c++)
		printf("  %-20s %8llu %8llu %8.3f %9.1f %9.1f\n",
		       pb_classes[c].name,
		       (unsigned long long)r->jobs[RKM_PLACE_TO_CPU][c],
		       (unsigned long long)r->jobs[RKM_PLACE_TO_DAEMON][c],
		       r->gbs[c], r->p50[c], r->p99[c]);
	pb_print_why(r);
}

/* "median [min..max]" of @v[0..n-1] (sorted in place) */
static void pb_print_range(const char *what, double *v, int n,
			   const char *fmt)
{
	qsort(v, n, sizeof(*v), pb_cmp_dbl);
	printf(" %s ", what);
	printf(fmt, v[n / 2]);
	printf(" [");
	printf(fmt, v[0]);
	printf("..");
	printf(fmt, v[n - 1]);
	printf("]");
}

static void pb_print_class(const struct pb_run *runs, int nrounds, int m,
			   int c)
{
	double g[nrounds], p50[nrounds], p99[nrounds];
	int i;

	for (i = 0; i < nrounds; i++) {
		g[i] = runs[i * 3 + m].gbs[c];
		if (c < PB_NCLASSES) {
			p50[i] = runs[i * 3 + m].p50[c];
			p99[i] = runs[i * 3 + m].p99[c];
		}
	}
	printf("MEDIAN %-6s %-20s", pb_mode_names[m],
	       c < PB_NCLASSES ? pb_classes[c].name : "all");
	pb_print_range("GB/s", g, nrounds, "%.3f");
	if (c < PB_NCLASSES) {
		pb_print_range("p50 us", p50, nrounds, "%.1f");
		pb_print_range("p99 us", p99, nrounds, "%.1f");
	}
	printf("\n");
}

void pb_print_summary(const struct pb_run *runs, int nrounds)
{
	double thr[nrounds], p99[nrounds], best;
	int m, c, i;

	printf("\n== median [min..max] over %d rounds\n", nrounds);
	for (m = 0; m < 3; m++)
		for (c = 0; c <= PB_NCLASSES; c++)
			pb_print_class(runs, nrounds, m, c);
	for (i = 0; i < nrounds; i++) {
		const struct pb_run *cpu = &runs[i * 3], *dmn = cpu + 1;
		const struct pb_run *aut = cpu + 2;

		best = cpu->gbs[PB_NCLASSES];
		if (dmn->gbs[PB_NCLASSES] > best)
			best = dmn->gbs[PB_NCLASSES];
		thr[i] = best > 0 ? aut->gbs[PB_NCLASSES] / best : 0;
		p99[i] = cpu->p99[0] > 0 ? aut->p99[0] / cpu->p99[0] : 0;
	}
	printf("RATIO");
	pb_print_range("auto/max(cpu,daemon) throughput", thr, nrounds,
		       "%.3f");
	printf(" ;");
	pb_print_range("auto/cpu p99 of waited", p99, nrounds, "%.3f");
	printf(" (%s)\n", pb_classes[0].name);
	printf("# targets (issue #30, on the GPU host): throughput ratio >= 1.0, p99 ratio <= 1.2\n");
}
