// SPDX-License-Identifier: GPL-2.0
/*
 * raidkmd: the raidkm coding daemon.  Options, backend choice, signals;
 * the work is in core.c.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "ring/rkm_ring.h"
#include "bridge/bridge_io.h"
#include "rkmd.h"
#include "rkmd_log.h"
#include "gpu/gpu_status.h"


static struct rkmd_core *volatile g_core;
static volatile int g_stop;

static void on_signal(int sig)
{
	g_stop = 1;
	rkmd_core_stop(g_core);
}

static void setup_signals(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	sa.sa_handler = SIG_IGN;
	sigaction(SIGPIPE, &sa, NULL);
}

static void usage(FILE *f)
{
	fprintf(f,
"Usage: raidkmd [OPTION]...\n"
"Serve raidkm's parity and recovery jobs from user space.\n"
"\n"
"raidkm.ko (md level \"km\") codes its stripes on the in-kernel CPU codec\n"
"unless a daemon is attached; raidkmd attaches through /dev/raidkm and the\n"
"\"raidkm\" generic netlink family and codes the jobs on a GPU (cuda) or on\n"
"all CPU cores (cpu).  If raidkmd stops, crashes or misses a deadline the\n"
"kernel re-runs its jobs on the CPU: no I/O fails.  One daemon at a time;\n"
"needs root (CAP_SYS_ADMIN).\n"
"\n"
"Options:\n"
"  -b, --backend=NAME    auto (default), cuda or cpu.  auto picks cuda when a\n"
"                        usable GPU is found, else cpu, and logs which.\n"
"      --gpus=LIST       the GPUs of the cuda backend: all (default: every\n"
"                        usable one) or device numbers, e.g. 0,2; one\n"
"                        backend instance per entry, jobs to the one with\n"
"                        the fewest bytes outstanding; a failing GPU is\n"
"                        dropped and its jobs re-run on another or by the\n"
"                        kernel's CPU codec\n"
"      --status-file=PATH  where the cuda backend writes each GPU's state\n"
"                        (default %s; none with --loopback;\n"
"                        empty: none)\n"
"  -t, --threads=N       coding threads of the cpu backend (default: one per\n"
"                        online CPU; 0 codes on the serving thread)\n"
"      --batch=N         preferred stripes per job to ask the kernel for\n"
"                        (1..%d, default 16)\n"
"  -d, --device=PATH     the raidkm device (default /dev/raidkm)\n"
"      --loopback=SOCK   serve a user-space loopback instead of the kernel:\n"
"                        SOCK is a unix socket path or fd:N (testing and\n"
"                        benchmarks; also accepts --backend=noop)\n"
"      --bridge=SOCK     serve raidkm.ko inside a QEMU guest: SOCK is the unix\n"
"                        socket of the VM's virtio-serial port \"%s\",\n"
"                        where raidkm-relay runs; needs --guest-ram.  Serves\n"
"                        one session after another until the VM stops\n"
"      --guest-ram=FILE  the VM's RAM (memory-backend-file, share=on)\n"
"      --poll=USEC       look at the submission ring every USEC microseconds\n"
"                        while jobs come (every millisecond when idle) instead\n"
"                        of sleeping until a doorbell; 0 = doorbells.\n"
"                        Default 0, with --bridge 50 (its doorbells cross\n"
"                        the guest's scheduler)\n"
"  -f, --foreground      do not detach from the terminal (systemd, tests)\n"
"      --spin=USEC       after work, look at the submission ring without\n"
"                        sleeping for USEC microseconds before asking for a\n"
"                        doorbell (default %d, 0 never; unused with --poll)\n"
"      --log=WHERE       stderr (default in the foreground) or syslog\n"
"  -v, --verbose         log debug messages\n"
"      --fault=SPEC      fault injection for tests, repeatable:\n"
"                          corrupt:N     flip a byte of the output of 1 job in N\n"
"                          delay:USEC    delay every batch of completions\n"
"                          exit-after:N  exit abruptly after taking N jobs\n"
"                          skip:N        answer 1 job in N as done, uncoded\n"
"                          write-input:N write an input chunk of 1 job in N\n"
"                                        (read-only: raidkmd dies of SIGSEGV)\n"
"                          write-output-late:N  overwrite the outputs of 1\n"
"                                        job in N after posting its completion\n"
"                          fail-late:N   answer 1 job in N failed, overwrite\n"
"                                        its outputs later (a hung GPU)\n"
"  -h, --help            this text\n"
"  -V, --version         protocol version\n"
"\n"
"Signals: SIGTERM or SIGINT drains the jobs in flight, detaches and exits 0.\n"
"Exit status: 0 clean stop, 1 error or dropped by the kernel (message in\n"
"the log, reason in dmesg), 2 bad usage.\n"
"Status and counters: raidkmctl status.  See raidkmd(8).\n",
		RKMD_GPU_STATUS_FILE, RAIDKM_MAX_STRIPES, RKM_BR_PORT_NAME,
		RKMD_SPIN_US_DEFAULT);
}

static int parse_u64(const char *s, uint64_t *v)
{
	char *end;

	errno = 0;
	*v = strtoull(s, &end, 0);
	return errno || end == s || *end || *s == '-' ? -1 : 0;
}

static int parse_fault(const char *spec, struct rkmd_fault *f)
{
	const char *colon = strchr(spec, ':');
	uint64_t v;

	if (!colon || parse_u64(colon + 1, &v))
		return -1;
	if (!strncmp(spec, "corrupt:", 8) && v)
		f->corrupt_every = v;
	else if (!strncmp(spec, "delay:", 6))
		f->delay_us = v;
	else if (!strncmp(spec, "exit-after:", 11) && v)
		f->exit_after = v;
	else if (!strncmp(spec, "skip:", 5) && v)
		f->skip_every = v;
	else if (!strncmp(spec, "write-input:", 12) && v)
		f->write_input_every = v;
	else if (!strncmp(spec, "write-output-late:", 18) && v)
		f->write_output_late_every = v;
	else if (!strncmp(spec, "fail-late:", 10) && v)
		f->fail_late_every = v;
	else
		return -1;
	return 0;
}

static const struct rkmd_backend_ops *choose_backend(const char *name,
						     int loopback)
{
	const struct rkmd_backend_ops *b;
	char why[256] = "";

	if (!strcmp(name, "auto")) {
		b = rkmd_find_backend("cuda");
		if (!b) {
			rkmd_info("backend auto: cpu (raidkmd was built without CUDA)");
			return rkmd_find_backend("cpu");
		}
		if (b->probe(why, sizeof(why))) {
			rkmd_info("backend auto: cpu (no usable GPU: %s)", why);
			return rkmd_find_backend("cpu");
		}
		rkmd_info("backend auto: cuda (%s)", why);
		return b;
	}
	if (!strcmp(name, "noop") && !loopback) {
		rkmd_err("--backend=noop codes nothing: only with --loopback");
		return NULL;
	}
	b = rkmd_find_backend(name);
	if (!b) {
		if (!strcmp(name, "cuda"))
			rkmd_err("--backend=cuda: raidkmd was built without the CUDA backend");
		else
			rkmd_err("unknown backend '%s' (auto, cuda, cpu)", name);
		return NULL;
	}
	if (b->probe(why, sizeof(why))) {
		rkmd_err("backend %s cannot run here: %s", name, why);
		return NULL;
	}
	rkmd_info("backend %s (%s)", name, why);
	return b;
}

/*
 * Bridge mode: one session per relay HELLO, until the VM goes away or a
 * signal stops us.  A session that ends (the relay restarted, the kernel
 * dropped this daemon) is followed by the next.
 */
