// SPDX-License-Identifier: GPL-2.0
/*
 * The codec's operations on a (k, m) code: encode, decode with a bounded
 * cache of decode matrices, delta update, check and locate.  All of them
 * are prepared-matrix multiplies (rkm_run_mul).
 */
#include "rkm_codec_int.h"
#include "rkm_codec.h"

/* Decode cache: at most this many bytes of matrices, 4..64 entries. */
#define RKM_CACHE_BYTES	(256 << 10)
#define RKM_CACHE_MIN	4
#define RKM_CACHE_MAX	64

struct rkm_dent {
	rkm_u64 key;			/* erased mask; 0: empty */
	rkm_u64 want;			/* the erased chunks rebuilt */
	rkm_u64 stamp;			/* LRU clock of the last use */
	int refs;			/* users; never evicted while > 0 */
	int ready;			/* matrix built */
	int temp;			/* outside the cache: freed on release */
	int nerased;
	int nwant;			/* chunks in want */
	rkm_u8 surv[RKM_MAX_K];		/* survivor chunk indices, ascending */
	rkm_u8 idx[RKM_MAX_M];		/* wanted chunk indices, ascending */
	rkm_u8 *scratch;		/* 2 * k * k + m * k bytes */
	struct rkm_mat *mt;		/* nwant x k */
	/*
	 * Syndrome form (pq set): the erased data is rebuilt from the P/Q
	 * syndromes of the surviving data, then the small system is solved;
	 * erased parity is re-encoded from the data.  See rkm_dent_build().
	 * With part of the erased data unwanted (its buffers may be absent)
	 * only the one-pass form applies, and only to data.
	 */
	int pq;				/* three passes apply (all data wanted) */
	struct rkm_mat *solve;		/* ed x ed, ed <= 2 */
	struct rkm_mat *pmt;		/* wanted erased parity rows, x k */
	int npar;			/* its rows */
	struct rkm_mat *syn;		/* one pass: syndromes, then solve */
	int syn_ok;			/* syn built: wanted data by syndromes */
};

struct rkm_code {
	int k, m;
	struct rkm_mat *enc;		/* m x k parity matrix */
	struct rkm_mat *syn_q;		/* row 1 (Q) of enc; m >= 2 */
	struct rkm_mat *syn_pq;		/* rows 0, 1 (P, Q) of enc; m >= 2 */
	rkm_lock_t lock;
	rkm_u64 clock;
	struct rkm_dent *last;		/* most recent hit: a degraded array */
	int nslots;
	struct rkm_dent *slots;
	rkm_u8 *mem;			/* slot matrices and scratch */
	rkm_size_t slot_bytes;
};

/* The form of m = 2-style decodes: chosen at init (select.c). */
static int rkm_form = RKM_FORM_FUSED;

void rkm_decode_form_set(int form)
{
	rkm_write_once(rkm_form, form);
}

int rkm_decode_form(void)
{
	return rkm_read_once(rkm_form);
}

const char *rkm_decode_form_name(int form)
{
	static const char *const names[RKM_NFORMS] = {
		"rows", "syndrome", "fused",
	};

	return form >= 0 && form < RKM_NFORMS ? names[form] : "?";
}

static int rkm_popcount(rkm_u64 v)
{
	int n = 0;

	for (; v; v &= v - 1)
		n++;
	return n;
}

int rkm_code_k(const struct rkm_code *c)
{
	return c->k;
}

int rkm_code_m(const struct rkm_code *c)
{
	return c->m;
}

static rkm_size_t rkm_dent_bytes(int k, int m)
{
	return ((2 * rkm_mat_size(m, k) + rkm_mat_size(2, 2) +
		 rkm_mat_size_post(2, k, 2) + 2 * k * k + m * k) + 63) &
	       ~(rkm_size_t)63;
}

static int rkm_dent_init(struct rkm_dent *d, rkm_u8 *mem, int k, int m)
{
	rkm_size_t at = 2 * rkm_mat_size(m, k);

	d->mt = (struct rkm_mat *)mem;
	d->pmt = (struct rkm_mat *)(mem + rkm_mat_size(m, k));
	d->solve = (struct rkm_mat *)(mem + at);
	at += rkm_mat_size(2, 2);
	d->syn = (struct rkm_mat *)(mem + at);
	at += rkm_mat_size_post(2, k, 2);
	d->scratch = mem + at;
	return 0;
}

