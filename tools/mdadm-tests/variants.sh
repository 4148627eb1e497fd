#!/bin/bash
# mdadm's upstream tests at md raid6 and at km: which tests run, at which
# levels, and how each one is rewritten for a level.  Nothing of the
# tests is kept in this repository: every variant is made at run time
# with sed from the mdadm source the build fetched (build/mdadm/mdadm-4.2,
# in the guest /usr/share/mdadm-tests).
#
# usage: variants.sh SRC OUT [ci|all|NAME...]   make the variants of the
#                                   CI set (default), of all, or of NAMEs
#        variants.sh --list         "NAME UPSTREAM SET LEVELS..." per test,
#                                   SET "ci" or "full"
#
# SRC is an mdadm source root (its "test" driver and tests/).  OUT gets a
# directory per level laid out as the driver wants it: OUT/LEVEL/test,
# OUT/LEVEL/mdadm (a link to $MDADM, default /sbin/mdadm), OUT/LEVEL/tests/
# with func.sh and the rewritten tests under their names here; and
# OUT/plan, "NAME LEVEL" per line (each test at
# every one of its levels in a row; guest-run.sh runs its km levels first).
#
# Levels:  raid6   md's raid6, the reference
#          km-m2   km with m=2 (--level=km --layout=m2)
#          km-m3   km with m=3, for tests with at least 5 members
#
# How a test becomes a variant:
#  0. every variant, whatever its level: "-r" and "-ro" are spelled
#     --remove and --readonly (COMMON below: mdadm 4.2 misreads them);
#  1. tests written for another level (raid1, raid5, a loop over levels)
#     are first made raid6 tests by their own sed script (r6 below): the
#     level, the member count and member lists, testdev's data-disk count
#     and chunk, and where raid6 differs in behaviour, the expectation
#     (each case says why);
#  2. a km variant is that raid6 test with every level option (-l6, -l 6,
#     -l raid6, --level=6, --level raid6, ...) replaced by "--level=km
#     --layout=mM" and "check raid6" by "check km", plus the test's own
#     km script (km below: layouts, member counts for m=3);
#  3. func.sh gets one change for every level: its "check" accepts "km"
#     as it accepts raid levels ("active km" in /proc/mdstat).
# Each variant is then checked: every create command carries the level's
# option and a km variant keeps no raid6 level option.  A check that
# fails (a sed that no longer matches a changed upstream test) stops with
# an error instead of running the wrong test.
#
# Upstream tests that are not run are in excluded.list beside this file,
# with the reason; tools/mdadm-tests/check-variants.sh (make check-unit)
# checks that every upstream test is either here or there.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
MDADM=${MDADM:-/sbin/mdadm}

# the tests in run order
TESTS="00raid6 00readonly 00names 01raid6integ 01r6fail 01replace 02r6grow
03r6assem-failed 03assem-incr 04update-uuid 04update-metadata 04r6update
05r6-bitmapfile 05r6-internalbitmap 05r6-internalbitmap-v1a
05r6-internalbitmap-v1b 05r6-add-internalbitmap 05r6-add-internalbitmap-v1a
05r6-add-internalbitmap-v1b 05r6-add-internalbitmap-v1c
05r6-remove-internalbitmap 05r6-remove-internalbitmap-v1a
05r6-remove-internalbitmap-v1b 05r6-remove-internalbitmap-v1c
05r6-grow-internal 05r6-grow-internal-1 05r6-grow-external 05r6-re-add
06name 06sysfs"

# the CI set ("make check"): 01raid6integ, every 04update-*/04r6update
# and the internal-bitmap tests, each bitmap test
# in one metadata form where its forms take long (05r6-internalbitmap,
# 05r6-grow-internal: about 45 s and 30 s per level, 0.90 and 1.x alike),
# 12 to 15 minutes of guest time (make check gives each kernel its share,
# CI_SHARE below); the others ("full") run with
# run-upstream.sh --all (make check-mdadm-upstream): the -v1a/-v1b forms
# of 05r6-internalbitmap, 05r6-grow-internal-1 and 05r6-grow-external
CI_TESTS="00raid6 00readonly 00names 01raid6integ 01r6fail 01replace
02r6grow 03r6assem-failed 03assem-incr 04update-uuid 04update-metadata
04r6update 05r6-bitmapfile 05r6-internalbitmap 05r6-add-internalbitmap
05r6-add-internalbitmap-v1a 05r6-add-internalbitmap-v1b
05r6-add-internalbitmap-v1c 05r6-remove-internalbitmap
05r6-remove-internalbitmap-v1a 05r6-remove-internalbitmap-v1b
05r6-remove-internalbitmap-v1c 05r6-grow-internal 05r6-re-add 06name
06sysfs"

