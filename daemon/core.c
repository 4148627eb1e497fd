// SPDX-License-Identifier: GPL-2.0
/*
 * raidkmd core: consume submission entries, validate them, hand them to
 * the backend, post completions, ring doorbells only when the other side
 * sleeps.  One thread runs this loop; backends may complete jobs from
 * their own threads.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

#include "ring/rkm_ring.h"
#include "rkmd.h"
#include "rkmd_log.h"

/* How long a clean stop waits for the kernel end to close the session */
#define RKMD_STOP_GRACE_MS	5000
/* Poll timeout while idle: kstate changes are noticed at least this often */
#define RKMD_IDLE_POLL_MS	100
/*
 * Entries taken per pass before completions are posted: bounds how long
 * finished jobs wait behind a long batch (an inline backend codes them
 * as it takes them).
 */
#define RKMD_CONSUME_BATCH	16
/*
 * Jobs in a row the backend failed (a lost or faulted GPU) after which the
 * daemon detaches: the kernel's CPU codec serves better than a daemon that
 * answers every job with an error.
 */
#define RKMD_MAX_FAILS_IN_A_ROW	16
/*
 * Polling mode: poll_us between looks at the submission ring while jobs
 * came in the last RKMD_POLL_BUSY_US, then RKMD_POLL_IDLE_US.
 */
#define RKMD_POLL_BUSY_US	20000
#define RKMD_POLL_IDLE_US	1000
/* Longest a published completion waits for its (coalesced) doorbell */
#define RKMD_BELL_DELAY_US	500

struct rkmd_slot {
	struct rkmd_job job;
	uint32_t gen;
	uint8_t busy;
	__u64 *offs;
	uint8_t **ptrs;
	int32_t result[RAIDKM_MAX_STRIPES];
};

/* write-output-late fault: the outputs of one completed job */
#define RKMD_LATE_MAX	(RAIDKM_MAX_STRIPES * RAIDKM_MAX_M)
struct late_outputs {
	uint32_t n, len;
	uint8_t *p[RKMD_LATE_MAX];
};

struct pend_ent {
	uint32_t id;
	uint32_t gen;
	int32_t status;
	uint64_t bitmap;
};

struct rkmd_core {
	struct rkmd_transport *t;
	const struct rkmd_core_cfg *cfg;
	const struct rkmd_backend_ops *bops;
	struct rkmd_backend *be;
	struct raidkm_shm_hdr hdr;	/* private, checked copy */
	struct raidkm_shm_hdr *shdr;	/* shared: only kstate, session re-read */
	struct rkm_shm_limits lim;
	struct rkm_ring sq, cq;
	uint8_t *desc, *arena;
	struct rkmd_slot *slots;
	uint32_t ndesc_max;

	/*
	 * ->lock covers the completion side, which backend threads share
	 * with the serving thread: pending completions, the completion ring
	 * (producer), slot busy flags, ->inflight, ->sleeping and the stats.
	 * While the serving thread sleeps, a backend thread that completes a
	 * job posts it to the ring itself, so completions never wait for a
	 * wake-up of the serving thread.
	 */
	pthread_mutex_t lock;
	int sleeping;
	int proto_err;
	uint32_t fails_in_a_row;	/* backend errors since its last success */
	uint64_t last_work_us;		/* polling: when entries last came */
	uint64_t last_busy_us;		/* spinning: last entry or completion */
	struct timespec poll_ts;
	int wake_fd;
	volatile sig_atomic_t stop;
	struct pend_ent *pend;
	uint32_t npend, pend_cap;
	uint32_t inflight;
	uint32_t unbelled;	/* published while the kernel end slept */
	uint64_t unbelled_since;	/* us */
	uint64_t coded;
	uint64_t taken;		/* jobs seen by the skip fault */
	uint64_t seen_in;	/* jobs seen by the write-input fault */
	uint64_t seen_out;	/* jobs seen by the write-output-late fault */
	uint64_t seen_fail;	/* jobs seen by the fail-late fault */
	struct late_outputs late;	/* to overwrite once posted */
	struct rkmd_stats st;
};

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

void rkmd_core_stop(struct rkmd_core *c)
{
	uint64_t one = 1;
	ssize_t r;

	if (!c)
		return;
	c->stop = 1;
	r = write(c->wake_fd, &one, sizeof(one));
	(void)r;
}

