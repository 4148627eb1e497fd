// SPDX-License-Identifier: GPL-2.0
/*
 * gpu_aggregate: the aggregate line of make bench-gpu.  End-to-end encode
 * and decode (m erasures) at (8,3) and (16,4), 64 MiB jobs of 64 KiB
 * chunks, through raidkmd's own "cuda" backend (one worker process per
 * GPU, multi_gpu.c) over one GPU and over every GPU, beside the host's
 * copy ceiling measured in the same round: each GPU copying the cell's
 * shape (256 MiB in, 256 * m / k MiB out, at once on two streams) alone,
 * then every GPU at once.  Rounds interleave everything; each line gives
 * medians over the rounds with [min..max].
 *
 * This process never initialises CUDA (the backend's workers must be able
 * to start it after fork): the ceilings run in child processes, one per
 * GPU, released together through a pipe.
 *
 *   gpu_aggregate [--rounds N] [--gib G]   (G GiB of data a measurement)
 *
 * Exits non-zero if a job failed or a result was wrong.
 */
#include <signal.h>
#include <sys/wait.h>

#include <algorithm>
#include <vector>

#include "gpu_util.h"

extern "C" {
#include "codec/rkm_codec.h"
}
#include "cuda_backend.h"
#include "multi_gpu.h"

static struct tu_arena arena;
static struct tu_sink sink;
static const double GB = 1e9;
static int rounds = 5;
static uint64_t meas_bytes = 8ull << 30;	/* data per measurement */
static int failures;

#define JOB_BYTES	(64ull << 20)
#define CHUNK		65536u
#define CEIL_IN		(256ull << 20)
#define CEIL_REPS	8

struct cell {
	int k, m, op;
	const char *name;
};

static const struct cell cells[] = {
	{ 8, 3, RKMD_OP_ENCODE, "encode" },
	{ 8, 3, RKMD_OP_DECODE, "decode3" },
	{ 16, 4, RKMD_OP_ENCODE, "encode" },
	{ 16, 4, RKMD_OP_DECODE, "decode4" },
};
#define NCELL	(int)(sizeof(cells) / sizeof(cells[0]))

/* ---- the copy ceiling, in child processes ----------------------------- */

struct ceil_res {
	double t0, t1;
	uint64_t bytes;
	int ok;
};

/* In a child: copy in and out on device dev, from the parent's signal */
static void ceiling_child(int dev, uint64_t in_b, uint64_t out_b, int rd,
			  int wr)
{
	struct ceil_res r = { 0, 0, 0, 0 };
	void *hin, *hout, *din, *dout;
	cudaStream_t s1, s2;
	char go;

	if (cudaSetDevice(dev) || cudaMallocHost(&hin, in_b) ||
	    cudaMallocHost(&hout, out_b) || cudaMalloc(&din, in_b) ||
	    cudaMalloc(&dout, out_b) || cudaStreamCreate(&s1) ||
	    cudaStreamCreate(&s2))
		_exit(2);
	memset(hin, 1, in_b);
	cudaMemcpyAsync(din, hin, in_b, cudaMemcpyHostToDevice, s1);
	cudaMemcpyAsync(hout, dout, out_b, cudaMemcpyDeviceToHost, s2);
	cudaDeviceSynchronize();
	if (write(wr, "r", 1) != 1 || read(rd, &go, 1) != 1)
		_exit(2);
	r.t0 = tu_now();
	for (int i = 0; i < CEIL_REPS; i++) {
		cudaMemcpyAsync(din, hin, in_b, cudaMemcpyHostToDevice, s1);
		cudaMemcpyAsync(hout, dout, out_b, cudaMemcpyDeviceToHost, s2);
	}
	r.ok = cudaDeviceSynchronize() == cudaSuccess;
	r.t1 = tu_now();
	r.bytes = (in_b + out_b) * CEIL_REPS;
	_exit(write(wr, &r, sizeof(r)) == (ssize_t)sizeof(r) ? 0 : 2);
}

/*
 * GB/s moved by the devices dev[0..n-1] copying at once (bytes over the
 * span from the first start to the last end); 0 if a child failed.
 */
