// SPDX-License-Identifier: GPL-2.0
/*
 * raidkmctl's sync-window counters (tools/ctl/ctl_sync.c) read from a
 * made-up sysfs tree: every file there, the array without them (not km,
 * or an older module), a garbled file; the text line and the JSON
 * member printed from them.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ctl_sync.h"
#include "unit_check.h"

static char root[] = "/tmp/ctl_sync_testXXXXXX";

static void put(const char *array, const char *name, const char *text)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/block/%s/md/km/%s", root, array, name);
	f = fopen(path, "w");
	if (!f) {
		perror(path);
		exit(2);
	}
	fputs(text, f);
	fclose(f);
}

static void mkdirs(const char *array)
{
	const char *parts[] = { "block", array, "md", "km" };
	char path[512];
	size_t i;

	strcpy(path, root);
	for (i = 0; i < 4; i++) {
		strcat(path, "/");
		strcat(path, parts[i]);
		mkdir(path, 0755);
	}
}

static char *print(void (*fn)(FILE *, const struct rkmctl_sync *),
		   const struct rkmctl_sync *s)
{
	static char buf[1024];
	FILE *f;

	buf[0] = 0;
	f = fmemopen(buf, sizeof(buf), "w");

	fn(f, s);
	fclose(f);
	return buf;
}

int main(void)
{
	struct rkmctl_sync s;
	char *t;

	if (!mkdtemp(root))
		return 2;
	mkdirs("md0");
	put("md0", "wide_sync_max_rows", "256\n");
	put("md0", "wide_sync_windows", "44\n");
	put("md0", "wide_sync_rows", "5632\n");
	put("md0", "wide_sync_whole", "43\n");
	put("md0", "wide_sync_member_bios", "220\n");
	put("md0", "wide_sync_bytes", "115343360\n");
	put("md0", "wide_sync_fallbacks",
	    "read_error 0\nwrite_error 0\nbad_block 0\nmismatch 1\nno_memory 0\n");
	mkdirs("md1");
	put("md1", "wide_sync_windows", "garbage\n");

	begin("all counters read");
	rkmctl_sync_read(root, "md0", &s);
	CHECK(s.have && s.max_rows == 256 && s.windows == 44 &&
	      s.rows == 5632 && s.whole == 43 && s.member_bios == 220 &&
	      s.member_bytes == 115343360 && s.fallbacks == 1);
	end();

	begin("text line");
	t = print(rkmctl_sync_text, &s);
	CHECK(strstr(t, "sync windows: 44 (5632 rows, 128.0 a window; 43 synced whole, 1 redone by rows), 220 member bios, 110 MiB\n") != NULL);
	end();

	begin("json member");
	t = print(rkmctl_sync_json, &s);
	CHECK(strcmp(t, ", \"sync_windows\": {\"max_rows\": 256, \"windows\": 44, \"rows\": 5632, \"whole\": 43, \"redone_by_rows\": 1, \"member_bios\": 220, \"member_bytes\": 115343360}") == 0);
	end();

	begin("windows off is said");
	s.max_rows = 0;
	CHECK(strstr(print(rkmctl_sync_text, &s), "(off: wide_sync_max_rows is 0)") != NULL);
	end();

	begin("no counters: nothing printed");
	rkmctl_sync_read(root, "md9", &s);
	CHECK(!s.have);
	CHECK(print(rkmctl_sync_text, &s)[0] == 0);
	CHECK(print(rkmctl_sync_json, &s)[0] == 0);
	end();

	begin("garbled counter: none");
	rkmctl_sync_read(root, "md1", &s);
	CHECK(!s.have);
	end();

	if (system("rm -rf /tmp/ctl_sync_test??????") != 0)
		return 2;
	return failures ? 1 : 0;
}
