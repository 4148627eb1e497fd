// SPDX-License-Identifier: GPL-2.0
/*
 * raidkmd CUDA coding kernels: GF(2^8) (poly 0x11D) matrix-vector products
 * over chunks, bit-exact with the CPU codec (kernel/raidkm/codec).
 *
 * Method (chosen by measurement, see Documentation/gpu.rst): table-free,
 * on packed bytes, by the bits of the data.  A thread owns 16 bytes (one
 * uint4) of every chunk of its stripe.  Input byte x times coefficient c is
 * the XOR over the bits i of x of the constant c * 2^i, so for each input
 * word and bit i every output folds in K[j][e][i] = c[e][j] * 2^i under
 * the bytes' bit i.  Two fold forms keep both integer pipes busy:
 *
 *   - low bits (LOP3 form): B = 0xff in each byte whose bit i is set (a
 *     shift and one sign-replicating byte permute, PRMT); acc ^= B & K
 *     with K replicated in four bytes: one LOP3 per output.
 *   - high bits, in pairs (IMAD form): b = (x >> i) & 0x01010101; the
 *     product b * K (K a single byte) is K in the bytes whose bit is set,
 *     with no carries; acc ^= b_i * K_i ^ b_i+1 * K_i+1: two IMADs on the
 *     FMA pipe and one three-input LOP3 per output and pair.
 *
 * K comes from constant memory as a warp-uniform operand.  The first
 * version walked the powers x, 2x, 4x... (xtime: 5 instructions each) and
 * masked them with the coefficient's bits on the uniform datapath; the
 * numbers for each version are in Documentation/gpu.rst.
 *
 * The number of outputs M is a template parameter (accumulators stay in
 * registers); the number of inputs is a run-time loop over groups of four
 * for M <= 8, the next group's four 16-byte loads issued before the
 * current group is folded (what hides the latency of host memory across
 * PCIe, and of HBM), and one input at a time beyond that, the next input
 * loaded ahead, so that the loop body stays inside the instruction cache.
 */
#include "rkg.h"

__constant__ __align__(16) uint32_t c_pool[RKG_NREGION * RKG_REGION_WORDS];

struct rkg_kargs {
	const uint64_t *tab;	/* device table or NULL */
	uint32_t nin, vecs, stride;
	uint32_t kbase;
	int32_t *flags;
	uint32_t *dcount, *hdone;	/* completion flag (rkg.h), or NULL */
	uint32_t seq, fence_all;
	uint64_t inl[RKG_INLINE];
};

/*
 * LOP3-form bits: 0..RKG_NA(M)-1; the others go in IMAD pairs.  With one
 * or two outputs the per-word cost of extracting the IMAD-form bits
 * outweighs what the FMA pipe takes over, so they stay all-LOP3 (the
 * threshold was measured: from 3 outputs on, pairs win by 3-5 %).
 */
#ifndef RKG_NA_FROM
#define RKG_NA_FROM	3	/* IMAD pairs from this many outputs on */
#endif
#define RKG_NA(M)	((M) >= RKG_NA_FROM ? 2 : 8)

/* 0xff in each byte whose bit I is set (prmt: replicate the byte's sign) */
template <int I>
static __device__ __forceinline__ uint32_t bytemask(uint32_t x)
{
	uint32_t r, y = x << (7 - I);

	asm("prmt.b32 %0, %1, 0, 0xba98;" : "=r"(r) : "r"(y));
	return r;
}

/* bits I and I + 1 in LOP3 form (K words loaded in pairs: ULDC.64) */
template <int M, int X0, int I>
static __device__ __forceinline__ void mac_lop(uint4 (&acc)[M], uint4 x,
					       const uint32_t *kj)
{
	uint4 b0 = make_uint4(bytemask<I>(x.x), bytemask<I>(x.y),
			      bytemask<I>(x.z), bytemask<I>(x.w));
	uint4 b1 = make_uint4(bytemask<I + 1>(x.x), bytemask<I + 1>(x.y),
			      bytemask<I + 1>(x.z), bytemask<I + 1>(x.w));

#pragma unroll
	for (int e = X0; e < M; e++) {
		const uint2 k = *(const uint2 *)&kj[e * 8 + I];

		acc[e].x ^= b0.x & k.x;
		acc[e].y ^= b0.y & k.x;
		acc[e].z ^= b0.z & k.x;
		acc[e].w ^= b0.w & k.x;
		acc[e].x ^= b1.x & k.y;
		acc[e].y ^= b1.y & k.y;
		acc[e].z ^= b1.z & k.y;
		acc[e].w ^= b1.w & k.y;
	}
}

