#!/bin/bash
# In the guest: run mdadm's upstream tests at each level variants.sh
# gives them, with mdadm's own driver ("test") and library (func.sh), on
# loop devices, and print one line per test and level:
#
#   MDT-RESULT LEVEL NAME PASS|FAIL|SKIP SECONDS [why]
#
# (SKIP: a raid6 reference run the CI set leaves out, see REF_ALWAYS)
# and for a failure its trace, between MDT-LOG-BEGIN LEVEL NAME and
# MDT-LOG-END.  The host side (run-upstream.sh) turns these into PASS/FAIL
# lines.  Exits non-zero only when the suite could not be run at all.
#
# usage: guest-run.sh [ci|all|NAME...]   (default: the CI set, see
#                                        variants.sh)
#
# What the guest provides for the driver (no udev, busybox): bash and the
# real mkfs.ext3/fsck/lsblk/blockdev/losetup (tools/vm/mkimage.sh); here a
# "udevadm" that does nothing (there is no udev event queue to settle;
# mdadm makes /dev/mdX itself when /run/udev is absent), the md
# personalities loaded (no udev to load them on demand) and /var/tmp on
# ext4 on the scenario's virtio disk.  The driver wants member files of 20000 KiB (64 MiB from
# the 9th on) in /var/tmp and creates only those that are missing: they
# are made sparse here, fresh before each test.
#
# Each test runs in its own driver invocation ("./test --tests=NAME"),
# which sets up the loop devices, cleans up and tears them down as upstream
# does; the driver fails a test whose script fails and one after which
# dmesg holds "error", "call trace" or "segfault".  A test that runs
# longer than MDT_TEST_TIMEOUT seconds (default 600) is killed with its
# whole process group and fails.
set -u
set -m		# each driver in a process group of its own (run kills it whole)

here=$(cd "$(dirname "$0")" && pwd)
src=${MDT_SRC:-/usr/share/mdadm-tests}
work=/tmp/mdadm-upstream
limit=${MDT_TEST_TIMEOUT:-600}

rm -rf "$work"
mkdir -p "$work/bin" "$work/logs"
"$here/variants.sh" "$src" "$work" "$@" || { echo "MDT-ERROR: variants.sh failed"; exit 2; }

printf '#!/bin/sh\n# no udev in this guest: nothing to wait for\nexit 0\n' >"$work/bin/udevadm"
chmod +x "$work/bin/udevadm"
export PATH=$work/bin:/sbin:/usr/sbin:/bin:/usr/bin
for m in loop crc32c_generic raid456 raidkm ext4; do
	modprobe $m || { echo "MDT-ERROR: modprobe $m failed"; exit 2; }
done
# /var/tmp, where the driver keeps member files and the tests their
# bitmap files: ext4 on the scenario's virtio disk (md's file bitmaps need
# a file system that maps file blocks, which tmpfs does not)
[ -b /dev/vda ] || { echo "MDT-ERROR: no /dev/vda (the scenario's '# disks:' header)"; exit 2; }
mkdir -p /var/tmp
mkfs.ext4 -q -F -O ^has_journal /dev/vda && mount -o noatime /dev/vda /var/tmp ||
	{ echo "MDT-ERROR: cannot make /var/tmp on /dev/vda"; exit 2; }

# the console keeps warnings and worse; md's notices stay in dmesg, which
# the driver saves for a failing test
dmesg -n 5

# members: fresh sparse files for the driver's 14 loop devices
members() {
	local d sz
	rm -f /var/tmp/mdtest*
	for d in $(seq 0 13); do
		sz=20000
		[ "$d" -gt 7 ] && sz=65536
		truncate -s ${sz}K /var/tmp/mdtest$d
	done
}

