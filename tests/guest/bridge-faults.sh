# covers: bridge: guest-RAM bridge; offload: daemon loss and CPU fallback
# The guest-RAM bridge under faults, each in the middle of a fio write and
# crc32c verify on km 4+2: the host's raidkmd killed with SIGKILL, then
# started again; raidkm-relay killed with SIGKILL, then started again; the
# host daemon's backend failing (cuda: a device-side trap after 200 jobs on
# the only GPU it uses, RKMD_CUDA_TRAP_AFTER; cpu: the daemon exits
# abruptly mid-batch), then a
# fresh host daemon.  Each time: no I/O error and no verify error, the
# guest's CPU codec takes the jobs over (re-runs), the restarted daemon
# attaches and codes again; "check" finds no mismatch at the end.
# bridge: yes
# timeout: 900
# mem: 1024
. /lib/raidkm/lib.sh

P=/sys/module/raidkm/parameters
load_raidkm
# the daemon path is under test: it gets every job it can take
check sh -c "echo daemon >/sys/module/raidkm/parameters/placement"
[ "$RKM_BRIDGE" = cpu ] && check sh -c "echo 1000 >$P/deadline_ms"
ramdisks 6 48
check mdadm_km --create /dev/md0 --run --level=km --layout=m2 \
	--raid-devices=6 --chunk=64 $(members 6)
sleep 0.2
wait_sync md0
start_relay

# fio_bg NAME: a write of the whole array with verify, in the background
fio_bg() {
	fio --filename=/dev/md0 --direct=1 --ioengine=libaio --iodepth=8 \
	    --verify=crc32c --verify_fatal=1 --name=$1 --rw=randwrite \
	    --bs=64k --size=160M --do_verify=1 >/tmp/$1.out 2>&1 &
	fio_pid=$!
}

# fio_wait NAME: the background fio must have succeeded
fio_wait() {
	wait $fio_pid || { cat /tmp/$1.out; fail "fio $1 failed during the fault"; }
	grep -q 'err= 0' /tmp/$1.out || { cat /tmp/$1.out; fail "fio $1 reported errors"; }
}

# served_more N: wait (30 s at most) until jobs_offloaded passes N
served_more() {
	i=0
	while [ "$(rkm_stat jobs_offloaded)" -le "$1" ]; do
		i=$((i + 1))
		[ $i -lt 300 ] || fail "the daemon codes nothing (jobs_offloaded $(rkm_stat jobs_offloaded))"
		sleep 0.1
	done
}

# attached_again: the host daemon is back, through the relay, and codes
attached_again() {
	wait_daemon_state running 60
	[ "$(rkm_stat daemon_backend)" = "$RKM_BRIDGE" ] ||
		fail "daemon_backend $(rkm_stat daemon_backend)"
	n=$(rkm_stat jobs_offloaded)
	fiov --name=after --rw=write --bs=256k --size=16M --do_verify=1
	[ "$(rkm_stat jobs_offloaded)" -gt "$n" ] ||
		fail "the re-attached daemon coded nothing"
}

note "the host's raidkmd killed with SIGKILL mid-fio"
reruns=$(rkm_stat reruns) cpu=$(rkm_stat jobs_cpu)
fio_bg kill-host
served_more $(rkm_stat jobs_offloaded)
host_raidkmd kill
i=0
while [ "$(rkm_stat jobs_cpu)" = "$cpu" ]; do
	i=$((i + 1))
	[ $i -lt 300 ] || fail "the CPU never took over"
	sleep 0.1
done
fio_wait kill-host
echo "re-runs $(($(rkm_stat reruns) - reruns)), jobs on the CPU $(($(rkm_stat jobs_cpu) - cpu))"
host_raidkmd start
attached_again

note "raidkm-relay killed with SIGKILL mid-fio"
cpu=$(rkm_stat jobs_cpu)
fio_bg kill-relay
served_more $(rkm_stat jobs_offloaded)
kill -KILL $relay
wait $relay 2>/dev/null
fio_wait kill-relay
[ "$(rkm_stat jobs_cpu)" -gt "$cpu" ] || fail "no job ran on the CPU after the relay died"
start_relay
attached_again

note "the host daemon's backend fails mid-fio"
host_raidkmd stop
i=0
while [ "$(rkm_stat daemon_state)" = running ]; do
	i=$((i + 1))
	[ $i -lt 300 ] || fail "the host daemon did not stop on SIGTERM"
	sleep 0.1
done
if [ "$RKM_BRIDGE" = cuda ]; then
	# one GPU: while its worker restarts, jobs fail back, and after 16
	# in a row the daemon detaches (with two, the other would serve)
	host_raidkmd start RKMD_GPUS=0 RKMD_CUDA_TRAP_AFTER=200
else
	host_raidkmd start --fault=exit-after:200
fi
wait_daemon_state running 60
cpu=$(rkm_stat jobs_cpu)
fio_bg backend-fails
fio_wait backend-fails
[ "$(rkm_stat daemon_state)" != running ] ||
	fail "the daemon with a failed backend is still attached"
[ "$(rkm_stat jobs_cpu)" -gt "$cpu" ] || fail "no job ran on the CPU after the backend failed"
host_raidkmd start
attached_again

note "check"
check_clean md0 "after the faults"
[ "$(rkm_stat verify_mismatches)" = 0 ] || fail "verify mismatches"
raidkmctl status
check mdadm_km --stop /dev/md0
kill -TERM $relay
wait $relay || fail "raidkm-relay exited $? on SIGTERM"
