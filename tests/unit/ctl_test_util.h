/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Shared by the raidkmctl unit tests (ctl_print_test, ctl_gpus_test):
 * print a status into a string as raidkmctl would, and check JSON with
 * python3.  One translation unit per program, so the functions are
 * static here.
 */
#ifndef RKM_CTL_TEST_UTIL_H
#define RKM_CTL_TEST_UTIL_H

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "ctl_status.h"

/* @s printed as text or (@json) JSON, in a malloc'd string */
static char *ctl_print(const struct rkmctl_status *s, int json)
{
	char *buf = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&buf, &n);

	if (json)
		rkmctl_print_json(f, s);
	else
		rkmctl_print_text(f, s);
	fclose(f);
	return buf;
}

/*
 * Python checks @json (loaded as d) with @code: exit status 0 when every
 * assertion holds
 */
static int ctl_python_check(const char *json, const char *code)
{
	char path[] = "/tmp/ctl_testXXXXXX", cmd[4096];
	int fd = mkstemp(path), rc;
	FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;

	if (!f)
		return -1;
	fputs(json, f);
	fclose(f);
	snprintf(cmd, sizeof(cmd),
		 "python3 -c 'import json,sys\nd=json.load(open(\"%s\"))\n%s' >/dev/null 2>&1",
		 path, code);
	rc = system(cmd);
	unlink(path);
	return rc;
}

#endif /* RKM_CTL_TEST_UTIL_H */
