# covers: km: geometry validation in the kernel
# The kernel validates km geometry itself (not trusting mdadm): arrays
# assembled through md's sysfs interface with a bad layout word, m, k or
# chunk size, members too small, or members without room for the member
# log its layout asks for, are refused with a kernel message
# that names the problem; a valid one runs.
# timeout: 120
. /lib/raidkm/lib.sh
# a previous scenario of the same boot may have left ramdisks behind
rmmod brd 2>/dev/null

ramdisks 6 8
load_raidkm
M=/sys/block/md0/md

# attempt LAYOUT CHUNK_BYTES COMPONENT_KIB: 0 when the array ran
attempt() {
	echo md0 > /sys/module/md_mod/parameters/new_array 2>/dev/null
	echo none > $M/metadata_version || fail "metadata_version"
	echo km > $M/level || fail "level"
	echo $1 > $M/layout || fail "layout $1"
	echo $2 > $M/chunk_size || return 2
	echo 6 > $M/raid_disks || fail "raid_disks"
	i=0
	while [ $i -lt 6 ]; do
		echo 1:$i > $M/new_dev || fail "new_dev ram$i"
		echo $i > $M/dev-ram$i/slot || fail "slot"
		echo $3 > $M/dev-ram$i/size || fail "size"
		i=$((i + 1))
	done
	echo $3 > $M/component_size || fail "component_size"
	dmesg -c >/dev/null
	echo active > $M/array_state 2>/dev/null
	rc=$?
	grep -q '^md0 : active' /proc/mdstat && ran=1 || ran=0
	echo clear > $M/array_state 2>/dev/null
	[ $ran = 1 ] && [ $rc = 0 ] && return 0
	[ $ran = 1 ] && fail "array ran but array_state write failed"
	return 1
}

# refused LAYOUT CHUNK KIB "message"
refused() {
	attempt $1 $2 $3
	rc=$?
	[ $rc = 0 ] && fail "layout=$1 chunk=$2 size=$3 was accepted"
	[ $rc = 2 ] && { echo "md refused chunk $2 itself"; return; }
	dmesg | grep 'md/km:md0' | tail -1
	dmesg | grep -q "md/km:md0: $4" || fail "no message '$4' for layout=$1 chunk=$2"
}

note "valid 4+2 runs"
attempt 2 65536 4096 || fail "valid array refused: $(dmesg | grep md/km | tail -2)"
note "bad geometries are refused"
refused 770 65536 4096 "unknown parity rotation algorithm 3"
refused 1048578 65536 4096 "layout 0x100002 has reserved bits set"
# a member log (layout bits 16-19: 1 MiB) on members that hold only the data
refused 65538 65536 4096 "member ram[0-9] has no room for the member log"
refused 0 65536 4096 "m=0 parity chunks is out of range"
refused 17 65536 4096 "m=17 parity chunks is out of range"
refused 5 65536 4096 "6 members with m=5: need k >= 2"
refused 2 12288 4096 "chunk size 12 KiB must be a power of two"
refused 2 65536 32 "members are smaller than one 64 KiB chunk"
grep -q '^md0 : active' /proc/mdstat && fail "md0 active"
rmmod brd 2>/dev/null
echo PASS
