// SPDX-License-Identifier: GPL-2.0
/*
 * gpu_bench (make bench-gpu): the CUDA backend's speed, each figure printed
 * beside a reference measured in the same run and their ratio.
 *
 *   references   pinned host<->device copies, registered-memfd H2D, device
 *                copy bandwidth (bytes read plus written)
 *   gather       zero-copy kernel vs staging copies through the copy
 *                engines, for scattered 64 KiB chunks (the design choice)
 *   e2e          encode, decode 2, decode m at (8,2) (8,3) (16,4) (16,8)
 *                (32,16), jobs of 1, 4, 64 MiB of data, through the
 *                backend (data and results in host memory)
 *   raw          the kernels with data already in device memory, against
 *                the copy roofline
 *   latency      one 8+3 stripe of 64 KiB chunks, p50/p99
 *   cpu          host CPU seconds per GB, CUDA backend vs CPU backend
 *
 *   gpu_bench [--quick] [--e2e [--rounds N]] [--latency]
 *
 * The e2e rounds take two environment variables, for experiments:
 * RKMD_BENCH_MODES=M1,M2,... times more data paths (RKMD_STAGE_* bits,
 * cuda_backend.h) beside the three of every cell, interleaved with them;
 * RKMD_BENCH_CELL=K,M[,OP] runs only that geometry (OP 0 encode,
 * 1 decode 2, 2 decode m).
 */
#include <stdarg.h>
#include <sys/resource.h>

#include <algorithm>
#include <vector>

#include "gpu_util.h"

extern "C" {
#include "codec/rkm_codec.h"
}
#include "rkg.h"
#include "rkg_jit.h"
#include "cuda_backend.h"

#define CK(x) do {							\
		cudaError_t e_ = (x);					\
		if (e_ != cudaSuccess) {				\
			fprintf(stderr, "%s:%d: %s: %s\n", __FILE__,	\
				__LINE__, #x, cudaGetErrorString(e_));	\
			exit(2);					\
		}							\
	} while (0)

static int quick, rounds = 5;
static struct tu_arena arena;
static struct tu_sink sink;
static const double MiB = 1048576.0, GB = 1e9;

struct summary {
	char line[200];
};
static std::vector<summary> summ;

static void sum(const char *fmt, ...)
	__attribute__((format(printf, 1, 2)));
static void sum(const char *fmt, ...)
{
	summary s;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(s.line, sizeof(s.line), fmt, ap);
	va_end(ap);
	printf("%s\n", s.line);
	summ.push_back(s);
}

/* ---- references ---------------------------------------------------------- */

static double copy_bw1(void *dst, const void *src, size_t n,
		       cudaMemcpyKind k, int reps)
{
	cudaEvent_t a, b;
	float ms;

	CK(cudaEventCreate(&a));
	CK(cudaEventCreate(&b));
	CK(cudaMemcpy(dst, src, n, k));		/* warm */
	CK(cudaEventRecord(a));
	for (int i = 0; i < reps; i++)
		CK(cudaMemcpyAsync(dst, src, n, k, 0));
	CK(cudaEventRecord(b));
	CK(cudaEventSynchronize(b));
	CK(cudaEventElapsedTime(&ms, a, b));
	cudaEventDestroy(a);
	cudaEventDestroy(b);
	return (double)n * reps / (ms * 1e-3);
}

/* best of three: the reference must not be low */
static double copy_bw(void *dst, const void *src, size_t n, cudaMemcpyKind k,
		      int reps)
{
	double best = 0;

	for (int i = 0; i < 3; i++)
		best = std::max(best, copy_bw1(dst, src, n, k, reps));
	return best;
}

/*
 * SM reads of mapped host memory, nothing else: the zero-copy ceiling.
 * HINT 1: loads with the L2::256B prefetch-size hint.
 */
template <int HINT>
static __global__ void read_only(const uint4 *p, size_t n, uint32_t *sink)
{
	uint32_t acc = 0;

	for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
	     i += (size_t)gridDim.x * blockDim.x) {
		uint4 v;

		if (HINT)
			asm volatile("ld.global.L2::256B.v4.u32 {%0,%1,%2,%3}, [%4];"
				     : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
				     : "l"(p + i));
		else
			v = p[i];
		acc ^= v.x ^ v.y ^ v.z ^ v.w;
	}
	if (acc == 0x12345678u)
		*sink = acc;
}

static double ref_h2d, ref_d2h, ref_bidir, ref_reg_h2d, ref_d2d, ref_zc_read;
static double zc_hint_g;

