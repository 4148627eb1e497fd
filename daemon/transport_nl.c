// SPDX-License-Identifier: GPL-2.0
/*
 * Kernel transport: /dev/raidkm's mapping plus the "raidkm" generic
 * netlink family, through libnl-genl-3.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <netlink/netlink.h>
#include <netlink/genl/genl.h>
#include <netlink/genl/ctrl.h>
#include <netlink/msg.h>
#include <netlink/attr.h>

#include "ring/rkm_ring.h"
#include "rkmd.h"
#include "rkmd_log.h"

struct nl_priv {
	struct nl_sock *sk;
	int family;
	int devfd;
	int err;		/* last NLMSG_ERROR seen, -errno */
	int got_reply;
	uint64_t features;
	uint32_t version;
};

static int nl_err_cb(struct sockaddr_nl *nla, struct nlmsgerr *e, void *arg)
{
	struct nl_priv *p = arg;

	p->err = e->error;
	return NL_STOP;
}

static int nl_valid_cb(struct nl_msg *msg, void *arg)
{
	struct nl_priv *p = arg;
	struct genlmsghdr *g = nlmsg_data(nlmsg_hdr(msg));
	struct nlattr *tb[RAIDKM_A_MAX + 1];

	if (nlmsg_hdr(msg)->nlmsg_type != p->family)
		return NL_SKIP;
	if (g->cmd == RAIDKM_CMD_ATTACH &&
	    !genlmsg_parse(nlmsg_hdr(msg), 0, tb, RAIDKM_A_MAX, NULL)) {
		if (tb[RAIDKM_A_FEATURES])
			p->features = nla_get_u64(tb[RAIDKM_A_FEATURES]);
		if (tb[RAIDKM_A_VERSION])
			p->version = nla_get_u32(tb[RAIDKM_A_VERSION]);
		p->got_reply = 1;
	}
	/* DOORBELL needs no action: the core re-reads the ring. */
	return NL_OK;
}

static struct nl_msg *new_msg(struct nl_priv *p, uint8_t cmd, int flags)
{
	struct nl_msg *msg = nlmsg_alloc();

	if (!msg)
		return NULL;
	if (!genlmsg_put(msg, NL_AUTO_PORT, NL_AUTO_SEQ, p->family, 0, flags,
			 cmd, RAIDKM_GENL_VERSION)) {
		nlmsg_free(msg);
		return NULL;
	}
	return msg;
}

static const char *attach_error(int err)
{
	switch (err) {
	case -EPERM:
		return "permission denied (raidkmd needs CAP_SYS_ADMIN)";
	case -EBUSY:
		return "another daemon is already attached";
	case -ESTALE:
		return "session cookie refused (is /dev/raidkm open elsewhere?)";
	case -EPROTO:
		return "protocol version mismatch between raidkmd and raidkm.ko";
	case -ENODEV:
		return "/dev/raidkm is not open";
	case -EINVAL:
		return "the kernel refused an attribute (see dmesg)";
	default:
		return strerror(-err);
	}
}

static int tnl_attach(struct rkmd_transport *t,
		     const struct rkmd_attach_info *ai, uint64_t *features)
{
	struct nl_priv *p = t->priv;
	struct nl_msg *msg;
	int ret;

	msg = new_msg(p, RAIDKM_CMD_ATTACH, NLM_F_ACK);
	if (!msg)
		return -ENOMEM;
	if (nla_put_u32(msg, RAIDKM_A_VERSION, RAIDKM_PROTO_VERSION) ||
	    nla_put_u64(msg, RAIDKM_A_SESSION, ai->session) ||
	    nla_put_u64(msg, RAIDKM_A_FEATURES, ai->features) ||
	    nla_put_string(msg, RAIDKM_A_BACKEND, ai->backend) ||
	    nla_put_u8(msg, RAIDKM_A_MAX_K, ai->max_k) ||
	    nla_put_u8(msg, RAIDKM_A_MAX_M, ai->max_m) ||
	    nla_put_u32(msg, RAIDKM_A_BATCH, ai->batch) ||
	    nla_put_u32(msg, RAIDKM_A_OPS, ai->ops)) {
		nlmsg_free(msg);
		return -EMSGSIZE;
	}
	p->err = 0;
	p->got_reply = 0;
	ret = nl_send_auto(p->sk, msg);
	nlmsg_free(msg);
	if (ret < 0) {
		rkmd_err("netlink send: %s", nl_geterror(ret));
		return -EIO;
	}
	ret = nl_recvmsgs_default(p->sk);
	if (p->err) {
		rkmd_err("attach refused: %s", attach_error(p->err));
		return p->err;
	}
	if (ret < 0) {
		rkmd_err("netlink receive: %s", nl_geterror(ret));
		return -EIO;
	}
	if (!p->got_reply) {
		rkmd_err("attach: the kernel sent no reply");
		return -EPROTO;
	}
	*features = p->features;
	/* From now on: unsolicited doorbells, no ACKs, non-blocking. */
	nl_socket_disable_seq_check(p->sk);
	nl_socket_disable_auto_ack(p->sk);
	nl_socket_set_nonblocking(p->sk);
	return 0;
}

