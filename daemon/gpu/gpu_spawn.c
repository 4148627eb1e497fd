// SPDX-License-Identifier: GPL-2.0
/*
 * Forking GPU workers and the probe child (gpu_worker.h).  raidkmd never
 * initialises CUDA, so a plain fork (no exec) gives a child in which
 * CUDA starts fresh.  The child first maps the shared region again where
 * fork left a hole (rkmd_remap.h), then keeps only its socket and stderr
 * open (a copy of raidkmd's netlink socket or of another worker's socket
 * would hide raidkmd's or that worker's end from the kernel or from
 * raidkmd), restores default signal handling and dies with raidkmd.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include "rkmd_remap.h"
#include "cuda_backend.h"
#include "multi_gpu.h"
#include "gpu_worker.h"

/* Close every descriptor above 2 but keep (-1: none) */
static void close_others(int keep)
{
	long max = sysconf(_SC_OPEN_MAX);
	int fd;

#ifdef SYS_close_range
	if (keep < 0 ? !syscall(SYS_close_range, 3, ~0u, 0) :
	    (keep == 3 || !syscall(SYS_close_range, 3, keep - 1, 0)) &&
	    !syscall(SYS_close_range, keep + 1, ~0u, 0))
		return;
#endif
	for (fd = 3; fd < (max > 0 ? max : 4096); fd++)
		if (fd != keep)
			close(fd);
}

/* A child's first steps: signals, death with the parent, descriptors */
static void child_setup(pid_t parent, int keep, const char *name)
{
	static const int sigs[] = { SIGTERM, SIGINT, SIGHUP, SIGUSR1, SIGUSR2,
				    SIGPIPE, SIGCHLD, SIGALRM };
	sigset_t all;
	size_t i;

	for (i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		signal(sigs[i], SIG_DFL);
	sigemptyset(&all);
	sigprocmask(SIG_SETMASK, &all, NULL);
	alarm(0);
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != parent)
		_exit(1);
	prctl(PR_SET_NAME, name);
	close_others(keep);
}

pid_t rkg_worker_spawn(const struct rkg_worker_args *a, int *fd, char *why,
		       size_t whylen)
{
	const pid_t parent = getpid();
	char name[16];
	int sv[2], r;
	pid_t pid;

	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv)) {
		r = -errno;
		snprintf(why, whylen, "socketpair: %s", strerror(errno));
		return r;
	}
	pid = fork();
	if (pid < 0) {
		r = -errno;
		snprintf(why, whylen, "fork: %s", strerror(errno));
		close(sv[0]);
		close(sv[1]);
		return r;
	}
	if (!pid) {
		char w[200];

		/* before anything else can take the hole's addresses */
		if (rkmd_remap_child(a->base, a->len, w, sizeof(w))) {
			fprintf(stderr, "raidkmd: error: GPU worker %d: %s\n",
				a->index, w);
			_exit(2);
		}
		snprintf(name, sizeof(name), "raidkmd-gpu%d", a->index);
		child_setup(parent, sv[1], name);
		rkg_worker_main(a, sv[1]);
	}
	close(sv[1]);
	*fd = sv[0];
	return pid;
}

/* What the probe child reports */
struct probe_answer {
	int n;
	int dev[RKMD_GPUS_MAX];
	char why[256];
};

/* The probe child's work: the device list as multi_gpu.c wants it */
static void probe_in_child(const char *list, int describe,
			   struct probe_answer *ans)
{
	char w[256];
	int n, i, cnt;

	n = rkmd_gpus_parse(list, ans->dev, ans->why, sizeof(ans->why));
	if (n < 0) {
		ans->n = n;
		return;
	}
	for (i = 0; i < n; i++)
		if (rkmd_cuda_probe_dev(ans->dev[i], ans->why,
					sizeof(ans->why))) {
			ans->n = -ENODEV;
			return;
		}
	if (!n) {
		cnt = rkmd_cuda_count(ans->why, sizeof(ans->why));
		if (cnt < 0) {
			ans->n = cnt;
			return;
		}
		for (i = 0; i < cnt && n < RKMD_GPUS_MAX; i++)
			if (!rkmd_cuda_probe_dev(i, w, sizeof(w)))
				ans->dev[n++] = i;
			else
				fprintf(stderr, "raidkmd: warning: cuda: GPU %d not used: %s\n",
					i, w);
		if (!n) {
			snprintf(ans->why, sizeof(ans->why),
				 "no usable CUDA device among %d", cnt);
			ans->n = -ENODEV;
			return;
		}
	}
	ans->n = n;
	if (describe)
		rkmd_cuda_probe_dev(ans->dev[0], ans->why, sizeof(ans->why));
}

int rkg_probe_child(const char *list, int *dev, int describe, char *why,
		    size_t whylen)
{
	struct probe_answer ans;
	const pid_t parent = getpid();
	int p[2], st;
	ssize_t got = 0, r;
	pid_t pid;

	memset(&ans, 0, sizeof(ans));
	if (pipe2(p, O_CLOEXEC)) {
		snprintf(why, whylen, "pipe: %s", strerror(errno));
		return -errno;
	}
	pid = fork();
	if (pid < 0) {
		snprintf(why, whylen, "fork: %s", strerror(errno));
		close(p[0]);
		close(p[1]);
		return -ENOMEM;
	}
	if (!pid) {
		child_setup(parent, p[1], "raidkmd-probe");
		probe_in_child(list, describe, &ans);
		r = write(p[1], &ans, sizeof(ans));
		_exit(r == (ssize_t)sizeof(ans) ? 0 : 1);
	}
	close(p[1]);
	while (got < (ssize_t)sizeof(ans)) {
		r = read(p[0], (char *)&ans + got, sizeof(ans) - got);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		got += r;
	}
	close(p[0]);
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	if (got != (ssize_t)sizeof(ans)) {
		snprintf(why, whylen, "the CUDA probe process died (status 0x%x)",
			 st);
		return -ENODEV;
	}
	ans.why[sizeof(ans.why) - 1] = 0;
	snprintf(why, whylen, "%s", ans.why);
	if (ans.n > 0)
		memcpy(dev, ans.dev, ans.n * sizeof(int));
	return ans.n;
}

void rkg_reap(pid_t pid, int ms)
{
	struct timespec ts = { 0, 10 * 1000000 };
	int st, i;

	for (i = 0; i < ms / 10; i++) {
		pid_t r = waitpid(pid, &st, WNOHANG);

		if (r == pid || (r < 0 && errno == ECHILD))
			return;
		nanosleep(&ts, NULL);
	}
	kill(pid, SIGKILL);
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
}
