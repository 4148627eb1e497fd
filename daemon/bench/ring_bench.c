// SPDX-License-Identifier: GPL-2.0
/*
 * rkm-ring-bench: the offload path without the kernel.  A loopback kernel
 * end (this thread) feeds an in-process raidkmd core (its own thread)
 * through the real rings; the no-op backend measures the protocol alone,
 * the cpu backend is compared with calling the codec directly on the same
 * buffers in the same run.
 *
 * usage: rkm-ring-bench [--quick] [--seconds=S]
 *                       [--daemon=PATH --backend=NAME [--threads=N]]
 *
 * With --daemon, the coding rows are also measured against a separate
 * raidkmd process (raidkmd --loopback=fd:N --backend=NAME), e.g. the CUDA
 * backend on the GPU host.
 */
#include <signal.h>
#include <sys/wait.h>
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "codec/rkm_codec.h"
#include "uapi/raidkm.h"
#include "loopback/rkm_loop_daemon.h"
#include "rkmd_log.h"

static double seconds = 1.0;
static const char *ext_daemon, *ext_backend = "cpu";
static int ext_threads = -1;

#define ROUNDS 5

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
	qsort(v, n, sizeof(*v), cmp_double);
	return v[n / 2];
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

struct shape {
	const char *name;
	uint8_t op, k, m;
	uint32_t len, nstripes;
};

/* Job j's offsets: stripes laid out back to back, cycling in the arena */
static void job_offsets(const struct shape *s, uint64_t arena, uint64_t j,
			uint64_t *offs)
{
	uint32_t n = s->k + s->m, i, st;
	uint64_t per_job = (uint64_t)s->nstripes * n * s->len;
	uint64_t njobs = arena / per_job, base;

	base = (j % njobs) * per_job;
	for (st = 0; st < s->nstripes; st++)
		for (i = 0; i < n; i++)
			offs[st * n + i] = base + ((uint64_t)st * n + i) * s->len;
}

static uint64_t completed;

static void on_done(void *arg, uint64_t cookie, int status, uint64_t bm)
{
	if (status)
		fprintf(stderr, "job %llu failed: %d\n",
			(unsigned long long)cookie, status);
	completed++;
}

struct result {
	double jobs_s, bytes_s, us_per_job;
	double cpu_us_per_job;	/* CPU time of the whole process per job */
	double kend_us_per_job;	/* of which the loopback kernel end's thread */
};

static double thread_cpu_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static double cpu_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* raidkmd as a child process on the loopback's socket */
static pid_t spawn_daemon(struct rkm_loop *l)
{
	char fdarg[32], backarg[64], tharg[32];
	int fd = rkm_loop_daemon_fd(l);
	pid_t pid = fork();

	if (pid == 0) {
		int nfd = dup(fd);	/* without CLOEXEC */

		snprintf(fdarg, sizeof(fdarg), "--loopback=fd:%d", nfd);
		snprintf(backarg, sizeof(backarg), "--backend=%s", ext_backend);
		snprintf(tharg, sizeof(tharg), "--threads=%d", ext_threads);
		if (ext_threads < 0)
			execl(ext_daemon, "raidkmd", "--foreground", fdarg,
			      backarg, (char *)NULL);
		else
			execl(ext_daemon, "raidkmd", "--foreground", fdarg,
			      backarg, tharg, (char *)NULL);
		_exit(127);
	}
	rkm_loop_release_daemon_fd(l);
	return pid;
}

/*
 * Keep the rings full for `seconds`; @window limits the jobs in flight
 * (the arena region a job uses is reused every arena/per_job jobs: fine
 * for a benchmark, the data is never checked).
 */