static void post(struct rkmd_core *c, uint32_t id, uint32_t gen,
		 int32_t status, uint64_t bitmap)
{
	struct pend_ent *p = &c->pend[c->npend++];

	p->id = id;
	p->gen = gen;
	p->status = status;
	p->bitmap = bitmap;
}

static uint64_t now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

static void ring_locked(struct rkmd_core *c)
{
	c->unbelled = 0;
	c->st.doorbells_out++;
	if (c->t->ops->complete(c->t, c->cq.local) < 0)
		rkmd_warn("completion doorbell failed");
}

/* Ring for completions published earlier if it is time.  ->lock held. */
static int bell_locked(struct rkmd_core *c, int force)
{
	if (!c->unbelled)
		return 0;
	if (!force && c->inflight &&
	    now_us() - c->unbelled_since < RKMD_BELL_DELAY_US)
		return 0;
	rkm_ring_mb();
	if (rkm_ring_read_once(c->cq.ctl->flags) & RAIDKM_RING_NEED_WAKEUP)
		ring_locked(c);
	c->unbelled = 0;
	return 0;
}

/*
 * fault injection: overwrite the outputs of a job whose completion is
 * posted, 1 ms after the kernel end moved the completion ring's head past
 * it (it has taken the outputs then, uapi: struct raidkm_cqe).  Waits
 * until no completion is pending, so that the job's is posted, and gives
 * up after RKMD_LATE_WAIT_US.  ->lock held.
 */
#define RKMD_LATE_WAIT_US	5000000
static void write_late(struct rkmd_core *c)
{
	uint64_t t0 = now_us();
	uint32_t i;

	if (!c->late.n || c->npend)
		return;
	bell_locked(c, 1);
	while ((int32_t)(rkm_ring_load_acquire(&c->cq.ctl->head) -
			 c->cq.local) < 0) {
		if (now_us() - t0 > RKMD_LATE_WAIT_US) {
			rkmd_warn("fault injection: the completion head did not pass; no late write");
			c->late.n = 0;
			return;
		}
		usleep(100);
	}
	usleep(1000);
	for (i = 0; i < c->late.n; i++)
		memset(c->late.p[i], 0xa5, c->late.len);
	rkmd_warn("fault injection: overwrote %u output chunk(s) after their completion",
		  c->late.n);
	c->late.n = 0;
}

/* Remember a finished job's outputs for write_late().  ->lock held. */
static void keep_late(struct rkmd_core *c, const struct rkmd_job *j)
{
	uint32_t s, i, n = j->k + j->m;

	if (c->late.n)
		return;		/* one at a time */
	for (s = 0; s < j->nstripes; s++)
		for (i = 0; i < n; i++) {
			if (j->op == RKMD_OP_DECODE ?
			    !(j->want & (1ull << i)) : i < j->k)
				continue;
			if (c->late.n < RKMD_LATE_MAX)
				c->late.p[c->late.n++] = j->chunk[s * n + i];
		}
	c->late.len = j->len;
	c->st.faults++;
}

/*
 * Write pending completions into the ring and ring the doorbell when the
 * kernel end sleeps (coalesced, see below); 0 or -EPROTO.  ->lock held.
 */
static int flush_locked(struct rkmd_core *c, int force)
{
	struct raidkm_cqe *e;
	uint32_t i, n, thresh;
	int room;

	if (!c->npend)
		return bell_locked(c, force);
	room = rkm_prod_room(&c->cq);
	if (room < 0) {
		rkmd_err("completion ring head is corrupt");
		return -EPROTO;
	}
	n = c->npend < (uint32_t)room ? c->npend : (uint32_t)room;
	if (!n)
		return 0;
	if (c->cfg->fault.delay_us)
		usleep(c->cfg->fault.delay_us);
	for (i = 0; i < n; i++) {
		e = rkm_prod_slot(&c->cq);
		e->id = c->pend[i].id;
		e->gen = c->pend[i].gen;
		e->status = c->pend[i].status;
		e->flags = 0;
		e->check_bitmap = c->pend[i].bitmap;
		e->__resv = 0;
		rkm_prod_commit(&c->cq);
	}
	c->npend -= n;
	if (c->npend)
		memmove(c->pend, c->pend + n, c->npend * sizeof(*c->pend));
	if (!rkm_prod_publish(&c->cq)) {
		/* The kernel end is awake and will see them. */
		c->unbelled = 0;
		write_late(c);
		return 0;
	}
	if (!c->unbelled)
		c->unbelled_since = now_us();
	c->unbelled += n;
	/*
	 * Coalesce doorbells while the backend still holds jobs: ring after
	 * a quarter of what is in flight (at most 16) has completed, when
	 * nothing is left in flight, or RKMD_BELL_DELAY_US after the first
	 * completion that was not rung for.
	 */
	thresh = c->inflight / 4;
	if (thresh > 16)
		thresh = 16;
	if (force || !c->inflight || c->unbelled > thresh ||
	    now_us() - c->unbelled_since >= RKMD_BELL_DELAY_US)
		ring_locked(c);
	write_late(c);
	return 0;
}

