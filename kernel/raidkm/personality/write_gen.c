// SPDX-License-Identifier: GPL-2.0
/*
 * Write generations: the coherence rule between member writes and the
 * reads that bypass the stripe cache to decode (wide reads, wide_read.c).
 *
 * A decode is only right if every survivor it reads holds the same
 * version of its chunk stripe: a member write of the same chunk stripe
 * landing between two survivors' reads (another chunk's new data, or the
 * parity of it) would make the decoded chunk garbage, even though no
 * application wrote the sectors being read.  Chunk stripes hash into
 * KM_GEN_BUCKETS buckets, each with the number of member writes in flight
 * and a generation that every write start bumps:
 *
 *   writer  km_gen_write_begin() before its member writes are submitted
 *           (the write round, a rewrite, a sync or repair write), and
 *           km_gen_write_end() once they all completed;
 *   reader  km_gen_read_begin() before submitting its member reads: no
 *           write may be in flight, and the generation is remembered;
 *           km_gen_read_valid() after every read completed: the
 *           generation must not have moved.
 *
 * A write that started after the reader's snapshot changes the generation
 * before any of its bios is submitted; if the reader's check sees the old
 * generation, every write that could have reached a member started after
 * all of the reader's reads had completed.  Either failure sends the read
 * to the row path, which goes through the stripe cache and its rounds.
 * Two chunk stripes sharing a bucket only cost a needless fallback.
 */
#include <linux/slab.h>
#include "km.h"

struct km_gen {
	atomic_t writing;
	atomic_t gen;
};

int km_gen_init(struct km_conf *conf)
{
	conf->gens = kcalloc(KM_GEN_BUCKETS, sizeof(*conf->gens), GFP_KERNEL);
	return conf->gens ? 0 : -ENOMEM;
}

void km_gen_exit(struct km_conf *conf)
{
	kfree(conf->gens);
	conf->gens = NULL;
}

static struct km_gen *km_gen_of(struct km_conf *conf, sector_t cstripe)
{
	return &conf->gens[hash_64(cstripe, KM_GEN_BITS)];
}

void km_gen_write_begin(struct km_conf *conf, sector_t cstripe)
{
	struct km_gen *g = km_gen_of(conf, cstripe);

	atomic_inc(&g->writing);
	atomic_inc(&g->gen);
	smp_mb__after_atomic();	/* before any member write is submitted */
}

void km_gen_write_end(struct km_conf *conf, sector_t cstripe)
{
	smp_mb__before_atomic();
	atomic_dec(&km_gen_of(conf, cstripe)->writing);
}

bool km_gen_read_begin(struct km_conf *conf, sector_t cstripe,
		       unsigned int *gen)
{
	struct km_gen *g = km_gen_of(conf, cstripe);

	*gen = atomic_read(&g->gen);
	smp_rmb();
	return !atomic_read(&g->writing);
}

bool km_gen_read_valid(struct km_conf *conf, sector_t cstripe,
		       unsigned int gen)
{
	smp_mb();	/* after the member reads completed */
	return atomic_read(&km_gen_of(conf, cstripe)->gen) == gen;
}
