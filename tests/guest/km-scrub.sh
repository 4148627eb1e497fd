# covers: km: check and repair
# Silent corruption planted behind md's back in two data chunks and one
# parity chunk of a km 4+2 array: "check" counts the three rows,
# "repair" locates each corrupted chunk, rebuilds and rewrites it (and
# says which in the kernel log); the original data verifies afterwards.
# timeout: 180
. /lib/raidkm/lib.sh
# a previous scenario of the same boot may have left ramdisks behind
rmmod brd 2>/dev/null

N=6 M=2
ramdisks $N 8
load_raidkm
S=/sys/block/md0/md

A="--name=a --rw=write --bs=256k --size=24M --offset=0"

check mdadm_km --create /dev/md0 --run --assume-clean --level=km --layout=m$M \
	--raid-devices=$N --chunk=64 $(members $N)
fiov $A

# plant 512 bytes of garbage at member sector MSEC of ramR
plant() {
	off=$(cat $S/dev-ram$1/offset)
	check dd if=/dev/urandom of=/dev/ram$1 bs=512 count=1 seek=$((off + $2)) conv=notrunc 2>/dev/null
	# write back the member's page cache: md reads the device underneath
	check blockdev --flushbufs /dev/ram$1
}
# chunk stripe 0: data 0..3 on ram0..3, parity 0 on ram5, parity 1 on ram4
# chunk stripe 1: data 0 on ram5 (see Documentation/layout.rst)
plant 2 19
plant 4 66
plant 5 139

note "check"
echo check > $S/sync_action
sleep 1
wait_sync md0
mm=$(cat $S/mismatch_cnt)
echo "mismatch_cnt after check: $mm"
[ "$mm" = 24 ] || fail "check counted $mm mismatched sectors, expected 24 (3 rows)"

note "repair"
echo repair > $S/sync_action
sleep 1
wait_sync md0
dmesg | grep 'md/km:md0: repair'
dmesg | grep -q 'rebuilt corrupted data chunk 2 on member 2 at member sector 16' || fail "data chunk on ram2 not repaired"
dmesg | grep -q 'rebuilt corrupted parity chunk 1 on member 4 at member sector 64' || fail "parity chunk on ram4 not repaired"
dmesg | grep -q 'rebuilt corrupted data chunk 0 on member 5 at member sector 136' || fail "data chunk on ram5 not repaired"
[ "$(cat $S/km/scrub_repaired)" = 3 ] || fail "scrub_repaired $(cat $S/km/scrub_repaired)"

note "check again, verify data"
echo check > $S/sync_action
sleep 1
wait_sync md0
[ "$(cat $S/mismatch_cnt)" = 0 ] || fail "mismatch_cnt $(cat $S/mismatch_cnt) after repair"
fiov $A --verify_only
check mdadm_km --stop /dev/md0
rmmod brd 2>/dev/null
echo PASS
