// SPDX-License-Identifier: GPL-2.0
/*
 * raidkmd CUDA backend (struct rkmd_backend_ops rkmd_cuda_backend): one
 * instance per GPU and context, its ops and the hooks of cuda_backend.h.
 * The design and the measurements behind it: Documentation/gpu.rst.
 * Files: cuda_device.cu (device, context, arena registration),
 * cuda_plan.cu (plans, constant pool, NVRTC kernels), cuda_stage.cu
 * (buffers), cuda_launch.cu (batches), cuda_complete.cu (completion).
 */
#include <unistd.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda_priv.h"

static int cuda_probe(char *why, size_t whylen)
{
	return rkmd_cuda_probe_dev(pick_device(), why, whylen);
}

static void cuda_close(struct rkmd_backend *be);

static struct rkmd_backend *cuda_open(void *base, size_t len, size_t ro_len,
				      int nthreads,
				      rkmd_complete_fn done, void *ctx,
				      char *why, size_t whylen)
{
	return rkmd_cuda_open_dev(pick_device(), 0, base, len, ro_len,
				  nthreads, done, ctx, why, whylen);
}

extern "C" struct rkmd_backend *
rkmd_cuda_open_dev(int dev, int own_ctx, void *base, size_t len,
		   size_t ro_len, int nthreads, rkmd_complete_fn done,
		   void *ctx, char *why, size_t whylen)
{
	struct cuda_backend *b;
	void *dptr = NULL;
	const char *gbps = getenv("RKMD_CUDA_GBPS");
	const char *stage = getenv("RKMD_CUDA_STAGE");
	const char *hang = getenv("RKMD_CUDA_HANG_MS");
	cudaError_t e;
	int i;

	if (rkmd_cuda_probe_dev(dev, why, whylen))
		return NULL;
	b = new (std::nothrow) cuda_backend();
	if (!b) {
		snprintf(why, whylen, "out of memory");
		return NULL;
	}
	b->base = (char *)base;
	b->len = len;
	b->dev = dev;
	b->node = -1;
	b->hang_ns = (hang && atoi(hang) > 0 ? (uint64_t)atoi(hang) :
		      20000ull) * 1000000ull;
	b->done = done;
	b->ctx = ctx;
	b->ns_per_byte = 1.0 / (gbps && atof(gbps) > 0 ? atof(gbps) : 64.0);
	b->stage_mode = !stage || !strcmp(stage, "auto") ? STAGE_DEFAULT :
			(int)strtol(stage, NULL, 0);
	b->stage_min = STAGE_MIN;
	{
		/* Tests: a device-side trap at the N-th job kills the context. */
		const char *trap = getenv("RKMD_CUDA_TRAP_AFTER");

		b->trap_after = trap ? strtoull(trap, NULL, 0) : 0;
	}
	{
		const char *sub = getenv("RKMD_CUDA_SUB_MIB");
		const char *mn = getenv("RKMD_CUDA_STAGE_MIN_KIB");

		if (mn && atoi(mn) > 0)
			b->stage_min = (uint64_t)atoi(mn) << 10;

		b->sub_bytes = sub && atoi(sub) > 0 ?
			       (uint64_t)atoi(sub) << 20 : SUB_BYTES;
	}
	set_streams(b);
	{
		const char *f = getenv("RKMD_CUDA_FLAG");

		b->flag_mode = f ? atoi(f) : 1;
	}
	{
		const char *j = getenv("RKMD_CUDA_JIT");

		b->jit_mode = !j ? 1 : !strcmp(j, "sync") ? 2 : atoi(j) ? 1 : 0;
		if (b->jit_mode && !rkg_jit_available(NULL, 0))
			b->jit_mode = 0;
	}
	pthread_cond_init(&b->jit_cv, NULL);
	pthread_mutex_init(&b->lock, NULL);
	pthread_cond_init(&b->idle, NULL);

	why[0] = 0;
	e = start_context(b, own_ctx, why, whylen);
	if (e != cudaSuccess)
		goto fail_early;
	e = arena_get(b, ro_len, &dptr, why, whylen);
	if (e != cudaSuccess)
		goto fail_early;
	b->delta = (intptr_t)((char *)dptr - (char *)base);
	if (b->node >= 0)	/* the completion words next to the GPU */
		rkg_numa_prefer(b->node);
	e = cudaHostAlloc(&b->fhost, FLAG_HOST_BYTES, cudaHostAllocMapped |
			  cudaHostAllocPortable);
	if (b->node >= 0)
		rkg_numa_unprefer();
	if (e == cudaSuccess) {
		memset(b->fhost, 0, FLAG_HOST_BYTES);
		b->hang_word = (uint32_t *)((char *)b->fhost + HANG_WORD);
		e = cudaHostGetDevicePointer(&b->fhost_d, b->fhost, 0);
	}
	if (e == cudaSuccess)
		e = cudaMalloc(&b->fdev, FLAG_DEV_BYTES);
	if (e == cudaSuccess)
		e = cudaMemset(b->fdev, 0, FLAG_DEV_BYTES);
	if (e != cudaSuccess) {
		snprintf(why, whylen, "CUDA completion words: %s",
			 cudaGetErrorString(e));
		cudaFreeHost(b->fhost);
		cudaFree(b->fdev);
		goto fail_early;
	}
	e = cudaStreamCreateWithFlags(&b->upload, cudaStreamNonBlocking);
	for (i = 0; i < RKMD_STAGE_MAXSTREAMS && e == cudaSuccess; i++)
		e = cudaStreamCreateWithFlags(&b->h2d[i],
					      cudaStreamNonBlocking);
	if (e == cudaSuccess)
		e = cudaStreamCreateWithFlags(&b->d2h, cudaStreamNonBlocking);
	if (e != cudaSuccess) {
		cudaFreeHost(b->fhost);
		cudaFree(b->fdev);
		snprintf(why, whylen, "CUDA stream setup: %s",
			 cudaGetErrorString(e));
		goto fail_early;
	}

	for (i = 0; i < NSLOT; i++) {
		struct slot *sl = &b->s[i];

		sl->b = b;
		sl->idx = i;
		sl->hdone = (uint32_t *)((char *)b->fhost + i * 64);
		sl->hdone_d = (uint32_t *)((char *)b->fhost_d + i * 64);
		sl->dcount = (uint32_t *)((char *)b->fdev + i * 128);
		pthread_cond_init(&sl->cv, NULL);
		e = cudaStreamCreateWithFlags(&sl->st, cudaStreamNonBlocking);
		if (e == cudaSuccess)
			e = cudaEventCreateWithFlags(&sl->ev,
						     cudaEventDisableTiming);
		if (e == cudaSuccess)
			e = cudaEventCreateWithFlags(&sl->cev,
						     cudaEventDisableTiming);
		if (e == cudaSuccess)
			e = cudaEventCreateWithFlags(&sl->kev,
						     cudaEventDisableTiming);
		if (e == cudaSuccess)
			e = cudaEventCreateWithFlags(&sl->oev,
						     cudaEventDisableTiming);
		if (e == cudaSuccess)
			e = grow(sl, 4096, 1024);
		if (e != cudaSuccess) {
			snprintf(why, whylen, "CUDA stream setup: %s",
				 cudaGetErrorString(e));
			cuda_close((struct rkmd_backend *)b);
			return NULL;
		}
		if (pthread_create(&sl->th, NULL, slot_thread, sl)) {
			snprintf(why, whylen, "cannot start thread");
			cuda_close((struct rkmd_backend *)b);
			return NULL;
		}
		sl->th_ok = 1;
	}
	if (b->jit_mode == 1) {
		if (pthread_create(&b->jit_th, NULL, jit_thread, b))
			b->jit_mode = 0;
		else
			b->jit_th_ok = 1;
	}
	return (struct rkmd_backend *)b;

fail_early:
	arena_put(b);
	ctx_release(b);
	pthread_mutex_destroy(&b->lock);
	pthread_cond_destroy(&b->idle);
	delete b;
	return NULL;
}

