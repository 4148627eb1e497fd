// SPDX-License-Identifier: GPL-2.0
/*
 * bench_codec: one thread, the raidkm codec (librkmcodec.a, the sources
 * raidkm.ko builds) against ISA-L, every reference in the same rounds and
 * on the same data chunks:
 *   encode   ours rkm_encode      vs ec_encode_data (gf_gen_cauchy1_matrix)
 *   decode2  ours rkm_decode      vs ec_encode_data with the inverted
 *            (data 0, 1 erased)      survivor matrix (tables made once)
 *   decodeM  the same with data 0..m-1 erased (m > 2; the line says
 *            decode3, decode4, ...)
 *   pq       ours rkm_encode m=2  vs pq_gen (ISA-L's RAID-6 P+Q)
 *   xor      ours rkm_encode m=1  vs xor_gen (RAID-5 P), for the m = 2
 *            geometries: the same inputs read and one output written,
 *            the rate no P+Q over the same memory can exceed
 * GB/s of data (k x chunk).  The sides (ours, then each reference) take
 * turns in rounds of about 2 ms, each round starting with a different
 * side; every figure is the median over the rounds with [min max], and a
 * ratio is ours / reference within one round, its median and spread
 * printed the same way.  Every side's output is checked once before the
 * timing (decode rebuilds the data; pq_gen equals our m = 2 parity).
 *
 * The references are ISA-L shared libraries loaded with dlopen (so that
 * two versions sit in one process): --ref LABEL=PATH, repeated; without
 * any, every libisal-*.so beside this program (make bench-codec puts
 * ISA-L 2.32.1, built from source, and Debian's 2.30 there).  The kernel
 * each one's dispatcher picked is read from its multibinary entry point
 * and printed.
 *
 * usage: bench_codec [-q] [--impl NAME] [--form NAME] [--pq NAME]
 *                    [--isa-l-isa ISA]
 *                    [--ref LABEL=PATH]... [--skipped 'LABEL: why']...
 *                    [--place stagger|page|malloc] [--chunk N] [--only TEXT]...
 *   -q             30 rounds a line instead of 120
 *   --impl NAME    our implementation (also RKM_CODEC_IMPL=NAME)
 *   --form NAME    our form of m = 2-style decodes: rows, fused (one
 *                  syndrome pass) or syndrome (three passes); default: the
 *                  one measured fastest at init
 *   --pq NAME      our 2^j row of P+Q: table, horner or horner-blend
 *                  (AVX2's second doubling; default: measured)
 *   --isa-l-isa    call ISA-L's kernels of that ISA directly instead of
 *                  its dispatcher: avx512_gfni, avx2_gfni, avx512, avx2,
 *                  avx, sse or base (an AVX2-only machine, emulated)
 *   --skipped      a reference that could not be built, named in the output
 *   --place P      where the chunks sit (below): stagger (default), page
 *                  (as in a stripe cache) or malloc; --align 4096 and
 *                  --align 64 are the older spellings of page and malloc
 *   --chunk N      one chunk size instead of 4 KiB and 64 KiB: whole KiB
 *                  (4096, 32k), up to 1024k (where the time goes by
 *                  working set)
 *   --only TEXT    only the lines whose "op k+m chunk" contains TEXT, e.g.
 *                  "decode2 8+2", "pq", " 4KiB" (repeatable)
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <sched.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <dirent.h>
#include "codec/rkm_codec.h"
#include "codec/rkm_codec_int.h"

#define MAX_REFS	4
#define MAX_ROUNDS	240
#define MAX_N		64

static double round_s = 0.002;
static int rounds = 120;

/* ISA-L's API (the same in 2.30 and 2.32), called through dlsym */
typedef void (*isal_init_fn)(int k, int rows, unsigned char *a,
			     unsigned char *tbls);
typedef void (*isal_enc_fn)(int len, int k, int rows, unsigned char *tbls,
			    unsigned char **data, unsigned char **coding);
typedef void (*isal_cauchy_fn)(unsigned char *a, int m, int k);
typedef int (*isal_inv_fn)(unsigned char *in, unsigned char *out, int n);
typedef int (*isal_pq_fn)(int vects, int len, void **array);

struct ref {
	char label[32];
	char path[PATH_MAX];
	void *dl;
	isal_init_fn init;
	isal_enc_fn enc;
	isal_cauchy_fn cauchy;
	isal_inv_fn inv;
	isal_pq_fn pq;
	isal_pq_fn xor;			/* xor_gen: NULL skips the xor line */
	char enc_isa[64], pq_isa[64];	/* the kernels actually called */
};

