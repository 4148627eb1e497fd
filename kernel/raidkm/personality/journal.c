// SPDX-License-Identifier: GPL-2.0
/*
 * The write journal: a km array's answer to the write hole, for any m.
 *
 * With a journal device (mdadm --write-journal), every page a write round
 * or a wide write sends to the members (new data and all of the new
 * parity) is first written to the journal, in a record, with REQ_FUA; the
 * members' writes start only once that record and every record before it
 * are on the journal.  After a crash the records after the journal's checkpoint are
 * written to the members again, in order, before the array serves: every
 * row a crash cut through gets its new data and matching parity, so no
 * chunk rebuilt from that parity later (degraded array, a member lost
 * before resync) comes back as anything but what was last written.
 *
 * The journal device's data area:
 *
 *   sector 0..7    the journal super: the checkpoint (the log position of
 *                  the oldest record whose member writes may not be on
 *                  the members, and its sequence number)
 *   sector 8..     the log: records, each a header page and its pages;
 *                  a record never wraps around the log's end
 *
 * A header names the array (uuid), its sequence number (one more than the
 * record before it), one entry per member write (slot, member sector,
 * pages, whether for the slot's replacement) and a checksum of itself and
 * of its pages, so a torn record or one of an earlier lap ends the scan.
 * Records carry the member writes' own pages (no copy), several in flight; the members' writes of a record are let
 * go in record order (journal_release()), so a record that a crash left
 * torn has no member write behind it and none after it has either.
 *
 * The checkpoint advances in a work item: the members are flushed, then
 * the super is written with REQ_FUA; the log space before it is free.  A
 * write round that finds no record or no space waits on the backlog, and
 * the md thread packs it when the checkpoint has freed some.
 *
 * A journal that fails a write is marked Faulty (md_error): records in
 * flight let their member writes go unprotected, and new writes fail with
 * -EIO until the journal is replaced or consistency_policy is set to
 * resync, as md raid5 does.  See Documentation/personality.rst.
 */
#include <linux/module.h>
#include <linux/blkdev.h>
#include <linux/random.h>
#include <linux/xxhash.h>
#include <linux/uuid.h>
#include "../raidkm.h"
#include "../uapi/raidkm_md.h"
#include "md.h"
#include "journal.h"

/* Where linear log sector @lin lies in the log. */
static sector_t km_j_phys(struct km_journal *j, u64 lin)
{
	u64 rem;

	div64_u64_rem(lin, j->size, &rem);
	return rem;
}

/* Sectors a record of @nr pages takes. */
static sector_t km_j_len(unsigned int nr)
{
	return (sector_t)(nr + 1) << (PAGE_SHIFT - 9);
}

/* Whether write rounds go through the journal now. */
bool km_journal_on(struct km_conf *conf)
{
	struct km_journal *j = conf->journal;

	return j && !READ_ONCE(j->failed);
}

/* Writes fail: the array has a journal, and it is missing or failed. */
bool km_journal_blocks_writes(struct km_conf *conf)
{
	return test_bit(MD_HAS_JOURNAL, &conf->mddev->flags) &&
	       !km_journal_on(conf);
}

/* The most pages one item (a wide write) may hold. */
unsigned int km_journal_max_pages(struct km_conf *conf)
{
	struct km_journal *j = conf->journal;

	return j ? j->max_pages : KM_J_MAX_PAGES;
}

static u64 km_j_super_csum(struct km_jsuper *s)
{
	return xxh64(s, offsetof(struct km_jsuper, csum), KM_J_SUPER_MAGIC);
}

int km_j_write_super(struct km_journal *j, u64 tail, u64 seq)
{
	struct km_jsuper *s = page_address(j->super);

	memset(s, 0, PAGE_SIZE);
	s->magic = cpu_to_le32(KM_J_SUPER_MAGIC);
	s->version = cpu_to_le32(KM_J_VERSION);
	memcpy(s->uuid, j->conf->mddev->uuid, sizeof(s->uuid));
	s->tail = cpu_to_le64(km_j_phys(j, tail));
	s->seq = cpu_to_le64(seq);
	s->csum = cpu_to_le64(km_j_super_csum(s));
	if (!sync_page_io(j->rdev, j->base, PAGE_SIZE, j->super,
			  REQ_OP_WRITE | REQ_SYNC | REQ_FUA, false))
		return -EIO;
	return 0;
}

/* A member of slot @i (@repl: its replacement), referenced, or NULL. */
struct md_rdev *km_j_get_member(struct km_conf *conf, int i, bool repl)
{
	struct md_rdev *rdev;

	rcu_read_lock();
	rdev = km_live(repl ? rcu_dereference(conf->disks[i].replacement)
			    : rcu_dereference(conf->disks[i].rdev));
	if (rdev)
		atomic_inc(&rdev->nr_pending);
	rcu_read_unlock();
	return rdev;
}

/* Flush every live member's (and replacement's) write cache. */
void km_j_flush_members(struct km_conf *conf)
{
	int i, r;

	for (i = 0; i < conf->geom.n; i++) {
		for (r = 0; r < 2; r++) {
			struct md_rdev *rdev = km_j_get_member(conf, i, r);

			if (!rdev)
				continue;
			blkdev_issue_flush(rdev->bdev);
			rdev_dec_pending(rdev, conf->mddev);
		}
	}
}

/* Back to the pool (j->lock held). */
void km_j_free_record(struct km_journal *j, struct km_jrec *rec)
{
	rec->state = KM_JR_FREE;
	list_move_tail(&rec->node, &j->pool);
}

bool km_j_record_done(struct km_jrec *rec)
{
	return rec->state == KM_JR_RELEASED && rec->users == 0;
}

