/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Kernel-internal interfaces of the offload path: the arena, the shared
 * control region, the misc device, generic netlink, the dispatcher, the
 * counters and sysfs.  Documentation/offload.rst describes the design.
 */
#ifndef RKM_OFFLOAD_H
#define RKM_OFFLOAD_H

#include <linux/types.h>
#include <linux/atomic.h>
#include "uapi/raidkm.h"
#include "place.h"

struct file;
struct page;
struct net;
struct vm_area_struct;
struct address_space;
struct netlink_ext_ack;
struct rkm_job;
struct rkm_job_stats;
struct rkm_attach_req;

/* ---- arena.c: the data arena and its page allocator ------------------- */
int rkm_arena_init(void);
void rkm_arena_exit(void);
u64 rkm_arena_bytes(void);
unsigned long rkm_arena_npages(void);
struct page *rkm_arena_page(unsigned long idx);
/* Arena offset of [ptr, ptr + len), or false when it is not arena memory */
bool rkm_arena_offset(const void *ptr, u32 len, u64 *off);
void rkm_arena_counts(u64 *total, u64 *free, u64 *fallbacks);

/* ---- arena_run.c: multi-page runs of the arena (rkm_arena.h) ---------- */
int rkm_arena_runs_init(void *base, unsigned long first, unsigned long count);
/* false while runs are still allocated */
bool rkm_arena_runs_exit(void);
void rkm_arena_run_counts(u64 *total, u64 *free, u64 *fallbacks);

/* ---- stage.c: the output staging pool --------------------------------- */
int rkm_stage_init(void);
void rkm_stage_exit(void);
u64 rkm_stage_bytes(void);
struct page *rkm_stage_page(unsigned long idx);
/*
 * A run of whole pages for @bytes of outputs: its kernel address, and in
 * *off its offset in the pool; NULL when the pool is full (counted).
 */
void *rkm_stage_alloc(u32 bytes, u64 *off);
void rkm_stage_free(void *p, u32 bytes);
/*
 * The run of a job the daemon failed or held when dropped (its GPU may
 * still write it): out of the pool until the daemon's file is released.
 */
void rkm_stage_hold(void *p, u32 bytes);
void rkm_stage_release_held(void);
/* memcpy() to or from staging, timed (stage_copy_bytes, stage_copy_ns) */
void rkm_stage_copy(void *dst, const void *src, u32 n);
void rkm_stage_counts(u64 *total, u64 *free, u64 *held, u64 *fallbacks,
		      u64 *bytes, u64 *ns);

/* ---- shm.c: header page, rings and descriptor slots -------------------- */
#define RKM_SHM_ENTRIES		256	/* ring entries == job slots */
#define RKM_SHM_MAX_STRIPES	16	/* stripes per ring entry, at most */
/* bytes of offsets per ring entry: 8 * stripes * (RAIDKM_MAX_N + RKM_MAX_K) */
#define RKM_SHM_DESC_SLOT	16384

int rkm_shm_init(void);
void rkm_shm_exit(void);
int rkm_shm_reset(u64 session);
struct raidkm_shm_hdr *rkm_shm_hdr(void);
void *rkm_shm_ptr(u64 off);
/* Parts of the mapping a VMA covers in full (rkm_shm_mmap's *covers) */
#define RKM_SHM_CTL		(1u << 0)	/* header, rings, descriptors */
#define RKM_SHM_INPUT		(1u << 1)	/* the arena: read-only */
#define RKM_SHM_STAGE		(1u << 2)	/* staging: writable */
#define RKM_SHM_ALL		(RKM_SHM_CTL | RKM_SHM_INPUT | RKM_SHM_STAGE)
int rkm_shm_mmap(struct vm_area_struct *vma, unsigned int *covers);
/* Revoke the arena pages from every mapping of @mapping (fencing) */
void rkm_shm_revoke(struct address_space *mapping);

/* ---- chardev.c: /dev/raidkm ------------------------------------------- */
int rkm_chardev_init(void);
void rkm_chardev_exit(void);

