# raidkm demo, run inside the QEMU guest by "make demo".
# timeout: 600
# mem: 1024
. /lib/raidkm/lib.sh

step() { echo; echo "======== $*"; }

# fio_md ARGS...: fio on /dev/md0 with crc32c verification; prints the
# summary lines (everything when fio fails)
fio_md() {
	out=$(fio --name=demo --filename=/dev/md0 --direct=1 --ioengine=libaio \
		--iodepth=8 --bs=256k --size=96M --verify=crc32c --eta=never \
		"$@" 2>&1) || { echo "$out"; fail "fio $*"; }
	echo "$out" | grep -E 'err=|^ *(READ|WRITE):'
}

step "Load raidkm: md now knows the km personality"
load_raidkm
cat /proc/mdstat

step "Twelve 24 MiB ramdisks: 11 members (8 data + 3 parity) and a spare"
ramdisks 12 24
echo 200000 >/proc/sys/dev/raid/speed_limit_min
check mdadm_km --create /dev/md0 --run --level=km --layout=m3 --raid-devices=11 \
	--chunk=64 $(members 11) --spare-devices=1 /dev/ram11
wait_sync md0
cat /proc/mdstat
check mdadm_km --detail /dev/md0
for f in data_disks parity_disks stripe_cache_size; do
	echo "/sys/block/md0/md/km/$f: $(cat /sys/block/md0/md/km/$f 2>/dev/null)"
done

step "fio: write 96 MiB with crc32c checksums, then verify"
fio_md --rw=write --do_verify=1

step "Fail three members at once: the array runs degraded"
check mdadm_km /dev/md0 --fail /dev/ram2 --fail /dev/ram5 --fail /dev/ram9
cat /proc/mdstat
step "fio: read back and verify everything with 3 of 11 members gone"
fio_md --rw=write --verify_only

step "Replace the failed members: the spare is already rebuilding one, two more are added"
check mdadm_km /dev/md0 --remove /dev/ram2 /dev/ram5 /dev/ram9
check mdadm_km --zero-superblock /dev/ram2 /dev/ram5
check mdadm_km /dev/md0 --add /dev/ram2 /dev/ram5
sleep 1
cat /proc/mdstat
wait_sync md0
echo "rebuild finished"
cat /proc/mdstat
check mdadm_km --detail /dev/md0

step "fio: verify the data after the rebuild"
fio_md --rw=write --verify_only
for f in full_stripe_writes rmw_writes rcw_writes reconstruct_reads; do
	echo "/sys/block/md0/md/km/$f: $(cat /sys/block/md0/md/km/$f 2>/dev/null)"
done
check mdadm_km --stop /dev/md0
step "demo complete: km array created, written, ran with 3 failures, rebuilt, verified"
