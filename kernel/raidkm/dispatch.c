// SPDX-License-Identifier: GPL-2.0
/*
 * The offload dispatcher: routes coding jobs to raidkmd when a daemon is
 * attached and healthy and every page of the job lies in the arena, to the
 * in-kernel CPU codec otherwise, and guarantees that every job completes
 * exactly once whatever the daemon does.
 *
 *  - Placement: a job the daemon could take goes to it only when it is
 *    expected to finish there first (offload_place.c, place.c: measured
 *    costs of both sides, the bytes already on the ring); the slot keeps
 *    what the estimates learn from its completion.
 *  - Batching: consecutive jobs of one shape (op, k, m, len, mask, want) share
 *    a ring entry of up to the daemon's BATCH stripes.  The first job
 *    stages a slot; the slot goes on the ring when it is full, when a job
 *    of another shape comes, or when the flush work runs (queued by the
 *    first job), so a burst of submissions becomes few ring entries and
 *    one doorbell.
 *  - In-flight table: one slot per ring entry; the slot number is the
 *    entry's id and its generation is bumped at every use, so a late or
 *    forged completion cannot complete the wrong jobs.
 *  - Deadlines: a watchdog (delayed work) checks the oldest job; past
 *    deadline_ms the daemon is dropped (see below) and the job re-run on
 *    the CPU.
 *  - Daemon loss (file released, netlink socket closed, deadline missed,
 *    malformed completion, verify mismatch): the session ends, the arena
 *    is revoked from the daemon's mapping when it may still be alive, and
 *    every job in flight is re-run on the CPU.  No I/O error, no hang.
 *  - Checks: every result the daemon returns is checked on the CPU
 *    (verify.c: a random window of it, or all of it) before the job
 *    completes; a mismatch drops the daemon and its whole ring entry is
 *    re-run on the CPU.
 *
 * Locking: d.lock (spinlock, irqsave) guards the state, the slots and the
 * rings; submitters and the flush work take only it.  d.ctl_mutex
 * serialises the control paths (open, release, mmap, attach, detach) and
 * the work items (completions, watchdog, loss), which run on one ordered
 * workqueue in process context; ->done callbacks run there (or in the
 * daemon's release path), never in the netlink receive path, with
 * ctl_mutex held and d.lock not held.
 */
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/mm.h>
#include <linux/fs.h>
#include <linux/sched.h>
#include <linux/random.h>
#include <linux/jiffies.h>
#include <linux/ktime.h>
#include <linux/workqueue.h>
#include <linux/spinlock.h>
#include <linux/mutex.h>
#include <linux/sched/mm.h>
#include <net/net_namespace.h>
#include <net/netlink.h>
#include "rkm_job.h"
#include "offload.h"
#include "ring/rkm_ring.h"

enum rkm_dstate {
	RKM_DS_IDLE,		/* /dev/raidkm not open */
	RKM_DS_OPEN,		/* open, no daemon attached yet */
	RKM_DS_RUNNING,		/* daemon attached: jobs go to it */
	RKM_DS_CLOSED,		/* daemon detached itself: no new jobs */
	RKM_DS_DEAD,		/* dropped by the kernel: must close the file */
};

static const char *const rkm_dstate_name[] = {
	[RKM_DS_IDLE] = "idle",
	[RKM_DS_OPEN] = "open",
	[RKM_DS_RUNNING] = "running",
	[RKM_DS_CLOSED] = "closing",
	[RKM_DS_DEAD] = "dropped",
};

enum rkm_slot_state_e {
	RKM_SLOT_FREE,
	RKM_SLOT_STAGED,	/* collecting jobs, not on the ring yet */
	RKM_SLOT_INFLIGHT,	/* on the ring, owned by the daemon */
	RKM_SLOT_FINISHING,	/* taken back, being completed */
};

#define RKM_BATCH	RKM_SHM_MAX_STRIPES

/* One ring entry: up to RKM_BATCH jobs (stripes) of one shape */
struct rkm_slot {
	u32 gen;
	u8 state;
	u8 op;			/* RAIDKM_OP_* */
	u8 k, m;
	u32 len;
	u64 mask;
	u64 want;		/* DECODE: the jobs' wanted chunks */
	u64 sset;		/* DECODE: the chunks staged (want or mask) */
	u32 njobs;
	unsigned long deadline;	/* jiffies */
	u64 posted_ns;		/* put on the ring (latency histogram) */
	u64 opened_ns;		/* its first job staged (placement) */
	u64 ahead;		/* place bytes staged or on the ring before */
	u64 pbytes;		/* place bytes of each of its jobs */
	u8 pop;			/* enum rkm_place_op of its jobs */
	struct rkm_job *job[RKM_BATCH];
	void *out[RKM_BATCH];	/* the job's outputs in staging */
	u64 out_off[RKM_BATCH];	/* ... at this arena offset */
	u32 bytes[RKM_BATCH];	/* chunk bytes described */
};

#define RKM_NSLOTS	RKM_SHM_ENTRIES

static struct {
	spinlock_t lock;
	struct mutex ctl_mutex;
	enum rkm_dstate state;

	/* the open file */
	struct file *file;
	struct address_space *mapping;
	unsigned int mapped;		/* RKM_SHM_* parts mapped in full */
	u64 cookie;
	struct raidkm_shm_hdr lay;	/* private copy of the layout */
	struct raidkm_shm_hdr *hdr;	/* shared */
	struct rkm_ring sq;		/* kernel produces */
	struct rkm_ring cq;		/* kernel consumes */

	/* the attached daemon */
	struct net *net;
	u32 portid;
	pid_t pid;
	char backend[RAIDKM_BACKEND_NAME_MAX];
	u64 features;
	u32 max_k, max_m, ops, batch;

