# covers: km: grow k; km: grow m; km: reshape refusals; offload: result checks
# km arrays grow online.
#   grow k:  km m2 over 5 members (k=3) gets a sixth: mdadm --add, then
#            --grow --raid-devices=6 restripes it to k=4 while fio writes
#            and verifies on both sides of the moving reshape position,
#            raidkmd (cpu backend) coding the new parity; the array
#            grows by one member's worth when it is done.
#   grow m:  km m2 over 5 members gets a third parity member:
#            --grow --layout=m3 --raid-devices=6; afterwards three
#            members fail and the data still verifies.
#   stop and assemble in the middle of a reshape: it resumes from the
#            recorded position (mdadm --assemble restarts it) and ends.
#   a member fails in the middle of a reshape: it goes on degraded
#            (old stripes decoded; reads by rows, never wide, while the
#            rows move), then the member is rebuilt.
#   raid6 -> km -> m=3: md raid6 with fio-verified data is taken over
#            (m2-raid6) and grown to m3-raid6 with one more member.
# The data verified is all of the 3+2 array but its last 5 MiB.  Every
# array ends with km's check at mismatch_cnt 0.  Refused, changing
# nothing: no spare, a bitmap, fewer members, fewer parity members, a new
# chunk size, 0.90 metadata.
# timeout: 600
. /lib/raidkm/lib.sh
rmmod brd 2>/dev/null

ramdisks 8 32
load_raidkm
# the daemon path is under test: it gets every job it can take
check sh -c "echo daemon >/sys/module/raidkm/parameters/placement"
S=/sys/block/md0/md
A="--name=a --bs=64k --size=40M --offset=0 --randseed=3"
B="--name=b --bs=16k --size=16M --offset=40M --randseed=5"
C="--name=c --bs=1M --size=32M --offset=56M --randseed=7"

# fill A and C (all of a 3+2 array but its last 5 MiB) before a reshape,
# B during it; verify them
fillA() { fiov --rw=write $A --do_verify=1; fiov --rw=write $C --do_verify=1; }
verifyA() {
	fiov --rw=write $A --verify_only=1 || fail "region A changed ($1)"
	fiov --rw=write $C --verify_only=1 || fail "region C changed ($1)"
}
verifyB() { fiov --rw=randwrite $B --verify_only=1 || fail "region B changed ($1)"; }
sectors() { cat /sys/block/md0/size; }
slow() { echo "$1" >/proc/sys/dev/raid/speed_limit_max; }
reshaping() { grep -A3 '^md0 ' /proc/mdstat | grep -q reshape; }

# grow LABEL MDADM-GROW-ARGS...: start a slowed reshape; once its
# position is inside region B, write B with fio (so the writes land on
# both sides of the moving position), then let it finish at full speed
Blo=81920 Bhi=114688	# region B in array sectors
grow() {
	label=$1
	shift
	slow 1000
	check mdadm_km --grow /dev/md0 "$@"
	sleep 0.2
	reshaping || fail "$label: no reshape in /proc/mdstat: $(grep -A3 '^md0 ' /proc/mdstat)"
	[ "$(cat $S/sync_action)" = reshape ] || fail "$label: sync_action $(cat $S/sync_action)"
	i=0
	while pos=$(cat $S/reshape_position) && [ "$pos" != none ] &&
	      [ "$pos" -lt $((Blo + 4096)) ]; do
		i=$((i + 1))
		[ $i -le 600 ] || fail "$label: reshape at $pos after 60 s"
		sleep 0.1
	done
	[ "$pos" != none ] && [ "$pos" -lt $Bhi ] ||
		fail "$label: reshape at $pos, past region B before fio started"
	fiov --rw=randwrite $B --do_verify=1
	echo "$label: region B ($Blo-$Bhi) written while the reshape went from $pos to $(cat $S/reshape_position)"
	verifyA "$label, during the reshape"
	slow 200000
	wait_sync md0
	[ "$(cat $S/reshape_position)" = none ] || fail "$label: reshape_position $(cat $S/reshape_position) after it ended"
	dmesg | grep -q "md/km:md0: reshape done" || fail "$label: no 'reshape done' in the kernel log"
}