static int cuda_submit(struct rkmd_backend *be, struct rkmd_job *job)
{
	struct cuda_backend *b = (struct cuda_backend *)be;
	int r;

	pthread_mutex_lock(&b->lock);
	if (b->dead) {
		pthread_mutex_unlock(&b->lock);
		return -EIO;
	}
	/* the submitting thread may serve several instances */
	if (use_ctx(b) != cudaSuccess) {
		pthread_mutex_unlock(&b->lock);
		return -EIO;
	}
	r = job_ok(b, job);
	if (r) {
		pthread_mutex_unlock(&b->lock);
		return r;
	}
	if (b->trap_after && !--b->trap_after)
		b->inject_trap = 1;
	b->pending.push_back(job);
	b->outstanding++;
	kick(b);
	pthread_mutex_unlock(&b->lock);
	return 0;
}

static void cuda_drain(struct rkmd_backend *be)
{
	struct cuda_backend *b = (struct cuda_backend *)be;

	pthread_mutex_lock(&b->lock);
	while (b->outstanding)
		pthread_cond_wait(&b->idle, &b->lock);
	pthread_mutex_unlock(&b->lock);
}

static void cuda_close(struct rkmd_backend *be)
{
	struct cuda_backend *b = (struct cuda_backend *)be;
	int i;

	cuda_drain(be);
	use_ctx(b);
	pthread_mutex_lock(&b->lock);
	if (b->hang_armed) {	/* let the held batch end, then tear down */
		__atomic_store_n(b->hang_word, 1, __ATOMIC_RELEASE);
		rkmd_info("cuda: the injected hang on device %d released", b->dev);
	}
	b->stop = 1;
	for (i = 0; i < NSLOT; i++)
		pthread_cond_signal(&b->s[i].cv);
	pthread_cond_signal(&b->jit_cv);
	pthread_mutex_unlock(&b->lock);
	if (b->jit_th_ok)
		pthread_join(b->jit_th, NULL);
	for (i = 0; i < NSLOT; i++) {
		struct slot *sl = &b->s[i];

		if (sl->th_ok)
			pthread_join(sl->th, NULL);
		if (sl->st)
			cudaStreamSynchronize(sl->st);
		if (sl->ev)
			cudaEventDestroy(sl->ev);
		if (sl->cev)
			cudaEventDestroy(sl->cev);
		if (sl->kev)
			cudaEventDestroy(sl->kev);
		if (sl->oev)
			cudaEventDestroy(sl->oev);
		if (sl->st)
			cudaStreamDestroy(sl->st);
		cudaFreeHost(sl->htab);
		cudaFree(sl->dtab);
		cudaFreeHost(sl->hflags);
		cudaFree(sl->dflags);
		cudaFree(sl->dstage);
		cudaFree(sl->dout);
		pthread_cond_destroy(&sl->cv);
	}
	if (b->stats.launches)
		rkmd_info("cuda: %llu jobs (%llu stripes) in %llu launches, %llu MiB moved, %llu coefficient uploads, %llu errors",
			  (unsigned long long)b->stats.jobs,
			  (unsigned long long)b->stats.stripes,
			  (unsigned long long)b->stats.launches,
			  (unsigned long long)(b->stats.bytes >> 20),
			  (unsigned long long)b->stats.uploads,
			  (unsigned long long)b->stats.errors);
	if (b->stats.jit_kernels)
		rkmd_info("cuda: %llu specialised kernels compiled, %llu launches used them",
			  (unsigned long long)b->stats.jit_kernels,
			  (unsigned long long)b->stats.jit_launches);
	if (b->upload)
		cudaStreamDestroy(b->upload);
	for (i = 0; i < RKMD_STAGE_MAXSTREAMS; i++)
		if (b->h2d[i]) {
			cudaStreamSynchronize(b->h2d[i]);
			cudaStreamDestroy(b->h2d[i]);
		}
	if (b->d2h) {
		cudaStreamSynchronize(b->d2h);
		cudaStreamDestroy(b->d2h);
	}
	cudaFreeHost(b->fhost);
	cudaFree(b->fdev);
	arena_put(b);
	for (auto &kv : b->plans) {
		rkg_jit_free(kv.second->jit);
		free(kv.second->ktab);
		free(kv.second);
	}
	for (i = 0; i <= RKM_MAX_N; i++)
		for (int m = 0; m <= RKM_MAX_M; m++)
			if (b->code[i][m])
				rkm_code_destroy(b->code[i][m]);
	ctx_release(b);
	pthread_cond_destroy(&b->jit_cv);
	pthread_mutex_destroy(&b->lock);
	pthread_cond_destroy(&b->idle);
	delete b;
}