static int tnl_events(struct rkmd_transport *t)
{
	struct nl_priv *p = t->priv;
	int ret;

	for (;;) {
		p->err = 0;
		ret = nl_recvmsgs_default(p->sk);
		if (p->err == -EPERM || p->err == -ENODEV) {
			/* Our COMPLETE/DETACH came from a port no longer attached. */
			rkmd_err("the kernel detached this daemon (see dmesg)");
			return -ENOTCONN;
		}
		if (p->err)
			rkmd_warn("kernel reported %s", strerror(-p->err));
		if (ret == -NLE_AGAIN)
			return 0;
		if (ret == -NLE_NOMEM) {
			/*
			 * ENOBUFS: the socket overran and doorbells were
			 * dropped.  Doorbells only say "look at the rings",
			 * which the core does after every wake-up anyway.
			 */
			rkmd_warn("netlink receive buffer overrun; re-reading the rings");
			return 0;
		}
		if (ret < 0) {
			if (ret == -NLE_INTR)
				continue;
			rkmd_err("netlink: %s", nl_geterror(ret));
			return -EIO;
		}
	}
}

static int nl_simple(struct nl_priv *p, uint8_t cmd, int attr, uint32_t v)
{
	struct nl_msg *msg = new_msg(p, cmd, 0);
	int ret;

	if (!msg)
		return -ENOMEM;
	if (attr && nla_put_u32(msg, attr, v)) {
		nlmsg_free(msg);
		return -EMSGSIZE;
	}
	ret = nl_send_auto(p->sk, msg);
	nlmsg_free(msg);
	return ret < 0 ? -EIO : 0;
}

static int tnl_complete(struct rkmd_transport *t, uint32_t cq_tail)
{
	return nl_simple(t->priv, RAIDKM_CMD_COMPLETE, RAIDKM_A_CQ_TAIL,
			 cq_tail);
}

static int tnl_detach(struct rkmd_transport *t)
{
	return nl_simple(t->priv, RAIDKM_CMD_DETACH, 0, 0);
}

static void tnl_close(struct rkmd_transport *t)
{
	struct nl_priv *p = t->priv;

	if (t->map)
		munmap(t->map, t->map_len);
	t->map = NULL;
	if (p) {
		if (p->sk)
			nl_socket_free(p->sk);
		if (p->devfd >= 0)
			close(p->devfd);
		free(p);
	}
	t->priv = NULL;
	t->fd = -1;
}

static const struct rkmd_transport_ops nl_ops = {
	.name = "netlink",
	.attach = tnl_attach,
	.events = tnl_events,
	.complete = tnl_complete,
	.detach = tnl_detach,
	.close = tnl_close,
};

int rkmd_nl_open(struct rkmd_transport *t, const char *dev, char *why,
		 size_t whylen)
{
	struct raidkm_shm_hdr h;
	struct nl_priv *p;
	const char *bad;
	void *map;
	int ret;

	memset(t, 0, sizeof(*t));
	t->fd = -1;
	t->ops = &nl_ops;
	p = calloc(1, sizeof(*p));
	if (!p)
		return -ENOMEM;
	p->devfd = -1;
	t->priv = p;

	p->devfd = open(dev, O_RDWR | O_CLOEXEC);
	if (p->devfd < 0) {
		ret = -errno;
		if (errno == ENOENT)
			snprintf(why, whylen, "%s does not exist: is the raidkm module loaded?", dev);
		else if (errno == EBUSY)
			snprintf(why, whylen, "%s is busy: another raidkmd is running", dev);
		else if (errno == EACCES || errno == EPERM)
			snprintf(why, whylen, "%s: permission denied (run as root)", dev);
		else
			snprintf(why, whylen, "%s: %s", dev, strerror(errno));
		goto fail;
	}
	map = mmap(NULL, RAIDKM_HDR_SIZE, PROT_READ, MAP_SHARED, p->devfd, 0);
	if (map == MAP_FAILED) {
		ret = -errno;
		snprintf(why, whylen, "mmap of %s header: %s", dev,
			 strerror(errno));
		goto fail;
	}
	memcpy(&h, map, sizeof(h));
	munmap(map, RAIDKM_HDR_SIZE);
	ret = rkm_shm_check(&h, 0, &bad);
	if (ret) {
		snprintf(why, whylen, "%s: %s", dev, bad);
		goto fail;
	}
	/* Inputs read-only: the kernel refuses to map them writable. */
	map = rkmd_map_shm(p->devfd, &h, MAP_POPULATE, why, whylen);
	if (!map) {
		ret = -EACCES;
		goto fail;
	}
	t->map = map;
	t->map_len = h.map_size;

	p->sk = nl_socket_alloc();
	if (!p->sk) {
		ret = -ENOMEM;
		snprintf(why, whylen, "out of memory");
		goto fail;
	}
	ret = genl_connect(p->sk);
	if (ret < 0) {
		snprintf(why, whylen, "generic netlink: %s", nl_geterror(ret));
		ret = -EIO;
		goto fail;
	}
	p->family = genl_ctrl_resolve(p->sk, RAIDKM_GENL_NAME);
	if (p->family < 0) {
		snprintf(why, whylen, "generic netlink family \"%s\" not found: is the raidkm module loaded?",
			 RAIDKM_GENL_NAME);
		ret = -ENOENT;
		goto fail;
	}
	nl_socket_modify_cb(p->sk, NL_CB_VALID, NL_CB_CUSTOM, nl_valid_cb, p);
	nl_socket_modify_err_cb(p->sk, NL_CB_CUSTOM, nl_err_cb, p);
	t->fd = nl_socket_get_fd(p->sk);
	return 0;
fail:
	tnl_close(t);
	return ret;
}
