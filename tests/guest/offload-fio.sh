# covers: raidkmd: serving; offload: daemon loss and CPU fallback; offload: result checks
# A km 4+2 array coded by raidkmd (CPU backend): fio --verify passes and
# the offload counters rise (global and the array's); kill -9 of the
# daemon during fio loses nothing (fio passes, the re-run counter rises);
# a restarted daemon re-attaches and serves; a corrupting daemon with
# verify_ppm=1000000 is caught, dropped, and no bad data reaches fio; the
# parity is consistent at the end (check: mismatch_cnt 0).
# timeout: 300
. /lib/raidkm/lib.sh

K=/sys/kernel/raidkm
P=/sys/module/raidkm/parameters
N=6 M=2

FIO="fio --output-format=terse --minimal --filename=/dev/md0 --direct=1 --ioengine=libaio --verify=crc32c --do_verify=1 --verify_fatal=1"

ramdisks $N 16
load_raidkm
# the daemon path is under test: it gets every job it can take
check sh -c "echo daemon >/sys/module/raidkm/parameters/placement"
# TCG is slow and 2 vCPUs are shared with fio: do not drop the daemon for
# scheduling hiccups (offload-daemon.sh covers deadlines).
check sh -c "echo 10000 >$P/deadline_ms"
start_raidkmd

check mdadm_km --create /dev/md0 --run --level=km --layout=m$M \
	--raid-devices=$N --chunk=64 $(members $N)
wait_sync md0
S=/sys/block/md0/md

note "fio with the daemon attached"
check $FIO --name=seq --rw=write --bs=256k --iodepth=4 --size=24M
check $FIO --name=rnd --rw=randwrite --bs=4k --iodepth=8 --size=8M --offset=24M --number_ios=400
off=$(rkm_stat jobs_offloaded)
echo "jobs offloaded $off, on the CPU $(rkm_stat jobs_cpu), bytes $(rkm_stat bytes_offloaded)"
[ "$off" -gt 0 ] || fail "no job offloaded"
[ "$(rkm_stat bad_completions)" = 0 ] || fail "bad completions"
raidkmctl status

note "kill -9 during fio"
kill -TERM $daemon
wait $daemon || fail "raidkmd exited $? on SIGTERM"
wait_daemon_state idle
start_raidkmd --fault=delay:3000000
reruns=$(rkm_stat reruns)
$FIO --name=kill --rw=randwrite --bs=16k --iodepth=8 --size=16M --number_ios=1500 >/tmp/fio-kill.log 2>&1 &
fio=$!
wait_jobs_in_flight 30
kill -9 $daemon
wait $fio || { cat /tmp/fio-kill.log; fail "fio failed after kill -9 of the daemon"; }
echo "re-runs $reruns -> $(rkm_stat reruns)"
[ "$(rkm_stat reruns)" -gt "$reruns" ] || fail "re-run counter did not rise"
wait_daemon_state idle

note "restart: re-attach and serve"
start_raidkmd
off=$(rkm_stat jobs_offloaded)
check $FIO --name=again --rw=write --bs=128k --iodepth=4 --size=16M --offset=8M
[ "$(rkm_stat jobs_offloaded)" -gt "$off" ] || fail "restarted daemon served nothing"

note "corrupting daemon, verify_ppm=1000000"
kill -TERM $daemon
wait $daemon
wait_daemon_state idle
check sh -c "echo 1000000 >$P/verify_ppm"
start_raidkmd --fault=corrupt:5
check $FIO --name=corrupt --rw=write --bs=64k --iodepth=4 --size=16M
check $FIO --name=corrupt-rnd --rw=randwrite --bs=4k --iodepth=8 --size=8M --offset=16M --number_ios=300
echo "verify mismatches $(rkm_stat verify_mismatches)"
[ "$(rkm_stat verify_mismatches)" -gt 0 ] || fail "no mismatch detected"
[ "$(rkm_stat daemon_state)" != running ] || fail "corrupting daemon still attached"
dmesg | grep -q 'returned a wrong result' || fail "mismatch not logged"
kill -9 $daemon 2>/dev/null
wait $daemon
check sh -c "echo 10000 >$P/verify_ppm"

note "parity consistent"
echo check >$S/sync_action
sleep 1
wait_sync md0
[ "$(cat $S/mismatch_cnt)" = 0 ] || fail "mismatch_cnt $(cat $S/mismatch_cnt)"
check mdadm_km --stop /dev/md0
cat $RKMD_LOG
dmesg | grep raidkm | tail -n 20
echo "offload-fio: ok"
