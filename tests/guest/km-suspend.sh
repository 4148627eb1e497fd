# covers: km: suspend and resume; km: write-intent bitmap; km: rebuild
# Suspend and resume a km 4+2 array with an internal
# bitmap over and over while fio writes and verifies on it.  Every sysfs
# write to suspend_lo/suspend_hi, every bitmap removal or addition and
# (on kernels from 6.7) every spare add/remove suspends the array: the
# suspension must wait for km's in-flight I/O and hold new I/O back, and
# nothing may be lost or corrupted.  The members are ramdisks behind
# dm-delay (writes take 50 ms), so that km always has writes in flight
# when md suspends.
# - load, all along: fio passes over [0, 14M) back to back, each with a
#   new seed: random 4k, 12k and 256k (full stripe) writes, then a
#   verify of every block of the pass (crc32c, the pass's seed and the
#   write order in each header, verify_fatal), so a lost, stale or torn
#   write of any pass fails it
# - suspend_lo/suspend_hi: ranges over the loaded region (all of it, or
#   3 MiB of it) come and go; once suspend_hi's write has returned, the
#   range reads the same at once and 0.3 s later (no write km had in
#   flight lands after the suspension); fio's writes there wait, then go
#   on.  And with a range set, an O_DIRECT write into it has read its
#   data but stays blocked (state D, nothing written, the range still
#   reads the old data) for over 1 s while writes and reads outside it
#   complete; lifting the range lets it complete, and it reads back
# - the bitmap is removed and added again under load, with mdadm --grow
#   --bitmap=none/internal and with md/bitmap/location none/+OFFSET
# - a spare is added and removed under load
# - a member fails under load and is rebuilt onto a spare under load,
#   with a blocked write and suspended ranges coming and going during
#   the rebuild (held by md's speed limits meanwhile, then 2 MB/s)
# At the end: the last pass verifies again (and fails with the previous
# pass's seed, so that verify has teeth), every probe write reads back,
# "check" finds mismatch_cnt 0, the bitmap goes clean (its write counts
# balanced through all of it); the harness fails the run on any kernel
# warning or hung task.
# timeout: 420
. /lib/raidkm/lib.sh
# a previous scenario of the same boot may have left ramdisks (and, if
# this one failed earlier in the boot, its dm devices) behind
for i in 0 1 2 3 4 5 6; do dmsetup remove d$i 2>/dev/null; done
rmmod brd 2>/dev/null

N=6 M=2
ramdisks 7 16
load_raidkm
S=/sys/block/md0/md
MiB=2048	# sectors

# members d0..d5 and the spare d6: ramdisks whose writes take $DELAY_MS ms
# (dm-delay), so that km always has writes in flight when md suspends
check modprobe dm-delay
DELAY_MS=50
i=0
while [ $i -le $N ]; do
	sz=$(blockdev --getsz /dev/ram$i)
	echo "0 $sz delay /dev/ram$i 0 0 /dev/ram$i 0 $DELAY_MS" | dmsetup create d$i ||
		fail "dmsetup create d$i"
	i=$((i + 1))
done
# dm NAME: the device node of dm device NAME (no udev: /dev/dm-MINOR)
dm() {
	echo /dev/dm-$(dmsetup info -c --noheadings -o minor $1 | tr -d ' ')
}
check mdadm_km --create /dev/md0 --run --assume-clean --level=km --layout=m$M \
	--raid-devices=$N --chunk=64 --bitmap=internal --bitmap-chunk=256K \
	$(dm d0) $(dm d1) $(dm d2) $(dm d3) $(dm d4) $(dm d5)
has_bitmap() {
	grep -A2 '^md0 ' /proc/mdstat | grep -q 'bitmap: '
}
has_bitmap || fail "no bitmap after create"
size=$(($(blockdev --getsize64 /dev/md0) >> 20))
echo "array $size MiB"
[ $size -ge 56 ] || fail "array of $size MiB, the probes need 56"

# --- the load: fio passes over [0, 14M) until /tmp/stop exists.  randrw
# with 100% writes: fio checks the seed in each block's header only for
# jobs that may read (and without verify_backlog), and the write order
# only for fixed block sizes
JOBS="--rw=randrw --rwmixwrite=100
	--name=r --bs=4k --size=2M --offset=0
	--name=u --bs=12k --size=3M --offset=2M
	--name=s --bs=256k --size=8M --offset=6M"
