# covers: km: wide writes; km: bitmap; km: rebuild
# Full stripes in one job (wide_write.c): writes covering whole chunk
# stripes are coded by one encode job per range and written with one bio
# per member; heads and tails that cover stripes partly go by rows.
#  - geometries 2+1/4K, 4+2/64K, 8+3/128K, 16+4/16K: fio writes at 1 MiB,
#    at whole-stripe multiples and unaligned 1 MiB + 4 KiB blocks, with
#    crc32c verify; wide_writes rises; check finds mismatch_cnt 0
#  - the stripe cache never serves rows older than a wide write: rows
#    cached by 4 KiB writes, then whole stripes written over them, then a
#    degraded read by rows (wide reads off, served from the cache) must
#    return the new data
#  - degraded: m members failed, full-stripe writes, rebuild, check clean
#  - an internal bitmap: stop and assemble after wide writes, clean check
#  - wide_write_max_stripes=0: by rows, wide_writes stays; bad input
#    refused, nothing changes
# timeout: 1200
# mem: 1536
. /lib/raidkm/lib.sh
rmmod brd 2>/dev/null
load_raidkm
S=/sys/block/md0/md

km() { cat $S/km/$1; }
clean_check() {
	echo check > $S/sync_action
	sleep 0.5
	wait_sync md0
	[ "$(cat $S/mismatch_cnt)" = 0 ] || fail "$1: mismatch_cnt $(cat $S/mismatch_cnt)"
}

one() {
	k=$1 m=$2 chunk=$3 mib=$4
	n=$((k + m))
	stripe=$((k * chunk))
	note "k=$k m=$m chunk=${chunk}K members of ${mib} MiB (stripe ${stripe}K)"
	ramdisks $((n + m)) $mib
	check mdadm_km --create /dev/md0 --run --assume-clean --level=km \
		--layout=m$m --raid-devices=$n --chunk=$chunk $(members $n)
	size=$(( $(blockdev --getsize64 /dev/md0) / 1048576 ))
	half=$((size / 2))
	w0=$(km wide_writes)
	fiov --name=a --rw=write --bs=1M --size=${half}M
	fiov --name=b --rw=write --bs=$((stripe * 2))k --offset=${half}M --size=$((size - half))M
	[ "$(km wide_writes)" -gt "$w0" ] || fail "no wide writes"
	fiov --name=c --rw=write --bs=1028k --size=${half}M --offset=0
	clean_check "after wide writes"
	note "cached rows, then whole stripes over them, then a read by rows"
	echo 0 > $S/km/wide_read_min_rows
	fiov --name=d --rw=randwrite --bs=4k --size=$((stripe * 4))k --number_ios=200 --randseed=1
	fiov --name=d --rw=write --bs=${stripe}k --size=$((stripe * 4))k --randseed=2
	check mdadm_km /dev/md0 --fail /dev/ram0
	fiov --name=d --rw=write --bs=${stripe}k --size=$((stripe * 4))k --randseed=2 --verify_only
	note "degraded: m failed, whole stripes written, rebuilt"
	f=1
	while [ $f -lt $m ]; do
		check mdadm_km /dev/md0 --fail /dev/ram$f
		f=$((f + 1))
	done
	echo 2 > $S/km/wide_read_min_rows
	w0=$(km wide_writes)
	fiov --name=e --rw=write --bs=1M --size=${half}M
	[ "$(km wide_writes)" -gt "$w0" ] || fail "no wide writes degraded"
	check mdadm_km /dev/md0 --remove $(members $m)
	check mdadm_km /dev/md0 --add $(members $m $n)
	sleep 0.5
	wait_sync md0
	fiov --name=e --rw=write --bs=1M --size=${half}M --verify_only
	clean_check "after the rebuild"
	echo "wide_writes=$(km wide_writes) stripes=$(km wide_write_stripes) member_writes=$(km wide_write_member_writes)"
	cat $S/km/wide_write_fallbacks
	check mdadm_km --stop /dev/md0
	rmmod brd || fail "rmmod brd"
}

# this kernel's share of the geometries (lib.sh's share)
for g in $(share 2:1:4:4 4:2:64:8 8:3:128:8 16:4:16:2); do
	one $(echo $g | tr : ' ')
done

note "an internal bitmap: stop and assemble after wide writes"
ramdisks 6 32
check mdadm_km --create /dev/md0 --run --level=km --layout=m2 --bitmap=internal \
	--raid-devices=6 --chunk=64 $(members 6)
wait_sync md0
fiov --name=f --rw=write --bs=1M --size=48M
check mdadm_km --stop /dev/md0
check mdadm_km --assemble /dev/md0 $(members 6)
wait_sync md0
fiov --name=f --rw=write --bs=1M --size=48M --verify_only
clean_check "bitmap array"

note "wide writes off, bad input refused"
echo 0 > $S/km/wide_write_max_stripes || fail "wide_write_max_stripes=0 refused"
w0=$(km wide_writes)
fiov --name=g --rw=write --bs=1M --size=16M
[ "$(km wide_writes)" = "$w0" ] || fail "wide writes with wide_write_max_stripes=0"
for v in -1 x 257 99999999999; do
	echo $v > $S/km/wide_write_max_stripes 2>/dev/null && fail "wide_write_max_stripes=$v accepted"
done
[ "$(km wide_write_max_stripes)" = 0 ] || fail "wide_write_max_stripes changed by bad input"
check mdadm_km --stop /dev/md0
rmmod brd
echo PASS
