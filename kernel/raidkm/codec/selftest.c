// SPDX-License-Identifier: GPL-2.0
/*
 * Self-test of the implementation in use, in every form the measurements
 * at init may pick (each decode form, P+Q's 2^j row by table and by
 * Horner's rule): encode, delta and decodes (of all the erased chunks and
 * of the first one alone, rkm_decode_want) of a few geometries, lengths
 * and buffer offsets, against byte-by-byte products from the field's
 * multiplication table (no prepared matrix, no kernel).  It runs where
 * the code runs: in raidkm.ko at load time, compiled with the kernel's
 * flags, and in user space on every rkm_codec_use().
 */
#include "rkm_codec_int.h"
#include "rkm_codec.h"

struct rkm_st_case {
	rkm_u8 k, m;
	rkm_u32 len;
	rkm_u8 skew;		/* bytes off 64-byte alignment */
};

/*
 * Lengths of one strip, odd strip counts (the tails of every iteration
 * width) and, for 4 inputs, past one 64 KiB slice of input; m up to 16.
 */
static const struct rkm_st_case rkm_st_cases[] = {
	{ 2, 1, 192, 0 },	{ 4, 2, 64, 0 },	{ 4, 2, 1216, 33 },
	{ 4, 2, 20480, 0 },	{ 8, 2, 192, 1 },	{ 8, 2, 4416, 0 },
	{ 6, 3, 1216, 0 },	{ 4, 3, 20480, 7 },	{ 8, 4, 4416, 63 },
	{ 3, 8, 320, 0 },	{ 12, 4, 1216, 16 },	{ 5, 16, 448, 33 },
};

#define RKM_ST_PATTERNS	12	/* erasure patterns per case */

struct rkm_st {
	int k, m, n;
	rkm_size_t len;
	rkm_u32 seed;
	rkm_u64 changed;		/* data chunks the delta changes */
	rkm_u64 pat[RKM_ST_PATTERNS];
	struct rkm_code *c;
	rkm_u8 *mem;
	rkm_u8 *ch[RKM_MAX_N];		/* chunks as the codec sees them */
	rkm_u8 *a[RKM_MAX_N];		/* a stripe: data, parity */
	rkm_u8 *b[RKM_MAX_N];		/* the stripe after the delta */
	rkm_u8 coef[RKM_MAX_M * RKM_MAX_K];
};

static rkm_u32 rkm_st_rand(struct rkm_st *t)
{
	t->seed = t->seed * 1103515245u + 12345u;
	return t->seed >> 8;
}

/* parity of stripe @s, byte by byte */
static void rkm_st_ref_encode(struct rkm_st *t, rkm_u8 *const *s)
{
	rkm_size_t i;
	int r, j;

	for (r = 0; r < t->m; r++)
		for (i = 0; i < t->len; i++) {
			rkm_u8 v = 0;

			for (j = 0; j < t->k; j++)
				v ^= rkm_gf_mul(t->coef[r * t->k + j], s[j][i]);
			s[t->k + r][i] = v;
		}
}

/* chunks from..to-1 that differ from stripe @s; each is restored */
static int rkm_st_compare(struct rkm_st *t, rkm_u8 *const *s, int from,
			  int to)
{
	int i, bad = 0;

	for (i = from; i < to; i++)
		if (memcmp(t->ch[i], s[i], t->len)) {
			memcpy(t->ch[i], s[i], t->len);
			bad++;
		}
	return bad;
}

/*
 * Erasure patterns: two data chunks, data with P, data with P and R (the
 * patterns of the syndrome forms), then random ones of 1..m chunks.
 */
static void rkm_st_patterns(struct rkm_st *t)
{
	int p, ne, want;

	for (p = 0; p < RKM_ST_PATTERNS; p++) {
		rkm_u64 e = 0;

		if (p == 0 && t->m >= 2) {
			e = 3;
		} else if (p == 1 && t->m >= 2) {
			e = 1ull | 1ull << t->k;
		} else if (p == 2 && t->m >= 3) {
			e = 2ull | 1ull << t->k | 1ull << (t->k + 2);
		} else {
			want = p & 1 ? t->m : 1 + (int)(rkm_st_rand(t) % t->m);
			for (ne = 0; ne < want;) {
				int i = rkm_st_rand(t) % t->n;

				if (!((e >> i) & 1)) {
					e |= 1ull << i;
					ne++;
				}
			}
		}
		t->pat[p] = e;
	}
}

/*
 * The decode of pattern @p's lowest chunk alone (two chunks or more):
 * wrong results, the other erased chunks' poison included.
 */
static int rkm_st_want_one(struct rkm_st *t, int p)
{
	rkm_u64 e = t->pat[p], w = e & -e;
	int i, bad = 0;

	if (e == w)
		return 0;
	for (i = 0; i < t->n; i++)
		if ((e >> i) & 1)
			memset(t->ch[i], 0xa5, t->len);
	if (rkm_decode_want(t->c, t->len, e, w, t->ch))
		return 1;
	for (i = 0; i < t->n; i++) {
		if (!(((e & ~w) >> i) & 1))
			continue;
		if (t->ch[i][0] != 0xa5 || t->ch[i][t->len - 1] != 0xa5 ||
		    memcmp(t->ch[i], t->ch[i] + 1, t->len - 1))
			bad++;
		memcpy(t->ch[i], t->b[i], t->len);
	}
	return bad + rkm_st_compare(t, t->b, 0, t->n);
}