static double ceiling(const int *dev, int n, uint64_t in_b, uint64_t out_b)
{
	std::vector<int> rd(n), wr(n), go(n);
	std::vector<pid_t> pid(n);
	double t0 = 1e30, t1 = 0;
	uint64_t bytes = 0;
	int ok = 1, i;
	char c;

	for (i = 0; i < n; i++) {
		int up[2], down[2];

		if (pipe(up) || pipe(down))
			return 0;
		pid[i] = fork();
		if (!pid[i]) {
			close(up[0]);
			close(down[1]);
			ceiling_child(dev[i], in_b, out_b, down[0], up[1]);
		}
		close(up[1]);
		close(down[0]);
		rd[i] = up[0];
		go[i] = down[1];
	}
	for (i = 0; i < n; i++)
		ok &= read(rd[i], &c, 1) == 1;
	for (i = 0; i < n; i++)
		ok &= write(go[i], "g", 1) == 1;
	for (i = 0; i < n; i++) {
		struct ceil_res r;

		if (read(rd[i], &r, sizeof(r)) != (ssize_t)sizeof(r) || !r.ok)
			ok = 0;
		else {
			t0 = std::min(t0, r.t0);
			t1 = std::max(t1, r.t1);
			bytes += r.bytes;
		}
		close(rd[i]);
		close(go[i]);
		waitpid(pid[i], NULL, 0);
	}
	return ok && t1 > t0 ? bytes / (t1 - t0) / GB : 0;
}

/* ---- end to end through the backend ----------------------------------- */

/* q jobs in flight, each with its own stripes; data then parity */
struct jobset {
	int k, m, q;
	uint32_t ns;
	std::vector<tu_job> jobs;
	std::vector<std::vector<uint8_t *>> ch;
	std::vector<uint8_t> ref;	/* slot 0's chunks as coded */
};

static int jobset_init(struct jobset *s, int k, int m, int q, uint64_t *seed)
{
	struct rkm_code *code = rkm_code_create(k, m);
	const int n = k + m;

	s->k = k;
	s->m = m;
	s->q = q;
	s->ns = (uint32_t)(JOB_BYTES / ((uint64_t)k * CHUNK));
	s->jobs.assign(q, tu_job());
	s->ch.assign(q, std::vector<uint8_t *>());
	tu_arena_reset(&arena);
	for (int j = 0; j < q; j++) {
		s->ch[j].resize((size_t)s->ns * n);
		if (!code || tu_chunks(&arena, s->ch[j].data(), s->ch[j].size(),
				       CHUNK, 4096, seed))
			return -1;
		for (uint32_t st = 0; st < s->ns; st++) {
			uint8_t **c = s->ch[j].data() + (size_t)st * n;

			for (int d = 0; d < k; d++) {	/* cheap, distinct */
				memset(c[d], (int)(tu_rand(seed) & 0xff), CHUNK);
				for (int b = 0; b < 64; b++)
					c[d][tu_rand(seed) % CHUNK] =
						(uint8_t)tu_rand(seed);
			}
			rkm_encode(code, CHUNK, (const uint8_t *const *)c,
				   c + k);
		}
	}
	s->ref.resize((size_t)s->ns * n * CHUNK);
	for (size_t i = 0; i < s->ch[0].size(); i++)
		memcpy(&s->ref[i * CHUNK], s->ch[0][i], CHUNK);
	rkm_code_destroy(code);
	return 0;
}

static void jobset_op(struct jobset *s, int op)
{
	for (int j = 0; j < s->q; j++) {
		struct rkmd_job *job = &s->jobs[j].job;

		memset(&s->jobs[j], 0, sizeof(s->jobs[j]));
		job->op = op;
		job->k = s->k;
		job->m = s->m;
		job->len = CHUNK;
		job->nstripes = s->ns;
		job->mask = op == RKMD_OP_DECODE ? (1ull << s->m) - 1 : 0;
		job->chunk = s->ch[j].data();
	}
}

/* slot 0's chunks as they were coded on the CPU: the outputs too */
static int jobset_right(const struct jobset *s)
{
	for (size_t i = 0; i < s->ch[0].size(); i++)
		if (memcmp(&s->ref[i * CHUNK], s->ch[0][i], CHUNK))
			return 0;
	return 1;
}

