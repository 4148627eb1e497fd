// SPDX-License-Identifier: GPL-2.0
/*
 * covers: codec: encode, decode, delta, check and locate; codec: every implementation against the scalar one
 *
 * Unit test of the raidkm codec (build/lib/librkmcodec.a, the sources
 * raidkm.ko builds): the code's construction and MDS property, P/Q
 * against an independent RAID-6 reference, every implementation against
 * the scalar one, exhaustive decode for k+m <= 20, delta, check/locate,
 * the decode cache and error handling.  Prints PASS/FAIL lines.
 *
 * Built twice (kernel/raidkm/codec/user.mk): codec_test against the
 * library of the user-space flags runs the exhaustive decode in each of
 * the three decode forms; codec_test_kflags (built with CODEC_TEST_KFLAGS,
 * against the library of the kernel's code-generation flags) runs
 * every check that calls the library as codec_test does, but its
 * exhaustive decode takes each erasure pattern once, in one of the three
 * forms (pattern i in form i mod 3), and it leaves out the MDS checks of
 * the reference matrix, which call nothing of the library.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pthread.h>
#include "codec/rkm_codec.h"
#include "codec/rkm_codec_int.h"

static int failures;

#define FAIL(name, ...) do { \
	printf("FAIL %s: ", name); printf(__VA_ARGS__); printf("\n"); \
	failures++; } while (0)

/* ---- independent reference arithmetic (shift and add, no tables) ---- */
static unsigned char ref_mul(unsigned char a, unsigned char b)
{
	unsigned int r = 0, x = a;

	while (b) {
		if (b & 1)
			r ^= x;
		x <<= 1;
		if (x & 0x100)
			x ^= 0x11d;
		b >>= 1;
	}
	return r;
}

static unsigned char ref_inv(unsigned char a)
{
	int b;

	for (b = 1; b < 256; b++)
		if (ref_mul(a, b) == 1)
			return b;
	return 0;
}

static unsigned char ref_pow2(int j)
{
	unsigned char r = 1;

	while (j--)
		r = ref_mul(r, 2);
	return r;
}

/* tables of the reference arithmetic, for speed */
static unsigned char RM[256][256], RI[256];

static void ref_tables(void)
{
	int a, b;

	for (a = 0; a < 256; a++)
		for (b = 0; b < 256; b++) {
			RM[a][b] = ref_mul(a, b);
			if (RM[a][b] == 1)
				RI[a] = b;
		}
}

static unsigned long long rng_state = 0x1234567887654321ull;

static unsigned long long rnd(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return rng_state;
}

static void fill(unsigned char *p, size_t n)
{
	while (n--)
		*p++ = rnd();
}

/* determinant != 0 of an n x n matrix (copied), reference arithmetic */
static int ref_nonsingular(const unsigned char *m, int n)
{
	unsigned char a[16 * 16];
	int i, j, r, c;

	memcpy(a, m, n * n);
	for (c = 0; c < n; c++) {
		unsigned char p;

		for (r = c; r < n && !a[r * n + c]; r++)
			;
		if (r == n)
			return 0;
		for (j = 0; j < n; j++) {
			unsigned char t = a[r * n + j];

			a[r * n + j] = a[c * n + j];
			a[c * n + j] = t;
		}
		p = RI[a[c * n + c]];
		for (r = c + 1; r < n; r++) {
			unsigned char f = RM[a[r * n + c]][p];

			if (f)
				for (j = c; j < n; j++)
					a[r * n + j] ^= RM[f][a[c * n + j]];
		}
	}
	(void)i;
	return 1;
}

/* ---- construction ------------------------------------------------------- */
static unsigned char G[16][63];	/* full matrix: rows from (48,16), cols from (63,1).. */

