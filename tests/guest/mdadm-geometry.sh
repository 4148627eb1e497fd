# covers: mdadm: geometry checks
# mdadm refuses bad km geometries (m=0, m=17, k=1, k+m=65) with
# a message naming the limit, before the kernel is touched: no md device
# appears and no member gets a superblock or any other write.
# timeout: 180
. /lib/raidkm/lib.sh

ramdisks 66 8
load_raidkm

# zeros DEV: the first 1 MiB of DEV is all zeros (a 1.2 superblock
# would sit at 4 KiB)
zeros() {
	n=$(dd if="$1" bs=65536 count=16 2>/dev/null | tr -d '\000' | wc -c)
	[ "$n" -eq 0 ]
}

# refuse NAME "MESSAGE" N-MEMBERS MDADM-ARGS...
refuse() {
	name=$1 want=$2 n=$3
	shift 3
	out=$(mdadm_km --create /dev/md0 --run --level=km "$@" \
		--raid-devices=$n $(members $n) 2>&1)
	rc=$?
	echo "$name: rc=$rc: $out"
	[ $rc -eq 2 ] || fail "$name: exit status $rc, want 2"
	echo "$out" | grep -qF "$want" || fail "$name: message lacks '$want'"
	[ -e /sys/block/md0 ] && fail "$name: /sys/block/md0 exists: md was touched"
	i=0
	while [ $i -lt $n ]; do
		zeros /dev/ram$i || fail "$name: /dev/ram$i was written"
		i=$((i + 1))
	done
	if dmesg | grep -Eq 'md0|md/km|bind<'; then
		fail "$name: md saw an array: $(dmesg | grep -E 'md0|md/km|bind<')"
	fi
	true
}

refuse m0 "m must be between 1 and 16" 8 --layout=m0
refuse m17 "m must be between 1 and 16" 20 --layout=m17
refuse k1-m3 "k must be at least 2" 4 --layout=m3
refuse k1-default-m2 "with m=2 leaves k=1 data devices: k must be at least 2" 3
refuse k0-m16 "k must be at least 2" 16 --layout=m16
refuse km65 "k+m must be at most 64" 65 --layout=m3
refuse layout "layout for km must be 'mNN'" 8 --layout=left-symmetric

# 'missing' members: more than m, or fewer than m without --assume-clean,
# are refused before md is touched (exit status 1: Create's checks)
refuse_missing() {
	name=$1 want=$2
	shift 2
	out=$(mdadm_km --create /dev/md0 --run --level=km --layout=m3 \
		--raid-devices=8 "$@" 2>&1)
	rc=$?
	echo "$name: rc=$rc: $out"
	[ $rc -ne 0 ] || fail "$name: accepted"
	echo "$out" | grep -qF "$want" || fail "$name: message lacks '$want'"
	[ -e /sys/block/md0 ] && fail "$name: /sys/block/md0 exists: md was touched"
	true
}
refuse_missing missing-4-of-m3 "at most m raid-devices may be missing" \
	$(members 4) missing missing missing missing
refuse_missing missing-2-of-m3 "give exactly m missing devices, or use --assume-clean" \
	$(members 6) missing missing

# members untouched: mdadm --examine finds no superblock on any of them
i=0
while [ $i -lt 66 ]; do
	mdadm_km --examine /dev/ram$i >/dev/null 2>&1 &&
		fail "/dev/ram$i has an md superblock"
	i=$((i + 1))
done
grep -q '^md' /proc/mdstat && fail "an md array exists: $(cat /proc/mdstat)"
# exactly m missing is fine: the 5 present members get superblocks that
# mark 3 slots missing and the array runs degraded
check mdadm_km --create /dev/md0 --run --level=km --layout=m3 --raid-devices=8 \
	missing $(members 5) missing missing
grep -q '^md0 : active' /proc/mdstat ||
	fail "exactly m missing: the array does not run: $(cat /proc/mdstat)"
check mdadm_km --stop /dev/md0
for d in $(members 5); do
	e=$(mdadm_km --examine $d 2>&1) || fail "exactly m missing: no superblock on $d"
	echo "$e" | grep -qF "Array State : .AAAAA.. " || fail "$d: array state: $e"
	echo "$e" | grep -qF "State : clean" || fail "$d: not clean"
done
echo "mdadm-geometry: ok"
