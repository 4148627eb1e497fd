# covers: mdadm: array life (fail, remove, re-add, monitor, stop)
# A km array's life with the project's mdadm, as for raid6:
# --create with --spare-devices, --assume-clean, --bitmap=internal, --run;
# then --detail, --fail, --remove, --re-add, --add, --wait, --monitor,
# --stop, --zero-superblock.  Until the km personality runs arrays the
# create ends at the kernel's refusal of RUN_ARRAY: then the superblocks
# (bitmap, clean state, spare role) are what is asserted; once it runs,
# the whole life is.
# timeout: 300
. /lib/raidkm/lib.sh

N=6 M=2
ramdisks 8 16
load_raidkm
all=$(members 7)	# 6 raid devices + 1 spare; /dev/ram7 added later

out=$(mdadm_km --create /dev/md0 --run --level=km --layout=m$M \
	--raid-devices=$N --spare-devices=1 --assume-clean --bitmap=internal \
	$all 2>&1)
rc=$?
echo "create rc=$rc"; echo "$out"

# superblocks either way: internal bitmap, clean, 6 active + 1 spare
i=0
for d in $all; do
	e=$(mdadm_km --examine $d 2>&1) || fail "--examine $d: $e"
	[ $i -eq 0 ] && echo "$e"
	for f in "Raid Level : km" "Raid Devices : $N" "Layout : m$M" \
		 "Feature Map : 0x1" "State : clean"; do
		echo "$e" | grep -qF "$f" || fail "$d: --examine lacks '$f'"
	done
	echo "$e" | grep -q 'Internal Bitmap : [0-9]* sectors from superblock' ||
		fail "$d: no internal bitmap"
	if [ $i -lt $N ]; then
		echo "$e" | grep -qF "Device Role : Active device $i" || fail "$d: role"
	else
		echo "$e" | grep -qF "Device Role : spare" || fail "$d: not a spare"
	fi
	i=$((i + 1))
done
b=$(mdadm_km --examine-bitmap /dev/ram0 2>&1)
echo "$b" | grep -q 'Sync Size' || fail "--examine-bitmap: $b"

if [ $rc -ne 0 ]; then
	echo "$out" | grep -q 'RUN_ARRAY failed' ||
		fail "create failed before RUN_ARRAY (rc=$rc)"
	dmesg | grep -q 'md/km' || fail "RUN_ARRAY refused without md/km message"
	echo "mdadm-lifecycle: km does not run arrays yet; superblocks ok"
	for d in $all; do check mdadm_km --zero-superblock $d; done
	exit 0
fi

# ---- the personality runs arrays: the whole life ----
detail() { mdadm_km --detail /dev/md0; }
expect() {	# expect "FIELD : VALUE"
	detail | grep -q "^ *$1\$" || { detail; fail "--detail lacks '$1'"; }
}
wait_md() {
	mdadm_km --wait /dev/md0
	wait_sync md0
}
wait_md
expect "Raid Level : km"
expect "Layout : m$M"
expect "Active Devices : $N"
expect "Spare Devices : 1"
grep -A1 '^md0 : active km' /proc/mdstat | grep -q 'bitmap\|blocks' || fail "mdstat"

note "fail + remove + re-add (bitmap)"
check mdadm_km /dev/md0 --fail /dev/ram1
check mdadm_km /dev/md0 --remove /dev/ram1
wait_md	# the spare (ram6) takes slot 1
# ram1's slot went to the spare: it comes back (re-add, else add) as a spare
mdadm_km /dev/md0 --re-add /dev/ram1 ||
	check mdadm_km /dev/md0 --add /dev/ram1
wait_md
expect "Active Devices : $N"
expect "Failed Devices : 0"
expect "Spare Devices : 1"

note "two more failures: the spare (ram1) rebuilds one, still running"
check mdadm_km /dev/md0 --fail /dev/ram2
check mdadm_km /dev/md0 --fail /dev/ram3
wait_md
cat /proc/mdstat
grep -q '^md0 : active' /proc/mdstat || fail "md0 stopped after m failures"

note "--monitor --oneshot reports the degradation"
cat >/tmp/alert.sh <<'EOS'
#!/bin/sh
echo "$1 $2 $3" >>/tmp/alerts
EOS
chmod +x /tmp/alert.sh
check mdadm_km /dev/md0 --remove /dev/ram2 /dev/ram3
mdadm_km --monitor --oneshot --program=/tmp/alert.sh /dev/md0
cat /tmp/alerts 2>/dev/null
grep -q 'DegradedArray /dev/md0' /tmp/alerts || fail "--monitor did not report DegradedArray"

note "--add back, --wait"
check mdadm_km --zero-superblock /dev/ram2
# one of them fills the empty slot, two stay spares
check mdadm_km /dev/md0 --add /dev/ram2 /dev/ram3 /dev/ram7
wait_md
expect "Active Devices : $N"
expect "Spare Devices : 2"

note "stop, assemble --scan, stop, zero"
check mdadm_km --stop /dev/md0
echo "DEVICE /dev/ram*" >/tmp/scan.conf
check mdadm_km --assemble --scan --config=/tmp/scan.conf
grep -q ': active km' /proc/mdstat || fail "--assemble --scan did not start it"
for d in /dev/md/* /dev/md0 /dev/md127; do
	[ -b "$d" ] && mdadm_km --stop "$d" 2>/dev/null
done
grep -q '^md' /proc/mdstat && fail "array left: $(cat /proc/mdstat)"
for d in $(members 8); do
	mdadm_km --zero-superblock $d 2>/dev/null
	mdadm_km --examine $d >/dev/null 2>&1 && fail "$d kept its superblock"
done
echo "mdadm-lifecycle: ok"
