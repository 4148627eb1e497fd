# covers: bridge: guest-RAM bridge; offload: result checks; km: degraded I/O; km: rebuild; km: check and repair
# The guest-RAM bridge: raidkmd on the VM host (the cpu backend here, cuda
# on the GPU host: tools/gpu-guest/run.sh) codes this guest's km arrays in
# the kernel's own arena, through raidkm-relay, with every result compared
# with the in-kernel codec (verify_ppm=1000000).  km 4+2, 8+3 and 16+8
# (64 KiB chunks): written and verified healthy, read back with m members
# failed (wide reads: one decode job per row range, served by the host
# daemon with its wanted mask), rebuilt onto m spares, verified again;
# then read with read_verify correct after 512 bytes of a data chunk were
# overwritten behind md's back (the host daemon codes the verified reads'
# CHECKs, P+Q only for m >= 3, and the correction's DECODE and CHECK):
# the data verifies, the chunk is corrected, and "check" finds no
# mismatch; at least 99 % of each array's jobs were coded by the host
# daemon and no verification failed.  4+2 runs on every kernel; 8+3 and
# 16+8 are shared between the kernels of a check (each runs in every
# check), the GPU host runs all three.
# bridge: yes
# timeout: 1200
# mem: 1536
. /lib/raidkm/lib.sh

P=/sys/module/raidkm/parameters
check modprobe raidkm arena_mb=256
# the daemon path is under test: it gets every job it can take
check sh -c "echo daemon >/sys/module/raidkm/parameters/placement"
grep -q '\[km\]' /proc/mdstat || fail "/proc/mdstat does not list km"
check sh -c "echo 1000000 >$P/verify_ppm"
# On a build machine of 2 cores the host daemon's coding threads compete
# with the emulated guest's own: allow it more than the default 50 ms
# (the GPU host runs with the default).
[ "$RKM_BRIDGE" = cpu ] && check sh -c "echo 1000 >$P/deadline_ms"
echo 2000000 >/proc/sys/dev/raid/speed_limit_min
echo 2000000 >/proc/sys/dev/raid/speed_limit_max
ramdisks 32 12
start_relay

# verified_reads: read_verify correct over 8 MiB after data chunk 1 of
# chunk stripe 0 (slot 1's member, row 1) was overwritten behind md's
# back: the data verifies, the chunk is corrected and rewritten (the
# check that follows finds no mismatch), the checks were offloaded
verified_reads() {
	K=/sys/block/md0/md/km
	note "km $k+$m: verified reads, a bad chunk corrected"
	dev=$(basename "$(readlink /sys/block/md0/md/rd1)")
	off=$(cat /sys/block/md0/md/$dev/offset)
	check dd if=/dev/urandom of=/dev/${dev#dev-} bs=512 count=1 seek=$((off + 9)) conv=notrunc 2>/dev/null
	check blockdev --flushbufs /dev/${dev#dev-}
	fixed="corrected data chunk 1 on member 1 at member sector 0"
	c=$(dmesg | grep -c "$fixed") r=$(cat $K/read_verify_reads) o=$(rkm_stat jobs_offloaded)
	echo correct >$K/read_verify
	fiov --name=km --rw=write --bs=1M --size=8M --verify_only
	echo off >$K/read_verify
	[ "$(dmesg | grep -c "$fixed")" -gt $c ] ||
		fail "km $k+$m: the bad chunk was not corrected by a verified read"
	r=$(($(cat $K/read_verify_reads) - r)) o=$(($(rkm_stat jobs_offloaded) - o))
	echo "km $k+$m: $r verified reads, $o jobs coded by the host daemon meanwhile"
	[ $r -ge 8 ] && [ $o -ge $r ] ||
		fail "km $k+$m: $r verified reads, $o jobs offloaded"
}

# array K M SIZE_MIB: one geometry through its whole life
array() {
	k=$1 m=$2 size=$3 n=$(($1 + $2))
	note "km $k+$m: create, resync"
	for d in $(members $((n + m))); do
		mdadm_km --zero-superblock $d 2>/dev/null
	done
	off0=$(rkm_stat jobs_offloaded) cpu0=$(rkm_stat jobs_cpu)
	check mdadm_km --create /dev/md0 --run --level=km --layout=m$m \
		--raid-devices=$n --chunk=64 $(members $n)
	sleep 0.2
	wait_sync md0
	note "km $k+$m: write and verify $size MiB"
	fiov --name=km --rw=write --bs=1M --size=${size}M --do_verify=1
	failed=""
	i=0
	while [ $i -lt $m ]; do
		# every second member: data and parity chunks alike
		failed="$failed /dev/ram$((i * 2 + 1))"
		i=$((i + 1))
	done
	note "km $k+$m: fail$failed; read everything back degraded"
	for d in $failed; do check mdadm_km /dev/md0 --fail $d; done
	[ "$(cat /sys/block/md0/md/degraded)" = $m ] ||
		fail "degraded $(cat /sys/block/md0/md/degraded), wanted $m"
	w0=$(cat /sys/block/md0/md/km/wide_reads) o0=$(rkm_stat jobs_offloaded)
	fiov --name=km --rw=write --bs=1M --size=${size}M --verify_only
	# the degraded read went by row ranges, their decodes coded by the host
	[ "$(cat /sys/block/md0/md/km/wide_reads)" -gt "$w0" ] ||
		fail "km $k+$m: no wide degraded reads"
	[ "$(rkm_stat jobs_offloaded)" -gt "$o0" ] ||
		fail "km $k+$m: the degraded read's decodes were not offloaded"
	note "km $k+$m: rebuild onto $m spares"
	check mdadm_km /dev/md0 --remove $failed
	check mdadm_km /dev/md0 --add $(members $m $n)
	sleep 0.2
	wait_sync md0
	[ "$(cat /sys/block/md0/md/degraded)" = 0 ] ||
		fail "still degraded after the rebuild"
	fiov --name=km --rw=write --bs=1M --size=${size}M --verify_only
	verified_reads
	note "km $k+$m: check"
	check_clean md0 "km $k+$m"
	check mdadm_km --stop /dev/md0
	off=$(($(rkm_stat jobs_offloaded) - off0))
	cpu=$(($(rkm_stat jobs_cpu) - cpu0))
	echo "km $k+$m: $off jobs coded by the host daemon ($RKM_BRIDGE), $cpu on the guest's CPU"
	[ $((off * 100)) -ge $((99 * (off + cpu))) ] && [ $off -gt 0 ] ||
		fail "km $k+$m: under 99 % of the jobs were offloaded"
	[ "$(rkm_stat verify_mismatches)" = 0 ] ||
		fail "the host daemon returned $(rkm_stat verify_mismatches) wrong results"
	[ "$(rkm_stat daemon_state)" = running ] ||
		fail "the host daemon is no longer attached: $(rkm_stat daemon_state)"
}

# 4+2 on every kernel; 8+3 and 16+8 are a sweep, shared between the
# kernels of a check (lib.sh's share; the GPU host runs all three)
array 4 2 40
for a in $(share 8:3:80 16:8:160); do
	array $(echo $a | tr : ' ')
done
raidkmctl status
[ "$(rkm_stat deadline_misses)" = 0 ] || fail "deadline misses: $(rkm_stat deadline_misses)"
kill -TERM $relay
wait $relay || fail "raidkm-relay exited $? on SIGTERM"
wait_daemon_state idle