static void references(void)
{
	const size_t n = 256 << 20;
	void *h, *h2, *d, *d2;
	cudaStream_t s1, s2;
	cudaEvent_t a, b;
	float ms;

	CK(cudaMallocHost(&h, n));
	CK(cudaMallocHost(&h2, n));
	CK(cudaMalloc(&d, n));
	CK(cudaMalloc(&d2, (size_t)1 << 30));
	memset(h, 0x5a, n);
	memset(h2, 0xa5, n);
	ref_h2d = copy_bw(d, h, n, cudaMemcpyHostToDevice, 8);
	ref_d2h = copy_bw(h, d, n, cudaMemcpyDeviceToHost, 8);

	CK(cudaStreamCreateWithFlags(&s1, cudaStreamNonBlocking));
	CK(cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking));
	CK(cudaEventCreate(&a));
	CK(cudaEventCreate(&b));
	CK(cudaDeviceSynchronize());
	for (int t = 0; t < 3; t++) {
		CK(cudaEventRecord(a, s1));
		CK(cudaStreamWaitEvent(s2, a, 0));
		for (int i = 0; i < 8; i++) {
			CK(cudaMemcpyAsync(d, h, n / 2, cudaMemcpyHostToDevice, s1));
			CK(cudaMemcpyAsync(h2, (char *)d + n / 2, n / 2,
					   cudaMemcpyDeviceToHost, s2));
		}
		CK(cudaEventRecord(b, s2));
		CK(cudaStreamWaitEvent(s1, b, 0));
		CK(cudaEventRecord(b, s1));
		CK(cudaEventSynchronize(b));
		CK(cudaEventElapsedTime(&ms, a, b));
		ref_bidir = std::max(ref_bidir, (double)n * 8 / (ms * 1e-3));
	}

	/* the arena: a registered MAP_SHARED memfd mapping */
	CK(cudaHostRegister(arena.base, n, cudaHostRegisterMapped));
	memset(arena.base, 0x3c, n);
	ref_reg_h2d = copy_bw(d, arena.base, n, cudaMemcpyHostToDevice, 8);
	CK(cudaHostUnregister(arena.base));

	{
		uint32_t *dsink;
		void *dp;
		double zc_hint = 0;
		int nsm = 0;

		CK(cudaDeviceGetAttribute(&nsm, cudaDevAttrMultiProcessorCount, 0));
		CK(cudaMalloc(&dsink, 4));
		CK(cudaHostRegister(arena.base, n, cudaHostRegisterMapped));
		CK(cudaHostGetDevicePointer(&dp, arena.base, 0));
		for (int t = 0; t < 8; t++) {
			CK(cudaEventRecord(a));
			if (t & 1)
				read_only<1><<<nsm * 8, 256>>>((const uint4 *)dp, n / 16, dsink);
			else
				read_only<0><<<nsm * 8, 256>>>((const uint4 *)dp, n / 16, dsink);
			CK(cudaEventRecord(b));
			CK(cudaEventSynchronize(b));
			CK(cudaEventElapsedTime(&ms, a, b));
			if (t & 1)
				zc_hint_g = zc_hint = std::max(zc_hint, n / (ms * 1e-3));
			else
				ref_zc_read = std::max(ref_zc_read, n / (ms * 1e-3));
		}
		CK(cudaHostUnregister(arena.base));
		cudaFree(dsink);
	}
	ref_d2d = 2 * copy_bw(d2, (char *)d2 + (512 << 20), 512 << 20,
			      cudaMemcpyDeviceToDevice, 20);
	printf("\n== references\n");
	sum("ref pinned H2D 256 MiB            %7.1f GB/s", ref_h2d / GB);
	sum("ref pinned D2H 256 MiB            %7.1f GB/s", ref_d2h / GB);
	sum("ref pinned H2D+D2H at once        %7.1f GB/s total", ref_bidir / GB);
	sum("ref registered memfd H2D          %7.1f GB/s (%.2f of pinned)",
	    ref_reg_h2d / GB, ref_reg_h2d / ref_h2d);
	sum("ref zero-copy SM reads of memfd   %7.1f GB/s (%.2f of pinned H2D)",
	    ref_zc_read / GB, ref_zc_read / ref_h2d);
	sum("    same, L2::256B prefetch hint   %7.1f GB/s (%.2f of pinned H2D)",
	    zc_hint_g / GB, zc_hint_g / ref_h2d);
	sum("ref device copy (read+write)      %7.1f GB/s", ref_d2d / GB);
	/* the H2D reference for every ratio below: the better of the two */
	ref_h2d = std::max(ref_h2d, ref_reg_h2d);
	sum("ref H2D for ratios below (best of pinned, registered) %5.1f GB/s",
	    ref_h2d / GB);
	cudaFreeHost(h);
	cudaFreeHost(h2);
	cudaFree(d);
	cudaFree(d2);
	cudaStreamDestroy(s1);
	cudaStreamDestroy(s2);
}

/* ---- plans for direct kernel launches (raw, gather) --------------------- */

struct kplan {
	struct rkg_coef coef;
	int nin, nout;
	uint8_t in_idx[RKG_MAX_IN], out_idx[RKG_MAX_OUT];
};

static void make_plan(struct kplan *p, int k, int m, int nerase)
{
	uint8_t par[RKM_MAX_M * RKM_MAX_N];

	memset(p, 0, sizeof(*p));
	if (!nerase) {
		rkm_parity_matrix(k, m, par);
		p->nin = k;
		p->nout = m;
		for (int i = 0; i < k; i++)
			p->in_idx[i] = i;
		for (int e = 0; e < m; e++) {
			p->out_idx[e] = k + e;
			for (int i = 0; i < k; i++)
				p->coef.coef[i * RKG_MAX_OUT + e] = par[e * k + i];
		}
	} else {
		struct rkm_code *c = rkm_code_create(k, m);
		uint8_t surv[RKM_MAX_N], rows[RKM_MAX_M * RKM_MAX_N];
		uint64_t mask = (1ull << nerase) - 1;	/* data chunks first */
		int ne = rkm_decode_matrix(c, mask, surv, rows);

		p->nin = k;
		p->nout = ne;
		for (int i = 0; i < k; i++)
			p->in_idx[i] = surv[i];
		for (int e = 0; e < ne; e++) {
			p->out_idx[e] = e;
			for (int i = 0; i < k; i++)
				p->coef.coef[i * RKG_MAX_OUT + e] = rows[e * k + i];
		}
		rkm_code_destroy(c);
	}
}

/* Upload plan p's K table to the start of the constant pool. */
static void upload_plan(const struct kplan *p)
{
	std::vector<uint32_t> w(rkg_ktab_words(p->nin, p->nout));

	rkg_ktab_build(&p->coef, p->nin, p->nout, w.data());
	CK(rkg_ktab_upload(0, w.data(), (uint32_t)w.size(), 0));
	CK(cudaDeviceSynchronize());
}

/* ---- raw: data already in device memory -------------------------------- */