template <int M, int X0, int I>
static __device__ __forceinline__ void mac_mul(uint4 (&acc)[M], uint4 x,
					       const uint32_t *kj)
{
	const uint32_t lo = 0x01010101u;
	uint4 b0 = make_uint4((x.x >> I) & lo, (x.y >> I) & lo,
			      (x.z >> I) & lo, (x.w >> I) & lo);
	uint4 b1 = make_uint4((x.x >> (I + 1)) & lo, (x.y >> (I + 1)) & lo,
			      (x.z >> (I + 1)) & lo, (x.w >> (I + 1)) & lo);

#pragma unroll
	for (int e = X0; e < M; e++) {
		const uint2 k = *(const uint2 *)&kj[e * 8 + I];
		const uint32_t k0 = k.x, k1 = k.y;

		acc[e].x ^= (b0.x * k0) ^ (b1.x * k1);
		acc[e].y ^= (b0.y * k0) ^ (b1.y * k1);
		acc[e].z ^= (b0.z * k0) ^ (b1.z * k1);
		acc[e].w ^= (b0.w * k0) ^ (b1.w * k1);
	}
}

/*
 * acc[e] ^= coef[e][j] * x for e < M; kj = K table of input j.  X0: every
 * coefficient of output 0 is 1 (the P row of the parity matrix, and any
 * decode row that happens to be all ones): a plain XOR.
 */
template <int M, int X0>
static __device__ __forceinline__ void mac(uint4 (&acc)[M], uint4 x,
					   const uint32_t *kj)
{
	if (X0) {
		acc[0].x ^= x.x;
		acc[0].y ^= x.y;
		acc[0].z ^= x.z;
		acc[0].w ^= x.w;
		if (M == 1)
			return;
	}
	mac_lop<M, X0, 0>(acc, x, kj);
	if (RKG_NA(M - X0) == 8) {
		mac_lop<M, X0, 2>(acc, x, kj);
		mac_lop<M, X0, 4>(acc, x, kj);
		mac_lop<M, X0, 6>(acc, x, kj);
	} else {
		mac_mul<M, X0, 2>(acc, x, kj);
		mac_mul<M, X0, 4>(acc, x, kj);
		mac_mul<M, X0, 6>(acc, x, kj);
	}
}

static __device__ __forceinline__ uint4 ld16(uint64_t addr, uint32_t v)
{
	return *((const uint4 *)addr + v);
}

static __device__ __forceinline__ uint4 xor4(uint4 a, uint4 b)
{
	return make_uint4(a.x ^ b.x, a.y ^ b.y, a.z ^ b.z, a.w ^ b.w);
}

/* input j of this thread's stripe (DELTA: new ^ old) */
template <int MODE>
static __device__ __forceinline__ uint4 ld_in(const uint64_t *t, uint32_t nin,
					      uint32_t j, uint32_t v)
{
	uint4 x = ld16(t[j], v);

	if (MODE == RKG_XOR_INTO)
		x = xor4(x, ld16(t[nin + j], v));
	return x;
}

/*
 * The completion flag.  The threads of a block meet at a barrier; the
 * block's first thread then orders the block's results before its count
 * at GPU scope (a fence, then the atomic on the device counter), and the
 * last block to count fences at system scope before it stores seq in the
 * host word: that fence is cumulative (PTX memory model), so it orders
 * every result the counts saw before the store, and a host that sees seq
 * sees every result.  One system-scope fence per launch: a fence per
 * thread at system scope (`all`, the first version, kept as the
 * benchmark's reference) cost the kernel of one 8+3 stripe 1.4-1.7 us
 * more (Documentation/gpu.rst).  Every thread of every block calls it.
 */
static __device__ __forceinline__ void signal_done(uint32_t *count,
						   uint32_t *hdone,
						   uint32_t seq, uint32_t nblk,
						   uint32_t all)
{
	if (all)
		__threadfence_system();
	__syncthreads();
	if (threadIdx.x)
		return;
	if (!all)
		__threadfence();
	if (atomicAdd(count, 1) == nblk - 1) {
		*(volatile uint32_t *)count = 0;
		__threadfence_system();
		*(volatile uint32_t *)hdone = seq;
	}
}

template <int M, int MODE, int X0>
static __device__ __forceinline__ void code_vec(const struct rkg_kargs &a,
						uint32_t v, uint32_t s);

