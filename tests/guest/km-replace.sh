# covers: km: hot replace
# Hot replace (mdadm --replace), as raid6 does it: km 4+2 with a bitmap
# and fio writing and verifying all along.
#  1. --replace ram1 with a spare: the spare shows as (R) and is rebuilt
#     while the array stays fully redundant (degraded 0 throughout, and
#     two other members may fail meanwhile without loss); at the end ram1
#     is faulty, --remove takes it out, the spare holds slot 1.
#  2. --replace ram2 --with ram7: the named spare, not another one, takes
#     the slot.
#  3. the member being replaced fails half way: the replacement goes on
#     as an ordinary rebuild.
#  4. the replacement fails half way: the old member stays, in sync.
#  5. the array is stopped half way through a replacement and assembled
#     again: the replacement resumes and completes.
# "Half way" is exact: md's sync_max holds the replacement there.
# After each: every byte verifies, check finds no mismatch.
# timeout: 300
. /lib/raidkm/lib.sh
rmmod brd 2>/dev/null

N=6 M=2 MIB=16
ramdisks 10 $MIB
load_raidkm
S=/sys/block/md0/md
A="--name=a --rw=write --bs=64k --size=16M --offset=0"
B="--name=b --rw=randwrite --bs=4k --size=4M --offset=24M"

# settle: md has started what it will and finished it
settle() {
	sleep 1
	wait_sync md0
	sleep 1
	wait_sync md0
}
# slow: md's speed limits at 1 KiB/s hold every sync (a chunk now and
# then) however slow the guest runs; fast: md's defaults
slow() {
	echo 1 >/proc/sys/dev/raid/speed_limit_min
	echo 1 >/proc/sys/dev/raid/speed_limit_max
}
fast() {
	echo 200000 >/proc/sys/dev/raid/speed_limit_max
	echo 1000 >/proc/sys/dev/raid/speed_limit_min
}
# hold_half: the next replacement stops half way through the members
# (md's sync_max, in member sectors, a chunk multiple) until go_on;
# at_half WHAT waits until it got there
HALF=$((MIB * 1024))
hold_half() {
	i=0
	until echo $HALF >$S/sync_max 2>/dev/null; do	# EBUSY while md syncs
		i=$((i + 1))
		[ $i -lt 50 ] || fail "sync_max $HALF refused: $(cat /proc/mdstat)"
		sleep 0.1
	done
}
go_on() { echo max >$S/sync_max || fail "sync_max max"; }
at_half() {
	i=0
	until c=$(cut -d' ' -f1 $S/sync_completed 2>/dev/null) &&
	    [ "$c" -ge $HALF ] 2>/dev/null; do
		i=$((i + 1))
		[ $i -lt 600 ] || { cat /proc/mdstat; fail "$1: not half way after 60 s (sync_completed $(cat $S/sync_completed))"; }
		sleep 0.1
	done
}
# role DEV: DEV's slot number in md0, from sysfs ("none" for a spare)
role() {
	cat $S/dev-$1/slot 2>/dev/null || echo gone
}
state() {
	cat $S/dev-$1/state 2>/dev/null || echo gone
}
# replacing: a replacement is being rebuilt
replacing() {
	grep -q '(R)' /proc/mdstat && grep -A3 '^md0 ' /proc/mdstat | grep -q recovery
}
# load_start / load_check: fio passes writing and verifying B, back to
# back in the background, until load_check; any bad pass fails
load_start() {
	rm -f /tmp/load.stop /tmp/load.bad
	(
		while [ ! -f /tmp/load.stop ]; do
			fio --filename=/dev/md0 --direct=1 --ioengine=libaio \
			    --iodepth=4 --verify=crc32c --verify_fatal=1 $B \
			    >/tmp/load.out 2>&1 || { touch /tmp/load.bad; break; }
		done
	) &
	load=$!
}
load_check() {
	touch /tmp/load.stop
	wait $load
	if [ -f /tmp/load.bad ]; then
		cat /tmp/load.out
		fail "fio load failed ($1)"
	fi
}
# replace_then_fail OLD VICTIM WHAT: replace OLD, fail VICTIM (OLD
# itself or its replacement) half way, let md finish
replace_then_fail() {
	hold_half
	check mdadm_km /dev/md0 --replace /dev/$1
	at_half "$3"
	replacing || { cat /proc/mdstat; fail "$3 is not under way"; }
	check mdadm_km /dev/md0 --fail /dev/$2
	go_on
	settle
	cat /proc/mdstat
}
verify_all() {
	fiov $A --verify_only
	fiov $B --verify_only
	check_clean md0 "$1"
}

check mdadm_km --create /dev/md0 --run --assume-clean --level=km --layout=m$M \
	--raid-devices=$N --chunk=64 --bitmap=internal $(members $N)
fiov $A
fiov $B