note "refused: no spare, a bitmap, fewer members, less parity, chunk size"
check mdadm_km --create /dev/md0 --run --level=km --layout=m2 \
	--raid-devices=5 --chunk=64 --bitmap=internal $(members 5)
wait_sync md0
size0=$(sectors)
mdadm_km --grow /dev/md0 --raid-devices=6 2>/tmp/err && fail "grew without a spare"
grep -q "has a write-intent bitmap" /tmp/err || fail "mdadm said: $(cat /tmp/err)"
check mdadm_km --grow /dev/md0 --bitmap=none
mdadm_km --grow /dev/md0 --raid-devices=6 2>/tmp/err && fail "grew without a spare"
grep -q "needs 1 spare" /tmp/err || fail "mdadm said: $(cat /tmp/err)"
check mdadm_km /dev/md0 --add /dev/ram5
mdadm_km --grow /dev/md0 --raid-devices=4 2>/tmp/err && fail "shrank"
grep -q "does not take them away" /tmp/err || fail "mdadm said: $(cat /tmp/err)"
mdadm_km --grow /dev/md0 --layout=m1 --raid-devices=6 2>/tmp/err && fail "took parity away"
grep -q "does not take them away" /tmp/err || fail "mdadm said: $(cat /tmp/err)"
mdadm_km --grow /dev/md0 --chunk=128 --raid-devices=6 2>/tmp/err && fail "changed the chunk size"
grep -q "cannot change the chunk size" /tmp/err || fail "mdadm said: $(cat /tmp/err)"
# the kernel refuses what mdadm would not ask: a chunk change by sysfs
echo 256 >$S/chunk_size 2>/dev/null && [ "$(cat $S/chunk_size)" != 65536 ] &&
	fail "the kernel took a new chunk size"
echo reshape >$S/sync_action 2>/dev/null
sleep 0.5
reshaping && fail "a reshape started from nothing"
[ "$(cat $S/raid_disks)" = 5 ] || fail "raid_disks $(cat $S/raid_disks) after refusals"
[ "$(sectors)" = "$size0" ] || fail "size changed by refusals"
[ "$(cat $S/layout)" = 2 ] || fail "layout $(cat $S/layout) after refusals"

note "grow k: 3+2 -> 4+2 while fio writes, raidkmd coding the parity"
fillA
# the guest's own daemon shares the emulated CPUs with fio and the
# reshape: a generous deadline, as the offload scenarios use (dropping a
# slow daemon is tested there, not here)
check sh -c "echo 10000 >/sys/module/raidkm/parameters/deadline_ms"
start_raidkmd
off0=$(rkm_stat jobs_offloaded)
grow "grow k" --raid-devices=6
# one encode job per 4 KiB row of the new shape, besides fio's own
rows=$(($(cat $S/component_size) / 4))
off=$(($(rkm_stat jobs_offloaded) - off0))
echo "grow k: raidkmd coded $off jobs; the reshape coded $rows rows"
[ "$off" -ge $((rows / 2)) ] || fail "grow k: raidkmd coded $off jobs, fewer than half the $rows rows"
[ "$(rkm_stat daemon_state)" = running ] ||
	fail "grow k: raidkmd was dropped: $(dmesg | grep 'raidkm: daemon')"
