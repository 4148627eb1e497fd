# covers: km: create and initial resync; km: stop and assemble; km: sysfs and /proc/mdstat
# km 4+2, 64 KiB chunk: create (initial resync), fio write + verify with
# crc32c over sequential and random I/O of many block sizes, read back
# after stop/assemble; /proc/mdstat, sysfs counters and geometry checks.
# timeout: 240
. /lib/raidkm/lib.sh
# a previous scenario of the same boot may have left ramdisks behind
rmmod brd 2>/dev/null

N=6 M=2
ramdisks $N 16
load_raidkm

# hold the initial resync (md's speed limits at 1 KiB/s) to see its state
echo 1 > /proc/sys/dev/raid/speed_limit_min
echo 1 > /proc/sys/dev/raid/speed_limit_max
check mdadm_km --create /dev/md0 --run --level=km --layout=m$M \
	--raid-devices=$N --chunk=64 $(members $N)
sleep 1
d=$(mdadm_km --detail /dev/md0)
echo "$d" | grep -E 'State :|Resync Status'
echo "$d" | grep -q 'State : .*resyncing' || fail "--detail does not say resyncing"
echo "$d" | grep -q 'Resync Status' || fail "--detail has no Resync Status"
echo 200000 > /proc/sys/dev/raid/speed_limit_max
echo 1000 > /proc/sys/dev/raid/speed_limit_min
grep -A2 '^md0 ' /proc/mdstat
grep '^md0 : active' /proc/mdstat | grep -q ' km ' || fail "md0 not active as km"
grep -A1 '^md0 ' /proc/mdstat | grep -q 'km m=2, 64k chunk, algorithm 0 \[6/6\] \[UUUUUU\]' ||
	fail "mdstat line wrong"
wait_sync md0
S=/sys/block/md0/md
[ "$(cat $S/km/data_disks)" = 4 ] || fail "data_disks"
[ "$(cat $S/km/parity_disks)" = 2 ] || fail "parity_disks"
[ "$(cat $S/mismatch_cnt)" = 0 ] || fail "mismatch after initial resync"

# sysfs validation: bad values are refused and change nothing
old=$(cat $S/km/stripe_cache_size)
for bad in 0 abc -5 99999999 ""; do
	echo "$bad" > $S/km/stripe_cache_size 2>/dev/null && fail "stripe_cache_size accepted '$bad'"
done
[ "$(cat $S/km/stripe_cache_size)" = "$old" ] || fail "stripe_cache_size changed by bad input"
check sh -c "echo 64 > $S/km/stripe_cache_size"
[ "$(cat $S/km/stripe_cache_size)" = 64 ] || fail "stripe_cache_size not set"

size=$(blockdev --getsize64 /dev/md0)
echo "md0 size $size"
[ "$size" -gt 0 ] || fail "size"

FIO="fio --output-format=terse --minimal --filename=/dev/md0 --direct=1 --ioengine=libaio --verify=crc32c --do_verify=1 --verify_fatal=1"
note "sequential 1M"
check $FIO --name=seq1m --rw=write --bs=1M --iodepth=4 --size=16M
note "random bs 512-128k"
check $FIO --name=rnd --rw=randwrite --bsrange=512-128k --iodepth=8 --size=16M --offset=8M --number_ios=400
note "sequential 4k, 60k, 68k"
check $FIO --name=s4 --rw=write --bs=4k --iodepth=8 --size=2M --offset=24M
check $FIO --name=s60 --rw=write --bs=60k --iodepth=4 --size=6M --offset=30M
check $FIO --name=s68 --rw=write --bs=68k --iodepth=4 --size=6M --offset=40M
note "O_SYNC (REQ_FUA) writes and fsync (REQ_PREFLUSH)"
check $FIO --name=fua --rw=randwrite --bs=8k --iodepth=4 --size=2M --offset=50M --sync=1 --fsync=4

for c in rmw_writes rcw_writes full_stripe_writes; do
	echo "$c $(cat $S/km/$c)"
done
[ "$(cat $S/km/full_stripe_writes)" -gt 0 ] || fail "no full-stripe writes"
[ "$(cat $S/km/rmw_writes)" -gt 0 ] || fail "no rmw writes"
[ "$(cat $S/km/rcw_writes)" -gt 0 ] || fail "no rcw writes"

note "check: parity consistent after all of it"
echo check > $S/sync_action
sleep 1
wait_sync md0
[ "$(cat $S/mismatch_cnt)" = 0 ] || fail "mismatch_cnt $(cat $S/mismatch_cnt) after writes"

note "stop, assemble, verify"
check $FIO --name=final --rw=write --bs=256k --iodepth=4 --size=12M --offset=0 --verify_only=0 --do_verify=0
check mdadm_km --stop /dev/md0
check mdadm_km --assemble /dev/md0 $(members $N)
check $FIO --name=final --rw=write --bs=256k --iodepth=4 --size=12M --offset=0 --verify_only=1
check mdadm_km --stop /dev/md0
rmmod brd 2>/dev/null
echo PASS
