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
	rkm_u64 stamp;			/* LRU clock of the last use */
	int refs;			/* users; never evicted while > 0 */
	int ready;			/* matrix built */
	int temp;			/* outside the cache: freed on release */
	int nerased;
	rkm_u8 surv[RKM_MAX_K];		/* survivor chunk indices, ascending */
	rkm_u8 idx[RKM_MAX_M];		/* erased chunk indices, ascending */
	rkm_u8 *scratch;		/* 2 * k * k + m * k bytes */
	struct rkm_mat *mt;		/* nerased x k */
	/*
	 * Syndrome form (pq set): the erased data is rebuilt from the P/Q
	 * syndromes of the surviving data, then the small system is solved;
	 * erased parity is re-encoded from the data.  See rkm_dent_build().
	 */
	int pq;
	struct rkm_mat *solve;		/* ed x ed, ed <= 2 */
	struct rkm_mat *pmt;		/* erased parity rows, x k */
	struct rkm_mat *syn;		/* one pass: syndromes, then solve */
	int syn_ok;			/* syn built (pq and ed < k) */
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
 * Fill @d (key set) with the survivors and decode matrix of its pattern.
 * Survivors are the first k chunks not erased: every surviving data chunk
 * (set Sd) and the first ed surviving parity chunks (Sp), ed being the
 * number of erased data chunks (Ed).  With B = P[Sp][Ed] (ed x ed,
 * nonsingular since the code is MDS):
 *	D[Ed] = B^-1 (parity[Sp] + P[Sp][Sd] D[Sd])
 * and an erased parity chunk q is P[q][Sd] D[Sd] + P[q][Ed] D[Ed], so
 * only an ed x ed matrix is ever inverted.
 */
static int rkm_dent_build(struct rkm_code *c, struct rkm_dent *d)
{
	int k = c->k, n = c->k + c->m, i, j, t, ns = 0, ne = 0, ed = 0;
	rkm_u8 *b = d->scratch, *binv = d->scratch + k * k;
	rkm_u8 *rows = binv + k * k;
	rkm_u8 edi[RKM_MAX_M];
	const rkm_u8 *p = c->enc->coef;

	for (i = 0; i < n; i++) {
		if ((d->key >> i) & 1) {
			d->idx[ne++] = i;
			if (i < k)
				edi[ed++] = i;
		} else if (ns < k) {
			d->surv[ns++] = i;
		}
	}
	d->nerased = ne;
	/* survivors k - ed .. k - 1 are the parity chunks Sp */
	for (t = 0; t < ed; t++)
		for (j = 0; j < ed; j++)
			b[t * ed + j] = p[(d->surv[k - ed + t] - k) * k + edi[j]];
	if (ed && rkm_gf_invert(b, binv, ed))
		return -RKM_EINVAL;	/* impossible for an MDS code */

	/* rows of the erased data chunks first (they feed the parity rows) */
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
	for (i = ed; i < ne; i++) {
		const rkm_u8 *pq = p + (d->idx[i] - k) * k;
		rkm_u8 *row = rows + i * k;

		for (j = 0; j < k; j++) {
			rkm_u8 v = j < k - ed ? pq[d->surv[j]] : 0;

			for (t = 0; t < ed; t++)
				v ^= rkm_gf_mul(pq[edi[t]], rows[t * k + j]);
			row[j] = v;
		}
	}
	rkm_mat_prepare(d->mt, ne, k, rows);

	/*
	 * Syndrome form, when the parity rebuilding the data is Q, or P and
	 * Q: S = parity[Sp] + P[Sp][Sd] D[Sd] takes only XOR and doublings
	 * (Horner), then D[Ed] = B^-1 S is ed * ed table terms per byte,
	 * against ed * k for the plain rows.  P alone is a plain XOR row
	 * already.
	 */
	d->pq = c->syn_q && d->surv[k - 1] == k + 1 &&
		(ed == 1 || (ed == 2 && d->surv[k - 2] == k));
	d->syn_ok = d->pq && ed < k;
	if (d->pq) {
		rkm_mat_prepare(d->solve, ed, ed, binv);
		for (i = ed; i < ne; i++)
			memcpy(rows + (i - ed) * k, p + (d->idx[i] - k) * k, k);
		if (ne > ed)
			rkm_mat_prepare(d->pmt, ne - ed, k, rows);
	}
	if (d->syn_ok) {
		/* the rows of Sp over Sd (b is free again), solved by B^-1 */
		for (t = 0; t < ed; t++)
			for (j = 0; j < k - ed; j++)
				b[t * (k - ed) + j] =
					p[(d->surv[k - ed + t] - k) * k + d->surv[j]];
		rkm_mat_prepare_post(d->syn, ed, k - ed, b, ed, binv);
	}
	return 0;
}

