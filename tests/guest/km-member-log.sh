# covers: km: member log; km: write-intent bitmap; km: re-add; mdadm: member log
# The member log (issue #31): the write log kept on the members, beside
# md's write-intent bitmap.  km 4+2 (--layout=m2,log, --bitmap=internal)
# on six ramdisks, each behind dm-linear so that a member can fail for
# real (its table becomes "error") and its writes can be counted.
#   - what the admin sees: consistency_policy "bitmap", km/journal
#     "kind members", mdadm --detail and --examine name the log,
#     /proc/mdstat says which member holds it;
#   - full stripes of the optimal array are left to the bitmap (not
#     logged: bitmap_writes), 4 KiB writes are logged with their pages;
#     everything verifies, parity is consistent; a clean stop leaves
#     nothing to replay;
#   - a reshape of an array with a member log is refused, and a member
#     with room for the data but not for the log is refused by mdadm;
#   - the log member fails under verified writes: no write fails, the log
#     moves to another member (km/journal moves 1);
#   - the failed member comes back (--re-add): md's bitmap brings it up
#     to date with far less than its size in writes, and all verifies
#     with two other members failed;
#   - a power cut (sysrq-b) under sequential 1 MiB writes of a new
#     array without a bitmap (full stripes logged light: recompute
#     entries without pages), two members writing 300 ms late
#     (dm-delay): the next boot's assembly recomputes the parity of the
#     full stripes in flight from the light records, before md's resync
#     could: every stripe's P parity matches its data on the members
#     (rkm-parity, tests/guest/parity.c, the array stopped read-auto).
# The members are persistent virtio disks (vda..vdf, vdg the small one).
# boots: 2
# disks: 7 32
# timeout: 300
. /lib/raidkm/lib.sh

N=6 MIB=32
S=/sys/block/md0/md
P=/sys/module/md_mod/parameters
VDS="a b c d e f"
load_raidkm
linear_members $MIB $VDS

A="--name=a --rw=write --bs=1M --size=8M --offset=0"
B="--name=b --rw=randwrite --bs=4k --size=4M --offset=8M"
C="--name=c --rw=randwrite --bs=4k --size=4M --offset=16M"

jstat() {
	sed -n "s/^$1 //p" $S/km/journal
}
# dmname DEV: the dm name (m0..m5) of kernel device DEV (dm-3)
dmname() {
	cat /sys/block/$1/dm/name
}
# written NAME: sectors written to dm device NAME so far
written() {
	local b
	b=$(grep -lx "$1" /sys/block/dm-*/dm/name | cut -d/ -f4)
	awk '{print $7}' /sys/block/$b/stat
}

if [ "$RKM_PHASE" = 1 ]; then
note "create with a member log and a write-intent bitmap"
check mdadm_km --create /dev/md0 --run --assume-clean --level=km \
	--layout=m2,log --raid-devices=$N --chunk=64 --bitmap=internal \
	--bitmap-chunk=256K $DEVS
cat $S/km/journal
[ "$(cat $S/consistency_policy)" = bitmap ] ||
	fail "consistency_policy $(cat $S/consistency_policy), not bitmap"
[ "$(jstat state)" = active ] || fail "member log state $(jstat state)"
[ "$(jstat kind)" = members ] || fail "km/journal kind $(jstat kind)"
grep -A3 '^md0 ' /proc/mdstat | grep -q 'bitmap:' || fail "no bitmap in /proc/mdstat"
grep -A1 '^md0 ' /proc/mdstat | grep -q "member log on $(jstat device)" ||
	fail "/proc/mdstat does not say where the member log is: $(cat /proc/mdstat)"
mdadm_km --detail /dev/md0 | grep -E 'Member Log|Consistency' ||
	fail "mdadm --detail names no member log"