template <int M, int MODE, int X0>
__global__ void __launch_bounds__(RKG_BLOCK)
rkg_code(const __grid_constant__ struct rkg_kargs a)
{
	const uint32_t v = blockIdx.x * RKG_BLOCK + threadIdx.x;

	if (v < a.vecs)
		code_vec<M, MODE, X0>(a, v, blockIdx.y);
	if (a.hdone)
		signal_done(a.dcount, a.hdone, a.seq, gridDim.x * gridDim.y,
			    a.fence_all);
}

/* vector v of stripe s: the coding proper */
template <int M, int MODE, int X0>
static __device__ __forceinline__ void code_vec(const struct rkg_kargs &a,
						uint32_t v, uint32_t s)
{
	const uint32_t *kt = c_pool + a.kbase;
	const uint64_t *t;
	const uint32_t nin = a.nin;
	uint4 acc[M];
	uint32_t j;

	t = (a.tab ? a.tab : a.inl) + (uint64_t)s * a.stride;

#pragma unroll
	for (int e = 0; e < M; e++)
		acc[e] = make_uint4(0, 0, 0, 0);

	if (M <= 8) {
		/* groups of four inputs; the next group loads during this one */
		uint4 xa[4], xb[4];

#pragma unroll
		for (int u = 0; u < 4; u++)
			xa[u] = u < (int)nin ? ld_in<MODE>(t, nin, u, v) :
					       make_uint4(0, 0, 0, 0);
		for (j = 0; j < nin; j += 4) {
#pragma unroll
			for (int u = 0; u < 4; u++)
				xb[u] = j + 4 + u < nin ?
					ld_in<MODE>(t, nin, j + 4 + u, v) :
					make_uint4(0, 0, 0, 0);
#pragma unroll
			for (int u = 0; u < 4; u++)
				if (j + u < nin)
					mac<M, X0>(acc, xa[u],
						   kt + (j + u) * M * 8);
#pragma unroll
			for (int u = 0; u < 4; u++)
				xa[u] = xb[u];
		}
	} else {
		uint4 xn = ld16(t[0], v);

		if (MODE == RKG_XOR_INTO)
			xn = xor4(xn, ld16(t[nin], v));
#pragma unroll 1
		for (j = 0; j < nin; j++) {
			uint4 x = xn;

			if (j + 1 < nin) {
				xn = ld16(t[j + 1], v);
				if (MODE == RKG_XOR_INTO)
					xn = xor4(xn, ld16(t[nin + j + 1], v));
			}
			mac<M, X0>(acc, x, kt + j * M * 8);
		}
	}

	t += (MODE == RKG_XOR_INTO) ? 2 * nin : nin;
	if (MODE == RKG_STORE) {
#pragma unroll
		for (int e = 0; e < M; e++)
			*((uint4 *)t[e] + v) = acc[e];
	} else if (MODE == RKG_XOR_INTO) {
		uint4 o[M];

#pragma unroll
		for (int e = 0; e < M; e++)
			o[e] = ld16(t[e], v);
#pragma unroll
		for (int e = 0; e < M; e++)
			*((uint4 *)t[e] + v) = xor4(o[e], acc[e]);
	} else {
		uint32_t diff = 0;

#pragma unroll
		for (int e = 0; e < M; e++) {
			uint4 o = ld16(t[e], v);

			diff |= (o.x ^ acc[e].x) | (o.y ^ acc[e].y) |
				(o.z ^ acc[e].z) | (o.w ^ acc[e].w);
		}
		if (diff)
			a.flags[s] = 1;
	}
}

typedef void (*rkg_kfn)(const struct rkg_kargs);

template <int MODE, int X0, int... Ms>
struct rkg_table {
	static constexpr rkg_kfn fn[sizeof...(Ms)] = { &rkg_code<Ms, MODE, X0>... };
};

#define RKG_MS 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16

static const rkg_kfn *const rkg_kernels[2][3] = {
	{ rkg_table<RKG_STORE, 0, RKG_MS>::fn,
	  rkg_table<RKG_XOR_INTO, 0, RKG_MS>::fn,
	  rkg_table<RKG_CHECK, 0, RKG_MS>::fn, },
	{ rkg_table<RKG_STORE, 1, RKG_MS>::fn,
	  rkg_table<RKG_XOR_INTO, 1, RKG_MS>::fn,
	  rkg_table<RKG_CHECK, 1, RKG_MS>::fn, },
};

