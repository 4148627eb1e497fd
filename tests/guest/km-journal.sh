# covers: km: write journal; km: write journal replay; km: write journal failure; mdadm: add-journal
# A km 4+2 array with a write journal on a seventh virtio disk (md has
# no bitmap for an array with a journal).  Boot 1: writes of every kind (4 KiB random rounds of
# the stripe cache, 1 MiB full stripes of the wide path) go through the
# journal (records and pages counted, the data verifies, parity is
# consistent, a clean stop leaves nothing to replay), then random writes
# run when the guest is cut off (sysrq-b).  Boot 2: the assembly replays
# the records after the checkpoint before the array serves, no resync
# runs (the superblocks stayed clean, as md raid5's with a journal do),
# parity is consistent and what was written before the crash verifies; then the
# journal device fails under writes (dm-error under it): writes fail with
# EIO, reads go on and verify; a new journal is added (mdadm
# --add-journal) and logs the writes; then it is failed and removed and
# consistency_policy set to resync: the array takes writes again.
# boots: 2
# disks: 7 24
# timeout: 300
. /lib/raidkm/lib.sh

devs="/dev/vda /dev/vdb /dev/vdc /dev/vdd /dev/vde /dev/vdf"
jdev=/dev/vdg
S=/sys/block/md0/md
for d in $devs $jdev; do [ -b $d ] || fail "no $d"; done
load_raidkm

jstat() {
	sed -n "s/^$1 //p" $S/km/journal
}

A="--name=a --rw=write --bs=1M --size=8M --offset=0"
B="--name=b --rw=randwrite --bs=4k --size=4M --offset=8M"

if [ "$RKM_PHASE" = 1 ]; then
	note "create with a journal"
	check mdadm_km --create /dev/md0 --run --assume-clean --level=km \
		--layout=m2 --raid-devices=6 --chunk=64 \
		--write-journal $jdev $devs
	[ "$(cat $S/consistency_policy)" = journal ] ||
		fail "consistency_policy is $(cat $S/consistency_policy), not journal"
	cat $S/km/journal
	[ "$(jstat state)" = active ] || fail "journal state $(jstat state)"
	grep -q 'vdg\[[0-9]*\](J)' /proc/mdstat || fail "/proc/mdstat shows no journal: $(cat /proc/mdstat)"

	note "writes go through the journal"
	fiov $A
	r1=$(jstat records)
	p1=$(jstat pages)
	[ "$r1" -gt 0 ] || fail "no journal record after 8 MiB of full stripes"
	# 8 MiB of data and half as much parity (4+2)
	[ "$p1" -ge 3072 ] || fail "only $p1 pages logged for 8 MiB of full stripes"
	fiov $B
	[ "$(jstat records)" -gt "$r1" ] || fail "no record for random writes"
	fiov $A --verify_only
	fiov $B --verify_only
	check_clean md0 "after journaled writes"
	echo "after writes: $(tr '\n' ' ' <$S/km/journal)"

	note "a clean stop leaves nothing to replay"
	check mdadm_km --stop /dev/md0
	wait_md_gone md0
	dmesg -c >/dev/null
	check mdadm_km --assemble /dev/md0 $jdev $devs
	dmesg | grep 'md/km:md0: journal' || fail "no journal line at assembly"
	dmesg | grep -q 'replayed 0 records' || fail "a clean stop left records to replay"
	fiov $A --verify_only

	note "random writes, then a power cut"
	fio --filename=/dev/md0 --direct=1 --ioengine=libaio --iodepth=16 \
		--name=c --rw=randwrite --bs=4k --size=4M --offset=16M \
		--time_based --runtime=60 >/dev/null 2>&1 &
	sleep 4
	[ "$(jstat records)" -gt 0 ] || fail "no record before the crash"
	crash_guest
fi