	/* loss requested from atomic or foreign context */
	const char *fault;
	bool port_gone;
	u32 gone_portid;
	struct net *gone_net;

	struct rkm_slot slots[RKM_NSLOTS];
	u32 free_stack[RKM_NSLOTS];
	u32 nfree;
	s32 open_slot;			/* STAGED slot taking jobs, or -1 */
	bool ring_pending;		/* a doorbell is owed to the daemon */
	bool bell_out;			/* a doorbell was sent ... */
	u32 bell_head;			/* ... when its sq head was this */
	u32 inflight;			/* jobs staged or on the ring */
	u64 ring_bytes;			/* ... their place bytes (place.h) */

	/* completion scratch, under ctl_mutex */
	u32 done_id[RKM_NSLOTS];
	s32 done_status[RKM_NSLOTS];
	u64 done_bitmap[RKM_NSLOTS];
	u32 lost_id[RKM_NSLOTS];
	u8 lost_how[RKM_NSLOTS];

	struct workqueue_struct *wq;
	struct workqueue_struct *flush_wq;
	struct work_struct complete_work;
	struct work_struct flush_work;
	struct work_struct loss_work;
	struct delayed_work watchdog;
} d;

/*
 * The control paths run ->done callbacks and the CPU codec, whose
 * allocations must not recurse into I/O that may wait on these very jobs.
 */
static unsigned int ctl_noio;

static void ctl_lock(void)
{
	unsigned int noio = memalloc_noio_save();

	mutex_lock(&d.ctl_mutex);
	ctl_noio = noio;
}

static void ctl_unlock(void)
{
	unsigned int noio = ctl_noio;

	mutex_unlock(&d.ctl_mutex);
	memalloc_noio_restore(noio);
}

/* ---------------------------------------------------------------------- */
/* Slots                                                                  */
/* ---------------------------------------------------------------------- */

/* Staging bytes of a job: DECODE stages the chunks in @sset */
static u32 out_bytes(u8 op, const struct rkm_job *job, u64 sset)
{
	if (op == RAIDKM_OP_DECODE)
		return hweight64(sset) * job->len;
	return rkm_job_nout(op, job) * job->len;
}

/*
 * Give a slot back with its staging; @hold: the daemon may still write
 * the outputs (its backend failed the jobs, or it held them when it was
 * dropped), so they stay out of the pool until its file is released.
 * d.lock held.
 */
static void slot_free_locked(u32 id, bool hold)
{
	struct rkm_slot *s = &d.slots[id];
	u32 j;

	for (j = 0; j < s->njobs; j++) {
		if (hold)
			rkm_stage_hold(s->out[j],
				       out_bytes(s->op, s->job[j], s->sset));
		else
			rkm_stage_free(s->out[j],
				       out_bytes(s->op, s->job[j], s->sset));
		s->out[j] = NULL;
		s->job[j] = NULL;
	}
	s->njobs = 0;
	s->state = RKM_SLOT_FREE;
	d.free_stack[d.nfree++] = id;
}

static u64 *slot_desc(u32 id)
{
	return rkm_shm_ptr(d.lay.desc_off + (u64)id * d.lay.desc_slot_size);
}

/* ---------------------------------------------------------------------- */
/* Submission                                                             */
/* ---------------------------------------------------------------------- */

static u8 job_op(const struct rkm_job *job)
{
	switch (job->op) {
	case RKM_JOB_ENCODE:
		return RAIDKM_OP_ENCODE;
	case RKM_JOB_DECODE:
		return RAIDKM_OP_DECODE;
	case RKM_JOB_DELTA:
		return RAIDKM_OP_DELTA;
	case RKM_JOB_CHECK:
		return RAIDKM_OP_CHECK;
	default:
		return 0;	/* LOCATE and unknown ops stay on the CPU */
	}
}

/* Are the chunks a job writes there (DECODE: the wanted ones)? */
static bool job_outputs_present(const struct rkm_job *job, u8 op, int k,
				int m)
{
	u64 want = rkm_job_want(job);
	int i;

	for (i = 0; i < k + m; i++)
		if (rkm_chunk_role(op, k, job->mask, want, i) ==
		    RKM_CHUNK_OUT && !job->chunk[i])
			return false;
	return true;
}

/* Is the job well formed for the ring?  Bad jobs get the CPU's verdict. */
static bool job_shape_ok(const struct rkm_job *job, u8 op, int k, int m)
{
	u64 low, want = rkm_job_want(job);

	if (!rkm_geometry_ok(k, m) || !rkm_len_ok(job->len) ||
	    job->len > RAIDKM_MAX_LEN)
		return false;
	switch (op) {
	case RAIDKM_OP_DECODE:
		low = (k + m == 64) ? ~0ull : (1ull << (k + m)) - 1;
		if (!job->mask || (job->mask & ~low) ||
		    hweight64(job->mask) > m || (want & ~job->mask))
			return false;
		break;
	case RAIDKM_OP_DELTA:
		if (!job->mask || (job->mask & ~((1ull << k) - 1)))
			return false;
		break;
	}
	return job_outputs_present(job, op, k, m);
}

static int arena_off_of(void *ctx, const void *p, u32 len, u64 *off)
{
	return rkm_arena_offset(p, len, off) ? 0 : -EFAULT;
}

/*
 * Arena offsets of a job's chunks: stripe @st of a ring entry of @ns
 * stripes (uapi descriptor layout, rkm_desc_encode), written to @desc
 * when it is not NULL.  Inputs are the stripe's own arena pages
 * (read-only for the daemon); outputs (DECODE: the chunks in @sset) are
 * consecutive chunks of its staging run at @out_off.  Returns the chunk
 * bytes described, or 0 when an input is not arena.
 */
