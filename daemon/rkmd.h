/* SPDX-License-Identifier: GPL-2.0 */
/*
 * raidkmd core: the serving loop, shared by every transport (the kernel's
 * /dev/raidkm + generic netlink, or the user-space loopback) and every
 * backend (rkmd_backend.h).
 *
 * A transport gives the core the shared mapping (header page, rings,
 * descriptor area, arena, laid out as uapi/raidkm.h says), a pollable fd
 * on which doorbells arrive, and the control operations.  The core
 * validates every ring entry, turns it into struct rkmd_job with host
 * pointers, hands it to the backend and posts completions.
 */
#ifndef RKMD_H
#define RKMD_H

#include <stddef.h>
#include <stdint.h>
#include "rkmd_backend.h"

struct rkmd_transport;

/* What the daemon tells the kernel end in ATTACH */
struct rkmd_attach_info {
	const char *backend;	/* backend name */
	uint64_t session;	/* hdr->session */
	uint64_t features;	/* RAIDKM_FEAT_* the daemon understands */
	uint32_t max_k, max_m;
	uint32_t batch;		/* preferred stripes per job */
	uint32_t ops;		/* bit (1 << RAIDKM_OP_*) per op served */
};

struct rkmd_transport_ops {
	const char *name;
	/* Register with the kernel end; *features gets the agreed set. */
	int (*attach)(struct rkmd_transport *t,
		      const struct rkmd_attach_info *ai, uint64_t *features);
	/*
	 * Consume whatever arrived on t->fd (doorbells, errors).  Returns 0,
	 * or -errno when the kernel end is gone.
	 */
	int (*events)(struct rkmd_transport *t);
	/* Ring the completion doorbell (cq_tail is informational). */
	int (*complete)(struct rkmd_transport *t, uint32_t cq_tail);
	/* Ask the kernel end to stop submitting (clean shutdown). */
	int (*detach)(struct rkmd_transport *t);
	/* Unmap and close everything. */
	void (*close)(struct rkmd_transport *t);
};

struct rkmd_transport {
	const struct rkmd_transport_ops *ops;
	void *map;		/* the whole shared mapping */
	size_t map_len;
	int fd;			/* pollable: doorbells from the kernel end */
	void *priv;
};

/*
 * Map a kernel end's shared region from @fd (shm_map.c), checked header
 * @h: with RAIDKM_FEAT_RO_INPUT the input part of the arena read-only and
 * the rest read-write, one contiguous range; else all of it read-write.
 * @flags: extra mmap flags (MAP_POPULATE).  NULL with a reason in why.
 */
struct raidkm_shm_hdr;
void *rkmd_map_shm(int fd, const struct raidkm_shm_hdr *h, int flags,
		   char *why, size_t whylen);

/* /dev/raidkm + generic netlink (transport_nl.c) */
int rkmd_nl_open(struct rkmd_transport *t, const char *dev, char *why,
		 size_t whylen);

/*
 * The loopback (transport_loop.c): @sock is a connected SOCK_SEQPACKET
 * socket to a loopback kernel end (daemon/loopback/rkm_loop.h), which
 * sends the shared memfd first.
 */
int rkmd_loop_open(struct rkmd_transport *t, int sock, char *why,
		   size_t whylen);
/* A unix socket of @type (SOCK_*) connected to @path, or -errno */
int rkmd_unix_connect(const char *path, int type, char *why, size_t whylen);
/* Connect to a loopback kernel end listening on a unix socket path */
int rkmd_loop_connect(const char *path, char *why, size_t whylen);

/*
 * The guest-RAM bridge (transport_bridge.c, bridge/bridge_proto.h): @sock
 * is a connected stream socket to the VM's channel (not closed by the
 * transport; it outlives sessions), @ram the guest-RAM file.  Waits for a
 * relay's HELLO (until *stop), maps the guest's /dev/raidkm mapping from
 * @ram.  -ENOTCONN when the VM is gone, -EINTR when stopped.
 */
