/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The guest-RAM bridge: raidkmd on a VM host serving raidkm.ko inside a
 * QEMU guest whose RAM is a shared file on the host.
 *
 *   guest:  raidkm.ko <-netlink-> raidkm-relay --.
 *                                                 | virtio-serial port
 *   host:   raidkmd --bridge=SOCK --guest-ram=FILE '  (a QEMU chardev
 *                                                    unix socket)
 *
 * The relay holds /dev/raidkm open and mapped, tells the host the
 * guest-physical frame of every page of that mapping (HELLO), and relays
 * the control traffic: ATTACH, DOORBELL, COMPLETE, DETACH.  The host maps
 * those frames of the guest-RAM file, in order, as one contiguous view:
 * the kernel's own header, rings, descriptors and arena.  Job data never
 * crosses the channel; neither side copies it.
 *
 * The channel is a byte stream: each message is a struct rkm_br_msg
 * followed by len bytes of payload.  A message with a bad magic, an
 * unknown type or an oversized payload ends the session.
 *
 *   relay -> host   HELLO (payload: struct rkm_br_hello, then npages
 *                   __u64 guest-physical frame numbers), ATTACH_REPLY
 *                   (status 0 or -errno, arg = agreed features),
 *                   DOORBELL, BYE
 *   host -> relay   ATTACH (arg = the HELLO's session, payload: struct
 *                   rkm_br_attach), COMPLETE, DETACH, BYE
 *
 * A relay ignores everything until an ATTACH that names the session of
 * its latest HELLO, so bytes left in the channel by an earlier session
 * cannot act on a new one.  BYE from either side ends the session: the
 * relay closes /dev/raidkm (the kernel re-runs what was in flight on the
 * CPU) and opens it again for the next daemon.
 */
#ifndef RKM_BRIDGE_PROTO_H
#define RKM_BRIDGE_PROTO_H

#include <linux/types.h>
#include "uapi/raidkm.h"

#define RKM_BR_MAGIC		0x47424b52u	/* "RKBG" little-endian */
#define RKM_BR_VERSION		1
/* The virtio-serial port's name (/sys/class/virtio-ports/\*\/name) */
#define RKM_BR_PORT_NAME	"org.raidkm.bridge"
/* Largest payload: a HELLO for a 4 GiB arena plus the control region */
#define RKM_BR_MAX_PAGES	((4ull << 30) / 4096 + 65536)
#define RKM_BR_MAX_PAYLOAD	(sizeof(struct rkm_br_hello) + \
				 RKM_BR_MAX_PAGES * 8)

enum rkm_br_type {
	RKM_BR_HELLO = 1,
	RKM_BR_ATTACH,
	RKM_BR_ATTACH_REPLY,
	RKM_BR_DOORBELL,
	RKM_BR_COMPLETE,
	RKM_BR_DETACH,
	RKM_BR_BYE,
	RKM_BR_TYPE_MAX = RKM_BR_BYE,
};

struct rkm_br_msg {
	__u32 magic;		/* RKM_BR_MAGIC */
	__u16 type;		/* enum rkm_br_type */
	__u16 __pad;
	__s32 status;		/* ATTACH_REPLY: 0 or -errno */
	__u32 len;		/* payload bytes that follow */
	__u64 arg;		/* ATTACH: session; ATTACH_REPLY: features */
};

struct rkm_br_hello {
	__u32 version;		/* RKM_BR_VERSION */
	__u32 page_size;	/* the guest's PAGE_SIZE */
	__u64 map_size;		/* bytes of /dev/raidkm's mapping */
	__u64 session;		/* hdr->session of this open */
	__u64 npages;		/* map_size / page_size frames follow */
};

struct rkm_br_attach {
	char backend[RAIDKM_BACKEND_NAME_MAX];
	__u64 features;
	__u32 max_k;
	__u32 max_m;
	__u32 batch;
	__u32 ops;
};

#endif