static struct ref refs[MAX_REFS];
static int nrefs;
static const char *skipped[MAX_REFS];
static int nskipped;
static const char *force_isa;
static const char *only[16];
static int nonly;

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void *xalloc_at(size_t n, size_t align)
{
	void *p;

	if (posix_memalign(&p, align, n ? n : 64)) {
		fprintf(stderr, "bench: out of memory\n");
		exit(1);
	}
	memset(p, 0, n);
	return p;
}

static void *xalloc(size_t n)
{
	return xalloc_at(n, 64);
}

/*
 * Where the chunks sit.  Every side reads the same data chunks and writes
 * its own outputs; what their addresses share below 4 KiB decides which
 * loads wait on earlier stores to another page (4K aliasing on Intel
 * cores) and which lines share L1 sets, so every side's outputs sit at
 * the same page offsets:
 *   stagger (default)  chunk slot i at offset 128 i mod 4096 of its own
 *                      pages, as malloc spreads 64 KiB blocks
 *   page               every chunk at a page boundary, as in a stripe cache
 *                      (--align 4096)
 *   malloc             wherever posix_memalign puts them, 64-byte aligned
 *                      (--align 64): the sides' outputs then sit at other
 *                      offsets, the first side's nearest to the data
 * Slots: data i is i; output i of a side (parity, then rebuilt) is
 * k + 2i and k + 2i + 1.
 */
enum { PLACE_STAGGER, PLACE_PAGE, PLACE_MALLOC, NPLACE };
static const char *const place_names[NPLACE] = { "stagger", "page", "malloc" };
static int place = PLACE_STAGGER;
static void *chunk_base[4 * MAX_N * (1 + MAX_REFS)];
static int nchunk;

static void *chunk_alloc(size_t n, int slot)
{
	size_t off = place == PLACE_STAGGER ? (size_t)slot * 128 % 4096 : 0;
	unsigned char *p;

	if (nchunk == (int)(sizeof(chunk_base) / sizeof(*chunk_base))) {
		fprintf(stderr, "bench: too many chunks\n");
		exit(1);
	}
	p = place == PLACE_MALLOC ? xalloc_at(n, 64) :
				    xalloc_at(n + off, 4096);
	chunk_base[nchunk++] = p;
	return p + off;
}

static void chunk_free_all(void)
{
	while (nchunk)
		free(chunk_base[--nchunk]);
}

/* ---- the references ---------------------------------------------------- */

static const char *const isas[] = {
	"avx512_gfni", "avx2_gfni", "avx512", "avx2", "avx", "sse", "base",
};

/*
 * Where code that is one indirect jump goes: "endbr64; [bnd] jmp [rip +
 * disp32]" (an ISA-L multibinary entry point, whose slot holds the kernel
 * its dispatcher chose on the first call; or a PLT stub).  NULL when the
 * code is something else.
 */
static void *jmp_target(void *fn)
{
	const unsigned char *p = fn;
	int32_t disp;
	void *t;

	if (p[0] == 0xf3 && p[1] == 0x0f && p[2] == 0x1e && p[3] == 0xfa)
		p += 4;
	if (p[0] == 0xf2)
		p++;
	if (p[0] != 0xff || p[1] != 0x25)
		return NULL;
	memcpy(&disp, p + 2, 4);
	memcpy(&t, p + 6 + disp, sizeof(t));
	return t;
}

/*
 * The name of the kernel @base's entry point dispatches to
 * ("ec_encode_data_avx512_gfni"): its slot, possibly through a PLT stub.
 */
static void dispatched(struct ref *r, const char *base, char *out, size_t n)
{
	void *t = jmp_target(dlsym(r->dl, base));
	char name[64];
	size_t i;
	int hop;

	for (hop = 0; t && hop < 3; hop++, t = jmp_target(t))
		for (i = 0; i < sizeof(isas) / sizeof(isas[0]); i++) {
			snprintf(name, sizeof(name), "%s_%s", base, isas[i]);
			if (dlsym(r->dl, name) == t) {
				snprintf(out, n, "%s", name);
				return;
			}
		}
	snprintf(out, n, "%s -> ?", base);
}