/* Where the checkpoint may go: the oldest record not done (j->lock). */
static void km_j_cp_target(struct km_journal *j, u64 *tail, u64 *seq)
{
	struct km_jrec *rec;

	*tail = j->head;
	*seq = j->next_seq;
	list_for_each_entry(rec, &j->records, node) {
		if (rec->state == KM_JR_OPEN)
			return;
		if (!km_j_record_done(rec)) {
			*tail = rec->start;
			*seq = rec->seq;
			return;
		}
	}
}

/*
 * A write of the log to @rdev failed.  A member log moves off the member
 * (km_error() -> member_log.c); a journal fails, and writes with it, as
 * md raid5's does.
 */
static void km_j_write_failed(struct km_journal *j, struct md_rdev *rdev)
{
	struct mddev *mddev = j->conf->mddev;

	if (!j->members) {
		if (READ_ONCE(j->failed))
			return;
		pr_crit("md/km:%s: journal: a write to %pg failed\n",
			mdname(mddev), rdev->bdev);
		WRITE_ONCE(j->failed, true);
	}
	md_error(mddev, rdev);
}

/*
 * Move the checkpoint to the oldest record not done: flush the members,
 * then write the super.  Records before it go back to the pool, and
 * their log space is free.
 */
static void km_j_checkpoint(struct km_journal *j)
{
	struct km_jrec *rec, *tmp;
	u64 tail, seq;

	mutex_lock(&j->cp_mutex);
	spin_lock_irq(&j->lock);
	j->want_cp = false;
	km_j_cp_target(j, &tail, &seq);
	spin_unlock_irq(&j->lock);
	if (tail == j->tail || READ_ONCE(j->failed) || READ_ONCE(j->moving)) {
		mutex_unlock(&j->cp_mutex);
		return;
	}
	km_j_flush_members(j->conf);
	if (km_j_write_super(j, tail, seq)) {
		km_j_write_failed(j, j->rdev);
		mutex_unlock(&j->cp_mutex);
		md_wakeup_thread(j->conf->mddev->thread);
		return;
	}
	atomic64_inc(&j->stats.checkpoints);
	spin_lock_irq(&j->lock);
	j->tail = tail;
	list_for_each_entry_safe(rec, tmp, &j->records, node) {
		if (rec->state == KM_JR_OPEN || rec->start >= tail)
			break;
		km_j_free_record(j, rec);
	}
	spin_unlock_irq(&j->lock);
	mutex_unlock(&j->cp_mutex);
	md_wakeup_thread(j->conf->mddev->thread);
}

static void km_j_cp_work(struct work_struct *work)
{
	km_j_checkpoint(container_of(work, struct km_journal, cp_work));
}

/* (j->lock held) */
static void km_j_want_checkpoint(struct km_journal *j)
{
	if (!j->want_cp) {
		j->want_cp = true;
		queue_work(j->conf->retry_wq, &j->cp_work);
	}
}

/*
 * Half the log, or half the records, wait for the checkpoint: move it
 * (j->lock held).
 */
static void km_j_maybe_checkpoint(struct km_journal *j)
{
	if (j->head - j->tail > j->size / 2 || list_empty(&j->pool) ||
	    list_is_singular(&j->pool))
		km_j_want_checkpoint(j);
}

/*
 * Let the members' writes of logged records go, oldest first, up to the
 * first record not yet on the journal (j->lock held).
 */
static void km_j_release(struct km_journal *j)
{
	struct km_jrec *rec;

	list_for_each_entry(rec, &j->records, node) {
		if (rec->state == KM_JR_RELEASED)
			continue;
		if (rec->state != KM_JR_LOGGED)
			break;
		bio_list_merge(&j->ready, &rec->held);
		bio_list_init(&rec->held);
		rec->state = KM_JR_RELEASED;
	}
}

static void km_j_end_record(struct bio *bio)
{
	struct km_jrec *rec = bio->bi_private;
	struct km_journal *j = rec->j;
	struct mddev *mddev = j->conf->mddev;
	struct md_rdev *rdev = rec->rdev;
	unsigned long flags;

	if (bio->bi_status) {
		rec->ioerr = j->members;	/* logged again once moved */
		km_j_write_failed(j, rdev);
	}
	bio_put(bio);
	if (atomic_dec_and_test(&rec->bios)) {
		spin_lock_irqsave(&j->lock, flags);
		if (rec->ioerr) {
			/* written again where the log moves to */
			rec->ioerr = false;
			rec->state = KM_JR_CLOSED;
		} else {
			rec->state = KM_JR_LOGGED;
			km_j_release(j);
		}
		spin_unlock_irqrestore(&j->lock, flags);
		md_wakeup_thread(mddev->thread);
	}
	rdev_dec_pending(rdev, mddev);
}

static u64 km_j_data_csum(struct page **pages, unsigned int nr, u64 seq)
{
	struct xxh64_state st;
	unsigned int i;

	xxh64_reset(&st, seq);
	for (i = 0; i < nr; i++)
		xxh64_update(&st, page_address(pages[i]), PAGE_SIZE);
	return xxh64_digest(&st);
}

static u64 km_j_hdr_csum(struct km_jhdr *h, unsigned int entries)
{
	__le64 saved = h->hdr_csum;
	u64 c;

	h->hdr_csum = 0;
	c = xxh64(h, struct_size(h, ent, entries), KM_J_MAGIC);
	h->hdr_csum = saved;
	return c;
}

/*
 * Place the open record in the log; false when the log has no room for
 * it until the checkpoint moves (j->lock held).  Log positions are linear;
 * a record never wraps around the log's end.
 */
