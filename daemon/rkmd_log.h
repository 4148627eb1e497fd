/* SPDX-License-Identifier: GPL-2.0 */
/* raidkmd logging: stderr or syslog, one line per message. */
#ifndef RKMD_LOG_H
#define RKMD_LOG_H

#include <syslog.h>

enum rkmd_log_target { RKMD_LOG_STDERR, RKMD_LOG_SYSLOG, RKMD_LOG_QUIET };

void rkmd_log_open(enum rkmd_log_target target, int verbose);
void rkmd_log(int prio, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

#define rkmd_err(...)	rkmd_log(LOG_ERR, __VA_ARGS__)
#define rkmd_warn(...)	rkmd_log(LOG_WARNING, __VA_ARGS__)
#define rkmd_info(...)	rkmd_log(LOG_INFO, __VA_ARGS__)
#define rkmd_dbg(...)	rkmd_log(LOG_DEBUG, __VA_ARGS__)

#endif
