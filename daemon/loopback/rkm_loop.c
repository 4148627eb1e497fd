// SPDX-License-Identifier: GPL-2.0
/*
 * The loopback kernel end: what raidkm.ko does on its side of the offload
 * protocol, in user space (see rkm_loop.h).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "ring/rkm_ring.h"
#include "rkm_loop.h"
#include "loop_proto.h"

struct loop_slot {
	uint32_t gen;
	uint8_t busy;
	uint8_t op;
	uint32_t nstripes;
	uint64_t cookie;
};

struct rkm_loop {
	int memfd;
	void *map;
	size_t map_len;
	struct raidkm_shm_hdr *hdr;
	struct rkm_ring sq, cq;
	uint8_t *desc, *arena;
	int sock;		/* our end */
	int dsock;		/* the daemon's end, until released */
	int hello_sent;
	struct loop_slot *slots;
	uint32_t *free_ids;
	uint32_t nfree;
	uint64_t features;
	char backend[RAIDKM_BACKEND_NAME_MAX];
	struct rkm_loop_stats st;
	int closed;
};

void rkm_loop_default_params(struct rkm_loop_params *p)
{
	p->entries = 256;
	p->desc_slot_size = 4096;
	p->max_stripes = RAIDKM_MAX_STRIPES;
	p->max_len = RAIDKM_MAX_LEN;
	p->arena_size = 64ull << 20;
	p->stage_size = 0;
}

static uint64_t random_session(void)
{
	struct timespec ts;
	uint64_t x;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	x = (uint64_t)ts.tv_nsec * 0x9e3779b97f4a7c15ull ^
	    ((uint64_t)getpid() << 32) ^ (uint64_t)ts.tv_sec;
	x ^= x >> 29;
	return x ? x : 1;
}

struct rkm_loop *rkm_loop_create(const struct rkm_loop_params *p,
				 char *why, size_t whylen)
{
	struct rkm_shm_params sp;
	struct raidkm_shm_hdr tmp;
	struct rkm_loop *l;
	int sv[2];
	uint32_t i;

	memset(&sp, 0, sizeof(sp));
	sp.page_size = (uint32_t)sysconf(_SC_PAGESIZE);
	sp.entries = p->entries;
	sp.desc_slot_size = p->desc_slot_size;
	sp.max_stripes = p->max_stripes;
	sp.max_len = p->max_len;
	sp.arena_size = p->arena_size;
	sp.stage_size = p->stage_size;
	sp.features = RAIDKM_FEAT_ALL;
	sp.session = random_session();
	if (rkm_shm_layout(&tmp, &sp)) {
		snprintf(why, whylen, "bad loopback parameters");
		return NULL;
	}
	l = calloc(1, sizeof(*l));
	if (!l) {
		snprintf(why, whylen, "out of memory");
		return NULL;
	}
	l->sock = l->dsock = l->memfd = -1;
	l->map_len = tmp.map_size;
	l->memfd = memfd_create("raidkm-loopback", MFD_CLOEXEC);
	if (l->memfd < 0 || ftruncate(l->memfd, l->map_len)) {
		snprintf(why, whylen, "memfd: %s", strerror(errno));
		goto fail;
	}
	l->map = mmap(NULL, l->map_len, PROT_READ | PROT_WRITE,
		      MAP_SHARED | MAP_POPULATE,
		      l->memfd, 0);
	if (l->map == MAP_FAILED) {
		l->map = NULL;
		snprintf(why, whylen, "mmap: %s", strerror(errno));
		goto fail;
	}
	l->hdr = l->map;
	rkm_shm_layout(l->hdr, &sp);
	rkm_ring_init(&l->sq, &l->hdr->sq_ctl, (uint8_t *)l->map +
		      l->hdr->sq_off, l->hdr->sq_entries, l->hdr->sqe_size, 0);
	rkm_ring_init(&l->cq, &l->hdr->cq_ctl, (uint8_t *)l->map +
		      l->hdr->cq_off, l->hdr->cq_entries, l->hdr->cqe_size, 0);
	l->desc = (uint8_t *)l->map + l->hdr->desc_off;
	l->arena = (uint8_t *)l->map + l->hdr->arena_off;
	l->slots = calloc(l->hdr->nslots, sizeof(*l->slots));
	l->free_ids = calloc(l->hdr->nslots, sizeof(*l->free_ids));
	if (!l->slots || !l->free_ids) {
		snprintf(why, whylen, "out of memory");
		goto fail;
	}
	for (i = 0; i < l->hdr->nslots; i++)
		l->free_ids[l->nfree++] = l->hdr->nslots - 1 - i;
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv)) {
		snprintf(why, whylen, "socketpair: %s", strerror(errno));
		goto fail;
	}
	l->sock = sv[0];
	l->dsock = sv[1];
	return l;
