// SPDX-License-Identifier: GPL-2.0
/* raidkmd logging. */
#include <stdarg.h>
#include <stdio.h>
#include <time.h>
#include "rkmd_log.h"

static enum rkmd_log_target log_target = RKMD_LOG_STDERR;
static int log_verbose;

void rkmd_log_open(enum rkmd_log_target target, int verbose)
{
	log_target = target;
	log_verbose = verbose;
	if (target == RKMD_LOG_SYSLOG)
		openlog("raidkmd", LOG_PID, LOG_DAEMON);
}

void rkmd_log(int prio, const char *fmt, ...)
{
	static const char *const names[] = {
		"emerg", "alert", "crit", "error", "warning", "notice",
		"info", "debug",
	};
	va_list ap;

	if (prio == LOG_DEBUG && !log_verbose)
		return;
	va_start(ap, fmt);
	switch (log_target) {
	case RKMD_LOG_SYSLOG:
		vsyslog(prio, fmt, ap);
		break;
	case RKMD_LOG_STDERR:
		fprintf(stderr, "raidkmd: %s: ", names[prio & 7]);
		vfprintf(stderr, fmt, ap);
		fputc('\n', stderr);
		break;
	case RKMD_LOG_QUIET:
		if (prio <= LOG_ERR) {
			fprintf(stderr, "raidkmd: %s: ", names[prio & 7]);
			vfprintf(stderr, fmt, ap);
			fputc('\n', stderr);
		}
		break;
	}
	va_end(ap);
}