note "1. --replace ram1 with a spare, under load"
check mdadm_km /dev/md0 --add /dev/ram6
[ "$(role ram6)" = none ] || fail "ram6 is not a spare: $(role ram6)"
hold_half
load_start
check mdadm_km /dev/md0 --replace /dev/ram1
at_half "replacement 1"
replacing || { cat /proc/mdstat; fail "no replacement under way"; }
cat /proc/mdstat
[ "$(role ram6)" = 1 ] || fail "the spare took slot $(role ram6), not 1"
grep -q 'ram6\[[0-9]*\](R)' /proc/mdstat || fail "/proc/mdstat does not mark ram6 (R)"
# mdadm 4.2's --detail shows a replacement as raid6's: rebuilding
mdadm_km --detail /dev/md0 >/tmp/detail
grep -E 'State :|ram1|ram6' /tmp/detail
grep -q 'spare rebuilding *\/dev\/ram6' /tmp/detail || fail "--detail: ram6 not rebuilding"
grep -q 'active sync *\/dev\/ram1' /tmp/detail || fail "--detail: ram1 not active during its replacement"
[ "$(cat $S/degraded)" = 0 ] || fail "degraded $(cat $S/degraded) during a replacement"
note "two other members fail during the replacement: still no loss"
check mdadm_km /dev/md0 --fail /dev/ram3 /dev/ram4
fiov $A --verify_only
go_on
settle
load_check "replacement 1"
cat /proc/mdstat
state ram1 | grep -q faulty || fail "ram1 is not faulty after its replacement: $(state ram1)"
[ "$(role ram6)" = 1 ] || fail "ram6 holds slot $(role ram6) after the replacement"
check mdadm_km /dev/md0 --remove /dev/ram1 /dev/ram3 /dev/ram4
check mdadm_km --zero-superblock /dev/ram1 /dev/ram3 /dev/ram4
check mdadm_km /dev/md0 --add /dev/ram3 /dev/ram4
settle
grep -q '\[6/6\] \[UUUUUU\]' /proc/mdstat || { cat /proc/mdstat; fail "not whole again"; }
verify_all "after replacement 1"

note "2. --replace ram2 --with ram7 (two spares to choose from)"
check mdadm_km /dev/md0 --add /dev/ram1 /dev/ram7
slow
check mdadm_km /dev/md0 --replace /dev/ram2 --with /dev/ram7
sleep 1
[ "$(role ram7)" = 2 ] || { cat /proc/mdstat; fail "ram7 took slot $(role ram7), not 2"; }
[ "$(role ram1)" = none ] || fail "ram1 took slot $(role ram1): --with was ignored"
fast
settle
state ram2 | grep -q faulty || fail "ram2 not faulty after its replacement: $(state ram2)"
check mdadm_km /dev/md0 --remove /dev/ram2
verify_all "after replacement 2"

note "3. the member being replaced fails half way"
load_start
replace_then_fail ram0 ram0 "replacement 3"
load_check "replacement 3"
[ "$(role ram1)" = 0 ] || fail "ram1 holds slot $(role ram1) after its member failed"
grep -q '\[6/6\] \[UUUUUU\]' /proc/mdstat || fail "not whole after replacement 3"
check mdadm_km /dev/md0 --remove /dev/ram0
verify_all "after replacement 3"

note "4. the replacement fails half way"
check mdadm_km --zero-superblock /dev/ram0
check mdadm_km /dev/md0 --add /dev/ram0
replace_then_fail ram5 ram0 "replacement 4"
[ "$(role ram5)" = 5 ] || fail "ram5 left slot 5: $(role ram5)"
state ram5 | grep -q in_sync || fail "ram5 not in sync: $(state ram5)"
[ "$(cat $S/degraded)" = 0 ] || fail "degraded $(cat $S/degraded) after the replacement failed"
check mdadm_km /dev/md0 --remove /dev/ram0
# ram5 still wants a replacement (the next spare would get it), as on
# raid6: the admin withdraws the request
state ram5 | grep -q want_replacement || fail "ram5 forgot it wants a replacement: $(state ram5)"
echo -want_replacement >$S/dev-ram5/state || fail "cannot withdraw want_replacement"
verify_all "after replacement 4"

note "5. stop half way through a replacement, assemble again"
check mdadm_km --zero-superblock /dev/ram0
check mdadm_km /dev/md0 --add /dev/ram0
[ "$(role ram0)" = none ] || fail "ram0 is not a spare: $(role ram0)"
slot=$(role ram4)
hold_half
check mdadm_km /dev/md0 --replace /dev/ram4
at_half "replacement 5"
replacing || { cat /proc/mdstat; fail "replacement 5 is not under way"; }
cat /proc/mdstat
devs=$(ls $S | sed -n 's/^dev-//p' | sed 's|^|/dev/|')
check mdadm_km --stop /dev/md0
dmesg -c >/dev/null
# the resumed replacement held until it is seen
slow
check mdadm_km --assemble /dev/md0 $devs
sleep 1
cat /proc/mdstat
grep -q 'ram0\[[0-9]*\](R)' /proc/mdstat || fail "ram0 is not a replacement after assembly"
fast
settle
dmesg | grep -q 'replacement of ram4 by ram0 complete' ||
	fail "the resumed replacement did not complete"
cat /proc/mdstat
state ram4 | grep -q faulty || fail "ram4 not faulty after the resumed replacement: $(state ram4)"
[ "$(role ram0)" = "$slot" ] || fail "ram0 holds slot $(role ram0), not $slot"
check mdadm_km /dev/md0 --remove /dev/ram4
verify_all "after replacement 5"
check mdadm_km --stop /dev/md0
rmmod brd 2>/dev/null
echo PASS
