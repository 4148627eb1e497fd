# covers: mdadm: create, examine and detail
# mdadm --create --level=km --layout=m3 on 8 members writes 1.2
# superblocks that mdadm --examine reads back as km with m=3 (every field
# asserted); --detail names km.  Until the km personality runs arrays the
# kernel refuses RUN_ARRAY (mdadm writes the superblocks before that), so
# both outcomes of the create are accepted; the superblocks are checked
# strictly either way.
# timeout: 180
# mem: 1024
. /lib/raidkm/lib.sh

N=8 M=3 K=5 CHUNK=64
ramdisks $N 32
load_raidkm

out=$(mdadm_km --create /dev/md0 --run --level=km --layout=m$M \
	--raid-devices=$N --chunk=$CHUNK --name=kmtest $(members $N) 2>&1)
rc=$?
echo "create: rc=$rc"
echo "$out"
running=0
if [ $rc -eq 0 ]; then
	running=1
	grep -A2 '^md0 ' /proc/mdstat
	grep '^md0 : active' /proc/mdstat | grep -q ' km ' ||
		fail "/proc/mdstat does not show md0 active as km"
	d=$(mdadm_km --detail /dev/md0)
	echo "$d"
	for f in "Raid Level : km" "Raid Devices : $N" "Layout : m$M" \
		 "Parity Devices : $M" "Chunk Size : ${CHUNK}K" "Version : 1.2"; do
		echo "$d" | grep -q "^ *$f\$" || fail "--detail lacks '$f'"
	done
	dmesg | grep -q 'cannot run arrays' && fail "create succeeded but km refused to run"
	mdadm_km --detail --scan --verbose | grep -q '^ARRAY .* level=km num-devices=8 ' ||
		fail "--detail --scan --verbose: $(mdadm_km --detail --scan --verbose)"
	check mdadm_km --stop /dev/md0
else
	# the only acceptable failure: the kernel refusing to run the array
	echo "$out" | grep -q 'RUN_ARRAY failed' ||
		fail "create failed before RUN_ARRAY (rc=$rc)"
	dmesg | grep -q 'md/km' ||
		fail "RUN_ARRAY failed without a message from md/km"
	grep -q '^md0 : active' /proc/mdstat && fail "md0 active after a failed create"
fi

# every member: a 1.2 superblock of a km array, m=3, role = its slot
uuid=""
i=0
for dev in $(members $N); do
	e=$(mdadm_km --examine $dev 2>&1) || fail "--examine $dev failed: $e"
	[ $i -eq 0 ] && echo "$e"
	for f in "Magic : a92b4efc" "Version : 1.2" "Raid Level : km" \
		 "Raid Devices : $N" "Layout : m$M" "Parity Devices : $M" \
		 "Chunk Size : ${CHUNK}K" "Device Role : Active device $i" \
		 "Array State : AAAAAAAA ('A' == active, '.' == missing, 'R' == replacing)"; do
		echo "$e" | grep -qF -- "$f" || fail "$dev: --examine lacks '$f'"
	done
	echo "$e" | grep -q 'Name : .*kmtest' || fail "$dev: array name not kmtest"
	echo "$e" | grep -q 'Checksum : .* - correct' || fail "$dev: bad checksum"
	# Array Size = K * per-member size, whole chunks
	asize=$(echo "$e" | sed -n 's/^ *Array Size : \([0-9]*\) KiB.*/\1/p')
	[ -n "$asize" ] || fail "$dev: no Array Size"
	[ $((asize % K)) -eq 0 ] || fail "$dev: Array Size $asize KiB is not $K data members"
	per=$((asize / K))
	[ $per -gt 0 ] && [ $((per % CHUNK)) -eq 0 ] ||
		fail "$dev: per-member size $per KiB is not whole ${CHUNK}K chunks"
	[ $per -le 32768 ] || fail "$dev: per-member size $per KiB > 32 MiB member"
	u=$(echo "$e" | sed -n 's/^ *Array UUID : //p')
	[ -n "$u" ] || fail "$dev: no Array UUID"
	[ -z "$uuid" ] && uuid=$u
	[ "$u" = "$uuid" ] || fail "$dev: Array UUID $u differs from $uuid"
	i=$((i + 1))
done

# --examine --brief --verbose: the ARRAY line names level km
b=$(mdadm_km --examine --brief --verbose /dev/ram0)
echo "$b"
echo "$b" | grep -q "level=km metadata=1.2 num-devices=$N UUID=$uuid" ||
	fail "--examine --brief --verbose ARRAY line: $b"

if [ $running -eq 0 ]; then
	# inactive arrays: --examine --scan still names the level
	mdadm_km --examine --scan --verbose | grep -q 'level=km' ||
		fail "--examine --scan --verbose lacks level=km"
fi
echo "mdadm-create-examine: ok (array ran: $running)"
