# covers: offload: hostile daemon; offload: late writes to staging
# A daemon must not be able to change what reaches the disks.
# raidkmd with fault injection on a km 4+2 array under fio --verify:
# (i) --fault=write-input:N writes a data chunk it was given to code: the
# input arena is mapped read-only (RAIDKM_FEAT_RO_INPUT), the write
# faults, raidkmd dies of SIGSEGV, the kernel re-runs its jobs on the CPU
# from the untouched pages; (ii) --fault=write-output-late:N overwrites
# the outputs of a job after posting its (correct) completion: outputs
# are staged and copied into the stripe when the completion is accepted,
# so the late writes reach nothing.  Each: fio sees no error, check gives
# mismatch_cnt 0, no kernel warning; then an honest raidkmd attaches and
# serves.  The same with one serving thread and ENCODE jobs only, where
# nothing else can explain a mismatch: the kernel takes the outputs
# before it moves the completion ring's head, so no late write after the
# head moved is judged a wrong result; (iii) the same late writes while the array runs with m members
# failed (decodes for degraded reads and writes) and while it rebuilds
# them onto spares: a late write reaches nothing, or lands in the staging
# of a later job of the same daemon and is caught by the result checks
# (the daemon is dropped, the CPU's result used); (iv) a daemon that
# answers jobs failed and writes their outputs later (a hung GPU batch):
# the kernel codes them on the CPU and holds their staging until the
# daemon's file is released, so the late writes reach no other job
# (stage_held_pages, no verify mismatch), and the pool is whole again.  Last, the cost of staging (copies per job and per GiB against
# coding a job on the CPU), honest daemon (TCG: ratios only).
# timeout: 900
. /lib/raidkm/lib.sh

K=/sys/kernel/raidkm
P=/sys/module/raidkm/parameters
N=6 M=2
FIO="fio --output-format=terse --minimal --filename=/dev/md0 --direct=1 --ioengine=libaio --randrepeat=0 --verify=crc32c --do_verify=1 --verify_fatal=1"

ramdisks $((N + M)) 16
load_raidkm
# the daemon path is under test: it gets every job it can take
check sh -c "echo daemon >/sys/module/raidkm/parameters/placement"
check sh -c "echo 10000 >$P/deadline_ms"
check mdadm_km --create /dev/md0 --run --level=km --layout=m$M \
	--raid-devices=$N --chunk=64 $(members $N)
wait_sync md0
S=/sys/block/md0/md
[ "$(rkm_stat stage_pages)" -gt 0 ] || fail "no staging pool"

load() {
	check $FIO --name=$1-seq --rw=write --bs=256k --iodepth=4 --size=16M
	check $FIO --name=$1-rnd --rw=randwrite --bs=4k --iodepth=8 \
		--size=8M --offset=16M --number_ios=300
}
# late_end WHAT: after a --fault=write-output-late daemon: it did write
# late, it stops (or was already dropped by the result checks), and md's
# check finds the parity clean
late_end() {
	late=$(grep -c 'overwrote .* output chunk' $RKMD_LOG)
	echo "$1: $late late overwrites, daemon $(rkm_stat daemon_state), verify mismatches $(($(rkm_stat verify_mismatches) - mis0))"
	[ "$late" -gt 0 ] || fail "$1: no late overwrite injected"
	if [ "$(rkm_stat daemon_state)" = running ]; then
		kill -TERM $daemon
		wait $daemon || fail "raidkmd exited $? on SIGTERM"
	else
		wait $daemon
	fi
	wait_daemon_state idle
	check_clean md0 "$1"
	no_warning
}
no_warning() {
	dmesg | grep -E 'WARNING|BUG|Oops|general protection' &&
		fail "kernel warning"
	return 0
}
honest() {
	note "an honest daemon attaches and serves after $1"
	honest_serves load honest
}

note "(i) a daemon that writes an input chunk: --fault=write-input:40"
rr0=$(rkm_stat reruns)
start_raidkmd --fault=write-input:40
r=0
while [ "$(rkm_stat daemon_state)" = running ]; do
	r=$((r + 1))
	[ $r -le 5 ] || fail "write-input: raidkmd still serving after $r rounds"
	load win$r
done
wait $daemon
rc=$?
wait_daemon_state idle
cat $RKMD_LOG | tail -n 5
[ $rc = 139 ] || fail "raidkmd exited $rc, not of SIGSEGV (139)"
grep -q 'the write to an input chunk faulted' $RKMD_LOG ||
	fail "the input write did not fault"
echo "write-input: raidkmd died of SIGSEGV in round $r; jobs re-run on the CPU: $(($(rkm_stat reruns) - rr0))"
load after-win
check_clean md0 write-input
no_warning
honest write-input

note "(ii) a daemon that overwrites outputs after completing: --fault=write-output-late:20"
: >$RKMD_LOG
mis0=$(rkm_stat verify_mismatches)
start_raidkmd --fault=write-output-late:20
for r in 1 2 3; do
	load wol$r
done
late_end write-output-late
honest write-output-late

