/* SPDX-License-Identifier: GPL-2.0 */
/*
 * raidkmd's multi-GPU "cuda" backend (multi_gpu.c): one worker process
 * per GPU (gpu_worker.h), each running the CUDA backend on its device;
 * its configuration, its per-instance state and the status file that
 * exports it (multi_state.c).
 */
#ifndef RKMD_MULTI_GPU_H
#define RKMD_MULTI_GPU_H

#include <stddef.h>
#include <stdint.h>
#include <time.h>

#ifdef __cplusplus
extern "C" {
#endif
#include "rkmd_backend.h"

#define RKMD_GPUS_MAX	16

/* An instance's worker */
enum rkmd_gpu_wstate {
	RKMD_GPU_DOWN,		/* none (closed) */
	RKMD_GPU_STARTING,	/* forked, opening the GPU */
	RKMD_GPU_UP,		/* serving */
	RKMD_GPU_FAILING,	/* its GPU failed: its jobs come back */
	RKMD_GPU_RESTARTING,	/* gone; a new one starts after a backoff */
};

/* One instance as the status file and the tests see it */
struct rkmd_gpu_state {
	int index;		/* in the list */
	int device;		/* CUDA device number */
	int dropped;		/* not serving now (state != UP) */
	time_t dropped_at;	/* when it last stopped serving */
	int state;		/* enum rkmd_gpu_wstate */
	int pid;		/* its worker's, 0: none */
	uint64_t restarts;	/* workers started after the first */
	uint64_t faults;	/* times it went down (GPU fault, exit) */
	uint64_t jobs;		/* completed on it */
	uint64_t bytes;		/* their chunk bytes */
	uint64_t reruns;	/* its jobs re-run on another instance */
	uint64_t failed_back;	/* its jobs failed back to the kernel */
	char where[64];		/* "PCI address, node N[, own context]" */
	char why[160];		/* why it last went down */
};

extern const struct rkmd_backend_ops rkmd_gpus_backend;

/*
 * Before ->probe/->open: list ("all", or device numbers such as "0,1";
 * NULL: keep), state_path (the status file; "" none; NULL: keep).
 * 0 or -EINVAL with the reason in why.
 */
int rkmd_gpus_configure(const char *list, const char *state_path,
			char *why, size_t whylen);
/* Parse a list into dev[RKMD_GPUS_MAX]: count, 0 for all, or -EINVAL. */
int rkmd_gpus_parse(const char *list, int *dev, char *why, size_t whylen);
/*
 * Tests: the instances' state; a fault in instance index's worker at its
 * next batch: a GPU trap, a failed launch, a hang held on the GPU until
 * the worker ends, or a hang whose completion is withheld
 * (cuda_backend.h).  Each takes that worker down, and it restarts.
 */
enum rkmd_gpu_fault {
	RKMD_GPU_TRAP,
	RKMD_GPU_FAIL,
	RKMD_GPU_HANG,
	RKMD_GPU_WITHHOLD,
};

int rkmd_gpus_get(struct rkmd_backend *be, struct rkmd_gpu_state *st,
		  int max);
void rkmd_gpus_inject_fault(struct rkmd_backend *be, int index,
			    enum rkmd_gpu_fault fault);

/*
 * Tests: wait up to ms for instance index to be serving again after
 * at least `restarts` restarts; 0 or -ETIMEDOUT.
 */
int rkmd_gpus_wait_up(struct rkmd_backend *be, int index, uint64_t restarts,
		      int ms);

/* multi_state.c: write the status file (atomically: a rename) */
int rkmd_gpu_state_write(const char *path, const struct rkmd_gpu_state *st,
			 int n);

#ifdef __cplusplus
}
#endif

#endif /* RKMD_MULTI_GPU_H */