/* GB/s of data: meas_bytes coded with q jobs in flight; 0 on failure */
static double e2e(const struct rkmd_backend_ops *ops, struct rkmd_backend *be,
		  struct jobset *s)
{
	uint64_t njobs = meas_bytes / JOB_BYTES, i, base;
	double t0;

	pthread_mutex_lock(&sink.lock);
	base = sink.completed;
	pthread_mutex_unlock(&sink.lock);
	t0 = tu_now();
	for (i = 0; i < njobs; i++) {
		tu_job *t = &s->jobs[i % s->q];

		if (i >= (uint64_t)s->q)
			tu_wait_job(&sink, t);
		if (t->status)
			return 0;
		t->done = 0;
		if (ops->submit(be, &t->job))
			return 0;
	}
	tu_wait_count(&sink, base + njobs);
	for (int j = 0; j < s->q; j++)
		if (s->jobs[j].status)
			return 0;
	return (double)njobs * JOB_BYTES / (tu_now() - t0) / GB;
}

/* ---- rounds ------------------------------------------------------------ */

struct samples {
	std::vector<double> one, all, ratio, ceil0, ceil_all, of_ceil;
	std::vector<std::vector<double>> ceil_each;
};

static double med(std::vector<double> v, double *lo, double *hi)
{
	std::sort(v.begin(), v.end());
	*lo = v.empty() ? 0 : v.front();
	*hi = v.empty() ? 0 : v.back();
	return v.empty() ? 0 : v[v.size() / 2];
}

/* "m [lo..hi]" of v */
static const char *mm(const std::vector<double> &v, const char *fmt)
{
	static char buf[8][64];
	static int n;
	char f[48];
	double lo, hi, m = med(v, &lo, &hi);
	char *b = buf[n++ % 8];

	snprintf(f, sizeof(f), "%s [%s..%s]", fmt, fmt, fmt);
	snprintf(b, 64, f, m, lo, hi);
	return b;
}

/* The backend over list ("0": one GPU, "all"); its worker count in *n */
static struct rkmd_backend *open_over(const char *list, int *n)
{
	struct rkmd_gpu_state st[RKMD_GPUS_MAX];
	struct rkmd_backend *be;
	char why[256] = "";

	if (rkmd_gpus_configure(list, "", why, sizeof(why))) {
		printf("FAIL --gpus=%s: %s\n", list, why);
		return NULL;
	}
	be = rkmd_gpus_backend.open(arena.base, arena.size, 0, -1, tu_complete,
				    &sink, why, sizeof(why));
	if (!be) {
		printf("FAIL open over %s: %s\n", list, why);
		return NULL;
	}
	*n = rkmd_gpus_get(be, st, RKMD_GPUS_MAX);
	return be;
}

/* One cell on one backend: warmed up, timed, its results checked */
static double cell_on(struct rkmd_backend *be, struct jobset *s, int q,
		      const struct cell *x, const char *list)
{
	const struct rkmd_backend_ops *ops = &rkmd_gpus_backend;
	const int keep = s->q;
	double g;

	s->q = q;	/* the first q slots */
	for (int w = 0; w < 2; w++)	/* plans, buffers, NVRTC kernel */
		e2e(ops, be, s);
	g = e2e(ops, be, s);
	s->q = keep;
	if (!g || !jobset_right(s)) {
		printf("FAIL %s (%d,%d) over %s: %s\n", x->name, x->k, x->m,
		       list, g ? "wrong result" : "a job failed");
		failures++;
	}
	return g;
}

