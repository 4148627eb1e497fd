// SPDX-License-Identifier: GPL-2.0
/*
 * rkm-place-bench: a mixed stream of coding jobs under placement cpu,
 * daemon and auto, with the kernel's decision (kernel/raidkm/place.c)
 * fed real measurements: the CPU codec on the submitter threads, raidkmd's
 * core and a backend over the loopback ring (place_bench.h).
 *
 * usage: rkm-place-bench [--backend=cuda|cpu] [--rounds=N] [--jobs=N]
 *                        [--threads=N] [--daemon-threads=N]
 *                        [--check-every=N] [--seed=N] [--short]
 *                        [--verify-spot=0|1] [--verify-ppm=N]
 *                        [--verify-fresh=N] [--corrupt=N]
 *
 * The stream is the same in every mode: --jobs jobs of the classes of
 * place_job.c in fixed proportions, in a fixed shuffled order, taken in
 * turn by --threads submitter threads (lanes), each waiting for its job
 * as a caller does.  Rounds run every mode, in an order that turns each
 * round.  The decision's estimates live on across modes and rounds, as
 * in the kernel; a warm-up with every job on the daemon (the GPU's
 * kernels built) comes first, until the kernel's checks leave their
 * fresh window, and what it measured of the daemon is forgotten (a new
 * daemon).  The daemon's results are checked as the kernel checks them,
 * with the module's defaults (--verify-*: verify_spot, verify_ppm,
 * verify_fresh_jobs).  --corrupt=N (tests) has the daemon corrupt one
 * result in N, as raidkmd --fault=corrupt:N does.  Exits 1 when any output was wrong, 2 on a
 * bad option or set-up; nothing about speed is asserted.
 */
#include <errno.h>
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench/place_bench.h"
#include "rkmd_log.h"

#define PB_MAX_LANES	64

struct pb_opts {
	const char *backend;
	long rounds, threads, dthreads, check_every, jobs, seed;
	long vspot, vppm, vfresh, corrupt;
};

/* The numeric options: --NAME=N within [min, max] */
static const struct pb_numopt {
	const char *name;
	long min, max;
	size_t off;
} pb_numopts[] = {
	{ "--rounds=", 1, 100, offsetof(struct pb_opts, rounds) },
	{ "--jobs=", 64, 1 << 24, offsetof(struct pb_opts, jobs) },
	{ "--threads=", 1, PB_MAX_LANES, offsetof(struct pb_opts, threads) },
	{ "--daemon-threads=", 0, 1024, offsetof(struct pb_opts, dthreads) },
	{ "--check-every=", 1, 1 << 30, offsetof(struct pb_opts, check_every) },
	{ "--seed=", 1, LONG_MAX, offsetof(struct pb_opts, seed) },
	{ "--verify-spot=", 0, 1, offsetof(struct pb_opts, vspot) },
	{ "--verify-ppm=", 0, 1000000, offsetof(struct pb_opts, vppm) },
	{ "--verify-fresh=", 0, 100000000, offsetof(struct pb_opts, vfresh) },
	{ "--corrupt=", 0, LONG_MAX, offsetof(struct pb_opts, corrupt) },
	{ NULL }
};

struct pb_bench {
	struct pb_opts o;
	struct pb_feed feed;
	struct pb_verify *verify;
	struct pb_ring *ring;
	struct pb_lane *lane[PB_MAX_LANES];
	uint8_t *stream;
	uint32_t njobs;
	uint32_t next;			/* the stream's next job */
};

struct pb_worker {
	struct pb_bench *b;
	struct pb_lane *lane;
	uint64_t bytes[PB_NCLASSES];
	pthread_t th;
};

static void pb_usage(void)
{
	fprintf(stderr, "usage: rkm-place-bench [--backend=cuda|cpu] [--rounds=N] [--jobs=N] [--threads=N]\n"
		"                       [--daemon-threads=N] [--check-every=N] [--seed=N] [--short]\n"
		"                       [--verify-spot=0|1] [--verify-ppm=N] [--verify-fresh=N] [--corrupt=N]\n");
}

/* @arg as a numeric option: 1 taken, 0 not one, -1 a bad value */
static int pb_opt_num(struct pb_opts *o, const char *arg)
{
	const struct pb_numopt *n;
	char *end;
	size_t len;
	long v;

	for (n = pb_numopts; n->name; n++) {
		len = strlen(n->name);
		if (strncmp(arg, n->name, len))
			continue;
		v = strtol(arg + len, &end, 0);
		if (*end || end == arg + len || v < n->min || v > n->max)
			return -1;
		*(long *)((char *)o + n->off) = v;
		return 1;
	}
	return 0;
}

static void pb_short(struct pb_opts *o)
{
	o->rounds = 2;
	o->jobs = 192;
	o->threads = 2;
	o->check_every = 1;
}

