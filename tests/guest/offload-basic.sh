# covers: offload: /dev/raidkm and mmap rules; offload: ATTACH refusals; offload: deadline; offload: daemon loss and CPU fallback
# Offload path without a real daemon: /dev/raidkm and its mmap rules,
# sysfs and parameter validation, the CPU fallback, every ATTACH refusal
# (not open, unprivileged, bad session/version/attributes, second daemon,
# foreign DETACH/COMPLETE), and a daemon that never serves: its jobs miss
# the deadline, are re-run on the CPU with correct results, it is dropped,
# and a new daemon can attach afterwards.
# timeout: 180
. /lib/raidkm/lib.sh

K=/sys/kernel/raidkm
P=/sys/module/raidkm/parameters
PROBE=rkm-offload-probe

# expect RC CMD...: run CMD, fail unless it exits with RC
expect() {
	want=$1
	shift
	"$@"
	rc=$?
	[ "$rc" = "$want" ] || fail "exit $rc, wanted $want: $*"
}

stat() {
	cat $K/$1
}

load_raidkm
# the daemon path is under test: it gets every job it can take
check sh -c "echo daemon >/sys/module/raidkm/parameters/placement"

note "device and sysfs"
[ -c /dev/raidkm ] || fail "/dev/raidkm missing"
ls -l /dev/raidkm | grep -q '^crw-------' || fail "/dev/raidkm is not mode 0600"
[ "$(stat daemon_pid)" = 0 ] || fail "daemon_pid not 0"
[ "$(stat daemon_backend)" = none ] || fail "daemon_backend not none"
[ "$(stat daemon_state)" = idle ] || fail "daemon_state not idle"
[ "$(stat arena_pages)" = $((64 * 256)) ] || fail "arena is not 64 MiB"
for c in jobs_offloaded jobs_cpu deadline_misses reruns verify_mismatches \
	bytes_offloaded bad_completions stale_completions doorbells attaches; do
	[ "$(stat $c)" = 0 ] || fail "$c not 0 at load"
done

note "parameters: bad values refused, nothing changed"
for bad in -1 1000001 abc "" 99999999999; do
	echo "$bad" >$P/verify_ppm 2>/dev/null && fail "verify_ppm accepted '$bad'"
done
[ "$(cat $P/verify_ppm)" = 10000 ] || fail "verify_ppm changed by bad input (or default not 10000)"
check sh -c "echo 1000000 >$P/verify_ppm"
[ "$(cat $P/verify_ppm)" = 1000000 ] || fail "verify_ppm not set"
check sh -c "echo 10000 >$P/verify_ppm"
for bad in -1 2 abc ""; do
	echo "$bad" >$P/verify_spot 2>/dev/null && fail "verify_spot accepted '$bad'"
done
[ "$(cat $P/verify_spot)" = 1 ] || fail "verify_spot changed by bad input (or default not 1)"
check sh -c "echo 0 >$P/verify_spot; echo 1 >$P/verify_spot"
for bad in -1 100000001 abc ""; do
	echo "$bad" >$P/verify_fresh_jobs 2>/dev/null && fail "verify_fresh_jobs accepted '$bad'"
done
[ "$(cat $P/verify_fresh_jobs)" = 1024 ] || fail "verify_fresh_jobs changed by bad input (or default not 1024)"
check sh -c "echo 0 >$P/verify_fresh_jobs; echo 1024 >$P/verify_fresh_jobs"
for c in verify_spot_checks verify_spot_ns verify_full_checks verify_full_ns; do
	[ "$(stat $c)" = 0 ] || fail "$c not 0 at load"
done
for bad in 0 60001 -5 x; do
	echo "$bad" >$P/deadline_ms 2>/dev/null && fail "deadline_ms accepted '$bad'"
done
[ "$(cat $P/deadline_ms)" = 50 ] || fail "deadline_ms default is not 50"
(echo 1 >$P/arena_mb) 2>/dev/null && fail "arena_mb is writable"
echo 0 >$K/selftest 2>/dev/null && fail "selftest accepted 0"