static u32 job_offsets(const struct rkm_job *job, u8 op, int k, int m,
		       u64 sset, u64 *desc, u32 st, u32 ns, u64 out_off)
{
	struct rkm_desc_job dj = {
		.op = op, .k = k, .m = m, .len = job->len,
		.mask = op == RAIDKM_OP_CHECK || op == RAIDKM_OP_ENCODE ?
			0 : job->mask,
		.want = op == RAIDKM_OP_DECODE ? sset : 0,
		.chunk = job->chunk, .old = job->old,
	};

	return rkm_desc_encode(&dj, desc, st, ns, out_off, arena_off_of, NULL);
}

/* Ask the loss work to drop the daemon.  d.lock held. */
static void request_fault(const char *why)
{
	if (!d.fault)
		d.fault = why;
	queue_work(d.wq, &d.loss_work);
}

/*
 * Put a STAGED slot on the submission ring.  d.lock held.  A ring with no
 * room here means the daemon completed jobs it never consumed (there are
 * as many entries as slots): a fault; the slot stays STAGED and is run on
 * the CPU when the daemon is dropped.
 */
static void publish_locked(u32 id)
{
	struct rkm_slot *s = &d.slots[id];
	struct raidkm_sqe *sqe;
	u64 *desc = slot_desc(id);
	int room;
	u32 j;

	if (d.open_slot == (s32)id)
		d.open_slot = -1;
	room = rkm_prod_room(&d.sq);
	if (room <= 0) {
		request_fault(room < 0 ? "submission ring head out of range" :
			      "submission ring full: completions without consumption");
		return;
	}
	for (j = 0; j < s->njobs; j++)
		job_offsets(s->job[j], s->op, s->k, s->m, s->sset, desc, j,
			    s->njobs, s->out_off[j]);

	s->gen++;
	s->deadline = jiffies + msecs_to_jiffies(rkm_deadline_ms());
	s->state = RKM_SLOT_INFLIGHT;
	s->posted_ns = ktime_get_ns();
	sqe = rkm_prod_slot(&d.sq);
	memset(sqe, 0, sizeof(*sqe));
	sqe->id = id;
	sqe->gen = s->gen;
	sqe->op = s->op;
	sqe->k = s->k;
	sqe->m = s->m;
	sqe->len = s->len;
	sqe->nstripes = s->njobs;
	sqe->ndesc = rkm_job_ndesc(s->op, s->k, s->m, s->njobs);
	sqe->mask = s->mask;
	/* with RAIDKM_FEAT_DECODE_WANT the staged set is the want */
	if (s->op == RAIDKM_OP_DECODE && (d.features & RAIDKM_FEAT_DECODE_WANT))
		sqe->want = s->sset;
	rkm_prod_commit(&d.sq);
	if (rkm_prod_publish(&d.sq) ||
	    !(d.features & RAIDKM_FEAT_NEED_WAKEUP))
		d.ring_pending = true;
}

/* Stripes per ring entry: the daemon's preference, within the layout's */
static u32 batch_limit(void)
{
	return min_t(u32, d.batch, RKM_BATCH);
}

static bool slot_takes(const struct rkm_slot *s, const struct rkm_job *job,
		       u8 op, int k, int m, u64 mask, u64 want)
{
	return s->op == op && s->k == k && s->m == m && s->len == job->len &&
	       s->mask == mask && s->want == want &&
	       s->njobs < batch_limit();
}

/*
 * DECODE: the chunks described as outputs and staged.  A daemon with
 * RAIDKM_FEAT_DECODE_WANT writes only the wanted ones; an older one
 * rebuilds every erased chunk, so all of them are staged (its work is
 * what it always was: still cheaper than the CPU) and only the wanted
 * ones are taken.  @feat: the session's features.
 */
static u64 staged_set(u8 op, const struct rkm_job *job, u64 feat)
{
	if (op != RAIDKM_OP_DECODE)
		return 0;
	return feat & RAIDKM_FEAT_DECODE_WANT ? rkm_job_want(job) : job->mask;
}