/* ---- netlink.c: generic netlink family "raidkm" ----------------------- */
int rkm_netlink_init(void);
void rkm_netlink_exit(void);
int rkm_netlink_doorbell(struct net *net, u32 portid, u32 sq_tail);

/* ---- dispatch.c: sessions, in-flight jobs, deadlines, fallback -------- */
int rkm_dispatch_init(void);
void rkm_dispatch_exit(void);
int rkm_dispatch_open(struct file *file);
void rkm_dispatch_release(struct file *file);
int rkm_dispatch_mmap(struct file *file, struct vm_area_struct *vma);
int rkm_dispatch_attach(struct rkm_attach_req *req, struct net *net,
			u32 portid, struct netlink_ext_ack *extack);
int rkm_dispatch_detach(struct net *net, u32 portid,
			struct netlink_ext_ack *extack);
int rkm_dispatch_complete(struct net *net, u32 portid,
			  struct netlink_ext_ack *extack);
void rkm_dispatch_port_gone(struct net *net, u32 portid);
bool rkm_dispatch_submit(struct rkm_job *job);

struct rkm_daemon_info {
	bool attached;
	pid_t pid;
	char backend[RAIDKM_BACKEND_NAME_MAX];
	const char *state;
	u32 inflight;		/* jobs on the ring now */
};
void rkm_dispatch_info(struct rkm_daemon_info *info);
/* deadline_ms changed (offload_sysfs.c): re-arm the watchdog */
void rkm_dispatch_deadline_changed(void);

/* ---- verify.c: the daemon's results recomputed on the CPU codec ------- */
enum rkm_verify_scope {
	RKM_VERIFY_NONE,
	RKM_VERIFY_SPOT,	/* one random 64-byte window per output chunk */
	RKM_VERIFY_FULL,	/* every byte */
};

/* A daemon attached: check its first verify_fresh_jobs jobs in full */
void rkm_verify_attach(void);
/*
 * Take the daemon's result for @job (op RAIDKM_OP_*; CHECK: its answer in
 * ->result): copy its outputs from @staged (output j at j * len; NULL for
 * CHECK; DECODE: the chunks of @sset staged in ascending order, of which
 * only the job's wanted ones are taken) into the job's own pages and
 * check those copied bytes against
 * the CPU codec; *scope says how much was compared, chosen now, and *ns
 * how long the copy and check took (for RKM_VERIFY_NONE: 0).  Returns
 * true when they agree.  On false the outputs already hold the CPU's
 * result (CHECK: ->result is not fixed: re-run the job).
 */
bool rkm_verify_commit(u8 op, struct rkm_job *job, const u8 *staged,
		       u64 sset, enum rkm_verify_scope *scope, u64 *ns);
const char *rkm_verify_scope_name(enum rkm_verify_scope scope);
/* Checks of @scope made since load and the nanoseconds they took */
void rkm_verify_counts(enum rkm_verify_scope scope, u64 *checks, u64 *ns);
/* After a mismatch: tell the admin to check the arrays the daemon served */
void rkm_verify_advise(pid_t pid, const char *backend);
/* Output chunk @j of a job: parity, or DECODE's wanted chunks in order */
u8 *rkm_job_out(u8 op, const struct rkm_job *job, int j);
/* How many output chunks a job has (CHECK: none) */
int rkm_job_nout(u8 op, const struct rkm_job *job);

/* ---- offload_history.c: latency histogram and detach log ------------- */
struct rkm_detach_rec {
	s64 when;			/* boot-time seconds */
	pid_t pid;
	char backend[RAIDKM_BACKEND_NAME_MAX];
	char why[96];
	u32 reruns;
	bool fenced;
};
/* A ring entry the daemon completed @ns after it was posted */
void rkm_hist_latency(u64 ns);
void rkm_hist_latency_read(u64 *cnt);	/* RAIDKM_LAT_BUCKETS counts */
/* A daemon's session ended (also counts RAIDKM_STAT_DETACHES) */
void rkm_hist_detach(pid_t pid, const char *backend, const char *why,
		     u32 reruns, bool fenced);