struct rkm_code *rkm_code_create(int k, int m)
{
	struct rkm_code *c;
	rkm_u8 coef[RKM_MAX_M * RKM_MAX_K];
	int i;

	if (!rkm_geometry_ok(k, m) || rkm_codec_ensure_init())
		return NULL;
	c = rkm_alloc(sizeof(*c));
	if (!c)
		return NULL;
	c->k = k;
	c->m = m;
	rkm_lock_init(&c->lock);
	rkm_parity_matrix(k, m, coef);
	c->enc = rkm_mat_alloc(m, k, coef);
	if (m >= 2) {
		c->syn_q = rkm_mat_alloc(1, k, coef + k);
		c->syn_pq = rkm_mat_alloc(2, k, coef);
		if (!c->syn_q || !c->syn_pq) {
			rkm_code_destroy(c);
			return NULL;
		}
	}
	c->slot_bytes = rkm_dent_bytes(k, m);
	c->nslots = RKM_CACHE_BYTES / c->slot_bytes;
	if (c->nslots < RKM_CACHE_MIN)
		c->nslots = RKM_CACHE_MIN;
	if (c->nslots > RKM_CACHE_MAX)
		c->nslots = RKM_CACHE_MAX;
	c->slots = rkm_alloc(c->nslots * sizeof(*c->slots));
	c->mem = rkm_alloc(c->nslots * c->slot_bytes);
	if (!c->enc || !c->slots || !c->mem) {
		rkm_code_destroy(c);
		return NULL;
	}
	for (i = 0; i < c->nslots; i++)
		rkm_dent_init(&c->slots[i], c->mem + i * c->slot_bytes, k, m);
	return c;
}

void rkm_code_destroy(struct rkm_code *c)
{
	if (!c)
		return;
	rkm_lock_destroy(&c->lock);
	rkm_free(c->mem);
	rkm_free(c->slots);
	rkm_free(c->syn_pq);
	rkm_free(c->syn_q);
	rkm_free(c->enc);
	rkm_free(c);
}

/*
 * The erased-data rows of @d's decode: row i (of erased data chunk
 * edi[i]) over the survivors.  Survivors are the first k chunks not
 * erased: every surviving data chunk (set Sd) and the first ed surviving
 * parity chunks (Sp), ed being the number of erased data chunks (Ed).
 * With B = P[Sp][Ed] (ed x ed, nonsingular since the code is MDS):
 *	D[Ed] = B^-1 (parity[Sp] + P[Sp][Sd] D[Sd])
 * so only an ed x ed matrix is ever inverted; B^-1 is left in binv.
 */
static int rkm_dent_data_rows(struct rkm_code *c, struct rkm_dent *d,
			      const rkm_u8 *edi, int ed, rkm_u8 *binv,
			      rkm_u8 *rows)
{
	int k = c->k, i, j, t;
	rkm_u8 *b = d->scratch;
	const rkm_u8 *p = c->enc->coef;

	/* survivors k - ed .. k - 1 are the parity chunks Sp */
	for (t = 0; t < ed; t++)
		for (j = 0; j < ed; j++)
			b[t * ed + j] = p[(d->surv[k - ed + t] - k) * k + edi[j]];
	if (ed && rkm_gf_invert(b, binv, ed))
		return -RKM_EINVAL;	/* impossible for an MDS code */
	for (i = 0; i < ed; i++) {
		rkm_u8 *row = rows + i * k;

		for (j = 0; j < k - ed; j++) {
			int sj = d->surv[j];
			rkm_u8 v = 0;

			for (t = 0; t < ed; t++)
				v ^= rkm_gf_mul(binv[i * ed + t],
						p[(d->surv[k - ed + t] - k) * k + sj]);
			row[j] = v;
		}
		for (t = 0; t < ed; t++)
			row[k - ed + t] = binv[i * ed + t];
	}
	return 0;
}

/*
 * The row of erased parity chunk q over the survivors, from the erased
 * data rows: P[q][Sd] D[Sd] + P[q][Ed] D[Ed].
 */