static int32_t map_status(int status)
{
	switch (status) {
	case 0:
		return RAIDKM_ST_OK;
	case -EINVAL:
		return RAIDKM_ST_EINVAL;
	case -EOPNOTSUPP:
		return RAIDKM_ST_EOPNOTSUPP;
	case -ENOMEM:
		return RAIDKM_ST_ENOMEM;
	default:
		return RAIDKM_ST_EIO;
	}
}

/* fault injection: one byte of the job's first output chunk flipped */
static void corrupt_output(struct rkmd_slot *s)
{
	struct rkmd_job *j = &s->job;
	uint8_t *p = j->chunk[j->k];
	int i;

	if (j->op == RKMD_OP_DECODE) {
		for (i = 0; i < j->k + j->m; i++)
			if (j->want & (1ull << i)) {
				p = j->chunk[i];
				break;
			}
	}
	p[j->len / 2] ^= 0x5a;
}

static void wake(struct rkmd_core *c)
{
	uint64_t one = 1;
	ssize_t r;

	r = write(c->wake_fd, &one, sizeof(one));
	(void)r;
}

/* A job the backend finished: make its completion.  ->lock held. */
static void finish_locked(struct rkmd_core *c, uint32_t id, int status)
{
	struct rkmd_slot *s = &c->slots[id];
	uint64_t bitmap = 0;
	int32_t st;
	uint32_t k;

	st = map_status(status);
	if (st == RAIDKM_ST_OK && s->job.op != RKMD_OP_CHECK &&
	    c->cfg->fault.fail_late_every && !c->late.n &&
	    ++c->seen_fail % c->cfg->fault.fail_late_every == 0) {
		/* answered failed; its outputs written after all, later */
		keep_late(c, &s->job);
		st = RAIDKM_ST_EIO;
	}
	if (st == RAIDKM_ST_OK && s->job.op == RKMD_OP_CHECK) {
		for (k = 0; k < s->job.nstripes; k++) {
			if (s->result[k] < 0)
				st = RAIDKM_ST_EIO;
			else if (s->result[k])
				bitmap |= 1ull << k;
		}
		if (st != RAIDKM_ST_OK)
			bitmap = 0;
	}
	if (st != RAIDKM_ST_OK && st != RAIDKM_ST_EINVAL) {
		c->st.backend_errors++;
		if (++c->fails_in_a_row == RKMD_MAX_FAILS_IN_A_ROW) {
			rkmd_err("backend %s failed %u jobs in a row: detaching",
				 c->bops->name, c->fails_in_a_row);
			c->stop = 1;
			wake(c);
		}
	} else if (st == RAIDKM_ST_OK) {
		c->fails_in_a_row = 0;
	}
	if (st == RAIDKM_ST_OK && s->job.op != RKMD_OP_CHECK &&
	    c->cfg->fault.corrupt_every &&
	    ++c->coded % c->cfg->fault.corrupt_every == 0) {
		corrupt_output(s);
		c->st.faults++;
	}
	if (st == RAIDKM_ST_OK && s->job.op != RKMD_OP_CHECK &&
	    c->cfg->fault.write_output_late_every &&
	    ++c->seen_out % c->cfg->fault.write_output_late_every == 0)
		keep_late(c, &s->job);
	post(c, id, s->gen, st, bitmap);
	s->busy = 0;
	c->inflight--;
}

static void core_done(void *ctx, struct rkmd_job *job, int status)
{
	struct rkmd_core *c = ctx;

	pthread_mutex_lock(&c->lock);
	finish_locked(c, (uint32_t)job->tag, status);
	__atomic_store_n(&c->last_busy_us, now_us(), __ATOMIC_RELAXED);
	if (c->sleeping) {
		/* The serving thread sleeps: post it from here. */
		if (flush_locked(c, 0))
			c->proto_err = 1;
		if (c->npend || c->proto_err)
			wake(c);	/* ring full or broken: let it look */
	}
	pthread_mutex_unlock(&c->lock);
}