note "boot 2: the assembly replays the journal"
dmesg -c >/dev/null
check mdadm_km --assemble /dev/md0 $jdev $devs
dmesg | grep 'md/km:md0: journal'
n=$(dmesg | sed -n 's/.*md\/km:md0: journal on .*: replayed \([0-9]*\) records.*/\1/p')
[ -n "$n" ] && [ "$n" -gt 0 ] || fail "nothing replayed after a crash under writes"
[ "$(jstat replayed_records)" = "$n" ] || fail "km/journal says $(jstat replayed_records) replayed, the log $n"
sleep 1
grep -A3 '^md0 ' /proc/mdstat | grep -q resync && fail "a resync after the replay: $(cat /proc/mdstat)"
wait_sync md0
check_clean md0 "after the replay"
fiov $A --verify_only
fiov $B --verify_only

note "the journal fails under writes"
# the journal's data through dm, so that it can fail for real: stop,
# put the device behind a linear map, assemble from that
check mdadm_km --stop /dev/md0
wait_md_gone md0
check modprobe dm-mod
size=$(blockdev --getsz $jdev)
echo "0 $size linear $jdev 0" >/tmp/table
check dmsetup create --noudevsync jr /tmp/table
check dmsetup mknodes jr
check mdadm_km --assemble /dev/md0 /dev/mapper/jr $devs
[ "$(jstat state)" = active ] || fail "journal state $(jstat state) over dm"
fiov $B
check dmsetup suspend jr
echo "0 $size error" >/tmp/table
check dmsetup load jr /tmp/table
check dmsetup resume jr
dmesg -c >/dev/null
if dd if=/dev/zero of=/dev/md0 bs=4k count=1 seek=3000 oflag=direct 2>/dev/null; then
	fail "a write succeeded with the journal failing"
fi
dmesg | grep 'md/km:md0: journal' || fail "no kernel message on the journal failure"
# failed, or missing once md has taken the faulty journal out of the array
case $(jstat state) in
failed | missing) ;;
*) fail "journal state $(jstat state) after its failure" ;;
esac
if dd if=/dev/zero of=/dev/md0 bs=4k count=1 seek=3001 oflag=direct 2>/dev/null; then
	fail "a write succeeded after the journal failed"
fi
fiov $A --verify_only
fiov $B --verify_only

note "a new journal: remove the failed one, add another"
mdadm_km /dev/md0 --fail /dev/mapper/jr
n=0
while ! mdadm_km /dev/md0 --remove /dev/mapper/jr 2>/dev/null; do
	n=$((n + 1))
	[ $n -lt 50 ] || fail "the failed journal cannot be removed"
	sleep 0.2
done
check dmsetup remove --noudevsync jr
check mdadm_km --zero-superblock $jdev
check mdadm_km --readonly /dev/md0
check mdadm_km /dev/md0 --add-journal $jdev
[ "$(jstat state)" = active ] || fail "journal state $(jstat state) after --add-journal"
[ "$(cat $S/array_state)" != readonly ] || check mdadm_km --readwrite /dev/md0
r0=$(jstat records)
fiov $B
[ "$(jstat records)" -gt "$r0" ] || fail "writes not logged by the added journal"
fiov $A --verify_only
check_clean md0 "with the added journal"

note "resync policy: the journal dropped, writes again"
check mdadm_km /dev/md0 --fail $jdev
n=0
while ! mdadm_km /dev/md0 --remove $jdev 2>/dev/null; do
	n=$((n + 1))
	[ $n -lt 50 ] || fail "the failed journal cannot be removed"
	sleep 0.2
done
if dd if=/dev/zero of=/dev/md0 bs=4k count=1 seek=3002 oflag=direct 2>/dev/null; then
	fail "a write succeeded without the journal"
fi
echo resync >$S/consistency_policy || fail "consistency_policy resync refused"
[ "$(cat $S/consistency_policy)" != journal ] || fail "still journal"
[ "$(jstat state)" = none ] || fail "journal state $(jstat state) after the drop"
fiov $B
fiov $A --verify_only
check_clean md0 "without the journal"
check mdadm_km --stop /dev/md0
echo PASS
