#!/bin/bash
# One-member rebuild of km 4+2 and 8+3 with sync windows and by rows,
# md raid6 4+2 as the reference, in the QEMU guest, one boot, interleaved
# rounds (tools/bench/wide-sync-bench-guest.sh).  Prints the guest's
# BENCH/MEDIAN/RATIO lines.
#   --save   also write them to bench/results/wide-sync-<date>.txt
# Environment: BENCH_ROUNDS (default 3), BENCH_MIB (member size, 48),
# BENCH_IMAGE (guest image), KVER (the guest kernel).
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tools/bench/guest-bench-lib.sh"
save=0
[ "${1:-}" = --save ] && save=1
guest_bench wide-sync "$top/tools/bench/wide-sync-bench-guest.sh" $save \
	"s/^ROUNDS=.*/ROUNDS=${BENCH_ROUNDS:-3}/" \
	"s/^MIB=.*/MIB=${BENCH_MIB:-48}/"