static int serve_bridge(const char *sock_path, const char *ram,
			struct rkmd_core_cfg *cfg)
{
	struct rkm_br_rx rx = { 0 };
	struct rkmd_transport t;
	char why[256] = "";
	int sock, ret;

	sock = rkmd_bridge_connect(sock_path, why, sizeof(why));
	if (sock < 0) {
		rkmd_err("bridge: %s", why);
		return 1;
	}
	rkmd_info("bridge: waiting for raidkm-relay on %s", sock_path);
	for (;;) {
		ret = rkmd_bridge_open(&t, sock, ram, &rx, &g_stop, why,
				       sizeof(why));
		if (ret == -EINTR || ret == -ENOTCONN) {
			rkmd_info("bridge: %s", why);
			ret = 0;
			break;
		}
		if (ret) {
			rkmd_err("bridge: %s", why);
			ret = 1;
			break;
		}
		ret = rkmd_serve(&t, cfg, NULL, &g_core);
		t.ops->close(&t);
		if (g_stop || (ret && ret != -ECONNRESET && ret != -ENOTCONN)) {
			/* A failing backend: let the supervisor restart us. */
			if (ret)
				rkmd_err("bridge: stopped: %s", strerror(-ret));
			ret = ret ? 1 : 0;
			break;
		}
		rkmd_info("bridge: session over (%s); waiting for the next",
			  ret ? strerror(-ret) : "clean stop");
	}
	rkm_br_rx_free(&rx);
	close(sock);
	return ret;
}

/* What the command line asks for */
struct rkmd_opts {
	const char *backend, *device, *loop, *logto, *bridge, *ram;
	const char *gpus, *status_file;
	int64_t poll_us, spin_us;
	int fg, verbose;
	struct rkmd_core_cfg cfg;
};