kill -TERM $daemon
wait $daemon || fail "raidkmd exited $? on SIGTERM"
wait_daemon_state idle
[ "$(cat $S/raid_disks)" = 6 ] || fail "raid_disks $(cat $S/raid_disks)"
[ "$(cat $S/layout)" = 2 ] || fail "layout $(cat $S/layout)"
size1=$(sectors)
[ "$size1" -gt "$size0" ] || fail "size $size1 did not grow from $size0"
echo "size: $size0 -> $size1 sectors"
[ $((size1 * 3)) -ge $((size0 * 4)) ] || fail "size $size1 is not 4/3 of $size0"
grep -A1 '^md0 ' /proc/mdstat | grep -q '\[6/6\] \[UUUUUU\]' || fail "mdstat: $(grep -A1 '^md0 ' /proc/mdstat)"
verifyA "grow k"
verifyB "grow k"
check_clean md0 "after grow k"
mdadm_km --detail /dev/md0 | grep -q 'Raid Devices : 6' || fail "--detail: not 6 devices"
note "grow k: two members fail, the data verify"
check mdadm_km /dev/md0 --fail /dev/ram0 --fail /dev/ram5
verifyA "grow k, two failed"
verifyB "grow k, two failed"
check mdadm_km --stop /dev/md0
check mdadm_km --zero-superblock $(members 6)

note "grow m: 3+2 -> 3+3 while fio writes"
check mdadm_km --create /dev/md0 --run --level=km --layout=m2 \
	--raid-devices=5 --chunk=64 $(members 5)
wait_sync md0
size0=$(sectors)
fillA
check mdadm_km /dev/md0 --add /dev/ram5
slow 1000
check mdadm_km --grow /dev/md0 --layout=m3 --raid-devices=6
mdadm_km --detail /dev/md0 >/tmp/detail
grep -q 'Reshape Status : ' /tmp/detail || fail "--detail during grow m: $(cat /tmp/detail)"
grep -q 'New Layout : m3$' /tmp/detail || fail "--detail during grow m: $(grep -i layout /tmp/detail)"
grep -q 'Delta Devices : 1, (5->6)' /tmp/detail || fail "--detail during grow m: $(grep Delta /tmp/detail)"
mdadm_km --examine /dev/ram0 | grep -q 'New Layout : m3$' || fail "--examine during grow m shows no new layout"
slow 200000
wait_sync md0
check mdadm_km --stop /dev/md0
check mdadm_km --zero-superblock $(members 6)
check mdadm_km --create /dev/md0 --run --level=km --layout=m2 \
	--raid-devices=5 --chunk=64 $(members 5)
wait_sync md0
fillA
check mdadm_km /dev/md0 --add /dev/ram5
grow "grow m" --layout=m3 --raid-devices=6
[ "$(cat $S/layout)" = 3 ] || fail "layout $(cat $S/layout), not m3"
[ "$(sectors)" = "$size0" ] || fail "size changed by grow m: $(sectors), was $size0"
check_clean md0 "after grow m"
note "grow m: three members fail, the data verify"
check mdadm_km /dev/md0 --fail /dev/ram1 --fail /dev/ram3 --fail /dev/ram5
grep -q '^md0 : active' /proc/mdstat || fail "array not active with 3 of 6 failed"
verifyA "grow m, three failed"
verifyB "grow m, three failed"
check mdadm_km --stop /dev/md0
check mdadm_km --zero-superblock $(members 6)

# half_way WHAT: a 3+2 array with region A, growing to 4+2 slowly, some
# way into the reshape
half_way() {
	check mdadm_km --create /dev/md0 --run --level=km --layout=m2 \
		--raid-devices=5 --chunk=64 $(members 5)
	wait_sync md0
	fiov --rw=write $A --do_verify=1
	check mdadm_km /dev/md0 --add /dev/ram5
	slow 2000
	check mdadm_km --grow /dev/md0 --raid-devices=6
	sleep 2
	pos=$(cat $S/reshape_position)
	[ "$pos" != none ] && [ "$pos" -gt 0 ] || fail "reshape_position $pos before $1"
}
onlyA() { fiov --rw=write $A --verify_only=1 || fail "region A changed ($1)"; }

note "stop in the middle of a reshape, assemble: it resumes"
half_way "the stop"
check mdadm_km --stop /dev/md0
mdadm_km --examine /dev/ram0 | grep -q 'Reshape pos' || fail "--examine shows no reshape position"
dmesg -c >/dev/null
check mdadm_km --assemble /dev/md0 $(members 6)
sleep 0.5
dmesg | grep -q "md/km:md0: reshape k=3 m=2 -> k=4 m=2 resumes at array sector" ||
	fail "no resume line: $(dmesg | grep km)"
