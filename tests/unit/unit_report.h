/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Sub-test reporting by verdict string, for unit tests whose checks
 * return NULL or why they failed: report("name", why) prints "PASS name"
 * or "FAIL name: why"; `failures` counts the failures; `msg` is a buffer
 * for a formatted why.  One translation unit per program.
 */
#ifndef RKM_UNIT_REPORT_H
#define RKM_UNIT_REPORT_H

#include <stdio.h>

static int failures;
static char msg[256];

static void report(const char *name, const char *why)
{
	if (why) {
		printf("FAIL %s: %s\n", name, why);
		failures++;
	} else {
		printf("PASS %s\n", name);
	}
}

#endif /* RKM_UNIT_REPORT_H */