load() {
	p=0
	while [ ! -e /tmp/stop ]; do
		p=$((p + 1))
		if ! fio --filename=/dev/md0 --direct=1 --ioengine=libaio \
		    --iodepth=8 --verify=crc32c --verify_fatal=1 --randseed=$p \
		    $JOBS >/tmp/load.out 2>&1; then
			echo "pass $p failed" >/tmp/load.failed
			cat /tmp/load.out >>/tmp/load.failed
			exit 1
		fi
		echo $p >/tmp/passes
	done
}
passes() {
	cat /tmp/passes 2>/dev/null || echo 0
}
# load_ok: the load has not failed so far
load_ok() {
	if [ -e /tmp/load.failed ]; then
		cat /tmp/load.failed
		fail "fio load: $(head -n 1 /tmp/load.failed)"
	fi
}
# tries CMD: CMD succeeds within 5 s (md/bitmap/location is EBUSY while
# md's recovery flags are set)
tries() {
	k=0
	until eval "$1" 2>/dev/null; do
		k=$((k + 1))
		[ $k -lt 50 ] || fail "refused: $1"
		sleep 0.1
	done
}
# recovering: md0 is rebuilding a member
recovering() {
	grep -A3 '^md0 ' /proc/mdstat | grep -q recovery
}
# dirty: "BITS DIRTY" of the bitmap on d0
dirty() {
	mdadm_km -X $(dm d0) | sed -n 's/.*Bitmap : \([0-9]*\) bits.*, \([0-9]*\) dirty.*/\1 \2/p'
}
# running PID: PID exists and is no zombie
running() {
	st=$(sed 's/.*) \([A-Z]\).*/\1/' /proc/$1/stat 2>/dev/null)
	[ -n "$st" ] && [ "$st" != Z ]
}
# done_in PID SECONDS: PID ends within SECONDS (polled every 0.1 s)
done_in() {
	i=0
	while running $1; do
		i=$((i + 1))
		[ $i -le $(($2 * 10)) ] || return 1
		sleep 0.1
	done
}
# io FIELD PID: a counter from /proc/PID/io
io() {
	sed -n "s/^$1: //p" /proc/$2/io 2>/dev/null
}
# sus LO HI (MiB): suspend writes to [LO, HI); sus 0 0 lifts it
sus() {
	echo 0 >$S/suspend_hi || fail "suspend_hi 0"
	echo $(($1 * MiB)) >$S/suspend_lo || fail "suspend_lo $1 MiB"
	echo $(($2 * MiB)) >$S/suspend_hi || fail "suspend_hi $2 MiB"
}
# sus_is LO HI (MiB): md reports that range as suspended
sus_is() {
	read slo <$S/suspend_lo
	read shi <$S/suspend_hi
	[ "$slo $shi" = "$(($1 * MiB)) $(($2 * MiB))" ] ||
		fail "suspended $slo-$shi, wanted $(($1 * MiB))-$(($2 * MiB))"
}
# rd MIB FILE: read 256 KiB at MIB (O_DIRECT) into FILE within 15 s
rd() {
	dd if=/dev/md0 of=$2 bs=64k skip=$(($1 * 16)) count=4 iflag=direct 2>/dev/null &
	rpid=$!
	done_in $rpid 15 || fail "a read at $1 MiB did not complete"
	wait $rpid || fail "a read at $1 MiB failed"
}
# wr MIB FILE: write FILE (256 KiB) at MIB (O_DIRECT) in the background;
# sets $wpid
wr() {
	dd if=$2 of=/dev/md0 bs=64k seek=$(($1 * 16)) count=4 oflag=direct \
		conv=notrunc 2>/dev/null &
	wpid=$!
}
# snap MIB N FILE: read N MiB at MIB (O_DIRECT) into FILE within 15 s
snap() {
	dd if=/dev/md0 of=$3 bs=1M skip=$1 count=$2 iflag=direct 2>/dev/null &
	rpid=$!
	done_in $rpid 15 || fail "a read of $2 MiB at $1 MiB did not complete"
	wait $rpid || fail "a read of $2 MiB at $1 MiB failed"
}
# flap N: N times a suspended range for 0.3 s, then none: every fourth
# time over the whole loaded region (all of fio's writes wait), else
# over 3 MiB of it.  Once suspend_hi's write has returned no write into
# the range is in flight any more: the range reads the same at once and
# 0.3 s later (a write that km had in flight at the suspension would
# land within the members' write delay)
flap() {
	j=0
	while [ $j -lt $1 ]; do
		lo=$(((j % 4) * 4)) hi=$((lo + 3))
		[ $((j % 4)) = 0 ] && lo=0 hi=14
		sus $lo $hi
		snap $lo $((hi - lo)) /tmp/snap.a
		sus_is $lo $hi
		sleep 0.3
		snap $lo $((hi - lo)) /tmp/snap.b
		cmp -s /tmp/snap.a /tmp/snap.b ||
			fail "[$lo, $hi) MiB changed while suspended: a write in flight at the suspension landed later"
		sus 0 0
		sus_is 0 0
		sleep 0.1
		j=$((j + 1))
	done
	load_ok
}

