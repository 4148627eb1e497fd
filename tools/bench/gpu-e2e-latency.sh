#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# On the GPU host: the end-to-end cells with a target (gpu_bench --e2e,
# rounds interleaved, each with its own H2D reference) and the latency of
# one 8+3 stripe through the daemon and the loopback ring, with the
# daemon's spin window (default, raidkmd --spin) and without it
# (RKMD_SPIN_US=0: sleep until the doorbell), and, as the same round's
# references, the spin window with the CUDA backend's completion seen by
# its event as before the completion flag (RKMD_CUDA_FLAG=0) and with the
# flag's first version, a system-scope fence in every thread of the
# kernel (RKMD_CUDA_FLAG=2); ROUNDS runs of each, interleaved.  Every
# job's parity is checked (gpu_loop).
#
#   tools/bench/gpu-e2e-latency.sh BUILD/gpu [ROUNDS]
#
# Binaries from "make all" on a build machine with nvcc (build/gpu).
set -u
dir=${1:?usage: gpu-e2e-latency.sh BUILD/gpu [ROUNDS]}
rounds=${2:-5}

echo "# date: $(date -u '+%Y-%m-%d %H:%M UTC')"
echo "# cpu: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//')," \
	"$(nproc) cpus, numa nodes: $(ls -d /sys/devices/system/node/node* 2>/dev/null | wc -l)"
echo "# gpu: $(nvidia-smi --query-gpu=name,driver_version,pcie.link.gen.max,pcie.link.width.max --format=csv,noheader 2>/dev/null)"
echo "# command: $0 $*"

"$dir/gpu_bench" --e2e --rounds "$rounds" || exit 1

echo
echo "== latency through the daemon and the loopback ring: $rounds runs of 3000 jobs in each setting, interleaved"
echo "#  spin: the daemon's spin window (default, 50 us); none: RKMD_SPIN_US=0 (sleep until the doorbell);"
echo "#  event: spin, completion seen by the batch's event (RKMD_CUDA_FLAG=0, the code before the flag)"
echo "#  fence: spin, the flag's first version: every thread fences at system scope (RKMD_CUDA_FLAG=2)"
spin=() none=() event=() fence=()
lat() {
	local o
	# a wrong parity or a failed job fails the run
	o=$(env "$@" "$dir/gpu_loop" --latency 3000) || { printf '%s\n' "$o" >&2; return 1; }
	printf '%s\n' "$o" | grep '^latency 8'
}
for r in $(seq 1 "$rounds"); do
	l=$(lat RKMD_SPIN_US=50) || exit 1
	echo "spin: $l"
	spin+=("$l")
	l=$(lat RKMD_SPIN_US=0) || exit 1
	echo "none: $l"
	none+=("$l")
	l=$(lat RKMD_SPIN_US=50 RKMD_CUDA_FLAG=0) || exit 1
	echo "event: $l"
	event+=("$l")
	l=$(lat RKMD_SPIN_US=50 RKMD_CUDA_FLAG=2) || exit 1
	echo "fence: $l"
	fence+=("$l")
done
# median, min and max over the runs of each run's p50 and p99
summ() {
	printf '%s\n' "$@" | awk -v what="$name" '
		{ for (i = NF; i >= 1; i--) { if ($i == "p50") a[NR] = $(i + 1) + 0;
					      if ($i == "p99") b[NR] = $(i + 1) + 0 } }
		function med(x, n,   i, j, t) {
			for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++)
				if (x[j] < x[i]) { t = x[i]; x[i] = x[j]; x[j] = t }
			return sprintf("%.1f [%.1f..%.1f]", x[int((n + 1) / 2)], x[1], x[n])
		}
		END { printf "%s p50 %s us  p99 %s us\n", what, med(a, NR), med(b, NR) }'
}
name="latency ring+daemon, spin 50 us (default)" summ "${spin[@]}"
name="latency ring+daemon, no spin (doorbell)   " summ "${none[@]}"
name="ref spin, completion by event (flag off)   " summ "${event[@]}"
name="ref spin, flag with a fence in every thread " summ "${fence[@]}"
echo "(target p50 <= 25 us, p99 <= 40 us; the backend alone and a memcpy round trip are in gpu_bench's latency lines above)"
