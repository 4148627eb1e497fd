// SPDX-License-Identifier: GPL-2.0
/*
 * rkm-offload-probe: pokes raidkm's offload interfaces the way a broken or
 * hostile daemon would, for the guest scenarios tests/guest/offload-*.sh.
 * Raw netlink on purpose (no libnl): it must be able to send what a
 * well-behaved client never sends.
 *
 *   rkm-offload-probe stats
 *	GET_STATS; prints "attached N", "pid N", "backend S" and
 *	"<counter> N" lines (global), "array NAME <counter> N" per array.
 *   rkm-offload-probe attach [--no-open] [--no-map] [--drop-cap]
 *			      [--session=N] [--version=N] [--backend=S]
 *			      [--max-k=N] [--ops=N] [--hold=SEC]
 *	open and map /dev/raidkm (unless told not to), send ATTACH with
 *	the session cookie from the header (or the one given); with
 *	--hold, keep the session (never serving a job) for SEC seconds.
 *   rkm-offload-probe detach-foreign
 *	DETACH from a socket that is not the attached daemon's.
 *   rkm-offload-probe complete-foreign
 *	COMPLETE from a socket that is not the attached daemon's.
 *   rkm-offload-probe mmap
 *	check the device's mmap rules (header, whole map, private map and
 *	oversized map refused, arena writable, second open refused).
 *
 * Exit status: 0 success, else the errno of the refusal (EPERM 1, EACCES
 * 13, EBUSY 16, ENODEV 19, EINVAL 22, EPROTO 71, ESTALE 116), or 100 for
 * a failed mmap check, 101 for usage or unexpected failures.  Refusals
 * print the kernel's extended ack message.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <linux/capability.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>
#include "uapi/raidkm.h"

#define DEV "/dev/raidkm"

/*
 * for_each_attr(a, start, len): the attributes at @start in @len bytes,
 * each whole within them (@len counts down; a short or overlong one ends
 * the walk)
 */
#define for_each_attr(a, start, len)					\
	for ((a) = (struct nlattr *)(start);				\
	     (len) >= NLA_HDRLEN && (a)->nla_len >= NLA_HDRLEN &&	\
	     (a)->nla_len <= (len);					\
	     (len) -= NLA_ALIGN((a)->nla_len),				\
	     (a) = (struct nlattr *)((char *)(a) + NLA_ALIGN((a)->nla_len)))

static int nl_fd = -1;
static int family;
static uint32_t seq = 1;

struct msgbuf {
	struct nlmsghdr nh;
	struct genlmsghdr gh;
	char attrs[1024];
};

static void die(const char *what)
{
	perror(what);
	exit(101);
}

static void put_attr(struct msgbuf *m, uint16_t type, const void *data,
		     uint16_t len)
{
	struct nlattr *a = (struct nlattr *)((char *)m + NLMSG_ALIGN(m->nh.nlmsg_len));

	a->nla_type = type;
	a->nla_len = NLA_HDRLEN + len;
	memcpy((char *)a + NLA_HDRLEN, data, len);
	m->nh.nlmsg_len = NLMSG_ALIGN(m->nh.nlmsg_len) + NLA_ALIGN(a->nla_len);
}

static void msg_init(struct msgbuf *m, uint16_t type, uint8_t cmd,
		     uint8_t version)
{
	memset(m, 0, sizeof(*m));
	m->nh.nlmsg_len = NLMSG_LENGTH(GENL_HDRLEN);
	m->nh.nlmsg_type = type;
	m->nh.nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK;
	m->nh.nlmsg_seq = seq++;
	m->gh.cmd = cmd;
	m->gh.version = version;
}

static void nl_open(void)
{
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK };
	int one = 1;

	nl_fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_GENERIC);
	if (nl_fd < 0)
		die("socket");
	setsockopt(nl_fd, SOL_NETLINK, NETLINK_EXT_ACK, &one, sizeof(one));
	if (bind(nl_fd, (struct sockaddr *)&sa, sizeof(sa)))
		die("bind");
}

/*
 * Send and read replies until the ack.  Returns 0 or -errno; the reply
 * (if any) is copied to @reply.  Prints the extack message of an error.
 */