static uint8_t gf_mul2(uint8_t a)
{
	return (uint8_t)((a << 1) ^ ((a & 0x80) ? 0x1d : 0));
}

extern "C" int rkg_coef_x0(const struct rkg_coef *c, int nin)
{
	for (int j = 0; j < nin; j++)
		if (c->coef[j * RKG_MAX_OUT] != 1)
			return 0;
	return 1;
}

extern "C" void rkg_ktab_build(const struct rkg_coef *c, int nin, int nout,
			       uint32_t *w)
{
	const int na = RKG_NA(nout - rkg_coef_x0(c, nin));

	for (int j = 0; j < nin; j++)
		for (int e = 0; e < nout; e++) {
			uint8_t p = c->coef[j * RKG_MAX_OUT + e];

			for (int i = 0; i < 8; i++) {
				/* LOP3 form: replicated; IMAD form: the byte */
				*w++ = i < na ? p * 0x01010101u : p;
				p = gf_mul2(p);
			}
		}
}

extern "C" cudaError_t rkg_ktab_upload(uint32_t base, const uint32_t *words,
				       uint32_t nwords, cudaStream_t st)
{
	if ((uint64_t)base + nwords > RKG_NREGION * RKG_REGION_WORDS)
		return cudaErrorInvalidValue;
	return cudaMemcpyToSymbolAsync(c_pool, words, nwords * 4, base * 4,
				       cudaMemcpyHostToDevice, st);
}

extern "C" cudaError_t rkg_launch(const struct rkg_launch *l, cudaStream_t st)
{
	struct rkg_kargs a;
	uint32_t done = 0;
	const uint32_t maxy = 65535;

	if (l->mode < RKG_STORE || l->mode > RKG_CHECK || l->nin < 1 ||
	    l->nin > RKG_MAX_IN || l->nout < 1 || l->nout > RKG_MAX_OUT ||
	    (uint64_t)l->kbase + rkg_ktab_words(l->nin, l->nout) >
	    RKG_NREGION * RKG_REGION_WORDS || !l->len ||
	    l->len % 64 || !l->nstripes)
		return cudaErrorInvalidValue;
	if (!l->dtab && (uint64_t)l->nstripes * l->stride > RKG_INLINE)
		return cudaErrorInvalidValue;

	a.nin = l->nin;
	a.vecs = l->len / RKG_VEC;
	a.stride = l->stride;
	a.kbase = l->kbase;
	a.flags = l->dflags;
	a.dcount = l->dcount;
	a.hdone = l->hdone;
	a.seq = l->seq;
	a.fence_all = l->fence_all;
	if (l->hdone && (!l->dcount || l->nstripes > maxy))
		return cudaErrorInvalidValue;
	if (!l->dtab)
		for (uint32_t i = 0; i < l->nstripes * l->stride; i++)
			a.inl[i] = l->inl[i];

	while (done < l->nstripes) {
		uint32_t n = l->nstripes - done;
		dim3 grid((a.vecs + RKG_BLOCK - 1) / RKG_BLOCK, n > maxy ? maxy : n);

		a.tab = l->dtab ? l->dtab + (uint64_t)done * l->stride : NULL;
		if (l->mode == RKG_CHECK)
			a.flags = l->dflags + done;
		rkg_kernels[!!l->x0][l->mode][l->nout - 1]
			<<<grid, RKG_BLOCK, 0, st>>>(a);
		cudaError_t e = cudaGetLastError();
		if (e != cudaSuccess)
			return e;
		done += grid.y;
	}
	return cudaSuccess;
}

static __global__ void rkg_trap(void)
{
	__trap();
}

extern "C" cudaError_t rkg_launch_trap(cudaStream_t st)
{
	rkg_trap<<<1, 1, 0, st>>>();
	return cudaGetLastError();
}

static __device__ uint64_t rkg_clock_ns(void)
{
	uint64_t t;

	asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
	return t;
}

/* One thread waits for *release (mapped host memory) or max_ns. */
static __global__ void rkg_spin(const volatile uint32_t *release,
				uint64_t max_ns)
{
	const uint64_t t0 = rkg_clock_ns();

	while (!*release && rkg_clock_ns() - t0 < max_ns)
		__nanosleep(10000);
}

extern "C" cudaError_t rkg_launch_spin(cudaStream_t st,
				       const uint32_t *release,
				       uint64_t max_ns)
{
	rkg_spin<<<1, 1, 0, st>>>(release, max_ns);
	return cudaGetLastError();
}
