// SPDX-License-Identifier: GPL-2.0
/*
 * Run-time specialised coding kernels (NVRTC): for one coefficient matrix
 * (a plan: nin inputs, nout outputs), generate a kernel with every
 * coefficient compiled in, compile it for the device and load it.
 *
 * With the coefficients known, multiplication goes back to powers: for
 * each input word the kernel computes x, 2x, 4x ... up to the highest
 * bit any coefficient of that input uses (one xtime each), and output e
 * XORs together exactly the powers whose bit is set in coef[e][j]; the
 * compiler merges those XORs three at a time into LOP3.  That is about 2
 * instructions per output and word instead of the 8 folds of the generic
 * kernels (rkg_kernels.cu), which cannot skip zero bits of a coefficient
 * they only see at run time.  Straight-line code grows with nin * nout,
 * so a thread owns one 32-bit word per chunk (a quarter of the generic
 * kernels' code per input).
 *
 * libnvrtc is opened with dlopen(): raidkmd neither links it nor needs it
 * (without it, the generic kernels serve every plan).  Only the STORE mode
 * (encode, decode) is generated.
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <string>

#include <cuda_runtime.h>

#include "rkg.h"
#include "rkg_jit.h"

/* the slice of nvrtc.h used here (the library is opened at run time) */
typedef int nvrtcResult_t;
typedef struct _nvrtcProgram *nvrtcProgram_t;

static struct {
	int tried, ok;
	char why[160];
	nvrtcResult_t (*create)(nvrtcProgram_t *, const char *, const char *,
				int, const char *const *, const char *const *);
	nvrtcResult_t (*compile)(nvrtcProgram_t, int, const char *const *);
	nvrtcResult_t (*cubin_size)(nvrtcProgram_t, size_t *);
	nvrtcResult_t (*cubin)(nvrtcProgram_t, char *);
	nvrtcResult_t (*log_size)(nvrtcProgram_t, size_t *);
	nvrtcResult_t (*log)(nvrtcProgram_t, char *);
	nvrtcResult_t (*destroy)(nvrtcProgram_t *);
} nv;

struct rkg_jit {
	cudaLibrary_t lib;
	cudaKernel_t kern;
};

extern "C" int rkg_jit_available(char *why, size_t whylen)
{
	static const char *const names[] = {
		"libnvrtc.so.13", "libnvrtc.so", "/usr/local/cuda/lib64/libnvrtc.so.13",
		"/usr/local/cuda/lib64/libnvrtc.so",
	};
	void *h = NULL;

	if (nv.tried)
		goto out;
	nv.tried = 1;
	if (getenv("RKMD_NVRTC"))
		h = dlopen(getenv("RKMD_NVRTC"), RTLD_NOW | RTLD_LOCAL);
	for (size_t i = 0; !h && i < sizeof(names) / sizeof(names[0]); i++)
		h = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		snprintf(nv.why, sizeof(nv.why), "libnvrtc not found");
		goto out;
	}
#define SYM(f, n) (*(void **)&nv.f = dlsym(h, n))
	if (!SYM(create, "nvrtcCreateProgram") ||
	    !SYM(compile, "nvrtcCompileProgram") ||
	    !SYM(cubin_size, "nvrtcGetCUBINSize") ||
	    !SYM(cubin, "nvrtcGetCUBIN") ||
	    !SYM(log_size, "nvrtcGetProgramLogSize") ||
	    !SYM(log, "nvrtcGetProgramLog") ||
	    !SYM(destroy, "nvrtcDestroyProgram")) {
		snprintf(nv.why, sizeof(nv.why), "libnvrtc lacks %s", "symbols");
		goto out;
	}
#undef SYM
	nv.ok = 1;
	snprintf(nv.why, sizeof(nv.why), "nvrtc");
out:
	if (why)
		snprintf(why, whylen, "%s", nv.why);
	return nv.ok;
}

static uint8_t mul2(uint8_t a)
{
	return (uint8_t)((a << 1) ^ ((a & 0x80) ? 0x1d : 0));
}

