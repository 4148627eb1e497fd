# Guest side of tools/bench/reshape-bench.sh: one disk added to a 6-member
# array (4+2 -> 5+2), md raid6 and km m=2 on the same brd ramdisks in the
# same boot, rounds interleaved (raid6 first in odd rounds, km first in
# even ones).  Prints one BENCH line per reshape and the median ratio
# with min/max; asserts nothing about speed.
# timeout: 1200
# mem: 2048
. /lib/raidkm/lib.sh

MIB=160
ROUNDS=5
ramdisks 7 $MIB
load_raidkm
load_raid6
echo 2000000 >/proc/sys/dev/raid/speed_limit_min
echo 2000000 >/proc/sys/dev/raid/speed_limit_max

# reshape_s LEVEL: seconds for 4+2 -> 5+2 (one disk added, no bitmap),
# from md's "reshape of RAID array" to its "reshape done" log line
reshape_s() {
	for d in $(members 7); do dd if=/dev/zero of=$d bs=1M count=1 2>/dev/null; done
	if [ $1 = km ]; then
		check mdadm_km --create /dev/md0 --run --assume-clean --level=km \
			--layout=m2 --raid-devices=6 --chunk=64 $(members 6)
	else
		check mdadm_km --create /dev/md0 --run --assume-clean --level=6 \
			--raid-devices=6 --chunk=64 $(members 6)
	fi
	# the data region full of something other than zeroes
	fio --filename=/dev/md0 --direct=1 --ioengine=libaio --iodepth=8 \
		--name=fill --rw=write --bs=1M --size=100% >/dev/null 2>&1
	check mdadm_km /dev/md0 --add /dev/ram6
	dmesg -c >/dev/null
	check mdadm_km --grow /dev/md0 --raid-devices=7 >/dev/null 2>&1
	sleep 0.1
	wait_sync md0
	[ "$(cat /sys/block/md0/md/raid_disks)" = 7 ] || fail "$1: raid_disks $(cat /sys/block/md0/md/raid_disks) after the reshape"
	# md's own log lines time it (kernel timestamps)
	t=$(dmesg | awk -F'[][]' '
		/md: reshape of RAID array md0/ { t0 = $2 }
		/md: md0: reshape done/ { t1 = $2 }
		END { if (t0 == "" || t1 == "") exit 1; printf "%.2f", t1 - t0 }') ||
		fail "$1: no reshape start/done lines in the kernel log"
	check mdadm_km --stop /dev/md0
	check mdadm_km --zero-superblock $(members 7)
	echo "$t"
}

ratios=""
r=1
while [ $r -le $ROUNDS ]; do
	if [ $((r % 2)) = 1 ]; then
		a=$(reshape_s raid6); b=$(reshape_s km)
	else
		b=$(reshape_s km); a=$(reshape_s raid6)
	fi
	q=$(echo "$a $b" | awk '{ printf "%.2f", $1 / $2 }')
	echo "BENCH round $r: 4+2 -> 5+2 on ${MIB} MiB members: raid6 $a s, km $b s, km speed / raid6 speed $q"
	ratios="$ratios $q"
	r=$((r + 1))
done
echo $ratios | tr ' ' '\n' | sort -n | awk '{ v[NR] = $1 } END {
	printf "RATIO reshape km/raid6 speed (one disk added, 4+2 -> 5+2): median %.2f, min %.2f, max %.2f over %d rounds\n",
	       v[int((NR + 1) / 2)], v[1], v[NR], NR }'