/*
 * fault injection: a lying backend.  1 job in N is answered successful
 * without being coded (CHECK: "consistent"); returns 1 when this one is.
 */
static int skip_job(struct rkmd_core *c, struct rkmd_slot *s)
{
	uint32_t k;

	if (!c->cfg->fault.skip_every ||
	    ++c->taken % c->cfg->fault.skip_every)
		return 0;
	for (k = 0; k < s->job.nstripes; k++)
		s->result[k] = 0;
	pthread_mutex_lock(&c->lock);
	c->st.faults++;
	finish_locked(c, (uint32_t)s->job.tag, 0);
	pthread_mutex_unlock(&c->lock);
	return 1;
}

static void on_input_fault(int sig)
{
	static const char msg[] =
		"raidkmd: fault injection: the write to an input chunk faulted (read-only mapping): raidkmd dies\n";
	ssize_t r = write(2, msg, sizeof(msg) - 1);

	(void)r;
	signal(sig, SIG_DFL);
	raise(sig);
}

/*
 * fault injection: a daemon that writes the data it was given to code.
 * With RAIDKM_FEAT_RO_INPUT the page is mapped read-only: the write
 * faults and raidkmd dies of it (logged first); on an older kernel end it
 * succeeds and the job is then coded over the changed data.
 */
static void write_input(struct rkmd_core *c, struct rkmd_slot *s)
{
	uint32_t i, n = s->job.nstripes * (s->job.k + s->job.m);
	volatile uint8_t *p = NULL;

	if (!c->cfg->fault.write_input_every ||
	    ++c->seen_in % c->cfg->fault.write_input_every)
		return;
	for (i = 0; i < n && !p; i++)
		if (s->job.chunk[i] &&
		    !rkm_desc_is_output(&(struct raidkm_sqe){
			.op = s->job.op, .k = s->job.k, .m = s->job.m,
			.nstripes = s->job.nstripes, .mask = s->job.mask,
			.want = s->job.want }, i))
			p = s->job.chunk[i];
	if (!p)
		return;
	signal(SIGSEGV, on_input_fault);
	signal(SIGBUS, on_input_fault);
	rkmd_warn("fault injection: writing an input chunk of job %u",
		  (uint32_t)s->job.tag);
	c->st.faults++;
	p[s->job.len / 2] ^= 0x5a;
}

static void reject(struct rkmd_core *c, const struct raidkm_sqe *e,
		   int32_t st, const char *why)
{
	c->st.rejected++;
	rkmd_warn("submission %u/%u rejected: %s", e->id, e->gen, why);
	/* An id out of range cannot be answered. */
	if (e->id >= c->lim.nslots)
		return;
	pthread_mutex_lock(&c->lock);
	post(c, e->id, e->gen, st, 0);
	pthread_mutex_unlock(&c->lock);
}

/* Validate one submission entry and start it */
static void consume_one(struct rkmd_core *c, const struct raidkm_sqe *shared)
{
	struct raidkm_sqe e;
	struct rkmd_slot *s;
	const char *why;
	uint32_t i, n;
	int st, busy;

	rkm_sqe_read(shared, &e);
	c->st.jobs++;
	st = rkm_sqe_check(&e, &c->lim, &why);
	if (st) {
		reject(c, &e, st, why);
		return;
	}
	s = &c->slots[e.id];
	pthread_mutex_lock(&c->lock);
	busy = s->busy;
	pthread_mutex_unlock(&c->lock);
	if (busy) {
		reject(c, &e, RAIDKM_ST_EINVAL, "slot still busy");
		return;
	}
	st = rkm_desc_read(&e, (const __u64 *)(c->desc +
				(size_t)e.id * c->lim.desc_slot_size),
			   &c->lim, s->offs, &why);
	if (st) {
		reject(c, &e, st, why);
		return;
	}
	n = e.ndesc;
	for (i = 0; i < n; i++)
		s->ptrs[i] = s->offs[i] == RAIDKM_OFF_NONE ? NULL :
			     c->arena + s->offs[i];
	s->gen = e.gen;
	s->job.tag = e.id;
	s->job.op = e.op;
	s->job.k = e.k;
	s->job.m = e.m;
	s->job.len = e.len;
	s->job.nstripes = e.nstripes;
	s->job.mask = e.mask;
	/* the core's jobs always say what they write (rkmd_backend.h) */
	s->job.want = e.want ? e.want : e.mask;
	s->job.chunk = s->ptrs;
	s->job.old = e.op == RAIDKM_OP_DELTA ?
		     s->ptrs + (size_t)e.nstripes * (e.k + e.m) : NULL;
	s->job.result = s->result;
	c->st.stripes += e.nstripes;
	c->st.bytes += (uint64_t)e.ndesc * e.len;
	pthread_mutex_lock(&c->lock);
	s->busy = 1;
	c->inflight++;
	pthread_mutex_unlock(&c->lock);

	if (c->cfg->fault.exit_after &&
	    c->st.jobs >= c->cfg->fault.exit_after) {
		rkmd_warn("fault injection: exiting after %llu jobs",
			  (unsigned long long)c->st.jobs);
		_exit(3);
	}
	if (skip_job(c, s))
		return;
	write_input(c, s);
	st = c->bops->submit(c->be, &s->job);
	if (st) {
		/* Not queued: complete it here with the backend's error. */
		pthread_mutex_lock(&c->lock);
		finish_locked(c, e.id, st);
		pthread_mutex_unlock(&c->lock);
	}
}

