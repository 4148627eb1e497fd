#!/bin/bash
# raidkm test runner: user-space unit tests, then guest scenarios.
# Prints PASS/FAIL per test and ends with "N passed, N failed".
#
# usage: run-tests.sh [--unit "PROG..."] [--kernels "KVER..."]
#                     [--guest "SCENARIO..."] [--lanes N] [--full]
#                     [--unit-jobs N]
# The unit tests start first, up to N at a time (default: the number of
# CPUs), each reported whole, in list order; the guest jobs take the
# lanes as soon as every unit test has started, so that a core left by
# the short unit tests runs guests while the long ones end.
# Guest scenarios run once per kernel (default: run-scenario.sh's), the
# newest kernel first; each kernel's guest image must have been built
# (make vm-images).  Of a scenario's sweep (lib.sh's share: geometries,
# codec forms, upstream tests) kernel I of N runs the items j with
# j % N == I, so that each check runs every item once and every scenario
# on every kernel; --full runs every item on every kernel.
#
# --lanes N runs up to N guests at the same time.  Each scenario on each
# kernel is one job; free lanes take the jobs in list order, a scenario's
# kernels next to each other, so both kernels' suites end together.  An
# emulated guest keeps about one host core busy even with two vCPUs, so
# on a two-core host two lanes finish both kernels' suites in about 60%
# of the time of one (Documentation/testing.rst has the measurement).
# Each job's output is shown whole when it ends.
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

