# Guest side of tools/bench/bench-vm.sh: km (m=2, 3, 4; k=4) against md
# raid6 (4+2) on the same brd ramdisks in the same boot.  Prints one
# "BENCH" line per measurement and "RATIO" lines; asserts nothing about
# speed.
# timeout: 1200
# mem: 2048
. /lib/raidkm/lib.sh

MIB=64
SIZE=$((MIB * 4 * 3 / 4))	# MiB written/read per run (k = 4)
ramdisks 8 $MIB
load_raidkm
check modprobe crc32c_generic
check modprobe raid456
echo 2000000 > /proc/sys/dev/raid/speed_limit_min
echo 2000000 > /proc/sys/dev/raid/speed_limit_max

# fio_bw NAME ARGS...: KiB/s of the job (read or write)
fio_bw() {
	name=$1
	shift
	out=$(fio --filename=/dev/md0 --direct=1 --ioengine=libaio --output-format=terse \
		--name=$name "$@" 2>&1) || { echo "$out" >&2; echo 0; return; }
	echo "$out" | awk -F';' '/^3;/ { print $7 + $48 }'
}

run_one() {	# run_one LABEL LEVEL M  (k = 4)
	label=$1 level=$2 m=$3 n=$((4 + $3))
	for d in $(members 8); do dd if=/dev/zero of=$d bs=1M count=1 2>/dev/null; done
	if [ $level = km ]; then
		check mdadm_km --create /dev/md0 --run --assume-clean --level=km \
			--layout=m$m --raid-devices=$n --chunk=64 $(members $n)
	else
		check mdadm_km --create /dev/md0 --run --assume-clean --level=6 \
			--raid-devices=$n --chunk=64 $(members $n)
	fi
	sw=$(fio_bw sw --rw=write --bs=1M --iodepth=8 --size=${SIZE}M)
	sr=$(fio_bw sr --rw=read --bs=1M --iodepth=8 --size=${SIZE}M)
	rw=$(fio_bw rw --rw=randwrite --bs=4k --iodepth=16 --size=${SIZE}M --number_ios=8000)
	check mdadm_km /dev/md0 --fail /dev/ram1
	check mdadm_km /dev/md0 --fail /dev/ram2
	dr=$(fio_bw dr --rw=read --bs=1M --iodepth=8 --size=${SIZE}M)
	# recovery of one member while the other failed one stays out, then
	# of that other one: the rebuild of a single failed member
	check mdadm_km /dev/md0 --remove /dev/ram1 /dev/ram2
	dd if=/dev/zero of=/dev/ram1 bs=1M count=1 2>/dev/null
	dd if=/dev/zero of=/dev/ram2 bs=1M count=1 2>/dev/null
	check mdadm_km /dev/md0 --add /dev/ram1
	sleep 0.2
	wait_sync md0
	rec2=$(recovery_s md0)
	check mdadm_km /dev/md0 --add /dev/ram2
	sleep 0.2
	wait_sync md0
	rec=$(recovery_s md0)
	check mdadm_km --stop /dev/md0
	echo "BENCH round $round $label seqwrite_1M_KiBs=$sw seqread_1M_KiBs=$sr randwrite_4k_KiBs=$rw degraded2_seqread_KiBs=$dr recovery_s=$rec recovery_with_1_missing_s=$rec2"
	# keep the best of the rounds (the host is shared: noise only slows)
	for v in sw sr rw dr; do
		eval "old=\${${label}_$v:-0} new=\$$v"
		eval "${label}_$v=$(echo "$old $new" | awk '{ print ($2 > $1) ? $2 : $1 }')"
	done
	for v in rec rec2; do
		eval "old=\${${label}_$v:-999999} new=\$$v"
		eval "${label}_$v=$(echo "$old $new" | awk '{ print ($2 < $1) ? $2 : $1 }')"
	done
	# and every round, for the medians
	for v in sw sr rw dr rec rec2; do
		eval "${label}_all_$v=\"\${${label}_all_$v} \$$v\""
	done
}

median() { echo "$@" | tr ' ' '\n' | grep . | sort -g | awk '{ a[NR] = $1 } END { if (NR % 2) print a[(NR + 1) / 2]; else print (a[NR / 2] + a[NR / 2 + 1]) / 2 }'; }

ROUNDS=3
round=1
while [ $round -le $ROUNDS ]; do
	run_one raid6 raid6 2
	run_one km2 km 2
	run_one km3 km 3
	run_one km4 km 4
	round=$((round + 1))
done
for l in raid6 km2 km3 km4; do
	eval "echo \"BENCH best $l seqwrite_1M_KiBs=\$${l}_sw seqread_1M_KiBs=\$${l}_sr randwrite_4k_KiBs=\$${l}_rw degraded2_seqread_KiBs=\$${l}_dr recovery_s=\$${l}_rec recovery_with_1_missing_s=\$${l}_rec2\""
done

ratio() { echo "$1 $2" | awk '{ if ($2 > 0) printf "%.2f", $1 / $2; else print "n/a" }'; }
echo "RATIO reference: md raid6 4+2, same ramdisks (${MIB} MiB each), same boot, chunk 64K, best of $ROUNDS rounds"
for l in km2 km3 km4; do
	eval "sw=\$${l}_sw sr=\$${l}_sr rw=\$${l}_rw dr=\$${l}_dr rec=\$${l}_rec rec2=\$${l}_rec2"
	echo "RATIO $l/raid6 seqwrite_1M=$(ratio $sw $raid6_sw) seqread_1M=$(ratio $sr $raid6_sr) randwrite_4k=$(ratio $rw $raid6_rw) degraded2_seqread=$(ratio $dr $raid6_dr) recovery_speed=$(ratio $raid6_rec $rec) recovery_with_1_missing_speed=$(ratio $raid6_rec2 $rec2)"
done
echo "RATIO km2 degraded2_seqread/own healthy seqread=$(ratio $km2_dr $km2_sr)"
# the same from the medians of the rounds (less flattering to a lucky round)
for l in raid6 km2 km3 km4; do
	for v in sw sr rw dr rec rec2; do
		eval "${l}_med_$v=\$(median \$${l}_all_$v)"
	done
done
for l in km2 km3 km4; do
	eval "sw=\$${l}_med_sw sr=\$${l}_med_sr rw=\$${l}_med_rw dr=\$${l}_med_dr rec=\$${l}_med_rec rec2=\$${l}_med_rec2"
	echo "MEDIAN-RATIO $l/raid6 seqwrite_1M=$(ratio $sw $raid6_med_sw) seqread_1M=$(ratio $sr $raid6_med_sr) randwrite_4k=$(ratio $rw $raid6_med_rw) degraded2_seqread=$(ratio $dr $raid6_med_dr) recovery_speed=$(ratio $raid6_med_rec $rec) recovery_with_1_missing_speed=$(ratio $raid6_med_rec2 $rec2)"
done
echo "MEDIAN-RATIO km2 degraded2_seqread/own healthy seqread=$(ratio $km2_med_dr $km2_med_sr)"
echo PASS
