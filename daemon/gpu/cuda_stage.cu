// SPDX-License-Identifier: GPL-2.0
/*
 * The CUDA backend's buffers: a slot's pinned pointer and flag tables,
 * and the staged path's device buffers and copy lists.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda_priv.h"

/*
 * Make a pinned host buffer and its device twin hold at least @need
 * elements of @elem bytes (capacity doubles from @first); on failure both
 * are freed and the capacity is 0.
 */
static cudaError_t grow_pair(void **host, void **dev, size_t *cap,
			     size_t need, size_t elem, size_t first)
{
	size_t c = *cap ? *cap : first;
	cudaError_t e;

	if (need <= *cap)
		return cudaSuccess;
	while (c < need)
		c *= 2;
	cudaFreeHost(*host);
	cudaFree(*dev);
	*host = NULL;
	*dev = NULL;
	*cap = 0;
	e = cudaMallocHost(host, c * elem);
	if (e == cudaSuccess)
		e = cudaMalloc(dev, c * elem);
	if (e != cudaSuccess)
		return e;
	*cap = c;
	return cudaSuccess;
}

cudaError_t grow(struct slot *sl, size_t ntab, size_t nflags)
{
	const int node = sl->b->node;
	cudaError_t e;

	if (ntab <= sl->tabcap && nflags <= sl->flagcap)
		return cudaSuccess;
	/* frees wait for the whole device, pinning takes its time */
	setup_begin(sl->b);
	/* pinned tables on the GPU's node, whichever thread launches */
	if (node >= 0)
		rkg_numa_prefer(node);
	e = grow_pair((void **)&sl->htab, (void **)&sl->dtab, &sl->tabcap,
		      ntab, sizeof(uint64_t), 4096);
	if (e == cudaSuccess)
		e = grow_pair((void **)&sl->hflags, (void **)&sl->dflags,
			      &sl->flagcap, nflags, sizeof(int32_t), 1024);
	if (node >= 0)
		rkg_numa_unprefer();
	setup_end(sl->b);
	return e;
}

/*
 * Staged path.  The chunks a batch only reads are gathered into device
 * memory by the copy engines (cudaMemcpyBatchAsync), in sub-batches of
 * about b->sub_bytes, on a few copy streams shared by all slots and fed
 * in launch order (so the engines work through the batches one after
 * the other instead of sharing the link among all of them, which left
 * the link idle while every batch wrote its results at the same time);
 * each sub-batch's kernel waits for its copy (an event) on the slot's
 * stream and runs while the next copies stream in.  With RKMD_STAGE_OUT
 * (the default) encode and decode write their results into device
 * buffers, sent back by batched copies on a shared device-to-host stream
 * that waits for each sub-batch's kernel; otherwise the kernel writes
 * them to host memory itself (measured 11-19 % slower: the SMs' posted
 * writes slow the copy engines' reads).  Without room for the buffers
 * the batch stays zero-copy.
 */
static cudaError_t dev_room(struct cuda_backend *b, uint8_t **buf,
			    size_t *cap, size_t need)
{
	size_t c = 1 << 20;
	cudaError_t e;

	if (need <= *cap)
		return cudaSuccess;
	while (c < need)
		c *= 2;
	setup_begin(b);		/* cudaFree waits for the whole device */
	cudaFree(*buf);
	*buf = NULL;
	*cap = 0;
	e = cudaMalloc(buf, c);
	setup_end(b);
	if (e != cudaSuccess) {
		cudaGetLastError();	/* not sticky */
		*buf = NULL;
		return cudaErrorMemoryAllocation;
	}
	*cap = c;
	return cudaSuccess;
}

/*
 * Which staging a batch gets (RKMD_STAGE_* bits; 0: zero-copy).  With
 * RKMD_STAGE_AUTO the size that counts is the jobs' (their average), not
 * the merged batch's: a stream of small jobs stays zero-copy even when
 * several of them merge, since a mixture of small zero-copy batches and
 * merged staged ones in flight measured worse than either (1 MiB jobs).
 */
