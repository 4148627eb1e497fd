# One GPU of two traps in the middle of fio (GPU host only: run by
# tools/gpu-guest/run.sh, not by make check).  km 4+2 served by the host's
# raidkmd --backend=cuda through the guest-RAM bridge, one worker process
# per GPU; instance 1's worker traps on the GPU at its 200th job
# (RKMD_GPUS_TRAP=1:200) during a fio write and crc32c verify.  No I/O or
# verify error; the daemon stays attached (the same daemon, never the
# guest's CPU for lack of it) and the kernel's offload counter keeps
# rising; on the host, instance 1's worker goes down, restarts, serves
# again and codes jobs again (the host-log headers); "check" is clean.
# bridge: yes
# timeout: 900
# mem: 1024
# host-log: GPU trap \(RKMD_GPUS_TRAP\) injected
# host-log: GPU instance 1 \(device 1, .*\) down: 
# host-log: GPU instance 1 \(device 1, .*\) serving again
# host-log: GPU instance 1 coded a job again after restart
. /lib/raidkm/lib.sh

[ "$RKM_BRIDGE" = cuda ] || fail "needs the cuda backend on a GPU host (tools/gpu-guest/run.sh)"
load_raidkm
# the daemon path is under test: it gets every job it can take
check sh -c "echo daemon >/sys/module/raidkm/parameters/placement"
ramdisks 6 48
check mdadm_km --create /dev/md0 --run --level=km --layout=m2 \
	--raid-devices=6 --chunk=64 $(members 6)
sleep 0.2
wait_sync md0
start_relay

note "the host daemon again, instance 1 to trap at its 200th job"
host_raidkmd stop
i=0
while [ "$(rkm_stat daemon_state)" = running ]; do
	i=$((i + 1))
	[ $i -lt 300 ] || fail "the host daemon did not stop on SIGTERM"
	sleep 0.1
done
host_raidkmd start RKMD_GPUS=all RKMD_GPUS_TRAP=1:200
wait_daemon_state running 60
[ "$(rkm_stat daemon_backend)" = cuda ] || fail "daemon_backend $(rkm_stat daemon_backend)"
pid=$(rkm_stat daemon_pid)
off=$(rkm_stat jobs_offloaded) cpu=$(rkm_stat jobs_cpu)

note "fio write and verify while instance 1 traps"
fio --filename=/dev/md0 --direct=1 --ioengine=libaio --iodepth=8 \
    --verify=crc32c --verify_fatal=1 --name=trap --rw=randwrite \
    --bs=64k --size=160M --do_verify=1 >/tmp/trap.out 2>&1 &
fio_pid=$!
# the offload counter, once a second while fio runs: it must keep rising
last=$off stalls=0 samples=0
while kill -0 $fio_pid 2>/dev/null; do
	sleep 1
	now=$(rkm_stat jobs_offloaded)
	samples=$((samples + 1))
	[ "$now" -gt "$last" ] || stalls=$((stalls + 1))
	last=$now
done
wait $fio_pid || { cat /tmp/trap.out; fail "fio failed during the trap"; }
grep -q 'err= 0' /tmp/trap.out || { cat /tmp/trap.out; fail "fio reported errors"; }
served=$(($(rkm_stat jobs_offloaded) - off))
echo "offloaded $served jobs during fio, $(($(rkm_stat jobs_cpu) - cpu)) on the guest's CPU; counter samples $samples, $stalls without progress (fio's verify phase reads without jobs)"
[ "$served" -gt 400 ] || fail "only $served jobs offloaded: the trap at instance 1's 200th job may not have come"
[ "$(rkm_stat daemon_state)" = running ] || fail "the daemon detached after one GPU's trap"
[ "$(rkm_stat daemon_pid)" = "$pid" ] || fail "the daemon attached again (pid $(rkm_stat daemon_pid), was $pid): it had detached"

note "after instance 1's restart: more verified writes, the same daemon"
sleep 10
off=$(rkm_stat jobs_offloaded)
fiov --name=after --rw=randwrite --bs=64k --size=96M --do_verify=1
[ "$(rkm_stat jobs_offloaded)" -gt "$off" ] || fail "nothing offloaded after the restart"
[ "$(rkm_stat daemon_pid)" = "$pid" ] || fail "the daemon changed"

note "check"
check_clean md0 "after the trap"
[ "$(rkm_stat verify_mismatches)" = 0 ] || fail "verify mismatches"
host_raidkmd stop
check mdadm_km --stop /dev/md0
kill -TERM $relay
wait $relay || fail "raidkm-relay exited $? on SIGTERM"
