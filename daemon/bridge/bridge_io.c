// SPDX-License-Identifier: GPL-2.0
/*
 * Bridge channel framing: whole messages over a non-blocking byte stream.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bridge_io.h"

static int64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Wait for @events on @fd until @deadline (ms); 0, -EPIPE, -ETIMEDOUT */
static int wait_fd(int fd, short events, int64_t deadline)
{
	struct pollfd p = { .fd = fd, .events = events };
	int64_t left;
	int n;

	for (;;) {
		left = deadline - now_ms();
		if (left < 0)
			left = 0;
		n = poll(&p, 1, (int)left);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			return -ETIMEDOUT;
		if (p.revents & (POLLHUP | POLLERR | POLLNVAL) &&
		    !(p.revents & events))
			return -EPIPE;
		/* virtio-serial: POLLHUP with POLLIN means data then EOF */
		if ((events & POLLOUT) && (p.revents & POLLHUP))
			return -EPIPE;
		return 0;
	}
}

static int write_all(int fd, const uint8_t *p, size_t len, int64_t deadline)
{
	ssize_t n;
	int ret;

	while (len) {
		n = write(fd, p, len);
		if (n > 0) {
			p += n;
			len -= n;
			continue;
		}
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno != EAGAIN)
			return errno == ECONNRESET ? -EPIPE : -errno;
		ret = wait_fd(fd, POLLOUT, deadline);
		if (ret)
			return ret;
	}
	return 0;
}

int rkm_br_send(int fd, uint16_t type, int32_t status, uint64_t arg,
		const void *payload, uint32_t len, int timeout_ms)
{
	int64_t deadline = now_ms() + timeout_ms;
	struct rkm_br_msg m;
	int ret;

	memset(&m, 0, sizeof(m));
	m.magic = RKM_BR_MAGIC;
	m.type = type;
	m.status = status;
	m.len = len;
	m.arg = arg;
	ret = write_all(fd, (const uint8_t *)&m, sizeof(m), deadline);
	if (!ret && len)
		ret = write_all(fd, payload, len, deadline);
	return ret;
}

/* A whole message at the start of the buffer?  1, 0 or -EPROTO */
static int have_msg(struct rkm_br_rx *rx, struct rkm_br_msg *m)
{
	if (rx->have < sizeof(*m))
		return 0;
	memcpy(m, rx->buf, sizeof(*m));
	if (m->magic != RKM_BR_MAGIC || !m->type ||
	    m->type > RKM_BR_TYPE_MAX || m->len > RKM_BR_MAX_PAYLOAD)
		return -EPROTO;
	return rx->have >= sizeof(*m) + m->len;
}

static int grow(struct rkm_br_rx *rx, size_t want)
{
	uint8_t *nb;
	size_t cap = rx->cap ? rx->cap : 4096;

	while (cap < want)
		cap *= 2;
	if (cap == rx->cap)
		return 0;
	nb = realloc(rx->buf, cap);
	if (!nb)
		return -ENOMEM;
	rx->buf = nb;
	rx->cap = cap;
	return 0;
}

int rkm_br_recv(struct rkm_br_rx *rx, int fd, struct rkm_br_msg *m,
		const void **payload, int timeout_ms)
{
	int64_t deadline = now_ms() + timeout_ms;
	size_t want;
	ssize_t n;
	int ret;

	/* Drop the message returned last time. */
	if (rx->used) {
		memmove(rx->buf, rx->buf + rx->used, rx->have - rx->used);
		rx->have -= rx->used;
		rx->used = 0;
	}
	for (;;) {
		ret = have_msg(rx, m);
		if (ret < 0)
			return ret;
		if (ret) {
			*payload = rx->buf + sizeof(*m);
			rx->used = sizeof(*m) + m->len;
			return 1;
		}
		want = rx->have < sizeof(*m) ? sizeof(*m) :
		       sizeof(*m) + m->len;
		ret = grow(rx, want < 65536 ? 65536 : want);
		if (ret)
			return ret;
		n = read(fd, rx->buf + rx->have, rx->cap - rx->have);
		if (n > 0) {
			rx->have += n;
			continue;
		}
		if (n == 0)
			return -ENOTCONN;
		if (errno == EINTR)
			continue;
		if (errno != EAGAIN)
			return errno == ECONNRESET ? -ENOTCONN : -errno;
		ret = wait_fd(fd, POLLIN, deadline);
		if (ret == -ETIMEDOUT)
			return 0;
		if (ret)
			return -ENOTCONN;
	}
}

void rkm_br_rx_unread(struct rkm_br_rx *rx)
{
	rx->used = 0;
}

void rkm_br_rx_reset(struct rkm_br_rx *rx)
{
	rx->have = 0;
	rx->used = 0;
}

void rkm_br_rx_free(struct rkm_br_rx *rx)
{
	free(rx->buf);
	memset(rx, 0, sizeof(*rx));
}
