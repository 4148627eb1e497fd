# covers: km: sync windows; km: rebuild; km: check and repair
# Rebuild, resync and check by windows of many rows (wide_sync.c).
#  1. km 4+2 and 4+3 (512 KiB chunks: 128-row windows): fail 1..m
#     members, rebuild onto as many spares at once; windows did the work
#     (wide_sync_windows grows, member bios per MiB far below a row's),
#     check finds no mismatch, the data verifies.
#  2. writes during a throttled rebuild (the exclusion): fio writes and
#     verifies while member 1 is rebuilt at sync_speed_max 1000 KB/s
#     (still recovering after 5 s: md's limit governs windows); then the
#     two other members of the written rows' parity fail, so that every
#     read of the rebuilt member's chunks comes from the rebuild, and
#     everything written during the rebuild verifies.
#  3. resync after an unclean stop with a bitmap: the members are copied
#     while writes run (the copies' bitmap and superblocks are dirty),
#     the copies assembled: only the dirty bitmap chunks are resynced,
#     by windows no larger than those chunks allow; check finds nothing.
#  4. check with corruption planted in one row: windows that do not
#     check out go by rows, which count one row (8 sectors) of
#     mismatch; repair locates and rebuilds the chunk; check is clean.
#  5. wide_sync_max_rows: bad input refused; 0 syncs by rows only.
# timeout: 600
# mem: 1536
. /lib/raidkm/lib.sh
rmmod brd 2>/dev/null

MIB=24
# fresh: new, zeroed ramdisks (--assume-clean arrays must start
# consistent: an earlier array's leftovers in another layout are not)
fresh() {
	rmmod brd 2>/dev/null
	ramdisks 16 $MIB
}
fresh
load_raidkm
S=/sys/block/md0/md
K=$S/km

kv() { cat $K/$1; }
# fallback REASON: windows gone to rows for REASON
fallback() { awk -v r=$1 '$1 == r { print $2 }' $K/wide_sync_fallbacks; }

A="--name=a --rw=write --bs=512k --size=32M --offset=0"
B="--name=b --rw=randwrite --bsrange=4k-128k --size=16M --offset=40M"

# slot_dev S: the member in slot S of md0 (ramX)
slot_dev() { readlink $S/rd$1 | sed 's/^dev-//'; }

# rebuild N M: km (N-M)+M on ram0..N-1; for f = 1..M, fail the members
# of slots 1..f and rebuild onto f spares at once (ramN.. at first, then
# the members failed before)
rebuild() {
	local n=$1 m=$2 f i w0 b0 y0 spares fails pool
	note "km $((n - m))+$m: rebuild 1..$m members"
	fresh
	check mdadm_km --create /dev/md0 --run --assume-clean --level=km \
		--layout=m$m --raid-devices=$n --chunk=512 $(members $n)
	fiov $A
	fiov $B
	pool=$(members $m $n)
	for f in $(seq 1 $m); do
		fails="" spares=""
		for i in $(seq 1 $f); do
			fails="$fails /dev/$(slot_dev $i)"
		done
		set -- $pool
		for i in $(seq 1 $f); do
			spares="$spares $1"
			shift
		done
		pool="$* $fails"
		check mdadm_km /dev/md0 --fail $fails
		check mdadm_km /dev/md0 --remove $fails
		w0=$(kv wide_sync_windows) b0=$(kv wide_sync_member_bios)
		y0=$(kv wide_sync_member_bytes)
		check mdadm_km /dev/md0 --add $spares
		sleep 1
		wait_sync md0
		grep -A1 '^md0 ' /proc/mdstat | grep -q "\[$n/$n\]" ||
			fail "not whole after rebuilding $f: $(cat /proc/mdstat)"
		w=$(($(kv wide_sync_windows) - w0))
		b=$(($(kv wide_sync_member_bios) - b0))
		y=$((($(kv wide_sync_member_bytes) - y0) >> 20))
		echo "rebuild of $f ($fails -> $spares): $w windows, $b member bios, $y MiB, sizes: $(tr '\n' ' ' <$K/wide_sync_window_rows)"
		[ "$w" -gt 0 ] || fail "rebuild of $f members used no window"
		# the row path sends one 4 KiB page per bio: 256 per MiB
		[ $((b / (y + 1))) -lt 16 ] || fail "$b member bios for $y MiB"
		check_clean md0 "after rebuilding $f of km $((n - m))+$m"
		fiov $A --verify_only
		fiov $B --verify_only
	done
	cat $K/wide_sync_fallbacks
	raidkmctl status | grep 'data path:.* wide_sync_windows [1-9]' ||
		fail "raidkmctl status shows no sync windows for md0"
	check mdadm_km --stop /dev/md0
	wait_md_gone md0
}

