# covers: km: wide degraded reads; km: coherence of wide reads with writers; km: rebuild; km: verified reads (read_verify)
# Wide reads against writers in the same chunk stripes (write_gen.c's
# rule).  km 4+2, 64 KiB chunks, member 0 failed.  A reader reads the
# lost data chunk of every chunk stripe (a wide read: 16 rows, decoded),
# while a writer rewrites, over and over, another data chunk of the
# stripe being read with new random data (a partial-stripe write: that
# chunk and the parity change on the members) while that stripe is even.
# The test hook wide_race_delay_ms holds each wide read 100 ms between
# its member reads and its coherence check, so writes land in the window
# of the even stripes' reads: the check must send those reads to the row
# path (write_race counted), the odd stripes' reads (no writer) must go
# wide, and every read must return the lost chunk's data, which nobody
# wrote.  At the end the whole array matches the image the
# writer kept, and check finds no mismatch after a rebuild.  Then the
# same race for verified reads (read_verify=correct, array whole): the
# hook holds them too, their member reads are done again
# (read_verify_retried), no write is judged a mismatch or corrected, no
# read fails, every read returns the chunk's data.
# timeout: 600
. /lib/raidkm/lib.sh
rmmod brd 2>/dev/null

N=6 M=2 K=4 CH=64
ramdisks 7 4
load_raidkm
S=/sys/block/md0/md
P=/sys/module/raidkm/parameters

check mdadm_km --create /dev/md0 --run --assume-clean --level=km --layout=m$M \
	--raid-devices=$N --chunk=$CH $(members $N)
size=$(blockdev --getsize64 /dev/md0)
stripes=$((size / (K * CH * 1024)))
check dd if=/dev/urandom of=/tmp/img bs=1M count=$((size >> 20)) 2>/dev/null
check dd if=/tmp/img of=/dev/md0 bs=1M oflag=direct 2>/dev/null
check mdadm_km /dev/md0 --fail /dev/ram0

# lost data chunk index of stripe S on member 0 (layout.h), or -1 (parity)
lost_chunk() {
	p=$((N - 1 - $1 % N))
	rel=$(((0 - p - 1 + 2 * N) % N))
	[ $rel -lt $K ] && echo $rel || echo -1
}

chunk_sum() {	# FILE INDEX [iflag]
	dd if=$1 bs=${CH}k skip=$2 count=1 ${3:+iflag=$3} 2>/dev/null |
		md5sum | cut -d' ' -f1
}

# the writer rewrites, over and over, another data chunk of the stripe
# the reader is reading (/tmp/cur, replaced whole by rename) when that
# stripe is even; it idles on odd ones
writer() {
	writes=0
	while [ ! -e /tmp/stop ]; do
		s=$(cat /tmp/cur)
		if [ $((s % 2)) = 1 ]; then sleep 0.05; continue; fi
		d=$(lost_chunk $s)
		w=$((s * K + (d + 1) % K))
		dd if=/dev/urandom of=/tmp/w bs=${CH}k count=1 2>/dev/null
		dd if=/tmp/w of=/dev/md0 bs=${CH}k seek=$w oflag=direct conv=notrunc 2>/dev/null ||
			{ echo "writer: write failed"; exit 1; }
		dd if=/tmp/w of=/tmp/img bs=${CH}k seek=$w conv=notrunc 2>/dev/null
		writes=$((writes + 1))
	done
	echo "writer: $writes writes"
}