static int pb_parse(struct pb_opts *o, int argc, char **argv)
{
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	int a;

	o->backend = rkmd_find_backend("cuda") ? "cuda" : "cpu";
	o->rounds = 5;
	o->threads = ncpu < 2 ? 2 : ncpu > 16 ? 16 : ncpu;
	o->dthreads = -1;
	o->check_every = 16;
	o->jobs = 4096;
	o->seed = 0x9ace;
	o->vspot = 1;
	o->vppm = 10000;
	o->vfresh = 1024;
	for (a = 1; a < argc; a++) {
		if (!strcmp(argv[a], "--short"))
			pb_short(o);
		else if (!strncmp(argv[a], "--backend=", 10))
			o->backend = argv[a] + 10;
		else if (pb_opt_num(o, argv[a]) != 1)
			return -1;
	}
	return 0;
}

/* The classes in their proportions, shuffled (the same every mode) */
static int pb_make_stream(struct pb_bench *b, uint32_t njobs)
{
	uint64_t x = b->o.seed;
	uint32_t i, j;
	int c, w = 0;
	uint8_t t;

	b->stream = malloc(njobs);
	if (!b->stream)
		return -1;
	for (i = 0; i < njobs; w++)
		for (c = 0; c < PB_NCLASSES && i < njobs; c++)
			if (w % 64 < pb_classes[c].weight)
				b->stream[i++] = c;
	for (i = njobs - 1; i > 0; i--) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		j = x % (i + 1);
		t = b->stream[i];
		b->stream[i] = b->stream[j];
		b->stream[j] = t;
	}
	b->njobs = njobs;
	return 0;
}

static void *pb_worker_main(void *arg)
{
	struct pb_worker *w = arg;
	struct pb_bench *b = w->b;
	uint32_t i;

	while ((i = __atomic_fetch_add(&b->next, 1, __ATOMIC_RELAXED)) <
	       b->njobs)
		w->bytes[b->stream[i]] += pb_lane_run(w->lane,
						      b->stream[i]);
	return NULL;
}

/* The stream once in @mode by every lane; its numbers into @out */
static int pb_run_mode(struct pb_bench *b, int mode, struct pb_run *out)
{
	struct pb_worker w[PB_MAX_LANES];
	uint64_t t0;
	int i, c, n = 0;

	pb_run_reset(out);
	pb_feed_clear_counts(&b->feed);
	__atomic_store_n(&b->feed.mode, mode, __ATOMIC_RELAXED);
	b->next = 0;
	t0 = pb_now_ns();
	for (i = 0; i < b->o.threads; i++) {
		memset(&w[i], 0, sizeof(w[i]));
		w[i].b = b;
		w[i].lane = b->lane[i];
		pb_lane_clear(b->lane[i]);
		if (pthread_create(&w[i].th, NULL, pb_worker_main, &w[i]))
			break;
		n++;
	}
	for (i = 0; i < n; i++)
		pthread_join(w[i].th, NULL);
	out->secs = (pb_now_ns() - t0) / 1e9;
	if (n < b->o.threads)
		return -1;
	for (i = 0; i < n; i++)
		for (c = 0; c < PB_NCLASSES; c++) {
			out->bytes[c] += w[i].bytes[c];
			pb_run_merge_lat(out, c, pb_lane_lat(b->lane[i], c));
		}
	memcpy(out->jobs, b->feed.jobs, sizeof(out->jobs));
	memcpy(out->why, b->feed.why, sizeof(out->why));
	pb_run_summarize(out);
	return 0;
}

static void pb_header(const struct pb_bench *b)
{
	int c;

	printf("# rkm-place-bench: the kernel's placement (place.c) with native rates\n");
	printf("# CPU codec %s, %lu MB/s at init (the CPU's first estimate); raidkmd core + backend %s over the loopback ring\n",
	       rkm_codec_impl(), rkm_codec_mbs(), pb_ring_backend(b->ring));
	printf("# %ld submitter threads on %ld online CPUs; %u jobs per mode and round; %ld rounds, modes in turn\n",
	       b->o.threads, sysconf(_SC_NPROCESSORS_ONLN), b->njobs,
	       b->o.rounds);
	printf("# stream, per 64 jobs:");
	for (c = 0; c < PB_NCLASSES; c++)
		printf("%s %d %s%s", c ? "," : "", pb_classes[c].weight,
		       pb_classes[c].name,
		       pb_classes[c].waited ? " (waited)" : " (background)");
	printf("\n# GB/s: bytes coded (rkm_place_bytes) per second of the round; latency: submit to outputs home, as the caller sees it\n");
	printf("# the kernel's checks of daemon results: spot %ld, full: the first %ld jobs and %ld ppm (verify_spot, verify_fresh_jobs, verify_ppm)\n",
	       b->o.vspot, b->o.vfresh, b->o.vppm);
	printf("# cpu/daemon: the jobs (stripes) each side coded; outputs checked against the CPU codec (all of them every %ld jobs of a lane)\n\n",
	       b->o.check_every);
}