/* The last RAIDKM_DETACH_LOG records, oldest first; returns how many */
int rkm_hist_detach_read(struct rkm_detach_rec *out);

/* ---- offload_busy.c: the CPUs' busy share lately, 0-100 (0: unknown) -- */
u32 rkm_cpus_busy_pct(u64 now);
/* Placed jobs spent @ns coding on a CPU: not "other work" */
void rkm_cpus_busy_coded(u64 ns);

/* ---- offload_place.c: where jobs run (place.c's rule, fed) ----------- */
/* The job's place op and bytes; false for jobs placement leaves alone */
bool rkm_place_job_of(const struct rkm_job *job, struct rkm_place_job *pj);
/* Should a job the daemon could take go to it, @ring_bytes queued there? */
bool rkm_place_to_daemon(const struct rkm_job *job,
			 const struct rkm_place_job *pj, u64 ring_bytes);
/* The daemon took the job (counted) */
void rkm_place_on_daemon(const struct rkm_place_job *pj);
/* Run a job on the CPU codec, counted and (sampled) timed */
void rkm_place_run_cpu(struct rkm_job *job);
/*
 * The daemon completed a ring entry of @njobs jobs of @job_bytes each
 * (@op: enum rkm_place_op) @ns after its first job was staged, with
 * @ahead bytes before it; @failed: with an error.
 */
void rkm_place_daemon_entry(int op, u64 job_bytes, u32 njobs, u64 ahead,
			    u64 ns, bool failed);
/* An entry as above is still out after @ns (watchdog) */
void rkm_place_daemon_out(int op, u64 job_bytes, u32 njobs, u64 ahead,
			  u64 ns);
/* A daemon attached (its estimates start afresh) or went away */
void rkm_place_attached(bool attached);
/* At load: the codec's measured MB/s seeds the CPU's estimates */
void rkm_place_init(u32 cpu_mbs);
void rkm_place_exit(void);
int rkm_place_mode(void);

struct rkm_place_counts {
	u64 jobs[RKM_PLACE_NSIDES][RKM_PLACE_NOPS][RKM_PLACE_CLASSES];
	u64 bytes[RKM_PLACE_NSIDES][RKM_PLACE_NOPS][RKM_PLACE_CLASSES];
	u64 why[RKM_PLACE_NSIDES][RKM_PLACE_NWHY];
	struct rkm_place_cell cell[RKM_PLACE_NOPS][RKM_PLACE_CLASSES];
};

void rkm_place_read(struct rkm_place_counts *c);

/* ---- offload_stats.c: counters, global and per array ------------------ */
extern atomic64_t rkm_stats[__RAIDKM_STAT_MAX];

/* Count @v in global counter @stat (RAIDKM_STAT_*) and in the job's array */
void rkm_stat_job(const struct rkm_job *job, int stat, u64 v);

static inline void rkm_stat_inc(int stat)
{
	atomic64_inc(&rkm_stats[stat]);
}

/* Fill *cnt[RAIDKM_STAT_*] of one array's counters */
void rkm_job_stats_read(const struct rkm_job_stats *s, u64 *cnt);
/* Call fn for each registered array, under the registry lock */
int rkm_job_stats_each(int (*fn)(void *arg, const char *name,
				 const u64 *cnt), void *arg);

/* ---- offload_selftest.c: load generator behind /sys/kernel/raidkm ---- */
int rkm_selftest_run(unsigned int njobs);
ssize_t rkm_selftest_report(char *buf);

/* ---- offload_sysfs.c: /sys/kernel/raidkm and module parameters -------- */
int rkm_offload_sysfs_init(void);
void rkm_offload_sysfs_exit(void);
unsigned int rkm_deadline_ms(void);
unsigned int rkm_verify_ppm(void);
unsigned int rkm_verify_fresh_jobs(void);
bool rkm_verify_spot(void);

#endif /* RKM_OFFLOAD_H */
