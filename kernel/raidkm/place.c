// SPDX-License-Identifier: GPL-2.0
/*
 * Job placement: the decision and the estimates it is made from (see
 * place.h; Documentation/offload.rst, "Placement").
 *
 *   CPU     (cpu_ps * bytes + cpu_ps * cpu_bytes / ncpus)
 *           * 100 / (100 - busy_pct)
 *   daemon  waited:     d_ns + d_qps * ring_bytes
 *           not waited: d_ps * (ring_bytes + bytes)
 *
 * (ps terms divided by 1000; busy_pct, the CPUs' busy share lately, at
 * most RKM_PLACE_BUSY_MAX, and 0 for a job under RKM_PLACE_BUSY_MIN_BYTES:
 * cpu_ps is a job's own time on a CPU, and a CPU that is busy with other
 * work, the reads and copies of the data path among it, gives the job
 * only the rest.)  The lower one wins,
 * ties go to the CPU;
 * a side not measured yet for the class is tried first, one job in
 * RKM_PLACE_EXPLORE times other / chosen goes to the side not chosen
 * while that side is expected within RKM_PLACE_EXPLORE_RANGE times the
 * chosen one's cost,
 * and one job of a class whose other side is older than
 * RKM_PLACE_STALE_NS, however slow (so a far slower side costs one job
 * per period, not one in 64: a 4 KiB update's p99 stays the CPU's).
 * The daemon's estimates rise fast (half-way to each slower sample) and
 * fall slowly (an eighth), so a daemon that slows down loses its jobs
 * within a few completions.  d_ps is the time per byte of its entries
 * (of the work ahead too), d_qps what work ahead adds to a waited job:
 * learned from entries that completed with work ahead of them, beyond the
 * daemon's own latency (near nothing for a daemon that codes several
 * entries at once); until one has, d_ps stands for it.
 */
#include "place.h"

#define RKM_PLACE_CPU_SHIFT	3	/* CPU: an eighth of each sample */
#define RKM_PLACE_RISE_SHIFT	1	/* daemon, slower sample: half */
#define RKM_PLACE_FALL_SHIFT	3	/* daemon, faster sample: an eighth */

static const char *const rkm_place_ops[RKM_PLACE_NOPS] = {
	"encode", "decode", "delta", "check",
};

static const char *const rkm_place_classes[RKM_PLACE_CLASSES] = {
	"0-16K", "16K-64K", "64K-256K", "256K-1M", "1M-4M", "4M-",
};

static const char *const rkm_place_modes[RKM_PLACE_NMODES] = {
	"default", "auto", "cpu", "daemon",
};

rkm_u64 rkm_place_bytes(int op, int k, int m, int nchanged, rkm_u32 len)
{
	switch (op) {
	case RKM_PLACE_CHECK:
		return (rkm_u64)(k + m) * len;
	case RKM_PLACE_DELTA:
		return (rkm_u64)(2 * nchanged + m) * len;
	default:
		return (rkm_u64)k * len;
	}
}

int rkm_place_class(rkm_u64 bytes)
{
	int lg, cls;

	if (bytes < (16 << 10))
		return 0;
	lg = 63 - __builtin_clzll(bytes);
	cls = (lg - 12) / 2;
	return cls < RKM_PLACE_CLASSES ? cls : RKM_PLACE_CLASSES - 1;
}

const char *rkm_place_class_name(int cls)
{
	return cls >= 0 && cls < RKM_PLACE_CLASSES ?
	       rkm_place_classes[cls] : "?";
}

const char *rkm_place_op_name(int op)
{
	return op >= 0 && op < RKM_PLACE_NOPS ? rkm_place_ops[op] : "?";
}

/* @s is @word, maybe followed by one newline (as sysfs writes come) */
static int rkm_place_word_is(const char *s, const char *word)
{
	rkm_size_t n = strlen(word);

	return !strncmp(s, word, n) &&
	       (!s[n] || (s[n] == '\n' && !s[n + 1]));
}

int rkm_place_mode_parse(const char *s, int per_array)
{
	int mode;

	for (mode = per_array ? RKM_PLACE_DEFAULT : RKM_PLACE_AUTO;
	     mode < RKM_PLACE_NMODES; mode++)
		if (rkm_place_word_is(s, rkm_place_modes[mode]))
			return mode;
	return -1;
}