static int nl_call(struct msgbuf *m, char *reply, size_t rlen)
{
	static char buf[65536];
	struct nlmsghdr *nh;
	ssize_t n;

	if (send(nl_fd, m, m->nh.nlmsg_len, 0) < 0)
		die("send");
	for (;;) {
		n = recv(nl_fd, buf, sizeof(buf), 0);
		if (n < 0)
			die("recv");
		for (nh = (struct nlmsghdr *)buf; NLMSG_OK(nh, n);
		     nh = NLMSG_NEXT(nh, n)) {
			if (nh->nlmsg_seq != m->nh.nlmsg_seq)
				continue;
			if (nh->nlmsg_type == NLMSG_ERROR) {
				struct nlmsgerr *e = NLMSG_DATA(nh);
				int off = NLMSG_ALIGN(sizeof(*e));
				struct nlattr *a;

				if (!(nh->nlmsg_flags & NLM_F_CAPPED))
					off += NLMSG_ALIGN(e->msg.nlmsg_len) -
					       NLMSG_HDRLEN;
				if (!e->error)
					return 0;
				for (a = (struct nlattr *)((char *)e + off);
				     (char *)a + NLA_HDRLEN <= (char *)nh + nh->nlmsg_len &&
				     a->nla_len >= NLA_HDRLEN;
				     a = (struct nlattr *)((char *)a + NLA_ALIGN(a->nla_len)))
					if ((a->nla_type & NLA_TYPE_MASK) == NLMSGERR_ATTR_MSG)
						printf("extack: %s\n",
						       (char *)a + NLA_HDRLEN);
				return e->error;
			}
			if (reply && nh->nlmsg_len <= rlen)
				memcpy(reply, nh, nh->nlmsg_len);
		}
	}
}

static int resolve_family(void)
{
	static char reply[8192];
	struct msgbuf m;
	struct nlmsghdr *nh = (struct nlmsghdr *)reply;
	struct nlattr *a;
	int len, ret;

	msg_init(&m, GENL_ID_CTRL, CTRL_CMD_GETFAMILY, 1);
	put_attr(&m, CTRL_ATTR_FAMILY_NAME, RAIDKM_GENL_NAME,
		 sizeof(RAIDKM_GENL_NAME));
	memset(reply, 0, sizeof(reply));
	ret = nl_call(&m, reply, sizeof(reply));
	if (ret)
		return ret;
	len = nh->nlmsg_len - NLMSG_LENGTH(GENL_HDRLEN);
	for_each_attr(a, (char *)NLMSG_DATA(nh) + GENL_HDRLEN, len)
		if (a->nla_type == CTRL_ATTR_FAMILY_ID)
			family = *(uint16_t *)((char *)a + NLA_HDRLEN);
	return family ? 0 : -ENOENT;
}

static const char *const stat_name[] = {
	[RAIDKM_STAT_JOBS_OFFLOADED] = "jobs_offloaded",
	[RAIDKM_STAT_JOBS_CPU] = "jobs_cpu",
	[RAIDKM_STAT_DEADLINE_MISSES] = "deadline_misses",
	[RAIDKM_STAT_RERUNS] = "reruns",
	[RAIDKM_STAT_VERIFY_MISMATCHES] = "verify_mismatches",
	[RAIDKM_STAT_BYTES_OFFLOADED] = "bytes_offloaded",
	[RAIDKM_STAT_BAD_COMPLETIONS] = "bad_completions",
	[RAIDKM_STAT_STALE_COMPLETIONS] = "stale_completions",
	[RAIDKM_STAT_DOORBELLS] = "doorbells",
	[RAIDKM_STAT_ATTACHES] = "attaches",
};

static void print_stats(const char *prefix, struct nlattr *nest)
{
	int len = nest->nla_len - NLA_HDRLEN;
	struct nlattr *a;

	for_each_attr(a, (char *)nest + NLA_HDRLEN, len) {
		uint64_t v;

		if (a->nla_type >= RAIDKM_STAT_PAD || !stat_name[a->nla_type])
			continue;
		memcpy(&v, (char *)a + NLA_HDRLEN, sizeof(v));
		printf("%s%s %llu\n", prefix, stat_name[a->nla_type],
		       (unsigned long long)v);
	}
}