static int run_loop(const struct shape *s, const struct rkmd_backend_ops *be,
		    int threads, uint32_t window, uint64_t arena_mb,
		    struct result *r)
{
	struct rkm_loop_params p;
	struct rkm_loop_daemon d;
	struct rkm_loop_job j;
	struct rkm_loop *l;
	uint64_t offs[4096], submitted = 0, ndesc, t_jobs;
	double t0, t1, c0, c1, k0, k1;
	char why[256];
	pid_t pid = -1;
	int ret;

	rkm_loop_default_params(&p);
	p.entries = 1024;
	p.arena_size = arena_mb << 20;
	p.desc_slot_size = 8192;
	l = rkm_loop_create(&p, why, sizeof(why));
	if (!l) {
		fprintf(stderr, "loopback: %s\n", why);
		return -1;
	}
	if (be) {
		ret = rkm_loop_daemon_start(&d, l, be, threads);
	} else {
		pid = spawn_daemon(l);
		ret = pid < 0 ? -1 : rkm_loop_wait_attach(l, 30000);
	}
	if (ret) {
		fprintf(stderr, "daemon start failed: %d\n", ret);
		return -1;
	}
	memset(&j, 0, sizeof(j));
	j.op = s->op;
	j.k = s->k;
	j.m = s->m;
	j.len = s->len;
	j.nstripes = s->nstripes;
	j.offs = offs;
	ndesc = (uint64_t)s->nstripes * (s->k + s->m);
	completed = 0;
	c0 = cpu_now();
	k0 = thread_cpu_now();
	t0 = now();
	t1 = t0 + seconds;
	for (;;) {
		while (submitted - completed < window) {
			job_offsets(s, p.arena_size, submitted, offs);
			j.cookie = submitted;
			if (rkm_loop_submit(l, &j))
				break;
			submitted++;
		}
		rkm_loop_kick(l);
		if (rkm_loop_reap(l, on_done, NULL) == 0)
			rkm_loop_wait(l, 10);
		if (now() > t1)
			break;
	}
	t_jobs = completed;
	t1 = now();
	c1 = cpu_now();
	k1 = thread_cpu_now();
	if (be) {
		rkm_loop_daemon_stop(&d, on_done, NULL);
	} else {
		kill(pid, SIGTERM);
		while (rkm_loop_wait(l, 10) == 0)
			rkm_loop_reap(l, on_done, NULL);
		waitpid(pid, &ret, 0);
		c1 = c0 = 0;	/* the daemon's CPU time is not ours */
	}
	rkm_loop_destroy(l);
	r->jobs_s = t_jobs / (t1 - t0);
	r->bytes_s = r->jobs_s * ndesc * s->len;
	r->us_per_job = 1e6 / r->jobs_s;
	r->cpu_us_per_job = (c1 - c0) * 1e6 / t_jobs;
	r->kend_us_per_job = (k1 - k0) * 1e6 / t_jobs;
	return 0;
}

/* The reference: the codec called directly on the same layout, 1 thread */
static double run_direct(const struct shape *s, uint8_t *arena,
			 uint64_t arena_bytes, struct result *r)
{
	struct rkm_code *c = rkm_code_create(s->k, s->m);
	uint32_t n = s->k + s->m, st, i;
	uint64_t offs[4096], jobs = 0;
	uint8_t *ptr[RKM_MAX_N];
	double t0, t1, c0;

	if (!c)
		return -1;
	c0 = cpu_now();
	t0 = now();
	t1 = t0 + seconds;
	do {
		job_offsets(s, arena_bytes, jobs, offs);
		for (st = 0; st < s->nstripes; st++) {
			for (i = 0; i < n; i++)
				ptr[i] = arena + offs[st * n + i];
			rkm_encode(c, s->len, (const rkm_u8 *const *)ptr,
				   ptr + s->k);
		}
		jobs++;
	} while ((jobs & 7) || now() < t1);
	t1 = now();
	r->cpu_us_per_job = (cpu_now() - c0) * 1e6 / jobs;
	r->kend_us_per_job = 0;
	rkm_code_destroy(c);
	r->jobs_s = jobs / (t1 - t0);
	r->bytes_s = r->jobs_s * (uint64_t)s->nstripes * n * s->len;
	r->us_per_job = 1e6 / r->jobs_s;
	return 0;
}