# leftovers of a test that was killed: arrays, then loop devices
scrub() {
	local l
	mdadm -Ss >/dev/null 2>&1
	for l in /sys/block/loop*; do
		[ -e "$l/loop/backing_file" ] && losetup -d /dev/${l##*/} 2>/dev/null
	done
}

# run NAME LEVEL: one test in a driver of its own; sets $why on failure
run() {
	local name=$1 level=$2 pid spid rc
	why=""
	(cd "$work/$level" && exec ./test --tests="$name" --save-logs \
		--logdir="$work/logs/$level") </dev/null >"$work/out" 2>&1 &
	pid=$!
	sleep "$limit" &
	spid=$!
	wait -n $pid $spid
	if kill -0 $pid 2>/dev/null; then
		why="killed after ${limit}s"
		kill -TERM -- -$pid 2>/dev/null
		sleep 5
		kill -KILL -- -$pid 2>/dev/null
	fi
	kill $spid 2>/dev/null
	wait $pid
	rc=$?
	wait $spid 2>/dev/null
	[ -n "$why" ] && return 1
	if [ $rc -ne 0 ]; then
		why="driver exit status $rc"
		grep -q 'dmesg prints errors' "$work/out" && why="dmesg holds an error"
		return 1
	fi
	grep -q 'succeeded$' "$work/out" || { why="driver did not report success"; return 1; }
	return 0
}

# report NAME LEVEL: the trace of a failed test, up to the driver's own
# log saving, and the kernel log and /proc/mdstat the driver saved
report() {
	local log=$work/logs/$2/$1.log fail=$work/logs/$2/fail$1.log
	echo "MDT-LOG-BEGIN $2 $1"
	grep -v '^$' "$work/out" | grep -v '^Testing on\|^Saving logs' | tail -n 3
	if [ -f "$log" ]; then
		echo "--- test trace, last lines ($log)"
		sed '/^+* save_log fail$/,$d' "$log" | tail -n 30
	fi
	echo "--- kernel log, last lines"
	if [ -f "$fail" ]; then
		awk '/^## .*saving dmesg/ { n++; next } /^## / { if (n == 1) exit } n == 1' "$fail" |
			tail -n 20 | sed 's/^/  /'	# (the host drops lines that start with "[")
		echo "--- /proc/mdstat"
		awk '/^## .*saving proc mdstat/ { n++; next } /^## / { if (n == 1) exit } n == 1' "$fail"
	else
		dmesg | tail -n 20 | sed 's/^/  /'
		echo "--- /proc/mdstat"
		cat /proc/mdstat
	fi
	echo "MDT-LOG-END $2 $1"
}

# one: NAME LEVEL: run one test at one level and print its result; fails
# when the test failed
one() {
	local t0
	members
	t0=$(date +%s)
	if run "$1" "$2"; then
		echo "MDT-RESULT $2 $1 PASS $(($(date +%s) - t0))"
		return 0
	fi
	echo "MDT-RESULT $2 $1 FAIL $(($(date +%s) - t0)) $why"
	report "$1" "$2"
	scrub
	return 1
}

# The raid6 reference runs after the test's km runs: always for "all"
# and for named tests.  For the CI set (no argument or "ci") it is needed
# only to judge a km failure (run-upstream.sh counts a failure that raid6
# shares as not km's), so it runs only when a km run failed, and for the
# tests in REF_ALWAYS whatever km did, so that our mdadm patch is still
# seen to leave raid6's create, grow, fail and metadata paths as they
# were.  A raid6 run left out prints "MDT-RESULT raid6 NAME SKIP 0 km
# passed".  This takes about 10 minutes off each kernel's CI lane.
REF_ALWAYS=" 00raid6 01r6fail 02r6grow 04update-metadata "
lazy=0
case ${1:-ci} in ci) [ $# -le 1 ] && lazy=1 ;; esac

note=""
[ $lazy = 1 ] && note=", raid6 only where km fails and for$REF_ALWAYS"
echo "MDT-START $(wc -l <"$work/plan") runs: $(awk '{print $1}' "$work/plan" | sort -u | wc -l) tests$note"
# each test's km runs, then its raid6 run unless the CI set leaves it out
for name in $(awk '!seen[$1]++ { print $1 }' "$work/plan"); do
	kmfail=0 ref=0
	for level in $(awk -v n="$name" '$1 == n { print $2 }' "$work/plan"); do
		case $level in
		raid6) ref=1 ;;
		*) one "$name" "$level" || kmfail=1 ;;
		esac
	done
	[ $ref = 1 ] || continue
	if [ $lazy = 0 ] || [ $kmfail = 1 ] ||
	   [ "${REF_ALWAYS#* "$name" }" != "$REF_ALWAYS" ]; then
		one "$name" raid6
	else
		echo "MDT-RESULT raid6 $name SKIP 0 km passed"
	fi
done
echo "MDT-DONE"
dmesg -n 7
exit 0