bool rkm_dispatch_submit(struct rkm_job *job)
{
	struct rkm_place_job pj;
	unsigned long flags;
	struct rkm_slot *s;
	void *out = NULL;
	bool kick = false;
	int k, m;
	s32 id;
	u32 bytes, j;
	u64 mask, want, sset, feat, out_off = 0;
	u8 op;

	if (READ_ONCE(d.state) != RKM_DS_RUNNING || !job->code)
		return false;
	op = job_op(job);
	if (!op)
		return false;
	k = rkm_code_k(job->code);
	m = rkm_code_m(job->code);
	if (!job_shape_ok(job, op, k, m))
		return false;
	feat = READ_ONCE(d.features);
	sset = staged_set(op, job, feat);
	bytes = job_offsets(job, op, k, m, sset, NULL, 0, 1, 0);
	if (!bytes)
		return false;
	/* where it finishes first, by what each side costs now */
	if (!rkm_place_job_of(job, &pj) ||
	    !rkm_place_to_daemon(job, &pj, READ_ONCE(d.ring_bytes)))
		return false;
	mask = (op == RAIDKM_OP_DECODE || op == RAIDKM_OP_DELTA) ? job->mask : 0;
	want = op == RAIDKM_OP_DECODE ? rkm_job_want(job) : 0;
	if (rkm_job_nout(op, job)) {
		/*
		 * The daemon writes outputs to staging, never to the stripe:
		 * they are copied over when the completion is accepted.
		 * DELTA updates parity, so its staging starts as the parity.
		 */
		out = rkm_stage_alloc(out_bytes(op, job, sset), &out_off);
		if (!out)
			return false;
		out_off += rkm_arena_bytes();
		if (op == RAIDKM_OP_DELTA)
			for (j = 0; j < m; j++)
				rkm_stage_copy(out + (size_t)j * job->len,
					       job->chunk[k + j], job->len);
	}

	spin_lock_irqsave(&d.lock, flags);
	if (d.state != RKM_DS_RUNNING || !(d.ops & (1u << op)) ||
	    k > d.max_k || m > d.max_m || d.features != feat ||
	    (op == RAIDKM_OP_CHECK &&
	     !(d.features & RAIDKM_FEAT_CHECK_BITMAP)))
		goto cpu;
	id = d.open_slot;
	if (id >= 0 && !slot_takes(&d.slots[id], job, op, k, m, mask, want)) {
		publish_locked(id);
		id = -1;
	}
	if (id < 0) {
		if (!d.nfree)
			goto cpu;
		id = d.free_stack[--d.nfree];
		s = &d.slots[id];
		s->state = RKM_SLOT_STAGED;
		s->op = op;
		s->k = k;
		s->m = m;
		s->len = job->len;
		s->mask = mask;
		s->want = want;
		s->sset = sset;
		s->njobs = 0;
		s->opened_ns = ktime_get_ns();
		s->ahead = d.ring_bytes;
		s->pbytes = pj.bytes;
		s->pop = pj.op;
		d.open_slot = id;
		kick = true;
	}
	s = &d.slots[id];
	j = s->njobs++;
	s->job[j] = job;
	s->out[j] = out;
	s->out_off[j] = out_off;
	s->bytes[j] = bytes;
	d.inflight++;
	WRITE_ONCE(d.ring_bytes, d.ring_bytes + pj.bytes);
	if (s->njobs >= batch_limit())
		publish_locked(id);
	kick |= d.ring_pending;
	/*
	 * Completions already on the ring are reaped now, not when their
	 * COMPLETE message arrives: that message may travel a slow path
	 * (the guest-RAM bridge's relay), and a busy submitter is the
	 * cheapest moment to look.
	 */
	if (rkm_cons_avail(&d.cq) > 0)
		queue_work(d.wq, &d.complete_work);
	spin_unlock_irqrestore(&d.lock, flags);

	rkm_place_on_daemon(&pj);
	if (kick)
		queue_work(d.flush_wq, &d.flush_work);
	queue_delayed_work(d.wq, &d.watchdog,
			   max(msecs_to_jiffies(rkm_deadline_ms()) / 4, 1UL));
	return true;

cpu:
	/* An entry published on the way may still owe a doorbell. */
	kick = d.ring_pending;
	spin_unlock_irqrestore(&d.lock, flags);
	if (kick)
		queue_work(d.flush_wq, &d.flush_work);
	if (out)
		rkm_stage_free(out, out_bytes(op, job, sset));
	return false;
}

/*
 * Publish what is staged and ring the doorbell the daemon asked for.
 * Takes only d.lock (and a reference on the daemon's netns), so it is
 * never stuck behind completion processing.
 */
static void flush_work_fn(struct work_struct *w)
{
	unsigned long flags;
	struct net *net = NULL;
	u32 portid = 0, tail = 0, head;
	int ret;

	spin_lock_irqsave(&d.lock, flags);
	if (d.open_slot >= 0 && d.state == RKM_DS_RUNNING)
		publish_locked(d.open_slot);
	if (d.ring_pending && d.net &&
	    (d.state == RKM_DS_RUNNING || d.state == RKM_DS_CLOSED)) {
		/*
		 * One doorbell per sleep is enough: while the daemon has not
		 * consumed anything since the last one, that one is still
		 * waiting in its socket and it will see every entry when it
		 * wakes.  More would only fill (and overrun) its socket.
		 * (x86: the daemon's head store is visible before the flag
		 * that made us ring.)
		 */
		head = smp_load_acquire(&d.hdr->sq_ctl.head);
		if (!d.bell_out || head != d.bell_head) {
			net = get_net(d.net);
			portid = d.portid;
			tail = d.sq.local;
			d.bell_out = true;
			d.bell_head = head;
		}
	}
	d.ring_pending = false;
	spin_unlock_irqrestore(&d.lock, flags);

	if (!net)
		return;
	ret = rkm_netlink_doorbell(net, portid, tail);
	if (!ret)
		rkm_stat_inc(RAIDKM_STAT_DOORBELLS);
	else if (ret == -ECONNREFUSED)
		rkm_dispatch_port_gone(net, portid);
	/* else (its queue is full): the daemon has doorbells to read */
	put_net(net);
}

/* ---------------------------------------------------------------------- */
/* Completion                                                             */
/* ---------------------------------------------------------------------- */

static void lose_locked(const char *why, bool fence, enum rkm_dstate next);

/* How the jobs of a slot taken back end */
enum rkm_fin {
	RKM_FIN_DAEMON,		/* the daemon's completion (status given) */
	RKM_FIN_RERUN,		/* on the ring when the daemon was dropped */
	RKM_FIN_UNSENT,		/* staged, never reached the daemon */
};

/*
 * Take the results of a slot the daemon completed: copy each job's staged
 * outputs into its stripe pages, which the daemon cannot write, and check
 * those very bytes (verify.c), job after job; fill in CHECK answers.
 * Returns how many jobs stand.  On a mismatch at job j the daemon is
 * dropped and fenced; job j already holds the CPU's result (CHECK: is
 * re-run) and jobs after it are left for the CPU; @full_ns gets the time
 * spent in full checks.  ctl_mutex held.
 */