bool km_j_place(struct km_journal *j, struct km_jrec *rec)
{
	sector_t len = km_j_len(rec->nr);
	sector_t off = km_j_phys(j, j->head);
	u64 start = j->head;

	if (off + len > j->size)
		start += j->size - off;
	if (start + len - j->tail > j->size)
		return false;
	rec->start = start;
	rec->seq = j->next_seq++;
	j->head = start + len;
	return true;
}

static void km_j_fill_header(struct km_journal *j, struct km_jrec *rec)
{
	struct km_jhdr *h = page_address(rec->hdr);

	h->magic = cpu_to_le32(KM_J_MAGIC);
	h->version = cpu_to_le32(KM_J_VERSION);
	memcpy(h->uuid, j->conf->mddev->uuid, sizeof(h->uuid));
	h->seq = cpu_to_le64(rec->seq);
	h->entries = cpu_to_le32(rec->entries);
	h->pages = cpu_to_le32(rec->nr);
	h->data_csum = cpu_to_le64(km_j_data_csum(rec->pages, rec->nr,
						  rec->seq));
	h->hdr_csum = cpu_to_le64(km_j_hdr_csum(h, rec->entries));
}

/* Write a closed record with REQ_FUA: the header, then its pages. */
static void km_j_submit(struct km_journal *j, struct km_jrec *rec)
{
	struct md_rdev *rdev = j->rdev;
	sector_t sector = rdev->data_offset + j->base + KM_J_SUPER_SECTORS +
			  km_j_phys(j, rec->start);
	unsigned int done = 0, total = rec->nr + 1;

	km_j_fill_header(j, rec);
	rec->rdev = rdev;
	atomic_set(&rec->bios, DIV_ROUND_UP(total, BIO_MAX_VECS));
	atomic64_inc(&j->stats.records);
	atomic64_add(rec->nr, &j->stats.pages);
	while (done < total) {
		unsigned int n = min_t(unsigned int, total - done, BIO_MAX_VECS);
		struct bio *bio;
		unsigned int i;

		bio = bio_alloc(rdev->bdev, n,
				REQ_OP_WRITE | REQ_SYNC | REQ_FUA, GFP_NOIO);
		bio->bi_iter.bi_sector = sector +
					 ((sector_t)done << (PAGE_SHIFT - 9));
		for (i = done; i < done + n; i++)
			__bio_add_page(bio, i ? rec->pages[i - 1] : rec->hdr,
				       PAGE_SIZE, 0);
		bio->bi_private = rec;
		bio->bi_end_io = km_j_end_record;
		atomic_inc(&rdev->nr_pending);
		submit_bio_noacct(bio);
		done += n;
	}
}

/* A record from the pool, open at the log's end (j->lock held). */
static struct km_jrec *km_j_new_record(struct km_journal *j)
{
	struct km_jrec *rec;

	if (list_empty(&j->pool)) {
		km_j_want_checkpoint(j);
		return NULL;
	}
	rec = list_first_entry(&j->pool, struct km_jrec, node);
	list_move_tail(&rec->node, &j->records);
	rec->state = KM_JR_OPEN;
	rec->entries = 0;
	rec->nr = 0;
	rec->users = 0;
	bio_list_init(&rec->held);
	memset(page_address(rec->hdr), 0, PAGE_SIZE);
	return rec;
}

static void km_j_count(struct km_jitem *it, unsigned int *entries,
		       unsigned int *pages)
{
	struct bio *bio;

	*entries = 0;
	*pages = 0;
	if (it->recompute) {
		*entries = 1;
		return;
	}
	bio_list_for_each(bio, &it->bios) {
		(*entries)++;
		*pages += bio->bi_vcnt;
	}
}

/* An entry for member write @bio of @it, its pages after the record's. */
static void km_j_add_write(struct km_jrec *rec, struct km_jitem *it,
			   struct bio *bio)
{
	struct km_jhdr *h = page_address(rec->hdr);
	struct km_jent *e = &h->ent[rec->entries++];
	struct bio_vec *bv;
	struct bvec_iter_all iter;

	it->entry(it, bio, e);
	e->pages = cpu_to_le32(bio->bi_vcnt);
	bio_for_each_segment_all(bv, bio, iter)
		rec->pages[rec->nr++] = bv->bv_page;
}

/* A member log's full stripes (member_log.c): one entry, no pages. */
static void km_j_add_recompute(struct km_jrec *rec, struct km_jitem *it)
{
	struct km_jhdr *h = page_address(rec->hdr);
	struct km_jent *e = &h->ent[rec->entries++];

	e->sector = cpu_to_le64(it->rsector);
	e->flags = cpu_to_le16(KM_JENT_RECOMPUTE);
	e->pages = cpu_to_le32(it->rrows);
	atomic64_inc(&rec->j->stats.light_records);
}

/* Add the member writes @it holds to the open record @rec. */
static void km_j_add_item(struct km_jrec *rec, struct km_jitem *it)
{
	struct bio *bio;

	if (it->recompute)
		km_j_add_recompute(rec, it);
	else
		bio_list_for_each(bio, &it->bios)
			km_j_add_write(rec, it, bio);
	bio_list_merge(&rec->held, &it->bios);
	bio_list_init(&it->bios);
	it->rec = rec;
	rec->users++;
}

/* Place the open record to be written; false if the log is full. */
static bool km_j_close(struct km_journal *j)
{
	struct km_jrec *rec = j->open;

	if (!rec)
		return true;
	if (!km_j_place(j, rec)) {
		atomic64_inc(&j->stats.space_waits);
		km_j_want_checkpoint(j);
		return false;
	}
	rec->state = KM_JR_CLOSED;
	j->open = NULL;
	km_j_maybe_checkpoint(j);
	return true;
}

