// SPDX-License-Identifier: GPL-2.0
/*
 * covers: codec: wanted-subset decode; codec: every implementation against the scalar one
 *
 * Unit test of the codec's wanted-subset decode (rkm_decode_want,
 * rkm_decode_matrix_want): in every implementation the CPU has and every
 * decode form, every erasure pattern of every (k, m) with k + m <= 12 is
 * decoded with wanted subsets of it:
 *
 *  - k + m <= 8: every non-empty subset of every pattern;
 *  - 9 <= k + m <= 12: one subset per pattern (the whole pattern when it
 *    has one chunk, else a proper non-empty subset drawn from a fixed
 *    xorshift sequence, so the sample is the same at every run);
 *
 * at 64 bytes, and one pattern in 16 also at 192 bytes 33 bytes off
 * alignment.  The wanted chunks must come out as the encoded stripe had
 * them; unwanted erased chunks are poisoned and must stay poisoned (every
 * other one is passed as NULL instead, which must not be dereferenced);
 * survivors must be unchanged.  The wanted matrix must be the wanted rows
 * of the full one.  Prints PASS/FAIL lines.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "codec/rkm_codec.h"
#include "codec/rkm_codec_int.h"
#include "unit_check.h"

#define POISON	0xa5

static unsigned long long rng = 0x9e3779b97f4a7c15ull;

static unsigned long long rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

struct wstripe {
	int k, m, n;
	size_t len;
	unsigned char *mem, *orig;
	unsigned char *ch[RKM_MAX_N];
};

static void ws_init(struct wstripe *s, struct rkm_code *c, int k, int m,
		    size_t len, int align)
{
	size_t step = len + 128, b;
	int i;

	s->k = k;
	s->m = m;
	s->n = k + m;
	s->len = len;
	s->mem = aligned_alloc(64, step * s->n);
	s->orig = malloc(len * s->n);
	for (i = 0; i < s->n; i++)
		s->ch[i] = s->mem + i * step + align;
	for (i = 0; i < k; i++)
		for (b = 0; b < len; b++)
			s->ch[i][b] = rnd();
	rkm_encode(c, len, (const rkm_u8 *const *)s->ch, s->ch + k);
	for (i = 0; i < s->n; i++)
		memcpy(s->orig + i * len, s->ch[i], len);
}

static void ws_free(struct wstripe *s)
{
	free(s->mem);
	free(s->orig);
}

static int all_poison(const unsigned char *p, size_t len)
{
	while (len--)
		if (*p++ != POISON)
			return 0;
	return 1;
}

/*
 * Decode (erased, want) of @s; 0 when every check holds.  @null: pass
 * the unwanted erased chunks as NULL rather than poisoned.
 */
static int want_one(struct rkm_code *c, struct wstripe *s, rkm_u64 e,
		    rkm_u64 w, int null)
{
	unsigned char *ch[RKM_MAX_N];
	size_t len = s->len;
	int i, bad = 0;

	for (i = 0; i < s->n; i++) {
		ch[i] = s->ch[i];
		if ((e >> i) & 1)
			memset(ch[i], POISON, len);
		if (null && ((e & ~w) >> i) & 1)
			ch[i] = NULL;
	}
	if (rkm_decode_want(c, len, e, w, ch))
		return 1;
	for (i = 0; i < s->n; i++) {
		const unsigned char *want = s->orig + i * len;

		if ((e & ~w) >> i & 1)
			bad |= !all_poison(s->ch[i], len);
		else
			bad |= memcmp(s->ch[i], want, len) != 0;
		memcpy(s->ch[i], want, len);
	}
	return bad;
}

/* the sampled proper subset of @e (|e| >= 2) */
static rkm_u64 sample_subset(rkm_u64 e)
{
	rkm_u64 w;

	do
		w = e & rnd();
	while (!w || w == e);
	return w;
}

/* every pattern of (k, m) with its subsets; returns decodes, counts bad */
static long want_code(int k, int m, long *bad)
{
	int n = k + m, all = n <= 8;
	struct rkm_code *c = rkm_code_create(k, m);
	struct wstripe s, s2;
	long count = 0;
	rkm_u64 e, w;

	ws_init(&s, c, k, m, 64, 0);
	ws_init(&s2, c, k, m, 192, 33);
	for (e = 1; e < (1ull << n); e++) {
		if (__builtin_popcountll(e) > m)
			continue;
		if (!all) {
			w = (e & (e - 1)) ? sample_subset(e) : e;
			*bad += want_one(c, &s, e, w, count & 1);
			if (rnd() % 16 == 0)
				*bad += want_one(c, &s2, e, w, 0);
			count++;
			continue;
		}
		/* every non-empty subset w of e */
		for (w = e; w; w = (w - 1) & e) {
			*bad += want_one(c, &s, e, w, count & 1);
			if (rnd() % 16 == 0)
				*bad += want_one(c, &s2, e, w, 0);
			count++;
		}
	}
	ws_free(&s);
	ws_free(&s2);
	rkm_code_destroy(c);
	return count;
}