static u32 slot_commit(struct rkm_slot *s, u64 bitmap, u64 *full_ns)
{
	enum rkm_verify_scope scope;
	struct rkm_job *job;
	bool same;
	u64 ns;
	u32 j;

	*full_ns = 0;
	for (j = 0; j < s->njobs; j++) {
		job = s->job[j];
		job->result = s->op == RAIDKM_OP_CHECK ?
			      (int)((bitmap >> j) & 1) : 0;
		same = rkm_verify_commit(s->op, job, s->out[j], s->sset,
					 &scope, &ns);
		if (scope == RKM_VERIFY_FULL)
			*full_ns += ns;
		if (same)
			continue;
		rkm_stat_job(job, RAIDKM_STAT_VERIFY_MISMATCHES, 1);
		pr_err("raidkm: daemon pid %d (%s) returned a wrong result (%s: op %u, k+m %d, %u bytes); CPU result used\n",
		       d.pid, d.backend, rkm_verify_scope_name(scope), s->op,
		       s->k + s->m, job->len);
		rkm_verify_advise(d.pid, d.backend);
		lose_locked("verify mismatch", true, RKM_DS_DEAD);
		if (s->op == RAIDKM_OP_CHECK)
			rkm_job_run_cpu(job);
		rkm_stat_job(job, RAIDKM_STAT_JOBS_CPU, 1);
		return j;
	}
	return j;
}

/*
 * Finish the jobs of a slot taken back, free it, then call ->done.  With
 * RKM_FIN_DAEMON and status 0 the daemon's results stand once checked;
 * otherwise the jobs are coded on the CPU.  ctl_mutex held.
 */
static void finish_slot(u32 id, enum rkm_fin how, s32 status, u64 bitmap)
{
	struct rkm_slot *s = &d.slots[id];
	struct rkm_job *jobs[RKM_BATCH];
	unsigned long flags;
	u32 j, n = s->njobs, good = 0, fixed = 0;
	u64 full_ns;

	/* A fault on the way (a mismatch) makes the rest untrusted. */
	if (how == RKM_FIN_DAEMON && READ_ONCE(d.state) == RKM_DS_DEAD)
		how = RKM_FIN_RERUN;
	/*
	 * Jobs [0, good) stand, job good (after a mismatch) holds the CPU's
	 * result, the rest are coded on the CPU from their stripe pages,
	 * which the daemon never wrote.
	 */
	if (how == RKM_FIN_DAEMON && !status) {
		rkm_hist_latency(ktime_get_ns() - s->posted_ns);
		good = slot_commit(s, bitmap, &full_ns);
		fixed = good < n ? good + 1 : n;
		/*
		 * The placement's sample: the entry's time less the full
		 * checks' (a CPU recompute of the job: the fresh window and
		 * the sample), which would make every new daemon look no
		 * faster than the CPU until its first verify_fresh_jobs.
		 */
		if (good < n)
			how = RKM_FIN_RERUN;
		else
			rkm_place_daemon_entry(s->pop, s->pbytes, n, s->ahead,
					       ktime_get_ns() - s->opened_ns -
					       full_ns, false);
	} else if (how == RKM_FIN_DAEMON) {
		rkm_place_daemon_entry(s->pop, s->pbytes, n, s->ahead, 0, true);
	}
	for (j = 0; j < n; j++) {
		jobs[j] = s->job[j];
		if (j < good) {
			rkm_stat_job(jobs[j], RAIDKM_STAT_JOBS_OFFLOADED, 1);
			rkm_stat_job(jobs[j], RAIDKM_STAT_BYTES_OFFLOADED,
				     s->bytes[j]);
			continue;
		}
		if (j >= fixed) {
			rkm_job_run_cpu(jobs[j]);
			rkm_stat_job(jobs[j], RAIDKM_STAT_JOBS_CPU, 1);
		}
		if (how == RKM_FIN_RERUN)
			rkm_stat_job(jobs[j], RAIDKM_STAT_RERUNS, 1);
	}
	spin_lock_irqsave(&d.lock, flags);
	/* EIO: the backend ran the jobs and failed (a hung GPU batch) */
	slot_free_locked(id, how == RKM_FIN_RERUN ||
			 (how == RKM_FIN_DAEMON && status == RAIDKM_ST_EIO));
	spin_unlock_irqrestore(&d.lock, flags);
	for (j = 0; j < n; j++)
		jobs[j]->done(jobs[j]);
}

/*
 * Read the completion ring; ctl_mutex held.  The ring's head moves past
 * the entries read only once their slots are finished, so a daemon that
 * sees the head past its completion knows that the kernel has taken the
 * outputs (uapi: struct raidkm_cqe).  The entries stay the kernel's
 * meanwhile (d.cq's private head): nothing else reads this ring, and
 * the daemon cannot post over them.
 */
static void reap_locked(void)
{
	struct rkm_slot_state st;
	struct raidkm_cqe c;
	const char *why = NULL;
	unsigned long flags;
	u32 i, j, n = 0;
	int avail, r;

	spin_lock_irqsave(&d.lock, flags);
	if (d.state != RKM_DS_RUNNING && d.state != RKM_DS_CLOSED) {
		spin_unlock_irqrestore(&d.lock, flags);
		return;
	}
	avail = rkm_cons_avail(&d.cq);
	if (avail < 0) {
		why = "completion ring tail out of range";
		avail = 0;
	}
	for (i = 0; i < avail; i++) {
		rkm_cqe_read(rkm_cons_peek(&d.cq, i), &c);
		if (rkm_cqe_check(&c, RKM_NSLOTS, &why) != RKM_CQE_OK)
			break;
		st.gen = d.slots[c.id].gen;
		st.busy = d.slots[c.id].state == RKM_SLOT_INFLIGHT;
		st.op = d.slots[c.id].op;
		st.nstripes = d.slots[c.id].njobs;
		r = rkm_cqe_match(&c, &st, &why);
		if (r == RKM_CQE_BAD)
			break;
		why = NULL;
		if (r == RKM_CQE_STALE) {
			rkm_stat_inc(RAIDKM_STAT_STALE_COMPLETIONS);
			continue;
		}
		d.slots[c.id].state = RKM_SLOT_FINISHING;
		d.inflight -= d.slots[c.id].njobs;
		WRITE_ONCE(d.ring_bytes, d.ring_bytes - d.slots[c.id].njobs *
					 d.slots[c.id].pbytes);
		d.done_id[n] = c.id;
		d.done_status[n] = c.status;
		d.done_bitmap[n] = c.check_bitmap;
		n++;
	}
	spin_unlock_irqrestore(&d.lock, flags);

	if (why) {
		rkm_stat_inc(RAIDKM_STAT_BAD_COMPLETIONS);
		lose_locked(why, true, RKM_DS_DEAD);
	}
	for (j = 0; j < n; j++)
		finish_slot(d.done_id[j], RKM_FIN_DAEMON, d.done_status[j],
			    d.done_bitmap[j]);
	if (i) {
		spin_lock_irqsave(&d.lock, flags);
		rkm_cons_release(&d.cq, i);
		spin_unlock_irqrestore(&d.lock, flags);
	}
}

