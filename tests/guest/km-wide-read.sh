# covers: km: wide degraded reads; km: degraded I/O
# Wide degraded reads (wide_read.c) over geometries from 2+1 to 16+8 and
# chunks from 4 KiB to 512 KiB: the array is filled, its checksum taken
# healthy, then members fail one after another (1, a middle count and m)
# and the whole array is read back with O_DIRECT at 1 MiB, 192 KiB and
# 4 KiB (below the row threshold: the row path) and must match.  Wide
# reads must have served (wide_reads rises), members must have received
# multi-page reads (wide_member_read_bytes / wide_member_reads >= 4 rows)
# and no fallback other than the expected ones may be counted.  With
# wide_read_min_rows=0 the same reads go by rows and wide_reads stays.
# timeout: 1500
# mem: 1536
. /lib/raidkm/lib.sh
# a previous scenario of the same boot may have left ramdisks behind
rmmod brd 2>/dev/null

load_raidkm
S=/sys/block/md0/md/km

km() { cat $S/$1; }

# read_all BS [COUNT]: md5 of the array (or its first COUNT blocks) read
# with O_DIRECT in BS blocks
read_all() {
	dd if=/dev/md0 bs=$1 ${2:+count=$2} iflag=direct 2>/dev/null |
		md5sum | cut -d' ' -f1
}

# expect_sum BS WHAT: the array read in BS blocks matches the healthy sum
# (4 KiB blocks: the first 2 MiB, by rows, against its healthy sum)
expect_sum() {
	if [ $1 = 4k ]; then
		got=$(read_all 4k 512) want=$sum4
	else
		got=$(read_all $1) want=$sum
	fi
	[ "$got" = "$want" ] || fail "$2: read with bs=$1 differs ($got, healthy $want)"
}

# fallbacks other than the ones a read of this kind may take
check_fallbacks() {
	bad=$(awk '$1 != "write_race" && $2 != 0' $S/wide_read_fallbacks)
	[ -z "$bad" ] || fail "$1: unexpected wide read fallbacks: $bad"
}

one() {
	k=$1 m=$2 chunk=$3 mib=$4 minrows=$5
	n=$((k + m))
	note "k=$k m=$m chunk=${chunk}K members of ${mib} MiB"
	ramdisks $n $mib
	check mdadm_km --create /dev/md0 --run --assume-clean --level=km \
		--layout=m$m --raid-devices=$n --chunk=$chunk $(members $n)
	size=$(blockdev --getsize64 /dev/md0)
	check fio --name=fill --filename=/dev/md0 --direct=1 --rw=write \
		--bs=1M --size=$size --ioengine=libaio --iodepth=4 \
		--refill_buffers >/dev/null
	sum=$(read_all 1M)
	sum4=$(read_all 4k 512)
	echo $minrows > $S/wide_read_min_rows || fail "wide_read_min_rows=$minrows refused"
	[ "$(km wide_read_min_rows)" = $minrows ] || fail "wide_read_min_rows not set"
	mid=$(((m + 1) / 2))
	e=0
	for target in 1 $mid $m; do
		while [ $e -lt $target ]; do
			check mdadm_km /dev/md0 --fail /dev/ram$e
			e=$((e + 1))
		done
		w0=$(km wide_reads)
		expect_sum 1M "$e of $m failed"
		w1=$(km wide_reads)
		[ "$w1" -gt "$w0" ] || fail "$e failed: no wide reads for 1 MiB reads"
		expect_sum 192k "$e of $m failed"
		expect_sum 4k "$e of $m failed"
		check_fallbacks "$e failed"
	done
	reads=$(km wide_member_reads)
	bytes=$(km wide_member_read_bytes)
	echo "wide_reads=$(km wide_reads) member reads=$reads bytes=$bytes rows=$(km wide_read_rows)"
	[ $((bytes / reads)) -ge $((minrows * 4096)) ] ||
		fail "member reads of $((bytes / reads)) bytes on average"
	note "wide reads off: by rows, same data"
	echo 0 > $S/wide_read_min_rows
	w0=$(km wide_reads)
	expect_sum 1M "wide reads off"
	[ "$(km wide_reads)" = "$w0" ] || fail "wide reads with wide_read_min_rows=0"
	check mdadm_km --stop /dev/md0
	rmmod brd || fail "rmmod brd"
}

note "bad input to wide_read_min_rows changes nothing"
ramdisks 3 4
check mdadm_km --create /dev/md0 --run --assume-clean --level=km --layout=m1 \
	--raid-devices=3 --chunk=64 $(members 3)
old=$(km wide_read_min_rows)
for v in -1 x 257 99999999999; do
	echo $v > $S/wide_read_min_rows 2>/dev/null && fail "wide_read_min_rows=$v accepted"
done
[ "$(km wide_read_min_rows)" = "$old" ] || fail "wide_read_min_rows changed by bad input"
check mdadm_km --stop /dev/md0
rmmod brd

# this kernel's share of the geometries (lib.sh's share)
for g in $(share 2:1:4:4:1 4:2:64:8:4 8:3:512:8:4 6:4:16:4:2 16:8:128:2:4); do
	one $(echo $g | tr : ' ')
done
echo PASS