static int cpu_has_isa(const char *isa)
{
	if (strstr(isa, "gfni") && !__builtin_cpu_supports("gfni"))
		return 0;
	if (strstr(isa, "avx512") && !(__builtin_cpu_supports("avx512f") &&
				       __builtin_cpu_supports("avx512bw")))
		return 0;
	if (strstr(isa, "avx2") && !__builtin_cpu_supports("avx2"))
		return 0;
	if (strstr(isa, "avx") && !__builtin_cpu_supports("avx"))
		return 0;
	return 1;
}

/* 0, or -1 with a message when @r cannot be used */
static int ref_open(struct ref *r)
{
	unsigned char a[4 * 2], tbl[4 * 2 * 32];
	unsigned char *d[2], *p[1];

	r->dl = dlopen(r->path, RTLD_NOW | RTLD_LOCAL);
	if (!r->dl) {
		fprintf(stderr, "bench: %s: %s\n", r->label, dlerror());
		return -1;
	}
	r->cauchy = (isal_cauchy_fn)dlsym(r->dl, "gf_gen_cauchy1_matrix");
	r->inv = (isal_inv_fn)dlsym(r->dl, "gf_invert_matrix");
	if (force_isa) {
		const char *init = strstr(force_isa, "gfni") ?
				   "ec_init_tables_gfni" : "ec_init_tables_base";

		r->init = (isal_init_fn)dlsym(r->dl, init);
		if (!r->init && !strstr(force_isa, "gfni"))
			r->init = (isal_init_fn)dlsym(r->dl, "ec_init_tables");
		snprintf(r->enc_isa, sizeof(r->enc_isa), "ec_encode_data_%s",
			 force_isa);
		snprintf(r->pq_isa, sizeof(r->pq_isa), "pq_gen_%s", force_isa);
		r->enc = (isal_enc_fn)dlsym(r->dl, r->enc_isa);
		r->pq = (isal_pq_fn)dlsym(r->dl, r->pq_isa);
		if (!r->init || !r->enc || !r->pq) {
			fprintf(stderr, "bench: %s has no %s kernels\n",
				r->label, force_isa);
			return -1;
		}
		strcat(r->enc_isa, " (forced)");
		strcat(r->pq_isa, " (forced)");
		/* xor_gen's kernels are named by vector width */
		r->xor = (isal_pq_fn)dlsym(r->dl, strstr(force_isa, "512") ?
					   "xor_gen_avx512" :
					   strstr(force_isa, "avx") ?
					   "xor_gen_avx" : "xor_gen_sse");
	} else {
		r->init = (isal_init_fn)dlsym(r->dl, "ec_init_tables");
		r->enc = (isal_enc_fn)dlsym(r->dl, "ec_encode_data");
		r->pq = (isal_pq_fn)dlsym(r->dl, "pq_gen");
		r->xor = (isal_pq_fn)dlsym(r->dl, "xor_gen");
	}
	if (!r->cauchy || !r->inv || !r->init || !r->enc || !r->pq) {
		fprintf(stderr, "bench: %s: not ISA-L's erasure code API\n",
			r->label);
		return -1;
	}
	if (force_isa)
		return 0;
	/* one call of each runs the dispatchers; then read their choice */
	d[0] = xalloc(64);
	d[1] = xalloc(64);
	p[0] = xalloc(64);
	r->cauchy(a, 3, 2);
	r->init(2, 1, a + 4, tbl);
	r->enc(64, 2, 1, tbl, d, p);
	{
		void *pq_arr[4] = { d[0], d[1], p[0], xalloc(64) };

		r->pq(4, 64, pq_arr);
		free(pq_arr[3]);
	}
	free(d[0]);
	free(d[1]);
	free(p[0]);
	dispatched(r, "ec_encode_data", r->enc_isa, sizeof(r->enc_isa));
	dispatched(r, "pq_gen", r->pq_isa, sizeof(r->pq_isa));
	return 0;
}

static void ref_add(const char *label, const char *path)
{
	struct ref *r = &refs[nrefs];

	if (nrefs == MAX_REFS)
		return;
	snprintf(r->label, sizeof(r->label), "%s", label);
	snprintf(r->path, sizeof(r->path), "%s", path);
	if (ref_open(r)) {
		if (r->dl)
			dlclose(r->dl);
		memset(r, 0, sizeof(*r));
		return;
	}
	nrefs++;
}

/* newer versions first: "2.32.1" before "2.30" */
static int label_cmp(const void *a, const void *b)
{
	return -strverscmp(((const struct ref *)a)->label,
			   ((const struct ref *)b)->label);
}

