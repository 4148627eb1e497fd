// SPDX-License-Identifier: GPL-2.0
/*
 * The CUDA backend's device and context: which devices can serve, the
 * primary context or one of the instance's own, and the arena's
 * registration for zero-copy access, shared by every instance of the
 * process.
 */
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda_priv.h"

/* ---- contexts: the primary one, or one of the instance's own ---------- */

/*
 * The few driver calls an own context needs, looked up through the
 * runtime (cudaGetDriverEntryPointByVersion): raidkmd does not link
 * libcuda, so that it starts on a host without the NVIDIA driver.
 */
static struct {
	pthread_once_t once;
	PFN_cuDeviceGet_v2000 dev_get;
	PFN_cuCtxCreate_v3020 create;
	PFN_cuCtxDestroy_v4000 destroy;
	PFN_cuCtxSetCurrent_v4000 set_current;
} drv = { PTHREAD_ONCE_INIT };

static void drv_lookup(void)
{
	cudaDriverEntryPointQueryResult q;

	if (cudaGetDriverEntryPointByVersion("cuDeviceGet",
					     (void **)&drv.dev_get, 2000,
					     cudaEnableDefault, &q) ||
	    q != cudaDriverEntryPointSuccess)
		drv.dev_get = NULL;
	if (cudaGetDriverEntryPointByVersion("cuCtxCreate",
					     (void **)&drv.create, 3020,
					     cudaEnableDefault, &q) ||
	    q != cudaDriverEntryPointSuccess)
		drv.create = NULL;
	if (cudaGetDriverEntryPointByVersion("cuCtxDestroy",
					     (void **)&drv.destroy, 4000,
					     cudaEnableDefault, &q) ||
	    q != cudaDriverEntryPointSuccess)
		drv.destroy = NULL;
	if (cudaGetDriverEntryPointByVersion("cuCtxSetCurrent",
					     (void **)&drv.set_current, 4000,
					     cudaEnableDefault, &q) ||
	    q != cudaDriverEntryPointSuccess)
		drv.set_current = NULL;
}

/* Create an own context on dev (and make it current); 0 or a CUresult */
static int ctx_create(int dev, CUcontext *ctx)
{
	CUdevice d;
	CUresult r;

	pthread_once(&drv.once, drv_lookup);
	if (!drv.dev_get || !drv.create || !drv.destroy || !drv.set_current)
		return CUDA_ERROR_NOT_FOUND;
	r = drv.dev_get(&d, dev);
	if (r == CUDA_SUCCESS)
		r = drv.create(ctx, CU_CTX_MAP_HOST, d);
	return r;
}

/* Make the instance's context current to the calling thread. */
cudaError_t use_ctx(const struct cuda_backend *b)
{
	if (b->cuctx)
		return drv.set_current(b->cuctx) == CUDA_SUCCESS ?
		       cudaSuccess : cudaErrorContextIsDestroyed;
	return cudaSetDevice(b->dev);
}

/*
 * The arena's registration, shared by every instance of the process: a
 * range can be registered only once, and a portable, mapped registration
 * serves all devices and contexts.  It is made in the primary context of
 * the first instance's device (never destroyed here, unlike an own
 * context) and undone there by the last reference.
 */
static struct {
	pthread_mutex_t lock;
	char *base;
	size_t len, ro_len;
	int refs, dev;
} reg = { PTHREAD_MUTEX_INITIALIZER };

/* ---- backend ops ---------------------------------------------------------- */

int pick_device(void)
{
	const char *s = getenv("RKMD_CUDA_DEVICE");

	return s ? atoi(s) : 0;
}

extern "C" int rkmd_cuda_count(char *why, size_t whylen)
{
	int n = 0;
	cudaError_t e = cudaGetDeviceCount(&n);

	if (e == cudaErrorInsufficientDriver) {
		void *h = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_LOCAL);

		if (!h) {
			snprintf(why, whylen,
				 "no usable CUDA device: no NVIDIA driver (libcuda.so.1 not found)");
			return -ENODEV;
		}
		dlclose(h);
	}
	if (e != cudaSuccess) {
		snprintf(why, whylen, "no usable CUDA device: %s (%s)",
			 cudaGetErrorString(e), cudaGetErrorName(e));
		return -ENODEV;
	}
	return n;
}

