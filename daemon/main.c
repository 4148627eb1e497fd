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

int main(int argc, char **argv)
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
	const char *backend = "auto", *device = "/dev/raidkm", *loop = NULL;
	const char *logto = NULL, *bridge = NULL, *ram = NULL;
	const char *gpus = NULL, *status_file = NULL;
	int64_t poll_us = -1, spin_us = RKMD_SPIN_US_DEFAULT;
	struct rkmd_core_cfg cfg;
	struct rkmd_transport t;
	int c, fg = 0, verbose = 0, ret, sock;
	char why[256] = "";
	uint64_t v;

	memset(&cfg, 0, sizeof(cfg));
	cfg.threads = -1;
	while ((c = getopt_long(argc, argv, "b:t:d:fvhV", opts, NULL)) != -1) {
		switch (c) {
		case 'b':
			backend = optarg;
			break;
		case 't':
			if (parse_u64(optarg, &v) || v > 1024) {
				fprintf(stderr, "raidkmd: bad --threads '%s'\n", optarg);
				return 2;
			}
			cfg.threads = (int)v;
			break;
		case 'g':
			gpus = optarg;
			break;
		case 's':
			status_file = optarg;
			break;
		case 'B':
			if (parse_u64(optarg, &v) || !v || v > RAIDKM_MAX_STRIPES) {
				fprintf(stderr, "raidkmd: bad --batch '%s'\n", optarg);
				return 2;
			}
			cfg.batch = (uint32_t)v;
			break;
		case 'd':
			device = optarg;
			break;
		case 'L':
			loop = optarg;
			break;
		case 'G':
			bridge = optarg;
			break;
		case 'R':
			ram = optarg;
			break;
		case 'P':
			if (parse_u64(optarg, &v) || v > 1000000) {
				fprintf(stderr, "raidkmd: bad --poll '%s' (0-1000000)\n", optarg);
				return 2;
			}
			poll_us = (int64_t)v;
			break;
		case 'S':
			if (parse_u64(optarg, &v) || v > 1000000) {
				fprintf(stderr, "raidkmd: bad --spin '%s' (0-1000000)\n", optarg);
				return 2;
			}
			spin_us = (int64_t)v;
			break;
		case 'f':
			fg = 1;
			break;
		case 'l':
			logto = optarg;
			if (strcmp(logto, "stderr") && strcmp(logto, "syslog")) {
				fprintf(stderr, "raidkmd: --log is stderr or syslog\n");
				return 2;
			}
			break;
		case 'v':
			verbose = 1;
			break;
		case 'F':
			if (parse_fault(optarg, &cfg.fault)) {
				fprintf(stderr, "raidkmd: bad --fault '%s' (corrupt:N, delay:USEC, exit-after:N, skip:N, write-input:N, write-output-late:N, fail-late:N)\n",
					optarg);
				return 2;
			}
			break;
		case 'h':
			usage(stdout);
			return 0;
		case 'V':
			printf("raidkmd, raidkm offload protocol %d\n",
			       RAIDKM_PROTO_VERSION);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "raidkmd: unexpected argument '%s'\n", argv[optind]);
		return 2;
	}
	if (!bridge != !ram || (bridge && loop)) {
		fprintf(stderr, "raidkmd: --bridge and --guest-ram go together, without --loopback\n");
		return 2;
	}
	if (!logto)
		logto = fg ? "stderr" : "syslog";
	rkmd_log_open(strcmp(logto, "syslog") ? RKMD_LOG_STDERR :
		      RKMD_LOG_SYSLOG, verbose);

	if (!status_file && !loop) {
		status_file = RKMD_GPU_STATUS_FILE;
		if (mkdir(RKMD_GPU_STATUS_DIR, 0755) && errno != EEXIST)
			status_file = "";	/* not root: no status file */
	}
	if (rkmd_backend_gpus(gpus, status_file, why, sizeof(why))) {
		if (gpus)
			rkmd_err("--gpus=%s: %s", gpus, why);
		else
			rkmd_err("--status-file: %s", why);
		return gpus && !strstr(why, "without") ? 2 : 1;
	}

	cfg.backend = choose_backend(backend, loop != NULL);
	if (!cfg.backend)
		return 1;
	if (cfg.fault.corrupt_every)
		rkmd_warn("fault injection: corrupting 1 job in %llu",
			  (unsigned long long)cfg.fault.corrupt_every);
	if (cfg.fault.delay_us)
		rkmd_warn("fault injection: delaying completions by %llu us",
			  (unsigned long long)cfg.fault.delay_us);
	if (cfg.fault.skip_every)
		rkmd_warn("fault injection: skipping the coding of 1 job in %llu",
			  (unsigned long long)cfg.fault.skip_every);
	if (cfg.fault.exit_after)
		rkmd_warn("fault injection: exiting after %llu jobs",
			  (unsigned long long)cfg.fault.exit_after);
	if (cfg.fault.write_input_every)
		rkmd_warn("fault injection: writing an input chunk of 1 job in %llu",
			  (unsigned long long)cfg.fault.write_input_every);
	if (cfg.fault.write_output_late_every)
		rkmd_warn("fault injection: writing the outputs of 1 job in %llu after its completion",
			  (unsigned long long)cfg.fault.write_output_late_every);

	cfg.stop_flag = &g_stop;
	cfg.poll_us = poll_us >= 0 ? (uint32_t)poll_us : bridge ? 50 : 0;
	cfg.spin_us = (uint32_t)spin_us;
	if (bridge) {
		if (!fg && daemon(0, 0)) {
			rkmd_err("daemon: %s", strerror(errno));
			return 1;
		}
		setup_signals();
		return serve_bridge(bridge, ram, &cfg);
	}
	if (loop) {
		if (!strncmp(loop, "fd:", 3)) {
			if (parse_u64(loop + 3, &v) || v > 65535) {
				fprintf(stderr, "raidkmd: bad --loopback '%s'\n", loop);
				return 2;
			}
			sock = (int)v;
		} else {
			sock = rkmd_loop_connect(loop, why, sizeof(why));
			if (sock < 0) {
				rkmd_err("loopback: %s", why);
				return 1;
			}
		}
		ret = rkmd_loop_open(&t, sock, why, sizeof(why));
	} else {
		ret = rkmd_nl_open(&t, device, why, sizeof(why));
	}
	if (ret) {
		rkmd_err("%s", why);
		return 1;
	}
	if (!fg && daemon(0, 0)) {
		rkmd_err("daemon: %s", strerror(errno));
		t.ops->close(&t);
		return 1;
	}

	setup_signals();
	ret = rkmd_serve(&t, &cfg, NULL, &g_core);
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
