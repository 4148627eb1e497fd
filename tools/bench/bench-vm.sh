#!/bin/bash
# make bench-vm: km (m=2, 3, 4) against md raid6 in the QEMU guest, same
# boot, same ramdisks.  Prints the guest's BENCH/RATIO lines.
#   --save   also write them to bench/results/bench-vm-<date>.txt
# Environment: BENCH_ROUNDS (default 4; the best round counts),
# BENCH_MIB (ramdisk size, default 64), BENCH_IMAGE (guest image), KVER
# (the guest kernel, as run-scenario.sh --kernel; make passes its own).
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tools/bench/guest-bench-lib.sh"
save=0
[ "${1:-}" = --save ] && save=1
guest_bench bench-vm "$top/tools/bench/km-bench-guest.sh" $save \
	"s/^ROUNDS=.*/ROUNDS=${BENCH_ROUNDS:-4}/" \
	"s/^MIB=.*/MIB=${BENCH_MIB:-64}/"
