/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Sub-test reporting for the unit test programs: begin("name"), any
 * number of CHECK(cond), end().  A sub-test prints "PASS name" or its
 * first failed condition as "FAIL name: cond (line N)"; `failures` counts
 * failed sub-tests for the program's exit status.  One translation unit
 * per program, so the state is static here.
 */
#ifndef RKM_UNIT_CHECK_H
#define RKM_UNIT_CHECK_H

#include <stdio.h>

static int failures;
static const char *cur;
static int cur_failed;

#define CHECK(cond) do { \
	if (!(cond)) { \
		if (!cur_failed) \
			printf("FAIL %s: %s (line %d)\n", cur, #cond, __LINE__); \
		cur_failed = 1; \
	} \
} while (0)

static void begin(const char *name)
{
	cur = name;
	cur_failed = 0;
}

static void end(void)
{
	if (cur_failed)
		failures++;
	else
		printf("PASS %s\n", cur);
}

#endif /* RKM_UNIT_CHECK_H */