/* Pack the backlog into records, as far as records and room allow. */
static void km_j_pack(struct km_journal *j)
{
	struct km_jitem *it, *tmp;

	list_for_each_entry_safe(it, tmp, &j->backlog, node) {
		unsigned int ne, np;

		km_j_count(it, &ne, &np);
		if (WARN_ON_ONCE(ne > KM_J_MAX_ENTRIES || np > j->max_pages)) {
			/* never: callers keep items within a record */
			list_del_init(&it->node);
			bio_list_merge(&j->conf->deferred_writes, &it->bios);
			bio_list_init(&it->bios);
			continue;
		}
		if (j->open && (j->open->entries + ne > KM_J_MAX_ENTRIES ||
				j->open->nr + np > j->max_pages) &&
		    !km_j_close(j))
			return;
		if (!j->open)
			j->open = km_j_new_record(j);
		if (!j->open)
			return;
		list_del_init(&it->node);
		km_j_add_item(j->open, it);
	}
	if (j->open)
		km_j_close(j);
}

/* The journal failed: what waits for it goes to the members unlogged. */
static void km_j_drop_waiting(struct km_journal *j)
{
	struct km_conf *conf = j->conf;
	struct km_jrec *rec;

	while (!list_empty(&j->backlog)) {
		struct km_jitem *it = list_first_entry(&j->backlog,
					struct km_jitem, node);

		list_del_init(&it->node);
		bio_list_merge(&conf->deferred_writes, &it->bios);
		bio_list_init(&it->bios);
	}
	list_for_each_entry(rec, &j->records, node) {
		if (rec->state != KM_JR_OPEN && rec->state != KM_JR_CLOSED)
			continue;
		bio_list_merge(&conf->deferred_writes, &rec->held);
		bio_list_init(&rec->held);
		rec->state = KM_JR_RELEASED;
	}
	j->open = NULL;
}

/*
 * The md thread, before it submits the members' writes: the writes whose
 * records are on the journal join them, the backlog is packed into
 * records, and those are written.
 */
void km_journal_flush(struct km_conf *conf)
{
	struct km_journal *j = conf->journal;
	struct km_jrec *todo[KM_J_RECORDS], *rec;
	int n = 0, i;

	if (!j)
		return;
	spin_lock_irq(&j->lock);
	bio_list_merge(&conf->deferred_writes, &j->ready);
	bio_list_init(&j->ready);
	if (READ_ONCE(j->moving)) {
		/* member log: nothing is written until it has moved */
		spin_unlock_irq(&j->lock);
		return;
	}
	if (READ_ONCE(j->failed)) {
		km_j_drop_waiting(j);
		spin_unlock_irq(&j->lock);
		return;
	}
	km_j_pack(j);
	list_for_each_entry(rec, &j->records, node) {
		if (rec->state != KM_JR_CLOSED)
			continue;
		rec->state = KM_JR_WRITING;
		todo[n++] = rec;
	}
	spin_unlock_irq(&j->lock);
	for (i = 0; i < n; i++)
		km_j_submit(j, todo[i]);
}

/* @it holds member writes to log before they go; the md thread packs. */
void km_journal_queue(struct km_conf *conf, struct km_jitem *it)
{
	struct km_journal *j = conf->journal;
	unsigned long flags;

	spin_lock_irqsave(&j->lock, flags);
	list_add_tail(&it->node, &j->backlog);
	spin_unlock_irqrestore(&j->lock, flags);
	md_wakeup_thread(conf->mddev->thread);
}

/* The member writes that @it logged have ended. */
void km_journal_written(struct km_jitem *it)
{
	struct km_jrec *rec = it->rec;
	struct km_journal *j;
	unsigned long flags;

	if (!rec)
		return;
	j = rec->j;
	it->rec = NULL;
	spin_lock_irqsave(&j->lock, flags);
	if (--rec->users == 0 && rec->state == KM_JR_RELEASED)
		km_j_maybe_checkpoint(j);
	spin_unlock_irqrestore(&j->lock, flags);
}

/* For ->entry(): a write to @slot (@repl: its replacement) from @sector. */
void km_journal_entry(struct km_jent *e, sector_t sector, int slot, bool repl)
{
	e->sector = cpu_to_le64(sector);
	e->slot = cpu_to_le16(slot);
	e->flags = cpu_to_le16(repl ? KM_JENT_REPL : 0);
}

void km_journal_item_init(struct km_jitem *it,
			  void (*entry)(struct km_jitem *it, struct bio *bio,
					struct km_jent *e))
{
	INIT_LIST_HEAD(&it->node);
	bio_list_init(&it->bios);
	it->rec = NULL;
	it->entry = entry;
	it->recompute = false;
}

/* A stripe's member write: its slot and row. */
static void km_j_stripe_entry(struct km_jitem *it, struct bio *bio,
			      struct km_jent *e)
{
	struct km_stripe *sh = container_of(it, struct km_stripe, jitem);
	int i = ((char *)bio - (char *)sh->dev) / sizeof(struct km_dev);

	km_journal_entry(e, sh->sector, sh->dev[i].member,
			 bio == &sh->dev[i].rbio);
}

void km_journal_stripe_item(struct km_stripe *sh)
{
	km_journal_item_init(&sh->jitem, km_j_stripe_entry);
}

/* ---- replay --------------------------------------------------------- */

struct km_j_scan {
	struct km_journal *j;
	struct page *hdr;
	struct page **pages;	/* KM_J_MAX_PAGES */
	sector_t pos;		/* log sector of the next record */
	u64 seq;		/* its sequence number */
	unsigned int records, pages_written, write_errors;
	unsigned int recomputed_rows, skipped_rows;
};

/*
 * @n pages to or from @rdev's data area at @sector, in bios of at most
 * BIO_MAX_VECS pages, waited for; false if one failed.
 */
