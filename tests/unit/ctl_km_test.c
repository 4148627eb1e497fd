// SPDX-License-Identifier: GPL-2.0
/*
 * covers: ctl: raidkmctl status data path counters
 *
 * raidkmctl's km data path counters (tools/ctl/ctl_km.c) from a made-up
 * sysfs tree: single-value files, "reason count" lists, files the module
 * does not have, a malformed file, names that would leave the tree, and
 * the text and --json lines they print as.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ctl_status.h"
#include "unit_check.h"
#include "ctl_test_util.h"

static char root[] = "/tmp/ctl_kmXXXXXX";

static void put(const char *file, const char *text)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/block/md0/md/km/%s", root, file);
	f = fopen(path, "w");
	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

static const struct rkmctl_km *km_of(const struct rkmctl_status *st)
{
	return &st->array[0].km;
}

static long long val(const struct rkmctl_km *km, const char *key)
{
	int i;

	for (i = 0; i < km->n; i++)
		if (!strcmp(km->e[i].key, key))
			return (long long)km->e[i].v;
	return -1;
}

int main(void)
{
	static struct rkmctl_status st;
	char dir[512], *s;

	if (!mkdtemp(root))
		return 1;
	snprintf(dir, sizeof(dir), "mkdir -p %s/block/md0/md/km", root);
	if (system(dir))
		return 1;
	put("data_disks", "4\n");
	put("wide_reads", "5\n");
	put("wide_member_read_bytes", "1048576\n");
	put("wide_run_waits", "not a number\n");
	put("wide_read_fallbacks", "read_error 1\nwrite_race 2\n");
	put("read_verify_reads", "7\n");
	put("read_verify_corrected", "1\n");

	begin("ctl_km: values and reason lists read, bad and missing skipped");
	st.narrays = 1;
	strcpy(st.array[0].name, "md0");
	CHECK(rkmctl_km_read(root, "md0", &st.array[0].km) == 0);
	CHECK(val(km_of(&st), "wide_reads") == 5);
	CHECK(val(km_of(&st), "wide_member_read_bytes") == 1048576);
	CHECK(val(km_of(&st), "wide_run_waits") == -1);
	CHECK(val(km_of(&st), "wide_read_fallbacks.read_error") == 1);
	CHECK(val(km_of(&st), "wide_read_fallbacks.write_race") == 2);
	CHECK(val(km_of(&st), "sync_windows") == -1);
	CHECK(val(km_of(&st), "read_verify_reads") == 7);
	CHECK(val(km_of(&st), "read_verify_corrected") == 1);
	CHECK(val(km_of(&st), "read_verify_failed") == -1);
	end();

	begin("ctl_km: no km directory, names outside the tree");
	{
		struct rkmctl_km km;

		CHECK(rkmctl_km_read(root, "md1", &km) == -1 && km.n == 0);
		CHECK(rkmctl_km_read(root, "../md0", &km) == -1 && km.n == 0);
		CHECK(rkmctl_km_read(root, "..", &km) == -1);
	}
	end();

	begin("ctl_km: printed in text and json");
	s = ctl_print(&st, 0);
	CHECK(strstr(s, "md0:\n"));
	CHECK(strstr(s, "  data path: wide_reads 5 wide_member_read_bytes 1048576 read_verify_reads 7 read_verify_corrected 1 wide_read_fallbacks.read_error 1 wide_read_fallbacks.write_race 2\n"));
	free(s);
	s = ctl_print(&st, 1);
	CHECK(ctl_python_check(s,
		"p = d[\"arrays\"][0][\"data_path\"]\n"
		"assert p == {\"wide_reads\": 5, \"wide_member_read_bytes\": 1048576, \"read_verify_reads\": 7, \"read_verify_corrected\": 1, \"wide_read_fallbacks.read_error\": 1, \"wide_read_fallbacks.write_race\": 2}\n") == 0);
	free(s);
	end();
	snprintf(dir, sizeof(dir), "rm -rf %s", root);
	if (system(dir))
		return 1;
	return failures ? 1 : 0;
}
