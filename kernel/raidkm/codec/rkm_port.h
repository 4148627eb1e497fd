/* SPDX-License-Identifier: GPL-2.0 */
/* Portability layer for the freestanding codec (placeholder). */
#ifndef RKM_PORT_H
#define RKM_PORT_H
#ifdef __KERNEL__
#include <linux/types.h>
typedef u8 rkm_u8;
typedef u64 rkm_u64;
typedef size_t rkm_size_t;
#else
#include <stdint.h>
#include <stddef.h>
typedef uint8_t rkm_u8;
typedef uint64_t rkm_u64;
typedef size_t rkm_size_t;
#endif
#endif
