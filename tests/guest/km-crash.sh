# covers: km: unclean shutdown; km: write-intent bitmap
# Unclean shutdown for real: a km 4+2 array with an internal write-intent
# bitmap on six virtio disks takes a random-write stream when the guest
# is cut off (sysrq-b: no sync, no clean stop).  The next boot assembles
# the array from the same disks: md finds it dirty with some (not all)
# bitmap chunks dirty, resyncs those only, the bitmap ends clean, parity
# is consistent, and the data written before the last completed flush
# verifies.
# boots: 2
# disks: 6 16
# timeout: 240
. /lib/raidkm/lib.sh

N=6 M=2
devs="/dev/vda /dev/vdb /dev/vdc /dev/vdd /dev/vde /dev/vdf"
S=/sys/block/md0/md
for d in $devs; do [ -b $d ] || fail "no $d"; done
load_raidkm

A="--name=a --rw=write --bs=256k --size=24M --offset=0"
bits() {
	mdadm_km -X /dev/vda | sed -n 's/.*Bitmap : \([0-9]*\) bits.*, \([0-9]*\) dirty.*/\1 \2/p'
}

if [ "$RKM_PHASE" = 1 ]; then
	check mdadm_km --create /dev/md0 --run --assume-clean --level=km \
		--layout=m$M --raid-devices=$N --chunk=64 --bitmap=internal \
		--bitmap-chunk=256K --delay=1 $devs
	# A is on the members once fio's final fsync (a flush) completes
	fiov $A --end_fsync=1
	note "let the bitmap go clean"
	sleep 4
	echo "bitmap before the crash: $(bits)"
	note "random writes elsewhere, then a power cut"
	fio --filename=/dev/md0 --direct=1 --ioengine=libaio --iodepth=8 \
		--name=b --rw=randwrite --bs=4k --size=2M --offset=40M \
		--time_based --runtime=60 >/dev/null 2>&1 &
	sleep 3
	grep -q '^md0 : active' /proc/mdstat || fail "array not active"
	crash_guest
fi

note "boot $RKM_PHASE: the disks after the crash"
set -- $(bits)
total=$1 dirty=$2
echo "bitmap after the crash: $total bits, $dirty dirty"
mdadm_km --examine /dev/vda | grep -E 'State :|Events'
[ -n "$dirty" ] && [ "$dirty" -gt 0 ] || fail "no dirty bitmap chunk after the crash"
[ "$dirty" -lt "$total" ] || fail "every bitmap chunk dirty: nothing to prove"

note "assemble: resync of the dirty regions only"
dmesg -c >/dev/null
check mdadm_km --assemble /dev/md0 $devs
sleep 1
wait_sync md0
dmesg | grep -E 'md: (resync|md0)'
dmesg | grep -q 'md: resync of RAID array md0' || fail "no resync after the crash"
n=0
while set -- $(bits) && [ "$2" != 0 ] && [ $n -lt 20 ]; do sleep 1; n=$((n + 1)); done
[ "$2" = 0 ] || fail "bitmap still has $2 dirty chunks after resync"
fiov $A --verify_only
echo check >$S/sync_action
sleep 1
wait_sync md0
[ "$(cat $S/mismatch_cnt)" = 0 ] || fail "mismatch_cnt $(cat $S/mismatch_cnt) after the resync"
check mdadm_km --stop /dev/md0
echo PASS