note "(ii) the window: one serving thread, full stripes only, every result checked in full"
# raidkmd --threads=0 codes every job on its serving thread, which makes
# the late write itself 1 ms after the completion head passed the job:
# no job it codes later can have written its outputs before (a later
# job's outputs overwrite it), and full-stripe writes make ENCODE jobs
# only (DELTA's staging would start as the parity).  The kernel copies
# the outputs before it moves the head: every late write reaches nothing,
# no result is judged wrong, the daemon keeps serving.
: >$RKMD_LOG
mis0=$(rkm_stat verify_mismatches)
check sh -c "echo 1000000 >$P/verify_ppm"
start_raidkmd --threads=0 --fault=write-output-late:5
for r in 1 2 3; do
	check $FIO --name=win$r --rw=write --bs=256k --iodepth=4 --size=16M
done
late=$(grep -c 'overwrote .* output chunk' $RKMD_LOG)
mis=$(($(rkm_stat verify_mismatches) - mis0))
echo "window: $late late writes after the head moved, verify mismatches $mis, daemon $(rkm_stat daemon_state)"
[ "$late" -gt 0 ] || fail "window: no late overwrite injected"
[ "$mis" = 0 ] || fail "window: $mis late writes after the completion head moved were taken as results"
[ "$(rkm_stat daemon_state)" = running ] || fail "window: the daemon was dropped"
check sh -c "echo 10000 >$P/verify_ppm"
late_end window

note "(iii) late writes during degraded I/O and a rebuild: --fault=write-output-late:10"
: >$RKMD_LOG
mis0=$(rkm_stat verify_mismatches)
start_raidkmd --fault=write-output-late:10
check mdadm_km /dev/md0 --fail /dev/ram1 --fail /dev/ram4
load degraded
check mdadm_km /dev/md0 --remove /dev/ram1 /dev/ram4
check mdadm_km /dev/md0 --add $(members $M $N)
sleep 0.2
wait_sync md0
[ "$(cat $S/degraded)" = 0 ] || fail "still degraded after the rebuild"
load rebuilt
late_end "degraded and rebuild"

note "(iv) a daemon that fails jobs and writes their outputs later (a hung GPU batch): --fault=fail-late:15"
: >$RKMD_LOG
mis0=$(rkm_stat verify_mismatches)
[ "$(rkm_stat stage_held_pages)" = 0 ] || fail "staging held before (iv): $(rkm_stat stage_held_pages)"
start_raidkmd --fault=fail-late:15
for r in 1 2 3; do
	load fl$r
done
held=$(rkm_stat stage_held_pages)
echo "fail-late: $held staging pages held while the daemon lives"
[ "$held" -gt 0 ] || fail "fail-late: the failed jobs' staging was not held"
[ "$(rkm_stat verify_mismatches)" = "$mis0" ] ||
	fail "fail-late: a late write reached a later job's staging ($(($(rkm_stat verify_mismatches) - mis0)) mismatches)"
late_end fail-late
[ "$(rkm_stat stage_held_pages)" = 0 ] ||
	fail "fail-late: $(rkm_stat stage_held_pages) staging pages still held after the daemon left"
[ "$(rkm_stat stage_free_pages)" = "$(rkm_stat stage_pages)" ] ||
	fail "fail-late: $(rkm_stat stage_free_pages) of $(rkm_stat stage_pages) staging pages free after the daemon left"
honest fail-late

note "cost of staging: honest daemon, 3 rounds of 32 MiB full-stripe writes"
: >$RKMD_LOG
start_raidkmd
load warm
# round SPOT PPM: copy ns/job, copy bytes/job, check ns/job
round() {
	check sh -c "echo $1 >$P/verify_spot; echo $2 >$P/verify_ppm"
	j0=$(rkm_stat jobs_offloaded)
	b0=$(rkm_stat stage_copy_bytes) c0=$(rkm_stat stage_copy_ns)
	fc0=$(rkm_stat verify_full_checks) fn0=$(rkm_stat verify_full_ns)
	check $FIO --name=cost --rw=write --bs=256k --iodepth=4 --size=32M \
		--do_verify=0 >/dev/null
	jobs=$(($(rkm_stat jobs_offloaded) - j0))
	[ "$jobs" -gt 0 ] || fail "no job offloaded"
	cb=$(($(rkm_stat stage_copy_bytes) - b0))
	cn=$(($(rkm_stat stage_copy_ns) - c0))
	fc=$(($(rkm_stat verify_full_checks) - fc0))
	fu=0
	[ $fc = 0 ] || fu=$((($(rkm_stat verify_full_ns) - fn0) / fc))
	echo "$jobs jobs: staging copied $((cb / jobs)) bytes/job in $((cn / jobs)) ns/job ($((cn * 1024 / (cb / 1048576) / 1024)) ns/MiB); full check $fu ns/job"
}
for i in 1 2 3; do
	round 0 0
	round 0 1000000
done
check sh -c "echo 1 >$P/verify_spot; echo 10000 >$P/verify_ppm"
echo "stage_fallbacks $(rkm_stat stage_fallbacks), stage_free_pages $(rkm_stat stage_free_pages)/$(rkm_stat stage_pages)"
kill -TERM $daemon
wait $daemon || fail "raidkmd exited $? on SIGTERM"
wait_daemon_state idle
no_warning
check mdadm_km --stop /dev/md0
dmesg | grep raidkm | tail -n 20
echo "offload-hostile: ok"