# probe LO: with [LO, LO+4) MiB suspended, a 256 KiB O_DIRECT write at
# LO+1 blocks until the range is lifted, while writes and reads at LO+6
# complete and the blocked spot still reads the old data; afterwards the
# blocked spot holds the new data (kept in /tmp/probe.LO for the end)
probe() {
	dd if=/dev/urandom of=/tmp/pat bs=64k count=4 2>/dev/null
	rd $(($1 + 1)) /tmp/old
	cmp -s /tmp/pat /tmp/old && fail "probe pattern already on the array"
	sus $1 $(($1 + 4))
	sus_is $1 $(($1 + 4))
	wr $(($1 + 1)) /tmp/pat
	dpid=$wpid
	# dd has read its first block, so it is in the write of it
	i=0
	until [ "$(io rchar $dpid)" -ge 65536 ] 2>/dev/null; do
		running $dpid || fail "the write into the suspended range ended at once"
		i=$((i + 1))
		[ $i -lt 100 ] || fail "probe dd did not start"
		sleep 0.1
	done
	# meanwhile writes and reads outside the range complete, 3 rounds
	n=0
	while [ $n -lt 3 ]; do
		dd if=/dev/urandom of=/tmp/opat bs=64k count=4 2>/dev/null
		wr $(($1 + 6)) /tmp/opat
		done_in $wpid 15 || fail "a write outside the suspended range did not complete"
		wait $wpid || fail "a write outside the suspended range failed"
		rd $(($1 + 6)) /tmp/out
		cmp -s /tmp/opat /tmp/out || fail "a write outside the suspended range does not read back"
		n=$((n + 1))
	done
	sleep 1
	running $dpid || fail "a write into the suspended range completed while suspended"
	[ "$(io wchar $dpid)" = 0 ] || fail "dd wrote $(io wchar $dpid) bytes into the suspended range"
	# asleep uninterruptibly (md wakes it now and then to look again)
	n=0
	until [ "$(sed 's/.*) \([A-Z]\).*/\1/' /proc/$dpid/stat)" = D ] &&
	    wch=$(cat /proc/$dpid/wchan 2>/dev/null) && [ "$wch" != 0 ]; do
		n=$((n + 1))
		[ $n -lt 20 ] || fail "the blocked write's dd is not in state D"
		sleep 0.05
	done
	rd $(($1 + 1)) /tmp/now
	cmp -s /tmp/old /tmp/now || fail "the suspended range changed while suspended"
	echo "write at $(($1 + 1)) MiB blocked in $wch while 3 writes at $(($1 + 6)) MiB completed"
	sus 0 0
	done_in $dpid 15 || fail "the write into the range did not complete after the range was lifted"
	wait $dpid || fail "the write into the lifted range failed"
	rd $(($1 + 1)) /tmp/now
	cmp -s /tmp/pat /tmp/now || fail "the probe write does not read back after resume"
	cp /tmp/pat /tmp/probe.$1
	load_ok
}

rm -f /tmp/stop /tmp/passes /tmp/load.failed
load &
lpid=$!
t0=$(cut -d. -f1 /proc/uptime)
sleep 1

note "suspend_lo/suspend_hi over the loaded region, repeatedly"
flap 8
echo "passes so far: $(passes)"

note "a write into a suspended range waits for the resume"
probe 32
probe 44

note "bitmap removed and added again under load (mdadm --grow)"
j=0
while [ $j -lt 4 ]; do
	check mdadm_km --grow /dev/md0 --bitmap=none
	[ "$(cat $S/bitmap/location)" = none ] || fail "bitmap location $(cat $S/bitmap/location) after --bitmap=none"
	has_bitmap && fail "bitmap still in /proc/mdstat after --bitmap=none"
	sleep 0.3
	check mdadm_km --grow /dev/md0 --bitmap=internal --bitmap-chunk=256K
	has_bitmap || fail "no bitmap after --bitmap=internal"
	sleep 0.3
	j=$((j + 1))
done
load_ok
loc=$(cat $S/bitmap/location)
echo "bitmap location $loc, passes so far: $(passes)"

note "bitmap location none/$loc under load (sysfs)"
j=0
while [ $j -lt 4 ]; do
	tries "echo none >$S/bitmap/location"
	[ "$(cat $S/bitmap/location)" = none ] || fail "bitmap location $(cat $S/bitmap/location), wanted none"
	has_bitmap && fail "bitmap still in /proc/mdstat after location none"
	sleep 0.3
	tries "echo $loc >$S/bitmap/location"
	[ "$(cat $S/bitmap/location)" = "$loc" ] || fail "bitmap location $(cat $S/bitmap/location), wanted $loc"
	has_bitmap || fail "no bitmap after location $loc"
	sleep 0.3
	j=$((j + 1))
