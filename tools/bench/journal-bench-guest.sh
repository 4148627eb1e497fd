# Guest side of tools/bench/journal-bench.sh: what the write journal
# and the member log cost.  km 4+2 without and with a journal, md raid6
# 4+2 without and with its journal (write-through), km 4+2 with an
# internal bitmap without and with a member log (--layout=m2,log: labels
# ..._b and ..._l) and km 4+2 with a member log and no bitmap (..._L,
# against plain km), members and journal all brd ramdisks of the same
# size, 64 KiB chunks, in one boot, in interleaved rounds:
# sequential 1 MiB writes (MB/s) and 4 KiB random writes (IOPS, and
# p50/p99 completion latency), O_DIRECT.  Then the same on disk-like
# members with the journal on a faster device, as the admin guide
# recommends (an SSD in front of disks): every member write delayed
# SLOW_MS by dm-delay, the journal a plain ramdisk (labels d...).  On
# ramdisks the guest's emulated copies bound every array, and a journal
# copies each byte again; on disk-like members the members are the
# bound, as on real disks.  Prints one "BENCH" line per run and
# "MEDIAN"/"RATIO" lines from the rounds' medians; asserts nothing about
# speed.
# timeout: 1800
# mem: 2048
. /lib/raidkm/lib.sh

MIB=96
ROUNDS=3
SEQ_MIB=128
RAND_S=10
SLOW_MS=200	# disk-like pass: ms of dm-delay per member write (0: none);
		# 4 x 1 MiB in flight then allow 20 MB/s, below the guest's own
		# copies (35-90 MB/s on ramdisks), so the members bound it
ramdisks 7 $MIB
load_raidkm
check modprobe crc32c_generic
check modprobe raid456
S=/sys/block/md0/md
ramdevs="/dev/ram0 /dev/ram1 /dev/ram2 /dev/ram3 /dev/ram4 /dev/ram5"
devs=$ramdevs
jdev=/dev/ram6

# fio's JSON read by awk: the numbers of the "write" section
seq_mbs() {	# MiB/s of sequential 1 MiB writes
	fio --filename=/dev/md0 --direct=1 --ioengine=libaio --iodepth=4 \
		--name=s --rw=write --bs=1M --size=${SEQ_MIB}M \
		--output-format=json 2>/dev/null |
		awk '
			/"write" :/ { w = 1 }
			w && /"bw" :/ && !b { gsub(/[ ,]/, "", $3); b = int($3 / 1024) }
			END { print b + 0 }'
}
rand_iops_lat() {	# prints "IOPS P50_US P99_US"
	fio --filename=/dev/md0 --direct=1 --ioengine=libaio --iodepth=16 \
		--name=r --rw=randwrite --bs=4k --size=64M --time_based \
		--runtime=$RAND_S --output-format=json 2>/dev/null |
		awk '
			/"write" :/ { w = 1 }
			w && /"iops" :/ && !i { gsub(/[ ,]/, "", $3); i = int($3) }
			w && /"50.000000" :/ && !p50 { gsub(/[ ,]/, "", $3); p50 = int($3 / 1000) }
			w && /"99.000000" :/ && !p99 { gsub(/[ ,]/, "", $3); p99 = int($3 / 1000) }
			END { print i + 0, p50 + 0, p99 + 0 }'
}

# run LABEL: create the array LABEL names, measure, stop
run() {
	local label=$1 j="" lay=m2
	case $label in
	*_j) j="--write-journal $jdev" ;;
	*_b) j="--bitmap=internal" ;;
	*_l) j="--bitmap=internal" lay=m2,log ;;
	*_L) j="--bitmap=none" lay=m2,log ;;
	esac
	case $label in
	*km*)
		check mdadm_km --create /dev/md0 --run --assume-clean --level=km \
			--layout=$lay --raid-devices=6 --chunk=64 $j $devs ;;
	*raid6*)
		check mdadm_km --create /dev/md0 --run --assume-clean --level=6 \
			--raid-devices=6 --chunk=64 $j $devs ;;
	esac
	seq=$(seq_mbs)
	set -- $(rand_iops_lat)
	extra=""
	[ -r $S/km/journal ] && extra=" $(grep -E '^(records|pages|space_waits|light_records) ' $S/km/journal | tr '\n' ' ')"
	echo "BENCH round $round $label seq_write_MBps=$seq randwrite_iops=$1 randwrite_p50_us=$2 randwrite_p99_us=$3$extra"
	eval "${label}_seq=\"\$${label}_seq $seq\""
	eval "${label}_iops=\"\$${label}_iops $1\""
	eval "${label}_p99=\"\$${label}_p99 $3\""
	check mdadm_km --stop /dev/md0
	wait_md_gone md0
	check mdadm_km --zero-superblock $devs
	mdadm_km --zero-superblock $jdev 2>/dev/null
}