extern "C" int rkmd_cuda_dead(struct rkmd_backend *be, char *why,
			      size_t len)
{
	struct cuda_backend *b = (struct cuda_backend *)be;
	int dead;

	pthread_mutex_lock(&b->lock);
	dead = b->dead;
	if (dead && why)
		snprintf(why, len, "%s", b->dead_why);
	pthread_mutex_unlock(&b->lock);
	return dead;
}

extern "C" void rkmd_cuda_where(struct rkmd_backend *be, char *buf,
				size_t len)
{
	struct cuda_backend *b = (struct cuda_backend *)be;

	snprintf(buf, len, "%s, node %d%s", b->busid[0] ? b->busid : "?",
		 b->node, b->cuctx ? ", own context" : "");
}

extern "C" void rkmd_cuda_inject_trap(struct rkmd_backend *be)
{
	struct cuda_backend *b = (struct cuda_backend *)be;

	pthread_mutex_lock(&b->lock);
	b->inject_trap = 1;
	pthread_mutex_unlock(&b->lock);
}

extern "C" void rkmd_cuda_inject_fail(struct rkmd_backend *be)
{
	struct cuda_backend *b = (struct cuda_backend *)be;

	pthread_mutex_lock(&b->lock);
	b->inject_fail = 1;
	pthread_mutex_unlock(&b->lock);
}