mdadm_km --detail /dev/md0 | grep -q 'Member Log' || fail "mdadm --detail: no Member Log line"
mdadm_km --examine /dev/mapper/m3 | grep -q 'Member Log' ||
	fail "mdadm --examine: no Member Log line"

note "full stripes are left to the bitmap, 4 KiB writes logged with their pages"
fiov $A
b1=$(jstat bitmap_writes)
p1=$(jstat pages)
echo "after 8 MiB of full stripes: $(tr '\n' ' ' <$S/km/journal)"
[ "$b1" -gt 0 ] || fail "no full-stripe write left to the bitmap after 8 MiB of full stripes"
# a journal would log 3072 pages (8 MiB of data, 4 MiB of parity)
[ "$p1" -lt 256 ] || fail "$p1 pages logged for 8 MiB of full stripes"
fiov $B
[ "$(jstat pages)" -gt "$p1" ] || fail "4 KiB writes logged no pages"
fiov $A --verify_only
fiov $B --verify_only
check_clean md0 "after logged writes"

note "a clean stop leaves nothing to replay"
check mdadm_km --stop /dev/md0
wait_md_gone md0
dmesg -c >/dev/null
check mdadm_km --assemble /dev/md0 $DEVS
dmesg | grep 'md/km:md0: member log' || fail "no member log line at assembly"
dmesg | grep -q 'member log on .*replayed 0 records' ||
	fail "a clean stop left records to replay"
[ "$(cat $S/consistency_policy)" = bitmap ] || fail "no bitmap after assembly"
fiov $A --verify_only

note "refused: a reshape, and a member without room for the log"
mdadm_km --grow /dev/md0 --layout=m3 2>&1 && fail "a reshape of an array with a member log was accepted"
grep -q 'km m=2' /proc/mdstat || fail "the layout changed: $(cat /proc/mdstat)"
used=$(mdadm_km --detail /dev/md0 | sed -n 's/.*Used Dev Size : \([0-9]*\).*/\1/p')
off=$(mdadm_km --examine /dev/mapper/m0 | sed -n 's/.*Data Offset : \([0-9]*\) sectors.*/\1/p')
[ -n "$used" ] && [ -n "$off" ] || fail "no Used Dev Size or Data Offset"
echo "0 $((used * 2 + off + 8)) linear /dev/vdg 0" | check dmsetup create --noudevsync small
check dmsetup mknodes
mdadm_km /dev/md0 --add /dev/mapper/small 2>&1 &&
	fail "a member with no room for the log was added"
mdadm_km --detail /dev/md0 | grep -q small && fail "the small device is in the array"
check dmsetup remove --noudevsync small

note "the log member fails under verified writes: the log moves"
from=$(jstat device)
fname=$(dmname $from)
echo "the log is on $from ($fname)"
fio --filename=/dev/md0 --direct=1 --ioengine=libaio --iodepth=8 \
	--verify=crc32c --verify_fatal=1 $C --loops=4 >/tmp/fioc 2>&1 &
f=$!
sleep 1
check dmsetup suspend $fname
echo "0 $((MIB * 2048)) error" | check dmsetup load $fname
check dmsetup resume $fname
wait $f || { cat /tmp/fioc; fail "writes failed when the log member failed"; }
n=0
while [ "$(jstat moves)" != 1 ] && [ $n -lt 50 ]; do
	sleep 0.2
	n=$((n + 1))
done
cat $S/km/journal
[ "$(jstat moves)" = 1 ] || fail "the log did not move: moves $(jstat moves)"
[ "$(jstat state)" = active ] || fail "member log state $(jstat state) after the move"
[ "$(jstat device)" != "$from" ] || fail "the log is still on $from"
grep -A1 '^md0 ' /proc/mdstat | grep -q "member log on $(jstat device)" ||
	fail "/proc/mdstat does not show the moved log: $(cat /proc/mdstat)"
