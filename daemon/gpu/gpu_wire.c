// SPDX-License-Identifier: GPL-2.0
/* Whole messages over the worker socket (gpu_wire.h). */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#include "gpu_wire.h"

/* Write every byte of iov[0..n-1]; 0 or -errno */
static int write_all(int fd, struct iovec *iov, int n)
{
	while (n) {
		struct msghdr mh = { .msg_iov = iov, .msg_iovlen = n };
		ssize_t w = sendmsg(fd, &mh, MSG_NOSIGNAL);

		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0)
			return -errno;
		while (n && (size_t)w >= iov->iov_len) {
			w -= iov->iov_len;
			iov++;
			n--;
		}
		if (n) {
			iov->iov_base = (char *)iov->iov_base + w;
			iov->iov_len -= w;
		}
	}
	return 0;
}

int rkg_wire_send(int fd, pthread_mutex_t *lock, uint32_t type, uint64_t id,
		  const void *a, size_t alen, const void *b, size_t blen)
{
	struct rkg_msg_hdr h = { type, (uint32_t)(alen + blen), id };
	struct iovec iov[3] = {
		{ &h, sizeof(h) }, { (void *)a, alen }, { (void *)b, blen },
	};
	int r;

	if (alen + blen > RKG_WIRE_MAX)
		return -EMSGSIZE;
	if (lock)
		pthread_mutex_lock(lock);
	r = write_all(fd, iov, 3);
	if (lock)
		pthread_mutex_unlock(lock);
	return r;
}

/* Read exactly len bytes; 0, -EPIPE at the end of the stream, or -errno */
static int read_all(int fd, void *p, size_t len)
{
	while (len) {
		ssize_t r = read(fd, p, len);

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return -errno;
		if (!r)
			return -EPIPE;
		p = (char *)p + r;
		len -= r;
	}
	return 0;
}

int rkg_wire_recv(int fd, struct rkg_msg_hdr *h, void **buf, size_t *cap)
{
	int r = read_all(fd, h, sizeof(*h));

	if (r)
		return r;
	if (h->len > RKG_WIRE_MAX)
		return -EPROTO;
	if (h->len + 1 > *cap) {
		void *n = realloc(*buf, h->len + 1);

		if (!n)
			return -ENOMEM;
		*buf = n;
		*cap = h->len + 1;
	}
	((char *)*buf)[h->len] = 0;	/* text payloads end here */
	return read_all(fd, *buf, h->len);
}
