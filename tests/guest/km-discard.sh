# covers: km: discard
# Discard (TRIM) on a km 4+2 array (64 KiB chunks, 256 KiB stripes) over
# six scsi_debug disks that unmap (lbpu=1) and read unmapped blocks back
# as zeroes (lbprz=1), each with its own store.
#   - module parameter km_devices_handle_discard_safely off (the default):
#     the queue says no discard, blkdiscard is refused, data intact;
#   - on: a discard not aligned to stripes discards exactly the whole
#     stripes inside it on every member (data and parity), those read
#     back zero, the partial stripes at both edges keep their data, check
#     finds no mismatch; discards racing writes to the same stripes leave
#     parity consistent; a discard on a degraded array, then recovery;
#   - on, but a member that cannot discard (its discard_max_bytes set to
#     0) added to the running array: each discard refused (EOPNOTSUPP,
#     which BLKDISCARD reports as success), nothing discarded; an array
#     created with it: no discard in the queue limits.
# timeout: 240
. /lib/raidkm/lib.sh
# a previous scenario of the same boot may have left ramdisks behind
rmmod brd 2>/dev/null

S=/sys/block/md0/md
Q=/sys/block/md0/queue
PARAM=/sys/module/raidkm/parameters/km_devices_handle_discard_safely

check modprobe sd_mod
# delay=0: answered at once, never "task set full" (max_queue is shared)
check modprobe scsi_debug add_host=6 per_host_store=1 dev_size_mb=8 \
	sector_size=512 lbpu=1 lbprz=1 opts=0 delay=0
for i in $(seq 1 20); do
	[ "$(ls /sys/block | grep -c '^sd')" -ge 6 ] && break
	sleep 0.5
done
SD=$(ls /sys/block | grep '^sd' | sort | head -6)
DEVS=""
for d in $SD; do
	[ -b /dev/$d ] || fail "no /dev/$d"
	[ "$(cat /sys/block/$d/queue/discard_max_bytes)" -gt 0 ] ||
		fail "scsi_debug disk $d does not discard"
	DEVS="$DEVS /dev/$d"
done
[ "$(echo $SD | wc -w)" = 6 ] || fail "expected 6 scsi_debug disks: $SD"
note "members:$DEVS"
load_raidkm

# regions (KiB): X [0, 1280) = stripes 0..4, Y [1280, 5376) = whole
# stripes 5..20, Z [5376, 8448) = stripes 21..32; the discard covers
# [1216, 5440): Y plus a part of the last stripe of X and of the first
# stripe of Z
X="--name=x --rw=write --bs=64k --offset=0 --size=1280k"
Y="--name=y --rw=write --bs=64k --offset=1280k --size=4096k"
Z="--name=z --rw=randwrite --bs=16k --offset=5376k --size=3072k"
DOFF=$((1216 * 1024)) DLEN=$(((5440 - 1216) * 1024))
YOFF=$((1280 * 1024)) YLEN=$((4096 * 1024))
YSECT=$((16 * 128))	# member sectors of stripes 5..20

create() {
	check mdadm_km --create /dev/md0 --run --assume-clean --level=km \
		--layout=m2 --raid-devices=6 --chunk=64 "$@"
}

# discarded SECTORS of member $1 so far (/sys/block/X/stat field 14)
dsect() {
	awk '{print $14}' /sys/block/$1/stat
}

# y_zero WHAT: region Y reads back zero through md
y_zero() {
	blockdev --flushbufs /dev/md0
	nz=$(dd if=/dev/md0 bs=64k skip=20 count=64 2>/dev/null | tr -d '\000' | wc -c)
	[ "$nz" = 0 ] || fail "$nz non-zero bytes in the discarded stripes ($1)"
}

note "parameter off: no discard"
[ "$(cat $PARAM)" = N ] || fail "km_devices_handle_discard_safely is $(cat $PARAM) by default"
create $DEVS
[ "$(cat $Q/discard_max_bytes)" = 0 ] || fail "discard_max_bytes $(cat $Q/discard_max_bytes) with the parameter off"
fiov $X
fiov $Y
fiov $Z
blkdiscard -o $DOFF -l $DLEN /dev/md0 2>/tmp/bd.err &&
	fail "blkdiscard succeeded with the parameter off"
cat /tmp/bd.err
fiov $Y --verify_only
check mdadm_km --stop /dev/md0