const char *rkm_place_mode_name(int mode)
{
	return mode >= 0 && mode < RKM_PLACE_NMODES ?
	       rkm_place_modes[mode] : "?";
}

/* ps per byte, or ns per job, of a sample, within the caps (at least 1) */
static rkm_u32 rkm_place_clamp(rkm_u64 v, rkm_u32 max)
{
	if (v > max)
		return max;
	return v ? (rkm_u32)v : 1;
}

/* Move @old toward @sample by 1 / 2^rise up, 1 / 2^fall down */
static rkm_u32 rkm_place_ewma(rkm_u32 old, rkm_u32 sample, int rise,
			      int fall)
{
	if (!old)
		return sample;
	if (sample > old)
		return old + ((sample - old + (1u << rise) - 1) >> rise);
	return old - ((old - sample) >> fall);
}

static rkm_u64 rkm_place_ps(rkm_u64 ps, rkm_u64 bytes)
{
	return (ps * bytes + 999) / 1000;
}

static struct rkm_place_cell *rkm_place_cell_of(struct rkm_place_est *est,
						int op, rkm_u64 bytes)
{
	if (op < 0 || op >= RKM_PLACE_NOPS)
		return NULL;
	return &est->cell[op][rkm_place_class(bytes)];
}

rkm_u32 rkm_place_busy_share(rkm_u64 wall_us, rkm_u64 idle_us,
			     rkm_u64 own_us)
{
	rkm_u64 other;

	if (!wall_us || idle_us >= wall_us)
		return 0;
	other = wall_us - idle_us;
	other -= other < own_us ? other : own_us;
	return (rkm_u32)(other * 100 / wall_us);
}

rkm_u64 rkm_place_cpu_ns(const struct rkm_place_cell *c,
			 const struct rkm_place_job *job,
			 const struct rkm_place_load *load)
{
	rkm_u64 ps = rkm_read_once(c->cpu_ps);
	rkm_u32 ncpus = load->ncpus ? load->ncpus : 1;
	rkm_u32 busy = load->busy_pct;
	rkm_u64 ns;

	if (!ps)
		return 0;
	ns = rkm_place_ps(ps, job->bytes) +
	     rkm_place_ps(ps, load->cpu_bytes) / ncpus;
	if (job->bytes < RKM_PLACE_BUSY_MIN_BYTES)
		return ns;
	if (busy > RKM_PLACE_BUSY_MAX)
		busy = RKM_PLACE_BUSY_MAX;
	return ns * 100 / (100 - busy);
}

rkm_u64 rkm_place_daemon_ns(const struct rkm_place_cell *c,
			    const struct rkm_place_job *job,
			    const struct rkm_place_load *load)
{
	rkm_u64 ns = rkm_read_once(c->d_ns);
	rkm_u64 ps = rkm_read_once(c->d_ps);
	rkm_u64 qps = rkm_read_once(c->d_qps);

	if (!ns || !ps)
		return 0;
	/* d_qps is written after d_ps: a reader between them sees 0 */
	if (job->waited)
		return ns + rkm_place_ps(qps ? qps : ps, load->ring_bytes);
	return rkm_place_ps(ps, load->ring_bytes + job->bytes);
}

/* The side not chosen is tried when its estimate of the class is old */
static int rkm_place_stale(struct rkm_place_cell *c, int side, rkm_u64 now)
{
	rkm_u64 *at = side == RKM_PLACE_TO_CPU ? &c->cpu_at : &c->d_at;
	rkm_u64 then = rkm_read_once(*at);

	if (now < then || now - then <= RKM_PLACE_STALE_NS)
		return 0;
	/* one explorer per period: the others see it fresh */
	rkm_write_once(*at, now);
	return 1;
}

/*
 * Does @draw explore the side expected at @other_ns, the chosen one at
 * @best_ns?  One draw in RKM_PLACE_EXPLORE while @other_ns is within
 * RKM_PLACE_EXPLORE_RANGE times @best_ns, and of those the share
 * @best_ns / @other_ns (place.h).
 */