bool km_j_io(struct md_rdev *rdev, sector_t sector,
		    struct page **pages, unsigned int n, blk_opf_t op)
{
	bool ok = true;

	while (n) {
		unsigned int c = min_t(unsigned int, n, BIO_MAX_VECS), i;
		struct bio *bio = bio_alloc(rdev->bdev, c, op, GFP_KERNEL);

		bio->bi_iter.bi_sector = rdev->data_offset + sector;
		for (i = 0; i < c; i++)
			__bio_add_page(bio, pages[i], PAGE_SIZE, 0);
		if (submit_bio_wait(bio))
			ok = false;
		bio_put(bio);
		sector += (sector_t)c << (PAGE_SHIFT - 9);
		pages += c;
		n -= c;
	}
	return ok;
}

/* Whether entry @e names rows of the array. */
static bool km_j_entry_ok(struct km_journal *j, struct km_jent *e)
{
	struct km_conf *conf = j->conf;
	u64 sector = le64_to_cpu(e->sector);
	u32 pages = le32_to_cpu(e->pages);
	u16 flags = le16_to_cpu(e->flags);
	u64 chunk = conf->geom.chunk_sectors;

	if (flags == KM_JENT_RECOMPUTE)
		/* whole chunk stripes, of a member log only */
		return j->members && !e->slot && pages &&
		       !(sector & (chunk - 1)) &&
		       !(((u64)pages << (PAGE_SHIFT - 9)) & (chunk - 1)) &&
		       sector + ((u64)pages << (PAGE_SHIFT - 9)) <=
		       conf->mddev->dev_sectors;
	return le16_to_cpu(e->slot) < conf->geom.n &&
	       !(flags & ~KM_JENT_REPL) &&
	       !(sector & KM_ROW_MASK) && pages &&
	       pages <= KM_J_MAX_PAGES &&
	       sector + ((u64)pages << (PAGE_SHIFT - 9)) <=
	       conf->mddev->dev_sectors;
}

/* Whether the header read is the record @sc expects: its page count. */
static int km_j_header_ok(struct km_j_scan *sc)
{
	struct km_jhdr *h = page_address(sc->hdr);
	struct km_conf *conf = sc->j->conf;
	unsigned int ne = le32_to_cpu(h->entries);
	unsigned int nr = le32_to_cpu(h->pages), sum = 0, i;

	if (le32_to_cpu(h->magic) != KM_J_MAGIC ||
	    le32_to_cpu(h->version) != KM_J_VERSION ||
	    memcmp(h->uuid, conf->mddev->uuid, sizeof(h->uuid)) ||
	    le64_to_cpu(h->seq) != sc->seq || !ne ||
	    ne > KM_J_MAX_ENTRIES || (!nr && !sc->j->members) ||
	    nr > KM_J_MAX_PAGES ||
	    sc->pos + km_j_len(nr) > sc->j->size ||
	    le64_to_cpu(h->hdr_csum) != km_j_hdr_csum(h, ne))
		return -1;
	for (i = 0; i < ne; i++) {
		if (!km_j_entry_ok(sc->j, &h->ent[i]))
			return -1;
		if (le16_to_cpu(h->ent[i].flags) != KM_JENT_RECOMPUTE)
			sum += le32_to_cpu(h->ent[i].pages);
	}
	return sum == nr ? nr : -1;
}

/* Read the record at sc->pos whole; its page count, or -1 if it is not. */
static int km_j_read_record(struct km_j_scan *sc)
{
	struct km_jhdr *h = page_address(sc->hdr);
	sector_t at = sc->j->base + KM_J_SUPER_SECTORS + sc->pos;
	int nr;

	if (!km_j_io(sc->j->rdev, at, &sc->hdr, 1, REQ_OP_READ))
		return -1;
	nr = km_j_header_ok(sc);
	if (nr < 0)
		return -1;
	if (!km_j_io(sc->j->rdev, at + km_j_len(0), sc->pages, nr,
		     REQ_OP_READ))
		return -1;
	if (km_j_data_csum(sc->pages, nr, sc->seq) !=
	    le64_to_cpu(h->data_csum))
		return -1;
	return nr;
}

/* Write the record just read to the members it names. */
static void km_j_apply(struct km_j_scan *sc)
{
	struct km_jhdr *h = page_address(sc->hdr);
	struct km_conf *conf = sc->j->conf;
	unsigned int i, at = 0;

	for (i = 0; i < le32_to_cpu(h->entries); i++) {
		struct km_jent *e = &h->ent[i];
		unsigned int n = le32_to_cpu(e->pages);
		bool repl = le16_to_cpu(e->flags) & KM_JENT_REPL;
		struct md_rdev *rdev;

		if (le16_to_cpu(e->flags) == KM_JENT_RECOMPUTE) {
			sc->recomputed_rows +=
				km_mlog_recompute(sc->j, le64_to_cpu(e->sector),
						  n, &sc->skipped_rows);
			continue;
		}
		rdev = km_j_get_member(conf, le16_to_cpu(e->slot), repl);
		if (rdev) {
			if (km_j_io(rdev, le64_to_cpu(e->sector),
				    sc->pages + at, n, REQ_OP_WRITE))
				sc->pages_written += n;
			else
				sc->write_errors++;
			rdev_dec_pending(rdev, conf->mddev);
		}
		at += n;
	}
}

/*
 * Write every record from the checkpoint on to the members again, in
 * order, until one is missing or torn; sc->pos and sc->seq end after the
 * last one.
 */
