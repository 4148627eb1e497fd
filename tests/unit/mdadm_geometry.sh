#!/bin/sh
# covers: mdadm: geometry checks
# Unit test of the km option handling in the project's mdadm (host side):
# bad km geometries must be refused with a message naming the limit, exit
# status 2, before any device is opened; good ones must pass the checks.
# No md device is ever created: every "good" case lists one device too few,
# so Create stops at its device count check, after the geometry checks.
#
# usage: mdadm_geometry.sh [MDADM]   (default: build/mdadm/mdadm)
top=$(cd "$(dirname "$0")/../.." && pwd)
mdadm=${1:-${MDADM_BIN:-$top/build/mdadm/mdadm}}
md=/dev/md/rkm-unit-nonexistent

if [ ! -x "$mdadm" ]; then
	echo "FAIL mdadm_geometry: no mdadm binary at $mdadm (run make mdadm)"
	exit 1
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failed=0

# 70 member files of 64 KiB of zeros, and a reference copy
head -c 65536 /dev/zero >"$tmp/zero"
i=0
while [ $i -lt 70 ]; do
	head -c 65536 /dev/zero >"$tmp/d$i"
	i=$((i + 1))
done
files() {	# files N: the first N member files
	j=0
	while [ $j -lt "$1" ]; do
		printf '%s ' "$tmp/d$j"
		j=$((j + 1))
	done
}

pass() { echo "PASS $1"; }
bad() { echo "FAIL $1: $2"; failed=$((failed + 1)); }

# refuse NAME "EXPECTED MESSAGE" MDADM-ARGS... : exit 2 and the message
refuse() {
	name=$1 want=$2
	shift 2
	mode=$1
	shift
	cfg=--config=/dev/null
	[ "$mode" = --build ] && cfg=""	# --build reads no config
	"$mdadm" "$mode" $cfg "$@" >"$tmp/out" 2>&1 </dev/null
	rc=$?
	if [ $rc -ne 2 ]; then
		bad "$name" "exit status $rc, want 2; output: $(cat "$tmp/out")"
	elif ! grep -qF -- "$want" "$tmp/out"; then
		bad "$name" "message lacks '$want'; output: $(cat "$tmp/out")"
	else
		pass "$name"
	fi
}

# accept NAME MDADM-ARGS... : gets past the km checks to the device count
accept() {
	name=$1
	shift
	mode=$1
	shift
	"$mdadm" "$mode" --config=/dev/null "$@" >"$tmp/out" 2>&1 </dev/null
	rc=$?
	if grep -q 'km' "$tmp/out"; then
		bad "$name" "km check refused a valid geometry: $(cat "$tmp/out")"
	elif ! grep -q "haven't given enough devices" "$tmp/out"; then
		bad "$name" "did not reach the device count check (rc=$rc): $(cat "$tmp/out")"
	else
		pass "$name"
	fi
}

C="--create $md --level=km"	# refuse/accept put --config after --create
refuse m0-refused "m must be between 1 and 16" \
	$C --layout=m0 --raid-devices=8 $(files 8)
refuse m17-refused "m must be between 1 and 16" \
	$C --layout=m17 --raid-devices=20 $(files 20)
refuse m999-refused "m must be between 1 and 16" \
	$C --layout=m999 --raid-devices=20 $(files 20)
refuse k1-refused "k must be at least 2" \
	$C --layout=m3 --raid-devices=4 $(files 4)
refuse k1-default-m2-refused "with m=2 leaves k=1 data devices: k must be at least 2" \
	$C --raid-devices=3 $(files 3)
refuse km65-refused "k+m must be at most 64" \
	$C --layout=m3 --raid-devices=65 $(files 65)
refuse km65-m16-refused "k+m must be at most 64" \
	$C --layout=m16 --raid-devices=65 $(files 65)
refuse layout-syntax-refused "layout for km must be 'mNN'" \
	$C --layout=left-symmetric --raid-devices=8 $(files 8)
refuse layout-empty-m-refused "layout for km must be 'mNN'" \
	$C --layout=m --raid-devices=8 $(files 8)