static void test_construction(void)
{
	unsigned char coef[16 * 63], x[16], y[63], a[16], used[256] = { 0 };
	int i, j, k, m, e, bad = 0;

	/* the independent Cauchy construction of Documentation/codec.rst */
	for (j = 0; j < 63; j++) {
		unsigned char t = ref_pow2(j + 1);

		y[j] = ref_mul(t, ref_inv(t ^ 1));
		used[y[j]] = 1;
	}
	x[0] = 0;
	x[1] = 1;
	used[0] = used[1] = 1;
	a[0] = 1;
	a[1] = ref_inv(2);
	for (i = 2, e = 2; i < 16; i++) {
		while (used[e])
			e++;
		x[i] = e;
		used[e] = 1;
		a[i] = ref_mul(x[i] ^ y[0], ref_inv(y[0]));
	}
	for (i = 0; i < 16; i++)
		for (j = 0; j < 63; j++)
			G[i][j] = ref_mul(ref_mul(a[i], y[j]),
					  ref_inv(x[i] ^ y[j]));
	/* x's and y's all distinct (the Cauchy condition) */
	for (i = 0; i < 16; i++)
		for (j = 0; j < 63; j++)
			if (x[i] == y[j])
				bad++;
	for (j = 0; j < 63; j++) {
		if (G[0][j] != 1 || G[1][j] != ref_pow2(j))
			bad++;
	}
	for (i = 0; i < 16; i++)
		if (G[i][0] != 1)
			bad++;
	if (bad) {
		FAIL("construction", "%d violations of P/Q/column-0/Cauchy", bad);
		return;
	}
	printf("PASS construction (Cauchy x/y distinct, row0=1, row1=2^j, col0=1)\n");

	/* every geometry's matrix is the corner of G */
	for (m = 1; m <= RKM_MAX_M; m++)
		for (k = RKM_MIN_K; k + m <= RKM_MAX_N; k++) {
			rkm_parity_matrix(k, m, coef);
			for (i = 0; i < m; i++)
				for (j = 0; j < k; j++)
					if (coef[i * k + j] != G[i][j])
						bad++;
		}
	if (bad)
		FAIL("matrix-corners", "%d coefficients differ", bad);
	else
		printf("PASS matrix-corners (all %s geometries are corners of one 16x63 matrix)\n",
		       "supported");
}

/* every square submatrix of the rows x cols corner nonsingular, exhaustive */
static long mds_exhaustive(int rows, int cols, long *count)
{
	long bad = 0;
	unsigned int rs, cs;
	unsigned char sub[16 * 16];

	for (rs = 1; rs < (1u << rows); rs++) {
		int r = __builtin_popcount(rs);

		for (cs = 1; cs < (1u << cols); cs++) {
			int n = 0, i, j, ri = 0;

			if (__builtin_popcount(cs) != r)
				continue;
			for (i = 0; i < rows; i++) {
				int ci = 0;

				if (!((rs >> i) & 1))
					continue;
				for (j = 0; j < cols; j++)
					if ((cs >> j) & 1)
						sub[ri * r + ci++] = G[i][j];
				ri++;
			}
			n = r;
			(*count)++;
			if (!ref_nonsingular(sub, n))
				bad++;
		}
	}
	return bad;
}

static void test_mds(void)
{
	long bad = 0, count = 0, s;
	int m;
	unsigned char sub[16 * 16];

	/* all (k, m) with k + m <= 20 are corners of (20 - m) x m */
	for (m = 1; m <= 16; m++)
		bad += mds_exhaustive(m, 20 - m, &count);
	if (bad)
		FAIL("mds-exhaustive", "%ld of %ld square submatrices singular", bad, count);
	else
		printf("PASS mds-exhaustive (%ld square submatrices, k+m <= 20)\n", count);

	/* random square submatrices of the full 16 x 63 matrix */
	bad = 0;
	for (s = 0; s < 200000; s++) {
		int r = 1 + rnd() % 16, rows[16], cols[16], n = 0, i, j;
		unsigned long long rm = 0, cm = 0;

		while (n < r) {
			int v = rnd() % 16;

			if (!((rm >> v) & 1)) {
				rm |= 1ull << v;
				rows[n++] = v;
			}
		}
		n = 0;
		while (n < r) {
			int v = rnd() % 63;

			if (!((cm >> v) & 1)) {
				cm |= 1ull << v;
				cols[n++] = v;
			}
		}
		for (i = 0; i < r; i++)
			for (j = 0; j < r; j++)
				sub[i * r + j] = G[rows[i]][cols[j]];
		if (!ref_nonsingular(sub, r))
			bad++;
	}
	if (bad)
		FAIL("mds-sample", "%ld of 200000 random submatrices singular", bad);
	else
		printf("PASS mds-sample (200000 random square submatrices of 16x63, fixed seed)\n");
}

/* ---- GFNI bit matrices, emulated ----------------------------------------- */
static unsigned char affine_emul(unsigned long long a, unsigned char x)
{
	unsigned char r = 0;
	int i;

	for (i = 0; i < 8; i++) {
		unsigned char row = a >> (8 * (7 - i));

		r |= (__builtin_popcount(row & x) & 1) << i;
	}
	return r;
}