/* without --ref: every libisal-VERSION.so beside this program */
static void refs_beside_exe(void)
{
	char dir[PATH_MAX], path[PATH_MAX + 300], label[32];
	ssize_t n = readlink("/proc/self/exe", dir, sizeof(dir) - 1);
	struct dirent *e;
	char *slash;
	DIR *dd;

	if (n <= 0)
		return;
	dir[n] = 0;
	slash = strrchr(dir, '/');
	if (!slash)
		return;
	*slash = 0;
	dd = opendir(dir);
	if (!dd)
		return;
	while ((e = readdir(dd))) {
		size_t l = strlen(e->d_name);

		if (strncmp(e->d_name, "libisal-", 8) || l < 12 ||
		    strcmp(e->d_name + l - 3, ".so") || l - 11 >= sizeof(label))
			continue;
		memcpy(label, e->d_name + 8, l - 11);
		label[l - 11] = 0;
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		ref_add(label, path);
	}
	closedir(dd);
}

/* ---- one geometry -------------------------------------------------------- */

enum { OP_ENC, OP_DEC2, OP_DECM, OP_PQ, OP_XOR, NOPS };
static const char *const op_names[NOPS] = {
	"encode", "decode2", "decodeM", "pq", "xor",
};

struct side {
	unsigned char *par[RKM_MAX_M];	/* parity it encodes */
	unsigned char *rec[RKM_MAX_M];	/* chunks it rebuilds */
	/* ours: the stripe as rkm_decode sees it, per erasure count */
	unsigned char *ch2[MAX_N], *chm[MAX_N];
	/* a reference: tables and survivor lists */
	unsigned char *tenc, *tdec2, *tdecm;
	unsigned char *in2[MAX_N], *inm[MAX_N];
	void *pq[MAX_N + 2];
};

struct ctx {
	int k, m, e2, em;
	size_t len;
	unsigned char *data[MAX_N];
	struct rkm_code *code;
	struct rkm_code *code1;		/* k+1, for the xor line (m = 2) */
	struct side s[1 + MAX_REFS];	/* 0: ours, 1..: refs[i - 1] */
};

static void run_op(struct ctx *c, int side, int op)
{
	struct side *s = &c->s[side];
	struct ref *r = side ? &refs[side - 1] : NULL;
	int k = c->k, m = c->m;

	if (!side) {
		switch (op) {
		case OP_ENC:
		case OP_PQ:
			rkm_encode(c->code, c->len,
				   (const rkm_u8 *const *)c->data, s->par);
			break;
		case OP_XOR:
			rkm_encode(c->code1, c->len,
				   (const rkm_u8 *const *)c->data, s->par);
			break;
		case OP_DEC2:
			rkm_decode(c->code, c->len, (1ull << c->e2) - 1, s->ch2);
			break;
		case OP_DECM:
			rkm_decode(c->code, c->len, (1ull << c->em) - 1, s->chm);
			break;
		}
		return;
	}
	switch (op) {
	case OP_ENC:
		r->enc(c->len, k, m, s->tenc, c->data, s->par);
		break;
	case OP_DEC2:
		r->enc(c->len, k, c->e2, s->tdec2, s->in2, s->rec);
		break;
	case OP_DECM:
		r->enc(c->len, k, c->em, s->tdecm, s->inm, s->rec);
		break;
	case OP_PQ:
		r->pq(k + 2, c->len, s->pq);
		break;
	case OP_XOR:
		r->xor(k + 1, c->len, s->pq);	/* into s->pq[k], par[0] */
		break;
	}
}

/* ISA-L decode tables for data 0..e-1 erased, survivors in @in */
static unsigned char *ref_dec_tables(struct ctx *c, struct ref *r,
				     struct side *s, const unsigned char *a,
				     int e, unsigned char **in)
{
	unsigned char sub[MAX_N * MAX_N], inv[MAX_N * MAX_N];
	unsigned char *t = xalloc((size_t)c->k * e * 32);
	int i, n = 0;

	for (i = e; i < c->k + e; i++) {
		memcpy(sub + n * c->k, a + i * c->k, c->k);
		in[n++] = i < c->k ? c->data[i] : s->par[i - c->k];
	}
	if (r->inv(sub, inv, c->k)) {
		fprintf(stderr, "bench: ISA-L survivor matrix not invertible\n");
		exit(1);
	}
	r->init(c->k, e, inv, t);
	return t;
}

