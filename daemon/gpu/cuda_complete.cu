// SPDX-License-Identifier: GPL-2.0
/*
 * The CUDA backend's completion: each slot's thread waits for its batch
 * (by the kernel's completion word or its event), completes the jobs and
 * launches queued work.
 */
#include <sys/prctl.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda_priv.h"

/* ---- completion ------------------------------------------------------- */

static inline void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#elif defined(__aarch64__)
	asm volatile("yield" ::: "memory");
#endif
}

/*
 * Wait for a batch without burning a core: sleep for half of what the
 * link model says is left, repeatedly, then poll; a late batch is polled
 * with a growing back-off.  The model is optimistic (RKMD_CUDA_GBPS,
 * default 64 GB/s), so it undershoots and the last stretch is polled.
 * A batch with a completion flag (sl->flag) is done when its host word
 * holds sl->fseq (a plain load); its event is asked only every 20 us,
 * for errors.  Other batches: the event.
 */
static cudaError_t wait_batch(struct slot *sl)
{
	const uint64_t t0 = now_ns(), deadline = sl->deadline_ns;
	const uint64_t limit = sl->b->hang_ns;	/* hung past it */
	uint64_t asked = t0;
	unsigned int spins = 0;

	if (sl->withhold) {	/* tests: it runs, nobody looks */
		sleep_ns(limit + 1000000);
		return cudaErrorLaunchTimeout;
	}

	for (;;) {
		cudaError_t e;
		uint64_t t, late;

		if (sl->flag) {
			if (__atomic_load_n(sl->hdone, __ATOMIC_ACQUIRE) ==
			    sl->fseq)
				return cudaSuccess;
			if (++spins % 64) {
				cpu_relax();
				continue;
			}
			t = now_ns();
			if (t - asked >= 20000) {
				asked = t;
				e = cudaEventQuery(sl->ev);
				if (e != cudaErrorNotReady)
					return e;
			}
		} else {
			e = cudaEventQuery(sl->ev);
			if (e != cudaErrorNotReady)
				return e;
			t = now_ns();
		}
		if (t - t0 > limit)
			return cudaErrorLaunchTimeout;
		if (t + 50000 < deadline) {
			sleep_ns((deadline - t) / 2);
			continue;
		}
		late = t > deadline ? t - deadline : 0;
		if (late < 200000) {
			if (++spins % 64 == 0)
				sched_yield();
		} else {
			sleep_ns(late / 16 > 1000000 ? 1000000 : late / 16);
		}
	}
}

void *slot_thread(void *arg)
{
	struct slot *sl = (struct slot *)arg;
	struct cuda_backend *b = sl->b;
	std::vector<struct rkmd_job *> jobs, failed;

	prctl(PR_SET_TIMERSLACK, 1000UL, 0, 0, 0);
	use_ctx(b);
	if (b->node >= 0)	/* it polls host words next to the GPU */
		rkg_numa_bind_thread(b->node);
	pthread_mutex_lock(&b->lock);
	for (;;) {
		cudaError_t e;
		int status = 0;
		size_t i;

		while (!sl->busy && !b->stop)
			pthread_cond_wait(&sl->cv, &b->lock);
		if (!sl->busy)
			break;
		e = sl->err;
		pthread_mutex_unlock(&b->lock);
		if (e == cudaSuccess && !b->dead) {
			e = wait_batch(sl);
			/* a sign of life before the lock, which may be held */
			if (e == cudaSuccess)
				__atomic_add_fetch(&b->pulse_batches, 1,
						   __ATOMIC_RELAXED);
		} else if (e == cudaSuccess)
			e = cudaEventQuery(sl->ev) == cudaSuccess ?
			    cudaSuccess : cudaErrorDevicesUnavailable;
		pthread_mutex_lock(&b->lock);

		if (sl->holds_region)
			pool_put(b, sl->p);
		sl->holds_region = 0;
		if (!--b->nbusy)
			b->busy_until_ns = 0;
		if (e != cudaSuccess) {
			status = cuda_errno(e);
			b->stats.errors++;
			rkmd_err("cuda: batch of %zu jobs failed: %s (%s)%s",
				 sl->jobs.size(), cudaGetErrorName(e),
				 cudaGetErrorString(e),
				 cuda_fatal(e) && !b->dead ?
				 "; GPU unusable, failing all jobs" : "");
			if (cuda_fatal(e) && !b->dead) {
				if (e == cudaErrorLaunchTimeout)
					snprintf(b->dead_why, sizeof(b->dead_why),
						 "a batch hung for %llu ms",
						 (unsigned long long)(b->hang_ns / 1000000));
				else
					snprintf(b->dead_why, sizeof(b->dead_why),
						 "%s (%s)%s", cudaGetErrorName(e),
						 cudaGetErrorString(e),
						 sl->injected ? ", injected" : "");
				__atomic_store_n(&b->dead, 1, __ATOMIC_RELEASE);
			}
		} else if (sl->p->mode == RKG_CHECK) {
			const int32_t *f = sl->hflags;

			for (i = 0; i < sl->jobs.size(); i++) {
				struct rkmd_job *j = sl->jobs[i];

				for (uint32_t s = 0; s < j->nstripes; s++)
					j->result[s] = *f++ ? 1 : 0;
			}
		}
		jobs.swap(sl->jobs);
		sl->jobs.clear();
		sl->busy = 0;
		sl->p = NULL;
		if (b->dead) {
			failed.swap(b->pending);
			b->pending.clear();
		} else {
			kick(b);
		}
		pthread_mutex_unlock(&b->lock);

		for (i = 0; i < jobs.size(); i++)
			b->done(b->ctx, jobs[i], status);
		for (i = 0; i < failed.size(); i++)	/* never started */
			b->done(b->ctx, failed[i], -EAGAIN);

		/* a done() that re-ran a job on another instance switched */
		use_ctx(b);
		pthread_mutex_lock(&b->lock);
		b->outstanding -= jobs.size() + failed.size();
		if (!b->outstanding)
			pthread_cond_broadcast(&b->idle);
		jobs.clear();
		failed.clear();
	}
	pthread_mutex_unlock(&b->lock);
	return NULL;
}