static void km_j_replay(struct km_j_scan *sc)
{
	for (;;) {
		int nr = km_j_read_record(sc);

		/* a record that would not fit before the end went to 0 */
		if (nr < 0 && sc->pos) {
			sector_t pos = sc->pos;

			sc->pos = 0;
			nr = km_j_read_record(sc);
			if (nr < 0)
				sc->pos = pos;
		}
		if (nr < 0)
			return;
		km_j_apply(sc);
		sc->records++;
		sc->pos += km_j_len(nr);
		sc->seq++;
		if (sc->pos >= sc->j->size)
			sc->pos = 0;
	}
}

static int km_j_alloc_scan(struct km_j_scan *sc)
{
	int i;

	sc->hdr = alloc_page(GFP_KERNEL);
	sc->pages = kcalloc(KM_J_MAX_PAGES, sizeof(*sc->pages), GFP_KERNEL);
	if (!sc->hdr || !sc->pages)
		return -ENOMEM;
	for (i = 0; i < KM_J_MAX_PAGES; i++) {
		sc->pages[i] = alloc_page(GFP_KERNEL);
		if (!sc->pages[i])
			return -ENOMEM;
	}
	return 0;
}

static void km_j_free_scan(struct km_j_scan *sc)
{
	int i;

	if (sc->pages)
		for (i = 0; i < KM_J_MAX_PAGES; i++)
			if (sc->pages[i])
				__free_page(sc->pages[i]);
	kfree(sc->pages);
	if (sc->hdr)
		__free_page(sc->hdr);
}

/* The super's checkpoint, or false when the journal is new to this array. */
bool km_j_read_super(struct km_journal *j, sector_t *tail, u64 *seq)
{
	struct km_jsuper *s = page_address(j->super);

	if (!sync_page_io(j->rdev, j->base, PAGE_SIZE, j->super, REQ_OP_READ,
			  false))
		return false;
	if (le32_to_cpu(s->magic) != KM_J_SUPER_MAGIC ||
	    le32_to_cpu(s->version) != KM_J_VERSION ||
	    memcmp(s->uuid, j->conf->mddev->uuid, sizeof(s->uuid)) ||
	    le64_to_cpu(s->csum) != km_j_super_csum(s) ||
	    le64_to_cpu(s->tail) >= j->size)
		return false;
	*tail = le64_to_cpu(s->tail);
	*seq = le64_to_cpu(s->seq);
	return true;
}

/*
 * Make the members agree with the journal: replay what the checkpoint has
 * not covered, flush the members, and start the log after it.
 */
int km_j_recover(struct km_journal *j)
{
	struct mddev *mddev = j->conf->mddev;
	struct km_j_scan sc = { .j = j };
	int ret;

	if (!km_j_read_super(j, &sc.pos, &sc.seq)) {
		/* a new journal: a fresh sequence, nothing to replay */
		sc.pos = 0;
		sc.seq = get_random_u64() >> 1;
		pr_info("md/km:%s: %s on %pg: new, %llu KiB of log\n",
			mdname(mddev), j->members ? "member log" : "journal",
			j->rdev->bdev, (unsigned long long)j->size / 2);
	} else {
		ret = km_j_alloc_scan(&sc);
		if (ret) {
			km_j_free_scan(&sc);
			return ret;
		}
		km_j_replay(&sc);
		km_j_free_scan(&sc);
		if (sc.records)
			km_j_flush_members(j->conf);
		atomic64_add(sc.records, &j->stats.replayed_records);
		atomic64_add(sc.pages_written, &j->stats.replayed_pages);
		atomic64_add(sc.recomputed_rows, &j->stats.recomputed_rows);
		atomic64_add(sc.skipped_rows, &j->stats.skipped_rows);
		pr_info("md/km:%s: %s on %pg: replayed %u records (%u pages written, %u rows' parity recomputed, %u write errors)\n",
			mdname(mddev), j->members ? "member log" : "journal",
			j->rdev->bdev, sc.records, sc.pages_written,
			sc.recomputed_rows, sc.write_errors);
		if (sc.skipped_rows)
			pr_warn("md/km:%s: member log: %u rows' parity not recomputed: a data member is missing; those stripes may not match their parity\n",
				mdname(mddev), sc.skipped_rows);
	}
	j->head = j->tail = sc.pos;
	j->next_seq = sc.seq;
	return km_j_write_super(j, j->tail, j->next_seq);
}

/* The array's journal member (not Faulty), or NULL. */
static struct md_rdev *km_j_find(struct mddev *mddev)
{
	struct md_rdev *rdev;

	rdev_for_each(rdev, mddev)
		if (test_bit(Journal, &rdev->flags) &&
		    !test_bit(Faulty, &rdev->flags))
			return rdev;
	return NULL;
}

void km_j_free(struct km_journal *j)
{
	int i;

	for (i = 0; i < KM_J_RECORDS; i++) {
		if (j->recs[i].hdr)
			__free_page(j->recs[i].hdr);
		kfree(j->recs[i].pages);
	}
	if (j->super)
		__free_page(j->super);
	kfree(j);
}

/* The record pool: every record's header page and page list, up front. */
static int km_j_alloc_records(struct km_journal *j)
{
	int i;

	for (i = 0; i < KM_J_RECORDS; i++) {
		struct km_jrec *rec = &j->recs[i];

		rec->j = j;
		rec->hdr = alloc_page(GFP_KERNEL);
		rec->pages = kcalloc(j->max_pages, sizeof(*rec->pages),
				     GFP_KERNEL);
		if (!rec->hdr || !rec->pages)
			return -ENOMEM;
		list_add_tail(&rec->node, &j->pool);
	}
	return 0;
}

/*
 * The largest record this journal's log takes: a quarter of the log, at
 * most KM_J_MAX_PAGES; 0 when even one row's writes (to every member and
 * replacement) would not fit.
 */
