/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The km md personality: private structures shared by its files.
 *
 *   layout.c  geometry (freestanding)      plan.c    I/O planning (freestanding)
 *   stripe.c  stripe cache                 handle.c  per-stripe state machine
 *   request.c bios from md                 sync.c    resync, recovery, check
 *   sysfs.c   /sys/block/mdX/md/km/        km.c      the md_personality table
 *   replace.c hot replace (members with a replacement)
 *   discard.c TRIM of whole stripes        badblocks.c bad-block records
 *   reshape.c restriping onto a new shape (grow k, grow m)
 *   takeover.c md raid6 becomes km in place
 *   wide_read.c degraded reads by row ranges, one decode job per range
 *   write_gen.c the coherence rule between member writes and wide reads
 *   claim.c   member rows taken away from the stripe cache (discard, sync)
 *   wide_sync.c rebuild, resync and check by windows of many rows
 *   wide_write.c full stripes: one encode job and one bio per member
 *   wide_buf.c  the wide paths' buffers: arena runs, carving, bio pages
 *   read_verify.c reads checked against parity (km/read_verify)
 *   journal.c the write journal: write rounds logged before the members
 *   member_log.c the same log kept on the members (no journal device)
 *
 * See Documentation/personality.rst.
 */
#ifndef RKM_KM_H
#define RKM_KM_H

#include <linux/types.h>
#include <linux/spinlock.h>
#include <linux/wait.h>
#include <linux/list.h>
#include <linux/bio.h>
#include <linux/workqueue.h>
#include <linux/mempool.h>
#include "../compat/compat.h"
#include "../rkm_job.h"
#include "layout.h"
#include "plan.h"

/* One stripe row: one page per member, at the same member offset. */
#define KM_ROW_SECTORS		(PAGE_SIZE >> 9)
#define KM_ROW_MASK		((sector_t)KM_ROW_SECTORS - 1)

#define KM_STRIPE_HASH_BITS	10
#define KM_DEFAULT_STRIPES	256
#define KM_CACHE_BYTES		(16 << 20)	/* default cache memory */
#define KM_MIN_STRIPES		16
#define KM_MAX_STRIPES		32768

/* Bounds of the largest bio md passes in (sectors). */
#define KM_MIN_REQ_SECTORS	2048		/* 1 MiB */
#define KM_MAX_REQ_SECTORS	16384		/* 8 MiB */

/* A part of one bio that falls into one member page of a stripe row. */
struct km_piece {
	struct km_piece *next;
	struct bio *bio;
	sector_t sector;	/* array sector the piece starts at */
	unsigned int off;	/* byte offset in the member page */
	unsigned int len;	/* bytes */
};

/* struct km_dev.flags */
enum {
	KM_DEV_UPTODATE,	/* page holds the chunk's current contents */
	KM_DEV_READ_ERR,	/* member read failed: rebuild and rewrite */
	KM_DEV_READ_ALONE,	/* a read failed: read again unmerged first */
	KM_DEV_WRITE_ERR,	/* the last write of this page failed */
	KM_DEV_WRITING,		/* a write of this page is in flight */
	KM_DEV_BAD_ROW,		/* with WRITE_ERR: the member's row is
				 * recorded bad (badblocks.c), not written
				 */
};

/* One member's page of a stripe row, indexed by codec chunk number. */
struct km_dev {
	struct page *page;
	struct page *orig;		/* data chunks: old contents for delta */
	struct km_piece *toread;	/* reads waiting for this page */
	struct km_piece *towrite;	/* writes waiting for the next round */
	struct km_piece *written;	/* writes of the round in progress */
	unsigned long flags;
	int member;			/* raid_disk holding this chunk */
	struct md_rdev *rdev;		/* member of the I/O in flight */
	struct bio bio;
	struct bio_vec vec;
	struct md_rdev *rrdev;		/* replacement being written */
	struct bio rbio;
	struct bio_vec rvec;
	struct md_rdev *bb_rdev;	/* written over its bad-block record */
};

