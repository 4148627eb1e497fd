# covers: km: wide degraded reads; km: read errors; km: bad blocks; km: suspend
# Wide degraded reads meeting faults: each goes to the row path, which
# returns good data, and the reason is counted in wide_read_fallbacks.
#  - a bad-block record inside a wide range (md's dev-X/bad_blocks)
#  - a MEDIUM ERROR inside a wide range: a scsi_debug member that fails
#    reads of 64 sectors; the row path rebuilds and rewrites them
#    (read_errors_corrected), the member stays in
#  - a member whose reads start failing in the middle of wide reads (a
#    dm target switched to "error" under fio): the reads verify, the
#    member is failed
#  - suspend/resume (suspend_lo/hi) over and over while wide reads run
# timeout: 600
. /lib/raidkm/lib.sh
rmmod brd 2>/dev/null

N=6 M=2 MIB=8
ramdisks 7 $MIB
scsi_debug_disk $MIB
check modprobe dm-mod
load_raidkm
S=/sys/block/md0/md
D=/sys/bus/pseudo/drivers/scsi_debug
PD=/sys/module/scsi_debug/parameters
A="--name=a --rw=write --bs=1M --size=24M --offset=0"

fb() { awk -v r=$1 '$1 == r { print $2 }' $S/km/wide_read_fallbacks; }

# fresh ARRAY-MEMBERS...: a 4+2 array with region A written, member 0
# (the first named) failed
fresh() {
	check mdadm_km --create /dev/md0 --run --assume-clean --level=km \
		--layout=m$M --raid-devices=$N --chunk=64 "$@"
	fiov $A
	check mdadm_km /dev/md0 --fail $1
}

note "a bad-block record inside a wide range"
fresh $(members $N)
off=$(cat $S/dev-ram2/offset)
# member sectors 64..71 of ram2: chunk stripe 0, rows 8
echo "$((off + 64)) 8" > $S/dev-ram2/bad_blocks || fail "cannot record a bad block"
b0=$(fb bad_block)
fiov $A --verify_only
[ "$(fb bad_block)" -gt "$b0" ] || fail "no bad_block fallback: $(cat $S/km/wide_read_fallbacks)"
[ "$(cat $S/km/wide_reads)" -gt 0 ] || fail "no wide reads elsewhere"
check mdadm_km --stop /dev/md0

note "a medium error inside a wide range"
check mdadm_km --zero-superblock $(members $N) 2>/dev/null
fresh /dev/ram0 /dev/ram1 /dev/$sd /dev/ram2 /dev/ram3 /dev/ram4
off=$(cat $S/dev-$sd/offset)
bad=$((off + 32))
echo $bad > $PD/medium_error_start || fail "medium_error_start"
echo 64 > $PD/medium_error_count || fail "medium_error_count"
echo 2 > $D/opts
# the stripe cache still holds the rows fio wrote: start from the members
echo 16 > $S/km/stripe_cache_size
echo 256 > $S/km/stripe_cache_size
r0=$(fb read_error)
fiov $A --verify_only
echo 0 > $D/opts
[ "$(fb read_error)" -gt "$r0" ] || fail "no read_error fallback: $(cat $S/km/wide_read_fallbacks)"
[ "$(cat $S/km/read_errors_corrected)" -gt 0 ] || fail "the row path corrected nothing"
grep -A1 '^md0 ' /proc/mdstat | grep -q '\[6/5\]' || fail "the scsi_debug member was failed: $(cat /proc/mdstat)"
fiov $A --verify_only
check mdadm_km --stop /dev/md0

note "a member's reads fail in the middle of wide reads"
check mdadm_km --zero-superblock /dev/ram0 /dev/ram1 /dev/$sd /dev/ram2 /dev/ram3 /dev/ram4 2>/dev/null
sz=$((MIB * 2048))
echo "0 $sz linear /dev/ram5 0" | dmsetup create --noudevsync flip || fail "dm over ram5"
dmsetup mknodes flip
fresh /dev/ram0 /dev/ram1 /dev/ram2 /dev/mapper/flip /dev/ram3 /dev/ram4
r0=$(fb read_error)
# verified reads of region A, again and again until one whole pass has
# run after the member went bad (3 s in): a fixed count of passes could
# end before that on a fast host
rm -f /tmp/flipped
(
	while :; do
		after=0
		[ -e /tmp/flipped ] && after=1
		fio --filename=/dev/md0 --direct=1 --ioengine=libaio --iodepth=4 \
			--verify=crc32c --verify_fatal=1 $A --verify_only --loops=2 \
			>>/tmp/fio.flip 2>&1 || exit 1
		[ $after = 1 ] && exit 0
	done
) &
pid=$!
sleep 3
dmsetup suspend --noudevsync flip
echo "0 $sz error" | dmsetup load flip
dmsetup resume --noudevsync flip
touch /tmp/flipped
wait $pid || { cat /tmp/fio.flip; fail "reads failed when a member went bad under them"; }
[ "$(fb read_error)" -gt "$r0" ] || echo "note: no wide read met the error ($(cat $S/km/wide_read_fallbacks))"
grep -A1 '^md0 ' /proc/mdstat | grep -q '\[6/4\]' || fail "the failing member is still in: $(cat /proc/mdstat)"
fiov $A --verify_only
check mdadm_km --stop /dev/md0
dmsetup remove --noudevsync flip

note "suspend and resume while wide reads run"
check mdadm_km --zero-superblock $(members $N) 2>/dev/null
fresh $(members $N)
w0=$(cat $S/km/wide_reads)
fio --filename=/dev/md0 --direct=1 --ioengine=libaio --iodepth=4 --verify=crc32c \
	--verify_fatal=1 $A --verify_only --loops=4 >/tmp/fio.susp 2>&1 &
pid=$!
i=0
while [ $i -lt 20 ]; do
	echo $((i * 1024)) > $S/suspend_lo
	echo $((i * 1024 + 8192)) > $S/suspend_hi
	sleep 0.1
	echo 0 > $S/suspend_hi
	echo 0 > $S/suspend_lo
	i=$((i + 1))
done
wait $pid || { cat /tmp/fio.susp; fail "reads failed across suspends"; }
[ "$(cat $S/km/wide_reads)" -gt "$w0" ] || fail "no wide reads under suspends"
check mdadm_km --stop /dev/md0
rmmod brd 2>/dev/null
echo PASS
