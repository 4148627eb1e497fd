# Guest side of tools/bench/wide-sync-bench.sh: the rebuild of one member
# of km 4+2 and 8+3 with sync windows (wide_sync_max_rows 256) and by
# rows (0), and of md raid6 4+2 as the reference, on dm-linear members
# over brd ramdisks (dm counts the bios each member receives), 512 KiB
# chunks, in one boot, in interleaved rounds.  Prints one "BENCH" line
# per rebuild and "MEDIAN"/"RATIO" lines from the rounds' medians;
# asserts nothing about speed.
# timeout: 1800
# mem: 2048
. /lib/raidkm/lib.sh

MIB=48
ROUNDS=3
NDEV=12
ramdisks $NDEV $MIB
load_raidkm
check modprobe crc32c_generic
check modprobe raid456
check modprobe dm-mod
echo 2000000 >/proc/sys/dev/raid/speed_limit_min
echo 2000000 >/proc/sys/dev/raid/speed_limit_max
S=/sys/block/md0/md

i=0
while [ $i -lt $NDEV ]; do
	echo "0 $((MIB * 2048)) linear /dev/ram$i 0" | check dmsetup create --noudevsync d$i
	i=$((i + 1))
done
check dmsetup mknodes
# dm_ios: bios (reads + writes) every member dm device has received
dm_ios() {
	local t=0 d n
	for d in /sys/block/dm-*; do
		set -- $(cat $d/stat)
		t=$((t + $1 + $5))
	done
	echo $t
}
devs() {	# devs N: the first N dm members
	local i=0 out=""
	while [ $i -lt $1 ]; do out="$out /dev/mapper/d$i"; i=$((i + 1)); done
	echo $out
}

# rebuild LABEL LEVEL K M ROWS: seconds of the rebuild of member 1, and
# member bios per MiB of the rebuilt member
rebuild() {
	local label=$1 level=$2 k=$3 m=$4 rows=$5 n=$(($3 + $4)) io0 io1 s
	if [ $level = km ]; then
		check mdadm_km --create /dev/md0 --run --assume-clean --level=km \
			--layout=m$m --raid-devices=$n --chunk=512 $(devs $n)
		echo $rows >$S/km/wide_sync_max_rows
	else
		check mdadm_km --create /dev/md0 --run --assume-clean --level=6 \
			--raid-devices=$n --chunk=512 $(devs $n)
	fi
	check mdadm_km /dev/md0 --fail /dev/mapper/d1
	check mdadm_km /dev/md0 --remove /dev/mapper/d1
	dmesg -c >/dev/null
	io0=$(dm_ios)
	check mdadm_km /dev/md0 --add /dev/mapper/d$n
	sleep 1
	wait_sync md0
	io1=$(dm_ios)
	s=$(recovery_s md0)
	msz=$(($(cat /sys/block/md0/md/component_size) / 1024))
	w=""
	[ $level = km ] && w=" windows=$(cat $S/km/wide_sync_windows) whole=$(cat $S/km/wide_sync_whole)"
	echo "BENCH round $round $label rebuild_s=$s member_MiB=$msz member_bios_per_MiB=$(((io1 - io0) / msz))$w"
	eval "${label}_s=\"\$${label}_s $s\""
	eval "${label}_b=\"\$${label}_b $(((io1 - io0) / msz))\""
	check mdadm_km --stop /dev/md0
	wait_md_gone md0
	check mdadm_km --zero-superblock $(devs $((n + 1)))
}

median() {	# median VALUES...: the middle one (an odd count) or the lower
	echo "$@" | tr ' ' '\n' | grep . | sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'
}
ratio() { awk -v a=$1 -v b=$2 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "n/a" }'; }

round=1
while [ $round -le $ROUNDS ]; do
	rebuild raid6 raid6 4 2 0
	rebuild km42_win km 4 2 256
	rebuild km42_rows km 4 2 0
	rebuild km83_win km 8 3 256
	rebuild km83_rows km 8 3 0
	round=$((round + 1))
done

for l in raid6 km42_win km42_rows km83_win km83_rows; do
	eval "s=\$${l}_s b=\$${l}_b"
	eval "${l}_ms=$(median $s) ${l}_mb=$(median $b)"
	eval "echo \"BENCH median $l rebuild_s=\$${l}_ms member_bios_per_MiB=\$${l}_mb\""
done
# speed ratios: member MiB per second, all members the same size
echo "RATIO reference: one-member rebuild speed, medians of $ROUNDS interleaved rounds, ${MIB} MiB members, 512 KiB chunks"
echo "RATIO km42_win/raid6=$(ratio $raid6_ms $km42_win_ms) km42_rows/raid6=$(ratio $raid6_ms $km42_rows_ms) km83_win/raid6=$(ratio $raid6_ms $km83_win_ms) km83_rows/raid6=$(ratio $raid6_ms $km83_rows_ms)"
echo "RATIO windows/rows km42=$(ratio $km42_rows_ms $km42_win_ms) km83=$(ratio $km83_rows_ms $km83_win_ms)"
echo PASS
