// SPDX-License-Identifier: GPL-2.0
/*
 * Bridge transport: raidkmd on a VM host serving raidkm.ko in a QEMU
 * guest (daemon/bridge/bridge_proto.h).  The relay in the guest sends the
 * guest-physical frames of /dev/raidkm's mapping; this transport maps
 * those frames of the guest-RAM file in order, so the core (and the
 * backend) see the kernel's own header, rings, descriptors and arena as
 * one contiguous mapping, exactly as on a real host.  Control messages
 * travel over the channel; job data never does.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ring/rkm_ring.h"
#include "bridge/bridge_io.h"
#include "rkmd.h"
#include "rkmd_log.h"

#define BR_ATTACH_TIMEOUT_MS	10000
#define BR_SEND_TIMEOUT_MS	2000
/*
 * On a QEMU "pc" machine with less than 3.5 GiB of RAM, all of it sits
 * below 4 GiB and a guest-physical address is its offset in the RAM file.
 */
#define BR_MAX_LOW_RAM		0xe0000000ull

struct br_priv {
	int sock;		/* the channel (not ours: see rkmd_bridge_open) */
	uint64_t session;
	struct rkm_br_rx *rx;
};

static int br_attach(struct rkmd_transport *t,
		     const struct rkmd_attach_info *ai, uint64_t *features)
{
	struct br_priv *p = t->priv;
	struct rkm_br_attach a;
	struct rkm_br_msg m;
	const void *pl;
	int ret;

	memset(&a, 0, sizeof(a));
	snprintf(a.backend, sizeof(a.backend), "%s", ai->backend);
	a.features = ai->features;
	a.max_k = ai->max_k;
	a.max_m = ai->max_m;
	a.batch = ai->batch;
	a.ops = ai->ops;
	ret = rkm_br_send(p->sock, RKM_BR_ATTACH, 0, p->session, &a,
			  sizeof(a), BR_SEND_TIMEOUT_MS);
	if (ret)
		return ret;
	for (;;) {
		ret = rkm_br_recv(p->rx, p->sock, &m, &pl,
				  BR_ATTACH_TIMEOUT_MS);
		if (ret <= 0)
			return ret ? ret : -ETIMEDOUT;
		if (m.type == RKM_BR_ATTACH_REPLY)
			break;
		if (m.type == RKM_BR_HELLO)
			rkm_br_rx_unread(p->rx);	/* the next session's */
		if (m.type == RKM_BR_BYE || m.type == RKM_BR_HELLO)
			return -ECONNRESET;
	}
	if (m.status)
		return m.status < 0 ? m.status : -EPROTO;
	*features = m.arg;
	return 0;
}

static int br_events(struct rkmd_transport *t)
{
	struct br_priv *p = t->priv;
	struct rkm_br_msg m;
	const void *pl;
	int ret;

	for (;;) {
		ret = rkm_br_recv(p->rx, p->sock, &m, &pl, 0);
		if (ret == 0)
			return 0;
		if (ret < 0) {
			rkmd_warn("bridge channel: %s", strerror(-ret));
			return -ENOTCONN;
		}
		/* DOORBELL carries no work: the core re-reads the rings. */
		if (m.type == RKM_BR_BYE) {
			rkmd_warn("the relay ended the session");
			return -ENOTCONN;
		}
		if (m.type == RKM_BR_HELLO) {
			rkmd_warn("a new relay said hello: this session is over");
			rkm_br_rx_unread(p->rx);	/* the next session's */
			return -ENOTCONN;
		}
	}
}

static int br_complete(struct rkmd_transport *t, uint32_t cq_tail)
{
	struct br_priv *p = t->priv;

	return rkm_br_send(p->sock, RKM_BR_COMPLETE, 0, cq_tail, NULL, 0,
			   BR_SEND_TIMEOUT_MS);
}

static int br_detach(struct rkmd_transport *t)
{
	struct br_priv *p = t->priv;

	return rkm_br_send(p->sock, RKM_BR_DETACH, 0, 0, NULL, 0,
			   BR_SEND_TIMEOUT_MS);
}

static void br_close(struct rkmd_transport *t)
{
	struct br_priv *p = t->priv;

	if (p) {
		/* Tell the relay to reopen /dev/raidkm for the next daemon. */
		rkm_br_send(p->sock, RKM_BR_BYE, 0, p->session, NULL, 0, 200);
		free(p);
	}
	if (t->map)
		munmap(t->map, t->map_len);
	t->map = NULL;
	t->priv = NULL;
	t->fd = -1;
}

static const struct rkmd_transport_ops br_ops = {
	.name = "bridge",
	.attach = br_attach,
	.events = br_events,
	.complete = br_complete,
	.detach = br_detach,
	.close = br_close,
};

/*
 * Map the guest's frames of /dev/raidkm's mapping, in order, as one
 * contiguous view: runs of consecutive frames become one mmap each.
 */
static void *map_view(int ramfd, uint64_t ram_size, const __u64 *frames,
		      uint64_t npages, uint32_t ps, char *why, size_t whylen)
{
	uint64_t i, run, len = npages * ps;
	uint8_t *view;
	void *p;

	for (i = 0; i < npages; i++)
		if (frames[i] >= ram_size / ps) {
			snprintf(why, whylen, "page %llu: frame 0x%llx is outside guest RAM",
				 (unsigned long long)i,
				 (unsigned long long)frames[i]);
			return NULL;
		}
	view = mmap(NULL, len, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS |
		    MAP_NORESERVE, -1, 0);
	if (view == MAP_FAILED) {
		snprintf(why, whylen, "reserving %llu bytes: %s",
			 (unsigned long long)len, strerror(errno));
		return NULL;
	}
	for (i = 0; i < npages; i += run) {
		for (run = 1; i + run < npages &&
		     frames[i + run] == frames[i] + run; run++)
			;
		p = mmap(view + i * ps, run * ps, PROT_READ | PROT_WRITE,
			 MAP_SHARED | MAP_FIXED | MAP_POPULATE, ramfd,
			 (off_t)(frames[i] * ps));
		if (p == MAP_FAILED) {
			snprintf(why, whylen, "mapping guest frames: %s",
				 strerror(errno));
			munmap(view, len);
			return NULL;
		}
	}
	return view;
}

