#!/bin/bash
# make bench-reshape: km's reshape against md raid6's (one disk added,
# 4+2 -> 5+2, same ramdisks, same boot, interleaved rounds) in the QEMU
# guest.  Prints the guest's BENCH/RATIO lines.
#   --save   also write them to bench/results/reshape-<date>.txt
# Environment: BENCH_ROUNDS (default 5), BENCH_MIB (ramdisk size, default
# 160), KVER (the guest kernel, as run-scenario.sh --kernel).
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tools/bench/guest-bench-lib.sh"
save=0
[ "${1:-}" = --save ] && save=1
guest_bench reshape "$top/tools/bench/reshape-bench-guest.sh" $save \
	"s/^ROUNDS=.*/ROUNDS=${BENCH_ROUNDS:-5}/" \
	"s/^MIB=.*/MIB=${BENCH_MIB:-160}/"
