/* SPDX-License-Identifier: GPL-2.0 */
/*
 * GPU worker processes: raidkmd forks one per GPU (gpu_spawn.c), which
 * opens the CUDA backend on its device and serves jobs sent over a
 * socketpair (gpu_worker.c, messages in gpu_wire.h).  raidkmd itself
 * never initialises CUDA: a GPU fault (a trap, a lost device) leaves a
 * CUDA context, and with it the process, unusable, and that must be the
 * worker's alone.  The probe runs in a short-lived child for the same
 * reason.
 */
#ifndef RKMD_GPU_WORKER_H
#define RKMD_GPU_WORKER_H

#include <stddef.h>
#include <sys/types.h>

struct rkg_worker_args {
	int index;		/* instance, for logs and the process name */
	int dev;		/* CUDA device */
	int nthreads;		/* ->open's hint */
	void *base;		/* the arena, as the parent maps it */
	size_t len, ro_len;
};

/*
 * Fork a worker for a; *fd is raidkmd's end of its socket (close-on-exec).
 * The worker's pid, or -errno with why.
 */
pid_t rkg_worker_spawn(const struct rkg_worker_args *a, int *fd, char *why,
		       size_t whylen);
/* In the child: serve until raidkmd closes its end or the GPU fails. */
void rkg_worker_main(const struct rkg_worker_args *a, int fd)
	__attribute__((noreturn));
/*
 * In a child process: the devices to open (rkmd_gpus_parse's list, or
 * every usable one, dev[], the count) or -errno with why; with describe,
 * why holds the first device's description on success.
 */
int rkg_probe_child(const char *list, int *dev, int describe, char *why,
		    size_t whylen);
/* Wait up to ms for pid to exit, then kill it (SIGKILL) and reap it. */
void rkg_reap(pid_t pid, int ms);

#endif /* RKMD_GPU_WORKER_H */