/* A number option within [lo, max]; 0, or 2 (exit status) said why */
static int number_opt(const char *name, const char *arg, uint64_t lo,
		      uint64_t max, const char *range, uint64_t *v)
{
	if (!parse_u64(arg, v) && *v >= lo && *v <= max)
		return 0;
	fprintf(stderr, "raidkmd: bad --%s '%s'%s\n", name, arg, range);
	return 2;
}

/* One option c (getopt's) with its argument into o; 0, or an exit status */
static int take_option(int c, const char *arg, struct rkmd_opts *o)
{
	uint64_t v;

	switch (c) {
	case 'b': o->backend = arg; return 0;
	case 'g': o->gpus = arg; return 0;
	case 's': o->status_file = arg; return 0;
	case 'd': o->device = arg; return 0;
	case 'L': o->loop = arg; return 0;
	case 'G': o->bridge = arg; return 0;
	case 'R': o->ram = arg; return 0;
	case 'f': o->fg = 1; return 0;
	case 'v': o->verbose = 1; return 0;
	case 't':
		if (number_opt("threads", arg, 0, 1024, "", &v))
			return 2;
		o->cfg.threads = (int)v;
		return 0;
	case 'B':
		if (number_opt("batch", arg, 1, RAIDKM_MAX_STRIPES, "", &v))
			return 2;
		o->cfg.batch = (uint32_t)v;
		return 0;
	case 'P':
		if (number_opt("poll", arg, 0, 1000000, " (0-1000000)", &v))
			return 2;
		o->poll_us = (int64_t)v;
		return 0;
	case 'S':
		if (number_opt("spin", arg, 0, 1000000, " (0-1000000)", &v))
			return 2;
		o->spin_us = (int64_t)v;
		return 0;
	case 'l':
		o->logto = arg;
		if (strcmp(arg, "stderr") && strcmp(arg, "syslog")) {
			fprintf(stderr, "raidkmd: --log is stderr or syslog\n");
			return 2;
		}
		return 0;
	case 'F':
		if (parse_fault(arg, &o->cfg.fault)) {
			fprintf(stderr, "raidkmd: bad --fault '%s' (corrupt:N, delay:USEC, exit-after:N, skip:N, write-input:N, write-output-late:N, fail-late:N)\n",
				arg);
			return 2;
		}
		return 0;
	case 'h':
		usage(stdout);
		return -1;
	case 'V':
		printf("raidkmd, raidkm offload protocol %d\n",
		       RAIDKM_PROTO_VERSION);
		return -1;
	}
	usage(stderr);
	return 2;
}

/*
 * The command line into o: 0 to go on, else the exit status (-1: a
 * clean exit, --help or --version).
 */