extern "C" int rkmd_cuda_probe_dev(int dev, char *why, size_t whylen)
{
	struct cudaDeviceProp pr;
	int n, rt = 0, drv_v = 0;
	cudaError_t e;

	n = rkmd_cuda_count(why, whylen);
	if (n < 0)
		return n;
	if (dev < 0 || dev >= n) {
		snprintf(why, whylen, "CUDA device %d does not exist (%d found)",
			 dev, n);
		return -ENODEV;
	}
	e = cudaGetDeviceProperties(&pr, dev);
	if (e != cudaSuccess) {
		snprintf(why, whylen, "CUDA device %d: %s", dev,
			 cudaGetErrorString(e));
		return -ENODEV;
	}
	if (pr.major < 7) {
		snprintf(why, whylen,
			 "%s has compute capability %d.%d; raidkmd needs 7.0 or newer",
			 pr.name, pr.major, pr.minor);
		return -ENODEV;
	}
	if (!pr.canMapHostMemory || !pr.unifiedAddressing) {
		snprintf(why, whylen, "%s cannot map host memory", pr.name);
		return -ENODEV;
	}
	cudaRuntimeGetVersion(&rt);
	cudaDriverGetVersion(&drv_v);
	snprintf(why, whylen,
		 "%s (sm_%d%d, %d SMs, %zu MiB), driver %d.%d, runtime %d.%d",
		 pr.name, pr.major, pr.minor, pr.multiProcessorCount,
		 pr.totalGlobalMem >> 20, drv_v / 1000, drv_v % 1000 / 10,
		 rt / 1000, rt % 1000 / 10);
	return 0;
}


/*
 * Register the arena for zero-copy access (in the current context): its
 * first b->ro_len bytes (job inputs, mapped read-only by the kernel)
 * read-only for the device too, the rest (outputs) read-write.
 */
static cudaError_t register_arena(struct cuda_backend *b, char *why,
				  size_t whylen)
{
	const unsigned int fl = cudaHostRegisterMapped |
				cudaHostRegisterPortable;
	const size_t ro_len = b->ro_len;
	cudaError_t e;

	if (!ro_len) {
		e = cudaHostRegister(b->base, b->len, fl);
		if (e != cudaSuccess)
			snprintf(why, whylen, "cudaHostRegister(arena, %zu MiB): %s",
				 b->len >> 20, cudaGetErrorString(e));
		return e;
	}
	e = cudaHostRegister(b->base, ro_len, fl | cudaHostRegisterReadOnly);
	if (e != cudaSuccess) {
		snprintf(why, whylen, "cudaHostRegister(inputs, %zu MiB, read-only): %s",
			 ro_len >> 20, cudaGetErrorString(e));
		return e;
	}
	e = cudaHostRegister(b->base + ro_len, b->len - ro_len, fl);
	if (e != cudaSuccess) {
		snprintf(why, whylen, "cudaHostRegister(outputs, %zu MiB): %s",
			 (b->len - ro_len) >> 20, cudaGetErrorString(e));
		cudaHostUnregister(b->base);
	}
	return e;
}

static void unregister_arena(char *base, size_t ro_len)
{
	if (ro_len)
		cudaHostUnregister(base + ro_len);
	cudaHostUnregister(base);
}

/*
 * Take a reference on the process's registration of the arena (made by
 * the first instance, in its device's primary context) and find the
 * arena's device address in this instance's context.  Both parts must
 * translate with one offset.
 */