/* struct km_stripe.state */
enum {
	KM_SH_ON_LIST,		/* queued for the handler */
	KM_SH_SYNC,		/* md asked for this row to be synced */
	KM_SH_FUA,		/* the write round carries REQ_FUA */
	KM_SH_WRITE_GEN,	/* member writes counted in write_gen.c */
	KM_SH_JOURNAL,		/* member writes wait for the journal */
};

/* What is in flight for a stripe (struct km_stripe.phase). */
enum km_phase {
	KM_PH_IDLE = 0,
	KM_PH_READ,		/* member reads */
	KM_PH_DECODE,		/* decode job rebuilding failed chunks */
	KM_PH_COMPUTE,		/* encode or delta job of a write round */
	KM_PH_CHECK,		/* check job of a sync round */
	KM_PH_LOCATE,		/* locate job of a repair */
	KM_PH_FIX,		/* decode or encode job of a repair */
	KM_PH_WRITE,		/* member writes */
};

struct km_stripe;

/*
 * The kind of work a stripe is doing, one round at a time (struct
 * km_stripe.round; NULL: none, only waiting reads are served).  handle.c
 * reads or decodes what ->need() names, serves waiting reads, then calls
 * ->act(), which starts a coding job or the member writes; ->written()
 * runs when those writes ended, and the round is over.
 */
struct km_round {
	const char *name;
	km_mask_t (*need)(struct km_stripe *sh, km_mask_t failed,
			  km_mask_t uptodate);
	void (*act)(struct km_stripe *sh, km_mask_t writable);
	void (*written)(struct km_stripe *sh);
};

extern const struct km_round km_round_rewrite;	/* chunks that had read errors */
extern const struct km_round km_round_sync;	/* resync, recovery, check, repair */
extern const struct km_round km_round_write;	/* the drained write bios */

enum km_sync_mode {
	KM_SYNC_RESYNC = 1,
	KM_SYNC_RECOVER,
	KM_SYNC_CHECK,
	KM_SYNC_REPAIR,
};

struct km_conf;
struct km_gen;
struct km_jrec;
struct km_journal;
struct km_jent;

/*
 * Member writes to be logged together (journal.c): a write round of a
 * stripe, or a wide write.  ->entry() says where @bio goes: it fills the
 * entry's slot, member sector and flags.
 */
struct km_jitem {
	struct list_head node;		/* on the journal's backlog */
	struct bio_list bios;		/* the member writes it holds */
	struct km_jrec *rec;		/* the record that logged them */
	void (*entry)(struct km_jitem *it, struct bio *bio,
		      struct km_jent *e);
	/* member log: log one KM_JENT_RECOMPUTE entry, not the pages */
	bool recompute;
	sector_t rsector;		/* its first member row */
	unsigned int rrows;		/* its rows (pages per member) */
};

struct km_stripe {
	struct hlist_node hash;
	struct list_head lru;		/* handle list or inactive list */
	struct km_conf *conf;
	sector_t sector;		/* member sector of the row */
	sector_t cstripe;		/* chunk stripe number */
	unsigned long state;
	atomic_t count;			/* references */
	atomic_t pending;		/* member I/Os and jobs in flight */
	enum km_phase phase;
	const struct km_round *round;
	enum km_sync_mode sync_mode;
	int sync_sectors;		/* what md was told the step covers */
	int write_kind;			/* enum km_write_kind of the round */
	km_mask_t written;		/* data chunks the round writes */
	km_mask_t failed;		/* chunks unreadable this round */
	km_mask_t fixed;		/* repair: chunks rewritten */
	bool bitmap_ok;			/* bitmap may clear the round's bits */
	void *scratch;			/* m pages for check/locate */
	struct rkm_job job;
	struct work_struct job_work;	/* runs the job off the md thread */
	struct km_jitem jitem;		/* journal.c: the round's writes */
	struct km_dev dev[];		/* n of them */
};

/* Front of a direct-read clone (conf->bio_set's front_pad). */
struct km_read_ctx {
	struct km_conf *conf;
	struct md_rdev *rdev;
	struct bio bio;
};

/* One member slot. */
struct km_disk {
	struct md_rdev __rcu *rdev;
	struct md_rdev __rcu *replacement;	/* hot replace: its successor */
};

