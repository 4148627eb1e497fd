// SPDX-License-Identifier: GPL-2.0
/*
 * raidkmctl status: raidkmd's per-GPU status file (daemon/gpu/gpu_status.h)
 * read, checked line by line and tested for staleness.  Nothing in the
 * file is trusted: every field is range-checked, a file cut short or
 * damaged gives a reason, never a partial answer.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "ctl_gpus.h"

#define LINE_MAX_LEN	512

static int bad(struct rkmctl_gpus *g, int line, const char *what)
{
	if (line)
		snprintf(g->why, sizeof(g->why), "line %d: %s", line, what);
	else
		snprintf(g->why, sizeof(g->why), "%s", what);
	return -EINVAL;
}

/* The next space-separated word of *p (NUL-terminated in place), or NULL */
static char *word(char **p)
{
	char *s = *p, *w;

	while (*s == ' ')
		s++;
	if (!*s)
		return NULL;
	w = s;
	while (*s && *s != ' ')
		s++;
	if (*s)
		*s++ = 0;
	*p = s;
	return w;
}

/* A decimal number of digits only, at most max */
static int number(const char *w, uint64_t max, uint64_t *v)
{
	char *end;

	if (!w || *w < '0' || *w > '9')
		return -1;
	errno = 0;
	*v = strtoull(w, &end, 10);
	return *end || errno || *v > max ? -1 : 0;
}

static int int_word(char **p, int max, int *v)
{
	uint64_t x;

	if (number(word(p), (uint64_t)max, &x))
		return -1;
	*v = (int)x;
	return 0;
}

static int u64_word(char **p, uint64_t *v)
{
	return number(word(p), UINT64_MAX, v);
}

/* "gpu INDEX DEVICE STATE JOBS MIB RERUNS FAILED DROPPED_AT BUS WHY" */
static int gpu_line(char *p, struct rkmctl_gpus *g, int ln)
{
	struct rkmctl_gpu *u;
	char *st, *bus;
	uint64_t at;
	int idx;

	if (g->n == RKMD_GPU_STATUS_MAX)
		return bad(g, ln, "more than 16 gpu lines");
	u = &g->gpu[g->n];
	memset(u, 0, sizeof(*u));
	if (int_word(&p, RKMD_GPU_STATUS_MAX - 1, &idx) || idx != g->n)
		return bad(g, ln, "gpu line: instance index missing or out of order");
	u->index = idx;
	if (int_word(&p, 255, &u->device))
		return bad(g, ln, "gpu line: bad device number");
	st = word(&p);
	if (!st || (strcmp(st, "serving") && strcmp(st, "dropped")))
		return bad(g, ln, "gpu line: state is neither serving nor dropped");
	u->dropped = !strcmp(st, "dropped");
	if (u64_word(&p, &u->jobs) || u64_word(&p, &u->mib) ||
	    u64_word(&p, &u->reruns) || u64_word(&p, &u->failed_back))
		return bad(g, ln, "gpu line: bad job, MiB, re-run or failed-back count");
	if (number(word(&p), INT64_MAX, &at) || !at != !u->dropped)
		return bad(g, ln, "gpu line: bad drop time");
	u->dropped_at = (int64_t)at;
	bus = word(&p);
	if (!bus || strlen(bus) >= sizeof(u->bus))
		return bad(g, ln, "gpu line: bad bus address");
	if (strcmp(bus, "?"))
		snprintf(u->bus, sizeof(u->bus), "%s", bus);
	while (*p == ' ')
		p++;
	if (!*p || strlen(p) >= sizeof(u->why))
		return bad(g, ln, "gpu line: no reason field (\"-\" while serving)");
	if (strcmp(p, "-"))
		snprintf(u->why, sizeof(u->why), "%s", p);
	g->n++;
	return 0;
}

/* "worker INDEX STATE PID RESTARTS FAULTS LAST_FAULT_AT LAST_WHY" */
static int worker_line(char *p, struct rkmctl_gpus *g, int ln)
{
	static const char *const states[] = {
		"up", "starting", "failing", "restarting", "down",
	};
	struct rkmctl_gpu *u;
	uint64_t at;
	char *st;
	size_t i;
	int idx;

	if (int_word(&p, RKMD_GPU_STATUS_MAX - 1, &idx) || idx >= g->n)
		return bad(g, ln, "worker line: no gpu line of that index before it");
	u = &g->gpu[idx];
	st = word(&p);
	for (i = 0; st && i < sizeof(states) / sizeof(states[0]); i++)
		if (!strcmp(st, states[i]))
			break;
	if (!st || i == sizeof(states) / sizeof(states[0]))
		return bad(g, ln, "worker line: unknown state");
	snprintf(u->wstate, sizeof(u->wstate), "%s", st);
	if (int_word(&p, 0x7fffffff, &u->pid) ||
	    u64_word(&p, &u->restarts) || u64_word(&p, &u->faults) ||
	    number(word(&p), INT64_MAX, &at))
		return bad(g, ln, "worker line: bad pid, restart or fault count, or fault time");
	u->fault_at = (int64_t)at;
	while (*p == ' ')
		p++;
	if (!*p || strlen(p) >= sizeof(u->last_why))
		return bad(g, ln, "worker line: no reason field (\"-\" if none)");
	if (strcmp(p, "-"))
		snprintf(u->last_why, sizeof(u->last_why), "%s", p);
	u->worker = 1;
	return 0;
}

