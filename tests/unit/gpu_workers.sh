#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# covers: gpu: one worker process per GPU; gpu: fault isolation; gpu: stall detection
# raidkmd's GPU worker processes on fake GPUs (tests/unit/gpu_workers.mk):
# gpu_loop_fake under the daemon core and the loopback ring, one worker
# process per fake GPU: every job right with both serving; a failed
# launch, a trap and a hang in worker 1 (its jobs re-run or failed back,
# worker 0 serving, worker 1 restarted and coding again); the hang again
# caught as a stall long before the backend's own hang timeout.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
loop=$top/build/tests/gpu_loop_fake
out=$(mktemp)
trap 'rm -f "$out"' EXIT
pass=0 fail=0

one() {
	label=$1
	shift
	env "$@" >"$out" 2>&1
	rc=$?
	sed "s/^\(PASS\|FAIL\) /\1 [$label] /" "$out" | grep -E '^(PASS|FAIL)'
	p=$(grep -c '^PASS ' "$out")
	f=$(grep -c '^FAIL ' "$out")
	if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
		echo "FAIL [$label] exit status $rc"
		tail -5 "$out"
		f=1
	fi
	pass=$((pass + p))
	fail=$((fail + f))
}

one "2 workers" RKMD_GPUS=all timeout 300 "$loop"
one "fail" RKMD_GPUS=all timeout 300 "$loop" --drop
one "trap" RKMD_GPUS=all timeout 300 "$loop" --drop=trap
one "hang" RKMD_GPUS=all RKMD_CUDA_HANG_MS=500 timeout 300 "$loop" --hang
# raidkmd's default (30 ms there; 300 here, CPU-coded fakes queue): a
# worker holding a job and showing no progress (no DONE, no beat) for
# that long, plus its bytes held at 2 GB/s, is stalled, its jobs failed
# back at once, the worker killed and restarted
one "stall" RKMD_GPUS=all RKMD_GPUS_STALL_MS=300 RKMD_CUDA_HANG_MS=5000 \
	timeout 300 "$loop" --hang
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ] && [ "$pass" -gt 0 ]