# this kernel's share of the geometries (lib.sh's share)
for g in $(share 6:2 7:3); do
	rebuild $(echo $g | tr : ' ')
done

note "writes during a throttled rebuild"
fresh
check mdadm_km --create /dev/md0 --run --assume-clean --level=km --layout=m2 \
	--raid-devices=6 --chunk=512 $(members 6)
fiov $A
check mdadm_km /dev/md0 --fail /dev/ram1
check mdadm_km /dev/md0 --remove /dev/ram1
echo 1000 >$S/sync_speed_max
C="--name=c --rw=randwrite --bsrange=4k-256k --size=20M --offset=0 --randseed=7"
check mdadm_km /dev/md0 --add /dev/ram6
sleep 1
fio --filename=/dev/md0 --direct=1 --ioengine=libaio --iodepth=8 \
	--verify=crc32c --verify_fatal=1 $C >/tmp/fioc.out 2>&1 &
pid=$!
sleep 5
grep -A3 '^md0 ' /proc/mdstat
grep -A3 '^md0 ' /proc/mdstat | grep -q recovery ||
	fail "rebuild at 1000 KB/s of ${MIB} MiB over after 5 s"
wait $pid || { cat /tmp/fioc.out; fail "fio during the rebuild"; }
echo "windows so far: $(kv wide_sync_windows)"
[ "$(kv wide_sync_windows)" -gt 0 ] || fail "no window during the rebuild"
echo system >$S/sync_speed_max
wait_sync md0
check_clean md0 "after a rebuild under writes"
# every other member that could stand in for ram6 goes: reads of its
# chunks now come from what the rebuild and the writes put there
fiov $C --verify_only
check mdadm_km /dev/md0 --fail /dev/ram0 /dev/ram2
fiov $C --verify_only
check mdadm_km --stop /dev/md0
wait_md_gone md0

note "resync after an unclean stop, bounded by the bitmap"
fresh
# members ram0..5, their copies ram8..13 (taken while writes run)
check mdadm_km --create /dev/md0 --run --assume-clean --level=km --layout=m2 \
	--raid-devices=6 --chunk=512 --bitmap=internal --bitmap-chunk=256K \
	--delay=1 $(members 6)
fiov $A --end_fsync=1
sleep 4
fio --filename=/dev/md0 --direct=1 --ioengine=libaio --iodepth=8 \
	--name=d --rw=randwrite --bs=4k --size=2M --offset=60M \
	--time_based --runtime=60 >/dev/null 2>&1 &
pid=$!
# writes are under way once md has marked the array dirty
n=0
while [ "$(cat $S/array_state)" != active ] && [ $n -lt 200 ]; do
	sleep 0.1
	n=$((n + 1))
done
[ "$(cat $S/array_state)" = active ] || fail "array not dirty under writes"
sleep 1
for i in 0 1 2 3 4 5; do
	check dd if=/dev/ram$i of=/dev/ram$((i + 8)) bs=1M iflag=direct oflag=direct 2>/dev/null