static void raw(int k, int m, int nerase, const char *what)
{
	const uint32_t len = 65536;
	const uint64_t data = quick ? (128 << 20) : (512ull << 20);
	const uint32_t ns = data / ((uint64_t)k * len);
	struct kplan p;
	uint8_t *dev;
	uint64_t *tab, *dtab;
	struct rkg_launch l = {};
	cudaEvent_t a, b;
	float ms;
	int reps = quick ? 5 : 20;

	make_plan(&p, k, m, nerase);
	CK(cudaMalloc(&dev, (uint64_t)ns * (k + m) * len));
	CK(cudaMemset(dev, 0x6b, (uint64_t)ns * (k + m) * len));
	tab = (uint64_t *)malloc((uint64_t)ns * (p.nin + p.nout) * 8);
	for (uint32_t s = 0; s < ns; s++) {
		uint64_t *t = tab + (uint64_t)s * (p.nin + p.nout);
		uint8_t *st = dev + (uint64_t)s * (k + m) * len;

		for (int i = 0; i < p.nin; i++)
			t[i] = (uint64_t)(uintptr_t)(st + (uint64_t)p.in_idx[i] * len);
		for (int e = 0; e < p.nout; e++)
			t[p.nin + e] = (uint64_t)(uintptr_t)(st + (uint64_t)p.out_idx[e] * len);
	}
	CK(cudaMalloc(&dtab, (uint64_t)ns * (p.nin + p.nout) * 8));
	CK(cudaMemcpy(dtab, tab, (uint64_t)ns * (p.nin + p.nout) * 8,
		      cudaMemcpyHostToDevice));
	upload_plan(&p);
	l.mode = RKG_STORE;
	l.nin = p.nin;
	l.nout = p.nout;
	l.kbase = 0;
	l.x0 = rkg_coef_x0(&p.coef, p.nin);
	l.len = len;
	l.nstripes = ns;
	l.stride = p.nin + p.nout;
	l.dtab = dtab;
	l.inl = NULL;
	l.dflags = NULL;
	CK(rkg_launch(&l, 0));
	CK(cudaEventCreate(&a));
	CK(cudaEventCreate(&b));
	CK(cudaEventRecord(a));
	for (int i = 0; i < reps; i++)
		CK(rkg_launch(&l, 0));
	CK(cudaEventRecord(b));
	CK(cudaEventSynchronize(b));
	CK(cudaEventElapsedTime(&ms, a, b));
	{
		double bps = (double)ns * k * len * reps / (ms * 1e-3);
		double roof = ref_d2d * k / (double)(k + p.nout);

		sum("raw %-8s (%2d,%2d) %3.0f MiB   %7.1f GB/s data  roofline %7.1f  ratio %.2f%s",
		    what, k, m, ns * (double)k * len / MiB, bps / GB,
		    roof / GB, bps / roof,
		    (k == 32 && m == 16) ? "  (target 500 GB/s)" :
		    m <= 4 ? "  (target 0.70)" : "");
	}
	/* the same with the NVRTC kernel specialised for these coefficients */
	{
		char why[200];
		double t0 = tu_now();
		struct rkg_jit *jk = rkg_jit_build(&p.coef, p.nin, p.nout, why,
						   sizeof(why));
		double tc = tu_now() - t0;

		if (!jk) {
			printf("raw %s jit: %s\n", what, why);
		} else {
			CK(rkg_jit_launch(jk, &l, 0));
			CK(cudaEventRecord(a));
			for (int i = 0; i < reps; i++)
				CK(rkg_jit_launch(jk, &l, 0));
			CK(cudaEventRecord(b));
			CK(cudaEventSynchronize(b));
			CK(cudaEventElapsedTime(&ms, a, b));
			double bps = (double)ns * k * len * reps / (ms * 1e-3);
			double roof = ref_d2d * k / (double)(k + p.nout);

			sum("raw %-8s (%2d,%2d) nvrtc  %7.1f GB/s data  roofline %7.1f  ratio %.2f  (compiled in %.0f ms)",
			    what, k, m, bps / GB, roof / GB, bps / roof,
			    tc * 1e3);
			rkg_jit_free(jk);
		}
	}
	cudaEventDestroy(a);
	cudaEventDestroy(b);
	cudaFree(dev);
	cudaFree(dtab);
	free(tab);
}

/* ---- gather: zero-copy kernel vs staging copies -------------------------- */

static void gather(void)
{
	const int k = 8, m = 2, nst = 4;
	const uint32_t len = 65536;
	const uint32_t ns = (64 << 20) / (k * len);
	std::vector<uint8_t *> ch((size_t)ns * (k + m));
	uint64_t seed = 77, *tab, *dtab, *stab, *dstab;
	uint8_t *dev;
	struct kplan p;
	struct rkg_launch l = {};
	cudaStream_t st[nst];
	cudaEvent_t a, b;
	float ms;
	const int reps = 10;
	double zc, stg, stb;

	tu_arena_reset(&arena);
	if (tu_chunks(&arena, ch.data(), ch.size(), len, 4096, &seed))
		return;
	for (auto c : ch)
		tu_fill(c, len, &seed);
	CK(cudaHostRegister(arena.base, arena.size, cudaHostRegisterMapped));
	make_plan(&p, k, m, 0);
	upload_plan(&p);
	tab = (uint64_t *)malloc((size_t)ns * (k + m) * 8);
	stab = (uint64_t *)malloc((size_t)ns * (k + m) * 8);
	CK(cudaMalloc(&dtab, (size_t)ns * (k + m) * 8));
	CK(cudaMalloc(&dstab, (size_t)ns * (k + m) * 8));
	CK(cudaMalloc(&dev, (size_t)ns * (k + m) * len));
	for (uint32_t s = 0; s < ns; s++)
		for (int i = 0; i < k + m; i++) {
			void *dp;

			CK(cudaHostGetDevicePointer(&dp, ch[s * (k + m) + i], 0));
			tab[s * (k + m) + i] = (uint64_t)(uintptr_t)dp;
			stab[s * (k + m) + i] = (uint64_t)(uintptr_t)
				(dev + ((size_t)s * (k + m) + i) * len);
		}
	CK(cudaMemcpy(dtab, tab, (size_t)ns * (k + m) * 8, cudaMemcpyHostToDevice));
	CK(cudaMemcpy(dstab, stab, (size_t)ns * (k + m) * 8, cudaMemcpyHostToDevice));
	for (int i = 0; i < nst; i++)
		CK(cudaStreamCreateWithFlags(&st[i], cudaStreamNonBlocking));
	CK(cudaEventCreate(&a));
	CK(cudaEventCreate(&b));

	/* zero-copy: one launch reads and writes host memory directly */
	l.mode = RKG_STORE;
	l.nin = k;
	l.nout = m;
	l.kbase = 0;
	l.x0 = rkg_coef_x0(&p.coef, p.nin);
	l.len = len;
	l.nstripes = ns;
	l.stride = k + m;
	l.dtab = dtab;
	l.inl = NULL;
	l.dflags = NULL;
	CK(rkg_launch(&l, 0));
	CK(cudaDeviceSynchronize());
	CK(cudaEventRecord(a));
	for (int i = 0; i < reps; i++)
		CK(rkg_launch(&l, 0));
	CK(cudaEventRecord(b));
	CK(cudaEventSynchronize(b));
	CK(cudaEventElapsedTime(&ms, a, b));
	zc = (double)ns * k * len * reps / (ms * 1e-3);

	/* staging: per-chunk copies on 4 streams, kernel, per-chunk copies back */
	CK(cudaDeviceSynchronize());
	double t0 = tu_now();
	for (int r = 0; r < reps; r++) {
		for (uint32_t s0 = 0; s0 < ns; s0 += ns / nst) {
			cudaStream_t q = st[(s0 / (ns / nst)) % nst];
			uint32_t n1 = ns / nst;

			for (uint32_t s = s0; s < s0 + n1; s++)
				for (int i = 0; i < k; i++)
					CK(cudaMemcpyAsync((void *)stab[s * (k + m) + i],
							   ch[s * (k + m) + i], len,
							   cudaMemcpyHostToDevice, q));
			l.dtab = dstab + (size_t)s0 * (k + m);
			l.nstripes = n1;
			CK(rkg_launch(&l, q));
			for (uint32_t s = s0; s < s0 + n1; s++)
				for (int e = 0; e < m; e++)
					CK(cudaMemcpyAsync(ch[s * (k + m) + k + e],
							   (void *)stab[s * (k + m) + k + e],
							   len, cudaMemcpyDeviceToHost, q));
		}
	}
	CK(cudaDeviceSynchronize());
	stg = (double)ns * k * len * reps / (tu_now() - t0);

	/* staging with cudaMemcpyBatchAsync: one call per direction and group */
	{
		const uint32_t n1 = ns / nst;
		std::vector<void *> hd(n1 * k), hs(n1 * k), dd(n1 * m), ds(n1 * m);
		std::vector<size_t> hz(n1 * k, len), dz(n1 * m, len);
		struct cudaMemcpyAttributes at;
		size_t ai = 0;

		memset(&at, 0, sizeof(at));
		at.srcAccessOrder = cudaMemcpySrcAccessOrderStream;
		CK(cudaDeviceSynchronize());
		t0 = tu_now();
		for (int r = 0; r < reps; r++) {
			for (uint32_t s0 = 0; s0 < ns; s0 += n1) {
				cudaStream_t q = st[(s0 / n1) % nst];

				for (uint32_t s = s0; s < s0 + n1; s++) {
					for (int i = 0; i < k; i++) {
						hd[(s - s0) * k + i] = (void *)stab[s * (k + m) + i];
						hs[(s - s0) * k + i] = ch[s * (k + m) + i];
					}
					for (int e = 0; e < m; e++) {
						dd[(s - s0) * m + e] = ch[s * (k + m) + k + e];
						ds[(s - s0) * m + e] = (void *)stab[s * (k + m) + k + e];
					}
				}
				CK(cudaMemcpyBatchAsync(hd.data(), hs.data(), hz.data(),
							hd.size(), &at, &ai, 1, q));
				l.dtab = dstab + (size_t)s0 * (k + m);
				l.nstripes = n1;
				CK(rkg_launch(&l, q));
				CK(cudaMemcpyBatchAsync(dd.data(), ds.data(), dz.data(),
							dd.size(), &at, &ai, 1, q));
			}
		}
		CK(cudaDeviceSynchronize());
		stb = (double)ns * k * len * reps / (tu_now() - t0);
	}

	printf("\n== gather: 8+2, 64 KiB chunks scattered over a registered memfd, 64 MiB per launch\n");
	sum("gather zero-copy kernel           %7.1f GB/s data  ref pinned H2D %5.1f  ratio %.2f",
	    zc / GB, ref_h2d / GB, zc / ref_h2d);
	sum("gather staged (per-chunk copies)  %7.1f GB/s data  ref pinned H2D %5.1f  ratio %.2f",
	    stg / GB, ref_h2d / GB, stg / ref_h2d);
	sum("gather staged (cudaMemcpyBatch)   %7.1f GB/s data  ref pinned H2D %5.1f  ratio %.2f",
	    stb / GB, ref_h2d / GB, stb / ref_h2d);
	for (int i = 0; i < nst; i++)
		cudaStreamDestroy(st[i]);
	cudaEventDestroy(a);
	cudaEventDestroy(b);
	cudaFree(dev);
	cudaFree(dtab);
	cudaFree(dstab);
	free(tab);
	free(stab);
	CK(cudaHostUnregister(arena.base));
}

