#!/bin/bash
# raidkm test runner: user-space unit tests, then guest scenarios.
# Prints PASS/FAIL per test and ends with "N passed, N failed".
#
# usage: run-tests.sh [--unit "PROG..."] [--kernels "KVER..."]
#                     [--guest "SCENARIO..."] [--lanes N] [--full]
#                     [--unit-jobs N]
# The unit tests run up to N at a time (default: the number of CPUs),
# each reported whole, in list order.
# Guest scenarios run once per kernel (default: run-scenario.sh's), the
# newest kernel first; each kernel's guest image must have been built
# (make vm-images).  Of a scenario's sweep (lib.sh's share: geometries,
# codec forms, upstream tests) kernel I of N runs the items j with
# j % N == I, so that each check runs every item once and every scenario
# on every kernel; --full runs every item on every kernel.
#
# --lanes N runs the suites of up to N kernels at the same time, each in
# its own lane (one guest at a time per lane).  An emulated guest keeps
# about one host core busy even with two vCPUs, so on a two-core host two
# lanes finish both kernels' suites in about 60% of the time of one lane
# (Documentation/testing.rst has the measurement).  The first lane's
# output streams as it comes; the others' follow, whole, in kernel order.
set -uo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
unit="" guest="" kernels="" lanes=1 full=0 unit_jobs=$(nproc)
while [ $# -gt 0 ]; do
	case $1 in
	--unit) unit=$2; shift ;;
	--guest) guest=$2; shift ;;
	--kernels) kernels=$2; shift ;;
	--lanes) lanes=$2; shift ;;
	--full) full=1 ;;
	--unit-jobs) unit_jobs=$2; shift ;;
	*) echo "run-tests: unknown argument $1" >&2; exit 2 ;;
	esac
	shift
done

case $lanes in
'' | *[!0-9]* | 0) echo "run-tests: --lanes wants a positive number, not '$lanes'" >&2; exit 2 ;;
esac
case $unit_jobs in
'' | *[!0-9]* | 0) echo "run-tests: --unit-jobs wants a positive number, not '$unit_jobs'" >&2; exit 2 ;;
esac

passed=0 failed=0 retried=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
out=$tmp/out

# count PASS/FAIL lines of one test's output; a test program that fails
# without printing a FAIL line counts as one failure under its own name
tally() {
	local name=$1 rc=$2 p f
	p=$(grep -c '^PASS ' "$out")
	f=$(grep -c '^FAIL ' "$out")
	if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
		echo "FAIL $name: exit status $rc"
		f=1
	elif [ "$rc" -eq 0 ] && [ "$p" -eq 0 ] && [ "$f" -eq 0 ]; then
		echo "PASS $name"
		p=1
	fi
	passed=$((passed + p))
	failed=$((failed + f))
}

