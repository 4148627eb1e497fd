/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The loopback's control channel: what replaces generic netlink between
 * raidkmd and the user-space stand-in for the kernel (rkm_loop.c).  One
 * SOCK_SEQPACKET connection; each datagram is one struct rkm_loop_msg
 * (header plus len bytes of data).  The shared mapping is a memfd laid out
 * exactly like /dev/raidkm's (uapi/raidkm.h), passed with SCM_RIGHTS in
 * HELLO.
 *
 *   kernel end -> daemon   HELLO (fd, arg = map_size), DOORBELL,
 *                          ATTACH_REPLY (status, arg = agreed features)
 *   daemon -> kernel end   ATTACH (data = netlink attributes, exactly
 *                          what RAIDKM_CMD_ATTACH carries), COMPLETE,
 *                          DETACH
 */
#ifndef RKM_LOOP_PROTO_H
#define RKM_LOOP_PROTO_H

#include <linux/types.h>

#define RKM_LOOP_MAX_DATA	512

enum rkm_loop_type {
	RKM_LOOP_HELLO = 1,
	RKM_LOOP_ATTACH,
	RKM_LOOP_ATTACH_REPLY,
	RKM_LOOP_DOORBELL,
	RKM_LOOP_COMPLETE,
	RKM_LOOP_DETACH,
};

struct rkm_loop_msg {
	__u32 type;		/* enum rkm_loop_type */
	__s32 status;		/* ATTACH_REPLY: 0 or -errno */
	__u64 arg;
	__u32 len;		/* bytes of data that follow */
	__u32 __pad;
	__u8 data[RKM_LOOP_MAX_DATA];
};

#define RKM_LOOP_HDR_LEN	24

#endif
