# covers: km: degraded I/O; km: rebuild; km: more than m failures
# km 4+2, 64 KiB chunk: fail members between and during writes, read back
# degraded, recover onto two spares at once, stop/assemble, then m+1
# failures must fail I/O cleanly.
# timeout: 300
. /lib/raidkm/lib.sh
# a previous scenario of the same boot may have left ramdisks behind
rmmod brd 2>/dev/null

N=6 M=2
ramdisks 8 16
load_raidkm
S=/sys/block/md0/md

A="--name=a --rw=write --bs=64k --size=12M --offset=0"
B="--name=b --rw=randwrite --bsrange=4k-256k --size=12M --offset=16M"
C="--name=c --rw=write --bs=12k --size=8M --offset=32M"

check mdadm_km --create /dev/md0 --run --assume-clean --level=km --layout=m$M \
	--raid-devices=$N --chunk=64 $(members $N)
fiov $A
# mdadm --monitor must see the failure, degradation and rebuild
printf '#!/bin/sh\necho "$1 $2 $3" >> /tmp/events\n' > /tmp/ev.sh
chmod +x /tmp/ev.sh
/sbin/mdadm --monitor --program=/tmp/ev.sh --delay=1 /dev/md0 </dev/null >/dev/null 2>&1 &
mpid=$!
sleep 2
note "fail one member, read back, write degraded"
check mdadm_km /dev/md0 --fail /dev/ram1
fiov $A --verify_only
fiov $B
grep -A1 '^md0 ' /proc/mdstat | grep -q '\[6/5\] \[U_UUUU\]' || fail "mdstat after 1 failure"
# a monitor that finds the array degraded reports DegradedArray
/sbin/mdadm --monitor --oneshot --program=/tmp/ev.sh /dev/md0 </dev/null >/dev/null 2>&1
note "fail a second member during writes"
fio --filename=/dev/md0 --direct=1 --ioengine=libaio --iodepth=8 --verify=crc32c --do_verify=0 $C >/tmp/fioc.out 2>&1 &
pid=$!
sleep 1
check mdadm_km /dev/md0 --fail /dev/ram4
wait $pid || { cat /tmp/fioc.out; fail "write during failure"; }
fiov $C --verify_only
fiov $A --verify_only
fiov $B --verify_only
[ "$(cat $S/km/reconstruct_reads)" -gt 0 ] || fail "no reconstruct reads counted"
mdadm_km --detail /dev/md0 | grep -q 'State : .*degraded' || fail "--detail not degraded"

note "recover onto two spares at once"
# mdadm --monitor may lose the array (DeviceDisappeared) when it reads
# sysfs while members are being removed: watch the rebuild with a new one
sleep 2
kill $mpid 2>/dev/null
wait $mpid 2>/dev/null
check mdadm_km /dev/md0 --remove /dev/ram1 /dev/ram4
/sbin/mdadm --monitor --program=/tmp/ev.sh --delay=1 /dev/md0 </dev/null >/dev/null 2>&1 &
mpid=$!
sleep 2
# held by md's speed limits (1 KiB/s), so that the recovering state is
# visible however slow the guest runs
echo 1 > $S/sync_speed_min
echo 1 > $S/sync_speed_max
check mdadm_km /dev/md0 --add /dev/ram6 /dev/ram7
sleep 2
grep -A3 '^md0 ' /proc/mdstat
d=$(mdadm_km --detail /dev/md0)
echo "$d" | grep -E 'State|Rebuild'
echo "$d" | grep -q 'State : .*recovering' || fail "--detail does not say recovering"
echo "$d" | grep -q 'Rebuild Status' || fail "--detail has no Rebuild Status"
echo "$d" | grep -c 'spare rebuilding' | grep -q '^2$' || fail "--detail: not two spares rebuilding"
echo system > $S/sync_speed_max
echo system > $S/sync_speed_min
wait_sync md0
grep -A1 '^md0 ' /proc/mdstat | grep -q '\[6/6\] \[UUUUUU\]' || fail "not clean after recovery: $(cat /proc/mdstat)"
fiov $A --verify_only
fiov $B --verify_only
fiov $C --verify_only
sleep 2
kill $mpid 2>/dev/null
echo "monitor events:"
cat /tmp/events
for e in Fail DegradedArray RebuildStarted RebuildFinished SpareActive; do
	grep -q "^$e /dev/md0" /tmp/events || fail "mdadm --monitor did not report $e"
done
echo check > $S/sync_action
sleep 1
wait_sync md0
[ "$(cat $S/mismatch_cnt)" = 0 ] || fail "mismatch_cnt $(cat $S/mismatch_cnt) after recovery"

note "stop, assemble from the new set, verify"
check mdadm_km --stop /dev/md0
check mdadm_km --assemble /dev/md0 /dev/ram0 /dev/ram2 /dev/ram3 /dev/ram5 /dev/ram6 /dev/ram7
fiov $A --verify_only
fiov $C --verify_only

note "only the spares: fail the original data, verify from the rebuilt members"
check mdadm_km /dev/md0 --fail /dev/ram0
check mdadm_km /dev/md0 --fail /dev/ram2
fiov $A --verify_only
fiov $B --verify_only

note "m+1 failures: I/O fails, no oops"
# md answers EBUSY for the failure that breaks the array (as for raid6)
mdadm_km /dev/md0 --fail /dev/ram3
dmesg | grep -q 'md/km:md0: cannot continue' || fail "no broken-array message"
dd if=/dev/md0 of=/dev/null bs=1M count=8 iflag=direct 2>/dev/null && fail "read succeeded with 3 of 6 failed"
dd if=/dev/zero of=/dev/md0 bs=1M count=1 oflag=direct 2>/dev/null && fail "write succeeded with 3 of 6 failed"
mdadm_km --detail /dev/md0 | grep -q 'State : .*\(FAILED\|failed\)' || echo "note: --detail: $(mdadm_km --detail /dev/md0 | grep State)"
check mdadm_km --stop /dev/md0
rmmod brd 2>/dev/null
echo PASS
