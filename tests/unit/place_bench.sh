#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# covers: offload: job placement by measured cost; offload: placement modes; raidkmd: serving
# rkm-place-bench's smoke run (daemon/bench, Documentation/offload.rst,
# "Placement"): the kernel's decision (place.c) fed as the kernel feeds
# it, the CPU codec on two submitter threads, raidkmd's core with the cpu
# backend over the loopback ring, a mixed stream under cpu, daemon and
# auto in two rounds: it ends cleanly, every mode prints its numbers and
# every job's outputs (all of them checked) match the CPU codec's.  No
# speed is asserted.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
bench=$top/build/bin/rkm-place-bench
out=$(mktemp)
trap 'rm -f "$out"' EXIT
pass=0 fail=0

verdict() {	# OK NAME [WHY]
	if [ "$1" = 1 ]; then
		echo "PASS $2"
		pass=$((pass + 1))
	else
		echo "FAIL $2${3:+: $3}"
		fail=$((fail + 1))
	fi
}

timeout 120 "$bench" --backend=cpu --short >"$out" 2>&1
rc=$?
ok=0
[ $rc = 0 ] && ok=1
verdict $ok "rkm-place-bench --backend=cpu --short exits 0" "exit status $rc"
for m in cpu daemon auto; do
	n=$(grep -c "^round [0-9] $m " "$out")
	ok=0
	[ "$n" = 2 ] && grep -q "^MEDIAN $m .*all .*GB/s" "$out" && ok=1
	verdict $ok "mode $m: 2 rounds and a median" "$n rounds"
done
ok=0
grep -q '^RATIO auto/max(cpu,daemon) throughput [0-9.]* \[' "$out" && ok=1
verdict $ok "the RATIO line"
line=$(grep '^checked ' "$out")
ok=0
echo "$line" | grep -Eq '^checked [1-9][0-9]* jobs: 0 wrong;' && ok=1
verdict $ok "every output right" "${line:-no checked line}"
ok=0
grep -q 'WRONG' "$out" || ok=1
verdict $ok "no WRONG line" "$(grep -m1 WRONG "$out")"
[ $fail = 0 ] || tail -n 40 "$out"
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
