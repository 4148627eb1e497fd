/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Framing of the bridge channel (bridge_proto.h), shared by the relay in
 * the guest and raidkmd's bridge transport on the host.  Both ends use a
 * non-blocking fd: a virtio-serial port in the guest, a unix stream
 * socket on the host.
 */
#ifndef RKM_BRIDGE_IO_H
#define RKM_BRIDGE_IO_H

#include <stddef.h>
#include <stdint.h>
#include "bridge_proto.h"

/* Receive buffer: bytes read but not yet returned as messages */
struct rkm_br_rx {
	uint8_t *buf;
	size_t cap, have, used;	/* used: bytes of the last message */
};

/*
 * Send one message; waits for room up to @timeout_ms.  0, -EPIPE when
 * the other end is gone (a virtio-serial port whose host side is not
 * connected reports POLLHUP), -ETIMEDOUT, or -errno.
 */
int rkm_br_send(int fd, uint16_t type, int32_t status, uint64_t arg,
		const void *payload, uint32_t len, int timeout_ms);

/*
 * Next message: 1 and *m / *payload (valid until the next call) when one
 * is complete, 0 when none arrived within @timeout_ms (0: do not wait),
 * -ENOTCONN at end of stream, -EPROTO for a malformed message, -errno.
 */
int rkm_br_recv(struct rkm_br_rx *rx, int fd, struct rkm_br_msg *m,
		const void **payload, int timeout_ms);

/* Return the last message again from the next rkm_br_recv(). */
void rkm_br_rx_unread(struct rkm_br_rx *rx);
/* Forget buffered bytes (a new session starts on a clean slate). */
void rkm_br_rx_reset(struct rkm_br_rx *rx);
void rkm_br_rx_free(struct rkm_br_rx *rx);

#endif
