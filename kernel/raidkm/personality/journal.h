/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The write log's records, shared by its two homes: a journal device
 * (journal.c) and the members' own log areas (member_log.c).  See
 * journal.c for the log's format and Documentation/personality.rst.
 */
#ifndef RKM_KM_JOURNAL_H
#define RKM_KM_JOURNAL_H

#include "km.h"

#define KM_J_MAGIC		0x524a4d4bu	/* "KMJR": a record */
#define KM_J_SUPER_MAGIC	0x534a4d4bu	/* "KMJS": the super */
#define KM_J_VERSION		1
#define KM_J_SUPER_SECTORS	(PAGE_SIZE >> 9)
#define KM_J_RECORDS		64	/* records in the pool */
#define KM_J_MAX_PAGES		1024	/* pages of one record, at most */

struct km_jsuper {
	__le32 magic;
	__le32 version;
	u8 uuid[16];
	__le64 tail;		/* log sector of the checkpoint */
	__le64 seq;		/* the sequence number expected there */
	__le64 csum;		/* of the fields above */
};

/* One member write: @pages pages to @slot's rows from member @sector. */
struct km_jent {
	__le64 sector;
	__le16 slot;		/* raid_disk */
	__le16 flags;		/* KM_JENT_REPL */
	__le32 pages;
};

#define KM_JENT_REPL		1	/* for the slot's replacement */
/*
 * Member log only: a full-stripe write of an optimal array, logged
 * without its pages.  @pages rows of every member from @sector: their
 * parity is recomputed from the data on the members at replay.
 */
#define KM_JENT_RECOMPUTE	2

struct km_jhdr {
	__le32 magic;
	__le32 version;
	u8 uuid[16];
	__le64 seq;
	__le32 entries;
	__le32 pages;		/* after the header, in entry order */
	__le64 data_csum;	/* of the pages, seeded with seq */
	__le64 hdr_csum;	/* of the header and entries, this 0 */
	struct km_jent ent[];
};

#define KM_J_MAX_ENTRIES \
	((PAGE_SIZE - sizeof(struct km_jhdr)) / sizeof(struct km_jent))

enum km_jrec_state {
	KM_JR_FREE,		/* in the pool */
	KM_JR_OPEN,		/* taking items */
	KM_JR_CLOSED,		/* placed in the log, to be written */
	KM_JR_WRITING,		/* its bios in flight */
	KM_JR_LOGGED,		/* on the journal, members' writes held */
	KM_JR_RELEASED,		/* members' writes let go */
};

struct km_jrec {
	struct list_head node;		/* pool, or journal->records */
	struct km_journal *j;
	enum km_jrec_state state;
	u64 seq;
	u64 start;			/* linear log sector */
	unsigned int entries, nr;	/* entries, pages */
	int users;			/* items whose member writes run */
	bool ioerr;			/* a bio of it failed (member log) */
	struct md_rdev *rdev;		/* where its bios went */
	atomic_t bios;			/* its own bios in flight */
	struct page *hdr;
	struct page **pages;		/* KM_J_MAX_PAGES */
	struct bio_list held;		/* the members' writes */
};

struct km_journal {
	struct km_conf *conf;
	struct md_rdev *rdev;		/* the journal, or the log member */
	sector_t base;			/* rdev's data sector of the super */
	sector_t size;			/* log sectors */
	bool members;			/* a member log (member_log.c) */
	bool moving;			/* member log: its member failed */
	struct work_struct move_work;	/* member_log.c */
	unsigned int max_pages;		/* of one record, for this log */
	spinlock_t lock;
	struct list_head records;	/* oldest first */
	struct list_head pool;		/* free records */
	struct km_jrec *open;
	struct list_head backlog;	/* items waiting for a record */
	struct bio_list ready;		/* member writes let go */
	u64 next_seq;
	u64 head;			/* linear: where the next record goes */
	u64 tail;			/* linear: the checkpoint */
	bool failed;
	bool want_cp;
	struct mutex cp_mutex;
	struct work_struct cp_work;
	struct page *super;
	struct km_jrec recs[KM_J_RECORDS];
	struct km_journal_stats stats;
};

/* journal.c, for member_log.c */
struct km_journal *km_j_alloc(struct km_conf *conf, struct md_rdev *rdev,
			      sector_t base, sector_t size);
void km_j_free(struct km_journal *j);
int km_j_write_super(struct km_journal *j, u64 tail, u64 seq);
bool km_j_read_super(struct km_journal *j, sector_t *tail, u64 *seq);
int km_j_recover(struct km_journal *j);
bool km_j_place(struct km_journal *j, struct km_jrec *rec);
void km_j_free_record(struct km_journal *j, struct km_jrec *rec);
bool km_j_record_done(struct km_jrec *rec);
bool km_j_io(struct md_rdev *rdev, sector_t sector, struct page **pages,
	     unsigned int n, blk_opf_t op);
struct md_rdev *km_j_get_member(struct km_conf *conf, int i, bool repl);
void km_j_flush_members(struct km_conf *conf);

/* member_log.c, for journal.c */
unsigned int km_mlog_recompute(struct km_journal *j, sector_t lo,
			       unsigned int rows, unsigned int *skipped);

#endif /* RKM_KM_JOURNAL_H */