/* encode, delta and the decodes in the forms in use: wrong results */
static int rkm_st_run(struct rkm_st *t)
{
	int bad = 0, i, p;

	for (i = 0; i < t->k; i++)
		memcpy(t->ch[i], t->a[i], t->len);
	if (rkm_encode(t->c, t->len, (const rkm_u8 *const *)t->ch,
		       t->ch + t->k))
		return 1;
	bad += rkm_st_compare(t, t->a, t->k, t->n);
	if (rkm_delta(t->c, t->len, t->changed, (const rkm_u8 *const *)t->ch,
		      (const rkm_u8 *const *)t->b, t->ch + t->k))
		return 1;
	bad += rkm_st_compare(t, t->b, t->k, t->n);
	for (i = 0; i < t->k; i++)
		memcpy(t->ch[i], t->b[i], t->len);
	for (p = 0; p < RKM_ST_PATTERNS; p++) {
		for (i = 0; i < t->n; i++)
			if ((t->pat[p] >> i) & 1)
				memset(t->ch[i], 0xa5, t->len);
		if (rkm_decode(t->c, t->len, t->pat[p], t->ch))
			return 1;
		bad += rkm_st_compare(t, t->b, 0, t->n);
		bad += rkm_st_want_one(t, p);
	}
	return bad;
}

/* the stripes of one case: data, the delta's new data, their parity */
static int rkm_st_prepare(struct rkm_st *t, const struct rkm_st_case *cs,
			  rkm_u32 seed)
{
	rkm_size_t stride, i;
	rkm_u8 *base;
	int j;

	t->k = cs->k;
	t->m = cs->m;
	t->n = cs->k + cs->m;
	t->len = cs->len;
	t->seed = seed;
	stride = t->len + 128;
	t->c = rkm_code_create(t->k, t->m);
	t->mem = rkm_alloc(3 * t->n * stride + 64);
	if (!t->c || !t->mem)
		return -RKM_ENOMEM;
	base = t->mem + ((64 - ((unsigned long)t->mem & 63)) & 63);
	for (j = 0; j < t->n; j++) {
		t->ch[j] = base + j * stride + cs->skew;
		t->a[j] = base + (t->n + j) * stride;
		t->b[j] = base + (2 * t->n + j) * stride;
	}
	/* the delta changes data chunk 1, and 0 on every other case */
	t->changed = 2 | (seed & 1);
	for (j = 0; j < t->k; j++)
		for (i = 0; i < t->len; i++) {
			t->a[j][i] = rkm_st_rand(t);
			t->b[j][i] = (t->changed >> j) & 1 ? rkm_st_rand(t) :
				     t->a[j][i];
		}
	rkm_parity_matrix(t->k, t->m, t->coef);
	rkm_st_ref_encode(t, t->a);
	rkm_st_ref_encode(t, t->b);
	rkm_st_patterns(t);
	return 0;
}

/* form * RKM_NPQ + P+Q form: the combinations of the choices init measures */
#define RKM_ST_COMBOS	(RKM_NPQ * RKM_NFORMS)

static void rkm_st_combo_set(int x)
{
	rkm_decode_form_set(x / RKM_NPQ);
	rkm_q_form_set(x % RKM_NPQ);
}

/*
 * Test the implementation in use in every decode form and every way of
 * P+Q's 2^j row; the choices in use are restored.  Returns 0, a bit
 * (1 << (RKM_NPQ * form + P+Q form)) per combination with wrong results,
 * or -RKM_ENOMEM.
 */
int rkm_codec_selftest(void)
{
	int form0 = rkm_decode_form(), q0 = rkm_read_once(rkm_q_horner);
	int bad[RKM_ST_COMBOS] = { 0 };
	struct rkm_st *t = rkm_alloc(sizeof(*t));
	int cs, x, ret = 0;

	if (!t)
		return -RKM_ENOMEM;
	for (cs = 0; cs < (int)ARRAY_SIZE(rkm_st_cases) && !ret; cs++) {
		ret = rkm_st_prepare(t, &rkm_st_cases[cs], 977 * cs + 1);
		for (x = 0; x < RKM_ST_COMBOS && !ret; x++) {
			rkm_st_combo_set(x);
			bad[x] += rkm_st_run(t);
		}
		rkm_free(t->mem);
		rkm_code_destroy(t->c);
	}
	rkm_free(t);
	rkm_decode_form_set(form0);
	rkm_q_form_set(q0);
	if (ret)
		return ret;
	for (x = 0; x < RKM_ST_COMBOS; x++) {
		if (!bad[x])
			continue;
		rkm_err("raidkm: codec %s self-test: %d wrong results in the %s form with P+Q by %s\n",
			rkm_ops_current()->name, bad[x],
			rkm_decode_form_name(x / RKM_NPQ),
			rkm_q_form_name(x % RKM_NPQ));
		ret |= 1 << x;
	}
	return ret;
}