/* Why a wide read went to the row path (struct km_wide_stats.fallbacks) */
enum km_wide_fallback {
	KM_WF_READ_ERROR,	/* a member read failed */
	KM_WF_BAD_BLOCK,	/* a bad-block record in the range */
	KM_WF_RACE,		/* a write in the same chunk stripe */
	KM_WF_ALLOC,		/* no memory for the range */
	KM_WF_RESHAPE,		/* a reshape is running */
	KM_WF_JOB,		/* the decode job failed */
	KM_WF_LOST,		/* more than m chunks lost in the range */
	KM_WF_LOG,		/* its pages would not fit one log record */
	KM_WF_NR,
};

struct km_wide_stats {
	atomic64_t reads;		/* wide reads served */
	atomic64_t bytes;		/* bytes they delivered */
	atomic64_t rows;		/* rows they decoded */
	atomic64_t member_reads;	/* member bios they sent */
	atomic64_t member_bytes;
	atomic64_t waits;		/* waited for a free arena run */
	atomic64_t fallbacks[KM_WF_NR];
	atomic64_t writes;		/* full-stripe ranges, one job each */
	atomic64_t write_stripes;	/* chunk stripes they wrote */
	atomic64_t write_member_writes;	/* member bios they sent */
	atomic64_t write_fallbacks[KM_WF_NR];
};

/* Why a sync window went to the row path (struct km_wsync_stats) */
enum km_wsync_fallback {
	KM_WS_READ_ERROR,	/* a member read failed */
	KM_WS_WRITE_ERROR,	/* a member write failed */
	KM_WS_BAD_BLOCK,	/* a bad-block record in the window */
	KM_WS_MISMATCH,		/* check: the window is not consistent */
	KM_WS_ALLOC,		/* no memory for the window */
	KM_WS_JOB,		/* the decode or check job failed */
	KM_WS_LOST,		/* more than m chunks lost */
	KM_WS_DEGRADED,		/* resync or check of a degraded window */
	KM_WS_GONE,		/* a member went away */
	KM_WS_NR,
};

/* Sync window sizes in rows: 1-15, 16-63, 64-127, 128-255, 256+ */
#define KM_WS_SIZES		5

struct km_wsync_stats {
	atomic64_t windows;		/* windows started (member I/O sent) */
	atomic64_t rows;		/* their rows */
	atomic64_t whole;		/* windows synced without the row path */
	atomic64_t member_bios;		/* member bios they sent */
	atomic64_t member_bytes;
	atomic64_t jobs;		/* decode and check jobs */
	atomic64_t sizes[KM_WS_SIZES];	/* windows started, by rows */
	atomic64_t fallbacks[KM_WS_NR];	/* windows gone to rows */
};

struct km_stats {
	atomic64_t reconstruct_reads;
	atomic64_t rmw_writes;
	atomic64_t rcw_writes;
	atomic64_t full_stripe_writes;
	atomic64_t read_errors_corrected;
	atomic64_t scrub_repaired;
	atomic64_t bad_blocks_recorded;
	atomic64_t bad_blocks_cleared;
	atomic64_t discards;
};

/* Verified reads (read_verify.c) */
struct km_verify_stats {
	atomic64_t reads;		/* reads checked against parity */
	atomic64_t mismatches;		/* of them, parity mismatches */
	atomic64_t corrected;		/* chunks located and rebuilt */
	atomic64_t failed;		/* reads failed on a mismatch */
	atomic64_t unverified;		/* reads served by rows instead */
	atomic64_t raced;		/* of them, writes kept meeting */
	atomic64_t retried;		/* member reads done again: a write met */
};

/* The write journal (journal.c) */
struct km_journal_stats {
	atomic64_t records;		/* records written */
	atomic64_t pages;		/* their pages */
	atomic64_t checkpoints;		/* checkpoints written */
	atomic64_t space_waits;		/* rounds that waited for room */
	atomic64_t replayed_records;	/* at assembly */
	atomic64_t replayed_pages;
	atomic64_t recomputed_rows;	/* member log: at assembly */
	atomic64_t skipped_rows;	/* member log: a data member missing */
	atomic64_t moves;		/* member log: to another member */
	atomic64_t light_records;	/* member log: recompute entries only */
	atomic64_t bitmap_writes;	/* member log: left to the bitmap */
};