/* Consume what the submission ring holds; returns entries or -EPROTO */
static int consume(struct rkmd_core *c)
{
	uint32_t i, n, cap;
	int avail;

	avail = rkm_cons_avail(&c->sq);
	if (avail < 0) {
		rkmd_err("submission ring tail is corrupt");
		return -EPROTO;
	}
	/* Back-pressure: never hold more completions than we can store. */
	pthread_mutex_lock(&c->lock);
	cap = c->pend_cap - c->npend - c->inflight;
	pthread_mutex_unlock(&c->lock);
	if (cap > RKMD_CONSUME_BATCH)
		cap = RKMD_CONSUME_BATCH;
	n = (uint32_t)avail < cap ? (uint32_t)avail : cap;
	for (i = 0; i < n; i++)
		consume_one(c, rkm_cons_peek(&c->sq, i));
	if (n)
		rkm_cons_release(&c->sq, n);
	return n;
}

static int core_setup(struct rkmd_core *c)
{
	const char *why;
	uint32_t i;
	int ret;

	if (c->t->map_len < RAIDKM_HDR_SIZE)
		return -EINVAL;
	c->shdr = c->t->map;
	memcpy(&c->hdr, c->shdr, sizeof(c->hdr));
	ret = rkm_shm_check(&c->hdr, c->t->map_len, &why);
	if (ret) {
		rkmd_err("shared memory header: %s", why);
		return -EPROTO;
	}
	rkm_shm_limits(&c->hdr, &c->lim);
	/* Start at the indices the kernel end left (0 on a fresh open). */
	rkm_ring_init(&c->sq, &c->shdr->sq_ctl, (uint8_t *)c->t->map +
		      c->hdr.sq_off, c->hdr.sq_entries, c->hdr.sqe_size,
		      rkm_ring_load_acquire(&c->shdr->sq_ctl.head));
	rkm_ring_init(&c->cq, &c->shdr->cq_ctl, (uint8_t *)c->t->map +
		      c->hdr.cq_off, c->hdr.cq_entries, c->hdr.cqe_size,
		      rkm_ring_load_acquire(&c->shdr->cq_ctl.tail));
	if (rkm_cons_avail(&c->sq) < 0 || rkm_prod_room(&c->cq) < 0) {
		rkmd_err("ring indices are inconsistent at start");
		return -EPROTO;
	}
	c->desc = (uint8_t *)c->t->map + c->hdr.desc_off;
	c->arena = (uint8_t *)c->t->map + c->hdr.arena_off;
	c->ndesc_max = c->lim.desc_slot_size / 8;
	c->slots = calloc(c->lim.nslots, sizeof(*c->slots));
	c->pend_cap = c->hdr.cq_entries + c->lim.nslots;
	c->pend = calloc(c->pend_cap, sizeof(*c->pend));
	if (!c->slots || !c->pend)
		return -ENOMEM;
	for (i = 0; i < c->lim.nslots; i++) {
		c->slots[i].offs = calloc(c->ndesc_max, sizeof(__u64));
		c->slots[i].ptrs = calloc(c->ndesc_max, sizeof(uint8_t *));
		if (!c->slots[i].offs || !c->slots[i].ptrs)
			return -ENOMEM;
	}
	return 0;
}