static void test_affine(void)
{
	int c, x, bad = 0;

	for (c = 0; c < 256; c++) {
		unsigned long long a = rkm_gf_affine(c);

		for (x = 0; x < 256; x++)
			if (affine_emul(a, x) != ref_mul(c, x))
				bad++;
	}
	if (rkm_gf_affine(2) != 0x8001828488102040ull)
		bad++;
	if (bad)
		FAIL("gfni-matrices", "%d products differ", bad);
	else
		printf("PASS gfni-matrices (GF2P8AFFINEQB semantics emulated, all c, x)\n");
}

/* ---- stripes ------------------------------------------------------------- */
struct stripe {
	int k, m;
	size_t len;
	unsigned char *mem;
	unsigned char *ch[RKM_MAX_N];
};

/* chunks at byte offset @align from 64-byte alignment */
static void stripe_init(struct stripe *s, int k, int m, size_t len, int align)
{
	size_t step = len + 64 + 64;
	int i;

	s->k = k;
	s->m = m;
	s->len = len;
	s->mem = aligned_alloc(64, step * (k + m));
	for (i = 0; i < k + m; i++)
		s->ch[i] = s->mem + i * step + align;
	for (i = 0; i < k; i++)
		fill(s->ch[i], len);
}

static void stripe_free(struct stripe *s)
{
	free(s->mem);
}

/* parity with the reference arithmetic and the code's matrix */
static void ref_encode(struct stripe *s, unsigned char **par)
{
	unsigned char coef[RKM_MAX_M * RKM_MAX_K];
	int r, j;
	size_t b;

	rkm_parity_matrix(s->k, s->m, coef);
	for (r = 0; r < s->m; r++)
		for (b = 0; b < s->len; b++) {
			unsigned char v = 0;

			for (j = 0; j < s->k; j++)
				v ^= RM[coef[r * s->k + j]][s->ch[j][b]];
			par[r][b] = v;
		}
}

static int impl_count;
static const char *impls[16];

static void list_impls(void)
{
	const char *n;
	int i;

	for (i = 0; (n = rkm_codec_impl_name(i)); i++) {
		if (!rkm_codec_impl_usable(n)) {
			printf("PASS impl-%s (skipped: CPU lacks it)\n", n);
			continue;
		}
		impls[impl_count++] = n;
	}
}

/* m = 2 equals lib/raid6 gen_syndrome: P = xor, Q = sum 2^i D_i (Horner) */
static void test_pq(const char *impl)
{
	static const int ks[] = { 2, 3, 4, 8, 17, 62 };
	char name[64];
	int t, bad = 0;

	snprintf(name, sizeof(name), "pq-raid6-%s-%s", impl,
		 rkm_q_form_name(rkm_q_horner));
	for (t = 0; t < 6; t++) {
		struct stripe s;
		struct rkm_code *c = rkm_code_create(ks[t], 2);
		unsigned char *p, *q;
		size_t b;
		int i;

		stripe_init(&s, ks[t], 2, 4096 + 64 * t, t);
		p = malloc(s.len);
		q = malloc(s.len);
		for (b = 0; b < s.len; b++) {
			unsigned char pv = 0, qv = 0;

			for (i = s.k - 1; i >= 0; i--) {
				pv ^= s.ch[i][b];
				qv = RM[qv][2] ^ s.ch[i][b];
			}
			p[b] = pv;
			q[b] = qv;
		}
		if (rkm_encode(c, s.len, (const rkm_u8 *const *)s.ch, s.ch + s.k) ||
		    memcmp(p, s.ch[s.k], s.len) || memcmp(q, s.ch[s.k + 1], s.len))
			bad++;
		free(p);
		free(q);
		stripe_free(&s);
		rkm_code_destroy(c);
	}
	if (bad)
		FAIL(name, "%d geometries differ from the RAID-6 P/Q reference", bad);
	else
		printf("PASS %s\n", name);
}

/*
 * The m = 2-style decodes of @impl in the form in use: every pair of data
 * chunks lost (P and Q rebuild them), every data chunk lost with P (Q
 * rebuilds it, P is re-encoded), with a third parity lost too for m = 3;
 * odd lengths and offsets.
 */