median() {	# median VALUES...: the middle one (an odd count) or the lower
	echo "$@" | tr ' ' '\n' | grep . | sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'
}
ratio() { awk -v a=$1 -v b=$2 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "n/a" }'; }

# rounds LABELS...: $ROUNDS interleaved rounds of the labels' runs
rounds() {
	round=1
	while [ $round -le $ROUNDS ]; do
		for l in "$@"; do
			run $l
		done
		round=$((round + 1))
	done
}

# report A B C D: medians of the labels (A without, B with a journal, C
# raid6 without, D raid6 with) and their ratios
report() {
	for l in "$@"; do
		eval "s=\$${l}_seq i=\$${l}_iops p=\$${l}_p99"
		eval "${l}_ms=$(median $s) ${l}_mi=$(median $i) ${l}_mp=$(median $p)"
		eval "echo \"BENCH median $l seq_write_MBps=\$${l}_ms randwrite_iops=\$${l}_mi randwrite_p99_us=\$${l}_mp (of $ROUNDS)\""
	done
	eval "a=\$${1}_ms b=\$${2}_ms c=\$${3}_ms d=\$${4}_ms"
	echo "RATIO seq_write $2/$1=$(ratio $b $a) $4/$3=$(ratio $d $c) $2/$4=$(ratio $b $d)"
	eval "a=\$${1}_mi b=\$${2}_mi c=\$${3}_mi d=\$${4}_mi"
	echo "RATIO randwrite_iops $2/$1=$(ratio $b $a) $4/$3=$(ratio $d $c) $2/$4=$(ratio $b $d)"
}

# report_log B L: the member log (L) against the same array without it
# (B), from the rounds' medians, with each round's values
report_log() {
	local l
	for l in "$@"; do
		eval "s=\$${l}_seq i=\$${l}_iops p=\$${l}_p99"
		eval "${l}_ms=$(median $s) ${l}_mi=$(median $i) ${l}_mp=$(median $p)"
		eval "echo \"BENCH median $l seq_write_MBps=\$${l}_ms randwrite_iops=\$${l}_mi randwrite_p99_us=\$${l}_mp (of $ROUNDS) rounds: seq \$${l}_seq iops \$${l}_iops\""
	done
	eval "a=\$${1}_ms b=\$${2}_ms"
	echo "RATIO seq_write $2/$1=$(ratio $b $a) (goal >= 0.80)"
	eval "a=\$${1}_mi b=\$${2}_mi"
	echo "RATIO randwrite_iops $2/$1=$(ratio $b $a)"
}

rounds km km_j raid6 raid6_j km_b km_l km_L
echo "RATIO reference: medians of $ROUNDS interleaved rounds, ${MIB} MiB brd members and journal, 64 KiB chunks, 4+2"
report km km_j raid6 raid6_j
report_log km_b km_l
report_log km km_L

if [ "$SLOW_MS" -gt 0 ]; then
	note "disk-like members: dm-delay $SLOW_MS ms per member write; the journal a ramdisk"
	check modprobe dm-delay
	devs=""
	for d in $ramdevs; do
		n=${d#/dev/ram}
		echo "0 $(blockdev --getsz $d) delay $d 0 0 $d 0 $SLOW_MS" |
			dmsetup create --noudevsync slow$n || fail "dm-delay over $d"
		dmsetup mknodes slow$n
		devs="$devs /dev/mapper/slow$n"
	done
	rounds dkm dkm_j draid6 draid6_j dkm_b dkm_l dkm_L
	echo "RATIO reference: medians of $ROUNDS interleaved rounds, members ${MIB} MiB brd behind dm-delay ($SLOW_MS ms a write), journal a ${MIB} MiB brd, 64 KiB chunks, 4+2"
	report dkm dkm_j draid6 draid6_j
	report_log dkm_b dkm_l
	report_log dkm dkm_L
	for d in $ramdevs; do dmsetup remove --noudevsync slow${d#/dev/ram}; done
fi
echo PASS
