#!/bin/bash
# On the GPU host: boot the guest from the bundle that "make gpu-guest"
# built (build/gpu-guest, carried there), serve its raidkm.ko from raidkmd
# --backend=cuda through the guest-RAM bridge, run guest scenarios with
# the same pass/fail and kernel-warning rules as "make check", and end with
# "N passed, N failed".
#
# usage: tools/gpu-guest/run.sh [SCENARIO...]   (default: tests/guest/bridge-*.sh
# and tests/gpu-guest/*.sh, the scenarios that need the GPU host)
# Environment: RKM_BRIDGE_BACKEND (default cuda), RKM_LOGDIR (console
# logs, default build/vm/logs).
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tools/gpu-guest/env.sh"
echo "gpu: $(nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>&1 | head -n 1)"
echo "host cpu: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//'), $(nproc) cores"
echo "bridge backend: $RKM_BRIDGE_BACKEND"
echo "gpus: $(nvidia-smi -L 2>/dev/null | grep -c '^GPU')"
if [ $# -gt 0 ]; then
	scen=("$@")
else
	scen=("$top"/tests/guest/bridge-*.sh "$top"/tests/gpu-guest/*.sh)
fi
exec "$top/tests/run-tests.sh" --guest "${scen[*]}"