static void test_decode_pq(const char *impl)
{
	static const int geo[][2] = {
		{ 2, 2 }, { 3, 2 }, { 4, 3 }, { 8, 2 }, { 17, 3 }, { 62, 2 },
	};
	static const size_t lens[] = { 64, 192, 4096 + 64 };
	char name[64];
	long bad = 0, cases = 0;
	int g;

	snprintf(name, sizeof(name), "decode-pq-%s-%s-%s", impl,
		 rkm_decode_form_name(rkm_decode_form()),
		 rkm_q_form_name(rkm_q_horner));
	for (g = 0; g < (int)(sizeof(geo) / sizeof(geo[0])); g++) {
		int k = geo[g][0], m = geo[g][1], n = k + m, a, b, i, li;
		struct rkm_code *c = rkm_code_create(k, m);

		for (li = 0; li < 3; li++) {
			struct stripe s;
			size_t len = lens[li];
			unsigned char *orig;

			stripe_init(&s, k, m, len, (g * 7 + li) % 64);
			rkm_encode(c, len, (const rkm_u8 *const *)s.ch, s.ch + k);
			orig = malloc(n * len);
			for (i = 0; i < n; i++)
				memcpy(orig + i * len, s.ch[i], len);
			for (a = 0; a < k; a++)
				for (b = a + 1; b <= k + m - 1; b++) {
					rkm_u64 e = (1ull << a) | (1ull << b);

					/* data pairs; data with P; + R (m = 3) */
					if (b >= k && b != k)
						continue;
					if (m == 3 && k > 8 && a % 5)
						continue;
					for (i = 0; i < (m == 3 ? 2 : 1); i++) {
						rkm_u64 ei = e | (i ? 1ull << (k + 2) : 0);
						int x;

						cases++;
						for (x = 0; x < n; x++)
							if ((ei >> x) & 1)
								memset(s.ch[x], 0x5a, len);
						if (rkm_decode(c, len, ei, s.ch))
							bad++;
						for (x = 0; x < n; x++)
							if (memcmp(orig + x * len, s.ch[x], len)) {
								bad++;
								memcpy(s.ch[x], orig + x * len, len);
							}
					}
				}
			free(orig);
			stripe_free(&s);
		}
		rkm_code_destroy(c);
	}
	if (bad)
		FAIL(name, "%ld of %ld decodes wrong", bad, cases);
	else
		printf("PASS %s (%ld decodes)\n", name, cases);
}

/* encode, delta and decode of @impl equal the reference / scalar */
static void test_impl(const char *impl)
{
	static const int geo[][2] = {
		{ 2, 1 }, { 3, 2 }, { 4, 2 }, { 5, 3 }, { 8, 3 }, { 10, 4 },
		{ 7, 7 }, { 16, 4 }, { 12, 9 }, { 16, 8 }, { 20, 13 },
		{ 32, 8 }, { 48, 16 }, { 63, 1 }, { 62, 2 },
	};
	static const size_t lens[] = { 64, 192, 704, 4096 + 64, 16384 + 192 };
	static const int aligns[] = { 0, 1, 7, 16, 33, 63 };
	char name[64];
	int g, bad = 0, cases = 0;

	snprintf(name, sizeof(name), "impl-%s-%s-%s", impl,
		 rkm_decode_form_name(rkm_decode_form()),
		 rkm_q_form_name(rkm_q_horner));
	for (g = 0; g < (int)(sizeof(geo) / sizeof(geo[0])); g++) {
		int k = geo[g][0], m = geo[g][1], li, ai, i;
		struct rkm_code *c = rkm_code_create(k, m);

		for (li = 0; li < 5; li++)
			for (ai = 0; ai < 6; ai++) {
				struct stripe s;
				unsigned char *ref[RKM_MAX_M], *save, *nd[RKM_MAX_K];
				size_t len = lens[(li + g) % 5];
				rkm_u64 erased = 0, changed = 0;
				int e, ne;

				if (ai > 2 && li > 1)
					continue;
				cases++;
				stripe_init(&s, k, m, len, aligns[ai]);
				for (i = 0; i < m; i++)
					ref[i] = malloc(len);
				ref_encode(&s, ref);
				if (rkm_encode(c, len, (const rkm_u8 *const *)s.ch, s.ch + k)) {
					bad++;
					goto next;
				}
				for (i = 0; i < m; i++)
					if (memcmp(ref[i], s.ch[k + i], len))
						bad++;
				/* delta: change a random subset, compare with re-encode */
				for (i = 0; i < k; i++) {
					nd[i] = s.ch[i];
					if (rnd() % 3 == 0 || i == (int)(rnd() % k)) {
						changed |= 1ull << i;
						nd[i] = malloc(len);
						fill(nd[i], len);
					}
				}
				if (rkm_delta(c, len, changed, (const rkm_u8 *const *)s.ch,
					      (const rkm_u8 *const *)nd, s.ch + k))
					bad++;
				for (i = 0; i < k; i++)
					if ((changed >> i) & 1) {
						memcpy(s.ch[i], nd[i], len);
						free(nd[i]);
					}
				ref_encode(&s, ref);
				for (i = 0; i < m; i++)
					if (memcmp(ref[i], s.ch[k + i], len))
						bad++;
				/* decode m random chunks (data and parity) */
				for (ne = 0; ne < m;) {
					e = rnd() % (k + m);
					if (!((erased >> e) & 1)) {
						erased |= 1ull << e;
						ne++;
					}
				}
				save = malloc((size_t)(k + m) * len);
				for (i = 0; i < k + m; i++) {
					memcpy(save + i * len, s.ch[i], len);
					if ((erased >> i) & 1)
						memset(s.ch[i], 0xa5, len);
				}
				if (rkm_decode(c, len, erased, s.ch))
					bad++;
				for (i = 0; i < k + m; i++)
					if (memcmp(save + i * len, s.ch[i], len))
						bad++;
				free(save);
next:
				for (i = 0; i < m; i++)
					free(ref[i]);
				stripe_free(&s);
			}
		rkm_code_destroy(c);
	}
	if (bad)
		FAIL(name, "%d mismatches in %d cases", bad, cases);
	else
		printf("PASS %s (encode/delta/decode vs reference, %d cases, lengths 64..16576, offsets 0..63)\n",
		       name, cases);
}