/* Member rows [lo, hi) taken from the stripe cache (claim.c). */
struct km_claim {
	struct list_head node;		/* on conf->claims */
	sector_t lo, hi;
	int busy;			/* stripes there with references */
};

/*
 * The discard in progress (discard.c; one per array at a time): member
 * rows claim.lo..hi of every member, of whole chunk stripes.
 */
struct km_discard {
	struct bio *bio;		/* md's clone of the array's discard */
	struct km_piece *piece;		/* to hold its end (km_hold_write) */
	struct km_claim claim;
	bool queued;			/* for the md thread to submit */
	bool failed;			/* a member failed its discard */
	bool refused;			/* a member cannot discard: none sent */
	int busy;			/* stripes of [lo, hi) with references */
	atomic_t pending;
};

struct km_conf {
	struct mddev *mddev;
	struct km_geom geom;
	struct rkm_code *code;
	struct rkm_code *code_pq;	/* (k, 2), m >= 3: P+Q checks */
	struct km_disk *disks;		/* by raid_disk */

	spinlock_t lock;		/* stripe lists, hash, bio lists */
	struct hlist_head *hash;
	struct list_head handle_list;
	struct list_head inactive_list;
	int nr_stripes;			/* allocated */
	int max_stripes;		/* stripe_cache_size */
	atomic_t active_stripes;	/* stripes with references */
	wait_queue_head_t wait_for_stripe;
	wait_queue_head_t wait_for_quiescent;
	int quiesce;			/* 0, 2 while draining, 1 quiesced */
	atomic_t active_reads;		/* direct member reads, discards */
	struct bio_list deferred_writes;	/* md thread only */
	int fullsync;			/* resync everything, not the bitmap */
	int recovery_disabled;
	unsigned int discard_granularity;	/* bytes; 0: no discard */
	struct km_discard discard;	/* conf->lock; .bio NULL when free */
	struct list_head claims;	/* struct km_claim, conf->lock */

	struct kmem_cache *piece_cache;
	mempool_t *piece_pool;
	struct bio_set bio_set;		/* direct-read clones */

	spinlock_t retry_lock;
	struct bio_list retry_list;	/* direct reads that failed */
	/*
	 * Write pieces done while a superblock update is pending (a member
	 * just failed): their bios end only once md has recorded it, so no
	 * write is acknowledged that a crash could lose with the failure.
	 */
	spinlock_t held_lock;
	struct km_piece *held;
	struct work_struct retry_work;
	struct workqueue_struct *retry_wq;
	struct workqueue_struct *code_wq;	/* coding jobs, all CPUs */

	struct km_stats stats;
	struct km_wide_stats wide_stats;
	struct km_gen *gens;		/* write_gen.c */
	unsigned int wide_min_rows;	/* 0: wide reads off */
	struct bio_set wide_bio_set;	/* member bios of wide reads */
	struct bio_set wide_write_bio_set;	/* ... and of wide writes */
	unsigned int wide_write_max_stripes;	/* 0: full stripes by rows */
	wait_queue_head_t wide_run_wait;	/* an arena run was freed */
	spinlock_t wide_lock;
	struct list_head wide_waiting;	/* wide reads waiting for a run */
	struct work_struct wide_work;	/* starts them when runs free */
	unsigned int wsync_max_rows;	/* 0: sync by rows only */
	atomic_t wsync_inflight;	/* sync windows in flight */
	atomic_t wsync_pages;		/* and their buffer pages */
	wait_queue_head_t wsync_wait;	/* one of them ended */
	struct bio_set wsync_bio_set;	/* their member bios */
	struct km_wsync_stats wsync_stats;
	int verify_mode;		/* enum km_verify_level: read_verify */
	atomic_t verify_level;		/* what reads got when last looked */
	struct km_verify_stats verify_stats;
	struct km_journal *journal;	/* journal.c; NULL: none */
	struct rkm_job_stats job_stats;	/* offload counters (raidkmctl) */
	bool job_stats_registered;