/* ---- end to end through the backend ------------------------------------- */

struct e2e_res {
	double gbps;
	double cpu_s_per_gb;
};

static double cpu_seconds(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_utime.tv_sec + ru.ru_utime.tv_usec * 1e-6 +
	       ru.ru_stime.tv_sec + ru.ru_stime.tv_usec * 1e-6;
}

/*
 * Keep q jobs of `batch` data bytes in flight until `total` bytes of data
 * are coded; each job has its own stripes in the arena.  With modes
 * (CUDA backend only), the same jobs are timed once per data path
 * (rkmd_cuda_set_stage(), -1: the default) and rep, interleaved, and
 * res[i] gets mode i's median, mins[i] its minimum.
 */
static void e2e_multi(const struct rkmd_backend_ops *ops,
		      struct rkmd_backend *be, int op, int k, int m,
		      int nerase, uint64_t batch, uint64_t total,
		      int nmodes, const int *modes, int reps,
		      struct e2e_res *res, double *mins)
{
	uint32_t len = 65536, ns;
	int q, n = k + m, nm = modes ? nmodes : 1;
	uint64_t seed = 1234, njobs, i, base;
	std::vector<std::vector<e2e_res>> all(nm);

	for (int x = 0; x < nm; x++) {
		res[x].gbps = res[x].cpu_s_per_gb = 0;
		if (mins)
			mins[x] = 0;
	}
	if ((uint64_t)k * len > batch)
		len = (uint32_t)(batch / k) & ~63u;
	ns = (uint32_t)(batch / ((uint64_t)k * len));
	q = (int)std::min<uint64_t>(64, std::max<uint64_t>(4, (512ull << 20) / batch));
	while ((uint64_t)q * ns * n * len > arena.size - (64 << 20) && q > 2)
		q--;
	njobs = std::max<uint64_t>(total / batch, (uint64_t)q * 2);

	std::vector<tu_job> jobs(q);
	std::vector<std::vector<uint8_t *>> ch(q);
	tu_arena_reset(&arena);
	for (int j = 0; j < q; j++) {
		ch[j].resize((size_t)ns * n);
		if (tu_chunks(&arena, ch[j].data(), ch[j].size(), len, 4096, &seed))
			return;
		for (auto c : ch[j])
			memset(c, (int)(tu_rand(&seed) & 0xff), len);
		memset(&jobs[j], 0, sizeof(jobs[j]));
		jobs[j].job.op = op;
		jobs[j].job.k = k;
		jobs[j].job.m = m;
		jobs[j].job.len = len;
		jobs[j].job.nstripes = ns;
		jobs[j].job.mask = op == RKMD_OP_DECODE ? (1ull << nerase) - 1 : 0;
		jobs[j].job.chunk = ch[j].data();
	}
	pthread_mutex_lock(&sink.lock);
	base = sink.completed;
	pthread_mutex_unlock(&sink.lock);
	for (int r = -1; r < reps; r++)
		for (int x = 0; x < nm; x++) {
			if (modes)
				rkmd_cuda_set_stage(be, modes[x]);
			if (r < 0) {	/* warm-up: plan, coefficients, buffers */
				for (int j = 0; j < q; j++)
					if (ops->submit(be, &jobs[j].job))
						return;
				tu_wait_count(&sink, base + q);
				base += q;
				continue;
			}
			double c0 = cpu_seconds(), t0 = tu_now();
			for (i = 0; i < njobs; i++) {
				tu_job *t = &jobs[i % q];

				if (i >= (uint64_t)q)
					tu_wait_job(&sink, t);
				t->done = 0;
				if (ops->submit(be, &t->job)) {
					fprintf(stderr, "submit failed\n");
					return;
				}
			}
			tu_wait_count(&sink, base + njobs);
			base += njobs;
			double el = tu_now() - t0, cpu = cpu_seconds() - c0;

			for (int j = 0; j < q; j++)
				if (jobs[j].status) {
					fprintf(stderr, "job failed: %d\n", jobs[j].status);
					return;
				}
			e2e_res e;

			e.gbps = (double)njobs * ns * k * len / el / GB;
			e.cpu_s_per_gb = cpu / ((double)njobs * ns * k * len / GB);
			all[x].push_back(e);
		}
	if (modes)
		rkmd_cuda_set_stage(be, -1);
	for (int x = 0; x < nm; x++) {
		std::sort(all[x].begin(), all[x].end(),
			  [](const e2e_res &p, const e2e_res &q) {
				  return p.gbps < q.gbps; });
		res[x] = all[x][all[x].size() / 2];
		if (mins)
			mins[x] = all[x][0].gbps;
	}
}