# the unit tests, up to $unit_jobs at a time (a test's output in its own
# scratch file), reported whole in list order as they end
read -r -a units <<<"$unit"
unit_run() {	# I PROG: run unit test I in the background
	(
		t0=$(date +%s)
		"$2" >"$tmp/u.$1" 2>&1
		echo "$? $(($(date +%s) - t0))" >"$tmp/u.$1.tmp"
		mv "$tmp/u.$1.tmp" "$tmp/u.$1.rc"
	) &
}
unit_next=0
unit_report() {	# report the ended tests that come next in the list
	local rc secs t
	while [ $unit_next -lt ${#units[@]} ] && [ -e "$tmp/u.$unit_next.rc" ]; do
		t=${units[$unit_next]}
		read -r rc secs <"$tmp/u.$unit_next.rc"
		out=$tmp/u.$unit_next
		echo "=== unit: ${t#"$top"/}"
		# keep the log short on success, whole on failure
		if [ "$rc" -eq 0 ]; then grep -E '^(PASS|FAIL|RETRY) ' "$out"; else cat "$out"; fi
		retried=$((retried + $(grep -c '^RETRY ' "$out")))
		tally "unit/$(basename "$t")" "$rc"
		echo "    ($secs s)"
		unit_next=$((unit_next + 1))
	done
}
for ((i = 0; i < ${#units[@]}; i++)); do
	while [ "$(jobs -rp | wc -l)" -ge "$unit_jobs" ]; do
		wait -n
		unit_report
	done
	unit_run $i "${units[$i]}"
done
wait
unit_report
out=$tmp/out

# guest_suite KVER|default SHARE: every scenario on one kernel, one boot
# at a time, with SHARE (I/N) of their sweeps, adding to
# passed/failed/retried (out is the suite's own scratch file, so that
# lanes do not share one)
guest_suite() {
	local k=$1 s runner rc kopt=() out=$tmp/out.$1
	export RKM_SHARE=$2
	[ "$k" = default ] || kopt=(--kernel "$k")
	[ -n "$guest" ] && [ "$k" != default ] && echo "=== kernel $k (sweeps: share $2)"
	for s in $guest; do
		echo "=== guest: ${s#"$top"/}${kopt[1]:+ on $k}"
		# a scenario with a "# runner: PATH" header (PATH from the top
		# directory) is run by that program, which calls run-scenario.sh
		# itself and may report several tests
		runner=$(sed -n 's/^# runner: *\([^ ]*\).*/\1/p' "$s" | head -n 1)
		"$top/${runner:-tools/vm/run-scenario.sh}" "${kopt[@]}" "$s" >"$out"
		rc=$?
		cat "$out"
		retried=$((retried + $(grep -c '^RETRY ' "$out")))
		tally "guest${kopt[1]:+-$k}/$(basename "$s" .sh)" $rc
	done
}

# lane I KVER SHARE: one kernel's suite in the background, its output in
# $tmp/lane.I and its counts in $tmp/lane.I.n
lane() {
	: >"$tmp/lane.$1"	# before tail opens it
	(
		# shellcheck disable=SC2030 # the lane's own counts, read back below
		passed=0 failed=0 retried=0
		guest_suite "$2" "$3"
		echo "$passed $failed $retried" >"$tmp/lane.$1.n"
	) >"$tmp/lane.$1" 2>&1 &
	lane_pid[$1]=$!
}

# running: how many lanes have not ended
running() {
	local p n=0
	for p in "${lane_pid[@]}"; do kill -0 "$p" 2>/dev/null && n=$((n + 1)); done
	echo $n
}

# shellcheck disable=SC2086 # one word per kernel
set -- ${kernels:-default}
# share I: kernel I's share of the sweeps
share() { [ $full = 1 ] && echo 0/1 || echo "$1/$(($# - 1))"; }
if [ "$lanes" -eq 1 ] || [ $# -eq 1 ] || [ -z "$guest" ]; then
	i=0
	for k in "$@"; do guest_suite "$k" "$(share $i "$@")"; i=$((i + 1)); done
else
	lane_pid=() tail_pid=""
	trap 'kill "${lane_pid[@]}" 2>/dev/null; rm -rf "$tmp"' EXIT
	i=0
	for k in "$@"; do
		# at most $lanes suites at once: wait for one to end
		while [ "$(running)" -ge "$lanes" ]; do wait -n; done
		lane $i "$k" "$(share $i "$@")"
		if [ $i -eq 0 ]; then
			tail -n +1 -f --pid="${lane_pid[0]}" "$tmp/lane.0" &
			tail_pid=$!
		fi
		i=$((i + 1))
	done
	wait "${lane_pid[@]}"
	wait "$tail_pid"
	for ((j = 0; j < i; j++)); do
		[ $j -gt 0 ] && cat "$tmp/lane.$j"
		if [ -s "$tmp/lane.$j.n" ]; then
			read -r p f r <"$tmp/lane.$j.n"
		else
			echo "FAIL guest lane $j: ended without its counts"
			p=0 f=1 r=0
		fi
		# shellcheck disable=SC2031
		passed=$((passed + p)) failed=$((failed + f)) retried=$((retried + r))
	done
fi

[ $retried -gt 0 ] &&
	echo "note: $retried guest boot(s) crashed or hung before their scenario ran and were booted again (RETRY lines above)"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ] && [ "$passed" -gt 0 ]