static void setup(struct ctx *c, int k, int m, size_t len)
{
	unsigned char a[MAX_N * MAX_N];
	int i, j, x, n = k + m;

	memset(c, 0, sizeof(*c));
	c->k = k;
	c->m = m;
	c->len = len;
	c->e2 = m < 2 ? m : 2;
	c->em = m;
	for (i = 0; i < k; i++) {
		c->data[i] = chunk_alloc(len, i);
		for (j = 0; j < (int)len; j++)
			c->data[i][j] = rand();
	}
	c->code = rkm_code_create(k, m);
	c->code1 = m == 2 ? rkm_code_create(k, 1) : NULL;
	if (!c->code || (m == 2 && !c->code1)) {
		fprintf(stderr, "bench: rkm_code_create(%d, %d) failed\n", k, m);
		exit(1);
	}
	for (x = 0; x <= nrefs; x++) {
		struct side *s = &c->s[x];

		for (i = 0; i < m; i++) {
			s->par[i] = chunk_alloc(len, k + 2 * i);
			s->rec[i] = chunk_alloc(len, k + 2 * i + 1);
		}
		for (i = 0; i < n; i++) {
			s->ch2[i] = i < c->e2 ? s->rec[i] :
				    i < k ? c->data[i] : s->par[i - k];
			s->chm[i] = i < c->em ? s->rec[i] :
				    i < k ? c->data[i] : s->par[i - k];
		}
		for (i = 0; i < k; i++)
			s->pq[i] = c->data[i];
		s->pq[k] = s->par[0];
		s->pq[k + 1] = s->par[m > 1 ? 1 : 0];
		if (!x)
			continue;
		refs[x - 1].cauchy(a, n, k);
		s->tenc = xalloc((size_t)k * m * 32);
		refs[x - 1].init(k, m, a + k * k, s->tenc);
		/* the parity the decode tables' survivors need */
		run_op(c, x, OP_ENC);
		s->tdec2 = ref_dec_tables(c, &refs[x - 1], s, a, c->e2, s->in2);
		s->tdecm = ref_dec_tables(c, &refs[x - 1], s, a, c->em, s->inm);
	}
}

static void teardown(struct ctx *c)
{
	int x;

	chunk_free_all();
	for (x = 0; x <= nrefs; x++) {
		free(c->s[x].tenc);
		free(c->s[x].tdec2);
		free(c->s[x].tdecm);
	}
	rkm_code_destroy(c->code);
	rkm_code_destroy(c->code1);
}

/* Every side's result once: decode rebuilds the data, pq_gen is our P/Q. */
static void verify(struct ctx *c, int op)
{
	int x, i, e = op == OP_DEC2 ? c->e2 : c->em;

	for (x = 0; x <= nrefs; x++) {
		const char *who = x ? refs[x - 1].label : "ours";
		struct side *s = &c->s[x];

		if (op == OP_DEC2 || op == OP_DECM) {
			run_op(c, x, OP_ENC);
			for (i = 0; i < e; i++)
				memset(s->rec[i], 0xa5, c->len);
			run_op(c, x, op);
			for (i = 0; i < e; i++)
				if (memcmp(s->rec[i], c->data[i], c->len)) {
					printf("FAIL %s %s k=%d m=%d: chunk %d not rebuilt\n",
					       who, op_names[op], c->k, c->m, i);
					exit(1);
				}
		} else if (op == OP_PQ || op == OP_XOR) {
			run_op(c, x, op);
			for (i = 0; x && i < (op == OP_PQ ? 2 : 1); i++)
				if (memcmp(s->par[i], c->s[0].par[i], c->len)) {
					printf("FAIL %s %s k=%d: %c differs from ours\n",
					       who, op == OP_PQ ? "pq_gen" :
					       "xor_gen", c->k, "PQ"[i]);
					exit(1);
				}
		}
	}
}

/* ---- statistics and measurement ------------------------------------------ */

struct stat3 {
	double med, min, max;
};

static int dcmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static struct stat3 stats(const double *v, int n)
{
	double t[MAX_ROUNDS];
	struct stat3 s;

	memcpy(t, v, n * sizeof(*v));
	qsort(t, n, sizeof(*t), dcmp);
	s.min = t[0];
	s.max = t[n - 1];
	s.med = n % 2 ? t[n / 2] : (t[n / 2 - 1] + t[n / 2]) / 2;
	return s;
}

