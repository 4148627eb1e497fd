# covers: module: unload
# rmmod raidkm leaves no trace (also after md used the
# personality), and the module loads again.
# timeout: 120
. /lib/raidkm/lib.sh

ramdisks 4 16
load_raidkm

# let md use the personality once: create (which may be refused at RUN
# until the personality lands), then make sure no array holds it
mdadm_km --create /dev/md0 --run --level=km --layout=m2 --raid-devices=4 \
	--assume-clean $(members 4)
echo "create rc=$?"
[ -e /sys/block/md0/md/level ] && echo "level: $(cat /sys/block/md0/md/level)"
if grep -q '^md0 : active' /proc/mdstat; then
	check mdadm_km --stop /dev/md0
fi
mdadm_km --stop /dev/md0 >/dev/null 2>&1

for round in 1 2; do
	check rmmod raidkm
	[ -e /sys/module/raidkm ] && fail "round $round: /sys/module/raidkm still there"
	grep -q '\[km\]' /proc/mdstat && fail "round $round: /proc/mdstat still lists km"
	lsmod | grep -q '^raidkm ' && fail "round $round: lsmod still lists raidkm"
	[ $round -eq 2 ] && break
	load_raidkm
done
cat /proc/mdstat
echo "mdadm-rmmod: ok"
