# covers: km: sync windows; km: read errors; km: bad blocks
# Sync windows (wide_sync.c) meeting member errors go by rows, where the
# row path's error handling works as before.  km 4+2, 512 KiB chunks
# (128-row windows); member 2 and one spare are dm devices over ramdisks
# whose tables can turn 32 sectors into an "error" target.
#  1. a read error in a rebuild window: member 1 is rebuilt while 32
#     sectors of member 2 fail; the window goes to rows (read_error), the
#     rows rebuild the sectors, their rewrite fails and is recorded as bad
#     blocks; the rebuild completes, the data verifies.
#  2. a bad-block record in a window: check takes that window by rows
#     (bad_block) and finds no mismatch.
#  3. a write error in a rebuild window: member 3 is rebuilt onto the
#     spare whose 32 sectors fail writes; the window goes to rows
#     (write_error), which record the rows bad on the spare (or fail it);
#     the data verifies.
# timeout: 300
. /lib/raidkm/lib.sh
rmmod brd 2>/dev/null
dmsetup remove --noudevsync rerr 2>/dev/null
dmsetup remove --noudevsync werr 2>/dev/null

MIB=8
SZ=$((MIB * 2048))
ramdisks 8 $MIB
load_raidkm
check modprobe dm-mod
S=/sys/block/md0/md
K=$S/km
fallback() { awk -v r=$1 '$1 == r { print $2 }' $K/wide_sync_fallbacks; }

# table DEV RAM ERRSTART: DEV over RAM, 32 sectors from ERRSTART failing
# (no ERRSTART: all linear)
table() {
	if [ -z "$3" ]; then
		echo "0 $SZ linear /dev/$2 0"
	else
		printf '0 %d linear /dev/%s 0\n%d 32 error\n%d %d linear /dev/%s %d\n' \
			$3 $2 $3 $(($3 + 32)) $((SZ - $3 - 32)) $2 $(($3 + 32))
	fi >/tmp/table.$1
}
retable() {	# retable DEV RAM [ERRSTART]
	table "$@"
	check dmsetup suspend --noudevsync $1
	check dmsetup load $1 /tmp/table.$1
	check dmsetup resume --noudevsync $1
}
for d in rerr:ram2 werr:ram6; do
	table ${d%:*} ${d#*:}
	check dmsetup create --noudevsync ${d%:*} /tmp/table.${d%:*}
done
check dmsetup mknodes
R=/dev/mapper/rerr W=/dev/mapper/werr
# md names a member by its kernel name: dm-<minor>
rname=dm-$(dmsetup info -c --noheadings -o minor rerr | tr -d ' ')

A="--name=a --rw=write --bs=512k --size=16M --offset=0"
check mdadm_km --create /dev/md0 --run --assume-clean --level=km --layout=m2 \
	--raid-devices=6 --chunk=512 /dev/ram0 /dev/ram1 $R /dev/ram3 /dev/ram4 /dev/ram5
fiov $A
off=$(cat $S/dev-$rname/offset)
[ -n "$off" ] || fail "no data offset for $rname"

note "a read error in a rebuild window"
# member sectors 4096..4127 of member 2 (chunk stripe 4)
retable rerr ram2 $((off + 4096))
check mdadm_km /dev/md0 --fail /dev/ram1
check mdadm_km /dev/md0 --remove /dev/ram1
check mdadm_km /dev/md0 --add /dev/ram7
sleep 1
wait_sync md0
echo "fallbacks: $(tr '\n' ' ' <$K/wide_sync_fallbacks); windows $(cat $K/wide_sync_windows), whole $(cat $K/wide_sync_whole)"
grep -A1 '^md0 ' /proc/mdstat | grep -q '\[6/6\]' || fail "not whole after the rebuild: $(cat /proc/mdstat)"
[ "$(fallback read_error)" -ge 1 ] || fail "no window went to rows for a read error"
[ "$(cat $K/bad_blocks_recorded)" -ge 1 ] || fail "the unwritable rows were not recorded"
echo "bad blocks of member 2: $(cat $S/dev-$rname/bad_blocks)"
fiov $A --verify_only

note "a bad-block record in a check window"
b0=$(fallback bad_block)
check_clean md0 "with recorded rows"
[ "$(fallback bad_block)" -gt "$b0" ] || fail "no window went to rows for a bad-block record"
fiov $A --verify_only

note "a write error in a rebuild window"
# member sectors 6144..6175 of the spare (chunk stripe 6) fail (the
# spare is given the members' data offset: same size)
retable werr ram6 $((off + 6144))
w0=$(fallback write_error)
check mdadm_km /dev/md0 --fail /dev/ram3
check mdadm_km /dev/md0 --remove /dev/ram3
check mdadm_km /dev/md0 --add $W
sleep 1
wait_sync md0
echo "fallbacks: $(tr '\n' ' ' <$K/wide_sync_fallbacks)"
grep -A1 '^md0 ' /proc/mdstat
[ "$(fallback write_error)" -gt "$w0" ] || fail "no window went to rows for a write error"
fiov $A --verify_only
check mdadm_km --stop /dev/md0
dmesg | grep -E 'md/km:md0: .*(read error|write error|bad blocks)' | head -5
dmsetup remove --noudevsync rerr
dmsetup remove --noudevsync werr
rmmod brd 2>/dev/null
echo PASS