/* operations per round of side @x, about round_s long */
static long calibrate(struct ctx *c, int x, int op)
{
	double t0 = now(), t;
	long n = 0;

	do {
		run_op(c, x, op);
		n++;
		t = now() - t0;
	} while (t < round_s / 2);
	n = (long)(n * round_s / t);
	return n < 1 ? 1 : n;
}

/* gbs[x][r]: GB/s of side x in round r */
static void measure(struct ctx *c, int op, double gbs[][MAX_ROUNDS])
{
	double bytes = (double)c->k * c->len;
	long nops[1 + MAX_REFS];
	int nsides = 1 + nrefs, r, i, x;

	for (x = 0; x < nsides; x++)
		nops[x] = calibrate(c, x, op);
	for (r = 0; r < rounds; r++)
		for (i = 0; i < nsides; i++) {
			double t0, t;
			long n;

			x = (r + i) % nsides;
			t0 = now();
			for (n = 0; n < nops[x]; n++)
				run_op(c, x, op);
			t = now() - t0;
			gbs[x][r] = bytes * nops[x] / t / 1e9;
		}
}

struct low {
	double ratio;
	char what[48];
};

/* lowest median ratio per reference and operation */
static struct low lows[MAX_REFS][NOPS];

static void report(struct ctx *c, int op, double gbs[][MAX_ROUNDS])
{
	struct stat3 o = stats(gbs[0], rounds), s, q;
	double ratio[MAX_ROUNDS];
	char name[16];
	int x, r;

	if (op == OP_DECM)
		snprintf(name, sizeof(name), "decode%d", c->em);
	else
		snprintf(name, sizeof(name), "%s", op_names[op]);
	printf("%-8s %2d+%-2d %2zuKiB  ours %6.1f [%6.1f %6.1f]", name,
	       c->k, c->m, c->len >> 10, o.med, o.min, o.max);
	for (x = 1; x <= nrefs; x++) {
		for (r = 0; r < rounds; r++)
			ratio[r] = gbs[0][r] / gbs[x][r];
		s = stats(gbs[x], rounds);
		q = stats(ratio, rounds);
		printf("  | %s %6.1f [%6.1f %6.1f] ratio %5.2f [%5.2f %5.2f]",
		       refs[x - 1].label, s.med, s.min, s.max, q.med, q.min,
		       q.max);
		if (!lows[x - 1][op].what[0] || q.med < lows[x - 1][op].ratio) {
			lows[x - 1][op].ratio = q.med;
			snprintf(lows[x - 1][op].what, sizeof(lows[0][0].what),
				 "%d+%d %zuKiB", c->k, c->m, c->len >> 10);
		}
	}
	printf("\n");
	fflush(stdout);
}

/* is the line of @op on @c one of those --only asks for? */
static int selected(const struct ctx *c, int op)
{
	char name[48], alt[48];
	int i;

	if (!nonly)
		return 1;
	snprintf(name, sizeof(name), "%s %d+%d %zuKiB", op_names[op], c->k,
		 c->m, c->len >> 10);
	snprintf(alt, sizeof(alt), "decode%d %d+%d %zuKiB", c->em, c->k, c->m,
		 c->len >> 10);
	for (i = 0; i < nonly; i++)
		if (strstr(name, only[i]) ||
		    (op == OP_DECM && strstr(alt, only[i])))
			return 1;
	return 0;
}

/* every reference has xor_gen (the xor line needs them all) */
static int xor_all(void)
{
	int i;

	for (i = 0; i < nrefs; i++)
		if (!refs[i].xor)
			return 0;
	return 1;
}

/* ---- header ------------------------------------------------------------- */

