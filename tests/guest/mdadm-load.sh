# covers: module: load
# raidkm.ko loads, md lists the km personality, and our mdadm is
# the one with km support.
# timeout: 60
. /lib/raidkm/lib.sh

load_raidkm
[ -d /sys/module/raidkm ] || fail "no /sys/module/raidkm after modprobe"
grep '^Personalities' /proc/mdstat
grep '^Personalities' /proc/mdstat | grep -q '\[km\]' ||
	fail "Personalities line of /proc/mdstat lacks [km]"

v=$(mdadm_km --version 2>&1)
echo "$v"
echo "$v" | grep -q 'v4\.2' || fail "mdadm is not 4.2: $v"
echo "$v" | grep -q 'raidkm' || fail "mdadm is not the raidkm build: $v"
mdadm_km --create --help 2>&1 | grep -q 'for km (k data + m parity devices)' ||
	fail "mdadm --create --help does not describe km"
echo "mdadm-load: ok"
