# raidkm demo, run inside the QEMU guest by "make demo".  raidkmd runs on
# the host (the guest-RAM bridge: Documentation/bridge.rst) and codes this
# guest's stripes in the kernel's own arena; on a GPU host the same path
# runs with --backend=cuda.
# bridge: yes
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

# the host daemon shares this machine's cores with the emulated guest
echo 1000 >/sys/module/raidkm/parameters/deadline_ms
# placement=auto (the default) would code on this guest's CPU whatever
# it measures to finish first there; the demo shows the daemon's path
echo daemon >/sys/module/raidkm/parameters/placement
step "raidkmd on the host attaches through raidkm-relay and serves the kernel's jobs (placement=daemon)"
start_relay
raidkmctl status | head -n 1

step "Twelve 24 MiB ramdisks: 11 members (8 data + 3 parity) and a spare"
ramdisks 12 24
echo 200000 >/proc/sys/dev/raid/speed_limit_min
check mdadm_km --create /dev/md0 --run --level=km --layout=m3 --raid-devices=11 \
	--chunk=64 $(members 11) --spare-devices=1 /dev/ram11
wait_sync md0
cat /proc/mdstat
for f in data_disks parity_disks stripe_cache_size; do
	echo "/sys/block/md0/md/km/$f: $(cat /sys/block/md0/md/km/$f 2>/dev/null)"
done

step "fio: write 96 MiB with crc32c checksums, then verify"
fio_md --rw=write --do_verify=1
raidkmctl status | sed -n '/^md0:/,$p' | head -n 3

step "Kill raidkmd (SIGKILL) in the middle of a write: the kernel's CPU codec takes over"
fio --name=demo --filename=/dev/md0 --direct=1 --ioengine=libaio --iodepth=8 \
	--bs=256k --size=96M --verify=crc32c --eta=never --rw=randwrite \
	--do_verify=1 >/tmp/demo-kill.out 2>&1 &
fpid=$!
sleep 1
host_raidkmd kill
wait $fpid || { cat /tmp/demo-kill.out; fail "fio failed while raidkmd was killed"; }
grep -E 'err=|^ *(READ|WRITE):' /tmp/demo-kill.out
echo "re-run on the CPU after the kill: $(rkm_stat reruns) jobs; daemon: $(rkm_stat daemon_state)"
step "Start raidkmd again: it re-attaches by itself"
host_raidkmd start
wait_daemon_state running 60
raidkmctl status | head -n 1

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
raidkmctl status | sed -n '/^global:/,/^md0:/p' | grep -E 'jobs|re-runs|mismatches'
check mdadm_km --stop /dev/md0
step "demo complete: km array created, written, ran with 3 failures, rebuilt, verified;"
echo "parity and rebuilds coded by raidkmd on the host, the CPU taking over while it was down"