static int cmd_stats(void)
{
	static char reply[65536];
	struct nlmsghdr *nh = (struct nlmsghdr *)reply;
	struct msgbuf m;
	struct nlattr *a;
	int len, ret;

	msg_init(&m, family, RAIDKM_CMD_GET_STATS, RAIDKM_GENL_VERSION);
	ret = nl_call(&m, reply, sizeof(reply));
	if (ret)
		return ret;
	len = nh->nlmsg_len - NLMSG_LENGTH(GENL_HDRLEN);
	for_each_attr(a, (char *)NLMSG_DATA(nh) + GENL_HDRLEN, len) {
		void *p = (char *)a + NLA_HDRLEN;

		switch (a->nla_type & NLA_TYPE_MASK) {
		case RAIDKM_A_ATTACHED:
			printf("attached %u\n", *(uint8_t *)p);
			break;
		case RAIDKM_A_PID:
			printf("pid %u\n", *(uint32_t *)p);
			break;
		case RAIDKM_A_BACKEND:
			printf("backend %s\n", (char *)p);
			break;
		case RAIDKM_A_STATS:
			print_stats("", a);
			break;
		case RAIDKM_A_ARRAY: {
			struct nlattr *b = p, *st = NULL;
			int blen = a->nla_len - NLA_HDRLEN;
			char prefix[64] = "array ? ";

			for (; blen >= NLA_HDRLEN && b->nla_len >= NLA_HDRLEN &&
			       b->nla_len <= blen;
			     blen -= NLA_ALIGN(b->nla_len),
			     b = (struct nlattr *)((char *)b + NLA_ALIGN(b->nla_len))) {
				if ((b->nla_type & NLA_TYPE_MASK) == RAIDKM_A_ARRAY_NAME)
					snprintf(prefix, sizeof(prefix), "array %s ",
						 (char *)b + NLA_HDRLEN);
				else if ((b->nla_type & NLA_TYPE_MASK) == RAIDKM_A_STATS)
					st = b;
			}
			if (st)
				print_stats(prefix, st);
			break;
		}
		}
	}
	return 0;
}

static void drop_sys_admin(void)
{
	struct __user_cap_header_struct h = {
		.version = _LINUX_CAPABILITY_VERSION_3,
	};
	struct __user_cap_data_struct c[2];

	if (syscall(SYS_capget, &h, c))
		die("capget");
	c[CAP_SYS_ADMIN / 32].effective &= ~(1u << (CAP_SYS_ADMIN % 32));
	c[CAP_SYS_ADMIN / 32].permitted &= ~(1u << (CAP_SYS_ADMIN % 32));
	if (syscall(SYS_capset, &h, c))
		die("capset");
}

/*
 * Map the device as the uapi asks (a daemon's way): control region and
 * staging read-write, the input arena read-only, contiguous.
 */
static volatile uint8_t *map_split(int fd, const struct raidkm_shm_hdr *h)
{
	uint8_t *b;

	b = mmap(NULL, h->map_size, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS,
		 -1, 0);
	if (b == MAP_FAILED ||
	    mmap(b, h->arena_off, PROT_READ | PROT_WRITE,
		 MAP_SHARED | MAP_FIXED, fd, 0) == MAP_FAILED ||
	    mmap(b + h->arena_off, h->stage_off - h->arena_off, PROT_READ,
		 MAP_SHARED | MAP_FIXED, fd, h->arena_off) == MAP_FAILED ||
	    mmap(b + h->stage_off, h->stage_size, PROT_READ | PROT_WRITE,
		 MAP_SHARED | MAP_FIXED, fd, h->stage_off) == MAP_FAILED)
		return NULL;
	return b;
}

static const char *opt(const char *arg, const char *name)
{
	size_t n = strlen(name);

	return !strncmp(arg, name, n) && arg[n] == '=' ? arg + n + 1 : NULL;
}