static void rkm_dent_parity_row(struct rkm_code *c, struct rkm_dent *d,
				int q, const rkm_u8 *edi, int ed,
				const rkm_u8 *drows, rkm_u8 *row)
{
	const rkm_u8 *pq = c->enc->coef + (q - c->k) * c->k;
	int k = c->k, j, t;

	for (j = 0; j < k; j++) {
		rkm_u8 v = j < k - ed ? pq[d->surv[j]] : 0;

		for (t = 0; t < ed; t++)
			v ^= rkm_gf_mul(pq[edi[t]], drows[t * k + j]);
		row[j] = v;
	}
}

/*
 * Syndrome forms, when the parity rebuilding the data is Q, or P and Q:
 * S = parity[Sp] + P[Sp][Sd] D[Sd] takes only XOR and doublings
 * (Horner), then D[Ed] = B^-1 S is ed * ed table terms per byte, against
 * ed * k for the plain rows.  P alone is a plain XOR row already.  The
 * three-pass form solves in the erased data buffers, so it needs all of
 * them wanted; the one pass computes the wanted data's rows of B^-1 only
 * (wd of them), and wanted parity only when all the data is wanted (it
 * is re-encoded from the complete data).
 */
static void rkm_dent_build_pq(struct rkm_code *c, struct rkm_dent *d,
			      int ed, int wd, const rkm_u8 *edi,
			      const rkm_u8 *binv)
{
	int k = c->k, i, j, t, x = 0, pq;
	const rkm_u8 *p = c->enc->coef;
	rkm_u8 *b = d->scratch, *rows = d->scratch + 2 * k * k;
	rkm_u8 post[RKM_POST_ROWS * RKM_POST_ROWS];

	pq = c->syn_q && d->surv[k - 1] == k + 1 &&
	     (ed == 1 || (ed == 2 && d->surv[k - 2] == k));
	d->pq = pq && wd == ed;
	d->syn_ok = pq && ed < k && wd && (wd == ed || d->nwant == wd);
	d->npar = d->nwant - wd;
	if (d->pq)
		rkm_mat_prepare(d->solve, ed, ed, binv);
	if ((d->pq || d->syn_ok) && d->npar) {
		for (i = 0; i < d->npar; i++)
			memcpy(rows + i * k, p + (d->idx[wd + i] - k) * k, k);
		rkm_mat_prepare(d->pmt, d->npar, k, rows);
	}
	if (!d->syn_ok)
		return;
	/* the rows of Sp over Sd (b is free again), solved by B^-1 */
	for (t = 0; t < ed; t++)
		for (j = 0; j < k - ed; j++)
			b[t * (k - ed) + j] =
				p[(d->surv[k - ed + t] - k) * k + d->surv[j]];
	for (i = 0; i < ed; i++)
		if ((d->want >> edi[i]) & 1)
			memcpy(post + ed * x++, binv + i * ed, ed);
	rkm_mat_prepare_post(d->syn, ed, k - ed, b, wd, post);
}

/*
 * Fill @d (key and want set) with the survivors and the decode matrix of
 * its wanted chunks: the rows of every erased data chunk first (they
 * feed the parity rows), then those of the erased parity, then only the
 * wanted rows kept.
 */
static int rkm_dent_build(struct rkm_code *c, struct rkm_dent *d)
{
	int k = c->k, n = c->k + c->m, i, ns = 0, ne = 0, ed = 0;
	int nw = 0, wd = 0;
	rkm_u8 *binv = d->scratch + k * k, *rows = binv + k * k;
	rkm_u8 edi[RKM_MAX_M], eidx[RKM_MAX_M];

	for (i = 0; i < n; i++) {
		if (!((d->key >> i) & 1)) {
			if (ns < k)
				d->surv[ns++] = i;
			continue;
		}
		eidx[ne++] = i;
		if (i < k)
			edi[ed++] = i;
		if ((d->want >> i) & 1) {
			d->idx[nw++] = i;
			wd += i < k;
		}
	}
	d->nerased = ne;
	d->nwant = nw;
	if (rkm_dent_data_rows(c, d, edi, ed, binv, rows))
		return -RKM_EINVAL;
	for (i = ed; i < ne; i++)
		rkm_dent_parity_row(c, d, eidx[i], edi, ed, rows, rows + i * k);
	for (i = 0, nw = 0; i < ne; i++)
		if ((d->want >> eidx[i]) & 1)
			memmove(rows + nw++ * k, rows + i * k, k);
	rkm_mat_prepare(d->mt, nw, k, rows);
	rkm_dent_build_pq(c, d, ed, wd, edi, binv);
	return 0;
}