fail:
	rkm_loop_destroy(l);
	return NULL;
}

void rkm_loop_destroy(struct rkm_loop *l)
{
	if (!l)
		return;
	if (l->map)
		munmap(l->map, l->map_len);
	if (l->memfd >= 0)
		close(l->memfd);
	if (l->sock >= 0)
		close(l->sock);
	if (l->dsock >= 0)
		close(l->dsock);
	free(l->slots);
	free(l->free_ids);
	free(l);
}

static int send_msg(int sock, struct rkm_loop_msg *m, int fd)
{
	struct iovec iov = { .iov_base = m, .iov_len = RKM_LOOP_HDR_LEN + m->len };
	char cbuf[CMSG_SPACE(sizeof(int))];
	struct msghdr mh;
	struct cmsghdr *cm;

	memset(&mh, 0, sizeof(mh));
	mh.msg_iov = &iov;
	mh.msg_iovlen = 1;
	if (fd >= 0) {
		memset(cbuf, 0, sizeof(cbuf));
		mh.msg_control = cbuf;
		mh.msg_controllen = sizeof(cbuf);
		cm = CMSG_FIRSTHDR(&mh);
		cm->cmsg_level = SOL_SOCKET;
		cm->cmsg_type = SCM_RIGHTS;
		cm->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(cm), &fd, sizeof(int));
	}
	if (sendmsg(sock, &mh, MSG_NOSIGNAL | MSG_DONTWAIT) < 0)
		return -errno;
	return 0;
}

static int send_simple(struct rkm_loop *l, uint32_t type, int32_t status,
		       uint64_t arg)
{
	struct rkm_loop_msg m;

	memset(&m, 0, RKM_LOOP_HDR_LEN);
	m.type = type;
	m.status = status;
	m.arg = arg;
	return send_msg(l->sock, &m, -1);
}

static int send_hello(struct rkm_loop *l)
{
	struct rkm_loop_msg m;
	int ret;

	if (l->hello_sent)
		return 0;
	memset(&m, 0, RKM_LOOP_HDR_LEN);
	m.type = RKM_LOOP_HELLO;
	m.arg = l->map_len;
	ret = send_msg(l->sock, &m, l->memfd);
	if (!ret)
		l->hello_sent = 1;
	return ret;
}

int rkm_loop_daemon_fd(struct rkm_loop *l)
{
	send_hello(l);
	return l->dsock;
}

void rkm_loop_release_daemon_fd(struct rkm_loop *l)
{
	if (l->dsock >= 0)
		close(l->dsock);
	l->dsock = -1;
}

int rkm_loop_listen_accept(struct rkm_loop *l, const char *path,
			   int timeout_ms)
{
	struct sockaddr_un sa;
	struct pollfd pfd;
	int ls, s;

	memset(&sa, 0, sizeof(sa));
	sa.sun_family = AF_UNIX;
	if (strlen(path) >= sizeof(sa.sun_path))
		return -ENAMETOOLONG;
	strcpy(sa.sun_path, path);
	ls = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	if (ls < 0)
		return -errno;
	unlink(path);
	if (bind(ls, (struct sockaddr *)&sa, sizeof(sa)) || listen(ls, 1)) {
		s = -errno;
		close(ls);
		return s;
	}
	pfd.fd = ls;
	pfd.events = POLLIN;
	if (poll(&pfd, 1, timeout_ms) != 1) {
		close(ls);
		unlink(path);
		return -ETIMEDOUT;
	}
	s = accept4(ls, NULL, NULL, SOCK_CLOEXEC);
	close(ls);
	unlink(path);
	if (s < 0)
		return -errno;
	close(l->sock);
	rkm_loop_release_daemon_fd(l);
	l->sock = s;
	l->hello_sent = 0;
	return send_hello(l);
}

static void handle_msg(struct rkm_loop *l, struct rkm_loop_msg *m, size_t n)
{
	struct rkm_attach_req req;
	const char *why = NULL;
	int ret;

	if (n < RKM_LOOP_HDR_LEN || m->len > n - RKM_LOOP_HDR_LEN)
		return;
	switch (m->type) {
	case RKM_LOOP_ATTACH:
		if (l->st.attached) {
			send_simple(l, RKM_LOOP_ATTACH_REPLY, -EBUSY, 0);
			return;
		}
		rkm_attach_init(&req);
		ret = rkm_attach_parse(&req, m->data, m->len, &why);
		if (!ret)
			ret = rkm_attach_check(&req, l->hdr->session,
					       l->hdr->features, &why);
		if (ret) {
			fprintf(stderr, "loopback: ATTACH refused: %s\n", why);
			send_simple(l, RKM_LOOP_ATTACH_REPLY, ret, 0);
			return;
		}
		memcpy(l->backend, req.backend, sizeof(l->backend));
		l->features = req.features;
		l->st.attached = 1;
		rkm_ring_store_release(&l->hdr->kstate, RAIDKM_KSTATE_RUNNING);
		send_simple(l, RKM_LOOP_ATTACH_REPLY, 0, req.features);
		break;
	case RKM_LOOP_COMPLETE:
		l->st.doorbells_in++;
		break;
	case RKM_LOOP_DETACH:
		l->st.detached = 1;
		rkm_loop_close_session(l);
		break;
	default:
		break;
	}
}

