// SPDX-License-Identifier: GPL-2.0
/*
 * raidkm-relay: the guest half of the guest-RAM bridge (bridge_proto.h).
 *
 * Holds /dev/raidkm open and mapped through the same code raidkmd uses
 * (transport_nl.c), finds the guest-physical frame of every page of the
 * mapping in /proc/self/pagemap (the kernel's pages never move while the
 * device is open), and relays ATTACH, DOORBELL, COMPLETE and DETACH
 * between the kernel's generic netlink family and raidkmd on the VM host,
 * over a virtio-serial port.  It never touches job data.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "ring/rkm_ring.h"
#include "bridge_io.h"
#include "rkmd.h"
#include "rkmd_log.h"

#define SEND_TIMEOUT_MS		2000
#define IDLE_POLL_MS		100
/* How long a stop waits for the host daemon to drain after DETACH */
#define STOP_GRACE_S		5

static volatile int g_stop;

static void on_signal(int sig)
{
	g_stop = 1;
}

/* /dev/vportNpM of the virtio-serial port called @name */
static int find_port(const char *name, char *path, size_t len)
{
	const char *cls = "/sys/class/virtio-ports";
	char f[512], buf[128];
	struct dirent *de;
	DIR *d = opendir(cls);
	ssize_t n;
	int fd, found = 0;

	if (!d)
		return -ENOENT;
	while (!found && (de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		snprintf(f, sizeof(f), "%s/%s/name", cls, de->d_name);
		fd = open(f, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			continue;
		n = read(fd, buf, sizeof(buf) - 1);
		close(fd);
		if (n <= 0)
			continue;
		buf[n] = 0;
		buf[strcspn(buf, "\n")] = 0;
		if (!strcmp(buf, name)) {
			snprintf(path, len, "/dev/%s", de->d_name);
			found = 1;
		}
	}
	closedir(d);
	return found ? 0 : -ENOENT;
}

/* Guest-physical frame of every page of [map, map + len); 0 or -errno */
static int frames_of(void *map, size_t len, __u64 *frames)
{
	long ps = sysconf(_SC_PAGESIZE);
	size_t i, n = len / ps;
	ssize_t got;
	int fd;

	fd = open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	got = pread(fd, frames, n * 8, ((uintptr_t)map / ps) * 8);
	close(fd);
	if (got != (ssize_t)(n * 8))
		return got < 0 ? -errno : -EIO;
	for (i = 0; i < n; i++) {
		/* bit 63: present; bits 0-54: the frame (0 without CAP_SYS_ADMIN) */
		if (!(frames[i] >> 63) || !(frames[i] & ((1ull << 55) - 1)))
			return -EPERM;
		frames[i] &= (1ull << 55) - 1;
	}
	return 0;
}

/* Wait until raidkmd on the host has the port open; 0 or -EINTR */
static int wait_host(int port, struct rkm_br_rx *rx)
{
	struct pollfd p = { .fd = port, .events = POLLOUT };
	char junk[4096];

	for (;;) {
		if (g_stop)
			return -EINTR;
		p.revents = 0;
		if (poll(&p, 1, IDLE_POLL_MS) == 1 && !(p.revents & POLLHUP) &&
		    (p.revents & POLLOUT))
			break;
		/* Whatever an earlier host left behind is of no use. */
		while (read(port, junk, sizeof(junk)) > 0)
			;
		usleep(IDLE_POLL_MS * 1000);
	}
	rkm_br_rx_reset(rx);
	return 0;
}

static int send_hello(int port, struct rkmd_transport *t, uint64_t session)
{
	long ps = sysconf(_SC_PAGESIZE);
	uint64_t n = t->map_len / ps;
	struct rkm_br_hello *h;
	size_t len = sizeof(*h) + n * 8;
	int ret;

	h = calloc(1, len);
	if (!h)
		return -ENOMEM;
	h->version = RKM_BR_VERSION;
	h->page_size = ps;
	h->map_size = t->map_len;
	h->session = session;
	h->npages = n;
	ret = frames_of(t->map, t->map_len, (__u64 *)(h + 1));
	if (ret)
		rkmd_err("cannot read the frames of /dev/raidkm's mapping: %s",
			 strerror(-ret));
	else
		ret = rkm_br_send(port, RKM_BR_HELLO, 0, 0, h, len,
				  SEND_TIMEOUT_MS);
	free(h);
	return ret;
}

static int relay_attach(int port, struct rkmd_transport *t,
			const struct rkm_br_msg *m, const void *pl,
			uint64_t session)
{
	struct rkmd_attach_info ai;
	struct rkm_br_attach a;
	uint64_t features = 0;
	int ret;

	if (m->len != sizeof(a))
		return -EPROTO;
	memcpy(&a, pl, sizeof(a));
	a.backend[sizeof(a.backend) - 1] = 0;
	memset(&ai, 0, sizeof(ai));
	ai.backend = a.backend;
	ai.session = session;
	ai.features = a.features;
	ai.max_k = a.max_k;
	ai.max_m = a.max_m;
	ai.batch = a.batch;
	ai.ops = a.ops;
	/* The kernel validates every field (and the session) itself. */
	ret = t->ops->attach(t, &ai, &features);
	if (!ret)
		rkmd_info("attached raidkmd on the host (backend %s)",
			  a.backend);
	return rkm_br_send(port, RKM_BR_ATTACH_REPLY, ret, features, NULL, 0,
			   SEND_TIMEOUT_MS) ?: ret;
}

/* One session: relay until BYE, the host goes away or a stop; 0 or -errno */
static int relay_session(int port, struct rkm_br_rx *rx,
			 struct rkmd_transport *t, uint64_t session)
{
	struct pollfd p[2];
	struct rkm_br_msg m;
	const void *pl;
	int attached = 0, ret, n;
	time_t stop_by = 0;

	for (;;) {
		if (g_stop && !attached)
			return -EINTR;
		if (g_stop && !stop_by) {
			/*
			 * A clean stop: the kernel stops submitting, the host
			 * daemon sees kstate CLOSED, finishes what it holds
			 * and says BYE; we relay its completions meanwhile.
			 */
			rkmd_info("stopping: detaching the host daemon");
			if (t->ops->detach(t))
				return -EINTR;
			stop_by = time(NULL) + STOP_GRACE_S;
		}
		if (stop_by && time(NULL) > stop_by)
			return -EINTR;
		p[0].fd = port;
		p[0].events = POLLIN;
		p[1].fd = t->fd;
		p[1].events = POLLIN;
		p[0].revents = p[1].revents = 0;
		n = poll(p, attached ? 2 : 1, IDLE_POLL_MS);
		if (n < 0 && errno != EINTR)
			return -errno;
		if (attached && (p[1].revents & (POLLIN | POLLERR | POLLHUP))) {
			ret = t->ops->events(t);
			if (ret) {
				rkmd_warn("the kernel ended the session");
				return ret;
			}
			ret = rkm_br_send(port, RKM_BR_DOORBELL, 0, 0, NULL, 0,
					  SEND_TIMEOUT_MS);
			if (ret)
				return ret;
		}
		if (!(p[0].revents & (POLLIN | POLLHUP | POLLERR)))
			continue;
		for (;;) {
			ret = rkm_br_recv(rx, port, &m, &pl, 0);
			if (ret < 0) {
				rkmd_warn("raidkmd on the host went away");
				return ret;
			}
			if (!ret)
				break;
			switch (m.type) {
			case RKM_BR_ATTACH:
				/* Only for the HELLO this session sent. */
				if (m.arg != session || attached)
					break;
				ret = relay_attach(port, t, &m, pl, session);
				if (ret)
					return ret;
				attached = 1;
				break;
			case RKM_BR_COMPLETE:
				if (attached && t->ops->complete(t, m.arg))
					rkmd_warn("COMPLETE not delivered");
				break;
			case RKM_BR_DETACH:
				if (attached && t->ops->detach(t))
					rkmd_warn("DETACH not delivered");
				break;
			case RKM_BR_BYE:
				if (attached || m.arg == session)
					return 0;
				break;
			}
		}
	}
}

static void usage(FILE *f)
{
	fprintf(f,
"Usage: raidkm-relay [OPTION]...\n"
"Inside a QEMU guest: let raidkmd on the VM host serve this guest's\n"
"raidkm.ko through the guest-RAM bridge.  The VM needs its RAM in a shared\n"
"file (memory-backend-file, share=on) and a virtio-serial port named\n"
"\"%s\"; on the host run raidkmd --bridge=SOCK --guest-ram=FILE.\n"
"Runs until SIGTERM, one session after another.\n"
"\n"
"  -p, --port=NAME     the virtio-serial port's name (default above)\n"
"  -d, --device=PATH   the raidkm device (default /dev/raidkm)\n"
"  -v, --verbose       log debug messages\n"
"  -h, --help          this text\n", RKM_BR_PORT_NAME);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "port", required_argument, NULL, 'p' },
		{ "device", required_argument, NULL, 'd' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *name = RKM_BR_PORT_NAME, *dev = "/dev/raidkm";
	struct rkm_br_rx rx = { 0 };
	struct rkmd_transport t;
	struct raidkm_shm_hdr *h;
	struct sigaction sa;
	char path[300], why[256];
	int c, verbose = 0, port, ret;

	while ((c = getopt_long(argc, argv, "p:d:vh", opts, NULL)) != -1) {
		switch (c) {
		case 'p':
			name = optarg;
			break;
		case 'd':
			dev = optarg;
			break;
		case 'v':
			verbose = 1;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	rkmd_log_open(RKMD_LOG_STDERR, verbose);
	if (find_port(name, path, sizeof(path))) {
		rkmd_err("no virtio-serial port named \"%s\" (is virtio_console loaded?)",
			 name);
		return 1;
	}
	port = open(path, O_RDWR | O_NONBLOCK | O_CLOEXEC);
	if (port < 0) {
		rkmd_err("%s: %s", path, strerror(errno));
		return 1;
	}
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	sa.sa_handler = SIG_IGN;
	sigaction(SIGPIPE, &sa, NULL);

	while (!g_stop) {
		if (wait_host(port, &rx))
			break;
		ret = rkmd_nl_open(&t, dev, why, sizeof(why));
		if (ret) {
			rkmd_err("%s", why);
			sleep(1);
			continue;
		}
		h = t.map;
		rkmd_info("%s open: offering %zu MiB to the host", dev,
			  t.map_len >> 20);
		ret = send_hello(port, &t, h->session);
		if (!ret)
			ret = relay_session(port, &rx, &t, h->session);
		if (ret == -EPIPE || ret == -ENOTCONN)
			rkmd_info("host side gone; reopening %s", dev);
		else if (ret)	/* we end it: tell the host at once */
			rkm_br_send(port, RKM_BR_BYE, 0, h->session, NULL, 0,
				    200);
		/* Closing the device re-runs what was in flight on the CPU. */
		t.ops->close(&t);
	}
	rkm_br_rx_free(&rx);
	close(port);
	return 0;
}
