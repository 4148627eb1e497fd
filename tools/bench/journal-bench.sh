#!/bin/bash
# What the write journal and the member log cost
# (Documentation/personality.rst, "Write journal", "Member log"): km 4+2
# with and without a journal, md raid6 4+2 with and without its journal,
# km 4+2 with a bitmap with and without a member log, sequential 1 MiB
# and 4 KiB random writes, in the QEMU guest, one boot, interleaved
# rounds (tools/bench/journal-bench-guest.sh).  Prints the guest's
# BENCH/MEDIAN/RATIO lines.
#   --save   also write them to bench/results/journal-<date>.txt
# Environment: BENCH_ROUNDS (default 3), BENCH_IMAGE (guest image), KVER.
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tools/bench/guest-bench-lib.sh"
save=0
[ "${1:-}" = --save ] && save=1
guest_bench journal "$top/tools/bench/journal-bench-guest.sh" $save \
	"s/^ROUNDS=.*/ROUNDS=${BENCH_ROUNDS:-3}/"