static int pb_setup(struct pb_bench *b)
{
	uint64_t home = pb_lane_home_bytes() * b->o.threads;
	uint64_t stage = pb_lane_stage_bytes() * b->o.threads;
	struct pb_verify_cfg vc = {
		.spot = b->o.vspot, .ppm = b->o.vppm, .fresh = b->o.vfresh,
	};
	int i;

	rkmd_log_open(RKMD_LOG_QUIET, 0);
	if (rkm_codec_init())
		return -1;
	pb_feed_init(&b->feed, (uint32_t)rkm_codec_mbs());
	b->feed.ncpus = (uint32_t)sysconf(_SC_NPROCESSORS_ONLN);
	b->verify = pb_verify_create(&vc);
	if (!b->verify)
		return -1;
	b->ring = pb_ring_start(b->o.backend, b->o.dthreads, home, stage,
				&b->feed, b->verify);
	if (!b->ring)
		return -1;
	pb_ring_corrupt(b->ring, b->o.corrupt);
	for (i = 0; i < b->o.threads; i++) {
		b->lane[i] = pb_lane_create(b->ring, &b->feed, i,
					    b->o.check_every,
					    b->o.seed * 7919 + i);
		if (!b->lane[i])
			return -1;
	}
	return 0;
}

/*
 * Every class on the daemon a few times, until the kernel's checks are
 * past their fresh window; then a new daemon's estimates
 */
static int pb_warm_up(struct pb_bench *b)
{
	uint32_t njobs = b->njobs;
	uint64_t served;
	struct pb_run r;
	int ret, c;

	memset(&r, 0, sizeof(r));
	b->njobs = njobs < 4 * 64 ? njobs : 4 * 64;
	do {
		ret = pb_run_mode(b, RKM_PLACE_DAEMON, &r);
		for (served = 0, c = 0; c < PB_NCLASSES; c++)
			served += r.jobs[RKM_PLACE_TO_DAEMON][c];
		pb_run_reset(&r);
	} while (!ret && served && pb_verify_fresh(b->verify));
	b->njobs = njobs;
	rkm_place_daemon_reset(&b->feed.est);
	return ret;
}

static uint64_t pb_wrong(const struct pb_bench *b, uint64_t *checked)
{
	uint64_t wrong = 0;
	int i;

	*checked = 0;
	for (i = 0; i < b->o.threads; i++) {
		wrong += pb_lane_wrong(b->lane[i]);
		*checked += pb_lane_checked(b->lane[i]);
	}
	return wrong;
}

int main(int argc, char **argv)
{
	static const int modes[3] = {
		RKM_PLACE_CPU, RKM_PLACE_DAEMON, RKM_PLACE_AUTO
	};
	static struct pb_bench b;
	struct pb_run *runs;
	uint64_t wrong, checked;
	int r, i, m;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (pb_parse(&b.o, argc, argv)) {
		pb_usage();
		return 2;
	}
	runs = calloc(b.o.rounds * 3, sizeof(*runs));
	if (!runs || pb_make_stream(&b, b.o.jobs) || pb_setup(&b)) {
		fprintf(stderr, "rkm-place-bench: set-up failed\n");
		return 2;
	}
	pb_header(&b);
	if (pb_warm_up(&b))
		return 2;
	for (r = 0; r < b.o.rounds; r++)
		for (i = 0; i < 3; i++) {
			m = (r + i) % 3;
			if (pb_run_mode(&b, modes[m], &runs[r * 3 + m]))
				return 2;
			pb_run_print(&runs[r * 3 + m], r + 1,
				     pb_mode_names[m]);
		}
	pb_print_summary(runs, b.o.rounds);
	wrong = pb_wrong(&b, &checked);
	printf("the kernel's checks of daemon results: %llu spot, %llu full, %llu stripes unchecked, %llu wrong\n",
	       (unsigned long long)pb_verify_count(b.verify, PB_VERIFY_SPOT),
	       (unsigned long long)pb_verify_count(b.verify, PB_VERIFY_FULL),
	       (unsigned long long)pb_verify_count(b.verify, PB_VERIFY_NONE),
	       (unsigned long long)pb_verify_wrong(b.verify));
	wrong += pb_verify_wrong(b.verify);
	printf("checked %llu jobs: %llu wrong; %llu daemon entries failed back (coded on the CPU)\n",
	       (unsigned long long)checked, (unsigned long long)wrong,
	       (unsigned long long)pb_ring_failed(b.ring));
	for (r = 0; r < b.o.rounds * 3; r++)
		pb_run_reset(&runs[r]);
	free(runs);
	for (i = 0; i < b.o.threads; i++)
		pb_lane_destroy(b.lane[i]);
	pb_ring_stop(b.ring);
	pb_verify_destroy(b.verify);
	free(b.stream);
	return wrong ? 1 : 0;
}