/* One line (NUL-terminated, no newline): the magic line first */
static int one_line(char *p, struct rkmctl_gpus *g, int ln, int *have)
{
	char *key = word(&p);
	uint64_t v;
	int ver;

	if (ln == 1) {
		if (!key || strcmp(key, RKMD_GPU_STATUS_MAGIC))
			return bad(g, ln, "not a raidkmd GPU status file");
		if (int_word(&p, 1000000, &ver) || *p)
			return bad(g, ln, "bad format version");
		if (ver != RKMD_GPU_STATUS_VERSION) {
			snprintf(g->why, sizeof(g->why),
				 "format version %d; this raidkmctl reads version %d",
				 ver, RKMD_GPU_STATUS_VERSION);
			return -EINVAL;
		}
		return 0;
	}
	if (!key)
		return bad(g, ln, "empty line");
	if (!strcmp(key, "pid")) {
		if (number(word(&p), 0x7fffffff, &v) || !v || *p)
			return bad(g, ln, "bad pid");
		g->pid = (int)v;
		*have |= 1;
	} else if (!strcmp(key, "updated")) {
		if (number(word(&p), INT64_MAX, &v) || *p)
			return bad(g, ln, "bad update time");
		g->updated = (int64_t)v;
		*have |= 2;
	} else if (!strcmp(key, "gpu")) {
		return gpu_line(p, g, ln);
	} else if (!strcmp(key, "worker")) {
		return worker_line(p, g, ln);
	} else if (!strcmp(key, "end")) {
		*have |= 4;
	}
	/* other keywords: later additions to the format */
	return 0;
}

int rkmctl_gpus_parse(const char *text, size_t len, struct rkmctl_gpus *g)
{
	char line[LINE_MAX_LEN];
	size_t off = 0;
	int ln = 0, have = 0, r;

	g->n = 0;
	g->pid = 0;
	g->updated = 0;
	g->why[0] = 0;
	if (!len)
		return bad(g, 0, "empty (truncated)");
	if (memchr(text, 0, len))
		return bad(g, 0, "holds a NUL byte: not a text file");
	while (off < len) {
		const char *nl = memchr(text + off, '\n', len - off);
		size_t n = nl ? (size_t)(nl - (text + off)) : len - off;

		ln++;
		if (have & 4)
			return bad(g, ln, "text after the end line");
		if (!nl)
			return bad(g, ln, "truncated: the last line has no end");
		if (n >= sizeof(line))
			return bad(g, ln, "line too long");
		memcpy(line, text + off, n);
		line[n] = 0;
		r = one_line(line, g, ln, &have);
		if (r)
			return r;
		off += n + 1;
	}
	if (!(have & 4)) {
		snprintf(g->why, sizeof(g->why),
			 "truncated: no end line after %d line(s)", ln);
		return -EINVAL;
	}
	if (!(have & 1))
		return bad(g, 0, "no pid line");
	if (!(have & 2))
		return bad(g, 0, "no updated line");
	if (!g->n)
		return bad(g, 0, "no gpu line");
	return 0;
}

void rkmctl_gpus_load(const char *path, struct rkmctl_gpus *g)
{
	static char buf[RKMCTL_GPUS_FILE_MAX + 1];
	size_t len = 0;
	ssize_t r = 0;
	int fd;

	memset(g, 0, sizeof(*g));
	snprintf(g->path, sizeof(g->path), "%s", path ? path : "");
	g->now = (int64_t)time(NULL);
	g->state = RKMCTL_GPUS_ABSENT;
	if (!path || !*path)
		return;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		if (errno != ENOENT && errno != ENOTDIR) {
			g->state = RKMCTL_GPUS_BAD;
			snprintf(g->why, sizeof(g->why), "cannot open it: %s",
				 strerror(errno));
		}
		return;
	}
	while (len < sizeof(buf)) {
		r = read(fd, buf + len, sizeof(buf) - len);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		len += (size_t)r;
	}
	g->state = RKMCTL_GPUS_BAD;
	if (r < 0)
		snprintf(g->why, sizeof(g->why), "cannot read it: %s",
			 strerror(errno));
	else if (len > RKMCTL_GPUS_FILE_MAX)
		snprintf(g->why, sizeof(g->why), "larger than %d bytes",
			 RKMCTL_GPUS_FILE_MAX);
	else if (!rkmctl_gpus_parse(buf, len, g))
		g->state = RKMCTL_GPUS_OK;
	close(fd);
}

/* Is pid a running raidkmd?  (proc/PID/comm reads "raidkmd") */
static int stale(const char *proc, int pid, char *why, size_t whylen)
{
	char path[RKMCTL_GPUS_PATH_MAX + 32], comm[64] = "";
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "%s/%d/comm", proc, pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		if (errno != ENOENT)
			return 0;	/* cannot tell: trust the file */
		snprintf(why, whylen,
			 "the raidkmd that wrote it (pid %d) is not running",
			 pid);
		return 1;
	}
	n = read(fd, comm, sizeof(comm) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	comm[n] = 0;
	comm[strcspn(comm, "\n")] = 0;
	if (!strcmp(comm, "raidkmd"))
		return 0;
	snprintf(why, whylen,
		 "pid %d that wrote it is now \"%s\", not raidkmd: the raidkmd that wrote it is gone",
		 pid, comm);
	return 1;
}

void rkmctl_gpus_read(const char *path, const char *proc,
		      struct rkmctl_gpus *g)
{
	rkmctl_gpus_load(path, g);
	if (g->state == RKMCTL_GPUS_OK &&
	    stale(proc, g->pid, g->why, sizeof(g->why)))
		g->state = RKMCTL_GPUS_STALE;
}