static void core_free(struct rkmd_core *c)
{
	uint32_t i;

	if (c->slots)
		for (i = 0; i < c->lim.nslots; i++) {
			free(c->slots[i].offs);
			free(c->slots[i].ptrs);
		}
	free(c->slots);
	free(c->pend);
	if (c->wake_fd >= 0)
		close(c->wake_fd);
	pthread_mutex_destroy(&c->lock);
}

/*
 * Polling mode (cfg->poll_us): how long to wait before looking at the
 * submission ring again: poll_us while work came recently, then
 * RKMD_POLL_IDLE_US, never longer than @timeout_ms.
 */
static const struct timespec *poll_interval(struct rkmd_core *c,
					    int timeout_ms)
{
	uint64_t us = c->cfg->poll_us;

	if (now_us() - c->last_work_us > RKMD_POLL_BUSY_US)
		us = RKMD_POLL_IDLE_US;
	if (us > (uint64_t)timeout_ms * 1000)
		us = (uint64_t)timeout_ms * 1000;
	c->poll_ts.tv_sec = us / 1000000;
	c->poll_ts.tv_nsec = (us % 1000000) * 1000;
	return &c->poll_ts;
}

static inline void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#endif
}

/*
 * Spinning (cfg->spin_us): right after work (an entry taken or a job
 * completed) the next entry usually follows within microseconds, and a
 * doorbell would cost the producer a system call and this thread a
 * wake-up.  Look at the submission ring without sleeping until spin_us
 * have passed since the last work; returns 1 when entries came.  An idle
 * daemon never spins: the window opens only with work.
 */
static int spin_for_work(struct rkmd_core *c)
{
	uint64_t last, t;
	unsigned int i = 0;

	if (!c->cfg->spin_us)
		return 0;
	for (;;) {
		if (rkm_cons_avail(&c->sq) != 0)
			return 1;
		if (c->stop || (c->cfg->stop_flag &&
				__atomic_load_n(c->cfg->stop_flag,
						__ATOMIC_RELAXED)))
			return 0;
		if (++i % 32)
			continue;
		last = __atomic_load_n(&c->last_busy_us, __ATOMIC_RELAXED);
		t = now_us();
		if (t - last >= c->cfg->spin_us)
			return 0;
		cpu_relax();
	}
}

static int idle_wait(struct rkmd_core *c, int timeout_ms)
{
	struct pollfd pfd[2];
	uint64_t v;
	ssize_t r;
	int n, ret = 0;

	/* From here on backend threads post their own completions. */
	pthread_mutex_lock(&c->lock);
	if (flush_locked(c, 0))
		c->proto_err = 1;
	c->sleeping = 1;
	pthread_mutex_unlock(&c->lock);
	pfd[0].revents = pfd[1].revents = 0;
	if (!c->cfg->poll_us && spin_for_work(c)) {
		pthread_mutex_lock(&c->lock);
		c->sleeping = 0;
		pthread_mutex_unlock(&c->lock);
		return 0;
	}
	/* Polling: never ask for a doorbell, look again soon. */
	n = c->cfg->poll_us ? rkm_cons_avail(&c->sq) :
			      rkm_cons_prepare_sleep(&c->sq);
	if (n != 0) {
		n = 0;		/* work arrived: do not sleep */
	} else {
		pfd[0].fd = c->t->fd;
		pfd[0].events = POLLIN;
		pfd[1].fd = c->wake_fd;
		pfd[1].events = POLLIN;
		if (c->cfg->poll_us) {
			n = ppoll(pfd, 2, poll_interval(c, timeout_ms), NULL);
		} else {
			n = poll(pfd, 2, timeout_ms);
			rkm_cons_woken(&c->sq);
		}
	}
	/* Awake: this thread posts again (and owns the transport's socket). */
	pthread_mutex_lock(&c->lock);
	c->sleeping = 0;
	pthread_mutex_unlock(&c->lock);
	if (n > 0 && (pfd[0].revents & (POLLIN | POLLHUP | POLLERR))) {
		c->st.doorbells_in++;
		ret = c->t->ops->events(c->t);
	}
	if (n > 0 && (pfd[1].revents & POLLIN)) {
		r = read(c->wake_fd, &v, sizeof(v));
		(void)r;
	}
	return ret;
}