static struct e2e_res e2e_run(const struct rkmd_backend_ops *ops,
			      struct rkmd_backend *be, int op, int k, int m,
			      int nerase, uint64_t batch, uint64_t total)
{
	struct e2e_res r;

	e2e_multi(ops, be, op, k, m, nerase, batch, total, 1, NULL, 1, &r,
		  NULL);
	return r;
}

/* the default data path without its one-in-4 zero-copy batches (io/2) */
#define STAGE_IO2 (RKMD_STAGE_IN | RKMD_STAGE_OUT | RKMD_STAGE_AUTO | \
		   2 << RKMD_STAGE_STREAMS_SHIFT)

/* the data paths side by side on the same jobs (median of 3) */
static void data_paths(const struct rkmd_backend_ops *ops,
		       struct rkmd_backend *be)
{
	printf("\n== data path, same jobs, median of 3 interleaved (GB/s of data, ratio to H2D):\n"
	       "#  zc       zero-copy: SMs read inputs from and write results to host memory\n"
	       "#  io/1     inputs and results copied by the copy engines, 1 shared H2D stream, 16 MiB sub-batches\n"
	       "#  io/2     same, 2 shared H2D streams\n"
	       "#  io/2s4   same, 4 MiB sub-batches;  io/2s64: 64 MiB sub-batches\n"
	       "#  mix1:4   io/2, but one batch in 4 zero-copy beside the staged ones (the default for jobs >= 4 MiB)\n"
	       "#  io/2f    io/2 with cudaMemcpyFlagPreferOverlapWithCompute\n"
	       "#  in/2     inputs copied, results written zero-copy by the kernel\n");
	{
		static const int g[][3] = { {8, 2, 0}, {8, 3, 0}, {16, 4, 0},
					    {8, 3, 3}, {32, 16, 0} };
		static const uint64_t batches[] = { 4 << 20, 64 << 20 };
		const int IO = RKMD_STAGE_IN | RKMD_STAGE_OUT;
		static const char *const nm[] = { "zc", "io/1", "io/2", "io/2s4",
						  "io/2s64", "mix1:4", "io/2f", "in/2" };
		const int modes[] = {
			0,
			IO | 1 << RKMD_STAGE_STREAMS_SHIFT,
			IO | 2 << RKMD_STAGE_STREAMS_SHIFT,
			IO | 2 << RKMD_STAGE_STREAMS_SHIFT | 4 << RKMD_STAGE_SUB_SHIFT,
			IO | 2 << RKMD_STAGE_STREAMS_SHIFT | 64 << RKMD_STAGE_SUB_SHIFT,
			IO | 2 << RKMD_STAGE_STREAMS_SHIFT | 4 << RKMD_STAGE_MIX_SHIFT,
			IO | 2 << RKMD_STAGE_STREAMS_SHIFT | RKMD_STAGE_CEFLAG,
			RKMD_STAGE_IN | 2 << RKMD_STAGE_STREAMS_SHIFT,
		};
		const int nmodes = sizeof(modes) / sizeof(modes[0]);
		const uint64_t total = quick ? (256ull << 20) : (2048ull << 20);

		for (auto &x : g)
			for (uint64_t bt : batches) {
				struct e2e_res r[8];
				char l1[200], l2[200];
				int o1, o2;

				e2e_multi(ops, be, x[2] ? RKMD_OP_DECODE : RKMD_OP_ENCODE,
					  x[0], x[1], x[2], bt, total, nmodes, modes, 3, r, NULL);
				o1 = snprintf(l1, sizeof(l1), "path %-7s (%2d,%2d) %2llu MiB GB/s ",
					      x[2] ? "decodem" : "encode", x[0], x[1],
					      (unsigned long long)(bt >> 20));
				o2 = snprintf(l2, sizeof(l2), "path %-7s (%2d,%2d) %2llu MiB ratio",
					      x[2] ? "decodem" : "encode", x[0], x[1],
					      (unsigned long long)(bt >> 20));
				for (int i = 0; i < nmodes; i++) {
					o1 += snprintf(l1 + o1, sizeof(l1) - o1, " %s %4.1f",
						       nm[i], r[i].gbps);
					o2 += snprintf(l2 + o2, sizeof(l2) - o2, " %s %4.2f",
						       nm[i], r[i].gbps * GB / ref_h2d);
				}
				sum("%s  ref H2D %4.1f", l1, ref_h2d / GB);
				sum("%s", l2);
			}
	}
}

/*
 * The link's ceiling for a cell's traffic: the copy engines move @n bytes
 * host to device and, at the same time, @n * @num / @den bytes back (the
 * cell's outputs per input), 4 times; returns the host-to-device rate.
 * PCIe carries both directions at once, but not each at its one-way
 * rate (see "ref pinned H2D+D2H at once").
 */
static double mix_bw(void *d, const void *h, void *d2, void *h2, size_t n,
		     int num, int den, cudaStream_t s1, cudaStream_t s2)
{
	size_t back = n * num / den & ~(size_t)4095;
	cudaEvent_t a, b, c;
	double best = 0;
	float ms;

	CK(cudaEventCreate(&a));
	CK(cudaEventCreate(&b));
	CK(cudaEventCreate(&c));
	for (int t = 0; t < 3; t++) {
		CK(cudaEventRecord(a, s1));
		CK(cudaStreamWaitEvent(s2, a, 0));
		for (int i = 0; i < 4; i++) {
			CK(cudaMemcpyAsync(d, h, n, cudaMemcpyHostToDevice, s1));
			CK(cudaMemcpyAsync(h2, d2, back, cudaMemcpyDeviceToHost, s2));
		}
		CK(cudaEventRecord(c, s2));
		CK(cudaStreamWaitEvent(s1, c, 0));
		CK(cudaEventRecord(b, s1));
		CK(cudaEventSynchronize(b));
		CK(cudaEventElapsedTime(&ms, a, b));
		best = std::max(best, (double)n * 4 / (ms * 1e-3));
	}
	cudaEventDestroy(a);
	cudaEventDestroy(b);
	cudaEventDestroy(c);
	return best;
}

