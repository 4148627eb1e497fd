// SPDX-License-Identifier: GPL-2.0
/*
 * NUMA placement next to a GPU, without libnuma (gpu_numa.h).
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>

#include "gpu_numa.h"

#define MPOL_DEFAULT_	0
#define MPOL_PREFERRED_	1
#define NODE_MAX	1024

static int read_line(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "r");
	int ok;

	if (!f)
		return -errno;
	ok = fgets(buf, (int)len, f) != NULL;
	fclose(f);
	if (!ok)
		return -EIO;
	buf[strcspn(buf, "\n")] = 0;
	return 0;
}

static int several_nodes(void)
{
	return access("/sys/devices/system/node/node1", F_OK) == 0;
}

int rkg_numa_node(const char *busid)
{
	char path[128], buf[32], id[32];
	size_t i;
	long n;

	if (!busid || strlen(busid) >= sizeof(id) || !several_nodes())
		return -1;
	for (i = 0; busid[i]; i++)
		id[i] = (char)tolower((unsigned char)busid[i]);
	id[i] = 0;
	snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/numa_node", id);
	if (read_line(path, buf, sizeof(buf)))
		return -1;
	n = strtol(buf, NULL, 10);
	return n >= 0 && n < NODE_MAX ? (int)n : -1;
}

/* "0-15,32-47" into set; 0 or -EINVAL */
static int parse_cpulist(const char *s, cpu_set_t *set)
{
	CPU_ZERO(set);
	while (*s) {
		char *end;
		long a = strtol(s, &end, 10), b;

		if (end == s || a < 0)
			return -EINVAL;
		b = a;
		s = end;
		if (*s == '-') {
			b = strtol(s + 1, &end, 10);
			if (end == s + 1 || b < a)
				return -EINVAL;
			s = end;
		}
		for (; a <= b && a < CPU_SETSIZE; a++)
			CPU_SET(a, set);
		if (*s == ',')
			s++;
		else if (*s)
			return -EINVAL;
	}
	return CPU_COUNT(set) ? 0 : -EINVAL;
}

int rkg_numa_bind_thread(int node)
{
	char path[96], buf[4096];
	cpu_set_t set;
	int r;

	if (node < 0)
		return -EINVAL;
	snprintf(path, sizeof(path), "/sys/devices/system/node/node%d/cpulist",
		 node);
	r = read_line(path, buf, sizeof(buf));
	if (r)
		return r;
	r = parse_cpulist(buf, &set);
	if (r)
		return r;
	return sched_setaffinity(0, sizeof(set), &set) ? -errno : 0;
}

int rkg_numa_prefer(int node)
{
	unsigned long mask[NODE_MAX / (8 * sizeof(unsigned long))];

	if (node < 0 || node >= NODE_MAX)
		return -EINVAL;
	memset(mask, 0, sizeof(mask));
	mask[node / (8 * sizeof(unsigned long))] |=
		1ul << (node % (8 * sizeof(unsigned long)));
	if (syscall(SYS_set_mempolicy, MPOL_PREFERRED_, mask,
		    (unsigned long)NODE_MAX + 1))
		return -errno;
	return 0;
}

void rkg_numa_unprefer(void)
{
	syscall(SYS_set_mempolicy, MPOL_DEFAULT_, NULL, 0ul);
}