/* ---------------------------------------------------------------------- */
/* Losing the daemon                                                      */
/* ---------------------------------------------------------------------- */

/*
 * End the daemon's session: no new jobs, every job staged or in flight
 * run on the CPU.  @fence: the daemon may still map the arena; take it
 * away first so it cannot write into pages the kernel reuses.  ctl_mutex
 * held.
 */
static void lose_locked(const char *why, bool fence, enum rkm_dstate next)
{
	unsigned long flags;
	u32 id, n = 0, reruns = 0, portid;
	struct net *net;
	pid_t pid;

	spin_lock_irqsave(&d.lock, flags);
	if (d.state != RKM_DS_RUNNING && d.state != RKM_DS_CLOSED) {
		spin_unlock_irqrestore(&d.lock, flags);
		return;
	}
	d.state = next;
	/* kstate: the daemon loads it with acquire (uapi) */
	smp_store_release(&d.hdr->kstate, RAIDKM_KSTATE_CLOSED);
	/* Finishing slots of an ongoing reap are finished by the reaper. */
	for (id = 0; id < RKM_NSLOTS; id++) {
		u8 st = d.slots[id].state;

		if (st != RKM_SLOT_INFLIGHT && st != RKM_SLOT_STAGED)
			continue;
		if (st == RKM_SLOT_INFLIGHT)
			reruns += d.slots[id].njobs;
		d.slots[id].state = RKM_SLOT_FINISHING;
		d.lost_id[n] = id;
		d.lost_how[n++] = st == RKM_SLOT_INFLIGHT ? RKM_FIN_RERUN :
							    RKM_FIN_UNSENT;
	}
	d.open_slot = -1;
	d.ring_pending = false;
	d.bell_out = false;
	d.inflight = 0;
	WRITE_ONCE(d.ring_bytes, 0);
	net = d.net;
	portid = d.portid;
	pid = d.pid;
	d.net = NULL;
	d.portid = 0;
	d.fault = NULL;
	spin_unlock_irqrestore(&d.lock, flags);
	rkm_place_attached(false);

	if (fence && d.mapping) {
		rkm_shm_revoke(d.mapping);
		/* Wake a sleeping daemon up to see kstate CLOSED. */
		if (net)
			rkm_netlink_doorbell(net, portid, d.sq.local);
	}
	rkm_hist_detach(pid, d.backend, why, reruns, fence);
	if (fence || reruns)
		pr_warn("raidkm: daemon pid %d (%s) dropped: %s; %u jobs re-run on the CPU\n",
			pid, d.backend, why, reruns);
	else
		pr_info("raidkm: daemon pid %d (%s) gone: %s\n", pid,
			d.backend, why);
	for (id = 0; id < n; id++)
		finish_slot(d.lost_id[id], d.lost_how[id], 0, 0);
	if (net)
		put_net(net);
}

static void loss_work_fn(struct work_struct *w)
{
	unsigned long flags;
	const char *why;
	bool gone, fence;

	ctl_lock();
	spin_lock_irqsave(&d.lock, flags);
	why = d.fault;
	gone = d.port_gone && d.net && d.gone_net == d.net &&
	       d.gone_portid == d.portid;
	/* A detached daemon with nothing in flight closing its socket is a
	 * normal exit; anything else may leave it writing: fence.
	 */
	fence = !(d.state == RKM_DS_CLOSED && !d.inflight);
	d.port_gone = false;
	spin_unlock_irqrestore(&d.lock, flags);
	if (why)
		lose_locked(why, true, RKM_DS_DEAD);
	else if (gone)
		lose_locked("its netlink socket was closed", fence, RKM_DS_DEAD);
	ctl_unlock();
}

void rkm_dispatch_port_gone(struct net *net, u32 portid)
{
	unsigned long flags;

	spin_lock_irqsave(&d.lock, flags);
	if ((d.state == RKM_DS_RUNNING || d.state == RKM_DS_CLOSED) &&
	    d.net == net && d.portid == portid) {
		d.port_gone = true;
		d.gone_net = net;
		d.gone_portid = portid;
		queue_work(d.wq, &d.loss_work);
	}
	spin_unlock_irqrestore(&d.lock, flags);
}

/* ---------------------------------------------------------------------- */
/* Work items                                                             */
/* ---------------------------------------------------------------------- */

static void complete_work_fn(struct work_struct *w)
{
	ctl_lock();
	reap_locked();
	ctl_unlock();
}