note "parameter on: whole stripes discarded on every member"
echo Y > $PARAM
check mdadm_km --assemble /dev/md0 $DEVS
[ "$(cat $Q/discard_granularity)" = 262144 ] || fail "discard_granularity $(cat $Q/discard_granularity)"
[ "$(cat $Q/discard_max_bytes)" -ge 262144 ] || fail "discard_max_bytes $(cat $Q/discard_max_bytes)"
for d in $SD; do eval "before_$d=$(dsect $d)"; done
check blkdiscard -o $DOFF -l $DLEN /dev/md0
for d in $SD; do
	eval "b=\$before_$d"
	got=$(($(dsect $d) - b))
	[ $got = $YSECT ] || fail "$d discarded $got sectors, expected $YSECT"
done
[ "$(cat $S/km/discards)" -ge 1 ] || fail "km/discards $(cat $S/km/discards)"
y_zero "after the discard"
fiov $X --verify_only
fiov $Z --verify_only
check_clean md0 "after the discard"

note "write the discarded stripes again"
fiov $Y
fiov $X --verify_only
check_clean md0 "after rewriting"

note "discards racing writes to the same stripes"
fio --name=race --filename=/dev/md0 --direct=1 --ioengine=libaio --iodepth=8 \
	--rw=randwrite --bsrange=4k-96k --offset=1280k --size=4096k \
	--time_based --runtime=4 >/tmp/fio-race.out 2>&1 &
racer=$!
i=0
while [ $i -lt 8 ]; do
	check blkdiscard -o $YOFF -l $YLEN /dev/md0
	sleep 0.3
	i=$((i + 1))
done
wait $racer || { cat /tmp/fio-race.out; fail "fio during discards"; }
check_clean md0 "after discards racing writes"
fiov $X --verify_only
fiov $Z --verify_only

note "discard on a degraded array, then recovery"
last=/dev/$(echo $SD | awk '{print $6}')
check mdadm_km /dev/md0 --fail $last
check mdadm_km /dev/md0 --remove $last
check blkdiscard -o $DOFF -l $DLEN /dev/md0
y_zero "degraded"
fiov $X --verify_only
fiov $Z --verify_only
check mdadm_km --zero-superblock $last
check mdadm_km /dev/md0 --add $last
sleep 0.5
wait_sync md0
grep -A1 '^md0 ' /proc/mdstat | grep -q '\[6/6\]' || fail "not rebuilt: $(cat /proc/mdstat)"
y_zero "after recovery"
check_clean md0 "after recovery"
fiov $X --verify_only
fiov $Z --verify_only

# discard_max_bytes 0 cannot be undone on 6.12 (granularity 0 then):
# the last member stays unable to discard from here on
note "a member added back unable to discard: discards refused"
check mdadm_km /dev/md0 --fail $last
check mdadm_km /dev/md0 --remove $last
check mdadm_km --zero-superblock $last
echo 0 > /sys/block/${last#/dev/}/queue/discard_max_bytes
check mdadm_km /dev/md0 --add $last
sleep 0.5
wait_sync md0
grep -A1 '^md0 ' /proc/mdstat | grep -q '\[6/6\]' || fail "not rebuilt: $(cat /proc/mdstat)"
fiov $Y
for d in $SD; do eval "before_$d=$(dsect $d)"; done
# refused with EOPNOTSUPP, which BLKDISCARD turns into success: a no-op
blkdiscard -o $YOFF -l $YLEN /dev/md0
dmesg | grep -q 'md/km:md0: a member cannot discard whole chunks: discard refused' ||
	fail "no kernel message about the refused discard"
for d in $SD; do
	eval "b=\$before_$d"
	[ "$(dsect $d)" = "$b" ] || fail "$d discarded $(($(dsect $d) - b)) sectors with a member that cannot"
done
fiov $Y --verify_only
check mdadm_km --stop /dev/md0

note "an array with a member that cannot discard: no discard"
for d in $DEVS; do check mdadm_km --zero-superblock $d; done
create $DEVS
[ "$(cat $Q/discard_max_bytes)" = 0 ] || fail "discard_max_bytes $(cat $Q/discard_max_bytes) with a member that cannot discard"
fiov $X
blkdiscard -o 0 -l $((1280 * 1024)) /dev/md0 2>/dev/null &&
	fail "blkdiscard succeeded with a member that cannot discard"
fiov $X --verify_only
check mdadm_km --stop /dev/md0
echo N > $PARAM
dmesg | grep -E 'I/O error|md/km:md0: (read|write) error' &&
	fail "member I/O errors"
rmmod scsi_debug 2>/dev/null
echo PASS