	/*
	 * Reshape (reshape.c).  While one runs, mddev->private is the new
	 * shape's conf, ->prev the old shape's, and array sectors below
	 * ->reshape_progress are in the new shape.
	 */
	struct km_conf *prev;
	struct km_reshape *rs;		/* the window's buffers */
	sector_t reshape_progress;	/* conf->lock to change */
	bool new_offset;		/* members at new_data_offset */
	bool reshaping;			/* either conf of a reshape */
};

/* @rdev when it is there and not Faulty, else NULL. */
static inline struct md_rdev *km_live(struct md_rdev *rdev)
{
	return rdev && !test_bit(Faulty, &rdev->flags) ? rdev : NULL;
}

/*
 * End one of @conf's counted reads (direct reads, wide and verified
 * reads, sync windows, discards): the last wakes quiesce.
 */
static inline void km_leave(struct km_conf *conf)
{
	if (atomic_dec_and_test(&conf->active_reads))
		wake_up(&conf->wait_for_quiescent);
}

/* Where @conf's rows start on @rdev. */
static inline sector_t km_data_offset(struct km_conf *conf,
				      struct md_rdev *rdev)
{
	return conf->new_offset ? rdev->new_data_offset : rdev->data_offset;
}

/* journal.c */
int km_journal_init(struct km_conf *conf);
void km_journal_exit(struct km_conf *conf);
void km_journal_quiet(struct km_conf *conf);
bool km_journal_on(struct km_conf *conf);
bool km_journal_blocks_writes(struct km_conf *conf);
void km_journal_queue(struct km_conf *conf, struct km_jitem *it);
void km_journal_flush(struct km_conf *conf);
void km_journal_written(struct km_jitem *it);
void km_journal_stripe_item(struct km_stripe *sh);
void km_journal_item_init(struct km_jitem *it,
			  void (*entry)(struct km_jitem *it, struct bio *bio,
					struct km_jent *e));
void km_journal_entry(struct km_jent *e, sector_t sector, int slot,
		      bool repl);
unsigned int km_journal_max_pages(struct km_conf *conf);
void km_journal_error(struct km_conf *conf, struct md_rdev *rdev);
int km_journal_add(struct km_conf *conf, struct md_rdev *rdev);
int km_journal_remove(struct km_conf *conf, struct md_rdev *rdev);
int km_journal_drop(struct km_conf *conf);
ssize_t km_journal_show(struct km_conf *conf, char *page);

/* member_log.c */
sector_t km_mlog_sectors(struct mddev *mddev);
int km_mlog_init(struct km_conf *conf);
bool km_mlog_light(struct km_conf *conf);
bool km_mlog_bitmap_takes(struct km_conf *conf);
void km_mlog_catch_up(struct km_conf *conf);
void km_mlog_member_failed(struct km_conf *conf, struct md_rdev *rdev);
int km_mlog_add(struct km_conf *conf, struct md_rdev *rdev);
int km_mlog_remove(struct km_conf *conf, struct md_rdev *rdev);
int km_mlog_resize(struct km_conf *conf, sector_t sectors);
struct seq_file;
void km_mlog_status(struct seq_file *seq, struct km_conf *conf);

/* stripe.c */
int km_stripes_init(struct km_conf *conf);
void km_stripes_exit(struct km_conf *conf);
struct km_stripe *km_get_stripe(struct km_conf *conf, sector_t sector,
				bool noblock);
void km_put_stripe(struct km_stripe *sh);
void km_queue_stripe(struct km_stripe *sh);
void km_queue_stripe_plugged(struct km_stripe *sh);
struct km_stripe *km_next_stripe(struct km_conf *conf);
int km_set_cache_size(struct km_conf *conf, int size);
bool km_stripe_busy(struct km_stripe *sh);

/* handle.c */
bool km_hold_write(struct km_conf *conf, struct km_piece *p);
void km_handle_stripe(struct km_stripe *sh);
void km_daemon(struct md_thread *thread);
void km_release_held(struct km_conf *conf, bool force);
void km_job_work(struct work_struct *work);
km_mask_t km_piece_cover(struct km_piece *p);

/* request.c */
bool km_make_request(struct mddev *mddev, struct bio *bio);
void km_attach_bio(struct km_conf *conf, struct bio *bio, bool write);
void km_bitmap_sector(struct mddev *mddev, sector_t *offset,
		      unsigned long *sectors);
