// SPDX-License-Identifier: GPL-2.0
/*
 * The backends raidkmd knows: cpu (always), cuda (every GPU of the host,
 * daemon/gpu/multi_gpu.c, when daemon/gpu provides it at link time), noop
 * (loopback benchmarks only).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rkmd.h"
#include "gpu/multi_gpu.h"

/*
 * The CUDA backend is linked in only when daemon/gpu/gpu.mk provides
 * objects (RKMD_CUDA_OBJS); otherwise this weak reference stays NULL.
 */
#pragma weak rkmd_gpus_backend
#pragma weak rkmd_gpus_configure

/* no-op: completes every job at once without touching data */
struct noop_backend {
	rkmd_complete_fn done;
	void *ctx;
};

static int noop_probe(char *why, size_t whylen)
{
	snprintf(why, whylen, "no coding at all (benchmarks)");
	return 0;
}

static struct rkmd_backend *noop_open(void *base, size_t len, size_t ro_len,
				      int nthreads,
				      rkmd_complete_fn done, void *ctx,
				      char *why, size_t whylen)
{
	struct noop_backend *b = calloc(1, sizeof(*b));

	if (!b) {
		snprintf(why, whylen, "out of memory");
		return NULL;
	}
	b->done = done;
	b->ctx = ctx;
	return (struct rkmd_backend *)b;
}

static int noop_submit(struct rkmd_backend *be, struct rkmd_job *job)
{
	struct noop_backend *b = (struct noop_backend *)be;
	uint32_t s;

	if (job->op == RKMD_OP_CHECK)
		for (s = 0; s < job->nstripes; s++)
			job->result[s] = 0;
	b->done(b->ctx, job, 0);
	return 0;
}

static void noop_drain(struct rkmd_backend *be)
{
}

static void noop_close(struct rkmd_backend *be)
{
	free(be);
}

const struct rkmd_backend_ops rkmd_noop_backend = {
	.name = "noop",
	.probe = noop_probe,
	.open = noop_open,
	.submit = noop_submit,
	.drain = noop_drain,
	.close = noop_close,
};

const struct rkmd_backend_ops *rkmd_find_backend(const char *name)
{
	if (!strcmp(name, "cpu"))
		return &rkmd_cpu_backend;
	if (!strcmp(name, "noop"))
		return &rkmd_noop_backend;
	if (!strcmp(name, "cuda"))
		return &rkmd_gpus_backend;	/* NULL when not linked in */
	return NULL;
}

int rkmd_backend_gpus(const char *list, const char *state_path, char *why,
		      size_t whylen)
{
	if (!rkmd_gpus_configure) {
		if (list) {
			snprintf(why, whylen, "raidkmd was built without the CUDA backend");
			return -ENODEV;
		}
		return 0;
	}
	return rkmd_gpus_configure(list, state_path, why, whylen);
}