cudaError_t arena_get(struct cuda_backend *b, size_t ro_len,
			     void **dptr, char *why, size_t whylen)
{
	void *d2 = NULL;
	cudaError_t e = cudaSuccess;
	int ro_ok = 0;

	b->ro_len = !ro_len || ro_len >= b->len ? 0 : ro_len;
	if (b->ro_len) {
		cudaDeviceGetAttribute(&ro_ok,
				       cudaDevAttrHostRegisterReadOnlySupported,
				       b->dev);
		if (!ro_ok) {
			snprintf(why, whylen, "the kernel maps job inputs read-only and this GPU cannot register read-only host memory");
			return cudaErrorNotSupported;
		}
	}
	pthread_mutex_lock(&reg.lock);
	if (reg.refs && (reg.base != b->base || reg.len != b->len ||
			 reg.ro_len != b->ro_len)) {
		snprintf(why, whylen, "another arena is registered in this process");
		e = cudaErrorInvalidValue;
	} else if (!reg.refs) {
		e = cudaSetDevice(b->dev);	/* its primary context */
		if (e == cudaSuccess)
			e = register_arena(b, why, whylen);
		else
			snprintf(why, whylen, "CUDA device %d: %s", b->dev,
				 cudaGetErrorString(e));
		if (use_ctx(b) != cudaSuccess && e == cudaSuccess) {
			unregister_arena(b->base, b->ro_len);
			snprintf(why, whylen, "cannot return to the instance's context");
			e = cudaErrorContextIsDestroyed;
		}
		if (e == cudaSuccess) {
			reg.base = b->base;
			reg.len = b->len;
			reg.ro_len = b->ro_len;
			reg.dev = b->dev;
		}
	}
	if (e == cudaSuccess) {
		reg.refs++;
		b->registered = 1;
	}
	pthread_mutex_unlock(&reg.lock);
	if (e != cudaSuccess)
		return e;

	e = cudaHostGetDevicePointer(dptr, b->base, 0);
	if (e == cudaSuccess && b->ro_len)
		e = cudaHostGetDevicePointer(&d2, b->base + b->ro_len, 0);
	if (e == cudaSuccess && b->ro_len &&
	    (char *)d2 - (char *)*dptr != (ptrdiff_t)b->ro_len) {
		snprintf(why, whylen, "the two registrations of the arena do not translate alike");
		e = cudaErrorInvalidValue;
	} else if (e != cudaSuccess) {
		snprintf(why, whylen, "cudaHostGetDevicePointer(arena): %s",
			 cudaGetErrorString(e));
	}
	return e;
}

/* Drop the reference; the last one undoes the registration. */
void arena_put(struct cuda_backend *b)
{
	if (!b->registered)
		return;
	b->registered = 0;
	pthread_mutex_lock(&reg.lock);
	if (!--reg.refs) {
		if (cudaSetDevice(reg.dev) == cudaSuccess)
			unregister_arena(reg.base, reg.ro_len);
		use_ctx(b);
		reg.base = NULL;
	}
	pthread_mutex_unlock(&reg.lock);
}

/* Start CUDA on the instance's device, in its primary or own context. */
cudaError_t start_context(struct cuda_backend *b, int own_ctx,
				 char *why, size_t whylen)
{
	cudaError_t e;
	int r;

	if (own_ctx) {
		r = ctx_create(b->dev, &b->cuctx);
		if (r) {
			b->cuctx = NULL;
			snprintf(why, whylen, "cannot create a CUDA context on device %d: driver error %d",
				 b->dev, r);
			return cudaErrorUnknown;
		}
		e = cudaSuccess;
	} else {
		e = cudaSetDevice(b->dev);
		if (e == cudaSuccess)
			e = cudaFree(0);	/* create the context now */
		if (e != cudaSuccess)
			snprintf(why, whylen, "cannot start CUDA on device %d: %s",
				 b->dev, cudaGetErrorString(e));
	}
	if (cudaDeviceGetPCIBusId(b->busid, sizeof(b->busid), b->dev) !=
	    cudaSuccess)
		b->busid[0] = 0;
	b->node = rkg_numa_node(b->busid);
	return e;
}

void ctx_release(struct cuda_backend *b)
{
	if (b->cuctx)
		drv.destroy(b->cuctx);
	b->cuctx = NULL;
}
