// SPDX-License-Identifier: GPL-2.0
/*
 * The multi-GPU backend's status file, read by raidkmctl status (format
 * in gpu_status.h and Documentation/daemon.rst, parser in
 * tools/ctl/ctl_gpus.c).  Written to PATH.tmp and renamed, so that a
 * reader never sees half of it; its "end" line tells a reader that the
 * file is whole all the same.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/stat.h>

#include "multi_gpu.h"
#include "gpu_status.h"

/* The PCI address: the first word of "where" */
static void bus_of(const char *where, char *bus, size_t len)
{
	size_t n = strcspn(where, ", ");

	if (!n || n >= len)
		snprintf(bus, len, "?");
	else
		snprintf(bus, len, "%.*s", (int)n, where);
}

/* why without line breaks, "-" when empty */
static void one_line(const char *why, char *out, size_t len)
{
	size_t i;

	snprintf(out, len, "%s", why[0] ? why : "-");
	for (i = 0; out[i]; i++)
		if (out[i] == '\n' || out[i] == '\r')
			out[i] = ' ';
}

static const char *state_name(int s)
{
	static const char *const name[] = {
		[RKMD_GPU_DOWN] = "down",
		[RKMD_GPU_STARTING] = "starting",
		[RKMD_GPU_UP] = "up",
		[RKMD_GPU_FAILING] = "failing",
		[RKMD_GPU_RESTARTING] = "restarting",
	};

	return s >= 0 && s <= RKMD_GPU_RESTARTING ? name[s] : "down";
}

int rkmd_gpu_state_write(const char *path, const struct rkmd_gpu_state *st,
			 int n)
{
	char tmp[300], bus[64], why[RKMD_GPU_STATUS_WHY];
	FILE *f;
	int i, r = 0;

	if (snprintf(tmp, sizeof(tmp), "%s.tmp", path) >= (int)sizeof(tmp))
		return -ENAMETOOLONG;
	f = fopen(tmp, "w");
	if (!f)
		return -errno;
	fprintf(f, "%s %d\npid %d\nupdated %lld\n", RKMD_GPU_STATUS_MAGIC,
		RKMD_GPU_STATUS_VERSION, (int)getpid(), (long long)time(NULL));
	for (i = 0; i < n; i++) {
		bus_of(st[i].where, bus, sizeof(bus));
		one_line(st[i].why, why, sizeof(why));
		fprintf(f, "gpu %d %d %s %llu %llu %llu %llu %lld %s %s\n",
			st[i].index, st[i].device,
			st[i].dropped ? "dropped" : "serving",
			(unsigned long long)st[i].jobs,
			(unsigned long long)(st[i].bytes >> 20),
			(unsigned long long)st[i].reruns,
			(unsigned long long)st[i].failed_back,
			(long long)(st[i].dropped ? st[i].dropped_at : 0),
			bus, why);
	}
	for (i = 0; i < n; i++) {
		one_line(st[i].why, why, sizeof(why));
		fprintf(f, "worker %d %s %d %llu %llu %lld %s\n", st[i].index,
			state_name(st[i].state), st[i].pid,
			(unsigned long long)st[i].restarts,
			(unsigned long long)st[i].faults,
			(long long)(st[i].faults ? st[i].dropped_at : 0), why);
	}
	fprintf(f, "end\n");
	if (fclose(f))
		r = -errno;
	if (!r && rename(tmp, path))
		r = -errno;
	if (r)
		unlink(tmp);
	return r;
}