/* Read every pending control message; -ENOTCONN when the peer is gone */
static int read_msgs(struct rkm_loop *l)
{
	struct rkm_loop_msg m;
	ssize_t n;

	for (;;) {
		n = recv(l->sock, &m, sizeof(m), MSG_DONTWAIT);
		if (n > 0) {
			handle_msg(l, &m, n);
			continue;
		}
		if (n == 0 || (errno != EAGAIN && errno != EINTR)) {
			l->st.gone = 1;
			return -ENOTCONN;
		}
		if (errno == EAGAIN)
			return 0;
	}
}

int rkm_loop_wait_attach(struct rkm_loop *l, int timeout_ms)
{
	struct pollfd pfd;
	int ret;

	send_hello(l);
	while (!l->st.attached) {
		pfd.fd = l->sock;
		pfd.events = POLLIN;
		ret = poll(&pfd, 1, timeout_ms);
		if (ret == 0)
			return -ETIMEDOUT;
		if (ret < 0 && errno != EINTR)
			return -errno;
		ret = read_msgs(l);
		if (ret)
			return ret;
		if (!l->st.attached && ret == 0 && (pfd.revents & POLLIN))
			continue;
	}
	return 0;
}

const char *rkm_loop_backend(struct rkm_loop *l)
{
	return l->backend;
}

uint8_t *rkm_loop_arena(struct rkm_loop *l)
{
	return l->arena;
}

uint64_t rkm_loop_arena_size(struct rkm_loop *l)
{
	return l->hdr->arena_size;
}

uint64_t rkm_loop_stage_start(struct rkm_loop *l)
{
	return l->hdr->stage_size ? l->hdr->stage_off - l->hdr->arena_off : 0;
}

void *rkm_loop_map(struct rkm_loop *l)
{
	return l->map;
}

uint64_t rkm_loop_features(struct rkm_loop *l)
{
	return l->features;
}

/* sqe.want of @j: only what the daemon agreed to read */
static uint64_t loop_want(struct rkm_loop *l, const struct rkm_loop_job *j)
{
	if (j->op != RAIDKM_OP_DECODE ||
	    !(l->features & RAIDKM_FEAT_DECODE_WANT))
		return 0;
	return j->want ? j->want : j->mask;
}

static int loop_off_of(void *ctx, const void *p, __u32 len, __u64 *off)
{
	struct rkm_loop *l = ctx;
	const uint8_t *a = l->arena, *c = p;

	if (c < a || (uint64_t)(c - a) > l->hdr->arena_size ||
	    l->hdr->arena_size - (uint64_t)(c - a) < len)
		return -EINVAL;
	*off = (uint64_t)(c - a);
	return 0;
}

int rkm_loop_describe(struct rkm_loop *l, const struct rkm_loop_job *j,
		      uint8_t *const *chunk, uint8_t *const *old,
		      uint32_t st, uint64_t *offs)
{
	struct rkm_desc_job dj = {
		.op = j->op, .k = j->k, .m = j->m, .len = j->len,
		.mask = j->mask, .want = loop_want(l, j),
		.chunk = (void *const *)chunk, .old = (void *const *)old,
	};

	return rkm_desc_encode(&dj, (__u64 *)offs, st, j->nstripes,
			       RKM_DESC_IN_PLACE, loop_off_of, l) ? 0 : -EINVAL;
}

