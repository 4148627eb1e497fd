# covers: km: resize
# ->resize: a km 4+2 array created on part of its members grows to the
# whole members (mdadm --grow --size=max): the new size is k times the
# member size, the added region is resynced, old data still verifies and
# new data fits; parity is consistent afterwards.
# timeout: 150
. /lib/raidkm/lib.sh
# a previous scenario of the same boot may have left ramdisks behind
rmmod brd 2>/dev/null

N=6 M=2
ramdisks $N 16
load_raidkm
S=/sys/block/md0/md

check mdadm_km --create /dev/md0 --run --assume-clean --level=km --layout=m$M \
	--raid-devices=$N --chunk=64 --size=4096 $(members $N)
small=$(blockdev --getsize64 /dev/md0)
[ "$small" = $((4 * 4096 * 1024)) ] || fail "size $small, expected 4 x 4 MiB"
fiov --name=a --rw=write --bs=128k --size=12M --offset=0
check mdadm_km --grow /dev/md0 --size=max
sleep 1
wait_sync md0
big=$(blockdev --getsize64 /dev/md0)
comp=$(cat $S/component_size)
echo "grown from $small to $big bytes, component $comp KiB"
[ "$big" = $((4 * comp * 1024)) ] || fail "size $big is not 4 x component size"
[ "$big" -gt "$small" ] || fail "array did not grow"
fiov --name=a --rw=write --bs=128k --size=12M --offset=0 --verify_only
fiov --name=b --rw=write --bs=256k --size=24M --offset=16M
echo check > $S/sync_action
sleep 1
wait_sync md0
[ "$(cat $S/mismatch_cnt)" = 0 ] || fail "mismatch_cnt $(cat $S/mismatch_cnt) after grow"
check mdadm_km --stop /dev/md0
rmmod brd 2>/dev/null
echo PASS
