# covers: bridge: guest-RAM bridge; km: grow k; km: grow m; offload: result checks
# Reshape coded across the guest-RAM bridge: raidkmd on the VM host (the
# cpu backend here, cuda on the GPU host: tools/gpu-guest/run.sh) codes the
# new parity of a km array growing online, in the kernel's own arena,
# every result compared with the in-kernel codec (verify_ppm=1000000).
# km 6+2 with fio-verified data grows to 7+2 (grow k) and then to 7+3
# (grow m); after each the data verify and "check" finds no mismatch, and
# at least 99 % of the jobs (the reshape's one encode per row and fio's)
# were coded by the host daemon with no wrong result; last, three members
# fail and the data still verify.
# bridge: yes
# timeout: 900
# mem: 1536
. /lib/raidkm/lib.sh

P=/sys/module/raidkm/parameters
S=/sys/block/md0/md
check modprobe raidkm arena_mb=256
# the daemon path is under test: it gets every job it can take
check sh -c "echo daemon >/sys/module/raidkm/parameters/placement"
check sh -c "echo 1000000 >$P/verify_ppm"
[ "$RKM_BRIDGE" = cpu ] && check sh -c "echo 1000 >$P/deadline_ms"
echo 2000000 >/proc/sys/dev/raid/speed_limit_min
echo 2000000 >/proc/sys/dev/raid/speed_limit_max
ramdisks 10 24
start_relay
D="--name=d --rw=write --bs=1M --size=120M"

# reshape LABEL ARGS...: grow, wait, verify, check, count the jobs
reshape() {
	label=$1
	shift
	off0=$(rkm_stat jobs_offloaded) cpu0=$(rkm_stat jobs_cpu)
	check mdadm_km --grow /dev/md0 "$@"
	sleep 0.2
	wait_sync md0
	[ "$(cat $S/reshape_position)" = none ] || fail "$label: reshape_position $(cat $S/reshape_position)"
	rows=$(($(cat $S/component_size) / 4))
	off=$(($(rkm_stat jobs_offloaded) - off0))
	cpu=$(($(rkm_stat jobs_cpu) - cpu0))
	echo "$label: $off jobs coded by the host daemon ($RKM_BRIDGE), $cpu on the guest's CPU; $rows rows"
	[ $off -ge $rows ] || fail "$label: $off jobs offloaded, fewer than the reshape's $rows rows"
	[ $((off * 100)) -ge $((99 * (off + cpu))) ] ||
		fail "$label: under 99 % of the jobs were offloaded"
	fiov $D --verify_only || fail "$label: data changed"
	check_clean md0 "$label"
	[ "$(rkm_stat verify_mismatches)" = 0 ] ||
		fail "the host daemon returned $(rkm_stat verify_mismatches) wrong results"
	[ "$(rkm_stat daemon_state)" = running ] ||
		fail "the host daemon is no longer attached: $(rkm_stat daemon_state)"
}

note "km 6+2: create, write and verify 120 MiB"
check mdadm_km --create /dev/md0 --run --level=km --layout=m2 \
	--raid-devices=8 --chunk=64 $(members 8)
sleep 0.2
wait_sync md0
fiov $D --do_verify=1
note "grow k: 6+2 -> 7+2"
check mdadm_km /dev/md0 --add /dev/ram8
reshape "grow k" --raid-devices=9
note "grow m: 7+2 -> 7+3"
check mdadm_km /dev/md0 --add /dev/ram9
reshape "grow m" --layout=m3 --raid-devices=10
note "7+3: three members fail, the data verify"
check mdadm_km /dev/md0 --fail /dev/ram1 --fail /dev/ram5 --fail /dev/ram9
fiov $D --verify_only || fail "data changed with three members failed"
check mdadm_km --stop /dev/md0
raidkmctl status
[ "$(rkm_stat deadline_misses)" = 0 ] || fail "deadline misses: $(rkm_stat deadline_misses)"
kill -TERM $relay
wait $relay || fail "raidkm-relay exited $? on SIGTERM"
wait_daemon_state idle
