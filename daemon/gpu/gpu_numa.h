/* SPDX-License-Identifier: GPL-2.0 */
/*
 * NUMA placement for the CUDA backend's host-side memory and threads:
 * which node a GPU sits on (sysfs), and putting the calling thread's CPUs
 * and page allocations there.  No libnuma: sysfs, sched_setaffinity and
 * the set_mempolicy system call.  Everything is best effort; on a host
 * with one node nothing is changed.
 */
#ifndef RKG_GPU_NUMA_H
#define RKG_GPU_NUMA_H

#ifdef __cplusplus
extern "C" {
#endif

/*
 * The node of PCI device busid ("0000:3b:00.0", any case), or -1 when the
 * host has a single node or the kernel does not say.
 */
int rkg_numa_node(const char *busid);
/* Run the calling thread on node's CPUs only; 0 or -errno. */
int rkg_numa_bind_thread(int node);
/*
 * Prefer node for the calling thread's new pages (MPOL_PREFERRED) until
 * rkg_numa_unprefer(); 0 or -errno.  node < 0: does nothing, -EINVAL.
 */
int rkg_numa_prefer(int node);
void rkg_numa_unprefer(void);

#ifdef __cplusplus
}
#endif

#endif /* RKG_GPU_NUMA_H */
