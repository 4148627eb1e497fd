/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Portability layer of the freestanding codec: the few services the codec
 * needs, mapped onto the kernel (slab, spinlock, kernel_fpu_begin/end,
 * CPU feature flags, ktime) or onto libc/pthreads in user space.
 *
 * Files built with SIMD flags (the per-ISA kernels) define
 * RKM_PORT_TYPES_ONLY before including this header: they see the integer
 * types and nothing else, so no kernel header is compiled with SSE on
 * beyond <linux/types.h>.
 */
#ifndef RKM_PORT_H
#define RKM_PORT_H

#ifdef __KERNEL__
#include <linux/types.h>
typedef u8 rkm_u8;
typedef u32 rkm_u32;
typedef u64 rkm_u64;
typedef size_t rkm_size_t;
#else
#include <stdint.h>
#include <stddef.h>
typedef uint8_t rkm_u8;
typedef uint32_t rkm_u32;
typedef uint64_t rkm_u64;
typedef size_t rkm_size_t;
#endif

#ifndef RKM_PORT_TYPES_ONLY

#ifdef __KERNEL__
#include <linux/kernel.h>
#include <linux/string.h>
#include <linux/slab.h>
#include <linux/mm.h>
#include <linux/spinlock.h>
#include <linux/printk.h>
#include <linux/ktime.h>
#include <linux/preempt.h>
#include <linux/sched.h>
#include <asm/fpu/api.h>
#include <asm/simd.h>
#include <asm/cpufeature.h>

/* Codes are created in process context; decode may run wherever jobs do. */
#define rkm_alloc(sz)		kvzalloc((sz), GFP_KERNEL)
#define rkm_alloc_atomic(sz)	kzalloc((sz), GFP_ATOMIC | __GFP_NOWARN)
#define rkm_free(p)		kvfree(p)

#define rkm_lock_t		spinlock_t
#define rkm_lock_flags_t	unsigned long
#define rkm_lock_init(l)	spin_lock_init(l)
#define rkm_lock_destroy(l)	((void)(l))
#define rkm_lock(l, f)		spin_lock_irqsave((l), (f))
#define rkm_unlock(l, f)	spin_unlock_irqrestore((l), (f))

/*
 * SIMD only where the FPU may be used (never in NMI or hard IRQ over a
 * user FPU context); slices keep preemption-off sections short.
 */
#define RKM_SIMD_USABLE()	may_use_simd()
#define RKM_FPU_BEGIN()		kernel_fpu_begin()
#define RKM_FPU_END()		kernel_fpu_end()
/*
 * Between slices: let a woken task run where the caller may be preempted
 * (a worker coding megabytes would otherwise hold its CPU for the whole
 * job under voluntary preemption; kernels without a preempt count never
 * prove that, and never yield here).
 */
#define RKM_RESCHED()		do {				\
					if (preemptible())	\
						cond_resched();	\
				} while (0)

#define RKM_CPU_SSSE3()		boot_cpu_has(X86_FEATURE_SSSE3)
#define RKM_CPU_AVX2()		(boot_cpu_has(X86_FEATURE_AVX) && \
				 boot_cpu_has(X86_FEATURE_AVX2))
#define RKM_CPU_AVX512BW()	(boot_cpu_has(X86_FEATURE_AVX512F) && \
				 boot_cpu_has(X86_FEATURE_AVX512BW))
#define RKM_CPU_GFNI()		boot_cpu_has(X86_FEATURE_GFNI)

#define rkm_now_ns()		ktime_get_ns()
#define rkm_info(...)		pr_info(__VA_ARGS__)
#define rkm_err(...)		pr_err(__VA_ARGS__)
#define rkm_getenv(name)	((void)(name), (const char *)NULL)
#define rkm_read_once(x)	READ_ONCE(x)
#define rkm_write_once(x, v)	WRITE_ONCE(x, v)

#else /* user space */

#include <stdlib.h>
#include <string.h>
#include <stdio.h>
#include <time.h>
#include <pthread.h>

#ifndef ARRAY_SIZE
#define ARRAY_SIZE(a)		(sizeof(a) / sizeof((a)[0]))
#endif

#define rkm_alloc(sz)		calloc(1, (sz))
#define rkm_alloc_atomic(sz)	calloc(1, (sz))
#define rkm_free(p)		free(p)

#define rkm_lock_t		pthread_mutex_t
#define rkm_lock_flags_t	int
#define rkm_lock_init(l)	pthread_mutex_init((l), NULL)
#define rkm_lock_destroy(l)	pthread_mutex_destroy(l)
#define rkm_lock(l, f)		do { (void)(f); pthread_mutex_lock(l); } while (0)
#define rkm_unlock(l, f)	do { (void)(f); pthread_mutex_unlock(l); } while (0)

#define RKM_SIMD_USABLE()	1
#define RKM_FPU_BEGIN()		do { } while (0)
#define RKM_FPU_END()		do { } while (0)
#define RKM_RESCHED()		do { } while (0)

#if defined(__x86_64__)
#define RKM_CPU_SSSE3()		__builtin_cpu_supports("ssse3")
#define RKM_CPU_AVX2()		__builtin_cpu_supports("avx2")
#define RKM_CPU_AVX512BW()	(__builtin_cpu_supports("avx512f") && \
				 __builtin_cpu_supports("avx512bw"))
#define RKM_CPU_GFNI()		__builtin_cpu_supports("gfni")
#endif

static inline rkm_u64 rkm_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (rkm_u64)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

/* User space stays quiet; the kernel logs the same events with pr_info. */
#define rkm_info(...)		do { if (0) printf(__VA_ARGS__); } while (0)
#define rkm_err(...)		fprintf(stderr, __VA_ARGS__)
#define rkm_getenv(name)	getenv(name)
#define rkm_read_once(x)	__atomic_load_n(&(x), __ATOMIC_ACQUIRE)
#define rkm_write_once(x, v)	__atomic_store_n(&(x), (v), __ATOMIC_RELEASE)

#endif /* __KERNEL__ */

#endif /* RKM_PORT_TYPES_ONLY */
#endif /* RKM_PORT_H */