static int rkm_dent_is(const struct rkm_dent *d, rkm_u64 erased,
		       rkm_u64 want)
{
	return d->key == erased && d->want == want && d->ready;
}

/*
 * A referenced, ready cache entry for (@erased, @want), the key of the
 * cache; rkm_dent_put() it.
 */
static struct rkm_dent *rkm_dent_get(struct rkm_code *c, rkm_u64 erased,
				     rkm_u64 want)
{
	struct rkm_dent *d, *victim = NULL;
	rkm_lock_flags_t flags = 0;
	rkm_u8 *mem;
	int i;

	rkm_lock(&c->lock, flags);
	d = c->last;
	if (d && rkm_dent_is(d, erased, want)) {
		d->refs++;
		d->stamp = ++c->clock;
		rkm_unlock(&c->lock, flags);
		return d;
	}
	for (i = 0; i < c->nslots; i++) {
		d = &c->slots[i];
		if (rkm_dent_is(d, erased, want)) {
			d->refs++;
			d->stamp = ++c->clock;
			c->last = d;
			rkm_unlock(&c->lock, flags);
			return d;
		}
		if (!d->refs && (!victim || d->stamp < victim->stamp))
			victim = d;
	}
	if (victim) {
		victim->key = erased;
		victim->want = want;
		victim->ready = 0;
		victim->refs = 1;
		victim->stamp = ++c->clock;
	}
	rkm_unlock(&c->lock, flags);

	if (victim) {
		if (rkm_dent_build(c, victim)) {
			rkm_lock(&c->lock, flags);
			victim->key = 0;
			victim->refs--;
			rkm_unlock(&c->lock, flags);
			return NULL;
		}
		rkm_lock(&c->lock, flags);
		victim->ready = 1;
		c->last = victim;
		rkm_unlock(&c->lock, flags);
		return victim;
	}

	/* every slot is in use by a concurrent decode: a private entry */
	mem = rkm_alloc_atomic(sizeof(*d) + 64 + c->slot_bytes);
	if (!mem)
		return NULL;
	d = (struct rkm_dent *)mem;
	rkm_dent_init(d, mem + ((sizeof(*d) + 63) & ~(rkm_size_t)63), c->k,
		      c->m);
	d->key = erased;
	d->want = want;
	d->temp = 1;
	if (rkm_dent_build(c, d)) {
		rkm_free(d);
		return NULL;
	}
	return d;
}

static void rkm_dent_put(struct rkm_code *c, struct rkm_dent *d)
{
	rkm_lock_flags_t flags = 0;

	if (d->temp) {
		rkm_free(d);
		return;
	}
	rkm_lock(&c->lock, flags);
	d->refs--;
	rkm_unlock(&c->lock, flags);
}

static int rkm_erased_ok(const struct rkm_code *c, rkm_u64 erased)
{
	int n = c->k + c->m;
	int e = rkm_popcount(erased);

	return e >= 1 && e <= c->m && (n == 64 || !(erased >> n));
}

static int rkm_want_ok(const struct rkm_code *c, rkm_u64 erased,
		       rkm_u64 want)
{
	return rkm_erased_ok(c, erased) && want && !(want & ~erased);
}

int rkm_encode(struct rkm_code *c, rkm_size_t len,
	       const rkm_u8 *const *data, rkm_u8 *const *parity)
{
	if (!c || !rkm_len_ok(len))
		return -RKM_EINVAL;
	rkm_run_mul(c->enc, NULL, c->k, len, data, parity, 0);
	return 0;
}

/*
 * Decode in syndrome form: @in are the survivors (data Sd, then parity
 * Sp), @out the erased chunks (data Ed, then parity).  Each erased data
 * buffer first takes its syndrome, which the in-place solve turns into
 * the data; the erased parity is then encoded from the complete data.
 */