/*
 * Every erasure pattern of every (k, m) with k + m <= 12 (m up to 10) in
 * the implementation, decode form and P+Q way in use: at 64 bytes and at
 * 192 bytes 33 bytes off alignment, and one pattern in 16 at 4416 bytes
 * (the tails of every iteration width) and at 20480 bytes for k <= 4 (past
 * one 64 KiB slice of input); the encode against the reference first.
 */
static void test_decode_forms(const char *impl)
{
	static const size_t lens[] = { 64, 192, 4096 + 320, 20480 };
	char name[80];
	long patterns = 0, bad = 0;
	int n, m, li;

	snprintf(name, sizeof(name), "decode-all-%s-%s-%s", impl,
		 rkm_decode_form_name(rkm_decode_form()),
		 rkm_q_form_name(rkm_q_horner));
	for (n = 3; n <= 12; n++)
		for (m = 1; n - m >= RKM_MIN_K; m++)
			for (li = 0; li < 4; li++) {
				int k = n - m, i;
				size_t len = lens[li];
				struct rkm_code *c;
				struct stripe s;
				unsigned char *orig, *par[RKM_MAX_M];
				rkm_u64 e;

				if (li == 3 && k > 4)
					continue;
				c = rkm_code_create(k, m);
				stripe_init(&s, k, m, len, li == 1 ? 33 : 0);
				orig = malloc(n * len);
				for (i = 0; i < k; i++)
					memcpy(orig + i * len, s.ch[i], len);
				for (i = 0; i < m; i++)
					par[i] = orig + (k + i) * len;
				ref_encode(&s, par);
				rkm_encode(c, len, (const rkm_u8 *const *)s.ch,
					   s.ch + k);
				for (i = k; i < n; i++)
					if (memcmp(orig + i * len, s.ch[i], len)) {
						bad++;
						memcpy(s.ch[i], orig + i * len, len);
					}
				for (e = 1; e < (1ull << n); e++) {
					if (__builtin_popcountll(e) > m ||
					    (li >= 2 && rnd() % 16))
						continue;
					patterns++;
					for (i = 0; i < n; i++)
						if ((e >> i) & 1)
							memset(s.ch[i], 0x5a, len);
					if (rkm_decode(c, len, e, s.ch))
						bad++;
					for (i = 0; i < n; i++)
						if (memcmp(orig + i * len, s.ch[i], len)) {
							bad++;
							memcpy(s.ch[i], orig + i * len, len);
						}
				}
				free(orig);
				stripe_free(&s);
				rkm_code_destroy(c);
			}
	if (bad)
		FAIL(name, "%ld wrong encodes or decodes (%ld patterns)", bad, patterns);
	else
		printf("PASS %s (%ld erasure patterns, k+m <= 12, 64..20480 bytes)\n",
		       name, patterns);
}

/*
 * every erasure pattern of size 1..m for every (k, m), k + m <= 20, in
 * decode form @form; with @forms > 1, pattern i (counted over all
 * geometries) only when i mod @forms is @form
 */