done
kill $pid
wait $pid 2>/dev/null
check mdadm_km --stop /dev/md0
wait_md_gone md0
set -- $(mdadm_km -X /dev/ram8 | sed -n 's/.*Bitmap : \([0-9]*\) bits.*, \([0-9]*\) dirty.*/\1 \2/p')
total=$1 dirty=$2
echo "bitmap of the copies: $total bits, $dirty dirty"
[ -n "$dirty" ] && [ "$dirty" -gt 0 ] && [ "$dirty" -lt "$total" ] ||
	fail "copies' bitmap: $dirty of $total dirty"
dmesg -c >/dev/null
check mdadm_km --assemble /dev/md0 $(members 6 8)
sleep 1
wait_sync md0
dmesg | grep -q 'md: resync of RAID array md0' || fail "no resync of the copies"
rows=$(kv wide_sync_rows)
echo "resync: $(kv wide_sync_windows) windows ($(kv wide_sync_whole) whole), $rows rows; sizes: $(tr '\n' ' ' <$K/wide_sync_window_rows)"
echo "fallbacks: $(tr '\n' ' ' <$K/wide_sync_fallbacks)"
[ "$rows" -gt 0 ] || fail "resync used no window"
# a 256 KiB bitmap chunk is 64 rows of each member
[ "$rows" -le $((dirty * 64)) ] || fail "resync windows covered $rows rows, $dirty dirty chunks"
fiov $A --verify_only
check_clean md0 "after the resync"
check mdadm_km --stop /dev/md0
wait_md_gone md0

note "check with planted corruption"
fresh
check mdadm_km --create /dev/md0 --run --assume-clean --level=km --layout=m2 \
	--raid-devices=6 --chunk=512 $(members 6)
fiov $A
# 512 bytes of garbage at member sector 1000 (row 125) of ram2: data
# chunk 2 of chunk stripe 0
off=$(cat $S/dev-ram2/offset)
check dd if=/dev/urandom of=/dev/ram2 bs=512 count=1 seek=$((off + 1000)) conv=notrunc 2>/dev/null
check blockdev --flushbufs /dev/ram2
m0=$(fallback mismatch)
parity_check md0
echo "mismatch_cnt $mm; windows $(kv wide_sync_windows), fallbacks: $(tr '\n' ' ' <$K/wide_sync_fallbacks)"
[ "$mm" = 8 ] || fail "check counted $mm mismatched sectors, expected 8 (one row)"
[ "$(fallback mismatch)" -gt "$m0" ] || fail "no window went to rows for its mismatch"
echo repair >$S/sync_action
sleep 1
wait_sync md0
dmesg | grep 'md/km:md0: repair'
dmesg | grep -q 'rebuilt corrupted data chunk 2 on member 2 at member sector 1000' ||
	fail "the corrupted chunk was not located"
check_clean md0 "after repair"
fiov $A --verify_only

note "wide_sync_max_rows"
v=$(kv wide_sync_max_rows)
[ "$v" = 256 ] || fail "wide_sync_max_rows $v, expected 256"
for bad in 1 257 -1 abc ""; do
	echo "$bad" >$K/wide_sync_max_rows 2>/dev/null && fail "wide_sync_max_rows took '$bad'"
done
[ "$(kv wide_sync_max_rows)" = 256 ] || fail "bad input changed wide_sync_max_rows"
check sh -c "echo 0 >$K/wide_sync_max_rows"
w0=$(kv wide_sync_windows)
check_clean md0 "by rows"
[ "$(kv wide_sync_windows)" = "$w0" ] || fail "windows with wide_sync_max_rows 0"
check sh -c "echo 64 >$K/wide_sync_max_rows"
check_clean md0 "64-row windows"
[ "$(kv wide_sync_windows)" -gt "$w0" ] || fail "no window with wide_sync_max_rows 64"
check mdadm_km --stop /dev/md0
rmmod brd 2>/dev/null
echo PASS
