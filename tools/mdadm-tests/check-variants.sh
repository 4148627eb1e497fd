#!/bin/bash
# covers: mdadm: upstream tests at km
# Unit test (host, make check-unit) of tools/mdadm-tests against the
# mdadm source the build fetched: every variant of every test can be made
# (variants.sh checks each rewrite took), each is valid bash, a km variant
# differs from its raid6 one only where the level is concerned, and every
# numbered upstream test is either run or listed in excluded.list with a
# reason, so that a test new upstream is not silently left out.
#
# usage: check-variants.sh [MDADM_SOURCE]   (default build/mdadm/mdadm-4.2)
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
src=${1:-$top/build/mdadm/mdadm-4.2}
failed=0
pass() { echo "PASS mdadm-upstream/$1"; }
bad() { echo "FAIL mdadm-upstream/$1: $2"; failed=$((failed + 1)); }

if [ ! -f "$src/tests/func.sh" ]; then
	echo "FAIL mdadm-upstream/source: no mdadm test suite in $src (run make mdadm)"
	exit 1
fi
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

if msg=$("$here/variants.sh" "$src" "$out" all 2>&1); then
	pass variants
else
	bad variants "$msg"
fi

# each variant is bash the driver can source
n=0
f0=$failed
while read -r t l; do
	n=$((n + 1))
	bash -n "$out/$l/tests/$t" 2>/dev/null || bad "syntax/$l/$t" "bash -n fails"
done <"$out/plan"
[ "$n" -gt 0 ] || bad syntax "empty plan"
[ $failed = $f0 ] && pass "syntax ($n variants)"

# a km variant changes only lines with a level (and, per test, layouts
# and member lists): at most as many lines as the test has creates,
# checks and loops over levels or layouts
f0=$failed
while read -r t l; do
	[ "$l" = raid6 ] && continue
	d=$(diff "$out/raid6/tests/$t" "$out/$l/tests/$t" | grep -c '^>')
	c=$(grep -Ec 'mdadm|check|^ *for |^ *\[' "$out/raid6/tests/$t")
	[ "$d" -gt 0 ] && [ "$d" -le "$c" ] || bad "km-diff/$l/$t" "$d changed lines"
done <"$out/plan"
[ $failed = $f0 ] && pass km-diff

# every numbered upstream test is run or excluded, and not both
run=$("$here/variants.sh" --list | awk '{print $2}' | sort -u)
excl=$(grep -v '^#' "$here/excluded.list" | awk 'NF {print $1}')
missing="" both=""
for f in "$src"/tests/[0-9][0-9]*; do
	t=${f##*/}
	r=0 x=0
	echo "$run" | grep -qx -- "$t" && r=1
	for p in $excl; do
		# shellcheck disable=SC2254
		case $t in $p) x=1 ;; esac
	done
	[ $r = 0 ] && [ $x = 0 ] && missing="$missing $t"
	[ $r = 1 ] && [ $x = 1 ] && both="$both $t"
done
[ -z "$missing" ] && pass coverage || bad coverage "neither run nor in excluded.list:$missing"
[ -z "$both" ] && pass exclusions || bad exclusions "run and also excluded:$both"
# and every reason names an upstream test that exists
for p in $excl; do
	ls "$src"/tests/$p >/dev/null 2>&1 || bad "excluded/$p" "no such upstream test"
done
exit $((failed > 0))
