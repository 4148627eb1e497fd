// SPDX-License-Identifier: GPL-2.0
/*
 * Loopback transport: the daemon's end of daemon/loopback (memfd +
 * SOCK_SEQPACKET control socket) instead of /dev/raidkm + netlink.  The
 * inputs are mapped read-only like on the kernel, but a memfd cannot
 * forbid mprotect() per range: here that is the daemon's own discipline.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "ring/rkm_ring.h"
#include "loopback/loop_proto.h"
#include "rkmd.h"
#include "rkmd_log.h"

#define HELLO_TIMEOUT_MS	10000
#define ATTACH_TIMEOUT_MS	10000

static int loop_send(struct rkmd_transport *t, uint32_t type, const void *data,
		     uint32_t len)
{
	struct rkm_loop_msg m;

	memset(&m, 0, RKM_LOOP_HDR_LEN);
	m.type = type;
	m.len = len;
	if (len)
		memcpy(m.data, data, len);
	if (send(t->fd, &m, RKM_LOOP_HDR_LEN + len, MSG_NOSIGNAL) < 0)
		return -errno;
	return 0;
}

/* Receive one message, waiting up to timeout_ms; fd from SCM_RIGHTS */
static int loop_recv(int sock, struct rkm_loop_msg *m, int *fd,
		     int timeout_ms)
{
	char cbuf[CMSG_SPACE(sizeof(int))];
	struct iovec iov = { .iov_base = m, .iov_len = sizeof(*m) };
	struct msghdr mh;
	struct cmsghdr *cm;
	struct pollfd pfd = { .fd = sock, .events = POLLIN };
	ssize_t n;

	if (poll(&pfd, 1, timeout_ms) != 1)
		return -ETIMEDOUT;
	memset(&mh, 0, sizeof(mh));
	mh.msg_iov = &iov;
	mh.msg_iovlen = 1;
	mh.msg_control = cbuf;
	mh.msg_controllen = sizeof(cbuf);
	n = recvmsg(sock, &mh, MSG_CMSG_CLOEXEC);
	if (n <= 0)
		return n ? -errno : -ENOTCONN;
	if (n < RKM_LOOP_HDR_LEN)
		return -EPROTO;
	if (fd)
		*fd = -1;
	for (cm = CMSG_FIRSTHDR(&mh); cm; cm = CMSG_NXTHDR(&mh, cm))
		if (cm->cmsg_level == SOL_SOCKET &&
		    cm->cmsg_type == SCM_RIGHTS && fd)
			memcpy(fd, CMSG_DATA(cm), sizeof(int));
	return 0;
}

static void put_attr(uint8_t *buf, uint32_t *pos, uint16_t type,
		     const void *data, uint16_t len)
{
	uint16_t hdr[2] = { (uint16_t)(4 + len), type };

	memcpy(buf + *pos, hdr, 4);
	memcpy(buf + *pos + 4, data, len);
	memset(buf + *pos + 4 + len, 0, ((len + 3) & ~3u) - len);
	*pos += 4 + ((len + 3) & ~3u);
}

static int loop_attach(struct rkmd_transport *t,
		       const struct rkmd_attach_info *ai, uint64_t *features)
{
	uint8_t buf[256];
	uint32_t pos = 0, v;
	uint8_t b;
	struct rkm_loop_msg m;
	int ret;

	v = RAIDKM_PROTO_VERSION;
	put_attr(buf, &pos, RAIDKM_A_VERSION, &v, 4);
	put_attr(buf, &pos, RAIDKM_A_SESSION, &ai->session, 8);
	put_attr(buf, &pos, RAIDKM_A_FEATURES, &ai->features, 8);
	put_attr(buf, &pos, RAIDKM_A_BACKEND, ai->backend,
		 strlen(ai->backend) + 1);
	b = ai->max_k;
	put_attr(buf, &pos, RAIDKM_A_MAX_K, &b, 1);
	b = ai->max_m;
	put_attr(buf, &pos, RAIDKM_A_MAX_M, &b, 1);
	put_attr(buf, &pos, RAIDKM_A_BATCH, &ai->batch, 4);
	put_attr(buf, &pos, RAIDKM_A_OPS, &ai->ops, 4);
	ret = loop_send(t, RKM_LOOP_ATTACH, buf, pos);
	if (ret)
		return ret;
	for (;;) {
		ret = loop_recv(t->fd, &m, NULL, ATTACH_TIMEOUT_MS);
		if (ret)
			return ret;
		if (m.type == RKM_LOOP_ATTACH_REPLY)
			break;
	}
	if (m.status)
		return m.status < 0 ? m.status : -EPROTO;
	*features = m.arg;
	return 0;
}