refuse layout-negative-refused "layout for km must be 'mNN'" \
	$C --layout=m-1 --raid-devices=8 $(files 8)
refuse layout-rotation-suffix-refused "layout for km must be 'mNN' or 'mNN-raid6'" \
	$C --layout=m2-raid5 --raid-devices=8 $(files 8)
refuse metadata-ddf-refused "km arrays need 1.x or 0.90 metadata, not ddf" \
	$C --metadata=ddf --layout=m2 --raid-devices=4 $(files 4)
# 0.90 metadata: at most 27 members (spares included), members below 4 TiB
refuse metadata-0.90-28-refused "0.90 metadata holds at most 27 members, not 28 raid-devices; use --metadata=1.2" \
	$C --metadata=0.90 --layout=m2 --raid-devices=28 $(files 28)
refuse metadata-0.90-26+2-refused "0.90 metadata holds at most 27 members, not 28 (26 raid-devices + 2 spares)" \
	$C --metadata=0.90 --raid-devices=26 --spare-devices=2 $(files 28)
refuse metadata-0.90-4T-refused "0.90 metadata holds members of less than 4 TiB, not --size=4294967296K" \
	$C --metadata=0.90 --raid-devices=4 --size=4T $(files 4)
refuse metadata-0.90-km65-refused "k+m must be at most 64" \
	$C --metadata=0.90 --layout=m3 --raid-devices=65 $(files 65)
refuse log-size-not-pow2-refused "member log size 3M is not valid" \
	$C --layout=m2,log=3M --raid-devices=6 $(files 6)
refuse log-size-too-big-refused "member log size 32G is not valid" \
	$C --layout=m2,log=32G --raid-devices=6 $(files 6)
refuse log-suffix-refused "optionally followed by ',log' or ',log=SIZE'" \
	$C --layout=m2,logx --raid-devices=6 $(files 6)
refuse log-with-journal-refused "give one of them, not both" \
	$C --layout=m2,log --raid-devices=6 --write-journal $tmp/d69 $(files 6)
refuse build-refused "not permitted with --build" \
	--build $md --level=km --raid-devices=4 $(files 4)
refuse unknown-level-still-refused "invalid raid level: kmx" \
	--create $md --level=kmx --raid-devices=4 $(files 4)

# the refusals above must not have written anything to any member
i=0 dirty=""
while [ $i -lt 70 ]; do
	cmp -s "$tmp/d$i" "$tmp/zero" || dirty="$dirty d$i"
	i=$((i + 1))
done
if [ -n "$dirty" ]; then
	bad members-untouched "member files changed:$dirty"
else
	pass members-untouched
fi

accept m3-k5-accepted $C --layout=m3 --raid-devices=8 $(files 7)
accept m1-k2-accepted $C --layout=m1 --raid-devices=3 $(files 2)
accept m16-k2-accepted $C --layout=m16 --raid-devices=18 $(files 17)
accept m16-k48-accepted $C --layout=m16 --raid-devices=64 $(files 63)
accept default-m2-k2-accepted $C --raid-devices=4 $(files 3)
accept uppercase-M-accepted $C -p M4 --raid-devices=6 $(files 5)
accept raid6-rotation-accepted $C --layout=m2-raid6 --raid-devices=6 $(files 5)
accept log-accepted $C --layout=m2,log=4M --raid-devices=6 $(files 5)
accept raid6-rotation-log-accepted $C --layout=m2-raid6,log --raid-devices=6 $(files 5)
accept metadata-0.90-accepted $C --metadata=0.90 --raid-devices=6 $(files 5)
accept metadata-0.90-27-accepted $C --metadata=0.90 -p m3 --raid-devices=27 $(files 26)
accept metadata-0.90-25+2-accepted $C -e 0.90 --raid-devices=25 --spare-devices=2 $(files 26)
accept metadata-0.90-size-accepted $C -e 0.90 --raid-devices=4 --size=4194303M $(files 3)

# the level name and layout syntax are in the help
if "$mdadm" --create --help 2>&1 | grep -q 'for km (k data + m parity devices): mNN'; then
	pass help-mentions-km
else
	bad help-mentions-km "mdadm --create --help does not describe km"
fi

exit $((failed != 0))
