#!/bin/bash
# Host side of mdadm's upstream tests in the guest: boot the scenario
# tests/guest/mdadm-upstream.sh with tools/vm/run-scenario.sh, read the
# guest's results from the console log and report every test and level:
#
#   PASS guest-6.12/mdadm-upstream/raid6/00raid6
#   FAIL guest-6.12/mdadm-upstream/km-m2/01replace: WHY (see LOG)
#
# (tests/run-tests.sh counts them), then a table of each test at raid6
# against km.  Exits non-zero when km fails a test that raid6 passes, when
# a test has no result (the guest died or timed out), or when
# run-scenario.sh failed the scenario itself (a kernel warning, ...); a
# test that fails at raid6 is reported but is not km's failure.
#
# usage: run-upstream.sh [--kernel KVER] [--all | --tests "NAME..."]
#                        [--logdir DIR] [SCENARIO]
#   SCENARIO  default tests/guest/mdadm-upstream.sh; tests/run-tests.sh
#             calls this script for it (its "# runner:" header)
#   (default) the CI set (variants.sh: CI_TESTS, 8 to 10 minutes), or
#             this kernel's share of it under RKM_SHARE (make check): a
#             test's raid6 reference runs only when km fails it, and for
#             the few tests guest-run.sh's REF_ALWAYS names
#   --all     every test (20 to 30 minutes per kernel)
#   --tests   these tests (names as "tools/mdadm-tests/variants.sh --list"
#             prints them)
set -uo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
kver=${KVER:-$(ls /lib/modules 2>/dev/null | grep -E '^6\.1\.[0-9]+-[0-9]+-amd64$' | sort -V | tail -n 1)}
tests="" logdir=${RKM_LOGDIR:-} scenario=$top/tests/guest/mdadm-upstream.sh
while [ $# -gt 0 ]; do
	case $1 in
	--kernel) kver=$2; shift ;;
	--tests) tests=$2; shift ;;
	--all) tests=all ;;
	--logdir) logdir=$2; shift ;;
	-h|--help) sed -n '2,/^set -uo/p' "$0" | sed '$d'; exit 0 ;;
	-*) echo "run-upstream: unknown option $1" >&2; exit 2 ;;
	*) scenario=$1 ;;
	esac
	shift
done
logdir=${logdir:-$top/build/vm/logs/$kver}
tag=guest-$(echo "$kver" | sed -E 's/^([0-9]+\.[0-9]+).*/\1/')
name=$(basename "$scenario" .sh)
log=$logdir/$name.log
mkdir -p "$logdir"

# the plan, as the guest makes it: "NAME LEVEL" per run
plan=$(mktemp)
work=$(mktemp -d)
trap 'rm -rf "$plan" "$work"' EXIT
"$top/tools/mdadm-tests/variants.sh" --list | awk -v want=" $tests " '
	want == "  " && $3 != "ci" { next }
	want != "  " && want != " all " && !index(want, " " $1 " ") { next }
	{ for (i = 4; i <= NF; i++) print $1, $i }' >"$plan"
for t in $tests; do
	[ "$t" = all ] || grep -q "^$t " "$plan" || { echo "run-upstream: unknown test $t" >&2; exit 2; }
done

# other tests than the CI set go to the guest in a copy of the scenario,
# with 30 s per run of its plan added to its time limit (--all: 2100 +
# 30 * 63 s, 67 minutes, for 21 to 27 measured)
if [ -n "$tests" ]; then
	t=$(sed -n 's/^# timeout: *\([0-9]*\).*/\1/p' "$scenario" | head -n 1)
	sed -e "s/^tests=\"\"/tests=\"$tests\"/" \
	    -e "s/^# timeout: .*/# timeout: $((${t:-600} + 30 * $(wc -l <"$plan")))/" \
		"$scenario" >"$work/$name.sh"
	scenario=$work/$name.sh
fi

start=$(date +%s)
"$top/tools/vm/run-scenario.sh" --kernel "$kver" --logdir "$logdir" "$scenario" >"$work/verdict" 2>&1
status=$?
secs=$(($(date +%s) - start))
grep -v '^    (' "$work/verdict"

# the guest's lines, without carriage returns
tr -d '\r' <"$log" 2>/dev/null | grep -v '^\[' >"$work/console"
result() {	# result LEVEL NAME: "PASS|FAIL SECONDS [WHY]" or nothing
	sed -n "s/.*MDT-RESULT $1 $2 \(PASS\|FAIL\|SKIP\) \(.*\)$/\1 \2/p" "$work/console" | tail -n 1
}

declare -A res
regress=() missing=0 skipped=0
while read -r t l; do
	r=$(result "$l" "$t")
	res[$t/$l]=${r:-NONE}
	set -- $r
	if [ -z "$r" ]; then
		echo "FAIL $tag/$name/$l/$t: no result (the guest died or timed out, see $log)"
		missing=$((missing + 1))
	elif [ "$1" = PASS ]; then
		echo "PASS $tag/$name/$l/$t"
	elif [ "$1" = SKIP ]; then
		skipped=$((skipped + 1))
	else
		echo "FAIL $tag/$name/$l/$t: ${*:3} (see $log)"
		sed -n "/^MDT-LOG-BEGIN $l $t\$/,/^MDT-LOG-END $l $t\$/p" "$work/console" |
			sed '1d;$d' | sed 's/^/    | /'
	fi
done <"$plan"

# the table: each test at raid6 and at km
cell() {
	case ${res[$1]:-} in
	"") printf '%-10s' - ;;
	NONE) printf '%-10s' none ;;
	*) set -- ${res[$1]}; printf '%-10s' "$1 $2" ;;
	esac
}
echo "    mdadm-upstream on $tag: result and seconds per test and level"
printf '    %-34s%-10s%-10s%-10s\n' test raid6 km-m2 km-m3
for t in $(awk '{print $1}' "$plan" | uniq); do
	printf '    %-34s%s%s%s\n' "$t" "$(cell "$t/raid6")" "$(cell "$t/km-m2")" "$(cell "$t/km-m3")"
	r6=${res[$t/raid6]:-}
	for l in km-m2 km-m3; do
		[ "${r6%% *}" = PASS ] && [ -n "${res[$t/$l]:-}" ] && [ "${res[$t/$l]%% *}" != PASS ] &&
			regress+=("$t ($l)")
	done
done
[ $skipped -gt 0 ] &&
	echo "    $skipped raid6 reference runs left out because km passed them (--tests or --all runs every one)"
echo "    guest time: ${secs} s (boot to power-off, log $log)"
if [ ${#regress[@]} -gt 0 ]; then
	echo "    km fails where raid6 passes: ${regress[*]}"
	status=1
fi
[ $missing -gt 0 ] && status=1
exit $status
