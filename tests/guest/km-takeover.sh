# covers: km: raid6 takeover
# An md raid6 array taken over as km in
# place.  md raid6 (left-symmetric, md's default) over 6 members with an
# internal bitmap is filled with fio-verified data, then taken over with
# "mdadm --grow --level=km" (which writes md's level attribute) while it
# runs.
# km rotation 1 places P, Q and data as raid6 does, so nothing moves:
# the data verify, and km's own "check" finds no mismatch (km's P and Q
# are raid6's, chunk for chunk).  Then km serves it as any km array:
# two members failed and rebuilt, new writes, stop and assemble by mdadm
# (layout m2-raid6 in --detail/--examine); and back to md raid6 by
# "mdadm --assemble --update=raid6" (data verify, raid6's check finds no
# mismatch).  Refused, changing nothing: raid6 in another layout, raid5,
# takeover during a resync, --update=raid6 of a km array in km's own
# rotation.
# timeout: 300
. /lib/raidkm/lib.sh
rmmod brd 2>/dev/null

ramdisks 8 24
load_raid6
load_raidkm
S=/sys/block/md0/md
FIO="--name=tk --bs=64k --size=64M --randseed=7"

# fill: fio writes and verifies the first 64 MiB of md0
fill() { fiov --rw=write $FIO --do_verify=1; }
# verify: the same data read back, nothing written
verify() { fiov --rw=write $FIO --verify_only=1 || fail "data changed ($1)"; }

note "md raid6, left-symmetric, 6 members, internal bitmap"
check mdadm_km --create /dev/md0 --run --level=6 --raid-devices=6 \
	--chunk=64 --bitmap=internal $(members 6)
wait_sync md0
fill
wait_clean md0
check_clean md0 "raid6 before takeover"

note "takeover: mdadm --grow --level=km"
check mdadm_km --grow /dev/md0 --level=km
[ "$(cat $S/level)" = km ] || fail "level is $(cat $S/level), not km"
[ "$(cat $S/layout)" = 258 ] || fail "layout is $(cat $S/layout), not 258 (m2, rotation 1)"
grep -A1 '^md0 ' /proc/mdstat | grep -q 'active km ' || fail "/proc/mdstat: $(grep -A1 '^md0 ' /proc/mdstat)"
dmesg | grep -q 'md/km:md0: taking over raid6' || fail "no takeover line in the kernel log"
verify "after takeover"
check_clean md0 "km right after takeover"
mdadm_km --detail /dev/md0 >/tmp/detail
grep -q 'Raid Level : km' /tmp/detail || fail "--detail: $(grep 'Raid Level' /tmp/detail)"
grep -q 'Layout : m2-raid6' /tmp/detail || fail "--detail: $(grep Layout /tmp/detail)"
mdadm_km --examine /dev/ram0 | grep -q 'Layout : m2-raid6' ||
	fail "--examine does not show m2-raid6"

note "km serves it: two members fail, data verify, rebuild"
check mdadm_km /dev/md0 --fail /dev/ram1 --fail /dev/ram4
check mdadm_km /dev/md0 --remove /dev/ram1 --remove /dev/ram4
verify "two members failed"
check mdadm_km --zero-superblock /dev/ram1 /dev/ram4
check mdadm_km /dev/md0 --add /dev/ram1 /dev/ram4
sleep 0.5
wait_sync md0
[ "$(cat $S/degraded)" = 0 ] || fail "degraded $(cat $S/degraded) after rebuild"
verify "after rebuild"
fiov --rw=randwrite $FIO --offset=64M --size=32M --do_verify=1
verify "after new writes"
wait_clean md0
check_clean md0 "km after rebuild and writes"

note "stop and assemble by mdadm"
check mdadm_km --stop /dev/md0
check mdadm_km --assemble /dev/md0 $(members 6)
[ "$(cat $S/level)" = km ] || fail "assembled as $(cat $S/level)"
[ "$(cat $S/layout)" = 258 ] || fail "assembled with layout $(cat $S/layout)"
verify "after assemble"
wait_clean md0
check mdadm_km --stop /dev/md0