int rkm_loop_submit(struct rkm_loop *l, const struct rkm_loop_job *j)
{
	struct raidkm_sqe *e;
	struct loop_slot *s;
	uint32_t id, ndesc;
	int room;

	if (l->closed || l->st.gone)
		return -ESHUTDOWN;
	if (j->k < RAIDKM_MIN_K || !j->m || j->m > RAIDKM_MAX_M ||
	    j->k + j->m > RAIDKM_MAX_N || !j->nstripes ||
	    j->nstripes > l->hdr->max_stripes)
		return -EINVAL;
	ndesc = rkm_job_ndesc(j->op, j->k, j->m, j->nstripes);
	if ((uint64_t)ndesc * 8 > l->hdr->desc_slot_size)
		return -EINVAL;
	if (!l->nfree)
		return -EAGAIN;
	room = rkm_prod_room(&l->sq);
	if (room <= 0)
		return room < 0 ? -EPROTO : -EAGAIN;
	id = l->free_ids[--l->nfree];
	s = &l->slots[id];
	s->gen++;
	s->busy = 1;
	s->op = j->op;
	s->nstripes = j->nstripes;
	s->cookie = j->cookie;
	/* Descriptor first (the kernel keeps its own copy of it). */
	memcpy(l->desc + (size_t)id * l->hdr->desc_slot_size, j->offs,
	       (size_t)ndesc * 8);
	e = rkm_prod_slot(&l->sq);
	memset(e, 0, sizeof(*e));
	e->id = id;
	e->gen = s->gen;
	e->op = j->op;
	e->k = j->k;
	e->m = j->m;
	e->len = j->len;
	e->nstripes = j->nstripes;
	e->ndesc = ndesc;
	e->mask = j->mask;
	e->want = loop_want(l, j);
	rkm_prod_commit(&l->sq);
	l->st.submitted++;
	l->st.inflight++;
	return 0;
}

int rkm_loop_kick(struct rkm_loop *l)
{
	if (rkm_prod_publish(&l->sq)) {
		l->st.doorbells_out++;
		return send_simple(l, RKM_LOOP_DOORBELL, 0, l->sq.local);
	}
	return 0;
}

static void free_slot(struct rkm_loop *l, uint32_t id)
{
	l->slots[id].busy = 0;
	l->free_ids[l->nfree++] = id;
	l->st.inflight--;
}

int rkm_loop_reap(struct rkm_loop *l, rkm_loop_done_fn done, void *arg)
{
	struct rkm_slot_state ss;
	struct raidkm_cqe c;
	struct loop_slot *s;
	const char *why;
	int avail, i, n = 0, v;

	avail = rkm_cons_avail(&l->cq);
	if (avail < 0) {
		l->st.bad++;
		rkm_loop_close_session(l);
		return -EPROTO;
	}
	for (i = 0; i < avail; i++) {
		rkm_cqe_read(rkm_cons_peek(&l->cq, i), &c);
		v = rkm_cqe_check(&c, l->hdr->nslots, &why);
		if (v == RKM_CQE_OK) {
			s = &l->slots[c.id];
			ss.gen = s->gen;
			ss.busy = s->busy;
			ss.op = s->op;
			ss.nstripes = s->nstripes;
			v = rkm_cqe_match(&c, &ss, &why);
		}
		if (v == RKM_CQE_STALE) {
			l->st.stale++;
			continue;
		}
		if (v == RKM_CQE_BAD) {
			/* The kernel detaches a faulty daemon. */
			l->st.bad++;
			rkm_cons_release(&l->cq, i + 1);
			rkm_loop_close_session(l);
			return -EPROTO;
		}
		s = &l->slots[c.id];
		free_slot(l, c.id);
		l->st.completed++;
		n++;
		if (done)
			done(arg, s->cookie, c.status, c.check_bitmap);
	}
	if (avail)
		rkm_cons_release(&l->cq, avail);
	return n;
}

int rkm_loop_wait(struct rkm_loop *l, int timeout_ms)
{
	struct pollfd pfd;
	int n;

	if (l->st.gone)
		return -ENOTCONN;
	n = rkm_cons_prepare_sleep(&l->cq);
	if (n == 0) {
		pfd.fd = l->sock;
		pfd.events = POLLIN;
		poll(&pfd, 1, timeout_ms);
		rkm_cons_woken(&l->cq);
	}
	return read_msgs(l);
}

void rkm_loop_close_session(struct rkm_loop *l)
{
	if (l->closed)
		return;
	l->closed = 1;
	rkm_ring_store_release(&l->hdr->kstate, RAIDKM_KSTATE_CLOSED);
	l->st.doorbells_out++;
	send_simple(l, RKM_LOOP_DOORBELL, 0, l->sq.local);
}

int rkm_loop_abandon(struct rkm_loop *l, rkm_loop_done_fn done, void *arg)
{
	uint32_t id;
	int n = 0;

	for (id = 0; id < l->hdr->nslots; id++) {
		if (!l->slots[id].busy)
			continue;
		free_slot(l, id);
		l->st.abandoned++;
		n++;
		if (done)
			done(arg, l->slots[id].cookie, -ESHUTDOWN, 0);
	}
	return n;
}

void rkm_loop_get_stats(struct rkm_loop *l, struct rkm_loop_stats *s)
{
	*s = l->st;
}