# The unit and package tests and the guest jobs share one pool of
# workers, so that no core idles while the long package tests (DKMS
# builds, the installed system's boots) end: the unit tests start first,
# in list order, up to $unit_jobs at a time; once every one has started,
# the guest jobs fill the pool up to $lanes at a time.  Each test's output
# goes to its own scratch file and is shown whole when it ends, the unit
# tests' in list order.
read -r -a units <<<"$unit"
unit_run() {	# I PROG: run unit test I in the background
	(
		t0=$(date +%s)
		"$2" >"$tmp/u.$1" 2>&1
		echo "$? $(($(date +%s) - t0))" >"$tmp/u.$1.tmp"
		mv "$tmp/u.$1.tmp" "$tmp/u.$1.rc"
	) &
}
t_start=$(date +%s)
t_unit=$t_start
unit_next=0 unit_shown=0 unit_secs=0
unit_report() {	# report the ended tests that come next in the list
	local rc secs t
	while [ $unit_shown -lt ${#units[@]} ] && [ -e "$tmp/u.$unit_shown.rc" ]; do
		t=${units[$unit_shown]}
		read -r rc secs <"$tmp/u.$unit_shown.rc"
		out=$tmp/u.$unit_shown
		echo "=== unit: ${t#"$top"/}"
		# keep the log short on success, whole on failure
		if [ "$rc" -eq 0 ]; then grep -E '^(PASS|FAIL|RETRY) ' "$out"; else cat "$out"; fi
		retried=$((retried + $(grep -c '^RETRY ' "$out")))
		tally "unit/$(basename "$t")" "$rc"
		echo "$secs unit ${t#"$top"/}" >>"$tmp/times"
		echo "    ($secs s)"
		unit_secs=$((unit_secs + secs))
		unit_shown=$((unit_shown + 1))
		t_unit=$(date +%s)
	done
}

# The guest scenarios, every one on every kernel: one job per scenario
# and kernel, taken in list order (the kernels' jobs of a scenario side by
# side) by up to $lanes workers, each running one guest at a time.
# Whichever worker is free takes the next job, so the kernels' suites
# end together whatever each one's share costs.
# shellcheck disable=SC2086 # one word per kernel
set -- ${kernels:-default}
# share I: kernel I's share of the sweeps
share() { [ $full = 1 ] && echo 0/1 || echo "$1/$(($# - 1))"; }
jobs_k=() jobs_sh=() jobs_s=()
i=0
for k in "$@"; do
	sh=$(share $i "$@")
	[ -n "$guest" ] && [ "$k" != default ] && echo "=== kernel $k (sweeps: share $sh)"
	i=$((i + 1))
done
for s in $guest; do
	i=0
	for k in "$@"; do
		jobs_k+=("$k") jobs_sh+=("$(share $i "$@")") jobs_s+=("$s")
		i=$((i + 1))
	done
done

# guest_run J: job J in the background (its output in $tmp/g.J, its exit
# status and seconds in $tmp/g.J.rc); a scenario with a "# runner: PATH"
# header (PATH from the top directory) is run by that program, which
# calls run-scenario.sh itself and may report several tests
guest_run() {
	local j=$1 k=${jobs_k[$1]} s=${jobs_s[$1]} runner kopt=() t0
	[ "$k" = default ] || kopt=(--kernel "$k")
	(
		t0=$(date +%s)
		echo "=== guest: ${s#"$top"/}${kopt[1]:+ on $k}"
		runner=$(sed -n 's/^# runner: *\([^ ]*\).*/\1/p' "$s" | head -n 1)
		RKM_SHARE=${jobs_sh[$j]} "$top/${runner:-tools/vm/run-scenario.sh}" "${kopt[@]}" "$s"
		echo "$? $(($(date +%s) - t0))" >"$tmp/g.$j.tmp"
		mv "$tmp/g.$j.tmp" "$tmp/g.$j.rc"
	) >"$tmp/g.$j" 2>&1 &
}
# guest_report: show and count every job that has ended and was not shown
guest_shown=() guest_secs=0
guest_report() {
	local j rc secs k s
	for ((j = 0; j < guest_next; j++)); do
		[ -n "${guest_shown[j]:-}" ] && continue
		[ -e "$tmp/g.$j.rc" ] || continue
		guest_shown[j]=1
		read -r rc secs <"$tmp/g.$j.rc"
		k=${jobs_k[$j]} s=${jobs_s[$j]}
		out=$tmp/g.$j
		cat "$out"
		retried=$((retried + $(grep -c '^RETRY ' "$out")))
		if [ "$k" = default ]; then k=guest; else k=guest-$k; fi
		tally "$k/$(basename "$s" .sh)" "$rc"
		echo "$secs $k ${s#"$top"/}" >>"$tmp/times"
		guest_secs=$((guest_secs + secs))
	done
}

# the pool: start the next job (a unit test while any is left to start,
# then a guest job) whenever fewer than its kind's limit run; report
# what ended each time a job ends
guest_next=0
running() { jobs -rp | wc -l; }
while [ $unit_next -lt ${#units[@]} ] || [ $guest_next -lt ${#jobs_s[@]} ]; do
	if [ $unit_next -lt ${#units[@]} ]; then
		cap=$unit_jobs
	else
		cap=$lanes
	fi
	while [ "$(running)" -ge "$cap" ]; do
		wait -n
		unit_report
		guest_report
	done
	if [ $unit_next -lt ${#units[@]} ]; then
		unit_run $unit_next "${units[$unit_next]}"
		unit_next=$((unit_next + 1))
	else
		guest_run $guest_next
		guest_next=$((guest_next + 1))
	fi
done
wait
unit_report
guest_report
out=$tmp/out

# where the time went (the CI log's tail shows this): each phase's
# seconds and the slowest tests, a unit or a scenario on one kernel
t_end=$(date +%s)
if [ -s "$tmp/times" ]; then
	# the phases overlap: the tests' wall time, when the last unit or
	# package test ended, and each kind's seconds summed over its tests
	sums="" done=""
	[ ${#units[@]} -gt 0 ] && sums="$unit_secs s unit and package tests, " &&
		done="unit and package tests done after $((t_unit - t_start)) s; "
	[ ${#jobs_s[@]} -gt 0 ] && sums="$sums$guest_secs s guest scenarios"
	echo "time: ${RKM_BUILD_SECONDS:+$RKM_BUILD_SECONDS s build (make check-build), }$((t_end - t_start)) s tests in $lanes lanes (${done}summed: ${sums%, }); the slowest:"
	sort -rn "$tmp/times" | head -n 12 | awk '{ printf "    %5d s  %s %s\n", $1, $2, $3 }'
fi
[ $retried -gt 0 ] &&
	echo "note: $retried guest boot(s) crashed or hung before their scenario ran and were booted again (RETRY lines above)"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ] && [ "$passed" -gt 0 ]