int main(int argc, char **argv)
{
	std::vector<samples> sm(NCELL);
	struct rkmd_backend *be1, *bea;
	int dev[RKMD_GPUS_MAX], ngpu = 0, n1 = 0, i, r, c;
	char why[256] = "";

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--rounds") && i + 1 < argc)
			rounds = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--gib") && i + 1 < argc)
			meas_bytes = (uint64_t)atoi(argv[++i]) << 30;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	signal(SIGPIPE, SIG_IGN);
	setenv("RKMD_GPUS_STALL_MS", "0", 0);	/* first uses may be slow */
	if (rkmd_gpus_backend.probe(why, sizeof(why))) {
		printf("FAIL probe: %s\n", why);
		return 1;
	}
	if (tu_arena_init(&arena, 2ull << 30)) {
		printf("FAIL memfd arena of 2 GiB\n");
		return 1;
	}
	tu_sink_init(&sink);
	printf("# %s\n", why);
	printf("== aggregate: end to end through raidkmd's cuda backend (one worker process per GPU) over one GPU and over every GPU (both open at once), 64 MiB jobs of 64 KiB chunks, %llu GiB of data a measurement, 8 jobs in flight per GPU; copy ceiling: each GPU copying 256 MiB in and 256*m/k MiB out at once (pinned, two streams, x%d), alone and every GPU at once, in the same round; %d interleaved rounds per cell, medians [min..max]\n",
	       (unsigned long long)(meas_bytes >> 30), CEIL_REPS, rounds);
	be1 = open_over("0", &n1);
	bea = open_over("all", &ngpu);
	if (!be1 || !bea)
		return 1;
	for (i = 0; i < ngpu; i++)
		dev[i] = i;
	printf("# one GPU: 1 worker; every GPU: %d workers\n", ngpu);
	for (c = 0; c < NCELL; c++) {
		const struct cell *x = &cells[c];
		const uint64_t out = CEIL_IN * x->m / x->k;
		const uint64_t jb = JOB_BYTES * (x->k + x->m) / x->k + (1 << 20);
		int q = (int)std::min<uint64_t>(8 * ngpu, arena.size / jb);
		samples &s = sm[c];
		struct jobset js;
		uint64_t seed = 77 + c;

		if (jobset_init(&js, x->k, x->m, q, &seed)) {
			printf("FAIL arena too small\n");
			return 1;
		}
		jobset_op(&js, x->op);
		s.ceil_each.resize(ngpu);
		for (r = 0; r < rounds; r++) {
			double g1 = cell_on(be1, &js, std::min(q, 8), x, "0");
			double ga = cell_on(bea, &js, q, x, "all");

			for (i = 0; i < ngpu; i++)
				s.ceil_each[i].push_back(ceiling(&dev[i], 1,
								 CEIL_IN, out));
			s.ceil_all.push_back(ceiling(dev, ngpu, CEIL_IN, out));
			s.one.push_back(g1);
			s.all.push_back(ga);
			s.ratio.push_back(g1 ? ga / g1 : 0);
			s.of_ceil.push_back(s.ceil_all.back() ?
					    ga * (x->k + x->m) / x->k /
					    s.ceil_all.back() : 0);
		}
		printf("# %s (%d,%d): %d rounds done\n", x->name, x->k, x->m,
		       rounds);
	}
	rkmd_gpus_backend.close(be1);
	rkmd_gpus_backend.close(bea);
	for (c = 0; c < NCELL; c++) {
		const struct cell *x = &cells[c];
		samples &s = sm[c];
		std::vector<double> cr;
		char each[256] = "";

		for (i = 0; i < ngpu; i++) {
			size_t o = strlen(each);

			snprintf(each + o, sizeof(each) - o, "gpu%d alone %s, ",
				 i, mm(s.ceil_each[i], "%.1f"));
		}
		for (r = 0; r < (int)s.ceil_all.size(); r++)
			cr.push_back(s.ceil_each[0][r] ?
				     s.ceil_all[r] / s.ceil_each[0][r] : 0);
		printf("agg %-7s (%2d,%2d) one GPU %s GB/s data, %d GPUs %s, ratio %s | copy ceiling GB/s moved: %sall %s (%s of gpu0) | e2e moved / ceiling all %s\n",
		       x->name, x->k, x->m, mm(s.one, "%.1f"), ngpu,
		       mm(s.all, "%.1f"), mm(s.ratio, "%.2f"), each,
		       mm(s.ceil_all, "%.1f"), mm(cr, "%.2f"),
		       mm(s.of_ceil, "%.2f"));
	}
	if (failures)
		printf("FAIL %d measurements failed or coded wrong\n", failures);
	return failures ? 1 : 0;
}
