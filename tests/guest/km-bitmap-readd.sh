# covers: km: write-intent bitmap; km: re-add
# A member that drops out and comes back is brought up to date from the
# write-intent bitmap, and from nothing else.  km 4+2 with an internal
# bitmap: region A is written, member 1 is failed and removed, region B
# is written while it is out (the bitmap marks B's chunks, not A's), it
# is re-added: md's recovery rewrites only what the bitmap marked (member
# 1, a dm-linear device for its I/O statistics, takes far less than its
# size in writes) and the bitmap ends clean.  Then two other members
# fail, so that member 1's chunks are read from it and feed every
# rebuild: A and B both verify.  Who counts writes in the bitmap differs
# between kernels (km on 6.1, md on 6.12; Documentation/kernels.rst); a
# write it missed would read back stale.
# timeout: 180
. /lib/raidkm/lib.sh
rmmod brd 2>/dev/null

N=6 M=2 MIB=32
ramdisks $N $MIB
# the member that comes back is a dm-linear device over ram1: brd keeps no
# I/O statistics, dm does
check modprobe dm-mod
# (no udev here: make the node ourselves)
echo "0 $((MIB * 2048)) linear /dev/ram1 0" | check dmsetup create --noudevsync back
check dmsetup mknodes back
X=/dev/mapper/back
xname=$(grep -lx back /sys/block/dm-*/dm/name | cut -d/ -f4)
[ -f /sys/block/$xname/stat ] || fail "no statistics for $X ($xname)"
load_raidkm
A="--name=a --rw=write --bs=64k --size=8M --offset=0"
B="--name=b --rw=randwrite --bs=4k --size=6M --offset=72M"

# bits DEV: "TOTAL DIRTY" from DEV's bitmap
bits() {
	mdadm_km -X "$1" | sed -n 's/.*Bitmap : \([0-9]*\) bits.*, \([0-9]*\) dirty.*/\1 \2/p'
}
# written: sectors written to the member that comes back so far
written() {
	awk '{print $7}' /sys/block/$xname/stat
}
# wait_clean DEV: the bitmap on DEV has no dirty chunk (20 s)
wait_clean() {
	dev=$1 what=$2 n=0
	while set -- $(bits $dev) && [ "$2" != 0 ] && [ $n -lt 40 ]; do
		sleep 0.5
		n=$((n + 1))
	done
	[ "$2" = 0 ] || fail "bitmap on $dev still has $2 dirty chunks ($what)"
}

check mdadm_km --create /dev/md0 --run --assume-clean --level=km --layout=m$M \
	--raid-devices=$N --chunk=64 --bitmap=internal --bitmap-chunk=256K \
	--delay=1 /dev/ram0 $X $(members $((N - 2)) 2)
fiov $A
wait_clean /dev/ram0 "after region A"

note "member 1 out; region B written while it is"
check mdadm_km /dev/md0 --fail $X
check mdadm_km /dev/md0 --remove $X
fiov $B
sleep 2
set -- $(bits /dev/ram0)
total=$1 dirty=$2
echo "bitmap while member 1 is out: $total bits, $dirty dirty"
[ -n "$dirty" ] && [ "$dirty" -gt 0 ] || fail "the writes while degraded left no dirty bitmap chunk"
[ "$dirty" -lt $((total / 4)) ] || fail "$dirty of $total chunks dirty: far more than region B"

note "--re-add member 1: recovery of the dirty chunks only"
before=$(written)
check mdadm_km /dev/md0 --re-add $X
sleep 0.5
wait_sync md0
grep -A2 '^md0 ' /proc/mdstat
grep -q '\[UUUUUU\]' /proc/mdstat || fail "member 1 is not back in sync"
w=$(($(written) - before))
echo "member 1 took $w sectors of writes to catch up ($((MIB * 2048)) in all)"
[ "$w" -gt 0 ] || fail "the re-added member was not written at all"
[ "$w" -lt $((MIB * 2048 / 4)) ] || fail "re-add rewrote $w sectors: not limited by the bitmap"
wait_clean /dev/ram0 "after the re-add"

note "two other members fail: member 1's data and parity are needed"
check mdadm_km /dev/md0 --fail /dev/ram2
check mdadm_km /dev/md0 --fail /dev/ram4
fiov $A --verify_only
fiov $B --verify_only
check mdadm_km --stop /dev/md0
check dmsetup remove --noudevsync back
rmmod brd 2>/dev/null
echo PASS