static void test_want(const char *impl)
{
	char name[96];
	long count = 0, bad = 0;
	int n, m;

	snprintf(name, sizeof(name), "decode-want-%s-%s", impl,
		 rkm_decode_form_name(rkm_decode_form()));
	begin(name);
	for (n = 3; n <= 12; n++)
		for (m = 1; n - m >= RKM_MIN_K; m++)
			count += want_code(n - m, m, &bad);
	CHECK(bad == 0);
	if (bad)
		printf("    %ld of %ld wanted decodes wrong\n", bad, count);
	end();
}

/* rkm_decode_matrix_want: the wanted rows of rkm_decode_matrix's */
static void test_matrix_want(void)
{
	unsigned char sv[RKM_MAX_K], sw[RKM_MAX_K];
	unsigned char rows[RKM_MAX_M * RKM_MAX_K], wrows[RKM_MAX_M * RKM_MAX_K];
	int n, m, k, i, ne, nw, x, y;
	rkm_u64 e, w;

	begin("decode-matrix-want (k + m <= 10, every pattern and subset)");
	for (n = 3; n <= 10; n++)
		for (m = 1; n - m >= RKM_MIN_K; m++) {
			struct rkm_code *c = rkm_code_create(n - m, m);

			k = n - m;
			for (e = 1; e < (1ull << n); e++) {
				if (__builtin_popcountll(e) > m)
					continue;
				ne = rkm_decode_matrix(c, e, sv, rows);
				for (w = e; w; w = (w - 1) & e) {
					nw = rkm_decode_matrix_want(c, e, w, sw,
								    wrows);
					CHECK(nw == __builtin_popcountll(w));
					CHECK(!memcmp(sv, sw, k));
					for (i = 0, x = 0, y = 0; i < n; i++) {
						if (!((e >> i) & 1))
							continue;
						if ((w >> i) & 1)
							CHECK(!memcmp(rows + x * k,
								      wrows + y++ * k,
								      k));
						x++;
					}
					CHECK(x == ne && y == nw);
				}
			}
			rkm_code_destroy(c);
		}
	end();
}

static void test_want_errors(void)
{
	struct rkm_code *c = rkm_code_create(4, 2);
	unsigned char sv[RKM_MAX_K], rows[RKM_MAX_M * RKM_MAX_K];
	struct wstripe s;
	int i;

	begin("decode-want-errors (empty want, want outside erased: nothing written)");
	ws_init(&s, c, 4, 2, 64, 0);
	CHECK(rkm_decode_want(c, 64, 0x3, 0, s.ch) == -RKM_EINVAL);
	CHECK(rkm_decode_want(c, 64, 0x3, 0x4, s.ch) == -RKM_EINVAL);
	CHECK(rkm_decode_want(c, 64, 0x3, 0x7, s.ch) == -RKM_EINVAL);
	CHECK(rkm_decode_want(c, 64, 0x7, 0x1, s.ch) == -RKM_EINVAL);
	CHECK(rkm_decode_want(c, 64, 1ull << 6, 1ull << 6, s.ch) ==
	      -RKM_EINVAL);
	CHECK(rkm_decode_want(c, 96, 0x3, 0x1, s.ch) == -RKM_EINVAL);
	CHECK(rkm_decode_matrix_want(c, 0x3, 0, sv, rows) == -RKM_EINVAL);
	CHECK(rkm_decode_matrix_want(c, 0x3, 0x8, sv, rows) == -RKM_EINVAL);
	for (i = 0; i < s.n; i++)
		CHECK(!memcmp(s.ch[i], s.orig + i * 64, 64));
	ws_free(&s);
	rkm_code_destroy(c);
	end();
}

int main(void)
{
	const char *best, *impl;
	int i, f, form;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (rkm_codec_init()) {
		printf("FAIL init\n");
		return 1;
	}
	best = rkm_codec_impl();
	form = rkm_decode_form();
	for (i = 0; (impl = rkm_codec_impl_name(i)); i++) {
		if (!rkm_codec_impl_usable(impl)) {
			printf("PASS decode-want-%s (skipped: CPU lacks it)\n",
			       impl);
			continue;
		}
		begin(impl);
		CHECK(rkm_codec_use(impl) == 0);
		if (cur_failed) {
			end();
			continue;
		}
		for (f = 0; f < RKM_NFORMS; f++) {
			rkm_decode_form_set(f);
			test_want(impl);
		}
	}
	rkm_codec_use(best);
	rkm_decode_form_set(form);
	test_matrix_want();
	test_want_errors();
	return failures ? 1 : 0;
}
