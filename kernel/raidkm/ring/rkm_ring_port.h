/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Portability for the freestanding ring code: the same rkm_ring.c builds
 * into raidkm.ko and into user space (raidkmd, its loopback, the tests).
 * Kernel builds use the kernel's SMP barriers; user space uses the
 * compiler's __atomic builtins with the equivalent orderings.
 */
#ifndef RKM_RING_PORT_H
#define RKM_RING_PORT_H

#ifdef __KERNEL__
#include <linux/types.h>
#include <linux/compiler.h>
#include <linux/string.h>
#include <asm/barrier.h>

/* acquire: later reads cannot pass it (pairs with rkm_ring_store_release) */
#define rkm_ring_load_acquire(p)		smp_load_acquire(p)
/* release: earlier reads and writes cannot pass it */
#define rkm_ring_store_release(p, v)		smp_store_release(p, v)
/* full barrier of the wake-up protocol (producer and consumer pair) */
#define rkm_ring_mb()			smp_mb()
#define rkm_ring_read_once(x)		READ_ONCE(x)
#define rkm_ring_write_once(x, v)		WRITE_ONCE(x, v)
#else
#include <stdint.h>
#include <stddef.h>
#include <string.h>

#define rkm_ring_load_acquire(p)		__atomic_load_n(p, __ATOMIC_ACQUIRE)
#define rkm_ring_store_release(p, v)		__atomic_store_n(p, v, __ATOMIC_RELEASE)
#define rkm_ring_mb()			__atomic_thread_fence(__ATOMIC_SEQ_CST)
#define rkm_ring_read_once(x)		__atomic_load_n(&(x), __ATOMIC_RELAXED)
#define rkm_ring_write_once(x, v)		__atomic_store_n(&(x), v, __ATOMIC_RELAXED)
#endif

#endif /* RKM_RING_PORT_H */