/*
 * End to end, in rounds: each round measures, for every cell, the pinned
 * H2D bandwidth right before it (the reference of that cell and round)
 * and then the cell's jobs on the three data paths, interleaved.  A cell
 * prints the median over the rounds of its per-round ratio, with min and
 * max, and the median GB/s and reference.  With only (--e2e), the cells
 * with a target alone (m <= 4, jobs of 4 and 64 MiB).
 */
static void e2e_rounds(const struct rkmd_backend_ops *ops,
		       struct rkmd_backend *be, int only)
{
	static const int g[][2] = { {8, 2}, {8, 3}, {16, 4}, {16, 8}, {32, 16} };
	static const uint64_t batches[] = { 1 << 20, 4 << 20, 64 << 20 };
	static const char *const opn[] = { "encode", "decode2", "decodem" };
	int modes[8] = { -1, 0, STAGE_IO2 }, nmodes = 3;
	const char *xm = getenv("RKMD_BENCH_MODES");	/* more paths */
	const char *xc = getenv("RKMD_BENCH_CELL");	/* only K,M,OP */
	int ck = 0, cm = 0, co = -1;
	const uint64_t total = quick ? (256ull << 20) : (4096ull << 20);
	const size_t refn = 64 << 20;
	struct cell {
		int k, m, o;
		uint64_t bt;
		std::vector<double> ratio, gb, ref, zc, io2, mix, ofmix;
		std::vector<double> xr[5], mf, mfmix;
	};
	std::vector<cell> cells;
	void *h, *d, *h2, *d2;
	cudaStream_t s1, s2;

	while (xm && *xm && nmodes < 8) {
		char *end;

		modes[nmodes++] = (int)strtol(xm, &end, 0);
		xm = *end == ',' ? end + 1 : "";
	}
	if (xc)
		sscanf(xc, "%d,%d,%d", &ck, &cm, &co);
	for (auto &x : g)
		for (int o = 0; o < 3; o++)
			for (uint64_t bt : batches) {
				if (only && (x[1] > 4 || bt < (4 << 20)))
					continue;
				if (xc && (x[0] != ck || x[1] != cm ||
					   (co >= 0 && o != co)))
					continue;
				cell c;

				c.k = x[0];
				c.m = x[1];
				c.o = o;
				c.bt = bt;
				cells.push_back(c);
			}
	CK(cudaMallocHost(&h, refn));
	CK(cudaMalloc(&d, refn));
	CK(cudaMallocHost(&h2, refn));
	CK(cudaMalloc(&d2, refn));
	CK(cudaStreamCreateWithFlags(&s1, cudaStreamNonBlocking));
	CK(cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking));
	memset(h, 0x5a, refn);
	CK(cudaMemset(d2, 0xa5, refn));
	printf("\n== end to end through the backend (host memory in and out): default path (jobs of >= 4 MiB of inputs staged as mix1:4 above, smaller ones zero-copy), then zero-copy, then io/2 (jobs of >= 4 MiB staged, none left zero-copy), on the same jobs; %d interleaved rounds, each cell with the pinned H2D bandwidth measured right before it in the same round (64 MiB x 4, best of 3); ratio = median over the rounds of the cell's GB/s / that round's H2D, [min..max]; link ceiling: the H2D rate while the copy engines also move the cell's outputs back (same round, as a fraction of H2D), and e2e as a fraction of it; memfd: the same H2D copy, alone and with the outputs going back, from the registered memfd arena that holds the jobs' chunks (as a fraction of the pinned H2D)\n",
	       rounds);
	for (int r = 0; r < rounds; r++)
		for (auto &c : cells) {
			int op = c.o ? RKMD_OP_DECODE : RKMD_OP_ENCODE;
			int ne = c.o == 1 ? 2 : c.m;
			struct e2e_res res[8];
			double ref = copy_bw(d, h, refn, cudaMemcpyHostToDevice, 4);
			double mix = mix_bw(d, h, d2, h2, refn, c.o == 1 ? 2 : c.m,
					    c.k, s1, s2);
			/*
			 * The same from the registered memfd arena (where the
			 * jobs' chunks are): what a copy engine reads there,
			 * alone and with the outputs going back.
			 */
			double mf = copy_bw(d, arena.base + (1u << 30), refn,
					    cudaMemcpyHostToDevice, 4);
			double mfmix = mix_bw(d, arena.base + (1u << 30), d2,
					      h2, refn, c.o == 1 ? 2 : c.m,
					      c.k, s1, s2);

			e2e_multi(ops, be, op, c.k, c.m, c.o ? ne : 0, c.bt,
				  total / 2, nmodes, modes, 1, res, NULL);
			for (int x = 3; x < nmodes; x++)
				c.xr[x - 3].push_back(res[x].gbps * GB / ref);
			c.ratio.push_back(res[0].gbps * GB / ref);
			c.gb.push_back(res[0].gbps);
			c.ref.push_back(ref / GB);
			c.zc.push_back(res[1].gbps * GB / ref);
			c.io2.push_back(res[2].gbps * GB / ref);
			c.mix.push_back(mix / ref);
			c.ofmix.push_back(res[0].gbps * GB / mix);
			c.mf.push_back(mf / ref);
			c.mfmix.push_back(mfmix / ref);
		}
	auto med = [](std::vector<double> v) {
		std::sort(v.begin(), v.end());
		return v[v.size() / 2];
	};
	for (auto &c : cells) {
		double tgt = c.m <= 4 ? 0.90 : c.m == 16 ? 0.75 : 0;
		char tg[40] = "";

		if (tgt > 0 && c.bt >= (4 << 20))
			snprintf(tg, sizeof(tg), "  (target %.2f%s)", tgt,
				 med(c.ratio) >= tgt ? ", met" : ", MISSED");
		sum("e2e %-8s (%2d,%2d) batch %2llu MiB %5.1f GB/s data  ref H2D %4.1f  ratio %.2f [%.2f..%.2f] | zero-copy %.2f | io/2 %.2f | link ceiling %.2f, e2e of it %.2f%s",
		    opn[c.o], c.k, c.m, (unsigned long long)(c.bt >> 20),
		    med(c.gb), med(c.ref), med(c.ratio),
		    *std::min_element(c.ratio.begin(), c.ratio.end()),
		    *std::max_element(c.ratio.begin(), c.ratio.end()),
		    med(c.zc), med(c.io2), med(c.mix), med(c.ofmix), tg);
		printf("    memfd H2D %.2f [%.2f..%.2f], with the outputs back %.2f [%.2f..%.2f] (of the round's pinned H2D)\n",
		       med(c.mf), *std::min_element(c.mf.begin(), c.mf.end()),
		       *std::max_element(c.mf.begin(), c.mf.end()),
		       med(c.mfmix),
		       *std::min_element(c.mfmix.begin(), c.mfmix.end()),
		       *std::max_element(c.mfmix.begin(), c.mfmix.end()));
		for (int x = 3; x < nmodes; x++)
			printf("    path 0x%x: ratio %.2f [%.2f..%.2f]\n",
			       modes[x], med(c.xr[x - 3]),
			       *std::min_element(c.xr[x - 3].begin(),
						 c.xr[x - 3].end()),
			       *std::max_element(c.xr[x - 3].begin(),
						 c.xr[x - 3].end()));
	}
	cudaFreeHost(h);
	cudaFree(d);
	cudaFreeHost(h2);
	cudaFree(d2);
	cudaStreamDestroy(s1);
	cudaStreamDestroy(s2);
}