note "back to raid6: assemble with --update=raid6"
check mdadm_km --assemble /dev/md0 --update=raid6 $(members 6)
[ "$(cat $S/level)" = raid6 ] || fail "--update=raid6 assembled $(cat $S/level)"
[ "$(cat $S/layout)" = 2 ] || fail "--update=raid6 left layout $(cat $S/layout)"
verify "back on raid6"
check_clean md0 "raid6 after the way back"
check mdadm_km --stop /dev/md0

note "refused: --update=raid6 on a km array of km's own rotation"
check mdadm_km --zero-superblock $(members 6)
check mdadm_km --create /dev/md0 --run --level=km --layout=m2 \
	--raid-devices=6 --chunk=64 --assume-clean $(members 6)
check mdadm_km --stop /dev/md0
mdadm_km --assemble /dev/md0 --update=raid6 $(members 6) 2>/tmp/err &&
	fail "--update=raid6 accepted a km m2 array"
grep -q "needs a km array of layout m2-raid6" /tmp/err || fail "mdadm said: $(cat /tmp/err)"
mdadm_km --stop /dev/md0 2>/dev/null
mdadm_km --examine /dev/ram0 | grep -q 'Raid Level : km' || fail "a refused --update=raid6 changed the superblock"

note "refused: raid6 right-asymmetric; the array stays raid6"
check mdadm_km --zero-superblock $(members 6)
check mdadm_km --create /dev/md0 --run --level=6 --layout=right-asymmetric \
	--raid-devices=6 --chunk=64 --assume-clean $(members 6)
echo km >$S/level 2>/dev/null && fail "took over a right-asymmetric raid6"
[ "$(cat $S/level)" = raid6 ] || fail "level is $(cat $S/level) after a refused takeover"
dmesg | grep -q 'cannot take over raid6 layout' || fail "no message for the refused layout"

mdadm_km --grow /dev/md0 --level=km 2>/tmp/err && fail "mdadm took over a right-asymmetric raid6"
grep -q "would not take over /dev/md0 as km" /tmp/err || fail "mdadm said: $(cat /tmp/err)"
[ "$(cat $S/level)" = raid6 ] || fail "level is $(cat $S/level) after a refused mdadm takeover"
check mdadm_km --stop /dev/md0

note "refused: raid5; refused while raid6 resyncs"
check mdadm_km --zero-superblock $(members 6)
check mdadm_km --create /dev/md0 --run --level=5 --raid-devices=4 \
	--chunk=64 --assume-clean $(members 4)
mdadm_km --grow /dev/md0 --level=km 2>/dev/null && fail "mdadm took over raid5"
echo km >$S/level 2>/dev/null && fail "took over raid5"
[ "$(cat $S/level)" = raid5 ] || fail "level is $(cat $S/level) after a refused raid5 takeover"
check mdadm_km --stop /dev/md0
check mdadm_km --zero-superblock $(members 4)
# the resync held (md's speed limits at 1 KiB/s) until the refusal is seen
echo 1 >/proc/sys/dev/raid/speed_limit_min
echo 1 >/proc/sys/dev/raid/speed_limit_max
check mdadm_km --create /dev/md0 --run --level=6 --raid-devices=6 \
	--chunk=64 $(members 6)
grep -A3 '^md0 ' /proc/mdstat | grep -q resync || fail "no resync to take over during"
echo km >$S/level 2>/dev/null && fail "took over during a resync"
[ "$(cat $S/level)" = raid6 ] || fail "level is $(cat $S/level) during resync"
echo 200000 >/proc/sys/dev/raid/speed_limit_max
echo 1000 >/proc/sys/dev/raid/speed_limit_min
wait_sync md0
check mdadm_km --stop /dev/md0
echo "km-takeover: ok"