/* A referenced, ready cache entry for @erased; rkm_dent_put() it. */
static struct rkm_dent *rkm_dent_get(struct rkm_code *c, rkm_u64 erased)
{
	struct rkm_dent *d, *victim = NULL;
	rkm_lock_flags_t flags = 0;
	rkm_u8 *mem;
	int i;

	rkm_lock(&c->lock, flags);
	d = c->last;
	if (d && d->key == erased && d->ready) {
		d->refs++;
		d->stamp = ++c->clock;
		rkm_unlock(&c->lock, flags);
		return d;
	}
	for (i = 0; i < c->nslots; i++) {
		d = &c->slots[i];
		if (d->key == erased && d->ready) {
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
	if (d->nerased > ed)
		rkm_run_mul(d->pmt, NULL, k, len,
			    (const rkm_u8 *const *)chunks, out + ed, 0);
}

/*
 * Decode in one syndrome pass: the erased data straight from the
 * syndromes of Sp (solved in registers), then erased parity re-encoded
 * from the complete data.
 */
static void rkm_decode_fused(struct rkm_code *c, struct rkm_dent *d,
			     rkm_size_t len, const rkm_u8 *const *in,
			     rkm_u8 *const *out, rkm_u8 *const *chunks)
{
	int ed = d->syn->nout;

	rkm_run_mul(d->syn, NULL, c->k - ed, len, in, out, 0);
	if (d->nerased > ed)
		rkm_run_mul(d->pmt, NULL, c->k, len,
			    (const rkm_u8 *const *)chunks, out + ed, 0);
}

int rkm_decode(struct rkm_code *c, rkm_size_t len, rkm_u64 erased,
	       rkm_u8 *const *chunks)
{
	const rkm_u8 *in[RKM_MAX_K];
	rkm_u8 *out[RKM_MAX_M];
	struct rkm_dent *d;
	int i, form;

	if (!c || !rkm_len_ok(len) || !rkm_erased_ok(c, erased))
		return -RKM_EINVAL;
	d = rkm_dent_get(c, erased);
	if (!d)
		return -RKM_ENOMEM;
	for (i = 0; i < c->k; i++)
		in[i] = chunks[d->surv[i]];
	for (i = 0; i < d->nerased; i++)
		out[i] = chunks[d->idx[i]];
	form = rkm_decode_form();
	if (d->syn_ok && form == RKM_FORM_FUSED)
		rkm_decode_fused(c, d, len, in, out, chunks);
	else if (d->pq && form == RKM_FORM_SYNDROME)
		rkm_decode_pq(c, d, len, in, out, chunks);
	else
		rkm_run_mul(d->mt, NULL, c->k, len, in, out, 0);
	rkm_dent_put(c, d);
	return 0;
}

int rkm_decode_matrix(struct rkm_code *c, rkm_u64 erased,
		      rkm_u8 *survivors, rkm_u8 *rows)
{
	struct rkm_dent *d;
	int ne;

	if (!c || !rkm_erased_ok(c, erased))
		return -RKM_EINVAL;
	d = rkm_dent_get(c, erased);
	if (!d)
		return -RKM_ENOMEM;
	ne = d->nerased;
	memcpy(survivors, d->surv, c->k);
	memcpy(rows, d->mt->coef, ne * c->k);
	rkm_dent_put(c, d);
	return ne;
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
