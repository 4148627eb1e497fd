/* SPDX-License-Identifier: GPL-2.0 */
/*
 * An in-process raidkmd over the loopback, for tests and benchmarks: the
 * daemon core runs on its own thread, the caller drives the kernel end
 * (rkm_loop.h) on its thread.  Header-only.
 */
#ifndef RKM_LOOP_DAEMON_H
#define RKM_LOOP_DAEMON_H

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rkmd.h"
#include "loopback/rkm_loop.h"

struct rkm_loop_daemon {
	struct rkm_loop *loop;
	struct rkmd_transport t;
	struct rkmd_core_cfg cfg;
	struct rkmd_stats st;
	struct rkmd_core *volatile core;
	volatile int stop;
	volatile int finished;
	int ret;
	pthread_t th;
};

static void *rkm_loop_daemon_main(void *arg)
{
	struct rkm_loop_daemon *d = arg;

	d->ret = rkmd_serve(&d->t, &d->cfg, &d->st, &d->core);
	d->t.ops->close(&d->t);
	__atomic_store_n(&d->finished, 1, __ATOMIC_RELEASE);
	return NULL;
}

/* Start a daemon core on @l with @be; returns 0 once it is attached. */
static inline int rkm_loop_daemon_start(struct rkm_loop_daemon *d,
					struct rkm_loop *l,
					const struct rkmd_backend_ops *be,
					int threads)
{
	char why[256];
	int fd, ret;

	memset(d, 0, sizeof(*d));
	d->loop = l;
	d->cfg.backend = be;
	d->cfg.threads = threads;
	d->cfg.quiet_stats = 1;
	d->cfg.stop_flag = &d->stop;
	/* raidkmd's --spin; RKMD_SPIN_US overrides it (benchmarks) */
	d->cfg.spin_us = getenv("RKMD_SPIN_US") ?
			 (uint32_t)atoi(getenv("RKMD_SPIN_US")) :
			 RKMD_SPIN_US_DEFAULT;
	fd = dup(rkm_loop_daemon_fd(l));
	rkm_loop_release_daemon_fd(l);
	ret = rkmd_loop_open(&d->t, fd, why, sizeof(why));
	if (ret) {
		fprintf(stderr, "loopback open: %s\n", why);
		return ret;
	}
	if (pthread_create(&d->th, NULL, rkm_loop_daemon_main, d))
		return -1;
	return rkm_loop_wait_attach(l, 10000);
}

/* Ask the daemon to drain and detach; keep serving the kernel end until
 * its thread ends.  Completions go to done().  Returns rkmd_serve's value.
 */
static inline int rkm_loop_daemon_stop(struct rkm_loop_daemon *d,
				       rkm_loop_done_fn done, void *arg)
{
	__atomic_store_n(&d->stop, 1, __ATOMIC_RELAXED);
	while (!__atomic_load_n(&d->finished, __ATOMIC_ACQUIRE)) {
		rkm_loop_wait(d->loop, 5);
		rkm_loop_reap(d->loop, done, arg);
	}
	pthread_join(d->th, NULL);
	rkm_loop_reap(d->loop, done, arg);
	return d->ret;
}

#endif