static void rkm_decode_pq(struct rkm_code *c, struct rkm_dent *d,
			  rkm_size_t len, const rkm_u8 *const *in,
			  rkm_u8 *const *out, rkm_u8 *const *chunks)
{
	int k = c->k, ed = d->solve->nout, ns = k - ed, i;

	for (i = 0; i < ed; i++)
		memcpy(out[i], in[ns + i], len);
	if (ns)
		rkm_run_mul(ed == 2 ? c->syn_pq : c->syn_q, d->surv, ns, len,
			    in, out, 1);
	rkm_run_mul(d->solve, NULL, ed, len, (const rkm_u8 *const *)out,
		    out, 0);
	if (d->npar)
		rkm_run_mul(d->pmt, NULL, k, len,
			    (const rkm_u8 *const *)chunks, out + ed, 0);
}

/*
 * Decode in one syndrome pass: the wanted erased data straight from the
 * syndromes of Sp (solved in registers), then wanted erased parity
 * re-encoded from the complete data (all of it wanted then).
 */
static void rkm_decode_fused(struct rkm_code *c, struct rkm_dent *d,
			     rkm_size_t len, const rkm_u8 *const *in,
			     rkm_u8 *const *out, rkm_u8 *const *chunks)
{
	int ed = d->syn->nout;

	rkm_run_mul(d->syn, NULL, c->k - ed, len, in, out, 0);
	if (d->npar)
		rkm_run_mul(d->pmt, NULL, c->k, len,
			    (const rkm_u8 *const *)chunks,
			    out + d->syn->npost, 0);
}

/*
 * The form for @d: the chosen one where it applies; where the three
 * passes were chosen but part of the erased data is unwanted, the one
 * pass (it computes only the wanted outputs); else the plain rows.
 */
static int rkm_dent_form(const struct rkm_dent *d)
{
	int form = rkm_decode_form();

	if (form == RKM_FORM_SYNDROME && d->pq)
		return RKM_FORM_SYNDROME;
	if (form != RKM_FORM_ROWS && d->syn_ok &&
	    (form == RKM_FORM_FUSED || !d->pq))
		return RKM_FORM_FUSED;
	return RKM_FORM_ROWS;
}

int rkm_decode_want(struct rkm_code *c, rkm_size_t len, rkm_u64 erased,
		    rkm_u64 want, rkm_u8 *const *chunks)
{
	const rkm_u8 *in[RKM_MAX_K];
	rkm_u8 *out[RKM_MAX_M];
	struct rkm_dent *d;
	int i;

	if (!c || !rkm_len_ok(len) || !rkm_want_ok(c, erased, want))
		return -RKM_EINVAL;
	d = rkm_dent_get(c, erased, want);
	if (!d)
		return -RKM_ENOMEM;
	for (i = 0; i < c->k; i++)
		in[i] = chunks[d->surv[i]];
	for (i = 0; i < d->nwant; i++)
		out[i] = chunks[d->idx[i]];
	switch (rkm_dent_form(d)) {
	case RKM_FORM_FUSED:
		rkm_decode_fused(c, d, len, in, out, chunks);
		break;
	case RKM_FORM_SYNDROME:
		rkm_decode_pq(c, d, len, in, out, chunks);
		break;
	default:
		rkm_run_mul(d->mt, NULL, c->k, len, in, out, 0);
	}
	rkm_dent_put(c, d);
	return 0;
}

int rkm_decode(struct rkm_code *c, rkm_size_t len, rkm_u64 erased,
	       rkm_u8 *const *chunks)
{
	return rkm_decode_want(c, len, erased, erased, chunks);
}

int rkm_decode_matrix_want(struct rkm_code *c, rkm_u64 erased,
			   rkm_u64 want, rkm_u8 *survivors, rkm_u8 *rows)
{
	struct rkm_dent *d;
	int nw;

	if (!c || !rkm_want_ok(c, erased, want))
		return -RKM_EINVAL;
	d = rkm_dent_get(c, erased, want);
	if (!d)
		return -RKM_ENOMEM;
	nw = d->nwant;
	memcpy(survivors, d->surv, c->k);
	memcpy(rows, d->mt->coef, nw * c->k);
	rkm_dent_put(c, d);
	return nw;
}