/* ---- latency ------------------------------------------------------------- */

static __global__ void empty_kernel(void)
{
}

static __global__ void flag_kernel(volatile uint32_t *w, uint32_t v)
{
	*w = v;
}

static double pct(std::vector<double> &v, int p)
{
	std::sort(v.begin(), v.end());
	return v[v.size() * p / 100] * 1e6;
}

/*
 * One 8+3 stripe of 64 KiB chunks, submitted and waited for one at a
 * time, `iters` times.  Every job is checked: before it, one 16-byte word
 * of each parity chunk (a different one each time) is overwritten, and
 * after it must hold the parity again.  Then the references: the
 * copy-engine round trip, and the two ways of seeing an empty launch
 * finish (event, flag in host memory).
 */
static void latency(const struct rkmd_backend_ops *ops, struct rkmd_backend *be)
{
	const int k = 8, m = 3, n = k + m, iters = quick ? 300 : 3000;
	const uint32_t len = 65536;
	std::vector<uint8_t *> ch(n);
	std::vector<double> lat;
	uint64_t seed = 99;
	struct tu_job t;
	double floor_min = 1e9;
	std::vector<double> fl, ev, fg;
	std::vector<uint8_t> want((size_t)m * len);
	int bad = 0;

	tu_arena_reset(&arena);
	tu_chunks(&arena, ch.data(), n, len, 4096, &seed);
	for (auto c : ch)
		tu_fill(c, len, &seed);
	{
		struct rkm_code *c = rkm_code_create(k, m);
		uint8_t *par[3] = { &want[0], &want[len], &want[2 * len] };

		rkm_encode(c, len, (const uint8_t *const *)ch.data(), par);
		rkm_code_destroy(c);
	}
	memset(&t, 0, sizeof(t));
	t.job.op = RKMD_OP_ENCODE;
	t.job.k = k;
	t.job.m = m;
	t.job.len = len;
	t.job.nstripes = 1;
	t.job.chunk = ch.data();
	for (int i = 0; i < iters + 50; i++) {
		const uint32_t off = (uint32_t)(i * 4112u) % len & ~15u;
		double t0;

		for (int e = 0; e < m; e++)
			for (int b = 0; b < 16; b++)
				ch[k + e][off + b] = ~want[e * len + off + b];
		t0 = tu_now();
		t.done = 0;
		if (ops->submit(be, &t.job))
			exit(1);
		tu_spin(&t);
		if (i >= 50)
			lat.push_back(t.t_done - t0);
		for (int e = 0; e < m; e++)
			if (memcmp(ch[k + e] + off, &want[e * len + off], 16))
				bad++;
		if (t.status)
			bad++;
	}
	for (int e = 0; e < m; e++)
		if (memcmp(ch[k + e], &want[e * len], len))
			bad++;
	std::sort(lat.begin(), lat.end());

	/* reference: the copy-engine round trip floor (512 KiB in, empty
	 * kernel, 192 KiB out, one stream, synchronous) */
	{
		void *h, *d;
		cudaStream_t s;
		cudaEvent_t e;
		uint32_t *w, *wd;

		CK(cudaMallocHost(&h, 11 * len));
		CK(cudaMalloc(&d, 11 * len));
		CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
		CK(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));
		CK(cudaHostAlloc((void **)&w, 64, cudaHostAllocMapped));
		CK(cudaHostGetDevicePointer((void **)&wd, w, 0));
		for (int i = 0; i < iters / 2 + 20; i++) {
			double t0 = tu_now();

			CK(cudaMemcpyAsync(d, h, 8 * len, cudaMemcpyHostToDevice, s));
			empty_kernel<<<1, 32, 0, s>>>();
			CK(cudaGetLastError());
			CK(cudaMemcpyAsync((char *)h + 8 * len, (char *)d + 8 * len,
					   3 * len, cudaMemcpyDeviceToHost, s));
			CK(cudaStreamSynchronize(s));
			if (i >= 20)
				fl.push_back(tu_now() - t0);
		}
		/* an empty launch seen done by its event (polled) */
		for (int i = 0; i < iters / 2 + 20; i++) {
			double t0 = tu_now();

			empty_kernel<<<1, 32, 0, s>>>();
			CK(cudaEventRecord(e, s));
			while (cudaEventQuery(e) == cudaErrorNotReady)
				;
			if (i >= 20)
				ev.push_back(tu_now() - t0);
		}
		/* ... and by a word it stores in host memory */
		*w = 0;
		for (int i = 0; i < iters / 2 + 20; i++) {
			double t0 = tu_now();

			flag_kernel<<<1, 32, 0, s>>>(wd, i + 1);
			while (__atomic_load_n(w, __ATOMIC_ACQUIRE) != (uint32_t)i + 1)
				;
			if (i >= 20)
				fg.push_back(tu_now() - t0);
		}
		CK(cudaStreamSynchronize(s));
		std::sort(fl.begin(), fl.end());
		floor_min = fl[0];
		cudaEventDestroy(e);
		cudaStreamDestroy(s);
		cudaFreeHost(w);
		cudaFreeHost(h);
		cudaFree(d);
	}
	printf("\n== latency: one 8+3 stripe, 64 KiB chunks, submit -> done()\n");
	sum("latency 8+3 64K via backend  p50 %6.1f us  p99 %6.1f us  min %6.1f us  (target p50 <= 25, p99 <= 40)",
	    lat[lat.size() / 2] * 1e6, lat[lat.size() * 99 / 100] * 1e6,
	    lat[0] * 1e6);
	sum("ref memcpy round trip 512K in + 192K out  p50 %6.1f us  min %6.1f us  ratio p50 %.2f",
	    fl[fl.size() / 2] * 1e6, floor_min * 1e6,
	    lat[lat.size() / 2] / fl[fl.size() / 2]);
	sum("ref empty launch seen done: by event p50 %5.1f us  p99 %5.1f us | by host word p50 %5.1f us  p99 %5.1f us",
	    pct(ev, 50), pct(ev, 99), pct(fg, 50), pct(fg, 99));
	printf("latency jobs checked: %d, %d wrong\n", iters + 50, bad);
	if (bad) {
		fprintf(stderr, "gpu_bench: %d latency jobs gave wrong parity\n", bad);
		exit(1);
	}
}