static void watchdog_fn(struct work_struct *w)
{
	unsigned long flags, now = jiffies;
	u32 id, j, late = 0, busy;
	u64 now_ns;

	ctl_lock();
	/* Completions whose doorbell was lost or not yet handled count. */
	reap_locked();
	spin_lock_irqsave(&d.lock, flags);
	/*
	 * Read under d.lock, where slots are opened: a slot opened after an
	 * earlier reading would look out for 2^64 ns, and the placement's
	 * daemon estimates would jump to their caps (seconds per job).
	 */
	now_ns = ktime_get_ns();
	for (id = 0; id < RKM_NSLOTS; id++) {
		struct rkm_slot *s = &d.slots[id];

		if (s->state != RKM_SLOT_INFLIGHT)
			continue;
		/* out longer than its estimate: the estimate grows now */
		rkm_place_daemon_out(s->pop, s->pbytes, s->njobs, s->ahead,
				     now_ns - s->opened_ns);
		if (!time_after(now, s->deadline))
			continue;
		late++;
		for (j = 0; j < s->njobs; j++)
			rkm_stat_job(s->job[j], RAIDKM_STAT_DEADLINE_MISSES, 1);
	}
	busy = d.inflight;
	spin_unlock_irqrestore(&d.lock, flags);
	if (late)
		lose_locked("it missed the job deadline", true, RKM_DS_DEAD);
	else if (busy)
		queue_delayed_work(d.wq, &d.watchdog,
				   max(msecs_to_jiffies(rkm_deadline_ms()) / 4,
				       1UL));
	ctl_unlock();
}

/* ---------------------------------------------------------------------- */
/* Control: open, release, mmap, attach, detach, complete                 */
/* ---------------------------------------------------------------------- */

int rkm_dispatch_open(struct file *file)
{
	unsigned long flags;
	u64 cookie;
	int ret;

	ctl_lock();
	if (d.state != RKM_DS_IDLE) {
		ctl_unlock();
		return -EBUSY;
	}
	do {
		cookie = get_random_u64();
	} while (!cookie);
	ret = rkm_shm_reset(cookie);
	if (ret) {
		ctl_unlock();
		return ret;
	}
	spin_lock_irqsave(&d.lock, flags);
	d.hdr = rkm_shm_hdr();
	d.lay = *d.hdr;
	rkm_ring_init(&d.sq, &d.hdr->sq_ctl, rkm_shm_ptr(d.lay.sq_off),
		      d.lay.sq_entries, sizeof(struct raidkm_sqe), 0);
	rkm_ring_init(&d.cq, &d.hdr->cq_ctl, rkm_shm_ptr(d.lay.cq_off),
		      d.lay.cq_entries, sizeof(struct raidkm_cqe), 0);
	/* The kernel never polls the completion ring: always ring. */
	WRITE_ONCE(d.hdr->cq_ctl.flags, RAIDKM_RING_NEED_WAKEUP);
	d.cookie = cookie;
	d.file = file;
	d.mapping = file->f_mapping;
	d.mapped = 0;
	d.state = RKM_DS_OPEN;
	spin_unlock_irqrestore(&d.lock, flags);
	ctl_unlock();
	return 0;
}

void rkm_dispatch_release(struct file *file)
{
	unsigned long flags;

	ctl_lock();
	if (d.file == file) {
		/* No mapping is left: nothing to fence, nothing held. */
		lose_locked("it closed /dev/raidkm", false, RKM_DS_IDLE);
		rkm_stage_release_held();
		spin_lock_irqsave(&d.lock, flags);
		d.state = RKM_DS_IDLE;
		d.file = NULL;
		d.mapping = NULL;
		d.mapped = 0;
		d.cookie = 0;
		d.pid = 0;
		memset(d.backend, 0, sizeof(d.backend));
		spin_unlock_irqrestore(&d.lock, flags);
	}
	ctl_unlock();
}

int rkm_dispatch_mmap(struct file *file, struct vm_area_struct *vma)
{
	int ret;

	ctl_lock();
	if (d.file != file || d.state != RKM_DS_OPEN) {
		ret = -ENODEV;
	} else {
		unsigned int covers;

		ret = rkm_shm_mmap(vma, &covers);
		if (!ret)
			d.mapped |= covers;
	}
	ctl_unlock();
	return ret;
}

int rkm_dispatch_attach(struct rkm_attach_req *req, struct net *net,
			u32 portid, struct netlink_ext_ack *extack)
{
	unsigned long flags;
	const char *why;
	int ret = 0;

	ctl_lock();
	switch (d.state) {
	case RKM_DS_IDLE:
		NL_SET_ERR_MSG(extack, "/dev/raidkm is not open");
		ret = -ENODEV;
		break;
	case RKM_DS_OPEN:
		if (d.mapped != RKM_SHM_ALL) {
			NL_SET_ERR_MSG(extack, "map all of /dev/raidkm before ATTACH");
			ret = -ENODEV;
		}
		break;
	case RKM_DS_RUNNING:
	case RKM_DS_CLOSED:
		NL_SET_ERR_MSG(extack,
			       "another raidkmd is attached (one daemon at a time)");
		pr_info("raidkm: attach refused: daemon pid %d (%s) is attached\n",
			d.pid, d.backend);
		ret = -EBUSY;
		break;
	case RKM_DS_DEAD:
		NL_SET_ERR_MSG(extack,
			       "session was dropped: close and reopen /dev/raidkm");
		ret = -ESTALE;
		break;
	}
	if (ret)
		goto out;

	ret = rkm_attach_check(req, d.cookie, RAIDKM_FEAT_ALL, &why);
	if (ret) {
		if (extack)
			extack->_msg = why;
		ret = ret == -RKM_RING_EPROTO ? -EPROTO :
		      ret == -RKM_RING_ESTALE ? -ESTALE : -EINVAL;
		goto out;
	}

	/* Its first jobs are checked in full (no completion runs before). */
	rkm_verify_attach();
	/* ... and placed by what it measures, from nothing */
	rkm_place_attached(true);
	spin_lock_irqsave(&d.lock, flags);
	d.net = get_net(net);
	d.portid = portid;
	d.pid = task_tgid_nr(current);
	strscpy(d.backend, req->backend, sizeof(d.backend));
	d.features = req->features;
	d.max_k = req->max_k;
	d.max_m = req->max_m;
	d.ops = req->ops;
	d.batch = req->batch;
	d.open_slot = -1;
	d.ring_pending = false;
	d.bell_out = false;
	d.fault = NULL;
	d.port_gone = false;
	d.state = RKM_DS_RUNNING;
	/* kstate: the daemon loads it with acquire (uapi) */
	smp_store_release(&d.hdr->kstate, RAIDKM_KSTATE_RUNNING);
	spin_unlock_irqrestore(&d.lock, flags);
	rkm_stat_inc(RAIDKM_STAT_ATTACHES);
	pr_info("raidkm: daemon pid %d attached, backend %s\n", d.pid,
		d.backend);
out:
	ctl_unlock();
	return ret;
}