# this kernel's share of the CI set (RKM_SHARE=I/N: the tests j with
# j % N == I, the rule of lib.sh's share, so that "make check" runs each
# CI test on one of its kernels; make check-full gives each kernel all)
CI_SHARE=$(echo $CI_TESTS | tr ' ' '\n' |
	awk -v s="${RKM_SHARE:-0/1}" 'BEGIN { split(s, f, "/") } (NR - 1) % f[2] == f[1]')

# every variant, raid6 and km alike: mdadm 4.2 (Debian's, so ours) reads
# "-r" as an option with an argument (its short option string says "r:",
# from "fix coredump of mdadm --monitor -r"), so "mdadm $md0 -r $dev"
# removes nothing and "mdadm -ro $md0" does not set read-only, both with
# exit status 0; the tests' -r and -ro are spelled --remove and --readonly
COMMON='s/^\([[:space:]]*mdadm .*\) -r \(\$[a-z]\)/\1 --remove \2/
s/^\([[:space:]]*\)mdadm -ro /\1mdadm --readonly /'

# tests that count dirty bitmap bits, every variant: md's bitmap daemon
# clears a bit one to two daemon periods (--delay) after the last write
# to its chunk, and these tests count the bits right after mkfs.ext3 and
# fsck, expecting at least 400 set, and again after "sleep 4", expecting
# none.  In the emulated guest, and more so with other guests on the
# host, mkfs takes 1-3 s, and bits it set early are cleared before the
# count (272 and 139 of 400 at raid6 and km, 6.1, load average 4): the
# daemon period and the waits are scaled for the guest, --delay=1 to 3
# and sleep 4 to 12 (measured: bits clear 2.1-2.4 s after the last
# write at --delay=1, 9.2-9.5 s at 3)
SLOW='s/--delay=1 /--delay=3 /
s/--delay=1$/--delay=3/
s/^sleep 4$/sleep 12/'

# raid1 pair over $dev1 $dev2 -> raid6 over $dev1..$dev4 (two data
# members, as the raid5 tests' three): the level and count, member lists
# that end a line (create, assemble), the lone survivor of "--assemble
# -R", and testdev's data-disk count 1 -> 2 and chunk 64 -> 512 (raid6's
# default chunk)
R1TO6='s/--level=1 -n2 /--level=6 -n4 /
s/-l 1 -n 2 /-l 6 -n 4 /
s/-l1 -n2 /-l6 -n4 /
s/ \$dev1 \$dev2$/ $dev1 $dev2 $dev3 $dev4/
s/--assemble -R \$md0  *\$dev2$/--assemble -R $md0 $dev2 $dev3 $dev4/
s/^testdev \$md0 1 \(\$[a-z0-9]*\) 64$/testdev $md0 2 \1 512/'

# spec NAME: from (the upstream test), levels, r6 (sed: upstream ->
# raid6), km (sed: extra for km levels; @M@ is m), km3 (sed: extra for
# m=3), slow (non-empty: the test counts dirty bits, SLOW applies)
spec() {
	from=$1 levels="raid6 km-m2" r6="" km="" km3="" slow=""
	case $1 in
	00raid6) ;;		# the 4-member array leaves k=1 at m=3
	00readonly)
		r6='s/^\([[:space:]]*\)for level in linear raid0 raid1 raid4 raid5 raid6 raid10$/\1for level in raid6/
s/-l \$level /-l raid6 /
s/check \$level$/check raid6/' ;;
	00names)
		r6='s/^for i in linear raid0 raid1 raid4 raid5 raid6$/for i in raid6/
s/ -l \$i / -l raid6 /
s/^  check \$i$/  check raid6/'
		km='s/^for i in raid6$/for i in km/' ;;
	01raid6integ)
		# raid6 in md's default layout only (left-symmetric, the one
		# km is compared with; the 12 others would take 12 times as
		# long); km has one layout per m, named by the level option
		levels="raid6 km-m2 km-m3"
		r6='s/^for layout in \$layouts$/for layout in ls/'
		km='s/^for layout in ls$/for layout in m@M@/
