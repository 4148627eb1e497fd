// SPDX-License-Identifier: GPL-2.0
/*
 * bench_want: one thread, what decoding only the wanted chunks
 * (rkm_decode_want) costs against decoding every erased chunk
 * (rkm_decode) of the same pattern, in each decode form, on the same
 * chunks.  The two sides take turns in rounds of about 2 ms, each round
 * starting with the other side; a figure is the median over the rounds
 * with [min max] in GB/s of survivor data read (k x chunk), and the ratio
 * want / all is taken within each round.  Both sides' output is checked
 * against the encoded stripe first.
 *
 * usage: bench_want [-q] [--impl NAME] [--chunk N]
 *   -q          30 rounds a line instead of 120
 *   --impl NAME the codec implementation (also RKM_CODEC_IMPL=NAME)
 *   --chunk N   one chunk size in KiB instead of 4 and 64
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "codec/rkm_codec.h"
#include "codec/rkm_codec_int.h"

#define MAX_ROUNDS	120

static int rounds = MAX_ROUNDS;
static const double round_s = 0.002;

struct cell {
	int k, m;
	rkm_u64 erased, want;
	const char *what;
};

/* patterns of wide degraded reads: one lost chunk wanted */
static const struct cell cells[] = {
	{ 8, 2, 0x3, 0x1, "two data lost, one wanted" },
	{ 8, 2, 0x1 | 1ull << 9, 0x1, "one data lost, Q unread" },
	{ 8, 2, 0x1 | 1ull << 8, 0x1, "one data lost, P unread" },
	{ 4, 2, 0x3, 0x2, "two data lost, one wanted" },
	{ 8, 3, 0x7, 0x1, "three data lost, one wanted" },
	{ 16, 4, 0xf, 0x1, "four data lost, one wanted" },
	{ 16, 4, 0x1 | 0x7ull << 17, 0x1, "one data lost, Q R S unread" },
};

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static unsigned long long rng = 0x243f6a8885a308d3ull;

static unsigned char rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

struct stripe {
	struct rkm_code *c;
	int n;
	size_t len;
	rkm_u8 *ch[RKM_MAX_N];
	rkm_u8 *orig;
};

static void stripe_init(struct stripe *s, const struct cell *cl, size_t len)
{
	int i;
	size_t b;

	s->c = rkm_code_create(cl->k, cl->m);
	s->n = cl->k + cl->m;
	s->len = len;
	for (i = 0; i < s->n; i++) {
		/* staggered by a cache line a chunk, as bench_codec */
		s->ch[i] = (rkm_u8 *)aligned_alloc(4096, len + 4096) +
			   64 * (i % 64);
		for (b = 0; b < len; b++)
			s->ch[i][b] = rnd();
	}
	rkm_encode(s->c, len, (const rkm_u8 *const *)s->ch, s->ch + cl->k);
	s->orig = malloc(s->n * len);
	for (i = 0; i < s->n; i++)
		memcpy(s->orig + i * len, s->ch[i], len);
}

/* side 0: the wanted chunks; side 1: every erased chunk */
static int run(struct stripe *s, const struct cell *cl, int side)
{
	if (side)
		return rkm_decode(s->c, s->len, cl->erased, s->ch);
	return rkm_decode_want(s->c, s->len, cl->erased, cl->want, s->ch);
}

static int check(struct stripe *s, const struct cell *cl, int side)
{
	rkm_u64 w = side ? cl->erased : cl->want;
	int i, bad = 0;

	for (i = 0; i < s->n; i++)
		if ((cl->erased >> i) & 1)
			memset(s->ch[i], 0x5a, s->len);
	bad |= run(s, cl, side) != 0;
	for (i = 0; i < s->n; i++) {
		if ((w >> i) & 1 || !((cl->erased >> i) & 1))
			bad |= memcmp(s->ch[i], s->orig + i * s->len, s->len);
		memcpy(s->ch[i], s->orig + i * s->len, s->len);
	}
	return bad;
}