static int cmd_attach(int argc, char **argv)
{
	int do_open = 1, do_map = 1, drop = 0, hold = 0, i, fd = -1, ret;
	uint32_t version = RAIDKM_PROTO_VERSION, ops = 0;
	const char *backend = "probe", *v;
	uint64_t session = 0, features = RAIDKM_FEAT_ALL;
	int have_session = 0, max_k = -1;
	struct raidkm_shm_hdr *h;
	struct msgbuf m;

	for (i = 0; i < argc; i++) {
		if (!strcmp(argv[i], "--no-open"))
			do_open = 0;
		else if (!strcmp(argv[i], "--no-map"))
			do_map = 0;
		else if (!strcmp(argv[i], "--drop-cap"))
			drop = 1;
		else if ((v = opt(argv[i], "--session")))
			session = strtoull(v, NULL, 0), have_session = 1;
		else if ((v = opt(argv[i], "--version")))
			version = strtoul(v, NULL, 0);
		else if ((v = opt(argv[i], "--backend")))
			backend = v;
		else if ((v = opt(argv[i], "--max-k")))
			max_k = atoi(v);
		else if ((v = opt(argv[i], "--ops")))
			ops = strtoul(v, NULL, 0);
		else if ((v = opt(argv[i], "--hold")))
			hold = atoi(v);
		else
			return 101;
	}
	if (do_open) {
		fd = open(DEV, O_RDWR | O_CLOEXEC);
		if (fd < 0) {
			ret = errno;
			printf("open: %s\n", strerror(errno));
			return ret;
		}
	}
	if (do_open && do_map) {
		h = mmap(NULL, RAIDKM_HDR_SIZE, PROT_READ, MAP_SHARED, fd, 0);
		if (h == MAP_FAILED)
			die("mmap header");
		if (!have_session)
			session = h->session;
		if (!map_split(fd, h))
			die("mmap");
	}
	if (drop)
		drop_sys_admin();
	msg_init(&m, family, RAIDKM_CMD_ATTACH, RAIDKM_GENL_VERSION);
	put_attr(&m, RAIDKM_A_VERSION, &version, 4);
	put_attr(&m, RAIDKM_A_SESSION, &session, 8);
	put_attr(&m, RAIDKM_A_FEATURES, &features, 8);
	put_attr(&m, RAIDKM_A_BACKEND, backend, strlen(backend) + 1);
	if (max_k >= 0) {
		uint8_t k = max_k;

		put_attr(&m, RAIDKM_A_MAX_K, &k, 1);
	}
	if (ops)
		put_attr(&m, RAIDKM_A_OPS, &ops, 4);
	ret = nl_call(&m, NULL, 0);
	if (ret) {
		printf("attach: %s\n", strerror(-ret));
		return -ret;
	}
	printf("attach: ok\n");
	fflush(stdout);
	if (hold)
		sleep(hold);
	return 0;
}

static int cmd_foreign(uint8_t cmd)
{
	struct msgbuf m;
	int ret;

	msg_init(&m, family, cmd, RAIDKM_GENL_VERSION);
	ret = nl_call(&m, NULL, 0);
	printf("%s: %s\n", cmd == RAIDKM_CMD_DETACH ? "detach" : "complete",
	       ret ? strerror(-ret) : "ok");
	return -ret;
}

#define CHECK(cond, what) do {					\
	if (!(cond)) {						\
		printf("mmap check failed: %s (%s)\n", what,	\
		       strerror(errno));			\
		return 100;					\
	}							\
} while (0)

