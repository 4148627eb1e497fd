# Guest side of "make bench-wide-threshold": where a wide degraded read
# starts to pay.  km 4+2 and 8+3, 64 KiB chunks, on ramdisks, m members
# failed; random reads of 4, 8, 16, 32 and 64 KiB (aligned to their
# size) with wide reads on for every size (wide_read_min_rows=1) against
# wide reads off (0, every read by rows), interleaved, ROUNDS rounds, in
# the in-kernel codec.  Prints BENCH lines per round and MEDIAN [min, max]
# lines with the wide/rows ratio.  Asserts nothing about speed.
# timeout: 1500
# mem: 1536
. /lib/raidkm/lib.sh
rmmod brd 2>/dev/null

ROUNDS=3
MIB=32
SIZES="4k 8k 16k 32k 64k"
IOS=1500
ramdisks 11 $MIB
load_raidkm
S=/sys/block/md0/md/km

stats() {	# values -> "median [min max]"
	echo "$@" | tr ' ' '\n' | sort -n | awk '{ v[NR] = $1 } END {
		printf "%s [%s %s]", v[int((NR + 1) / 2)], v[1], v[NR] }'
}

for geo in 4:2 8:3; do
	k=${geo%:*} m=${geo#*:} n=$((k + m))
	check mdadm_km --create /dev/md0 --run --assume-clean --level=km \
		--layout=m$m --raid-devices=$n --chunk=64 $(members $n)
	check fio --name=fill --filename=/dev/md0 --direct=1 --rw=write --bs=1M \
		--ioengine=libaio --iodepth=4 --size=$((MIB * k / 2))M >/dev/null
	check mdadm_km /dev/md0 --fail $(members $m)
	r=1
	while [ $r -le $ROUNDS ]; do
		for bs in $SIZES; do
			for mode in 1 0; do
				echo $mode > $S/wide_read_min_rows
				fio --name=r --filename=/dev/md0 --direct=1 --rw=randread \
					--bs=$bs --ioengine=libaio --iodepth=8 \
					--size=$((MIB * k / 2))M --number_ios=$IOS \
					--randseed=$r --output-format=terse >/tmp/t.out 2>&1 ||
					{ cat /tmp/t.out; fail "fio"; }
				iops=$(awk -F';' '/^3;/ { print $8 }' /tmp/t.out)
				echo "BENCH round $r km-$k+$m bs=$bs wide=$mode iops=$iops"
				eval "v_${k}_${bs}_$mode=\"\${v_${k}_${bs}_$mode} $iops\""
			done
		done
		r=$((r + 1))
	done
	for bs in $SIZES; do
		eval "a=\$(stats \$v_${k}_${bs}_1) b=\$(stats \$v_${k}_${bs}_0)"
		echo "MEDIAN km-$k+$m degraded randread bs=$bs wide_iops $a rows_iops $b ratio $(awk -v x=${a%% *} -v y=${b%% *} 'BEGIN { printf "%.2f", y ? x / y : 0 }')"
	done
	check mdadm_km --stop /dev/md0
	check mdadm_km --zero-superblock $(members $n)
done
echo PASS