int stage_flags(struct cuda_backend *b, const struct plan *p,
		       uint64_t nstripes, uint32_t len, size_t njobs)
{
	const int nst = p->mode == RKG_XOR_INTO ? 2 * p->nin :
			p->mode == RKG_CHECK ? stride_of(p) : p->nin;
	int f = b->stage_mode, mix;

	if (!(f & RKMD_STAGE_IN) ||
	    ((f & RKMD_STAGE_AUTO) &&
	     nstripes * nst * len < b->stage_min * njobs))
		return 0;
	/* mixed: one batch in n reads its inputs zero-copy meanwhile */
	mix = (f >> RKMD_STAGE_MIX_SHIFT) & 15;
	if (mix > 1 && ++b->mix_next % mix == 0)
		return 0;
	/*
	 * Results written by the SMs while the copy engines read measured
	 * slower than either path alone: with RKMD_STAGE_OUT, delta (whose
	 * parity the kernel reads and writes in place) stays zero-copy.
	 */
	if (p->mode == RKG_XOR_INTO && (f & RKMD_STAGE_OUT))
		return 0;
	if (p->mode != RKG_STORE)
		f &= ~RKMD_STAGE_OUT;
	return f;
}

/*
 * Point the batch's table at device buffers and build the copy lists:
 * per stripe, nst input copies (host -> device), then, with
 * RKMD_STAGE_OUT, nout output copies (device -> host).  Returns the
 * flags actually used (0 when there was no room: stay zero-copy).
 */
int stage_prepare(struct cuda_backend *b, struct slot *sl,
			 const struct plan *p, uint64_t *tab, uint32_t len,
			 int f)
{
	const int stride = stride_of(p);
	const int nst = p->mode == RKG_XOR_INTO ? 2 * p->nin :
			p->mode == RKG_CHECK ? stride : p->nin;
	const uint64_t nin = sl->nstripes * nst;
	const uint64_t nout = f & RKMD_STAGE_OUT ? sl->nstripes * p->nout : 0;
	uint64_t s, k = 0, o = 0;
	int q;

	if (dev_room(b, &sl->dstage, &sl->stagecap, nin * len) !=
	    cudaSuccess)
		return 0;
	if (nout && dev_room(b, &sl->dout, &sl->outcap, nout * len) !=
	    cudaSuccess)
		f &= ~RKMD_STAGE_OUT;
	sl->cp_src.resize(nin);
	sl->cp_dst.resize(nin);
	sl->cp_len.assign(nin, len);
	if (f & RKMD_STAGE_OUT) {
		sl->op_src.resize(nout);
		sl->op_dst.resize(nout);
		sl->op_len.assign(nout, len);
	}
	for (s = 0; s < sl->nstripes; s++) {
		for (q = 0; q < nst; q++, k++) {
			uint64_t *e = &tab[s * stride + q];

			sl->cp_src[k] = (void *)(uintptr_t)(*e - b->delta);
			sl->cp_dst[k] = sl->dstage + k * len;
			*e = (uint64_t)(uintptr_t)sl->cp_dst[k];
		}
		if (!(f & RKMD_STAGE_OUT))
			continue;
		for (q = 0; q < p->nout; q++, o++) {
			uint64_t *e = &tab[s * stride + p->nin + q];

			sl->op_dst[o] = (void *)(uintptr_t)(*e - b->delta);
			sl->op_src[o] = sl->dout + o * len;
			*e = (uint64_t)(uintptr_t)sl->op_src[o];
		}
	}
	b->stats.staged++;
	return f;
}

/* how many shared copy streams the staged path feeds (RKMD_STAGE_STREAMS) */
void set_streams(struct cuda_backend *b)
{
	int n = (b->stage_mode >> RKMD_STAGE_STREAMS_SHIFT) & 15;

	b->nh2d = n < 1 ? 1 : n > RKMD_STAGE_MAXSTREAMS ?
		  RKMD_STAGE_MAXSTREAMS : n;
}

cudaError_t batch_copy(void **dst, void **src, size_t *len, size_t n,
			      int f, cudaStream_t st)
{
	struct cudaMemcpyAttributes at;
	size_t ai = 0;

	memset(&at, 0, sizeof(at));
	at.srcAccessOrder = cudaMemcpySrcAccessOrderStream;
	if (f & RKMD_STAGE_CEFLAG)
		at.flags = cudaMemcpyFlagPreferOverlapWithCompute;
	return cudaMemcpyBatchAsync(dst, src, len, n, &at, &ai, 1, st);
}