slow 200000
wait_sync md0
[ "$(cat $S/raid_disks)" = 6 ] || fail "raid_disks $(cat $S/raid_disks) after the resumed reshape"
[ "$(cat $S/reshape_position)" = none ] || fail "reshape_position $(cat $S/reshape_position)"
onlyA "after the resumed reshape"
check_clean md0 "after the resumed reshape"
check mdadm_km --stop /dev/md0
check mdadm_km --zero-superblock $(members 6)

note "a member fails half way through a reshape: it goes on degraded"
half_way "the failure"
check mdadm_km /dev/md0 --fail /dev/ram2
sleep 1
onlyA "a member failed during the reshape"
# wide degraded reads are not tried while the rows move: by rows
awk '$1 == "reshape" && $2 > 0 { ok = 1 } END { exit !ok }' $S/km/wide_read_fallbacks ||
	fail "degraded reads during the reshape did not go by rows: $(cat $S/km/wide_read_fallbacks)"
slow 200000
wait_sync md0
[ "$(cat $S/reshape_position)" = none ] || fail "reshape_position $(cat $S/reshape_position) after the degraded reshape"
[ "$(cat $S/raid_disks)" = 6 ] || fail "raid_disks $(cat $S/raid_disks) after the degraded reshape"
[ "$(cat $S/degraded)" = 1 ] || fail "degraded $(cat $S/degraded) after the degraded reshape"
onlyA "after the degraded reshape"
note "the failed member rebuilt in the new shape"
check mdadm_km /dev/md0 --remove /dev/ram2
check mdadm_km --zero-superblock /dev/ram2
check mdadm_km /dev/md0 --add /dev/ram2
sleep 0.5
wait_sync md0
[ "$(cat $S/degraded)" = 0 ] || fail "degraded $(cat $S/degraded) after the rebuild"
onlyA "after the rebuild"
check_clean md0 "after the degraded reshape and the rebuild"
check mdadm_km --stop /dev/md0
check mdadm_km --zero-superblock $(members 6)

note "md raid6 taken over as km, then grown to m=3 online"
load_raid6
check mdadm_km --create /dev/md0 --run --level=6 --raid-devices=5 \
	--chunk=64 $(members 5)
wait_sync md0
fillA
check mdadm_km --grow /dev/md0 --level=km
[ "$(cat $S/layout)" = 258 ] || fail "layout $(cat $S/layout) after takeover"
verifyA "after takeover"
check mdadm_km /dev/md0 --add /dev/ram5
grow "raid6 -> m3" --layout=m3-raid6 --raid-devices=6
[ "$(cat $S/layout)" = 259 ] || fail "layout $(cat $S/layout), not m3-raid6 (259)"
mdadm_km --detail /dev/md0 | grep -q 'Layout : m3-raid6' || fail "--detail: $(mdadm_km --detail /dev/md0 | grep Layout)"
check_clean md0 "raid6 taken over and grown to m3"
check mdadm_km /dev/md0 --fail /dev/ram0 --fail /dev/ram2 --fail /dev/ram4
verifyA "m3-raid6, three failed"
verifyB "m3-raid6, three failed"
check mdadm_km --stop /dev/md0
check mdadm_km --zero-superblock $(members 6)

note "refused: 0.90 metadata"
check mdadm_km --create /dev/md0 --run --level=km --layout=m2 \
	--metadata=0.90 --raid-devices=5 --chunk=64 --assume-clean $(members 5)
check mdadm_km /dev/md0 --add /dev/ram5
mdadm_km --grow /dev/md0 --raid-devices=6 2>/tmp/err && fail "grew a 0.90 array"
grep -q "needs 1.x metadata" /tmp/err || fail "mdadm said: $(cat /tmp/err)"
[ "$(cat $S/raid_disks)" = 5 ] || fail "raid_disks $(cat $S/raid_disks)"
check mdadm_km --stop /dev/md0
echo "km-reshape: ok"