note "no daemon: jobs run on the CPU"
check sh -c "echo 100 >$K/selftest"
cat $K/selftest
grep -q '^jobs 100 wrong 0 offloaded 0 cpu 100 ' $K/selftest || fail "selftest report"
[ "$(stat jobs_cpu)" -ge 100 ] || fail "jobs_cpu did not rise"
[ "$(stat jobs_offloaded)" = 0 ] || fail "jobs offloaded without a daemon"

note "mmap rules"
check $PROBE mmap

note "attach refusals"
expect 19 $PROBE attach --no-open --session=1
expect 1 $PROBE attach --no-open --session=1 --drop-cap
expect 13 su -s /bin/sh nobody -c "$PROBE attach"
chmod 666 /dev/raidkm
expect 1 su -s /bin/sh nobody -c "$PROBE attach"
chmod 600 /dev/raidkm
expect 1 $PROBE attach --drop-cap
expect 116 $PROBE attach --session=12345
expect 71 $PROBE attach --version=2
expect 22 $PROBE attach --backend=Bad!
expect 22 $PROBE attach --backend=waytoolongbackendname
expect 22 $PROBE attach --backend=
expect 34 $PROBE attach --max-k=1
expect 22 $PROBE attach --ops=0x20
expect 1 $PROBE detach-foreign
expect 1 $PROBE complete-foreign
[ "$(stat attaches)" = 0 ] || fail "a refused attach counted"
[ "$(stat daemon_state)" = idle ] || fail "state not idle after refusals"

note "one daemon at a time"
$PROBE attach --hold=60 &
holder=$!
wait_daemon_state running
[ "$(stat daemon_pid)" = $holder ] || fail "daemon_pid $(stat daemon_pid), not $holder"
[ "$(stat daemon_backend)" = probe ] || fail "daemon_backend"
$PROBE stats
$PROBE stats | grep -q "^pid $holder\$" || fail "GET_STATS pid"
$PROBE stats | grep -q '^backend probe$' || fail "GET_STATS backend"
expect 16 $PROBE attach
expect 16 $PROBE attach --no-open --session=1
expect 1 $PROBE detach-foreign
expect 1 $PROBE complete-foreign
[ "$(stat attaches)" = 1 ] || fail "attaches not 1"

note "a daemon that never serves: deadlines"
check sh -c "echo 200 >$P/deadline_ms"
check sh -c "echo 64 >$K/selftest"
cat $K/selftest
grep -q '^jobs 64 wrong 0 ' $K/selftest || fail "wrong results after deadline misses"
[ "$(stat deadline_misses)" -gt 0 ] || fail "no deadline miss counted"
[ "$(stat reruns)" -gt 0 ] || fail "no re-run counted"
[ "$(stat daemon_state)" = dropped ] || fail "late daemon not dropped: $(stat daemon_state)"
[ "$(stat daemon_pid)" = 0 ] || fail "dropped daemon still shown"
expect 116 $PROBE attach --no-open --session=1
kill $holder
wait $holder
[ "$(stat daemon_state)" = idle ] || fail "state not idle after the daemon exited"

note "re-attach after a drop"
$PROBE attach --hold=2 || fail "re-attach"
[ "$(stat attaches)" = 2 ] || fail "attaches not 2"
[ "$(stat daemon_state)" = idle ] || fail "state not idle after exit"
$PROBE stats | grep -q '^attached 0$' || fail "GET_STATS attached"
$PROBE stats | grep -q "^jobs_cpu $(stat jobs_cpu)\$" || fail "GET_STATS jobs_cpu differs from sysfs"
$PROBE stats | grep -q "^reruns $(stat reruns)\$" || fail "GET_STATS reruns differs from sysfs"
dmesg | grep raidkm | tail -n 20
echo "offload-basic: ok"