struct rkm_br_rx;
int rkmd_bridge_open(struct rkmd_transport *t, int sock, const char *ram,
		     struct rkm_br_rx *rx, volatile int *stop, char *why,
		     size_t whylen);
int rkmd_bridge_connect(const char *path, char *why, size_t whylen);

/* Fault injection (tests only) */
struct rkmd_fault {
	uint64_t corrupt_every;	/* flip a parity byte in 1 job of N, 0 = off */
	uint64_t delay_us;	/* delay each completion batch */
	uint64_t exit_after;	/* _exit(3) after consuming N jobs, 0 = off */
	uint64_t skip_every;	/* 1 job in N answered OK uncoded, 0 = off */
	/* 1 job in N: write an input chunk before coding (it faults) */
	uint64_t write_input_every;
	/* 1 job in N: overwrite its outputs after posting its completion */
	uint64_t write_output_late_every;
	/*
	 * 1 job in N: answer it failed (EIO), then overwrite its outputs
	 * (a GPU batch that hung and writes after all)
	 */
	uint64_t fail_late_every;
};

/* raidkmd's default --spin */
#define RKMD_SPIN_US_DEFAULT	50

struct rkmd_core_cfg {
	const struct rkmd_backend_ops *backend;
	int threads;		/* backend hint: -1 default, 0 inline */
	uint32_t batch;		/* preferred stripes per job to advertise */
	/*
	 * 0: sleep until a doorbell (NEED_WAKEUP).  Otherwise poll the
	 * submission ring every poll_us microseconds while jobs come, every
	 * millisecond when idle, and never ask for a doorbell: for a daemon
	 * whose doorbells travel a slow path (the guest-RAM bridge).
	 */
	uint32_t poll_us;
	/*
	 * Without polling: after work, look at the submission ring without
	 * sleeping until spin_us have passed since the last entry or
	 * completion, before asking for a doorbell (0: never spin).
	 */
	uint32_t spin_us;
	struct rkmd_fault fault;
	int quiet_stats;	/* do not log the final counters */
	/* optional: set (e.g. by a signal handler) to request a stop */
	volatile int *stop_flag;
};

/* Counters a serve loop returns (and logs at exit) */
struct rkmd_stats {
	uint64_t jobs;		/* entries consumed */
	uint64_t stripes;
	uint64_t bytes;		/* chunk bytes described */
	uint64_t rejected;	/* entries that failed validation */
	uint64_t backend_errors;
	uint64_t doorbells_in;	/* wake-ups from the kernel end */
	uint64_t doorbells_out;	/* COMPLETE messages sent */
	uint64_t faults;	/* injected faults */
};

struct rkmd_core;

/*
 * Serve until stopped (rkmd_core_stop, SIGTERM through main), the kernel
 * end closes the session, or a protocol error.  Returns 0 for a clean
 * stop, -ECONNRESET or -ENOTCONN when the kernel end dropped the daemon,
 * -errno otherwise.  The transport is left open for the caller to
 * close.  If @corep is given it is set while the loop runs (for
 * rkmd_core_stop from another thread) and cleared before return.
 */
int rkmd_serve(struct rkmd_transport *t, const struct rkmd_core_cfg *cfg,
	       struct rkmd_stats *stats, struct rkmd_core *volatile *corep);

/* Ask a running core to drain and detach; async-signal-safe. */
void rkmd_core_stop(struct rkmd_core *core);

/* Backends compiled in, for --backend */
extern const struct rkmd_backend_ops rkmd_noop_backend;
const struct rkmd_backend_ops *rkmd_find_backend(const char *name);
/*
 * The cuda backend's GPUs (list: "all" or "0,1"; NULL keeps the default)
 * and status file (NULL keeps it, "" none); -ENODEV when raidkmd was
 * built without CUDA and a list was given, -EINVAL for a bad list.
 */
int rkmd_backend_gpus(const char *list, const char *state_path, char *why,
		      size_t whylen);

#endif /* RKMD_H */