static int parse_options(int argc, char **argv, struct rkmd_opts *o)
{
	static const struct option opts[] = {
		{ "backend", required_argument, NULL, 'b' },
		{ "threads", required_argument, NULL, 't' },
		{ "gpus", required_argument, NULL, 'g' },
		{ "status-file", required_argument, NULL, 's' },
		{ "batch", required_argument, NULL, 'B' },
		{ "device", required_argument, NULL, 'd' },
		{ "loopback", required_argument, NULL, 'L' },
		{ "bridge", required_argument, NULL, 'G' },
		{ "guest-ram", required_argument, NULL, 'R' },
		{ "poll", required_argument, NULL, 'P' },
		{ "spin", required_argument, NULL, 'S' },
		{ "foreground", no_argument, NULL, 'f' },
		{ "log", required_argument, NULL, 'l' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "fault", required_argument, NULL, 'F' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	int c, r;

	memset(o, 0, sizeof(*o));
	o->backend = "auto";
	o->device = "/dev/raidkm";
	o->poll_us = -1;
	o->spin_us = RKMD_SPIN_US_DEFAULT;
	o->cfg.threads = -1;
	while ((c = getopt_long(argc, argv, "b:t:d:fvhV", opts, NULL)) != -1) {
		r = take_option(c, optarg, o);
		if (r)
			return r;
	}
	if (optind < argc) {
		fprintf(stderr, "raidkmd: unexpected argument '%s'\n", argv[optind]);
		return 2;
	}
	if (!o->bridge != !o->ram || (o->bridge && o->loop)) {
		fprintf(stderr, "raidkmd: --bridge and --guest-ram go together, without --loopback\n");
		return 2;
	}
	return 0;
}

/* --gpus and the status file for the cuda backend; 0 or an exit status */
static int configure_gpus(struct rkmd_opts *o)
{
	char why[256] = "";

	if (!o->status_file && !o->loop) {
		o->status_file = RKMD_GPU_STATUS_FILE;
		if (mkdir(RKMD_GPU_STATUS_DIR, 0755) && errno != EEXIST)
			o->status_file = "";	/* not root: no status file */
	}
	if (!rkmd_backend_gpus(o->gpus, o->status_file, why, sizeof(why)))
		return 0;
	if (o->gpus)
		rkmd_err("--gpus=%s: %s", o->gpus, why);
	else
		rkmd_err("--status-file: %s", why);
	return o->gpus && !strstr(why, "without") ? 2 : 1;
}

/* Say which faults are injected (tests) */
static void warn_faults(const struct rkmd_fault *f)
{
	if (f->corrupt_every)
		rkmd_warn("fault injection: corrupting 1 job in %llu",
			  (unsigned long long)f->corrupt_every);
	if (f->delay_us)
		rkmd_warn("fault injection: delaying completions by %llu us",
			  (unsigned long long)f->delay_us);
	if (f->skip_every)
		rkmd_warn("fault injection: skipping the coding of 1 job in %llu",
			  (unsigned long long)f->skip_every);
	if (f->exit_after)
		rkmd_warn("fault injection: exiting after %llu jobs",
			  (unsigned long long)f->exit_after);
	if (f->write_input_every)
		rkmd_warn("fault injection: writing an input chunk of 1 job in %llu",
			  (unsigned long long)f->write_input_every);
	if (f->write_output_late_every)
		rkmd_warn("fault injection: writing the outputs of 1 job in %llu after its completion",
			  (unsigned long long)f->write_output_late_every);
}

/*
 * The kernel end: --loopback's socket, else /dev/raidkm; 0, -EDOM for a
 * bad --loopback, or -errno
 */
static int open_transport(const struct rkmd_opts *o, struct rkmd_transport *t)
{
	const char *loop = o->loop;
	char why[256] = "";
	uint64_t v;
	int sock, ret;

	if (!loop) {
		ret = rkmd_nl_open(t, o->device, why, sizeof(why));
	} else if (!strncmp(loop, "fd:", 3)) {
		if (parse_u64(loop + 3, &v) || v > 65535) {
			fprintf(stderr, "raidkmd: bad --loopback '%s'\n", loop);
			return -EDOM;
		}
		ret = rkmd_loop_open(t, (int)v, why, sizeof(why));
	} else {
		sock = rkmd_loop_connect(loop, why, sizeof(why));
		ret = sock < 0 ? sock :
		      rkmd_loop_open(t, sock, why, sizeof(why));
	}
	if (ret && why[0])
		rkmd_err("%s%s", loop && strncmp(loop, "fd:", 3) ?
			 "loopback: " : "", why);
	return ret;
}

/* One session on the netlink or loopback transport; the exit status */
static int serve_kernel(const struct rkmd_opts *o, struct rkmd_core_cfg *cfg)
{
	struct rkmd_transport t;
	int ret = open_transport(o, &t);

	if (ret)
		return ret == -EDOM ? 2 : 1;
	if (!o->fg && daemon(0, 0)) {
		rkmd_err("daemon: %s", strerror(errno));
		t.ops->close(&t);
		return 1;
	}
	setup_signals();
	ret = rkmd_serve(&t, cfg, NULL, &g_core);
	t.ops->close(&t);
	if (ret == -ECONNRESET || ret == -ENOTCONN) {
		rkmd_err("detached by the kernel end (missed deadline, wrong result or module unload: see dmesg)");
		return 1;
	}
	if (ret) {
		rkmd_err("stopped: %s", strerror(-ret));
		return 1;
	}
	rkmd_info("detached cleanly");
	return 0;
}

int main(int argc, char **argv)
{
	struct rkmd_opts o;
	int ret;

	ret = parse_options(argc, argv, &o);
	if (ret)
		return ret < 0 ? 0 : ret;
	if (!o.logto)
		o.logto = o.fg ? "stderr" : "syslog";
	rkmd_log_open(strcmp(o.logto, "syslog") ? RKMD_LOG_STDERR :
		      RKMD_LOG_SYSLOG, o.verbose);
	ret = configure_gpus(&o);
	if (ret)
		return ret;
	o.cfg.backend = choose_backend(o.backend, o.loop != NULL);
	if (!o.cfg.backend)
		return 1;
	warn_faults(&o.cfg.fault);
	o.cfg.stop_flag = &g_stop;
	o.cfg.poll_us = o.poll_us >= 0 ? (uint32_t)o.poll_us :
			o.bridge ? 50 : 0;
	o.cfg.spin_us = (uint32_t)o.spin_us;
	if (!o.bridge)
		return serve_kernel(&o, &o.cfg);
	if (!o.fg && daemon(0, 0)) {
		rkmd_err("daemon: %s", strerror(errno));
		return 1;
	}
	setup_signals();
	return serve_bridge(o.bridge, o.ram, &o.cfg);
}