/* The kernel source for one coefficient set. */
static std::string jit_source(const struct rkg_coef *c, int nin, int nout)
{
	std::string s;
	char buf[160];

	s += "typedef unsigned int u32; typedef unsigned long long u64;\n"
	     "static __device__ __forceinline__ u32 xt(u32 x)\n"
	     "{ u32 h = x & 0x80808080u; return ((x ^ h) << 1) ^ ((h >> 7) * 0x1du); }\n"
	     "extern \"C\" __global__ void __launch_bounds__(128)\n"
	     "rkg_jit(const u64 *tab, u32 words, u32 stride)\n{\n"
	     " const u32 v = blockIdx.x * 128 + threadIdx.x;\n"
	     " if (v >= words) return;\n"
	     " const u64 *t = tab + (u64)blockIdx.y * stride;\n";
	for (int j = 0; j < nin; j++) {
		snprintf(buf, sizeof(buf), " const u32 x%d = ((const u32 *)t[%d])[v];\n",
			 j, j);
		s += buf;
	}
	for (int e = 0; e < nout; e++) {
		snprintf(buf, sizeof(buf), " u32 a%d = 0;\n", e);
		s += buf;
	}
	for (int j = 0; j < nin; j++) {
		int top = -1;

		for (int e = 0; e < nout; e++)
			for (int b = 0; b < 8; b++)
				if (c->coef[j * RKG_MAX_OUT + e] >> b & 1 && b > top)
					top = b;
		if (top < 0)
			continue;
		snprintf(buf, sizeof(buf), " { const u32 p0 = x%d;", j);
		s += buf;
		for (int b = 1; b <= top; b++) {
			snprintf(buf, sizeof(buf), " const u32 p%d = xt(p%d);", b,
				 b - 1);
			s += buf;
		}
		s += "\n";
		for (int e = 0; e < nout; e++) {
			uint8_t k = c->coef[j * RKG_MAX_OUT + e];

			if (!k)
				continue;
			snprintf(buf, sizeof(buf), "  a%d ^=", e);
			s += buf;
			for (int b = 0, first = 1; b < 8; b++)
				if (k >> b & 1) {
					snprintf(buf, sizeof(buf), "%s p%d",
						 first ? "" : " ^", b);
					s += buf;
					first = 0;
				}
			s += ";\n";
		}
		s += " }\n";
	}
	for (int e = 0; e < nout; e++) {
		snprintf(buf, sizeof(buf), " ((u32 *)t[%d])[v] = a%d;\n",
			 nin + e, e);
		s += buf;
	}
	s += "}\n";
	(void)mul2;
	return s;
}

extern "C" struct rkg_jit *rkg_jit_build(const struct rkg_coef *c, int nin,
					 int nout, char *why, size_t whylen)
{
	struct cudaDeviceProp pr;
	nvrtcProgram_t prog = NULL;
	std::string src, arch;
	const char *opts[2];
	struct rkg_jit *k = NULL;
	size_t n = 0;
	char *bin = NULL;
	int dev = 0;
	cudaError_t e;

	if (!rkg_jit_available(why, whylen))
		return NULL;
	if (nin < 1 || nin > RKG_MAX_IN || nout < 1 || nout > RKG_MAX_OUT) {
		snprintf(why, whylen, "bad shape");
		return NULL;
	}
	cudaGetDevice(&dev);
	if (cudaGetDeviceProperties(&pr, dev) != cudaSuccess) {
		snprintf(why, whylen, "no device properties");
		return NULL;
	}
	arch = "--gpu-architecture=sm_" + std::to_string(pr.major) +
	       std::to_string(pr.minor);
	opts[0] = arch.c_str();
	opts[1] = "--std=c++17";
	src = jit_source(c, nin, nout);
	if (nv.create(&prog, src.c_str(), "rkg_jit.cu", 0, NULL, NULL)) {
		snprintf(why, whylen, "nvrtcCreateProgram failed");
		return NULL;
	}
	if (nv.compile(prog, 2, opts)) {
		size_t ln = 0;
		std::string log;

		nv.log_size(prog, &ln);
		log.resize(ln + 1);
		nv.log(prog, &log[0]);
		snprintf(why, whylen, "nvrtc: %.120s", log.c_str());
		goto done;
	}
	if (nv.cubin_size(prog, &n) || !n || !(bin = (char *)malloc(n)) ||
	    nv.cubin(prog, bin)) {
		snprintf(why, whylen, "nvrtc: no cubin");
		goto done;
	}
	k = (struct rkg_jit *)calloc(1, sizeof(*k));
	if (!k) {
		snprintf(why, whylen, "out of memory");
		goto done;
	}
	e = cudaLibraryLoadData(&k->lib, bin, NULL, NULL, 0, NULL, NULL, 0);
	if (e == cudaSuccess)
		e = cudaLibraryGetKernel(&k->kern, k->lib, "rkg_jit");
	if (e != cudaSuccess) {
		snprintf(why, whylen, "loading the kernel: %s",
			 cudaGetErrorString(e));
		if (k->lib)
			cudaLibraryUnload(k->lib);
		free(k);
		k = NULL;
	}
done:
	free(bin);
	nv.destroy(&prog);
	return k;
}

extern "C" cudaError_t rkg_jit_launch(struct rkg_jit *k,
				      const struct rkg_launch *l,
				      cudaStream_t st)
{
	const uint32_t maxy = 65535;
	uint32_t words = l->len / 4, stride = l->stride, done = 0;

	if (!l->dtab || l->mode != RKG_STORE)
		return cudaErrorInvalidValue;
	while (done < l->nstripes) {
		uint32_t n = l->nstripes - done;
		dim3 grid((words + 127) / 128, n > maxy ? maxy : n);
		const uint64_t *tab = l->dtab + (uint64_t)done * l->stride;
		void *args[] = { &tab, &words, &stride };
		cudaError_t e = cudaLaunchKernel((const void *)k->kern, grid,
						 dim3(128), args, 0, st);

		if (e != cudaSuccess)
			return e;
		done += grid.y;
	}
	return cudaSuccess;
}

extern "C" void rkg_jit_free(struct rkg_jit *k)
{
	if (!k)
		return;
	cudaLibraryUnload(k->lib);
	free(k);
}