/* Check a HELLO and map what it describes; 0 or -EPROTO/-errno */
static int take_hello(struct rkmd_transport *t, int ramfd, uint64_t ram_size,
		      const struct rkm_br_msg *m, const void *payload,
		      uint64_t *session, char *why, size_t whylen)
{
	struct rkm_br_hello h;
	struct raidkm_shm_hdr hdr;
	const char *bad;
	void *view;

	if (m->len < sizeof(h)) {
		snprintf(why, whylen, "short HELLO");
		return -EPROTO;
	}
	memcpy(&h, payload, sizeof(h));
	if (h.version != RKM_BR_VERSION) {
		snprintf(why, whylen, "relay speaks bridge version %u, not %u",
			 h.version, RKM_BR_VERSION);
		return -EPROTO;
	}
	if (h.page_size != (uint32_t)sysconf(_SC_PAGESIZE) ||
	    h.map_size < RAIDKM_HDR_SIZE || h.map_size % h.page_size ||
	    h.npages != h.map_size / h.page_size ||
	    h.npages > RKM_BR_MAX_PAGES ||
	    m->len != sizeof(h) + h.npages * 8) {
		snprintf(why, whylen, "HELLO geometry is inconsistent (page %u, map %llu, %llu pages)",
			 h.page_size, (unsigned long long)h.map_size,
			 (unsigned long long)h.npages);
		return -EPROTO;
	}
	view = map_view(ramfd, ram_size,
			(const __u64 *)((const uint8_t *)payload + sizeof(h)),
			h.npages, h.page_size, why, whylen);
	if (!view)
		return -EPROTO;
	memcpy(&hdr, view, sizeof(hdr));
	if (rkm_shm_check(&hdr, h.map_size, &bad)) {
		snprintf(why, whylen, "the mapped header is not raidkm's: %s",
			 bad);
		goto bad;
	}
	if (hdr.session != h.session) {
		snprintf(why, whylen, "stale HELLO (the session changed)");
		goto bad;
	}
	/*
	 * Inputs read-only, as on a real host.  Guest RAM is this host's
	 * memory, writable through the RAM file: here the protection is
	 * raidkmd's own discipline (a stray write faults), not something
	 * the guest kernel can enforce (Documentation/bridge.rst).
	 */
	if ((hdr.features & RAIDKM_FEAT_RO_INPUT) &&
	    mprotect((uint8_t *)view + hdr.arena_off,
		     hdr.stage_off - hdr.arena_off, PROT_READ)) {
		snprintf(why, whylen, "mprotect of the input arena: %s",
			 strerror(errno));
		goto bad;
	}
	t->map = view;
	t->map_len = h.map_size;
	*session = h.session;
	return 0;
bad:
	munmap(view, h.map_size);
	return -EPROTO;
}

int rkmd_bridge_open(struct rkmd_transport *t, int sock, const char *ram,
		     struct rkm_br_rx *rx, volatile int *stop, char *why,
		     size_t whylen)
{
	struct br_priv *p;
	struct rkm_br_msg m;
	const void *pl;
	struct stat st;
	int ramfd, ret;

	memset(t, 0, sizeof(*t));
	t->fd = -1;
	ramfd = open(ram, O_RDWR | O_CLOEXEC);
	if (ramfd < 0 || fstat(ramfd, &st)) {
		ret = -errno;
		snprintf(why, whylen, "guest RAM %s: %s", ram, strerror(errno));
		goto out;
	}
	if ((uint64_t)st.st_size > BR_MAX_LOW_RAM) {
		snprintf(why, whylen, "guest RAM %s is over 3.5 GiB: guest-physical addresses above 4 GiB are not supported",
			 ram);
		ret = -EINVAL;
		goto out;
	}
	for (;;) {
		ret = rkm_br_recv(rx, sock, &m, &pl, 500);
		if (ret < 0) {
			snprintf(why, whylen, "bridge channel: %s",
				 ret == -ENOTCONN ? "the VM is gone" :
				 strerror(-ret));
			goto out;
		}
		if (stop && *stop) {
			snprintf(why, whylen, "stopped");
			ret = -EINTR;
			goto out;
		}
		/* Leftovers of an earlier session are skipped. */
		if (!ret || m.type != RKM_BR_HELLO)
			continue;
		p = calloc(1, sizeof(*p));
		if (!p) {
			ret = -ENOMEM;
			goto out;
		}
		ret = take_hello(t, ramfd, st.st_size, &m, pl, &p->session,
				 why, whylen);
		if (!ret)
			break;
		rkmd_warn("relay refused: %s", why);
		rkm_br_send(sock, RKM_BR_BYE, 0, 0, NULL, 0, 200);
		free(p);
	}
	p->sock = sock;
	p->rx = rx;
	t->ops = &br_ops;
	t->priv = p;
	t->fd = sock;
	rkmd_info("bridge: mapped the guest's /dev/raidkm (%llu MiB) from %s",
		  (unsigned long long)(t->map_len >> 20), ram);
out:
	if (ramfd >= 0)
		close(ramfd);
	return ret;
}

int rkmd_bridge_connect(const char *path, char *why, size_t whylen)
{
	return rkmd_unix_connect(path, SOCK_STREAM | SOCK_NONBLOCK, why, whylen);
}