static void test_decode_exhaustive(int form, int forms)
{
	const size_t len = 64;
	long patterns = 0, bad = 0, seen = 0;
	int n, m;

	rkm_decode_form_set(form);

	for (n = 3; n <= 20; n++)
		for (m = 1; m <= 16 && n - m >= RKM_MIN_K; m++) {
			int k = n - m, i;
			struct rkm_code *c = rkm_code_create(k, m);
			struct stripe s;
			unsigned char *orig, *sv = malloc(RKM_MAX_K);
			unsigned char *rows = malloc(RKM_MAX_M * RKM_MAX_K);
			rkm_u64 e;

			stripe_init(&s, k, m, len, 0);
			rkm_encode(c, len, (const rkm_u8 *const *)s.ch, s.ch + k);
			orig = malloc(n * len);
			for (i = 0; i < n; i++)
				memcpy(orig + i * len, s.ch[i], len);
			for (e = 1; e < (1ull << n); e++) {
				int ne = __builtin_popcountll(e);

				if (ne > m || seen++ % forms != form % forms)
					continue;
				patterns++;
				for (i = 0; i < n; i++)
					if ((e >> i) & 1)
						memset(s.ch[i], 0, len);
				if (rkm_decode(c, len, e, s.ch)) {
					bad++;
					continue;
				}
				for (i = 0; i < n; i++)
					if ((e >> i) & 1 &&
					    memcmp(orig + i * len, s.ch[i], len)) {
						bad++;
						memcpy(s.ch[i], orig + i * len, len);
					}
			}
			free(orig);
			free(sv);
			free(rows);
			stripe_free(&s);
			rkm_code_destroy(c);
		}
	if (bad)
		FAIL("decode-exhaustive", "%ld of %ld patterns wrong", bad, patterns);
	else
		printf("PASS decode-exhaustive (%ld erasure patterns, 1 in %d of all (k,m) with k+m <= 20, impl %s, %s form)\n",
		       patterns, forms, rkm_codec_impl(),
		       rkm_decode_form_name(rkm_decode_form()));
}

/* fixed-seed random patterns for large geometries; decode_matrix agrees */
static void test_decode_large(void)
{
	static const int geo[][2] = {
		{ 48, 16 }, { 32, 8 }, { 40, 12 }, { 60, 4 }, { 21, 16 }, { 62, 2 },
	};
	long bad = 0, patterns = 0;
	int g;

	for (g = 0; g < 6; g++) {
		int k = geo[g][0], m = geo[g][1], n = k + m, t, i, j;
		struct rkm_code *c = rkm_code_create(k, m);
		struct stripe s;
		unsigned char *orig, surv[RKM_MAX_K], rows[RKM_MAX_M * RKM_MAX_K];
		size_t len = 128;

		stripe_init(&s, k, m, len, 0);
		rkm_encode(c, len, (const rkm_u8 *const *)s.ch, s.ch + k);
		orig = malloc(n * len);
		for (i = 0; i < n; i++)
			memcpy(orig + i * len, s.ch[i], len);
		for (t = 0; t < 300; t++) {
			rkm_u64 e = 0;
			int ne = 1 + rnd() % m, got = 0, x;

			while (got < ne) {
				x = rnd() % n;
				if (!((e >> x) & 1)) {
					e |= 1ull << x;
					got++;
				}
			}
			patterns++;
			for (i = 0; i < n; i++)
				if ((e >> i) & 1)
					memset(s.ch[i], 0, len);
			if (rkm_decode(c, len, e, s.ch))
				bad++;
			for (i = 0; i < n; i++)
				if (memcmp(orig + i * len, s.ch[i], len)) {
					bad++;
					memcpy(s.ch[i], orig + i * len, len);
				}
			/* decode_matrix: the rows rebuild byte 0 of each erased chunk */
			if (rkm_decode_matrix(c, e, surv, rows) != ne) {
				bad++;
				continue;
			}
			for (x = 0, i = 0; i < n; i++) {
				unsigned char v = 0;

				if (!((e >> i) & 1))
					continue;
				for (j = 0; j < k; j++)
					v ^= ref_mul(rows[x * k + j], orig[surv[j] * len + 5]);
				if (v != orig[i * len + 5])
					bad++;
				x++;
			}
		}
		free(orig);
		stripe_free(&s);
		rkm_code_destroy(c);
	}
	if (bad)
		FAIL("decode-large", "%ld errors over %ld patterns", bad, patterns);
	else
		printf("PASS decode-large (%ld fixed-seed patterns, k+m up to 64; decode_matrix agrees)\n",
		       patterns);
}

