# covers: raidkmd: serving; offload: daemon loss and CPU fallback; offload: result checks
# raidkmd with the CPU backend serving the kernel's jobs, driven by the
# module's self-test load (/sys/kernel/raidkm/selftest: encode, decode,
# delta and check jobs on arena pages, every result compared with the CPU
# codec): offload counters rise; a second daemon is refused; kill -9 with
# jobs in flight and a daemon exiting mid-batch lose nothing (re-runs);
# a restarted daemon re-attaches and serves; SIGTERM detaches cleanly; a
# slow daemon misses the deadline, is dropped and fenced and exits on its
# own; a corrupting daemon under verify_ppm=1000000 is caught and dropped
# and no wrong result gets through; raidkmctl status (text and --json)
# shows the latency percentiles and the six detaches with their reasons.
# timeout: 300
. /lib/raidkm/lib.sh

K=/sys/kernel/raidkm
P=/sys/module/raidkm/parameters

# selftest N: N jobs through rkm_job_submit, all results checked
selftest() {
	echo "$1" >$K/selftest || fail "selftest of $1 jobs failed: $(cat $K/selftest)"
	cat $K/selftest
	grep -q "^jobs $1 wrong 0 " $K/selftest || fail "selftest: wrong results"
}

load_raidkm
# the daemon path is under test: it gets every job it can take
check sh -c "echo daemon >/sys/module/raidkm/parameters/placement"
check sh -c "echo 10000 >$P/deadline_ms"

note "attach and serve"
start_raidkmd
selftest 400
[ "$(rkm_stat jobs_offloaded)" -gt 0 ] || fail "no job offloaded"
[ "$(rkm_stat bytes_offloaded)" -gt 0 ] || fail "no bytes offloaded"
[ "$(rkm_stat bad_completions)" = 0 ] || fail "bad completions from a good daemon"
raidkmctl status || fail "raidkmctl status"
raidkmctl status | grep -q "$daemon" || fail "raidkmctl status does not show the daemon's pid"

note "a second daemon is refused"
raidkmd --backend=cpu --foreground >/tmp/second.log 2>&1 && fail "second daemon ran"
cat /tmp/second.log
[ "$(rkm_stat daemon_pid)" = $daemon ] || fail "first daemon lost its place"

note "SIGTERM: drain and detach cleanly"
reruns=$(rkm_stat reruns)
kill -TERM $daemon
wait $daemon || fail "raidkmd exited $? on SIGTERM"
wait_daemon_state idle
[ "$(rkm_stat reruns)" = "$reruns" ] || fail "a clean stop re-ran jobs"

note "kill -9 with jobs in flight"
start_raidkmd --fault=delay:3000000
off=$(rkm_stat jobs_offloaded)
echo 2000 >$K/selftest &
st=$!
wait_jobs_in_flight 10
raidkmctl status | grep -q '^selftest:' || fail "per-array counters not in raidkmctl status"
kill -9 $daemon
wait $st || fail "selftest failed after kill -9: $(cat $K/selftest)"
cat $K/selftest
grep -q '^jobs 2000 wrong 0 ' $K/selftest || fail "wrong results after kill -9"
[ "$(rkm_stat reruns)" -gt "$reruns" ] || fail "re-run counter did not rise"
wait_daemon_state idle

note "restart: re-attach and serve"
start_raidkmd
off=$(rkm_stat jobs_offloaded)
selftest 200
[ "$(rkm_stat jobs_offloaded)" -gt "$off" ] || fail "restarted daemon served nothing"

note "daemon exiting in the middle of a batch"
kill -TERM $daemon
wait $daemon
wait_daemon_state idle
reruns=$(rkm_stat reruns)
start_raidkmd --fault=exit-after:40
selftest 400
[ "$(rkm_stat reruns)" -gt "$reruns" ] || fail "no re-run after the daemon exited mid-batch"
wait_daemon_state idle

note "slow daemon: deadline missed, dropped, its late writes fenced"
check sh -c "echo 100 >$P/deadline_ms"
misses=$(rkm_stat deadline_misses)
start_raidkmd --fault=delay:1000000
selftest 64
[ "$(rkm_stat deadline_misses)" -gt "$misses" ] || fail "no deadline miss counted"
[ "$(rkm_stat daemon_state)" = dropped ] || fail "slow daemon not dropped: $(rkm_stat daemon_state)"
# It wakes up after its delay, finds its arena revoked (its writes land in
# the trash page, no SIGBUS), sees kstate CLOSED and exits by itself.
wait $daemon
rc=$?
[ $rc -lt 128 ] || fail "dropped daemon died of signal $((rc - 128))"
wait_daemon_state idle
check sh -c "echo 10000 >$P/deadline_ms"

note "corrupting daemon under verify_ppm=1000000"
check sh -c "echo 1000000 >$P/verify_ppm"
start_raidkmd --fault=corrupt:3
selftest 200
[ "$(rkm_stat verify_mismatches)" -gt 0 ] || fail "no verify mismatch counted"
[ "$(rkm_stat daemon_state)" != running ] || fail "corrupting daemon still attached"
[ "$(rkm_stat daemon_pid)" = 0 ] || fail "corrupting daemon still shown"
dmesg | grep -q 'returned a wrong result' || fail "mismatch not logged"
kill -9 $daemon 2>/dev/null
wait $daemon
wait_daemon_state idle
check sh -c "echo 10000 >$P/verify_ppm"

note "raidkmctl status: latency percentiles, the detaches and their reasons"
out=$(raidkmctl status) || fail "raidkmctl status"
echo "$out"
echo "$out" | grep -qE '^latency, ring entry posted to completed by the daemon: [1-9][0-9]* entries, p50 < [0-9]+ us, p90 < [0-9]+ us, p99 < [0-9]+ us' ||
	fail "no latency percentiles"
# six sessions ended: SIGTERM twice, kill -9, exit mid-batch, deadline, mismatch
n=$(echo "$out" | sed -n 's/^detaches: \([0-9]*\) since load.*/\1/p')
[ "$n" = 6 ] || fail "detaches: '$n', want 6"
[ "$(echo "$out" | grep -c ' s ago: pid ')" = 6 ] || fail "detach log lines"
echo "$out" | grep -qE "s ago: pid [0-9]+ \(cpu\): it missed the job deadline; [0-9]+ job\(s\) re-run on the CPU, arena fenced" ||
	fail "the deadline drop is not in the detach log"
echo "$out" | grep -qE "s ago: pid [0-9]+ \(cpu\): verify mismatch;" ||
	fail "the mismatch drop is not in the detach log"
json=$(raidkmctl status --json) || fail "raidkmctl status --json"
echo "$json"
echo "$json" | grep -q '"reason": "it missed the job deadline", "reruns": [0-9]*, "fenced": true' ||
	fail "--json: no deadline detach"
echo "$json" | grep -qE '"counters": \{"jobs_offloaded": [1-9][0-9]*, "jobs_cpu": [0-9]+,.*"detaches": 6\}' ||
	fail "--json: counters"
echo "$json" | grep -qE '"latency": \{"entries": [1-9][0-9]*, "p50_lt_us": [0-9]+' ||
	fail "--json: latency"

note "daemon log"
cat $RKMD_LOG
dmesg | grep raidkm | tail -n 30
echo "offload-daemon: ok"
