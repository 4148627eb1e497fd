#!/bin/bash
# raidkm test runner: user-space unit tests, then guest scenarios.
# Prints PASS/FAIL per test and ends with "N passed, N failed".
#
# usage: run-tests.sh [--unit "PROG..."] [--kernels "KVER..."]
#                     [--guest "SCENARIO..."]
# Guest scenarios run once per kernel (default: run-scenario.sh's), the
# newest kernel first; each kernel's guest image must have been built
# (make vm-images).
set -uo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
unit="" guest="" kernels=""
while [ $# -gt 0 ]; do
	case $1 in
	--unit) unit=$2; shift ;;
	--guest) guest=$2; shift ;;
	--kernels) kernels=$2; shift ;;
	*) echo "run-tests: unknown argument $1" >&2; exit 2 ;;
	esac
	shift
done

passed=0 failed=0 retried=0
out=$(mktemp)
trap 'rm -f "$out"' EXIT

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

for t in $unit; do
	echo "=== unit: ${t#"$top"/}"
	start=$(date +%s)
	"$t" >"$out" 2>&1
	rc=$?
	# keep the log short on success, whole on failure
	if [ $rc -eq 0 ]; then grep -E '^(PASS|FAIL) ' "$out"; else cat "$out"; fi
	tally "unit/$(basename "$t")" $rc
	echo "    ($(($(date +%s) - start)) s)"
done

# the guest suite on each kernel in turn
for k in ${kernels:-default}; do
	kopt=()
	[ "$k" = default ] || kopt=(--kernel "$k")
	[ -n "$guest" ] && [ "$k" != default ] && echo "=== kernel $k"
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
done

[ $retried -gt 0 ] &&
	echo "note: $retried guest boot(s) crashed before their scenario ran and were booted again (RETRY lines above)"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ] && [ "$passed" -gt 0 ]