int rkm_decode_matrix(struct rkm_code *c, rkm_u64 erased,
		      rkm_u8 *survivors, rkm_u8 *rows)
{
	return rkm_decode_matrix_want(c, erased, erased, survivors, rows);
}

int rkm_delta(struct rkm_code *c, rkm_size_t len, rkm_u64 changed,
	      const rkm_u8 *const *old_data, const rkm_u8 *const *new_data,
	      rkm_u8 *const *parity)
{
	const rkm_u8 *in[2 * RKM_MAX_K];
	rkm_u8 cols[2 * RKM_MAX_K];
	int i, n = 0;

	if (!c || !rkm_len_ok(len) || (changed >> c->k))
		return -RKM_EINVAL;
	for (i = 0; i < c->k; i++) {
		if (!((changed >> i) & 1))
			continue;
		cols[n] = i;
		in[n++] = old_data[i];
		cols[n] = i;
		in[n++] = new_data[i];
	}
	if (n)
		rkm_run_mul(c->enc, cols, n, len, in, parity, 1);
	return 0;
}

/* scratch row r = stored parity r + recomputed parity r (the syndrome) */
static void rkm_syndrome(struct rkm_code *c, rkm_size_t len,
			 const rkm_u8 *const *chunks, rkm_u8 *scratch)
{
	rkm_u8 *out[RKM_MAX_M];
	int r;

	for (r = 0; r < c->m; r++) {
		out[r] = scratch + r * len;
		memcpy(out[r], chunks[c->k + r], len);
	}
	rkm_run_mul(c->enc, NULL, c->k, len, chunks, out, 1);
}

static int rkm_all_zero(const rkm_u8 *p, rkm_size_t len)
{
	rkm_u64 acc = 0, v;
	rkm_size_t i;

	for (i = 0; i < len; i += 8) {
		memcpy(&v, p + i, 8);
		acc |= v;
	}
	return !acc;
}

int rkm_check(struct rkm_code *c, rkm_size_t len,
	      const rkm_u8 *const *chunks, rkm_u8 *scratch)
{
	if (!c || !rkm_len_ok(len))
		return -RKM_EINVAL;
	rkm_syndrome(c, len, chunks, scratch);
	return !rkm_all_zero(scratch, c->m * len);
}

/*
 * The chunk a nonzero syndrome column s[0..m-1] points at, or -1.  A
 * corrupted parity chunk r gives s = e * unit(r); a corrupted data chunk i
 * gives s = e * P[.][i], all nonzero.  With m >= 2 no two of these
 * directions coincide (every 1x1 and 2x2 minor of P is nonzero).
 */
static int rkm_locate_col(const struct rkm_code *c, const rkm_u8 *s)
{
	int m = c->m, k = c->k, r, nz = 0, last = 0, i;
	const rkm_u8 *p = c->enc->coef;

	for (r = 0; r < m; r++)
		if (s[r]) {
			nz++;
			last = r;
		}
	if (nz == 1)
		return k + last;
	if (nz != m)
		return -1;
	/* row 0 is ones, row 1 is 2^i: i = log(s1 / s0) */
	i = rkm_gf_log[rkm_gf_div(s[1], s[0])];
	if (i >= k)
		return -1;
	for (r = 2; r < m; r++)
		if (s[r] != rkm_gf_mul(p[r * k + i], s[0]))
			return -1;
	return i;
}

int rkm_locate(struct rkm_code *c, rkm_size_t len,
	       const rkm_u8 *const *chunks, rkm_u8 *scratch)
{
	rkm_u8 s[RKM_MAX_M];
	rkm_size_t b;
	int found = RKM_LOCATE_CLEAN, r, any, at;

	if (!c || !rkm_len_ok(len))
		return -RKM_EINVAL;
	rkm_syndrome(c, len, chunks, scratch);
	for (b = 0; b < len; b++) {
		any = 0;
		for (r = 0; r < c->m; r++) {
			s[r] = scratch[r * len + b];
			any |= s[r];
		}
		if (!any)
			continue;
		if (c->m < 2)
			return RKM_LOCATE_UNKNOWN;
		at = rkm_locate_col(c, s);
		if (at < 0 || (found != RKM_LOCATE_CLEAN && found != at))
			return RKM_LOCATE_UNKNOWN;
		found = at;
	}
	return found;
}