s/ --layout \$layout / /' ;;
	01r6fail)
		# raid6 creates with a resync where raid5 recovers onto its
		# last member, and keeps resyncing with one member failed
		# where raid5 must stop: "check resync" and "check wait" for
		# the first "check recovery" and "check nosync"
		from=01r5fail
		r6='s/-l5 -n4 /-l6 -n4 /
/-l6 -n4 /{n;s/^check recovery$/check resync/}
/--fail \$dev3$/{n;n;s/^check nosync$/check wait/}' ;;
	01replace)
		r6='s/^for level in 1 5 6 10$/for level in 6/
s/ -l \$level / -l 6 /' ;;
	02r6grow) ;;
	03r6assem-failed)
		from=03r5assem-failed levels="raid6 km-m2 km-m3"
		r6='s/-l5 -n4 /-l6 -n4 /'
		km3='s/-n4 \$dev0 \$dev1 \$dev2 \$dev3$/-n5 $dev0 $dev1 $dev2 $dev3 $dev4/
s/^mdadm -A \$md1 \$dev0 \$dev1 \$dev2 \$dev3 /mdadm -A $md1 $dev0 $dev1 $dev2 $dev3 $dev4 /' ;;
	03assem-incr)
		levels="raid6 km-m2 km-m3"
		r6='s/^for l in 0 1 5 linear$/for l in 6/
s/ -l \$l / -l 6 /' ;;
	04update-uuid)
		r6='s/ -l5 -n3 \$dev0 \$dev1 \$dev2$/ -l6 -n4 $dev0 $dev1 $dev2 $dev3/
s/\(--uuid=[0-9a-f:]*\) \$dev0 \$dev1 \$dev2$/\1 $dev0 $dev1 $dev2 $dev3/' ;;
	04update-metadata)
		r6='s|^for ls in raid0/4 linear/4 raid1/1 raid5/3 raid6/2$|for ls in raid6/2|
s/ --level \$l / --level raid6 /' ;;
	04r6update)
		from=04r1update
		r6='s/ -l1 -n2 \$dev0 \$dev1$/ -l6 -n4 $dev0 $dev1 $dev2 $dev3/
s/ \$dev0 \$dev1$/ $dev0 $dev1 $dev2 $dev3/' ;;
	05r6-bitmapfile) slow=1 ;;
	05r6-internalbitmap)
		from=05r5-internalbitmap slow=1
		r6='s/--level=5 -n3 \(.*\) \$dev1 \$dev2 \$dev3$/--level=6 -n4 \1 $dev1 $dev2 $dev3 $dev4/
s/^mdadm --assemble \$md0 \$dev1 \$dev2 \$dev3$/mdadm --assemble $md0 $dev1 $dev2 $dev3 $dev4/
s/^mdadm --assemble -R \$md0  *\$dev2 \$dev3$/mdadm --assemble -R $md0 $dev2 $dev3 $dev4/' ;;
	05r6-internalbitmap-v1a|05r6-internalbitmap-v1b|05r6-grow-internal|\
	05r6-grow-internal-1|05r6-grow-external)
		from=05r1-${1#05r6-} r6=$R1TO6 slow=1 ;;
	05r6-add-internalbitmap*|05r6-remove-internalbitmap*)
		from=05r1-${1#05r6-} r6=$R1TO6 ;;
	05r6-re-add)
		# raid1's halves compared with cmp become raid6's parity
		# check: md's "check" with mismatch_cnt 0
		from=05r1-re-add
		r6="$R1TO6"'
s|^cmp --ignore-initial=.*$|echo check > /sys/block/md0/md/sync_action; check wait; [ "$(cat /sys/block/md0/md/mismatch_cnt)" = 0 ]|' ;;
	06name)
		r6='s/ -l0 -n2 \(.*\) \$dev0 \$dev1$/ -l6 -n4 \1 $dev0 $dev1 $dev2 $dev3/' ;;
	06sysfs)
		# upstream disables this test (its first line is "exit 0");
		# its body runs here, at raid6 over 4 members, with the
		# level and raid_disks it prints checked
		r6='/^exit [01]$/d