/* The wake-up eventfd, the shared region's view, the backend opened */
static int core_start(struct rkmd_core *c)
{
	char why[256] = "";
	int ret;

	c->wake_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (c->wake_fd < 0)
		return -errno;
	ret = core_setup(c);
	if (ret)
		return ret;
	c->be = c->bops->open(c->arena, c->lim.arena_size,
			      c->lim.stage_start, c->cfg->threads,
			      core_done, c, why, sizeof(why));
	if (!c->be) {
		rkmd_err("backend %s: %s", c->bops->name, why);
		return -ENODEV;
	}
	return 0;
}

/* ATTACH: what this daemon offers, and the features agreed */
static int core_attach(struct rkmd_core *c)
{
	struct rkmd_transport *t = c->t;
	struct rkmd_attach_info ai;
	uint64_t features = 0;
	int ret;

	memset(&ai, 0, sizeof(ai));
	ai.backend = c->bops->name;
	ai.session = c->hdr.session;
	/*
	 * Every transport maps inputs read-only when offered (shm_map.c).
	 * Wanted-subset decodes only when the backend writes just those.
	 */
	ai.features = RAIDKM_FEAT_ALL;
	if (!c->bops->decode_want)
		ai.features &= ~RAIDKM_FEAT_DECODE_WANT;
	ai.max_k = RAIDKM_MAX_N - 1;
	ai.max_m = RAIDKM_MAX_M;
	ai.batch = c->cfg->batch ? c->cfg->batch : 16;
	if (ai.batch > c->lim.max_stripes)
		ai.batch = c->lim.max_stripes;
	ai.ops = (1u << RAIDKM_OP_ENCODE) | (1u << RAIDKM_OP_DECODE) |
		 (1u << RAIDKM_OP_DELTA) | (1u << RAIDKM_OP_CHECK);
	ret = t->ops->attach(t, &ai, &features);
	if (ret) {
		rkmd_err("attach failed: %s", strerror(-ret));
		return ret;
	}
	c->lim.features = features;
	rkmd_info("attached via %s: backend %s, %u slots, arena %llu MiB, features 0x%llx",
		  t->ops->name, c->bops->name, c->lim.nslots,
		  (unsigned long long)(c->lim.arena_size >> 20),
		  (unsigned long long)features);
	return 0;
}

/* What one turn of the serving loop saw */
struct serve_state {
	int detach_sent, closed;
	uint64_t stop_deadline;
	uint32_t inflight, npend, unbelled;
};

/* New jobs from the ring (none once closed): their count, or -errno */
static int serve_consume(struct rkmd_core *c, const struct serve_state *s)
{
	int n;

	if (s->closed)
		return 0;
	n = consume(c);
	if (n > 0 && c->cfg->poll_us)
		c->last_work_us = now_us();
	if (n > 0 && c->cfg->spin_us)
		__atomic_store_n(&c->last_busy_us, now_us(), __ATOMIC_RELAXED);
	return n;
}

/* Completions posted (their count, -EPROTO); s gets the counts after */
static int serve_flush(struct rkmd_core *c, struct serve_state *s)
{
	int n, perr;

	pthread_mutex_lock(&c->lock);
	n = c->npend;
	if (flush_locked(c, 0))
		c->proto_err = 1;
	n -= c->npend;
	perr = c->proto_err;
	s->inflight = c->inflight;
	s->npend = c->npend;
	s->unbelled = c->unbelled;
	pthread_mutex_unlock(&c->lock);
	return perr ? -EPROTO : n;
}

/* Asked to stop: DETACH once, then drain for RKMD_STOP_GRACE_MS */
static void serve_detach(struct rkmd_core *c, struct serve_state *s)
{
	if (!c->stop || s->detach_sent)
		return;
	rkmd_info("stopping: draining %u job(s) and detaching", s->inflight);
	if (c->t->ops->detach(c->t))
		rkmd_warn("detach request failed");
	s->detach_sent = 1;
	s->stop_deadline = now_ms() + RKMD_STOP_GRACE_MS;
}

/*
 * The kernel end's side of the session: 0 as before, 1 it closed just
 * now (jobs drained from the ring: look again), or -errno (it is over).
 */
