/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The multi-GPU backend's status file: written by raidkmd
 * (multi_state.c), read by raidkmctl status (tools/ctl/ctl_gpus.c).
 * Format (Documentation/daemon.rst), one item per line:
 *
 *   raidkmd-gpus 1
 *   pid PID
 *   updated EPOCH_S
 *   gpu INDEX DEVICE serving|dropped JOBS MIB RERUNS FAILED DROPPED_AT BUS WHY
 *   worker INDEX STATE PID RESTARTS FAULTS LAST_FAULT_AT LAST_WHY
 *   end
 *
 * one gpu line per instance, INDEX 0, 1, ... in order; BUS is the PCI
 * address or "?", WHY the rest of the line ("-" while serving).  Then one
 * worker line per instance (added in place, version 1 readers skip it):
 * STATE up, starting, failing, restarting or down, PID its worker's (0:
 * none), RESTARTS workers started after the first, FAULTS times it went
 * down, LAST_FAULT_AT epoch s (0: never), LAST_WHY the rest ("-").  "end"
 * closes a complete file.  Readers skip lines of other keywords (later
 * additions); an incompatible change raises the version.
 */
#ifndef RKMD_GPU_STATUS_H
#define RKMD_GPU_STATUS_H

#define RKMD_GPU_STATUS_DIR	"/run/raidkmd"
#define RKMD_GPU_STATUS_FILE	RKMD_GPU_STATUS_DIR "/gpus"
#define RKMD_GPU_STATUS_MAGIC	"raidkmd-gpus"
#define RKMD_GPU_STATUS_VERSION	1
/* the longest WHY written, and the most gpu lines */
#define RKMD_GPU_STATUS_WHY	200
#define RKMD_GPU_STATUS_MAX	16

#endif /* RKMD_GPU_STATUS_H */