static int loop_events(struct rkmd_transport *t)
{
	struct rkm_loop_msg m;
	ssize_t n;

	for (;;) {
		n = recv(t->fd, &m, sizeof(m), MSG_DONTWAIT);
		if (n > 0)
			continue;	/* doorbells carry no work */
		if (n == 0) {
			rkmd_warn("the loopback kernel end hung up");
			return -ENOTCONN;
		}
		if (errno == EAGAIN)
			return 0;
		if (errno != EINTR)
			return -errno;
	}
}

static int loop_complete(struct rkmd_transport *t, uint32_t cq_tail)
{
	return loop_send(t, RKM_LOOP_COMPLETE, NULL, 0);
}

static int loop_detach(struct rkmd_transport *t)
{
	return loop_send(t, RKM_LOOP_DETACH, NULL, 0);
}

static void loop_close(struct rkmd_transport *t)
{
	if (t->map)
		munmap(t->map, t->map_len);
	t->map = NULL;
	if (t->fd >= 0)
		close(t->fd);
	t->fd = -1;
}

static const struct rkmd_transport_ops loop_ops = {
	.name = "loopback",
	.attach = loop_attach,
	.events = loop_events,
	.complete = loop_complete,
	.detach = loop_detach,
	.close = loop_close,
};

int rkmd_loop_open(struct rkmd_transport *t, int sock, char *why,
		   size_t whylen)
{
	struct raidkm_shm_hdr h;
	struct rkm_loop_msg m;
	const char *bad = NULL;
	int ret, memfd = -1;
	void *map;

	memset(t, 0, sizeof(*t));
	t->fd = -1;
	ret = loop_recv(sock, &m, &memfd, HELLO_TIMEOUT_MS);
	if (ret || m.type != RKM_LOOP_HELLO || memfd < 0) {
		snprintf(why, whylen, "no HELLO from the loopback (%s)",
			 ret ? strerror(-ret) : "unexpected message");
		if (memfd >= 0)
			close(memfd);
		return ret ? ret : -EPROTO;
	}
	if (m.arg < RAIDKM_HDR_SIZE || m.arg > (1ull << 40)) {
		snprintf(why, whylen, "bad mapping size %llu",
			 (unsigned long long)m.arg);
		close(memfd);
		return -EPROTO;
	}
	/* The header first, to learn which part is read-only. */
	map = mmap(NULL, RAIDKM_HDR_SIZE, PROT_READ, MAP_SHARED, memfd, 0);
	if (map == MAP_FAILED) {
		ret = -errno;
		snprintf(why, whylen, "mmap: %s", strerror(errno));
		close(memfd);
		return ret;
	}
	memcpy(&h, map, sizeof(h));
	munmap(map, RAIDKM_HDR_SIZE);
	if (rkm_shm_check(&h, m.arg, &bad) || h.map_size != m.arg) {
		snprintf(why, whylen, "loopback header: %s",
			 bad ? bad : "map_size differs from HELLO");
		close(memfd);
		return -EPROTO;
	}
	map = rkmd_map_shm(memfd, &h, MAP_POPULATE, why, whylen);
	close(memfd);
	if (!map)
		return -EACCES;
	t->ops = &loop_ops;
	t->map = map;
	t->map_len = m.arg;
	t->fd = sock;
	return 0;
}

int rkmd_unix_connect(const char *path, int type, char *why, size_t whylen)
{
	struct sockaddr_un sa;
	int s;

	memset(&sa, 0, sizeof(sa));
	sa.sun_family = AF_UNIX;
	if (strlen(path) >= sizeof(sa.sun_path)) {
		snprintf(why, whylen, "socket path too long");
		return -ENAMETOOLONG;
	}
	strcpy(sa.sun_path, path);
	s = socket(AF_UNIX, type | SOCK_CLOEXEC, 0);
	if (s < 0 || connect(s, (struct sockaddr *)&sa, sizeof(sa))) {
		snprintf(why, whylen, "connect %s: %s", path, strerror(errno));
		if (s >= 0)
			close(s);
		return -ENOTCONN;
	}
	return s;
}

int rkmd_loop_connect(const char *path, char *why, size_t whylen)
{
	return rkmd_unix_connect(path, SOCK_SEQPACKET, why, whylen);
}