static int serve_session(struct rkmd_core *c, struct serve_state *s)
{
	int n;

	if (rkm_ring_read_once(c->shdr->session) != c->hdr.session) {
		/*
		 * The kernel end laid the region out again for a new opener
		 * (only a bridged daemon, which does not hold the device
		 * itself, can see this): these rings are no longer ours,
		 * post nothing.
		 */
		rkmd_err("the shared region was reset under this daemon");
		return -ECONNRESET;
	}
	if (rkm_ring_load_acquire(&c->shdr->kstate) != RAIDKM_KSTATE_CLOSED ||
	    s->closed)
		return 0;
	/* The kernel submits nothing after CLOSED: drain. */
	n = consume(c);
	if (n < 0)
		return n;
	s->closed = 1;
	if (!s->detach_sent)
		rkmd_info("kernel closed the session");
	return 1;
}

/* Is the session over (*ret its outcome)? */
static int serve_over(const struct serve_state *s, int *ret)
{
	if (!(s->closed || (s->detach_sent && now_ms() > s->stop_deadline)) ||
	    s->inflight || s->npend)
		return 0;
	/* Closed without our DETACH: the kernel dropped us. */
	*ret = s->detach_sent ? 0 : -ECONNRESET;
	return 1;
}

/* Serve until the session ends: 0 after our DETACH, else -errno */
static int serve_loop(struct rkmd_core *c)
{
	const struct rkmd_core_cfg *cfg = c->cfg;
	struct serve_state s;
	int ret, n, progress;

	memset(&s, 0, sizeof(s));
	for (;;) {
		if (cfg->stop_flag &&
		    __atomic_load_n(cfg->stop_flag, __ATOMIC_RELAXED))
			c->stop = 1;
		progress = serve_consume(c, &s);
		if (progress < 0)
			return progress;
		n = serve_flush(c, &s);
		if (n < 0)
			return n;
		progress += n;
		serve_detach(c, &s);
		n = serve_session(c, &s);
		if (n < 0)
			return n;
		if (n)
			continue;
		if (serve_over(&s, &ret))
			return ret;
		if (progress)
			continue;
		/*
		 * Coalesced doorbells are checked at every completion; the
		 * 1 ms (pending) and 10 ms (jobs out) wake-ups only bound
		 * their delay when the backend stalls.
		 */
		ret = idle_wait(c, s.npend || s.unbelled ? 1 :
				(s.inflight || c->stop ? 10 : RKMD_IDLE_POLL_MS));
		if (ret) {
			if (ret != -ENOTCONN)
				rkmd_warn("kernel end went away: %s",
					  strerror(-ret));
			return ret;
		}
	}
}

/* After the loop: what the backend holds finished, posted if we can */
static int core_finish(struct rkmd_core *c, int ret)
{
	if (!ret && c->fails_in_a_row >= RKMD_MAX_FAILS_IN_A_ROW)
		ret = -EIO;	/* stopped because the backend fails */
	c->bops->drain(c->be);
	pthread_mutex_lock(&c->lock);
	if (!ret)
		flush_locked(c, 1);
	pthread_mutex_unlock(&c->lock);
	return ret;
}

/* The backend closed, the session's figures logged and returned */
static void core_close(struct rkmd_core *c, struct rkmd_stats *stats)
{
	c->bops->close(c->be);
	if (!c->cfg->quiet_stats)
		rkmd_info("served %llu jobs (%llu stripes, %llu MiB), %llu rejected, %llu backend errors, %llu faults injected",
			  (unsigned long long)c->st.jobs,
			  (unsigned long long)c->st.stripes,
			  (unsigned long long)(c->st.bytes >> 20),
			  (unsigned long long)c->st.rejected,
			  (unsigned long long)c->st.backend_errors,
			  (unsigned long long)c->st.faults);
	if (stats)
		*stats = c->st;
}

int rkmd_serve(struct rkmd_transport *t, const struct rkmd_core_cfg *cfg,
	       struct rkmd_stats *stats, struct rkmd_core *volatile *corep)
{
	struct rkmd_core *c;
	int ret;

	c = calloc(1, sizeof(*c));
	if (!c)
		return -ENOMEM;
	c->t = t;
	c->cfg = cfg;
	c->bops = cfg->backend;
	pthread_mutex_init(&c->lock, NULL);
	ret = core_start(c);
	if (ret)
		goto out_free;
	ret = core_attach(c);
	if (!ret) {
		if (corep)
			*corep = c;
		ret = serve_loop(c);
		if (corep)
			*corep = NULL;
		ret = core_finish(c, ret);
	}
	core_close(c, stats);
out_free:
	core_free(c);
	free(c);
	return ret;
}