static long calibrate(struct stripe *s, const struct cell *cl, int side)
{
	double t0 = now(), t;
	long n = 0;

	do {
		run(s, cl, side);
		n++;
		t = now() - t0;
	} while (t < round_s / 2);
	n = (long)(n * round_s / t);
	return n < 1 ? 1 : n;
}

static int dcmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static void med3(const double *v, double *o)
{
	double t[MAX_ROUNDS];

	memcpy(t, v, rounds * sizeof(*v));
	qsort(t, rounds, sizeof(*t), dcmp);
	o[0] = rounds % 2 ? t[rounds / 2] :
	       (t[rounds / 2 - 1] + t[rounds / 2]) / 2;
	o[1] = t[0];
	o[2] = t[rounds - 1];
}

static void line(const struct cell *cl, size_t len, int form)
{
	double gbs[2][MAX_ROUNDS], ratio[MAX_ROUNDS], a[3], b[3], q[3];
	double bytes = (double)cl->k * len;
	struct stripe s;
	long nops[2];
	int r, i, x;

	rkm_decode_form_set(form);
	stripe_init(&s, cl, len);
	if (check(&s, cl, 0) || check(&s, cl, 1)) {
		printf("FAIL %d+%d %s: wrong output\n", cl->k, cl->m, cl->what);
		exit(1);
	}
	for (x = 0; x < 2; x++)
		nops[x] = calibrate(&s, cl, x);
	for (r = 0; r < rounds; r++)
		for (i = 0; i < 2; i++) {
			double t0;
			long n;

			x = (r + i) % 2;
			t0 = now();
			for (n = 0; n < nops[x]; n++)
				run(&s, cl, x);
			gbs[x][r] = bytes * nops[x] / (now() - t0) / 1e9;
		}
	for (r = 0; r < rounds; r++)
		ratio[r] = gbs[0][r] / gbs[1][r];
	med3(gbs[0], a);
	med3(gbs[1], b);
	med3(ratio, q);
	printf("%2d+%-2d %4zuKiB %-8s erased %#7llx want %#5llx  want %6.2f [%6.2f %6.2f]  all %6.2f [%6.2f %6.2f]  ratio %5.2f [%5.2f %5.2f]  %s\n",
	       cl->k, cl->m, len >> 10, rkm_decode_form_name(form),
	       (unsigned long long)cl->erased, (unsigned long long)cl->want,
	       a[0], a[1], a[2], b[0], b[1], b[2], q[0], q[1], q[2],
	       cl->what);
	fflush(stdout);
	for (i = 0; i < s.n; i++)
		free(s.ch[i] - 64 * (i % 64));
	free(s.orig);
	rkm_code_destroy(s.c);
}

int main(int argc, char **argv)
{
	size_t lens[2] = { 4096, 65536 };
	int nlens = 2, i, l, f;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-q"))
			rounds = 30;
		else if (!strcmp(argv[i], "--impl") && i + 1 < argc)
			setenv("RKM_CODEC_IMPL", argv[++i], 1);
		else if (!strcmp(argv[i], "--chunk") && i + 1 < argc) {
			lens[0] = (size_t)atoi(argv[++i]) << 10;
			nlens = 1;
		} else {
			fprintf(stderr, "usage: bench_want [-q] [--impl NAME] [--chunk KiB]\n");
			return 2;
		}
	}
	if (rkm_codec_init())
		return 1;
	printf("# bench_want: impl %s, %d rounds of ~2 ms a line, GB/s of survivor data (k x chunk), median [min max]; ratio want/all per round\n",
	       rkm_codec_impl(), rounds);
	for (l = 0; l < nlens; l++)
		for (i = 0; i < (int)(sizeof(cells) / sizeof(cells[0])); i++)
			for (f = 0; f < RKM_NFORMS; f++)
				line(&cells[i], lens[l], f);
	return 0;
}