int main(int argc, char **argv)
{
	char why[256];
	const struct rkmd_backend_ops *ops = &rkmd_cuda_backend;
	struct rkmd_backend *be;
	cudaDeviceProp pr;
	int drv = 0, path_only = 0, e2e_only = 0, lat_only = 0;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--quick"))
			quick = 1;
		if (!strcmp(argv[i], "--path"))	/* references + data path */
			path_only = 1;
		/* references, end to end (cells with a target), latency */
		if (!strcmp(argv[i], "--e2e"))
			e2e_only = 1;
		/* the latency lines alone */
		if (!strcmp(argv[i], "--latency"))
			lat_only = 1;
		if (!strcmp(argv[i], "--rounds") && i + 1 < argc)
			rounds = std::max(1, atoi(argv[++i]));
	}
	/* --raw K M NERASE: one raw-kernel measurement (for ncu profiles) */
	if (argc == 5 && !strcmp(argv[1], "--raw")) {
		quick = 1;
		ref_d2d = 2.99e12;	/* nominal, for the printed ratio only */
		raw(atoi(argv[2]), atoi(argv[3]), atoi(argv[4]), "profile");
		return 0;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (ops->probe(why, sizeof(why))) {
		fprintf(stderr, "gpu_bench: %s\n", why);
		return 1;
	}
	CK(cudaGetDeviceProperties(&pr, 0));
	cudaDriverGetVersion(&drv);
	{
		char cmd[512] = "", host[128] = "", dv[64] = "?";
		time_t now = time(NULL);
		struct tm tm;
		FILE *f = popen("nvidia-smi --query-gpu=driver_version,pcie.link.gen.max,pcie.link.width.max --format=csv,noheader 2>/dev/null", "r");

		if (f) {
			if (fgets(dv, sizeof(dv), f))
				dv[strcspn(dv, "\n")] = 0;
			pclose(f);
		}
		for (int i = 0; i < argc; i++) {
			strncat(cmd, argv[i], sizeof(cmd) - strlen(cmd) - 2);
			strcat(cmd, " ");
		}
		gethostname(host, sizeof(host) - 1);
		gmtime_r(&now, &tm);
		strftime(host + strlen(host), 40, "  %Y-%m-%d %H:%M:%S UTC", &tm);
		printf("# command: %s\n# host/date: %s\n", cmd, host);
		printf("# device: %s\n# driver, PCIe gen, width: %s\n", why, dv);
	}
	if (tu_arena_init(&arena, (size_t)2 << 30)) {
		fprintf(stderr, "gpu_bench: no 2 GiB memfd arena\n");
		return 1;
	}
	tu_sink_init(&sink);
	if (lat_only) {
		be = ops->open(arena.base, arena.size, 0, 0, tu_complete, &sink,
			       why, sizeof(why));
		if (!be) {
			fprintf(stderr, "gpu_bench: open: %s\n", why);
			return 1;
		}
		latency(ops, be);
		ops->close(be);
		return 0;
	}
	references();
	if (!path_only && !e2e_only)
		gather();

	if (!path_only && !e2e_only) {
		printf("\n== raw kernels, data in device memory, 64 KiB chunks\n");
		static const int g[][2] = { {8, 2}, {8, 3}, {16, 4}, {16, 8}, {32, 16} };

		for (auto &x : g) {
			raw(x[0], x[1], 0, "encode");
			raw(x[0], x[1], 2, "decode2");
			raw(x[0], x[1], x[1], "decodem");
		}
	}

	be = ops->open(arena.base, arena.size, 0, 0, tu_complete, &sink, why,
		       sizeof(why));
	if (!be) {
		fprintf(stderr, "gpu_bench: open: %s\n", why);
		return 1;
	}
	if (!e2e_only)
		data_paths(ops, be);
	if (path_only) {
		ops->close(be);
		return 0;
	}

	e2e_rounds(ops, be, e2e_only);
	latency(ops, be);

	printf("\n== host CPU time per GB of data coded (8+3 encode, 64 MiB jobs)\n");
	{
		const uint64_t total = quick ? (512ull << 20) : (4096ull << 20);
		struct e2e_res g = e2e_run(ops, be, RKMD_OP_ENCODE, 8, 3, 0,
					   64 << 20, total);
		struct rkmd_cuda_stats st;

		rkmd_cuda_get_stats(be, &st);
		ops->close(be);

		const struct rkmd_backend_ops *cpu = &rkmd_cpu_backend;
		struct rkmd_backend *cb = cpu->open(arena.base, arena.size, 0, 4,
						    tu_complete, &sink, why,
						    sizeof(why));
		struct e2e_res c = { 0, 0 };

		if (cb) {
			c = e2e_run(cpu, cb, RKMD_OP_ENCODE, 8, 3, 0, 64 << 20,
				    total / 4);
			cpu->close(cb);
		}
		sum("cpu cost cuda backend  %6.3f CPU-s/GB (%.1f GB/s)  ref cpu backend %6.3f CPU-s/GB (%.1f GB/s, 4 threads)  ratio %.3f",
		    g.cpu_s_per_gb, g.gbps, c.cpu_s_per_gb, c.gbps,
		    c.cpu_s_per_gb > 0 ? g.cpu_s_per_gb / c.cpu_s_per_gb : 0);
		printf("# backend stats: %llu jobs in %llu launches (%llu staged), %llu coefficient uploads, %llu errors\n",
		       (unsigned long long)st.jobs,
		       (unsigned long long)st.launches,
		       (unsigned long long)st.staged,
		       (unsigned long long)st.uploads,
		       (unsigned long long)st.errors);
	}

	printf("\n== summary (%s, driver %d.%d)\n", pr.name, drv / 1000,
	       drv % 1000 / 10);
	for (auto &s : summ)
		printf("%s\n", s.line);
	return 0;
}