extern "C" void rkmd_cuda_inject_hang(struct rkmd_backend *be, int how)
{
	struct cuda_backend *b = (struct cuda_backend *)be;

	pthread_mutex_lock(&b->lock);
	b->inject_hang = how;
	pthread_mutex_unlock(&b->lock);
}

extern "C" void rkmd_cuda_set_stage(struct rkmd_backend *be, int mode)
{
	struct cuda_backend *b = (struct cuda_backend *)be;

	pthread_mutex_lock(&b->lock);
	b->stage_mode = mode < 0 ? STAGE_DEFAULT : mode;
	set_streams(b);
	pthread_mutex_unlock(&b->lock);
}

extern "C" void rkmd_cuda_get_stats(struct rkmd_backend *be,
				    struct rkmd_cuda_stats *st)
{
	struct cuda_backend *b = (struct cuda_backend *)be;

	pthread_mutex_lock(&b->lock);
	*st = b->stats;
	pthread_mutex_unlock(&b->lock);
}

extern "C" void rkmd_cuda_pulse(struct rkmd_backend *be,
				struct rkmd_cuda_pulse *p)
{
	struct cuda_backend *b = (struct cuda_backend *)be;

	p->batches = __atomic_load_n(&b->pulse_batches, __ATOMIC_RELAXED);
	p->setup_ns = __atomic_load_n(&b->setup_ns, __ATOMIC_RELAXED);
}

extern "C" const struct rkmd_backend_ops rkmd_cuda_backend = {
	"cuda",
	cuda_probe,
	cuda_open,
	cuda_submit,
	cuda_drain,
	cuda_close,
	1,	/* decode_want: DECODE writes only the wanted chunks */
};
