#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# make check-gpu: the CUDA backend on the GPU host.  Prints PASS/FAIL lines
# and ends with "N passed, N failed"; exits non-zero on any failure.
#   1. gpu_check: every op against the CPU codec, through the backend
#   1b. gpu_check again with RKMD_CUDA_JIT=sync (NVRTC kernels)
#   1c. gpu_check with every batch staged (RKMD_CUDA_STAGE=0x103), then
#       with every batch zero-copy (RKMD_CUDA_STAGE=0)
#   2. gpu_check --no-device with no visible GPU: probe/open refuse, say why
#   3. compute-sanitizer memcheck over gpu_check --short (if installed)
#   4. gpu_loop: the daemon core and the loopback ring, --backend=cuda,
#      then again with RKMD_CUDA_JIT=sync
#   5. the multi-GPU backend, one worker process per instance:
#      gpu_check --gpus=LIST (spreading, a failure in one worker, its
#      restart, then a failure in all) and gpu_loop --drop (a failure
#      under the daemon core, the status file, the restarted worker
#      coding again), each with a failed launch injected and with a real
#      GPU trap (--fault=trap, --drop=trap); LIST is "all" with two or more
#      GPUs, else "0,0": two workers on one GPU, each its own process.
#      GPUs are counted as CUDA_VISIBLE_DEVICES or nvidia-smi shows them.
#   6. a hung batch in instance 1 (RKMD_CUDA_HANG_MS=1000): gpu_check
#      --hang (held on the GPU behind a kernel that waits for close),
#      --hang=withhold (completion withheld) and gpu_loop --hang (held,
#      under the daemon core and the ring, the status file)
# usage: check-gpu.sh GPU_CHECK [GPU_LOOP]
set -u
check=$1
out=$(mktemp)
trap 'rm -f "$out"' EXIT
pass=0 fail=0

tally() {
	p=$(grep -c '^PASS ' "$out")
	f=$(grep -c '^FAIL ' "$out")
	if [ "$1" -ne 0 ] && [ "$f" -eq 0 ]; then
		echo "FAIL $2: exit status $1"
		f=1
	fi
	pass=$((pass + p))
	fail=$((fail + f))
}

"$check" >"$out" 2>&1
rc=$?
cat "$out"
tally $rc gpu_check

# again with every encode/decode of 3+ outputs on NVRTC-specialised
# kernels, compiled on first use (normally in the background)
RKMD_CUDA_JIT=sync "$check" >"$out" 2>&1
rc=$?
sed 's/^\(PASS\|FAIL\) /\1 [jit] /' "$out"
tally $rc "gpu_check (RKMD_CUDA_JIT=sync)"

# the data paths the default leaves to one size each: every batch staged
# (inputs and results through the copy engines, 1 MiB sub-batches, so that
# large jobs run as many sub-batches), then every batch zero-copy
RKMD_CUDA_STAGE=0x103 RKMD_CUDA_SUB_MIB=1 "$check" >"$out" 2>&1
rc=$?
sed 's/^\(PASS\|FAIL\) /\1 [staged] /' "$out"
tally $rc "gpu_check (RKMD_CUDA_STAGE=0x103)"
RKMD_CUDA_STAGE=0 "$check" >"$out" 2>&1
rc=$?
sed 's/^\(PASS\|FAIL\) /\1 [zero-copy] /' "$out"
tally $rc "gpu_check (RKMD_CUDA_STAGE=0)"

CUDA_VISIBLE_DEVICES= "$check" --no-device >"$out" 2>&1
rc=$?
cat "$out"
tally $rc "gpu_check --no-device"

san=$(command -v compute-sanitizer || ls /usr/local/cuda/bin/compute-sanitizer 2>/dev/null)
if [ -n "$san" ]; then
	# batches from 64 KiB on staged (1 MiB sub-batches, results by
	# copies too), smaller ones zero-copy: both data paths checked
	RKMD_CUDA_STAGE=0x107 RKMD_CUDA_STAGE_MIN_KIB=64 RKMD_CUDA_SUB_MIB=1 \
	"$san" --tool memcheck --leak-check full --error-exitcode 9 \
		"$check" --short >"$out" 2>&1
	rc=$?
	grep -E '^(PASS|FAIL|#)|ERROR SUMMARY|LEAK SUMMARY' "$out"
	if [ $rc -eq 0 ] && grep -q 'ERROR SUMMARY: 0 errors' "$out"; then
		echo "PASS compute-sanitizer memcheck: gpu_check --short clean"
		pass=$((pass + 1))
	else
		echo "FAIL compute-sanitizer memcheck: exit $rc"
		fail=$((fail + 1))
	fi
else
	echo "FAIL compute-sanitizer not found"
	fail=$((fail + 1))
fi

loop=${2:-}
if [ -n "$loop" ]; then
	"$loop" >"$out" 2>&1
	rc=$?
	cat "$out"
	tally $rc "gpu_loop (daemon + loopback ring)"
	RKMD_CUDA_JIT=sync "$loop" >"$out" 2>&1
	rc=$?
	sed 's/^\(PASS\|FAIL\) /\1 [jit] /' "$out"
	tally $rc "gpu_loop (RKMD_CUDA_JIT=sync)"
fi

if [ -n "${CUDA_VISIBLE_DEVICES:-}" ]; then
	ngpu=$(echo "$CUDA_VISIBLE_DEVICES" | tr ',' '\n' | grep -c .)
else
	ngpu=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU')
fi
if [ "${ngpu:-0}" -ge 2 ]; then
	gpus=all
else
	gpus=0,0
fi
echo "# multi-GPU backend over --gpus=$gpus ($ngpu GPUs visible)"
for fault in fail trap; do
	timeout 600 "$check" --gpus=$gpus --fault=$fault >"$out" 2>&1
	rc=$?
	sed 's/^\(PASS\|FAIL\) /\1 [gpus='$gpus', '$fault'] /' "$out"
	tally $rc "gpu_check --gpus=$gpus --fault=$fault"
done
if [ -n "$loop" ]; then
	for drop in drop drop=trap; do
		RKMD_GPUS=$gpus timeout 600 "$loop" --$drop >"$out" 2>&1
		rc=$?
		sed 's/^\(PASS\|FAIL\) /\1 [gpus='$gpus', '$drop'] /' "$out"
		tally $rc "gpu_loop --$drop (RKMD_GPUS=$gpus)"
	done
fi

# a hung batch: dropped, its jobs failed back, the other instance serving,
# the held kernel released at close (timeout: a hang here is a failure)
for how in hang hang=withhold; do
	RKMD_CUDA_HANG_MS=1000 timeout 300 "$check" --gpus=$gpus --$how >"$out" 2>&1
	rc=$?
	sed 's/^\(PASS\|FAIL\) /\1 [gpus='$gpus', '$how'] /' "$out"
	tally $rc "gpu_check --gpus=$gpus --$how"
done
if [ -n "$loop" ]; then
	RKMD_CUDA_HANG_MS=1000 RKMD_GPUS=$gpus timeout 300 "$loop" --hang >"$out" 2>&1
	rc=$?
	sed 's/^\(PASS\|FAIL\) /\1 [gpus='$gpus', hang] /' "$out"
	tally $rc "gpu_loop --hang (RKMD_GPUS=$gpus)"
fi

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