static unsigned int km_j_max_pages(struct km_conf *conf, sector_t size)
{
	u64 quarter = (size >> (PAGE_SHIFT - 9)) / 4;

	if (quarter < 2 * conf->geom.n + 1)
		return 0;
	return min_t(u64, quarter - 1, KM_J_MAX_PAGES);
}

/*
 * A log of @size sectors on @rdev, its super at data sector @base, with
 * its record pool; not started.  NULL when out of memory.
 */
struct km_journal *km_j_alloc(struct km_conf *conf, struct md_rdev *rdev,
			      sector_t base, sector_t size)
{
	struct km_journal *j = kzalloc(sizeof(*j), GFP_KERNEL);

	if (!j)
		return NULL;
	j->conf = conf;
	j->rdev = rdev;
	j->base = base;
	j->size = size;
	j->max_pages = km_j_max_pages(conf, size);
	spin_lock_init(&j->lock);
	INIT_LIST_HEAD(&j->records);
	INIT_LIST_HEAD(&j->pool);
	INIT_LIST_HEAD(&j->backlog);
	bio_list_init(&j->ready);
	mutex_init(&j->cp_mutex);
	INIT_WORK(&j->cp_work, km_j_cp_work);
	j->super = alloc_page(GFP_KERNEL);
	if (!j->super || km_j_alloc_records(j)) {
		km_j_free(j);
		return NULL;
	}
	return j;
}

/*
 * Start the journal on @rdev: recover (@fresh: a journal added now, whose
 * contents are not replayed), then take writes.
 */
static int km_j_start(struct km_conf *conf, struct md_rdev *rdev, bool fresh)
{
	sector_t size = (rdev->sectors - min_t(sector_t, rdev->sectors,
					       KM_J_SUPER_SECTORS)) &
			~(sector_t)KM_ROW_MASK;
	struct km_journal *j;
	int ret;

	if (!km_j_max_pages(conf, size)) {
		pr_err("md/km:%s: journal %pg is too small: %llu KiB, a km journal of %d members needs %d KiB\n",
		       mdname(conf->mddev), rdev->bdev,
		       (unsigned long long)rdev->sectors / 2, conf->geom.n,
		       RAIDKM_JOURNAL_MIN_KIB(conf->geom.n));
		return -EINVAL;
	}
	j = km_j_alloc(conf, rdev, 0, size);
	if (!j)
		return -ENOMEM;
	if (fresh) {
		j->head = j->tail = 0;
		j->next_seq = get_random_u64() >> 1;
		ret = km_j_write_super(j, 0, j->next_seq);
	} else {
		ret = km_j_recover(j);
	}
	if (ret) {
		pr_err("md/km:%s: journal %pg cannot be started: %d\n",
		       mdname(conf->mddev), rdev->bdev, ret);
		km_j_free(j);
		return ret;
	}
	rdev->raid_disk = 0;
	conf->journal = j;
	return 0;
}

/*
 * At run: an array whose superblocks say it has a journal starts it
 * (replaying it first), or, with the journal missing, runs read-only as
 * md raid5 does.  Returns an error only where the array must not start.
 */
int km_journal_init(struct km_conf *conf)
{
	struct mddev *mddev = conf->mddev;
	struct md_rdev *rdev = km_j_find(mddev);
	int ret;

	if (km_mlog_sectors(mddev)) {
		if (rdev || test_bit(MD_HAS_JOURNAL, &mddev->flags)) {
			pr_err("md/km:%s: an array has a journal device or a member log, not both\n",
			       mdname(mddev));
			return -EINVAL;
		}
		return km_mlog_init(conf);
	}
	if (!rdev && !test_bit(MD_HAS_JOURNAL, &mddev->flags))
		return 0;
	if (!rdev) {
		pr_warn("md/km:%s: the journal device is missing: read-only until one is added (mdadm --add-journal) or consistency_policy is set to resync\n",
			mdname(mddev));
		mddev->ro = 1;
		set_disk_ro(mddev->gendisk, 1);
		return 0;
	}
	if (conf->prev) {
		pr_err("md/km:%s: a reshape cannot run with a journal\n",
		       mdname(mddev));
		return -EINVAL;
	}
	ret = km_j_start(conf, rdev, false);
	/*
	 * As md raid5 does: a clean array with a journal stays "clean" in
	 * its superblocks while it writes, since after a crash the replay
	 * makes it consistent and no resync is needed (md has no bitmap
	 * for an array with a journal).
	 */
	if (!ret && RKM_RESYNC_OFFSET(mddev) == MaxSector)
		set_bit(MD_JOURNAL_CLEAN, &mddev->flags);
	return ret;
}

/* Stopping, or quiesced: take a last checkpoint. */
void km_journal_quiet(struct km_conf *conf)
{
	struct km_journal *j = conf->journal;

	if (!j)
		return;
	flush_work(&j->cp_work);
	km_j_checkpoint(j);
}

void km_journal_exit(struct km_conf *conf)
{
	struct km_journal *j = conf->journal;

	if (!j)
		return;
	cancel_work_sync(&j->cp_work);
	if (j->members)
		cancel_work_sync(&j->move_work);
	/* km_journal_show() reads it under mddev->lock */
	spin_lock(&conf->mddev->lock);
	conf->journal = NULL;
	spin_unlock(&conf->mddev->lock);
	km_j_free(j);
}

/* md_error on the journal member: writes fail from now on. */
void km_journal_error(struct km_conf *conf, struct md_rdev *rdev)
{
	struct km_journal *j = conf->journal;

	set_bit(Faulty, &rdev->flags);
	clear_bit(In_sync, &rdev->flags);
	if (j && j->rdev == rdev)
		WRITE_ONCE(j->failed, true);
	pr_crit("md/km:%s: journal %pg failed: writes to the array fail until a journal is added (mdadm --add-journal) or consistency_policy is set to resync\n",
		mdname(conf->mddev), rdev->bdev);
	set_mask_bits(&conf->mddev->sb_flags, 0, BIT(MD_SB_CHANGE_DEVS));
	md_wakeup_thread(conf->mddev->thread);
}

