# covers: mdadm: assemble
# Assembling km arrays with the project's mdadm.  enough() knows a
# km array with m=3 of 8 starts from any 5 members: with 5 members mdadm
# starts it (--run) or waits for the rest (no --run), with 4 it refuses.
# Until the km personality runs arrays, every start attempt ends in the
# kernel's refusal at RUN_ARRAY: both outcomes are accepted, but which
# one mdadm chose (start or refuse) is asserted.  Also --assemble --scan,
# --stop of inactive arrays and --zero-superblock.
# timeout: 240
. /lib/raidkm/lib.sh

N=8 M=3
ramdisks $N 16
load_raidkm

# stop_md: no md0 / md127 left behind (inactive ones included)
stop_md() {
	for d in /dev/md0 /dev/md127; do
		[ -e /sys/block/${d#/dev/}/md ] && mdadm_km --stop $d >/dev/null 2>&1
	done
	grep -q '^md' /proc/mdstat && fail "array left over: $(cat /proc/mdstat)"
	true
}

# started OUT: 0 when mdadm started the array; 1 when the kernel refused
# RUN_ARRAY (the personality not running arrays yet); fails otherwise
started() {
	if echo "$1" | grep -q 'has been started with'; then
		grep -q '^md[0-9]* : active' /proc/mdstat ||
			fail "mdadm says started but /proc/mdstat disagrees"
		return 0
	fi
	echo "$1" | grep -q 'failed to RUN_ARRAY' ||
		fail "mdadm neither started the array nor reached RUN_ARRAY"
	dmesg | grep -q 'md/km' || fail "RUN_ARRAY refused without a message from md/km"
	return 1
}

mdadm_km --create /dev/md0 --run --level=km --layout=m$M --raid-devices=$N \
	--assume-clean --name=kmasm $(members $N)
echo "create rc=$?"
stop_md
mdadm_km --examine /dev/ram0 | grep -q 'State : clean' ||
	fail "--assume-clean superblock not clean"

note "all 8 members"
out=$(mdadm_km --assemble /dev/md0 $(members $N) 2>&1); echo "$out"
started "$out" && echo "$out" | grep -q 'started with 8 drives' ||
	echo "(refused at RUN)"
stop_md

note "5 of 8 (k members) without --run: waits for the rest"
out=$(mdadm_km --assemble /dev/md0 $(members 5) 2>&1); echo "$out"
echo "$out" | grep -q 'assembled from 5 drives - need all 8 to start it (use --run to insist)' ||
	fail "5 of 8 without --run"
stop_md

note "4 of 8 (k-1 members): not enough"
out=$(mdadm_km --assemble /dev/md0 $(members 4) 2>&1); echo "$out"
echo "$out" | grep -q 'assembled from 4 drives - not enough to start the array\.' ||
	fail "4 of 8 not refused by enough()"
stop_md

note "5 of 8 with --run: degraded start"
out=$(mdadm_km --assemble --run /dev/md0 $(members 5 3) 2>&1); echo "$out"
echo "$out" | grep -q 'Not enough devices' && fail "enough() refused 5 of 8"
if started "$out"; then
	echo "$out" | grep -q 'started with 5 drives (out of 8)' || fail "degraded start count"
	mdadm_km --detail /dev/md0 | grep -q 'State : .*degraded' || fail "not degraded"
fi
stop_md

note "4 of 8 with --run: refused"
out=$(mdadm_km --assemble --run /dev/md0 $(members 4 4) 2>&1); echo "$out"
echo "$out" | grep -q 'Not enough devices to start the array' ||
	fail "4 of 8 with --run: no 'Not enough devices'"
grep -q '^md0 : active' /proc/mdstat && fail "4 of 8 started"
stop_md

note "--assemble --scan"
mkdir -p /etc/mdadm
echo "DEVICE /dev/ram*" >/tmp/scan.conf
out=$(mdadm_km --assemble --scan --config=/tmp/scan.conf 2>&1); echo "$out"
if ! started "$out"; then
	echo "(refused at RUN)"
fi
echo "$out" | grep -q 'kmasm' || fail "--assemble --scan did not find the km array"
stop_md

note "--zero-superblock"
for d in $(members $N); do
	check mdadm_km --zero-superblock $d
	mdadm_km --examine $d >/dev/null 2>&1 && fail "$d still has a superblock"
done
echo "mdadm-assemble: ok"
