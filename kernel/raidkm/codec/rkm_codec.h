/* SPDX-License-Identifier: GPL-2.0 */
/*
 * raidkm erasure codec: a systematic MDS Reed-Solomon code over GF(2^8).
 *
 * Freestanding C: this header and the files under kernel/raidkm/codec/
 * compile into raidkm.ko (the in-kernel CPU codec) and into user space
 * (raidkmd's CPU backend, unit tests, benchmarks), like lib/raid6.
 *
 * Chunks of a stripe are numbered 0..k-1 (data) and k..k+m-1 (parity).
 * Field: GF(2^8) with polynomial x^8+x^4+x^3+x^2+1 (0x11D), generator 2,
 * the field of Linux RAID-6.  Parity row 0 is all ones (P = XOR of data),
 * parity row 1 is 2^j (Linux RAID-6 Q); for m = 2 the code is exactly
 * md raid6.  See Documentation/codec.rst for the construction and its
 * MDS proof.
 */
#ifndef RKM_CODEC_H
#define RKM_CODEC_H

#include "rkm_port.h"

#define RKM_MAX_M	16	/* parity chunks per stripe */
#define RKM_MIN_K	2	/* data chunks per stripe, at least */
#define RKM_MAX_N	64	/* k + m, at most */
#define RKM_MAX_K	(RKM_MAX_N - 1)

/* Chunk lengths must be a positive multiple of this many bytes. */
#define RKM_LEN_ALIGN	64

/* Error codes (negative errno style, same values in kernel and user space) */
#define RKM_EINVAL	22	/* bad geometry, length or erasure set */
#define RKM_ENOMEM	12

/* Is (k, m) a supported geometry? */
static inline int rkm_geometry_ok(int k, int m)
{
	return m >= 1 && m <= RKM_MAX_M && k >= RKM_MIN_K && k + m <= RKM_MAX_N;
}

static inline int rkm_len_ok(rkm_size_t len)
{
	return len > 0 && (len % RKM_LEN_ALIGN) == 0;
}

/* The m x k generator (parity) coefficients of the code, row major. */
void rkm_parity_matrix(int k, int m, rkm_u8 *coef /* [m * k] */);

/*
 * A prepared coefficient matrix: nout x nin coefficients plus the tables
 * the SIMD kernels need.  Opaque; sized at run time.
 */
struct rkm_mat;

/* Per-geometry code context: encode tables and a bounded decode cache. */
struct rkm_code;

struct rkm_code *rkm_code_create(int k, int m);	/* NULL on bad geometry/ENOMEM */
void rkm_code_destroy(struct rkm_code *c);
int rkm_code_k(const struct rkm_code *c);
int rkm_code_m(const struct rkm_code *c);

/*
 * encode: data[0..k-1] -> parity[0..m-1].  Returns 0 or -RKM_EINVAL.
 */
int rkm_encode(struct rkm_code *c, rkm_size_t len,
	       const rkm_u8 *const *data, rkm_u8 *const *parity);

/*
 * decode: chunks[0..k+m-1] (data then parity); the chunks whose bit is set
 * in @erased (1..m bits) are rebuilt in place from k survivors, data and
 * parity in one pass.  Survivor buffers are only read.  The decode matrix
 * is cached per erasure pattern.  Returns 0 or -RKM_EINVAL.
 */
int rkm_decode(struct rkm_code *c, rkm_size_t len, rkm_u64 erased,
	       rkm_u8 *const *chunks);

/*
 * decode what is wanted: as rkm_decode, but only the chunks set in @want
 * (a non-empty subset of @erased) are written.  The other erased chunks'
 * entries in @chunks may be NULL and are never touched; the survivors
 * (chunks not in @erased, of which the first k are read) are the same as
 * for rkm_decode.  A caller choosing which k chunks are read marks the
 * others erased too.  Decode matrices are cached per (erased, want).
 * Returns 0 or -RKM_EINVAL (bad length, erasure set or want).
 */
int rkm_decode_want(struct rkm_code *c, rkm_size_t len, rkm_u64 erased,
		    rkm_u64 want, rkm_u8 *const *chunks);

/*
 * delta update (read-modify-write): for each data chunk i whose bit is set
 * in @changed, parity += coef(i) * (old[i] ^ new[i]).  old/new are indexed
 * by data chunk number; entries for unchanged chunks are ignored.
 */
int rkm_delta(struct rkm_code *c, rkm_size_t len, rkm_u64 changed,
	      const rkm_u8 *const *old_data, const rkm_u8 *const *new_data,
	      rkm_u8 *const *parity);

/*
 * check: 0 when chunks[0..k+m-1] form a codeword, 1 when they do not.
 * @scratch: m * len bytes of caller memory.
 */
int rkm_check(struct rkm_code *c, rkm_size_t len,
	      const rkm_u8 *const *chunks, rkm_u8 *scratch);

/*
 * locate (m >= 2): in a stripe that fails check, find the one chunk whose
 * corruption explains every syndrome byte.  Returns the chunk index
 * (0..k+m-1), RKM_LOCATE_CLEAN when the stripe is consistent, or
 * RKM_LOCATE_UNKNOWN when no single chunk explains it (never a guess).
 */
#define RKM_LOCATE_CLEAN	(-1)
#define RKM_LOCATE_UNKNOWN	(-2)
int rkm_locate(struct rkm_code *c, rkm_size_t len,
	       const rkm_u8 *const *chunks, rkm_u8 *scratch);

/*
 * Decode matrix for the GPU and other backends: with @erased set (1..m
 * chunks), fills survivors[0..k-1] with the chunk indices used as input
 * (ascending) and rows[e * k + j] with the coefficient applied to
 * survivor j to produce the e-th erased chunk (ascending chunk index).
 * Returns the number of erased chunks, or -RKM_EINVAL.
 */
int rkm_decode_matrix(struct rkm_code *c, rkm_u64 erased,
		      rkm_u8 *survivors, rkm_u8 *rows);
/*
 * The same for the chunks in @want only (a non-empty subset of @erased):
 * rows[w * k + j] for the w-th wanted chunk (ascending chunk index).
 * Returns the number of wanted chunks, or -RKM_EINVAL.
 */
int rkm_decode_matrix_want(struct rkm_code *c, rkm_u64 erased,
			   rkm_u64 want, rkm_u8 *survivors, rkm_u8 *rows);

/*
 * Implementation in use: "scalar", "ssse3", "avx2", "avx512", "gfni-avx2"
 * (GFNI on 32-byte vectors) or "gfni" (GFNI on AVX-512 vectors).
 */
const char *rkm_codec_impl(void);
/*
 * MB/s of data the implementation in use coded when rkm_codec_init()
 * measured it (8+4 encodes of 4 KiB chunks); 0 when it was not measured
 * (forced by RKM_CODEC_IMPL or rkm_codec_use()).
 */
unsigned long rkm_codec_mbs(void);
/*
 * Check every implementation the CPU supports against a known answer,
 * measure them briefly and pick the fastest; 0 or -RKM_EINVAL when even
 * the scalar reference fails (the module then refuses to load).  In user
 * space the first codec call runs it, and RKM_CODEC_IMPL=name in the
 * environment forces an implementation instead of measuring.
 */
int rkm_codec_init(void);

/* Tests and benchmarks: the compiled implementations, NULL past the end. */
const char *rkm_codec_impl_name(int i);
/* Does this CPU support implementation @name? */
int rkm_codec_impl_usable(const char *name);
/* Switch to @name (after its known-answer check); 0 or -RKM_EINVAL. */
int rkm_codec_use(const char *name);

#endif /* RKM_CODEC_H */