static int cmd_mmap(void)
{
	struct raidkm_shm_hdr *h;
	volatile uint8_t *map;
	uint64_t size;
	int fd, fd2;

	fd = open(DEV, O_RDWR | O_CLOEXEC);
	CHECK(fd >= 0, "open");
	fd2 = open(DEV, O_RDWR | O_CLOEXEC);
	CHECK(fd2 < 0 && errno == EBUSY, "second open refused with EBUSY");
	h = mmap(NULL, RAIDKM_HDR_SIZE, PROT_READ, MAP_SHARED, fd, 0);
	CHECK(h != MAP_FAILED, "map the header");
	CHECK(h->magic == RAIDKM_SHM_MAGIC, "magic");
	CHECK(h->version == RAIDKM_PROTO_VERSION, "version");
	CHECK(h->kstate == RAIDKM_KSTATE_OPEN, "kstate OPEN");
	CHECK(h->session != 0, "session cookie");
	size = h->map_size;
	printf("map_size %llu arena_off %llu arena_size %llu nslots %u\n",
	       (unsigned long long)size, (unsigned long long)h->arena_off,
	       (unsigned long long)h->arena_size, h->nslots);
	CHECK(mmap(NULL, size + 4096, PROT_READ, MAP_SHARED, fd, 0) ==
	      MAP_FAILED, "oversized map refused");
	CHECK(mmap(NULL, 4096, PROT_READ, MAP_SHARED, fd, size) == MAP_FAILED,
	      "map past the end refused");
	CHECK(mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0) ==
	      MAP_FAILED, "private map refused");
	CHECK(h->features & RAIDKM_FEAT_RO_INPUT, "RO_INPUT offered");
	CHECK(mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0) ==
	      MAP_FAILED && errno == EACCES, "writable whole map refused");
	CHECK(mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd,
		   h->stage_off - 4096) == MAP_FAILED && errno == EACCES,
	      "writable map of the last input page refused");
	CHECK(mmap(NULL, 8192, PROT_READ | PROT_WRITE, MAP_SHARED, fd,
		   h->arena_off - 4096) == MAP_FAILED && errno == EACCES,
	      "writable map reaching into the inputs refused");
	map = mmap(NULL, size, PROT_READ, MAP_SHARED, fd, 0);
	CHECK(map != MAP_FAILED, "read-only map of the whole region");
	CHECK(mprotect((void *)map, size, PROT_READ | PROT_WRITE) &&
	      errno == EACCES, "read-only map cannot be made writable");
	CHECK(((struct raidkm_shm_hdr *)map)->session == h->session,
	      "both maps show the same header");
	map = map_split(fd, h);
	CHECK(map, "split map: control and staging writable, inputs not");
	map[0x100] = map[0x100];	/* sq_ctl.head: writable */
	map[size - 1] = map[size - 1];	/* staging: writable */
	CHECK(mprotect((void *)(map + h->arena_off), 4096,
		       PROT_READ | PROT_WRITE) && errno == EACCES,
	      "mprotect of an input page refused");
	CHECK(mremap((void *)(map + h->arena_off), 4096, 4096, 0) !=
	      MAP_FAILED, "mremap of an input page");
	CHECK(mprotect((void *)(map + h->arena_off), 4096,
		       PROT_READ | PROT_WRITE) && errno == EACCES,
	      "mprotect after mremap refused");
	fd2 = open("/proc/self/mem", O_RDWR | O_CLOEXEC);
	CHECK(fd2 >= 0, "open /proc/self/mem");
	CHECK(pwrite(fd2, "x", 1, (off_t)(uintptr_t)(map + h->arena_off + 8)) <
	      0, "write to an input page through /proc/self/mem refused");
	close(fd2);
	printf("mmap checks ok\n");
	return 0;
}

int main(int argc, char **argv)
{
	int ret;

	if (argc < 2) {
		fprintf(stderr, "usage: see the comment at the top of offload-probe.c\n");
		return 101;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (!strcmp(argv[1], "mmap"))
		return cmd_mmap();
	nl_open();
	ret = resolve_family();
	if (ret) {
		printf("family %s: %s\n", RAIDKM_GENL_NAME, strerror(-ret));
		return 101;
	}
	if (!strcmp(argv[1], "stats"))
		return cmd_stats();
	if (!strcmp(argv[1], "attach"))
		return cmd_attach(argc - 2, argv + 2);
	if (!strcmp(argv[1], "detach-foreign"))
		return cmd_foreign(RAIDKM_CMD_DETACH);
	if (!strcmp(argv[1], "complete-foreign"))
		return cmd_foreign(RAIDKM_CMD_COMPLETE);
	return 101;
}