echo 4 > $S/km/wide_read_min_rows
echo 100 > $P/wide_race_delay_ms || fail "no wide_race_delay_ms hook"
# race ROUNDS WHAT: the writer in the background while the reader reads
# member 0's data chunk of every chunk stripe ROUNDS times; each read
# must return the image's data (WHAT names the read in the failure)
race() {
	echo 0 > /tmp/cur
	rm -f /tmp/stop
	writer &
	wpid=$!
	round=0
	while [ $round -lt $1 ]; do
		s=0
		while [ $s -lt $stripes ]; do
			d=$(lost_chunk $s)
			if [ $d -ge 0 ]; then
				echo $s > /tmp/cur.new && mv /tmp/cur.new /tmp/cur
				i=$((s * K + d))
				got=$(chunk_sum /dev/md0 $i direct)
				want=$(chunk_sum /tmp/img $i)
				[ "$got" = "$want" ] || { touch /tmp/stop; fail "stripe $s: $2 of chunk $d wrong during writes"; }
			fi
			s=$((s + 1))
		done
		round=$((round + 1))
	done
	touch /tmp/stop
	wait $wpid || fail "writer failed"
}
race 3 "wide read of lost"
echo 0 > $P/wide_race_delay_ms
cat $S/km/wide_read_fallbacks
races=$(awk '$1 == "write_race" { print $2 }' $S/km/wide_read_fallbacks)
wide=$(cat $S/km/wide_reads)
echo "wide_reads=$wide write_race=$races"
[ "$races" -gt 0 ] || fail "no read met a write in its window: the race was not forced"
[ "$wide" -gt 0 ] || fail "no wide read completed"

note "the whole array matches the writer's image"
got=$(dd if=/dev/md0 bs=1M iflag=direct 2>/dev/null | md5sum | cut -d' ' -f1)
want=$(md5sum < /tmp/img | cut -d' ' -f1)
[ "$got" = "$want" ] || fail "array differs from the image after the race"
note "rebuild, then check"
check mdadm_km /dev/md0 --remove /dev/ram0
check mdadm_km /dev/md0 --add /dev/ram6
wait_sync md0
echo check > $S/sync_action
sleep 1
wait_sync md0
[ "$(cat $S/mismatch_cnt)" = 0 ] || fail "mismatch_cnt $(cat $S/mismatch_cnt)"
got=$(dd if=/dev/md0 bs=1M iflag=direct 2>/dev/null | md5sum | cut -d' ' -f1)
[ "$got" = "$want" ] || fail "array differs from the image after the rebuild"

# Verified reads (read_verify=correct, the array whole again) against the
# same writer: each read of member 0's data chunk reads its chunk stripe
# on every member and checks it against parity; the hook holds it 100 ms
# before its coherence check, so writes land in the window: the member
# reads must be done again (read_verify_retried), never judged a
# mismatch, and every read must return the chunk's data.
note "verified reads against a writer in the same chunk stripes"
echo correct > $S/km/read_verify
V=$S/km/read_verify
v0=$(cat ${V}_reads) mm0=$(cat ${V}_mismatches) f0=$(cat ${V}_failed)
rt0=$(cat ${V}_retried) c0=$(cat ${V}_corrected)
echo 100 > $P/wide_race_delay_ms
race 1 "verified read"
echo 0 > $P/wide_race_delay_ms
for c in reads mismatches corrected failed unverified raced retried; do
	echo "read_verify_$c $(cat ${V}_$c)"
done
[ "$(cat ${V}_reads)" -gt "$v0" ] || fail "no read was verified"
[ "$(cat ${V}_retried)" -gt "$rt0" ] || fail "no verified read met a write in its window: the race was not forced"
[ "$(cat ${V}_mismatches)" = "$mm0" ] || fail "a concurrent write was judged a mismatch"
[ "$(cat ${V}_corrected)" = "$c0" ] || fail "a concurrent write was 'corrected'"
[ "$(cat ${V}_failed)" = "$f0" ] || fail "a verified read failed during writes"
echo off > $S/km/read_verify
want=$(md5sum < /tmp/img | cut -d' ' -f1)
got=$(dd if=/dev/md0 bs=1M iflag=direct 2>/dev/null | md5sum | cut -d' ' -f1)
[ "$got" = "$want" ] || fail "array differs from the image after the verified reads"
echo check > $S/sync_action
sleep 1
wait_sync md0
[ "$(cat $S/mismatch_cnt)" = 0 ] || fail "mismatch_cnt $(cat $S/mismatch_cnt) after the verified reads"
check mdadm_km --stop /dev/md0
rmmod brd
echo PASS