static void print_cpu(void)
{
	char line[512], model[256] = "?";
	int fam = -1, mod = -1, step = -1;
	FILE *f = fopen("/proc/cpuinfo", "r");

	while (f && fgets(line, sizeof(line), f)) {
		char *v = strchr(line, ':');

		if (!v)
			continue;
		v += 2;
		v[strcspn(v, "\n")] = 0;
		if (!strncmp(line, "model name", 10) && model[0] == '?')
			snprintf(model, sizeof(model), "%s", v);
		else if (!strncmp(line, "cpu family", 10) && fam < 0)
			fam = atoi(v);
		else if (!strncmp(line, "model\t", 6) && mod < 0)
			mod = atoi(v);
		else if (!strncmp(line, "stepping", 8) && step < 0)
			step = atoi(v);
	}
	if (f)
		fclose(f);
	printf("# cpu: %s (family %d model %d stepping %d), %ld online; has:",
	       model, fam, mod, step, sysconf(_SC_NPROCESSORS_ONLN));
	printf("%s%s%s%s%s\n",
	       __builtin_cpu_supports("ssse3") ? " ssse3" : "",
	       __builtin_cpu_supports("avx2") ? " avx2" : "",
	       __builtin_cpu_supports("avx512f") ? " avx512f" : "",
	       __builtin_cpu_supports("avx512bw") ? " avx512bw" : "",
	       __builtin_cpu_supports("gfni") ? " gfni" : "");
}

static int pinned = -1;	/* the CPU this thread runs on, or -1 */

/* one thread on one CPU: no migration between the sides' rounds */
static void pin(void)
{
	cpu_set_t set;
	int cpu = sched_getcpu();

	if (cpu < 0)
		return;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (!sched_setaffinity(0, sizeof(set), &set))
		pinned = cpu;
}

static void print_header(int argc, char **argv)
{
	char host[256] = "?", date[64];
	time_t t = time(NULL);
	int i;

	gethostname(host, sizeof(host) - 1);
	strftime(date, sizeof(date), "%Y-%m-%d %H:%M UTC", gmtime(&t));
	printf("# bench_codec: raidkm codec vs ISA-L, one thread, data in cache; GB/s of data (k x chunk)\n");
	printf("# each figure: median [min max] of %d interleaved rounds of %.0f ms; ratio = ours / reference in the same round\n",
	       rounds, round_s * 1000);
	printf("# date: %s  host: %s  pinned to cpu %d\n", date, host, pinned);
	print_cpu();
	printf("# command:");
	for (i = 0; i < argc; i++)
		printf(" %s", argv[i]);
	printf("\n");
	printf("# chunks: placed %s (%s), each side writes its own outputs\n",
	       place_names[place],
	       place == PLACE_STAGGER ? "slot i at 128 i mod 4096, every side's outputs at the same offsets" :
	       place == PLACE_PAGE ? "every chunk page-aligned, as in a stripe cache" :
	       "by malloc, 64-byte aligned: the sides' outputs at other offsets");
	printf("# ours: %s (P+Q's 2^j row by %s; m = 2-style decode form %s; both measured at init)\n",
	       rkm_codec_impl(), rkm_q_form_name(rkm_q_horner),
	       rkm_decode_form_name(rkm_decode_form()));
	for (i = 0; i < nrefs; i++)
		printf("# isa-l %s: %s: %s, %s\n", refs[i].label, refs[i].path,
		       refs[i].enc_isa, refs[i].pq_isa);
	for (i = 0; i < nskipped; i++)
		printf("# isa-l %s: skipped\n", skipped[i]);
	printf("# decode2: data 0, 1 lost; decodeM (M = m > 2): data 0..m-1 lost; pq: ours m=2 encode vs pq_gen; xor: ours m=1 encode vs xor_gen, the same inputs (a rate pq cannot exceed)\n");
}

