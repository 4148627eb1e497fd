/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The km data path's counters of one array, from /sys/block/NAME/md/km/
 * (wide reads, their member reads and fallbacks by reason, sync windows),
 * for raidkmctl status.  Files that hold "reason count" lines are read as
 * "file.reason" entries.
 */
#ifndef RKMCTL_KM_H
#define RKMCTL_KM_H

#include <stdint.h>

#define RKMCTL_KM_MAX		64
#define RKMCTL_KM_KEY		64

struct rkmctl_km {
	int n;
	struct {
		char key[RKMCTL_KM_KEY];
		uint64_t v;
	} e[RKMCTL_KM_MAX];
};

/*
 * Read array @name's km counters under @sysroot ("/sys"); 0, or -1 when
 * the array has no km directory (then @km is empty).  Unreadable or
 * malformed files are skipped.
 */
int rkmctl_km_read(const char *sysroot, const char *name, struct rkmctl_km *km);

#endif /* RKMCTL_KM_H */
