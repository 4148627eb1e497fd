/* SPDX-License-Identifier: GPL-2.0 */
/*
 * raidkmctl's view of raidkmd's per-GPU status file (format in
 * daemon/gpu/gpu_status.h): reading and checking it (ctl_gpus.c), no
 * printing (ctl_print.c).
 */
#ifndef RKMCTL_GPUS_H
#define RKMCTL_GPUS_H

#include <stdint.h>
#include "gpu/gpu_status.h"

#define RKMCTL_GPUS_PATH_MAX	256
/* the largest file read: 16 gpu lines of a few hundred bytes and more */
#define RKMCTL_GPUS_FILE_MAX	65536

enum rkmctl_gpus_state {
	RKMCTL_GPUS_ABSENT,	/* no file (or none asked for): no cuda daemon */
	RKMCTL_GPUS_OK,		/* read, written by a running raidkmd */
	RKMCTL_GPUS_STALE,	/* read, but its raidkmd is gone (why) */
	RKMCTL_GPUS_BAD,	/* unreadable, malformed or truncated (why) */
};

struct rkmctl_gpu {
	int index, device, dropped;
	uint64_t jobs, mib, reruns, failed_back;
	int64_t dropped_at;		/* epoch s, 0 while serving */
	char bus[32];			/* PCI address, "" if unknown */
	char why[RKMD_GPU_STATUS_WHY];	/* why dropped, "" while serving */
	/* its worker process (a worker line; worker == 0: none read) */
	int worker;
	char wstate[16];		/* up, starting, failing, ... */
	int pid;			/* 0: none */
	uint64_t restarts, faults;
	int64_t fault_at;		/* epoch s of the last fault, 0 */
	char last_why[RKMD_GPU_STATUS_WHY];	/* "" if none */
};

struct rkmctl_gpus {
	enum rkmctl_gpus_state state;
	char path[RKMCTL_GPUS_PATH_MAX];
	char why[RKMD_GPU_STATUS_WHY + 64];	/* STALE, BAD: the reason */
	int pid;			/* the daemon that wrote it */
	int64_t updated;		/* epoch s of the last write */
	int64_t now;			/* epoch s when it was read */
	int n;
	struct rkmctl_gpu gpu[RKMD_GPU_STATUS_MAX];
};

/*
 * Parse the file's text (len bytes, not NUL-terminated): 0 with g->pid,
 * g->updated and g->gpu[0..n-1] filled, or -EINVAL with g->why saying
 * which line is wrong and how (a file cut short says "truncated").
 */
int rkmctl_gpus_parse(const char *text, size_t len, struct rkmctl_gpus *g);
/*
 * Read path into g (state ABSENT when there is no such file, BAD with the
 * reason when it cannot be read or parsed) without asking whether its
 * writer still runs.
 */
void rkmctl_gpus_load(const char *path, struct rkmctl_gpus *g);
/*
 * rkmctl_gpus_load(), then STALE when the pid it names is not a running
 * raidkmd (proc: "/proc", or a directory laid out like it in tests).
 */
void rkmctl_gpus_read(const char *path, const char *proc,
		      struct rkmctl_gpus *g);

#endif /* RKMCTL_GPUS_H */
