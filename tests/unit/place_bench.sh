#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# covers: offload: job placement by measured cost; offload: placement modes; raidkmd: serving
# rkm-place-bench's smoke run (daemon/bench, Documentation/offload.rst,
# "Placement"): the kernel's decision (place.c) fed as the kernel feeds
# it, the CPU codec on two submitter threads, raidkmd's core with the cpu
# backend over the loopback ring, a mixed stream under cpu, daemon and
# auto in two rounds: it ends cleanly, every mode prints its numbers,
# every job's outputs (all of them checked) match the CPU codec's and
# the kernel's checks of the daemon's results (verify.c's, as the
# module's defaults) ran and found nothing; with a daemon that corrupts
# one result in 5 they and the bench find it and the exit status is 1.
# No speed is asserted.
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
line=$(grep "^the kernel's checks of daemon results: " "$out")
ok=0
echo "$line" | grep -Eq '^the kernel.s checks of daemon results: [0-9]+ spot, [1-9][0-9]* full, .* 0 wrong$' && ok=1
verdict $ok "the kernel's checks ran (full in the fresh window), none wrong" "${line:-no line}"
[ $fail = 0 ] || tail -n 40 "$out"

# a daemon that corrupts one result in 5 (raidkmd --fault=corrupt:5):
# the kernel's checks and the bench's own catch it, the exit status is 1
timeout 120 "$bench" --backend=cpu --short --corrupt=5 >"$out" 2>&1
rc=$?
ok=0
[ $rc = 1 ] && ok=1
verdict $ok "a corrupting daemon: exit status 1" "exit status $rc"
line=$(grep "^the kernel's checks of daemon results: " "$out")
ok=0
echo "$line" | grep -Eq ' [1-9][0-9]* wrong$' && ok=1
verdict $ok "a corrupting daemon: the kernel's checks catch it" "${line:-no line}"
[ $fail = 0 ] || tail -n 20 "$out"
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
