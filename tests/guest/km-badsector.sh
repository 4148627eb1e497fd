# covers: km: read errors
# A member with bad sectors: a scsi_debug disk that answers MEDIUM ERROR
# for reads of 64 sectors (writes succeed) under data chunk 2 of chunk
# stripe 0, with wrong data planted there.  Reads of the array return
# good data (rebuilt from the others), the sectors get rewritten and are
# counted in read_errors_corrected, the member stays in the array; once
# the medium errors stop, the rewritten sectors verify and check finds
# no mismatch.  With max_read_errors lowered, more errors fail the member
# and the data still verifies.
# timeout: 180
. /lib/raidkm/lib.sh
# a previous scenario of the same boot may have left ramdisks behind
rmmod brd 2>/dev/null

N=6 M=2 MIB=8
ramdisks 5 $MIB
scsi_debug_disk $MIB
load_raidkm
S=/sys/block/md0/md
P=/sys/module/scsi_debug/parameters
D=/sys/bus/pseudo/drivers/scsi_debug

A="--name=a --rw=write --bs=128k --size=24M --offset=0"

# member 2 is the scsi_debug disk
check mdadm_km --create /dev/md0 --run --assume-clean --level=km --layout=m$M \
	--raid-devices=$N --chunk=64 /dev/ram0 /dev/ram1 /dev/$sd /dev/ram2 /dev/ram3 /dev/ram4
fiov $A

# 64 sectors at member sector 32: data chunk 2 of chunk stripe 0
off=$(cat $S/dev-$sd/offset)
bad=$((off + 32))
note "bad sectors $bad..$((bad + 63)) on $sd (data offset $off)"
check dd if=/dev/urandom of=/dev/$sd bs=512 count=64 seek=$bad conv=notrunc 2>/dev/null
check blockdev --flushbufs /dev/$sd
echo $bad > $P/medium_error_start || fail "cannot set medium_error_start"
echo 64 > $P/medium_error_count || fail "cannot set medium_error_count"
echo 2 > $D/opts
# the stripe cache may still hold these rows: start from the members
echo 16 > $S/km/stripe_cache_size
echo 256 > $S/km/stripe_cache_size

note "read everything back through md"
fiov $A --verify_only
rec=$(cat $S/km/read_errors_corrected)
echo "read_errors_corrected=$rec"
[ "$rec" -ge 8 ] || fail "expected the 8 rows to be corrected, got $rec"
dmesg | grep -q 'md/km:md0: read error corrected' || fail "no kernel message about the correction"
grep -A1 '^md0 ' /proc/mdstat | grep -q '\[6/6\]' || fail "member failed: $(cat /proc/mdstat)"

note "medium errors off: the rewritten sectors hold good data"
echo 0 > $D/opts
echo 16 > $S/km/stripe_cache_size
fiov $A --verify_only
echo check > $S/sync_action
sleep 1
wait_sync md0
[ "$(cat $S/mismatch_cnt)" = 0 ] || fail "mismatch_cnt $(cat $S/mismatch_cnt): bad sectors not rewritten"

note "repeated read errors fail the member, as md does"
echo 2 > $D/opts
echo 1 > $S/max_read_errors
echo 16 > $S/km/stripe_cache_size
fiov $A --verify_only
dmesg | grep -q 'md/km:md0: too many read errors on sda' || fail "no 'too many read errors' message"
grep -A1 '^md0 ' /proc/mdstat | grep -q '\[6/5\] \[UU_UUU\]' || fail "sda not failed: $(cat /proc/mdstat)"
fiov $A --verify_only
check mdadm_km --stop /dev/md0
rmmod brd 2>/dev/null
rmmod scsi_debug 2>/dev/null
echo PASS
