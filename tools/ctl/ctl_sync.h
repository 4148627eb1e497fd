/* SPDX-License-Identifier: GPL-2.0 */
/*
 * raidkmctl's view of a km array's sync windows (rebuild, resync and
 * check by windows of many rows): the counters of
 * /sys/block/<array>/md/km/wide_sync_*, read and printed (ctl_sync.c).
 */
#ifndef RKMCTL_SYNC_H
#define RKMCTL_SYNC_H

#include <stdint.h>
#include <stdio.h>

struct rkmctl_sync {
	int have;			/* the array shows the counters */
	uint64_t max_rows;		/* wide_sync_max_rows (0: by rows) */
	uint64_t windows, rows, whole;
	uint64_t member_bios, member_bytes;
	uint64_t fallbacks;		/* all reasons together */
};

/* Read @array's counters under @sysfs ("/sys"); ->have 0 if it has none. */
void rkmctl_sync_read(const char *sysfs, const char *array,
		      struct rkmctl_sync *s);
/* One indented text line (nothing without counters). */
void rkmctl_sync_text(FILE *f, const struct rkmctl_sync *s);
/* ', "sync_windows": {...}' (nothing without counters). */
void rkmctl_sync_json(FILE *f, const struct rkmctl_sync *s);

#endif /* RKMCTL_SYNC_H */