grep -A1 '^md0 ' /proc/mdstat | grep -q '\[6/5\]' || fail "not degraded: $(cat /proc/mdstat)"
r0=$(jstat records)
fiov $B
[ "$(jstat records)" -gt "$r0" ] || fail "no record after the move"
fiov $A --verify_only
fiov $B --verify_only
fio --filename=/dev/md0 --direct=1 --ioengine=libaio --iodepth=8 \
	--verify=crc32c --verify_fatal=1 $C --verify_only >/tmp/fioc 2>&1 ||
	{ cat /tmp/fioc; fail "region C does not verify"; }

note "the failed member comes back: --re-add, by the bitmap"
n=0
while ! mdadm_km /dev/md0 --remove /dev/mapper/$fname 2>/dev/null; do
	n=$((n + 1))
	[ $n -lt 50 ] || fail "the failed log member cannot be removed"
	sleep 0.2
done
check dmsetup suspend $fname
set -- $VDS
shift ${fname#m}
echo "0 $((MIB * 2048)) linear /dev/vd$1 0" | check dmsetup load $fname
check dmsetup resume $fname
before=$(written $fname)
check mdadm_km /dev/md0 --re-add /dev/mapper/$fname
sleep 0.5
wait_sync md0
grep -A2 '^md0 ' /proc/mdstat
grep -q '\[UUUUUU\]' /proc/mdstat || fail "the member is not back in sync"
w=$(($(written $fname) - before))
echo "the re-added member took $w sectors of writes ($((MIB * 2048)) in all)"
[ "$w" -gt 0 ] || fail "the re-added member was not written"
[ "$w" -lt $((MIB * 2048 / 4)) ] || fail "re-add rewrote $w sectors: not by the bitmap"
check_clean md0 "after the re-add"

note "two other members fail: everything still verifies"
other=""
for d in $DEVS; do
	[ "$d" = /dev/mapper/$fname ] && continue
	[ "$d" = /dev/mapper/$(dmname "$(jstat device)") ] && continue
	other="$other $d"
done
set -- $other
check mdadm_km /dev/md0 --fail $1
check mdadm_km /dev/md0 --fail $2
fiov $A --verify_only
fiov $B --verify_only
check mdadm_km --stop /dev/md0
wait_md_gone md0

note "a new array without a bitmap, sequential 1 MiB writes, then a power cut"
check mdadm_km --create /dev/md0 --run --assume-clean --level=km \
	--layout=m2,log --raid-devices=$N --chunk=64 --bitmap=none $DEVS
# members 1 and 2 write 300 ms late (slow disks)
full_stripes_on_slow $MIB /dev/vdb /dev/vdc
[ "$(jstat light_records)" -gt 0 ] || fail "no light record before the power cut"
cat $S/km/journal
crash_guest
fi

note "boot 2: the assembly recomputes the parity of the stripes in flight"
echo 1 >$P/start_ro
dmesg -c >/dev/null
check mdadm_km --assemble /dev/md0 $DEVS
echo 0 >$P/start_ro
dmesg | grep 'md/km:md0: member log'
cat $S/km/journal
[ "$(cat $S/array_state)" = read-auto ] || fail "array_state $(cat $S/array_state), not read-auto"
r=$(jstat recomputed_rows)
[ "$r" -gt 0 ] || fail "no row's parity recomputed after a power cut under full-stripe writes"
[ "$(jstat skipped_rows)" = 0 ] || fail "$(jstat skipped_rows) rows skipped with every member present"
# what the replay left on the members, before md's resync of the
# bitmap's dirty regions could touch it: stopped while read-auto (no
# resync), every stripe written (24 MiB: 96 stripes) checked from the
# members themselves
members_parity_ok $DEVS
check mdadm_km --assemble /dev/md0 $DEVS
check_clean md0 "after the replay"
check mdadm_km --stop /dev/md0
wait_md_gone md0
i=0
while [ $i -lt $N ]; do
	check dmsetup remove --noudevsync m$i
	i=$((i + 1))
done
echo PASS
