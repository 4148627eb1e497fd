// SPDX-License-Identifier: GPL-2.0
/*
 * bench_codec: one thread, the raidkm codec (librkmcodec.a, the sources
 * raidkm.ko builds) against ISA-L in the same run, same buffers:
 *   encode   ours rkm_encode      vs ec_encode_data (gf_gen_cauchy1_matrix)
 *   decode   ours rkm_decode      vs ec_encode_data with the inverted
 *            (2 erased data chunks)  survivor matrix (ec_init_tables once)
 *   pq       ours rkm_encode m=2  vs ISA-L pq_gen (its RAID-6 P+Q)
 * GB/s of data (k x chunk) per second; each figure is the best of several
 * alternating rounds.  Lines end in "ratio R", R = ours / reference.
 *
 * usage: bench_codec [-q]   (-q: fewer, shorter rounds)
 * RKM_CODEC_IMPL=name forces our implementation.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <isa-l/erasure_code.h>
#include <isa-l/raid.h>
#include "codec/rkm_codec.h"

static double round_s = 0.002;
static int rounds = 120;

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

struct ctx {
	int k, m;
	size_t len;
	unsigned char *ch[64];
	/* ours */
	struct rkm_code *code;
	unsigned long long erased;
	/* ISA-L */
	unsigned char *enc_tbl, *dec_tbl;
	unsigned char *dec_in[64], *dec_out[16];
	int nerr;
	void *pq[66];
};

typedef void (*op_fn)(struct ctx *c);

static void ours_encode(struct ctx *c)
{
	rkm_encode(c->code, c->len, (const rkm_u8 *const *)c->ch, c->ch + c->k);
}

static void isal_encode(struct ctx *c)
{
	ec_encode_data(c->len, c->k, c->m, c->enc_tbl, c->ch, c->ch + c->k);
}

static void ours_decode(struct ctx *c)
{
	rkm_decode(c->code, c->len, c->erased, c->ch);
}

static void isal_decode(struct ctx *c)
{
	ec_encode_data(c->len, c->k, c->nerr, c->dec_tbl, c->dec_in, c->dec_out);
}

static void isal_pq(struct ctx *c)
{
	pq_gen(c->k + 2, c->len, c->pq);
}

/* best GB/s of data over alternating rounds of a and b */
static void measure(struct ctx *c, op_fn a, op_fn b, double *ga, double *gb)
{
	double bytes = (double)c->k * c->len;
	int r, i;

	*ga = *gb = 0;
	for (r = 0; r < rounds; r++) {
		for (i = 0; i < 2; i++) {
			op_fn f = i ? b : a;
			double t0 = now(), t;
			long n = 0;

			do {
				f(c);
				f(c);
				n += 2;
				t = now() - t0;
			} while (t < round_s);
			t = bytes * n / t / 1e9;
			if (i && t > *gb)
				*gb = t;
			if (!i && t > *ga)
				*ga = t;
		}
	}
}

static void setup(struct ctx *c, int k, int m, size_t len)
{
	unsigned char a[64 * 64], sub[64 * 64], inv[64 * 64], dm[16 * 64];
	int i, j, r, n = k + m;

	memset(c, 0, sizeof(*c));
	c->k = k;
	c->m = m;
	c->len = len;
	for (i = 0; i < n; i++) {
		if (posix_memalign((void **)&c->ch[i], 64, len))
			exit(1);
		for (j = 0; j < (int)len; j++)
			c->ch[i][j] = rand();
	}
	c->code = rkm_code_create(k, m);
	if (!c->code) {
		fprintf(stderr, "bench: rkm_code_create(%d, %d) failed\n", k, m);
		exit(1);
	}
	/* ISA-L encode */
	gf_gen_cauchy1_matrix(a, n, k);
	c->enc_tbl = malloc(k * m * 32);
	ec_init_tables(k, m, a + k * k, c->enc_tbl);
	/* ISA-L decode of the same pattern: data 0 and 1 (or m chunks) */
	c->nerr = m < 2 ? m : 2;
	c->erased = (1ull << c->nerr) - 1;
	for (i = 0, r = 0; i < n && r < k; i++) {
		if ((c->erased >> i) & 1)
			continue;
		memcpy(sub + r * k, a + i * k, k);
		c->dec_in[r++] = c->ch[i];
	}
	if (gf_invert_matrix(sub, inv, k)) {
		fprintf(stderr, "bench: ISA-L matrix not invertible\n");
		exit(1);
	}
	for (i = 0; i < c->nerr; i++) {
		memcpy(dm + i * k, inv + i * k, k);
		c->dec_out[i] = c->ch[i];
	}
	c->dec_tbl = malloc(k * c->nerr * 32);
	ec_init_tables(k, c->nerr, dm, c->dec_tbl);
	for (i = 0; i < k + 2 && m == 2; i++)
		c->pq[i] = c->ch[i];
}

static void teardown(struct ctx *c)
{
	int i;

	for (i = 0; i < c->k + c->m; i++)
		free(c->ch[i]);
	free(c->enc_tbl);
	free(c->dec_tbl);
	rkm_code_destroy(c->code);
}

int main(int argc, char **argv)
{
	static const int geo[][2] = {
		{ 4, 2 }, { 8, 2 }, { 8, 3 }, { 10, 4 }, { 16, 4 }, { 16, 8 },
		{ 32, 8 },
	};
	static const size_t lens[] = { 4096, 65536 };
	double minr = 1e9;
	int g, l;

	if (argc > 1 && !strcmp(argv[1], "-q"))
		rounds = 30;
	if (rkm_codec_init()) {
		fprintf(stderr, "bench: codec init failed\n");
		return 1;
	}
	printf("# raidkm codec %s vs ISA-L (ec_encode_data, gf_gen_cauchy1_matrix; pq_gen), one thread\n",
	       rkm_codec_impl());
	printf("# GB/s of data (k x chunk); best of %d alternating rounds of %.0f ms each\n",
	       rounds, round_s * 1000);
	for (g = 0; g < 7; g++)
		for (l = 0; l < 2; l++) {
			struct ctx c;
			double a, b;
			int k = geo[g][0], m = geo[g][1];

			setup(&c, k, m, lens[l]);
			measure(&c, ours_encode, isal_encode, &a, &b);
			printf("encode   k=%-2d m=%-2d chunk=%2zuKiB  ours %6.2f GB/s  isa-l %6.2f GB/s  ratio %.2f\n",
			       k, m, lens[l] >> 10, a, b, a / b);
			if (a / b < minr)
				minr = a / b;
			/* decode rewrites chunks 0,1: same data, same parity */
			measure(&c, ours_decode, isal_decode, &a, &b);
			printf("decode%d  k=%-2d m=%-2d chunk=%2zuKiB  ours %6.2f GB/s  isa-l %6.2f GB/s  ratio %.2f\n",
			       c.nerr, k, m, lens[l] >> 10, a, b, a / b);
			if (a / b < minr)
				minr = a / b;
			if (m == 2) {
				measure(&c, ours_encode, isal_pq, &a, &b);
				printf("pq-ref   k=%-2d m=%-2d chunk=%2zuKiB  ours %6.2f GB/s  pq_gen %5.2f GB/s  ratio %.2f\n",
				       k, m, lens[l] >> 10, a, b, a / b);
			}
			teardown(&c);
		}
	printf("# lowest ours/ISA-L ratio (encode, decode): %.2f\n", minr);
	return 0;
}