void km_retry_reads(struct work_struct *work);

/* write_gen.c */
#define KM_GEN_BITS		10
#define KM_GEN_BUCKETS		(1 << KM_GEN_BITS)
int km_gen_init(struct km_conf *conf);
void km_gen_exit(struct km_conf *conf);
void km_gen_write_begin(struct km_conf *conf, sector_t cstripe);
void km_gen_write_end(struct km_conf *conf, sector_t cstripe);
bool km_gen_read_begin(struct km_conf *conf, sector_t cstripe,
		       unsigned int *gen);
bool km_gen_read_valid(struct km_conf *conf, sector_t cstripe,
		       unsigned int gen);

/* wide_read.c */
#define KM_WIDE_DEFAULT_MIN_ROWS	2
#define KM_WIDE_MAX_PAGES		4096	/* buffers of one wide read */
int km_wide_init(struct km_conf *conf);
void km_wide_exit(struct km_conf *conf);
sector_t km_wide_sectors(struct km_conf *conf, sector_t sector, sector_t nr);
void km_wide_read(struct km_conf *conf, struct bio *bio);
void km_wide_race_window(void);
void km_wide_start_waiting(struct work_struct *work);
km_mask_t km_wide_lost(struct km_conf *conf, const struct km_span *s,
		       sector_t msector, int sectors, bool *bad);

/* Data chunks of span @s that its read delivers. */
static inline km_mask_t km_span_data(const struct km_span *s)
{
	return km_mask_all(s->dhi + 1) & ~km_mask_all(s->dlo);
}

/* Member sector of in-chunk sector @off of @s's chunk stripe. */
static inline sector_t km_span_msector(struct km_conf *conf,
				       const struct km_span *s, sector_t off)
{
	return (s->stripe << conf->geom.chunk_shift) + off;
}

/* wide_buf.c: the wide paths' buffers */
void *km_wide_own_buf(size_t bytes);
bool km_wide_run_fits(unsigned int pages);
void *km_wide_get_run(struct km_conf *conf, unsigned int pages, bool *arena);
void km_wide_put_run(struct km_conf *conf, void *run, unsigned int pages,
		     bool arena);
void km_wide_carve(void *run, unsigned int rows, km_mask_t which, int n,
		   void **buf);
struct page *km_wide_page(void *p, bool arena);
void km_wide_add_pages(struct bio *bio, void *addr, unsigned int pages,
		       bool arena);
struct bio *km_wide_member_bio(struct km_conf *conf, struct md_rdev *rdev,
			       blk_opf_t op, sector_t msector, void *buf,
			       unsigned int rows, bool arena);
void km_wide_fill(struct km_conf *conf, struct bio *bio,
		  const struct km_span *s, void *const *buf, km_mask_t which);
void km_wide_put_rdevs(struct km_conf *conf, struct md_rdev **rdev);

/* wide_write.c */
#define KM_WIDE_DEFAULT_WRITE_STRIPES	256
int km_wwrite_init(struct km_conf *conf);
sector_t km_wwrite_sectors(struct km_conf *conf, sector_t sector,
			   sector_t nr);
sector_t km_wwrite_head(struct km_conf *conf, sector_t sector);
void km_wwrite(struct km_conf *conf, struct bio *bio);

/* read_verify.c */
void km_verify_init(struct km_conf *conf);
void km_verify_note_level(struct km_conf *conf);
ssize_t km_verify_mode_show(struct km_conf *conf, char *page);
ssize_t km_verify_state_show(struct km_conf *conf, char *page);
int km_verify_set_mode(struct km_conf *conf, const char *page);
sector_t km_verify_sectors(struct km_conf *conf, sector_t sector,
			   sector_t nr);
void km_verify_read(struct km_conf *conf, struct bio *bio);

/* sync.c */
sector_t km_sync_request(struct mddev *mddev, sector_t sector_nr,
			 sector_t max_sector, int *skipped);
void km_sync_start_round(struct km_stripe *sh);
void km_sync_step(struct km_stripe *sh);
void km_sync_job_done(struct km_stripe *sh);
void km_sync_finish(struct km_stripe *sh, bool ok);