/* check and locate: a planted corruption at every chunk position */
static void test_check_locate(void)
{
	static const int geo[][2] = {
		{ 4, 1 }, { 4, 2 }, { 8, 2 }, { 8, 3 }, { 10, 4 }, { 16, 8 }, { 48, 16 },
	};
	int g, bad = 0, cases = 0;

	for (g = 0; g < 7; g++) {
		int k = geo[g][0], m = geo[g][1], n = k + m, pos, r;
		struct rkm_code *c = rkm_code_create(k, m);
		struct stripe s;
		size_t len = 256;
		unsigned char *scratch = malloc(m * len);

		stripe_init(&s, k, m, len, 0);
		rkm_encode(c, len, (const rkm_u8 *const *)s.ch, s.ch + k);
		if (rkm_check(c, len, (const rkm_u8 *const *)s.ch, scratch) != 0 ||
		    rkm_locate(c, len, (const rkm_u8 *const *)s.ch, scratch) != RKM_LOCATE_CLEAN)
			bad++;
		for (pos = 0; pos < n; pos++) {
			unsigned char save[4];
			size_t at[4] = { 0, 17, 100, 255 };
			int i;

			cases++;
			for (i = 0; i < 4; i++) {
				save[i] = s.ch[pos][at[i]];
				s.ch[pos][at[i]] ^= 1 + rnd() % 255;
			}
			if (rkm_check(c, len, (const rkm_u8 *const *)s.ch, scratch) != 1)
				bad++;
			r = rkm_locate(c, len, (const rkm_u8 *const *)s.ch, scratch);
			if (m >= 2 ? r != pos : r != RKM_LOCATE_UNKNOWN)
				bad++;
			/* a second chunk corrupted elsewhere: cannot locate */
			if (m >= 2) {
				int other = (pos + 1) % n;
				unsigned char o = s.ch[other][50];

				s.ch[other][50] ^= 0x40;
				if (rkm_locate(c, len, (const rkm_u8 *const *)s.ch,
					       scratch) != RKM_LOCATE_UNKNOWN)
					bad++;
				s.ch[other][50] = o;
			}
			for (i = 0; i < 4; i++)
				s.ch[pos][at[i]] = save[i];
		}
		free(scratch);
		stripe_free(&s);
		rkm_code_destroy(c);
	}
	if (bad)
		FAIL("check-locate", "%d wrong answers in %d cases", bad, cases);
	else
		printf("PASS check-locate (%d planted corruptions found; m=1 and 2-chunk cases say unknown)\n",
		       cases);
}

/* bad input: errors, and nothing written */
static void test_errors(void)
{
	struct rkm_code *c = rkm_code_create(4, 2);
	struct stripe s;
	unsigned char *scratch = malloc(2 * 128), before[128];
	int bad = 0;

	if (rkm_code_create(1, 2) || rkm_code_create(4, 0) ||
	    rkm_code_create(4, 17) || rkm_code_create(60, 5) ||
	    rkm_code_create(63, 2))
		bad++;
	stripe_init(&s, 4, 2, 128, 0);
	memset(s.ch[4], 0x11, 128);
	memcpy(before, s.ch[4], 128);
	if (rkm_encode(c, 0, (const rkm_u8 *const *)s.ch, s.ch + 4) != -RKM_EINVAL ||
	    rkm_encode(c, 65, (const rkm_u8 *const *)s.ch, s.ch + 4) != -RKM_EINVAL ||
	    rkm_encode(c, 100, (const rkm_u8 *const *)s.ch, s.ch + 4) != -RKM_EINVAL ||
	    rkm_decode(c, 128, 0, s.ch) != -RKM_EINVAL ||
	    rkm_decode(c, 128, 0x7, s.ch) != -RKM_EINVAL ||
	    rkm_decode(c, 128, 1ull << 6, s.ch) != -RKM_EINVAL ||
	    rkm_decode(c, 96, 1, s.ch) != -RKM_EINVAL ||
	    rkm_delta(c, 128, 1ull << 4, (const rkm_u8 *const *)s.ch,
		      (const rkm_u8 *const *)s.ch, s.ch + 4) != -RKM_EINVAL ||
	    rkm_check(c, 32, (const rkm_u8 *const *)s.ch, scratch) != -RKM_EINVAL ||
	    rkm_locate(c, 0, (const rkm_u8 *const *)s.ch, scratch) != -RKM_EINVAL ||
	    rkm_decode_matrix(c, 0, scratch, scratch) != -RKM_EINVAL)
		bad++;
	if (memcmp(before, s.ch[4], 128))
		bad++;
	if (rkm_codec_use("no-such-impl") != -RKM_EINVAL)
		bad++;
	stripe_free(&s);
	free(scratch);
	rkm_code_destroy(c);
	if (bad)
		FAIL("errors", "bad input accepted or data changed");
	else
		printf("PASS errors (bad geometry, length, erasure sets rejected; nothing written)\n");
}

