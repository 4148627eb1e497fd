#!/bin/bash
# make bench-reshape: km's reshape against md raid6's (one disk added,
# 4+2 -> 5+2, same ramdisks, same boot, interleaved rounds) in the QEMU
# guest.  Prints the guest's BENCH/RATIO lines.
#   --save   also write them to bench/results/reshape-<date>.txt
# Environment: BENCH_ROUNDS (default 5), BENCH_MIB (ramdisk size, default
# 160), KVER (the guest kernel, as run-scenario.sh --kernel).
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
save=0
[ "${1:-}" = --save ] && save=1
logdir=$top/build/vm/bench
mkdir -p "$logdir"
sed -e "s/^ROUNDS=.*/ROUNDS=${BENCH_ROUNDS:-5}/" \
    -e "s/^MIB=.*/MIB=${BENCH_MIB:-160}/" \
	"$top/tools/bench/reshape-bench-guest.sh" >"$logdir/reshape-bench-guest.sh"
rc=0
"$top/tools/vm/run-scenario.sh" --logdir "$logdir" ${KVER:+--kernel "$KVER"} \
	"$logdir/reshape-bench-guest.sh" || rc=$?
log=$logdir/reshape-bench-guest.log
[ -f "$log" ] || { echo "bench-reshape: no log" >&2; exit 1; }
cpu=$(sed -n 's/^model name\s*: //p' /proc/cpuinfo | head -1)
out=$( { echo "# bench-reshape $(date -u +%Y-%m-%dT%H:%MZ), host $cpu, $(nproc) CPUs, QEMU TCG guest, kernel ${KVER:-default}"
	 echo "# command: tools/bench/reshape-bench.sh${1:+ $1}"
	 grep -E '^(BENCH|RATIO)' "$log"; } )
echo "$out"
if [ $save = 1 ] && [ $rc = 0 ]; then
	mkdir -p "$top/bench/results"
	f=$top/bench/results/reshape-$(date -u +%Y%m%d-%H%M).txt
	echo "$out" >"$f"
	echo "saved $f"
fi
exit $rc