/* replace.c */
struct md_rdev *km_read_rdev(struct km_conf *conf, int member,
			     sector_t sector, int sectors);
bool km_slot_readable(struct km_conf *conf, int member, sector_t sector);
bool km_slot_writable(struct km_conf *conf, int member);
struct md_rdev *km_write_rdev(struct km_conf *conf, int member);
struct md_rdev *km_get_replacement(struct km_conf *conf, int member);
km_mask_t km_replacing_mask(struct km_stripe *sh);
int km_add_replacement(struct km_conf *conf, struct md_rdev *rdev, int first,
		       int last);
void km_promote_replacement(struct km_conf *conf, struct km_disk *p);
int km_replacement_active(struct km_conf *conf, struct km_disk *p);
bool km_slot_in_sync(struct km_disk *p);

/* discard.c */
unsigned int km_discard_granularity(struct km_conf *conf);
void km_discard(struct km_conf *conf, struct bio *bio);
void km_discard_submit(struct km_conf *conf);

/* claim.c */
bool km_row_claimed(struct km_conf *conf, sector_t sector);
void km_claim_wait_row(struct km_conf *conf, sector_t sector);
void km_claim_rows(struct km_conf *conf, struct km_claim *c, sector_t lo,
		   sector_t hi);
void km_claim_release(struct km_conf *conf, struct km_claim *c);
void km_claim_stripe_active(struct km_conf *conf, struct km_stripe *sh);
void km_claim_stripe_idle(struct km_conf *conf, struct km_stripe *sh);

/* wide_sync.c */
#define KM_WSYNC_MAX_ROWS	(RAIDKM_MAX_LEN >> PAGE_SHIFT)
int km_wsync_init(struct km_conf *conf);
void km_wsync_exit(struct km_conf *conf);
sector_t km_wsync_window(struct km_conf *conf, sector_t sector,
			 sector_t max_sector, bool still_degraded,
			 int *skipped);

/* sync.c: the row path, for wide_sync.c's fallbacks */
void km_sync_row(struct km_conf *conf, sector_t row, int sectors);
enum km_sync_mode km_sync_mode_of(struct mddev *mddev);

/* badblocks.c */
bool km_rdev_bad(struct md_rdev *rdev, sector_t sector, int sectors);
void km_note_read_error(struct mddev *mddev, struct md_rdev *rdev,
			sector_t sector, unsigned int sectors, const char *how);
bool km_bb_write_ok(struct km_stripe *sh, int i, struct md_rdev *rdev,
		    bool repl);
bool km_bb_record(struct km_stripe *sh, int i, struct md_rdev *rdev);
void km_bb_write_done(struct km_stripe *sh);

/* sysfs.c */
extern const struct attribute_group km_attr_group;

/* km.c */
int km_calc_degraded(struct km_conf *conf);

/* km.c: a shape's checks and a conf, for run, takeover and reshape */
int km_check_shape(struct mddev *mddev, unsigned int layout, int chunk,
		   int n, int *m_out, int *algo_out);
struct km_conf *km_setup_conf(struct mddev *mddev, int n, int m, int algo);
void km_free_conf(struct km_conf *conf);
int km_set_limits(struct km_conf *conf);

/* reshape.c */
int km_check_reshape(struct mddev *mddev);
int km_start_reshape(struct mddev *mddev);
void km_finish_reshape(struct mddev *mddev);
int km_reshape_setup(struct km_conf *conf, struct km_conf *prev);
void km_reshape_teardown(struct km_conf *conf);
sector_t km_reshape_request(struct mddev *mddev, sector_t sector_nr,
			    sector_t max_sector, int *skipped);

/* takeover.c: md raid6 (left-symmetric) becomes km m=2 in place */
void *km_takeover(struct mddev *mddev);

/* handle.c helpers used by sync.c */
void km_submit_job(struct km_stripe *sh, enum rkm_job_op op, km_mask_t mask,
		   enum km_phase phase);
void km_submit_writes(struct km_stripe *sh, km_mask_t which, bool sync);
void km_submit_writes_to(struct km_stripe *sh, km_mask_t main,
			 km_mask_t repl, bool sync);
void km_invalidate(struct km_stripe *sh);

#endif /* RKM_KM_H */