/* the decode cache: many patterns (more than it holds), two threads */
struct cache_arg {
	struct rkm_code *c;
	int bad;
	unsigned long long seed;
};

static void *cache_thread(void *p)
{
	struct cache_arg *a = p;
	int k = 10, m = 4, n = 14, t, i;
	size_t len = 128;
	unsigned char *mem = malloc(n * len * 2), *ch[14], *orig = mem + n * len;
	unsigned long long st = a->seed;

	for (i = 0; i < n; i++)
		ch[i] = mem + i * len;
	for (i = 0; i < k * (int)len; i++) {
		st = st * 6364136223846793005ull + 1;
		mem[i] = st >> 33;
	}
	rkm_encode(a->c, len, (const rkm_u8 *const *)ch, ch + k);
	memcpy(orig, mem, n * len);
	for (t = 0; t < 3000; t++) {
		rkm_u64 e;

		st = st * 6364136223846793005ull + 1;
		e = (st >> 20) & ((1u << n) - 1);
		if (!e || __builtin_popcountll(e) > m)
			continue;
		for (i = 0; i < n; i++)
			if ((e >> i) & 1)
				memset(ch[i], 0, len);
		if (rkm_decode(a->c, len, e, ch) || memcmp(mem, orig, n * len)) {
			a->bad++;
			memcpy(mem, orig, n * len);
		}
	}
	free(mem);
	return NULL;
}

static void test_cache(void)
{
	struct rkm_code *c = rkm_code_create(10, 4);
	struct cache_arg a[2] = { { c, 0, 1 }, { c, 0, 2 } };
	pthread_t th[2];
	int i;

	for (i = 0; i < 2; i++)
		pthread_create(&th[i], NULL, cache_thread, &a[i]);
	for (i = 0; i < 2; i++)
		pthread_join(th[i], NULL);
	rkm_code_destroy(c);
	if (a[0].bad || a[1].bad)
		FAIL("decode-cache", "%d wrong decodes with two threads", a[0].bad + a[1].bad);
	else
		printf("PASS decode-cache (two threads, ~1000 patterns each, cache evicting)\n");
}

int main(void)
{
	const char *best;
	int i, f, form, h, q;
	/* codec_test_kflags: the library of the kernel's flags (above) */
#ifdef CODEC_TEST_KFLAGS
	int kflags = 1;
#else
	int kflags = 0;
#endif

	setvbuf(stdout, NULL, _IOLBF, 0);
	ref_tables();
	if (rkm_codec_init()) {
		FAIL("init", "rkm_codec_init failed");
		return 1;
	}
	best = rkm_codec_impl();
	printf("PASS init (implementation %s)\n", best);
	test_construction();
	if (!kflags)
		test_mds();	/* the reference matrix only */
	test_affine();
	list_impls();
	form = rkm_decode_form();	/* as measured at init */
	q = rkm_q_horner;
	for (i = 0; i < impl_count; i++) {
		if (rkm_codec_use(impls[i])) {
			FAIL("impl-use", "%s failed its known-answer check or self-test",
			     impls[i]);
			continue;
		}
		/*
		 * every choice init may make: the 2^j row of P+Q by table, by
		 * Horner and by Horner with the second doubling, times the
		 * decode forms (rows, three syndrome passes, one)
		 */
		for (h = 0; h < RKM_NPQ; h++) {
			rkm_q_form_set(h);
			test_pq(impls[i]);
			for (f = 0; f < RKM_NFORMS; f++) {
				rkm_decode_form_set(f);
				test_impl(impls[i]);
				test_decode_pq(impls[i]);
				test_decode_forms(impls[i]);
			}
		}
	}
	rkm_codec_use(best);
	rkm_q_form_set(q);
	if (kflags) {
		/* each pattern once, the forms taking turns */
		for (f = 0; f < RKM_NFORMS; f++)
			test_decode_exhaustive(f, RKM_NFORMS);
	} else {
		for (f = 0; f < RKM_NFORMS; f++)
			if (f != form)
				test_decode_exhaustive(f, 1);
		test_decode_exhaustive(form, 1);
	}
	rkm_decode_form_set(form);
	test_decode_large();
	test_check_locate();
	test_errors();
	test_cache();
	return failures ? 1 : 0;
}