static void print(const char *what, const struct shape *s,
		  const struct result *r)
{
	printf("%-23s %-17s %9.0f jobs/s %7.2f GB/s %8.3f us/job  cpu-us/job: %7.3f daemon %6.3f kernel end\n",
	       what, s->name, r->jobs_s, r->bytes_s / 1e9, r->us_per_job,
	       r->cpu_us_per_job - r->kend_us_per_job, r->kend_us_per_job);
}

int main(int argc, char **argv)
{
	static const struct shape noop_shapes[] = {
		{ "encode 8+2 4K x1", RAIDKM_OP_ENCODE, 8, 2, 4096, 1 },
		{ "encode 8+2 4K x16", RAIDKM_OP_ENCODE, 8, 2, 4096, 16 },
	};
	static const struct shape cpu_shapes[] = {
		{ "encode 8+3 4K x16", RAIDKM_OP_ENCODE, 8, 3, 4096, 16 },
		{ "encode 4+2 64K x4", RAIDKM_OP_ENCODE, 4, 2, 65536, 4 },
	};
	struct result r, ref, r1, r0;
	struct rkm_loop_params lp;
	struct rkm_loop *ref_loop;
	char why[256];
	uint8_t *buf;
	uint64_t arena_mb = 16;
	unsigned int i;
	int a;

	for (a = 1; a < argc; a++) {
		if (!strcmp(argv[a], "--quick"))
			seconds = 0.2;
		else if (!strncmp(argv[a], "--seconds=", 10))
			seconds = atof(argv[a] + 10);
		else if (!strncmp(argv[a], "--daemon=", 9))
			ext_daemon = argv[a] + 9;
		else if (!strncmp(argv[a], "--backend=", 10))
			ext_backend = argv[a] + 10;
		else if (!strncmp(argv[a], "--threads=", 10))
			ext_threads = atoi(argv[a] + 10);
		else {
			fprintf(stderr, "usage: rkm-ring-bench [--quick] [--seconds=S] [--daemon=PATH --backend=NAME [--threads=N]]\n");
			return 2;
		}
	}
	rkmd_log_open(RKMD_LOG_QUIET, 0);
	if (rkm_codec_init())
		return 1;
	printf("# rkm-ring-bench: loopback (memfd rings + socket doorbells) -> in-process raidkmd core\n");
	printf("# codec implementation: %s; %.1f s per measurement\n",
	       rkm_codec_impl(), seconds);
	printf("# GB/s described = chunk bytes named by the jobs per second (k+m chunks per stripe)\n");
	printf("# us/job = 1 / throughput (per-job cost of the whole path, pipelined)\n");
	printf("# cpu-us/job: CPU time per job of the daemon (serving + backend threads) and of the\n"
	       "#   loopback kernel end (the submitting thread, standing in for raidkm.ko);\n"
	       "#   unlike wall-clock rates, insensitive to other tenants of the machine\n\n");

	printf("## no-op backend: the protocol alone (daemon core on one thread)\n");
	for (i = 0; i < sizeof(noop_shapes) / sizeof(noop_shapes[0]); i++) {
		if (run_loop(&noop_shapes[i], &rkmd_noop_backend, 0, 1024,
			     arena_mb, &r))
			return 1;
		print("loopback noop", &noop_shapes[i], &r);
		printf("  %s: %.0f jobs per CPU-second of the daemon's serving thread\n",
		       noop_shapes[i].name,
		       1e6 / (r.cpu_us_per_job - r.kend_us_per_job));
	}
	printf("target: >= 1000000 jobs/s with 1-stripe jobs on one core\n\n");

	printf("## cpu backend vs the codec called directly (same buffers, same run)\n");
	/* The reference codes in the same kind of memory: a loopback arena
	 * (shared memfd pages, like the kernel's arena), not THP-backed heap.
	 */
	rkm_loop_default_params(&lp);
	lp.arena_size = arena_mb << 20;
	ref_loop = rkm_loop_create(&lp, why, sizeof(why));
	if (!ref_loop)
		return 1;
	buf = rkm_loop_arena(ref_loop);
	memset(buf, 0x5a, arena_mb << 20);
	printf("# %d interleaved rounds of (direct, inline, 1 thread); ratios are medians of per-round ratios\n",
	       ROUNDS);
	for (i = 0; i < sizeof(cpu_shapes) / sizeof(cpu_shapes[0]); i++) {
		double q0[ROUNDS], q1[ROUNDS], e0[ROUNDS], e1[ROUNDS];
		int k;

		for (k = 0; k < ROUNDS; k++) {
			run_direct(&cpu_shapes[i], buf, arena_mb << 20, &ref);
			print("direct codec, 1 thread", &cpu_shapes[i], &ref);
			if (run_loop(&cpu_shapes[i], &rkmd_cpu_backend, 0, 64,
				     arena_mb, &r0))
				return 1;
			print("loopback cpu, inline", &cpu_shapes[i], &r0);
			if (run_loop(&cpu_shapes[i], &rkmd_cpu_backend, 1, 64,
				     arena_mb, &r1))
				return 1;
			print("loopback cpu, 1 thread", &cpu_shapes[i], &r1);
			q0[k] = r0.bytes_s / ref.bytes_s;
			q1[k] = r1.bytes_s / ref.bytes_s;
			e0[k] = ref.cpu_us_per_job /
				(r0.cpu_us_per_job - r0.kend_us_per_job);
			e1[k] = ref.cpu_us_per_job /
				(r1.cpu_us_per_job - r1.kend_us_per_job);
		}
		/* the protocol alone for this shape, for the cost split */
		if (run_loop(&cpu_shapes[i], &rkmd_noop_backend, 0, 1024,
			     arena_mb, &r))
			return 1;
		print("loopback noop (cost)", &cpu_shapes[i], &r);
		printf("  %s: protocol CPU per job (noop daemon + kernel end) = %.2f %% of the codec's CPU per job\n",
		       cpu_shapes[i].name, 100.0 * r.cpu_us_per_job /
		       ref.cpu_us_per_job);
		printf("  %s, cpu backend / direct codec, median of %d rounds (target >= 0.90):\n"
		       "    wall-clock throughput: inline %.3f, 1 worker thread %.3f\n"
		       "    daemon work per CPU-second: inline %.3f, 1 worker thread %.3f\n\n",
		       cpu_shapes[i].name, ROUNDS, median(q0, ROUNDS),
		       median(q1, ROUNDS), median(e0, ROUNDS), median(e1, ROUNDS));
	}
	if (ext_daemon) {
		printf("## a separate raidkmd process: %s --backend=%s (wall-clock only)\n",
		       ext_daemon, ext_backend);
		for (i = 0; i < sizeof(cpu_shapes) / sizeof(cpu_shapes[0]); i++) {
			run_direct(&cpu_shapes[i], buf, arena_mb << 20, &ref);
			print("direct codec, 1 thread", &cpu_shapes[i], &ref);
			if (run_loop(&cpu_shapes[i], NULL, 0, 256, arena_mb, &r))
				return 1;
			r.cpu_us_per_job = r.kend_us_per_job = 0;
			print("raidkmd process", &cpu_shapes[i], &r);
			printf("  %s: raidkmd --backend=%s / direct codec 1 thread: %.3f\n\n",
			       cpu_shapes[i].name, ext_backend,
			       r.bytes_s / ref.bytes_s);
		}
	}
	rkm_loop_destroy(ref_loop);
	return 0;
}
