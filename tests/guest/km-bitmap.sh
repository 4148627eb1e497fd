# Unclean shutdown with an internal write-intent bitmap, emulated in one
# boot: members are dm devices; in the middle of a write stream every
# member's table is swapped to dm-flakey "drop_writes", so nothing more
# reaches the disks (not the clean-shutdown superblock either), then the
# array is stopped and the tables swapped back.  Re-assembly must find
# the array dirty, with some but not all bitmap chunks dirty, resync just
# those, end with a clean bitmap and no mismatch, and the data written
# before the crash must verify.
# timeout: 240
. /lib/raidkm/lib.sh
# a previous scenario of the same boot may have left ramdisks behind
rmmod brd 2>/dev/null

N=6 M=2 MIB=16
ramdisks $N $MIB
check modprobe dm-mod
check modprobe dm-flakey
load_raidkm
S=/sys/block/md0/md
secs=$((MIB * 2048))

table() {	# table NAME linear|drop
	if [ "$2" = linear ]; then
		echo "0 $secs linear /dev/ram$1 0" >/tmp/t$1
	else
		echo "0 $secs flakey /dev/ram$1 0 0 3600 1 drop_writes" >/tmp/t$1
	fi
}
i=0
while [ $i -lt $N ]; do
	table $i linear
	check dmsetup create --noudevsync km$i /tmp/t$i
	i=$((i + 1))
done
dmsetup mknodes 2>/dev/null
devs=""
i=0
while [ $i -lt $N ]; do devs="$devs /dev/mapper/km$i"; i=$((i + 1)); done

fiov() {
	fio --filename=/dev/md0 --direct=1 --ioengine=libaio --verify=crc32c \
	    --verify_fatal=1 --iodepth=8 "$@" >/tmp/fio.out 2>&1 ||
		{ cat /tmp/fio.out; fail "fio $*"; }
}
A="--name=a --rw=write --bs=256k --size=32M --offset=0"

check mdadm_km --create /dev/md0 --run --assume-clean --level=km --layout=m$M \
	--raid-devices=$N --chunk=64 --bitmap=internal --bitmap-chunk=256K \
	--delay=1 $devs
fiov $A
note "let the bitmap go clean"
sleep 5
bits() {
	mdadm_km -X /dev/mapper/km0 | sed -n 's/.*Bitmap : \([0-9]*\) bits.*, \([0-9]*\) dirty.*/\1 \2/p'
}
echo "bitmap before crash: $(bits)"

note "write stream, then drop every write to every member"
fio --filename=/dev/md0 --direct=1 --ioengine=libaio --iodepth=8 \
	--name=b --rw=randwrite --bs=4k --size=2M --offset=40M --time_based \
	--runtime=30 >/dev/null 2>&1 &
fpid=$!
sleep 2
i=0
while [ $i -lt $N ]; do
	table $i drop
	check dmsetup load --noudevsync km$i /tmp/t$i
	i=$((i + 1))
done
i=0
while [ $i -lt $N ]; do
	check dmsetup suspend --noudevsync km$i
	check dmsetup resume --noudevsync km$i
	i=$((i + 1))
done
sleep 1
kill $fpid
wait $fpid
check mdadm_km --stop /dev/md0
i=0
while [ $i -lt $N ]; do
	table $i linear
	check dmsetup load --noudevsync km$i /tmp/t$i
	check dmsetup suspend --noudevsync km$i
	check dmsetup resume --noudevsync km$i
	i=$((i + 1))
done
set -- $(bits)
total=$1 dirty=$2
echo "bitmap after crash: $total bits, $dirty dirty"
mdadm_km --examine /dev/mapper/km0 | grep -E 'State|Events'
[ -n "$dirty" ] && [ "$dirty" -gt 0 ] || fail "no dirty bitmap chunk after the crash"
[ "$dirty" -lt "$total" ] || fail "every bitmap chunk dirty: nothing to prove"

note "assemble: resync of the dirty regions only"
dmesg -c >/dev/null
check mdadm_km --assemble /dev/md0 $devs
sleep 1
wait_sync md0
dmesg | grep -E 'md: (resync|md0)'
dmesg | grep -q 'md: resync of RAID array md0' || fail "no resync after unclean shutdown"
# the bitmap daemon (--delay=1) clears synced chunks within a few passes
n=0
while set -- $(bits) && [ "$2" != 0 ] && [ $n -lt 20 ]; do sleep 1; n=$((n + 1)); done
[ "$2" = 0 ] || fail "bitmap still has $2 dirty chunks after resync"
fiov $A --verify_only
echo check > $S/sync_action
sleep 1
wait_sync md0
[ "$(cat $S/mismatch_cnt)" = 0 ] || fail "mismatch_cnt $(cat $S/mismatch_cnt) after bitmap resync"
check mdadm_km --stop /dev/md0
i=0
while [ $i -lt $N ]; do dmsetup remove --noudevsync km$i; i=$((i + 1)); done
rmmod brd 2>/dev/null
echo PASS
