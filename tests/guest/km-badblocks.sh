# covers: km: bad-block list
# A member sector that can be neither read nor written goes to md's
# bad-block list instead of failing the member.  km 4+2 (64 KiB chunks),
# member 2 a dm device over a ramdisk whose table turns 32 sectors (four
# rows of data chunk 2 in chunk stripe 0) into an "error" target: reads
# and writes there fail.
#   - reads of the array return good data; the rewrite of each row fails
#     and is recorded (dev-X/bad_blocks, km/bad_blocks_recorded), the
#     member stays in the array; later reads and writes skip those rows
#     (no new read error), data verifies, check finds no mismatch;
#     mdadm --examine-badblocks shows the range from the superblock;
#   - stopped and assembled with the error gone: the record still holds
#     (rows rebuilt, the stale sectors never read); writing the rows
#     again drops it (km/bad_blocks_cleared), data verifies;
#   - 0.90 metadata (no bad-block log): the member is failed, as before.
# timeout: 240
. /lib/raidkm/lib.sh
# a previous scenario of the same boot may have left ramdisks behind
rmmod brd 2>/dev/null
dmsetup remove --noudevsync bad 2>/dev/null

MIB=8
ramdisks 6 $MIB
load_raidkm
S=/sys/block/md0/md
SZ=$((MIB * 2048))

check modprobe dm-mod
# (no udev here: make the node ourselves)
echo "0 $SZ linear /dev/ram5 0" >/tmp/table
check dmsetup create --noudevsync bad /tmp/table
check dmsetup mknodes bad
BAD=/dev/mapper/bad
DM=dm-$(dmsetup info -c --noheadings -o minor bad | tr -d ' ')

# errors ON|OFF: sectors $B..$B+31 of the dm member fail (or not)
errors() {
	if [ $1 = ON ]; then
		printf '0 %d linear /dev/ram5 0\n%d 32 error\n%d %d linear /dev/ram5 %d\n' \
			$B $B $((B + 32)) $((SZ - B - 32)) $((B + 32)) >/tmp/table
	else
		echo "0 $SZ linear /dev/ram5 0" >/tmp/table
	fi
	check dmsetup suspend bad
	check dmsetup load bad /tmp/table
	check dmsetup resume bad
}

# forget what the stripe cache holds
drop_cache() {
	echo 16 > $S/km/stripe_cache_size
	echo 256 > $S/km/stripe_cache_size
}

read_errs() {
	dmesg | grep -c "md/km:md0: read error on $DM"
}

# bb: "FIRST TOTAL" of the member's bad-block entries (md may keep
# adjacent rows in separate entries)
bb() {
	awk 'NR == 1 { s = $1 } { n += $2 } END { if (NR) print s, n }' $S/dev-$DM/bad_blocks
}

# ebb: the same from the superblock's log (mdadm --examine-badblocks)
ebb() {
	mdadm_km --examine-badblocks $BAD >/tmp/ebb 2>&1
	cat /tmp/ebb >&2
	awk '$2 == "for" { if (!s) s = $1; n += $3 } END { if (n) print s, n }' /tmp/ebb
}

A="--name=a --rw=write --bs=128k --size=8M --offset=0"

note "1.2 metadata (bad-block log); member 2 is $BAD ($DM)"
check mdadm_km --create /dev/md0 --run --assume-clean --level=km --layout=m2 \
	--raid-devices=6 --chunk=64 /dev/ram0 /dev/ram1 $BAD /dev/ram2 /dev/ram3 /dev/ram4
fiov $A
off=$(cat $S/dev-$DM/offset)
B=$((off + 32))
[ -z "$(bb)" ] || fail "bad blocks before any error: $(bb)"
errors ON
drop_cache

