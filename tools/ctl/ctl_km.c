// SPDX-License-Identifier: GPL-2.0
/*
 * raidkmctl: the km data path's counters of an array from sysfs (see
 * ctl_km.h).  The names below are the files the personality's sysfs.c
 * offers; a file that a module does not have is skipped.
 */
#include <stdio.h>
#include <string.h>
#include <inttypes.h>
#include "ctl_km.h"

static const char *const single[] = {
	"wide_read_min_rows", "wide_reads", "wide_read_bytes",
	"wide_read_rows", "wide_member_reads", "wide_member_read_bytes",
	"wide_run_waits", "wide_writes", "wide_write_stripes",
	"wide_write_member_writes", "wide_sync_windows", "wide_sync_rows",
	"wide_sync_member_bios", "wide_sync_member_bytes", "wide_sync_jobs",
	"wide_sync_whole", "wide_sync_max_rows", "read_verify_reads",
	"read_verify_mismatches", "read_verify_corrected", "read_verify_failed",
	"read_verify_unverified", "read_verify_raced", "read_verify_retried",
};

static const char *const lists[] = {
	"wide_read_fallbacks", "wide_write_fallbacks", "wide_sync_fallbacks",
	"wide_sync_window_rows",
};

static void km_add(struct rkmctl_km *km, const char *file, const char *sub,
		   uint64_t v)
{
	if (km->n >= RKMCTL_KM_MAX)
		return;
	snprintf(km->e[km->n].key, sizeof(km->e[km->n].key), "%s%s%s", file,
		 sub ? "." : "", sub ? sub : "");
	km->e[km->n++].v = v;
}

static FILE *km_open(const char *sysroot, const char *name, const char *file)
{
	char path[512];

	snprintf(path, sizeof(path), "%s/block/%s/md/km/%s", sysroot, name,
		 file);
	return fopen(path, "r");
}

static void km_read_single(const char *sysroot, const char *name,
			   const char *file, struct rkmctl_km *km)
{
	FILE *f = km_open(sysroot, name, file);
	uint64_t v;

	if (!f)
		return;
	if (fscanf(f, "%" SCNu64, &v) == 1)
		km_add(km, file, NULL, v);
	fclose(f);
}

static void km_read_list(const char *sysroot, const char *name,
			 const char *file, struct rkmctl_km *km)
{
	FILE *f = km_open(sysroot, name, file);
	char reason[32];
	uint64_t v;

	if (!f)
		return;
	while (fscanf(f, "%31s %" SCNu64, reason, &v) == 2)
		km_add(km, file, reason, v);
	fclose(f);
}

int rkmctl_km_read(const char *sysroot, const char *name, struct rkmctl_km *km)
{
	FILE *probe;
	size_t i;

	km->n = 0;
	if (strchr(name, '/') || !strcmp(name, "..") || !strcmp(name, "."))
		return -1;
	probe = km_open(sysroot, name, "data_disks");
	if (!probe)
		return -1;
	fclose(probe);
	for (i = 0; i < sizeof(single) / sizeof(single[0]); i++)
		km_read_single(sysroot, name, single[i], km);
	for (i = 0; i < sizeof(lists) / sizeof(lists[0]); i++)
		km_read_list(sysroot, name, lists[i], km);
	return 0;
}
