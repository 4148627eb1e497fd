#!/bin/bash
# make bench-vm: km (m=2, 3, 4) against md raid6 in the QEMU guest, same
# boot, same ramdisks.  Prints the guest's BENCH/RATIO lines.
#   --save   also write them to bench/results/bench-vm-<date>.txt
# Environment: BENCH_ROUNDS (default 3; the best round counts),
# BENCH_MIB (ramdisk size, default 64), BENCH_IMAGE (guest image), KVER
# (the guest kernel, as run-scenario.sh --kernel; make passes its own).
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
save=0
[ "${1:-}" = --save ] && save=1
logdir=$top/build/vm/bench
mkdir -p "$logdir"
# the guest has no environment of ours: settings go into its copy
sed -e "s/^ROUNDS=.*/ROUNDS=${BENCH_ROUNDS:-4}/" \
    -e "s/^MIB=.*/MIB=${BENCH_MIB:-64}/" \
	"$top/tools/bench/km-bench-guest.sh" >"$logdir/km-bench-guest.sh"
rc=0
"$top/tools/vm/run-scenario.sh" --logdir "$logdir" ${BENCH_IMAGE:+--image "$BENCH_IMAGE"} "$logdir/km-bench-guest.sh" || rc=$?
log=$logdir/km-bench-guest.log
[ -f "$log" ] || { echo "bench-vm: no log" >&2; exit 1; }
out=$( { echo "# bench-vm $(date -u +%Y-%m-%dT%H:%MZ), host $(nproc) CPUs, QEMU TCG guest, kernel ${KVER:-$(ls /lib/modules | grep -E '^6\.1\.' | sort -V | tail -1)}"; grep -E '^(BENCH|RATIO|MEDIAN-RATIO)' "$log"; } )
echo "$out"
if [ $save = 1 ] && [ $rc = 0 ]; then
	mkdir -p "$top/bench/results"
	f=$top/bench/results/bench-vm-$(date -u +%Y%m%d-%H%M).txt
	echo "$out" >"$f"
	echo "saved $f"
fi
exit $rc