static int rkm_place_explore(rkm_u32 draw, rkm_u64 best_ns, rkm_u64 other_ns)
{
	rkm_u64 u = (draw / RKM_PLACE_EXPLORE) % RKM_PLACE_EXPLORE_SCALE;

	if (draw % RKM_PLACE_EXPLORE ||
	    other_ns > best_ns * RKM_PLACE_EXPLORE_RANGE)
		return 0;
	return u * other_ns < RKM_PLACE_EXPLORE_SCALE * best_ns;
}

static int rkm_place_auto(struct rkm_place_cell *c,
			  const struct rkm_place_job *job,
			  const struct rkm_place_load *load, rkm_u32 draw,
			  rkm_u64 now, int *why)
{
	rkm_u64 cpu = rkm_place_cpu_ns(c, job, load);
	rkm_u64 dmn = rkm_place_daemon_ns(c, job, load);
	int side, other;

	*why = RKM_PLACE_WHY_UNKNOWN;
	if (!dmn)
		return RKM_PLACE_TO_DAEMON;
	if (!cpu)
		return RKM_PLACE_TO_CPU;
	side = dmn < cpu ? RKM_PLACE_TO_DAEMON : RKM_PLACE_TO_CPU;
	other = side == RKM_PLACE_TO_CPU ? RKM_PLACE_TO_DAEMON :
					   RKM_PLACE_TO_CPU;
	if (rkm_place_stale(c, other, now)) {
		*why = RKM_PLACE_WHY_STALE;
		return other;
	}
	if (rkm_place_explore(draw, side == RKM_PLACE_TO_CPU ? cpu : dmn,
			      side == RKM_PLACE_TO_CPU ? dmn : cpu)) {
		*why = RKM_PLACE_WHY_EXPLORE;
		return other;
	}
	*why = RKM_PLACE_WHY_COST;
	return side;
}

int rkm_place_decide(struct rkm_place_est *est, int mode,
		     const struct rkm_place_job *job,
		     const struct rkm_place_load *load, rkm_u32 draw,
		     rkm_u64 now, int *why)
{
	struct rkm_place_cell *c = rkm_place_cell_of(est, job->op,
						     job->bytes);

	*why = RKM_PLACE_WHY_FORCED;
	if (mode == RKM_PLACE_CPU || !c)
		return RKM_PLACE_TO_CPU;
	if (mode == RKM_PLACE_DAEMON)
		return RKM_PLACE_TO_DAEMON;
	return rkm_place_auto(c, job, load, draw, now, why);
}

void rkm_place_cpu_done(struct rkm_place_est *est, int op, rkm_u64 bytes,
			rkm_u64 ns, rkm_u64 now)
{
	struct rkm_place_cell *c = rkm_place_cell_of(est, op, bytes);
	rkm_u32 ps;

	if (!c || !bytes)
		return;
	ps = rkm_place_clamp(ns * 1000 / bytes, RKM_PLACE_MAX_PS);
	rkm_write_once(c->cpu_ps,
		       rkm_place_ewma(rkm_read_once(c->cpu_ps), ps,
				      RKM_PLACE_CPU_SHIFT,
				      RKM_PLACE_CPU_SHIFT));
	rkm_write_once(c->cpu_at, now);
}

void rkm_place_cpu_seed(struct rkm_place_est *est, rkm_u32 mbs)
{
	/* MB/s is bytes per microsecond: 10^6 / MB/s ps per byte */
	rkm_u32 ps = mbs ? rkm_place_clamp(1000000 / mbs, RKM_PLACE_MAX_PS) :
			   0;
	int op, cls;

	for (op = 0; op < RKM_PLACE_NOPS; op++)
		for (cls = 0; cls < RKM_PLACE_CLASSES; cls++)
			rkm_write_once(est->cell[op][cls].cpu_ps, ps);
}

/*
 * What @ahead bytes of work ahead added to an entry that took @ns: beyond
 * the daemon's own latency, per byte ahead; seeded with d_ps (@ps).
 */
static rkm_u32 rkm_place_ahead_ps(const struct rkm_place_cell *c, rkm_u32 ps,
				  rkm_u64 ahead, rkm_u64 ns)
{
	rkm_u32 old = rkm_read_once(c->d_qps);
	rkm_u64 own = rkm_read_once(c->d_ns);
	rkm_u32 sample;

	if (!old || !own)
		return ps;
	if (!ahead)
		return old;
	sample = rkm_place_clamp((ns > own ? ns - own : 0) * 1000 / ahead,
				 RKM_PLACE_MAX_PS);
	return rkm_place_ewma(old, sample, RKM_PLACE_RISE_SHIFT,
			      RKM_PLACE_FALL_SHIFT);
}

