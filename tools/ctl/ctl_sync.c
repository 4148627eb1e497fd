// SPDX-License-Identifier: GPL-2.0
/*
 * raidkmctl: a km array's sync-window counters from sysfs
 * (Documentation/personality.rst, "Sync windows"), printed under the
 * array's offload counters.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "ctl_sync.h"

/* The value of @dir/@name, one number; -1 when it cannot be read. */
static int read_u64(const char *dir, const char *name, uint64_t *v)
{
	char path[512];
	FILE *f;
	int ok;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "r");
	if (!f)
		return -1;
	ok = fscanf(f, "%" SCNu64, v) == 1;
	fclose(f);
	return ok ? 0 : -1;
}

/* The sum of the counts of "reason count" lines in @dir/@name. */
static uint64_t read_line_sum(const char *dir, const char *name)
{
	char path[512], reason[64];
	uint64_t v, sum = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "r");
	if (!f)
		return 0;
	while (fscanf(f, "%63s %" SCNu64, reason, &v) == 2)
		sum += v;
	fclose(f);
	return sum;
}

void rkmctl_sync_read(const char *sysfs, const char *array,
		      struct rkmctl_sync *s)
{
	char dir[256];

	memset(s, 0, sizeof(*s));
	snprintf(dir, sizeof(dir), "%s/block/%s/md/km", sysfs, array);
	if (read_u64(dir, "wide_sync_windows", &s->windows))
		return;
	read_u64(dir, "wide_sync_max_rows", &s->max_rows);
	read_u64(dir, "wide_sync_rows", &s->rows);
	read_u64(dir, "wide_sync_whole", &s->whole);
	read_u64(dir, "wide_sync_member_bios", &s->member_bios);
	read_u64(dir, "wide_sync_bytes", &s->member_bytes);
	s->fallbacks = read_line_sum(dir, "wide_sync_fallbacks");
	s->have = 1;
}

void rkmctl_sync_text(FILE *f, const struct rkmctl_sync *s)
{
	if (!s->have)
		return;
	fprintf(f, "  sync windows: %" PRIu64 " (%" PRIu64 " rows, %.1f a window; %" PRIu64 " synced whole, %" PRIu64 " redone by rows), %" PRIu64 " member bios, %" PRIu64 " MiB%s\n",
		s->windows, s->rows,
		s->windows ? (double)s->rows / s->windows : 0.0, s->whole,
		s->fallbacks, s->member_bios, s->member_bytes >> 20,
		s->max_rows ? "" : " (off: wide_sync_max_rows is 0)");
}

void rkmctl_sync_json(FILE *f, const struct rkmctl_sync *s)
{
	if (!s->have)
		return;
	fprintf(f, ", \"sync_windows\": {\"max_rows\": %" PRIu64 ", \"windows\": %" PRIu64 ", \"rows\": %" PRIu64 ", \"whole\": %" PRIu64 ", \"redone_by_rows\": %" PRIu64 ", \"member_bios\": %" PRIu64 ", \"member_bytes\": %" PRIu64 "}",
		s->max_rows, s->windows, s->rows, s->whole, s->fallbacks,
		s->member_bios, s->member_bytes);
}