s/ -l1 -n3 \$dev1 \$dev2 \$dev3$/ -l6 -n4 $dev1 $dev2 $dev3 $dev4/
s|^cat /sys/block/md0/md/level$|[ "$(cat /sys/block/md0/md/level)" = raid6 ]|
s|^cat /sys/block/md0/md/raid_disks$|[ "$(cat /sys/block/md0/md/raid_disks)" = 4 ]|'
		km='s/) = raid6 \]$/) = km ]/' ;;
	*) return 1 ;;
	esac
}

# the raid6 level options, and the km replacement
R6OPT='(-l ?|--level[= ])(raid)?6([[:space:]]|$)'
CREATE='^[[:space:]]*mdadm[[:space:]](.*[[:space:]])?(-C[A-Za-z]*|--create)([[:space:]]|$)'

die() { echo "variants: $*" >&2; exit 1; }

# variant NAME LEVEL SRC OUT: write OUT/LEVEL/tests/NAME
variant() {
	local name=$1 level=$2 in=$3/tests/$from out=$4/$2/tests/$1 m opt n
	local common=$COMMON
	[ -f "$in" ] || die "$name: no upstream test $in"
	[ -n "$slow" ] && common="$COMMON
$SLOW"
	if [ "$level" = raid6 ]; then
		sed -e "$common" -e "$r6" "$in" >"$out"
		n=$(grep -Ec "$CREATE" "$out" || true)
		[ "$n" -gt 0 ] || die "$name: no create command"
		grep -E "$CREATE" "$out" | grep -Evq "[[:space:]]$R6OPT" &&
			die "$name: a create command without raid6 after rewriting $from"
	else
		m=${level#km-m}
		opt="--level=km --layout=m$m"
		sed -e "$common" -e "$r6" "$in" |
			sed -E -e "s/(^|[[:space:]])$R6OPT/\\1$opt\\4/g" -e 's/check raid6/check km/g' |
			sed -e "${km//@M@/$m}" -e "$([ "$m" = 3 ] && echo "$km3")" >"$out"
		grep -E "$CREATE" "$out" | grep -Fvq -- "$opt" &&
			die "$name: a create command without $opt after rewriting $from"
		grep -Eq "[[:space:]]$R6OPT|check raid6" "$out" &&
			die "$name: a raid6 level is left in the $level variant"
	fi
	if [ -n "$slow" ]; then
		grep -q -- '--delay=3' "$out" && ! grep -q '^sleep 4$' "$out" ||
			die "$name: the bitmap daemon's period or the waits were not scaled"
	fi
	grep -Eq '^[[:space:]]*mdadm .* -r( |$)|mdadm -ro ' "$out" &&
		die "$name: an \"-r\" is left (mdadm 4.2 would take its next word as an argument)"
	return 0
}

if [ "${1:-}" = --list ]; then
	for t in $TESTS; do
		spec "$t"
		set=full
		[[ " ${CI_SHARE//$'\n'/ } " == *" $t "* ]] && set=ci
		echo "$t $from $set $levels"
	done
	exit 0
fi

[ $# -ge 2 ] || { sed -n '2,/^set -euo/p' "$0" | sed '$d'; exit 2; }
src=$1 out=$2
shift 2
[ -f "$src/test" ] && [ -f "$src/tests/func.sh" ] || die "no mdadm test suite in $src"
case "${*:-ci}" in
ci) names=$CI_SHARE ;;
all) names=$TESTS ;;
*) names=$* ;;
esac
for l in raid6 km-m2 km-m3; do
	mkdir -p "$out/$l/tests"
	cp "$src/test" "$out/$l/test"
	ln -sf "$MDADM" "$out/$l/mdadm"
	sed 's/^\([[:space:]]*\)raid\* | linear )$/\1raid* | linear | km )/' "$src/tests/func.sh" >"$out/$l/tests/func.sh"
	grep -q 'raid\* | linear | km )' "$out/$l/tests/func.sh" || die "func.sh: check() not rewritten"
done
: >"$out/plan"
for t in $names; do
	spec "$t" || die "unknown test $t (variants.sh --list)"
	for l in $levels; do
		variant "$t" "$l" "$src" "$out"
		echo "$t $l" >>"$out/plan"
	done
done