void rkm_place_daemon_done(struct rkm_place_est *est, int op,
			   rkm_u64 job_bytes, rkm_u64 bytes, rkm_u64 ahead,
			   rkm_u64 ns, rkm_u64 now)
{
	struct rkm_place_cell *c = rkm_place_cell_of(est, op, job_bytes);
	rkm_u32 ps, qps, lat;
	rkm_u64 queued;

	if (!c || !bytes)
		return;
	/* it cleared what was ahead and this entry within @ns */
	ps = rkm_place_clamp(ns * 1000 / (ahead + bytes), RKM_PLACE_MAX_PS);
	ps = rkm_place_ewma(rkm_read_once(c->d_ps), ps, RKM_PLACE_RISE_SHIFT,
			    RKM_PLACE_FALL_SHIFT);
	qps = rkm_place_ahead_ps(c, ps, ahead, ns);
	/* its own latency: less the time of what was ahead (a quarter left) */
	queued = rkm_place_ps(qps, ahead);
	if (queued > ns - ns / 4)
		queued = ns - ns / 4;
	lat = rkm_place_clamp(ns - queued, RKM_PLACE_MAX_NS);
	rkm_write_once(c->d_ps, ps);
	rkm_write_once(c->d_qps, qps);
	rkm_write_once(c->d_ns,
		       rkm_place_ewma(rkm_read_once(c->d_ns), lat,
				      RKM_PLACE_RISE_SHIFT,
				      RKM_PLACE_FALL_SHIFT));
	rkm_write_once(c->d_at, now);
}

void rkm_place_daemon_failed(struct rkm_place_est *est, int op,
			     rkm_u64 job_bytes, rkm_u64 now)
{
	struct rkm_place_cell *c = rkm_place_cell_of(est, op, job_bytes);
	rkm_u64 ns, ps;

	if (!c)
		return;
	ns = (rkm_u64)rkm_read_once(c->d_ns) * 4;
	ps = (rkm_u64)rkm_read_once(c->d_ps) * 4;
	if (ns < RKM_PLACE_FAIL_NS)
		ns = RKM_PLACE_FAIL_NS;
	if (ps < RKM_PLACE_FAIL_NS * 1000ull / (job_bytes ? job_bytes : 1))
		ps = RKM_PLACE_FAIL_NS * 1000ull / (job_bytes ? job_bytes : 1);
	rkm_write_once(c->d_ns, rkm_place_clamp(ns, RKM_PLACE_MAX_NS));
	rkm_write_once(c->d_ps, rkm_place_clamp(ps, RKM_PLACE_MAX_PS));
	rkm_write_once(c->d_qps, rkm_place_clamp(ps, RKM_PLACE_MAX_PS));
	rkm_write_once(c->d_at, now);
}

void rkm_place_daemon_late(struct rkm_place_est *est, int op,
			   rkm_u64 job_bytes, rkm_u64 bytes, rkm_u64 ahead,
			   rkm_u64 ns, rkm_u64 now)
{
	struct rkm_place_cell *c = rkm_place_cell_of(est, op, job_bytes);
	rkm_u64 expect;

	if (!c)
		return;
	expect = rkm_read_once(c->d_ns) +
		 rkm_place_ps(rkm_read_once(c->d_ps), ahead + bytes);
	if (ns > expect)
		rkm_place_daemon_done(est, op, job_bytes, bytes, ahead, ns, now);
}

void rkm_place_daemon_reset(struct rkm_place_est *est)
{
	int op, cls;

	for (op = 0; op < RKM_PLACE_NOPS; op++)
		for (cls = 0; cls < RKM_PLACE_CLASSES; cls++) {
			rkm_write_once(est->cell[op][cls].d_ns, 0);
			rkm_write_once(est->cell[op][cls].d_ps, 0);
			rkm_write_once(est->cell[op][cls].d_qps, 0);
			rkm_write_once(est->cell[op][cls].d_at, 0);
		}
}