/* Whether every record's member writes have ended (j->lock held). */
static bool km_j_idle(struct km_journal *j)
{
	struct km_jrec *rec;

	list_for_each_entry(rec, &j->records, node)
		if (!km_j_record_done(rec))
			return false;
	return list_empty(&j->backlog) && bio_list_empty(&j->ready);
}

/* Let a failed journal go, once nothing of it is in flight. */
static int km_j_retire(struct km_conf *conf)
{
	struct km_journal *j = conf->journal;
	int ret;

	if (!READ_ONCE(j->failed))
		return -EBUSY;
	spin_lock_irq(&j->lock);
	ret = km_j_idle(j) ? 0 : -EBUSY;
	spin_unlock_irq(&j->lock);
	if (!ret)
		km_journal_exit(conf);
	return ret;
}

/*
 * mdadm --add-journal: a journal for an array whose journal failed or is
 * missing, or that had none (md allows it only without a bitmap).  md has
 * suspended the array.  What the device holds is not replayed.
 */
int km_journal_add(struct km_conf *conf, struct md_rdev *rdev)
{
	struct mddev *mddev = conf->mddev;
	struct km_journal *j = conf->journal;
	int ret;

	if (conf->prev)
		return -EBUSY;
	if (j) {
		ret = km_j_retire(conf);
		if (ret)
			return ret;
	}
	ret = km_j_start(conf, rdev, true);
	if (ret)
		return ret;
	set_bit(MD_HAS_JOURNAL, &mddev->flags);
	if (RKM_RESYNC_OFFSET(mddev) == MaxSector)
		set_bit(MD_JOURNAL_CLEAN, &mddev->flags);
	set_mask_bits(&mddev->sb_flags, 0, BIT(MD_SB_CHANGE_DEVS));
	pr_info("md/km:%s: journal %pg added: writes are logged again\n",
		mdname(mddev), rdev->bdev);
	return 0;
}

/* mdadm --remove of the journal: only once it failed and went quiet. */
int km_journal_remove(struct km_conf *conf, struct md_rdev *rdev)
{
	struct km_journal *j = conf->journal;

	if (!j || j->rdev != rdev)
		return 0;
	if (atomic_read(&rdev->nr_pending))
		return -EBUSY;
	return km_j_retire(conf);
}

/*
 * consistency_policy = resync: an array whose journal failed and was
 * removed takes writes again, unprotected, as md raid5 allows.
 */
int km_journal_drop(struct km_conf *conf)
{
	struct mddev *mddev = conf->mddev;
	struct md_rdev *rdev;

	if (!test_bit(MD_HAS_JOURNAL, &mddev->flags))
		return -EINVAL;
	rdev_for_each(rdev, mddev)
		if (test_bit(Journal, &rdev->flags))
			return -EBUSY;	/* remove it first */
	clear_bit(MD_HAS_JOURNAL, &mddev->flags);
	clear_bit(MD_JOURNAL_CLEAN, &mddev->flags);
	set_mask_bits(&mddev->sb_flags, 0, BIT(MD_SB_CHANGE_DEVS));
	md_wakeup_thread(mddev->thread);
	pr_warn("md/km:%s: journal dropped: consistency by resync, the write hole is open\n",
		mdname(mddev));
	return 0;
}

static const char *km_j_state(struct km_conf *conf)
{
	struct km_journal *j = conf->journal;

	if (j && j->members && READ_ONCE(j->moving))
		return "moving";
	if (j && j->members && READ_ONCE(j->failed))
		return "unprotected";
	if (j)
		return READ_ONCE(j->failed) ? "failed" : "active";
	return test_bit(MD_HAS_JOURNAL, &conf->mddev->flags) ? "missing"
							     : "none";
}

/* /sys/block/mdX/md/km/journal */
ssize_t km_journal_show(struct km_conf *conf, char *page)
{
	struct km_journal *j = conf->journal;
	struct km_journal_stats *st;
	unsigned long flags;
	ssize_t len;
	u64 used;

	len = sysfs_emit(page, "state %s\n", km_j_state(conf));
	if (!j)
		return len;
	st = &j->stats;
	spin_lock_irqsave(&j->lock, flags);
	used = j->head - j->tail;
	spin_unlock_irqrestore(&j->lock, flags);
	len += sysfs_emit_at(page, len, "kind %s\ndevice %pg\n",
			     j->members ? "members" : "device", j->rdev->bdev);
	len += sysfs_emit_at(page, len, "log_kib %llu\nused_kib %llu\n",
			     (unsigned long long)j->size / 2,
			     (unsigned long long)used / 2);
	len += sysfs_emit_at(page, len,
			     "records %lld\npages %lld\ncheckpoints %lld\nspace_waits %lld\nreplayed_records %lld\nreplayed_pages %lld\n",
			     atomic64_read(&st->records),
			     atomic64_read(&st->pages),
			     atomic64_read(&st->checkpoints),
			     atomic64_read(&st->space_waits),
			     atomic64_read(&st->replayed_records),
			     atomic64_read(&st->replayed_pages));
	if (j->members)
		len += sysfs_emit_at(page, len,
				     "light_records %lld\nbitmap_writes %lld\nrecomputed_rows %lld\nskipped_rows %lld\nmoves %lld\n",
				     atomic64_read(&st->light_records),
				     atomic64_read(&st->bitmap_writes),
				     atomic64_read(&st->recomputed_rows),
				     atomic64_read(&st->skipped_rows),
				     atomic64_read(&st->moves));
	return len;
}