note "read everything: rows rebuilt, rewrites fail, rows recorded"
fiov $A --verify_only
rec=$(cat $S/km/bad_blocks_recorded)
[ "$rec" = 4 ] || fail "bad_blocks_recorded $rec, expected 4 rows"
cat $S/dev-$DM/bad_blocks
[ "$(bb)" = "$B 32" ] || fail "dev-$DM/bad_blocks '$(bb)', expected '$B 32'"
dmesg | grep -q "md/km:md0: $DM: member sectors 32-39 cannot be written: recorded as bad blocks" ||
	fail "no kernel message about the record"
grep -A1 '^md0 ' /proc/mdstat | grep -q '\[6/6\] \[UUUUUU\]' || fail "member failed: $(cat /proc/mdstat)"
[ "$(cat $S/km/read_errors_corrected)" = 0 ] || fail "read_errors_corrected $(cat $S/km/read_errors_corrected)"

note "the recorded rows are skipped from now on"
errs=$(read_errs)
drop_cache
fiov $A --verify_only
[ "$(read_errs)" = "$errs" ] || fail "recorded rows were read again ($errs, now $(read_errs) read errors)"
A2="$A --randseed=4242"
fiov $A2
drop_cache
fiov $A2 --verify_only
[ "$(read_errs)" = "$errs" ] || fail "read errors after the rewrite: $(read_errs)"
[ "$(cat $S/km/bad_blocks_recorded)" = 4 ] || fail "bad_blocks_recorded $(cat $S/km/bad_blocks_recorded) after writes"
grep -A1 '^md0 ' /proc/mdstat | grep -q '\[6/6\]' || fail "member failed on writes: $(cat /proc/mdstat)"
check_clean md0 "with recorded rows"
wait_clean md0
[ "$(ebb)" = "$B 32" ] || fail "--examine-badblocks: '$(ebb)', expected $B for 32 sectors"

note "assembled again with the error gone: the record holds"
check mdadm_km --stop /dev/md0
errors OFF
check mdadm_km --assemble /dev/md0 /dev/ram0 /dev/ram1 $BAD /dev/ram2 /dev/ram3 /dev/ram4
[ "$(bb)" = "$B 32" ] || fail "record lost on assembly: '$(bb)'"
# the rows under the record still hold the first pattern: never read them
fiov $A2 --verify_only
note "written again: the record is dropped"
A3="$A --randseed=77"
fiov $A3
[ -z "$(bb)" ] || fail "record not dropped: '$(bb)'"
[ "$(cat $S/km/bad_blocks_cleared)" = 4 ] || fail "bad_blocks_cleared $(cat $S/km/bad_blocks_cleared)"
drop_cache
fiov $A3 --verify_only
check_clean md0 "after the record was dropped"
wait_clean md0
[ -z "$(ebb)" ] || fail "--examine-badblocks still lists $(ebb)"
check mdadm_km --stop /dev/md0

note "0.90 metadata, no bad-block log: the member fails"
for d in /dev/ram0 /dev/ram1 $BAD /dev/ram2 /dev/ram3 /dev/ram4; do
	check mdadm_km --zero-superblock $d
done
check mdadm_km --create /dev/md0 --run --assume-clean --metadata=0.90 --level=km \
	--layout=m2 --raid-devices=6 --chunk=64 /dev/ram0 /dev/ram1 $BAD /dev/ram2 /dev/ram3 /dev/ram4
fiov $A
off=$(cat $S/dev-$DM/offset)
B=$((off + 32))
errors ON
drop_cache
fiov $A --verify_only
grep -A1 '^md0 ' /proc/mdstat | grep -q '\[6/5\] \[UU_UUU\]' || fail "member not failed: $(cat /proc/mdstat)"
[ "$(cat $S/km/bad_blocks_recorded)" = 0 ] || fail "bad_blocks_recorded $(cat $S/km/bad_blocks_recorded) without a log"
fiov $A --verify_only
check mdadm_km --stop /dev/md0
check dmsetup remove --noudevsync bad
rmmod brd 2>/dev/null
echo PASS