static bool is_attached_port(struct net *net, u32 portid)
{
	return (d.state == RKM_DS_RUNNING || d.state == RKM_DS_CLOSED) &&
	       d.net == net && d.portid == portid;
}

int rkm_dispatch_detach(struct net *net, u32 portid,
			struct netlink_ext_ack *extack)
{
	unsigned long flags;
	int ret = 0;

	ctl_lock();
	spin_lock_irqsave(&d.lock, flags);
	if (!is_attached_port(net, portid)) {
		ret = -EPERM;
	} else if (d.state == RKM_DS_RUNNING) {
		/* What is staged is the daemon's last submission. */
		if (d.open_slot >= 0)
			publish_locked(d.open_slot);
		d.state = RKM_DS_CLOSED;
		/* kstate: the daemon loads it with acquire (uapi) */
		smp_store_release(&d.hdr->kstate, RAIDKM_KSTATE_CLOSED);
	}
	spin_unlock_irqrestore(&d.lock, flags);
	if (ret)
		NL_SET_ERR_MSG(extack, "only the attached daemon may detach");
	else
		queue_work(d.flush_wq, &d.flush_work);
	if (!ret)
		pr_info("raidkm: daemon pid %d (%s) detaching\n", d.pid,
			d.backend);
	ctl_unlock();
	return ret;
}

int rkm_dispatch_complete(struct net *net, u32 portid,
			  struct netlink_ext_ack *extack)
{
	unsigned long flags;
	bool ok;

	spin_lock_irqsave(&d.lock, flags);
	ok = is_attached_port(net, portid);
	if (ok)
		queue_work(d.wq, &d.complete_work);
	spin_unlock_irqrestore(&d.lock, flags);
	if (!ok) {
		NL_SET_ERR_MSG(extack, "not the attached daemon");
		return -EPERM;
	}
	return 0;
}

/*
 * deadline_ms changed: a watchdog armed for the old one looks again
 * within a quarter of the new one, so a shorter deadline holds at once.
 */
void rkm_dispatch_deadline_changed(void)
{
	/* NULL while loading (the mutex is not set up yet) and at exit */
	if (!READ_ONCE(d.wq))
		return;
	mutex_lock(&d.ctl_mutex);
	if (d.wq && delayed_work_pending(&d.watchdog))
		mod_delayed_work(d.wq, &d.watchdog,
				 max(msecs_to_jiffies(rkm_deadline_ms()) / 4,
				     1UL));
	mutex_unlock(&d.ctl_mutex);
}

void rkm_dispatch_info(struct rkm_daemon_info *info)
{
	unsigned long flags;

	spin_lock_irqsave(&d.lock, flags);
	info->attached = d.state == RKM_DS_RUNNING ||
			 d.state == RKM_DS_CLOSED;
	info->pid = info->attached ? d.pid : 0;
	if (info->attached)
		strscpy(info->backend, d.backend, sizeof(info->backend));
	else
		info->backend[0] = 0;
	info->state = rkm_dstate_name[d.state];
	info->inflight = d.inflight;
	spin_unlock_irqrestore(&d.lock, flags);
}

int rkm_dispatch_init(void)
{
	u32 i;

	spin_lock_init(&d.lock);
	mutex_init(&d.ctl_mutex);
	d.state = RKM_DS_IDLE;
	for (i = 0; i < RKM_NSLOTS; i++)
		d.free_stack[i] = RKM_NSLOTS - 1 - i;
	d.nfree = RKM_NSLOTS;
	d.open_slot = -1;
	INIT_WORK(&d.complete_work, complete_work_fn);
	INIT_WORK(&d.flush_work, flush_work_fn);
	INIT_WORK(&d.loss_work, loss_work_fn);
	INIT_DELAYED_WORK(&d.watchdog, watchdog_fn);
	d.wq = alloc_ordered_workqueue("raidkm_offload",
				       WQ_MEM_RECLAIM | WQ_HIGHPRI);
	d.flush_wq = alloc_workqueue("raidkm_flush",
				     WQ_MEM_RECLAIM | WQ_HIGHPRI, 1);
	if (d.wq && d.flush_wq)
		return 0;
	if (d.wq)
		destroy_workqueue(d.wq);
	if (d.flush_wq)
		destroy_workqueue(d.flush_wq);
	d.wq = NULL;
	return -ENOMEM;
}

void rkm_dispatch_exit(void)
{
	struct workqueue_struct *wq;

	/* The device is deregistered and closed: no session is left. */
	cancel_delayed_work_sync(&d.watchdog);
	cancel_work_sync(&d.complete_work);
	cancel_work_sync(&d.flush_work);
	cancel_work_sync(&d.loss_work);
	destroy_workqueue(d.flush_wq);
	/* deadline_ms stays writable until the module is gone */
	mutex_lock(&d.ctl_mutex);
	wq = d.wq;
	WRITE_ONCE(d.wq, NULL);
	mutex_unlock(&d.ctl_mutex);
	cancel_delayed_work_sync(&d.watchdog);
	destroy_workqueue(wq);
}