int main(int argc, char **argv)
{
	static const int geo[][2] = {
		{ 4, 2 }, { 8, 2 }, { 8, 3 }, { 10, 4 }, { 16, 4 }, { 16, 8 },
		{ 32, 8 },
	};
	size_t lens[] = { 4096, 65536 };
	int nlens = 2;
	static double gbs[1 + MAX_REFS][MAX_ROUNDS];
	const char *impl = NULL, *form = NULL, *pqf = NULL;
	int g, l, i, op, x;

	for (i = 1; i < argc; i++) {
		char *eq;

		if (!strcmp(argv[i], "-q")) {
			rounds = 30;
		} else if (!strcmp(argv[i], "--impl") && i + 1 < argc) {
			impl = argv[++i];
		} else if (!strcmp(argv[i], "--form") && i + 1 < argc) {
			form = argv[++i];
		} else if (!strcmp(argv[i], "--pq") && i + 1 < argc) {
			pqf = argv[++i];
		} else if (!strcmp(argv[i], "--isa-l-isa") && i + 1 < argc) {
			force_isa = argv[++i];
			if (!cpu_has_isa(force_isa)) {
				fprintf(stderr, "bench: this CPU cannot run %s\n",
					force_isa);
				return 2;
			}
		} else if (!strcmp(argv[i], "--ref") && i + 1 < argc &&
			   (eq = strchr(argv[i + 1], '='))) {
			*eq = 0;
			ref_add(argv[i + 1], eq + 1);
			*eq = '=';
			i++;
		} else if (!strcmp(argv[i], "--skipped") && i + 1 < argc &&
			   nskipped < MAX_REFS) {
			skipped[nskipped++] = argv[++i];
		} else if (!strcmp(argv[i], "--place") && i + 1 < argc) {
			for (place = 0; place < NPLACE; place++)
				if (!strcmp(argv[i + 1], place_names[place]))
					break;
			if (place == NPLACE) {
				fprintf(stderr, "bench: --place stagger, page or malloc\n");
				return 2;
			}
			i++;
		} else if (!strcmp(argv[i], "--align") && i + 1 < argc) {
			/* the older spelling: 4096 page, 64 malloc */
			i++;
			if (!strcmp(argv[i], "4096")) {
				place = PLACE_PAGE;
			} else if (!strcmp(argv[i], "64")) {
				place = PLACE_MALLOC;
			} else {
				fprintf(stderr, "bench: --align takes 64 or 4096\n");
				return 2;
			}
		} else if (!strcmp(argv[i], "--chunk") && i + 1 < argc) {
			char *end;

			lens[0] = strtoul(argv[++i], &end, 0);
			if (*end == 'k' || *end == 'K') {
				lens[0] <<= 10;
				end++;
			}
			if (*end || !lens[0] || lens[0] % 1024 ||
			    lens[0] > (1 << 20)) {
				fprintf(stderr, "bench: --chunk takes whole KiB up to 1024k\n");
				return 2;
			}
			nlens = 1;
		} else if (!strcmp(argv[i], "--only") && i + 1 < argc &&
			   nonly < 16) {
			only[nonly++] = argv[++i];
		} else {
			fprintf(stderr, "usage: bench_codec [-q] [--impl NAME] [--form NAME] [--pq NAME] [--isa-l-isa ISA] [--ref LABEL=PATH]... [--skipped TEXT]... [--place stagger|page|malloc] [--chunk N] [--only TEXT]...\n");
			return 2;
		}
	}
	pin();
	if (!nrefs)
		refs_beside_exe();
	qsort(refs, nrefs, sizeof(refs[0]), label_cmp);
	if (rkm_codec_init() || (impl && rkm_codec_use(impl))) {
		fprintf(stderr, "bench: codec init failed\n");
		return 1;
	}
	for (i = 0; pqf && i < RKM_NPQ; i++)
		if (!strcmp(pqf, rkm_q_form_name(i)))
			rkm_q_form_set(i);
	if (pqf && strcmp(pqf, rkm_q_form_name(rkm_q_horner))) {
		fprintf(stderr, "bench: --pq table, horner or horner-blend\n");
		return 2;
	}
	for (i = 0; form && i < RKM_NFORMS; i++)
		if (!strcmp(form, rkm_decode_form_name(i)))
			rkm_decode_form_set(i);
	if (form && strcmp(form, rkm_decode_form_name(rkm_decode_form()))) {
		fprintf(stderr, "bench: --form rows, fused or syndrome\n");
		return 2;
	}
	print_header(argc, argv);
	if (!nrefs)
		printf("# no ISA-L reference loaded: figures of ours only\n");
	for (g = 0; g < (int)(sizeof(geo) / sizeof(geo[0])); g++)
		for (l = 0; l < nlens; l++) {
			struct ctx c;
			int k = geo[g][0], m = geo[g][1];

			setup(&c, k, m, lens[l]);
			for (op = 0; op < NOPS; op++) {
				if ((op == OP_DECM && m <= 2) ||
				    ((op == OP_PQ || op == OP_XOR) && m != 2) ||
				    (op == OP_XOR && !xor_all()) ||
				    !selected(&c, op))
					continue;
				verify(&c, op);
				measure(&c, op, gbs);
				report(&c, op, gbs);
			}
			teardown(&c);
		}
	for (x = 0; x < nrefs; x++) {
		printf("# lowest median ratio vs isa-l %s:", refs[x].label);
		for (op = 0; op < NOPS; op++)
			if (lows[x][op].what[0])
				printf("  %s %.2f (%s)", op_names[op],
				       lows[x][op].ratio, lows[x][op].what);
		printf("\n");
	}
	return 0;
}
