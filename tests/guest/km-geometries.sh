# covers: km: geometries and chunk sizes; km: degraded I/O; km: rebuild
# km over many geometries and chunk sizes: 2+1/4K, 6+3/512K, 8+4/64K,
# 3+8/4K, 12+4/64K, 4+2/512K.  For each: fio writes with block sizes from
# 512 B to 1 MiB straddling chunk and stripe boundaries (libaio, iodepth
# 8, crc32c verify), fail m members, read everything back degraded,
# write degraded, verify again.
# timeout: 600
# mem: 1024
. /lib/raidkm/lib.sh
# a previous scenario of the same boot may have left ramdisks behind
rmmod brd 2>/dev/null

load_raidkm

one() {
	k=$1 m=$2 chunk=$3 mib=$4
	n=$((k + m))
	note "k=$k m=$m chunk=${chunk}K members of ${mib} MiB"
	ramdisks $n $mib
	check mdadm_km --create /dev/md0 --run --assume-clean --level=km \
		--layout=m$m --raid-devices=$n --chunk=$chunk $(members $n)
	grep -A1 '^md0 ' /proc/mdstat | grep -q "km m=$m, ${chunk}k chunk" ||
		fail "mdstat: $(grep -A1 '^md0 ' /proc/mdstat)"
	[ "$(cat /sys/block/md0/md/km/data_disks)" = $k ] || fail "data_disks"
	size=$(($(blockdev --getsize64 /dev/md0) / 1048576))
	[ $size -ge 4 ] || fail "array too small: $size MiB"
	third=$((size / 3))
	[ $third -gt 3 ] && third=3
	A="--name=a --rw=write --bs=1M --size=${third}M --offset=0"
	B="--name=b --rw=randwrite --bsrange=512-1M --size=${third}M --offset=${third}M --number_ios=150"
	C="--name=c --rw=write --bs=$(( (chunk * 3 / 2) + 4 ))k --size=$((third - 1))M --offset=$((2 * third))M"
	fiov $A
	fiov $B
	fiov $C
	fail_list=""
	i=1
	while [ $i -le $m ]; do
		fail_list="$fail_list /dev/ram$(( (i * 2) % n ))"
		i=$((i + 1))
	done
	note "failing$fail_list"
	for d in $fail_list; do
		check mdadm_km /dev/md0 --fail $d
	done
	fiov $A --verify_only
	fiov $B --verify_only
	fiov $C --verify_only
	fiov --name=d --rw=randwrite --bsrange=4k-64k --size=${third}M --offset=0 --number_ios=100
	fiov $C --verify_only
	check mdadm_km --stop /dev/md0
	check rmmod brd
}

# this kernel's share of the geometries (lib.sh's share)
for g in $(share 2:1:4:4 6:3:512:4 8:4:64:4 3:8:4:4 12:4:64:4 4:2:512:4); do
	one $(echo $g | tr : ' ')
done
rmmod brd 2>/dev/null
echo PASS