done
load_ok

note "a spare added and removed under load"
d6=$(dm d6)
sp=$S/dev-${d6#/dev/}
j=0
while [ $j -lt 4 ]; do
	check mdadm_km /dev/md0 --add $d6
	sleep 0.3
	[ "$(cat $sp/state)" = spare ] || fail "d6 is '$(cat $sp/state)', not spare"
	check mdadm_km /dev/md0 --remove $d6
	# md deletes the member's sysfs directory from a work queue
	i=0
	while [ -e $sp ]; do
		i=$((i + 1))
		[ $i -le 100 ] || fail "d6 still in the array 10 s after --remove"
		sleep 0.1
	done
	check mdadm_km --zero-superblock $d6
	sleep 0.2
	j=$((j + 1))
done
load_ok
echo "passes so far: $(passes)"

note "fail a member under load, rebuild onto a spare under load"
# The rebuild is held (md's speed limits at 1 KiB/s: a chunk now and then)
# while a write is blocked in a suspended range and two ranges come and
# go, so that all of it happens during the rebuild however slow this
# guest runs; then the rebuild goes on at 2 MB/s (several seconds for the
# 16 MiB member) with more ranges coming and going
hold_sync() {
	echo 1 >$S/sync_speed_min
	echo 1 >$S/sync_speed_max
}
run_sync() {
	echo 2000 >$S/sync_speed_max
	echo 2000 >$S/sync_speed_min
}
hold_sync
check mdadm_km /dev/md0 --add $d6
check mdadm_km /dev/md0 --fail $(dm d2)
i=0
until recovering; do
	i=$((i + 1))
	[ $i -lt 50 ] || fail "no recovery onto the spare"
	sleep 0.1
done
grep -A3 '^md0 ' /proc/mdstat
check mdadm_km /dev/md0 --remove $(dm d2)
probe 50
flap 2
recovering || fail "the held recovery ended: $(grep -A3 '^md0 ' /proc/mdstat)"
run_sync
# suspended ranges come and go until the rebuild is over
n=2
while recovering && [ $n -lt 40 ]; do
	flap 1
	n=$((n + 1))
done
echo "blocked write and $n suspensions during the rebuild"
echo system >$S/sync_speed_max
echo system >$S/sync_speed_min
wait_sync md0
grep -A3 '^md0 ' /proc/mdstat
mdadm_km --detail /dev/md0 | grep -q '^ *Active Devices : 6$' || fail "not 6 active members after the rebuild"
flap 4

note "stop the load, final verification"
touch /tmp/stop
done_in $lpid 60 || fail "the load did not stop"
wait $lpid
load_ok
P=$(passes)
t1=$(cut -d. -f1 /proc/uptime)
echo "load: $P verified passes in $((t1 - t0)) s"
[ "$P" -ge 4 ] || fail "only $P load passes: the load did not run along"
fiov --randseed=$P --verify_only $JOBS
# that verify has teeth: the previous pass's seed fails it
fio --filename=/dev/md0 --direct=1 --ioengine=libaio --verify=crc32c \
	--verify_fatal=1 --randseed=$((P - 1)) --verify_only $JOBS >/tmp/fio.out 2>&1 &&
	fail "verify_only with the previous pass's seed passed"
grep -q 'bad header rand_seed' /tmp/fio.out || { cat /tmp/fio.out; fail "stale-seed verify failed otherwise"; }
for p in 32 44 50; do
	rd $((p + 1)) /tmp/now
	cmp -s /tmp/probe.$p /tmp/now || fail "probe write at $((p + 1)) MiB lost"
done
check_clean md0 "suspend/resume under load"
# bitmap chunks written during the rebuild where km still counted the
# new member as missing stay dirty (NEEDED) until a sync pass such as
# that check; after it every chunk must go clean, which it cannot if a
# write's bitmap count was lost or doubled across a suspension
note "the bitmap goes clean"
echo 1 >$S/bitmap/time_base
i=0
while :; do
	set -- $(dirty)
	[ "$2" = 0 ] && break
	i=$((i + 1))
	[ $i -lt 30 ] || fail "bitmap: ${2:-?} of ${1:-?} chunks still dirty 15 s after the load"
	sleep 0.5
done
echo "bitmap clean after $((i / 2)) s ($1 chunks)"
check mdadm_km --stop /dev/md0
i=0
while [ $i -le $N ]; do
	check dmsetup remove d$i
	i=$((i + 1))
done
rmmod brd 2>/dev/null
echo PASS
