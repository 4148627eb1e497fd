# covers: offload: result checks; offload: lying daemon
# Wrong daemon results never land unnoticed, under the DEFAULT module
# parameters (verify_spot=1, verify_fresh_jobs=1024, verify_ppm=10000):
# a lying raidkmd on a km 4+2 array under fio --verify, (i) skip:1 (never
# codes), (ii) skip:100 (skips 1 job in 100), (iii) corrupt:100 (flips one
# byte in 1 job in 100; (iv) corrupt:10 with verify_fresh_jobs=0, as
# after the fresh window) is caught and dropped: fio sees no error,
# verify_mismatches rises, dmesg tells the admin to run a parity check,
# the jobs the daemon completed before it was caught stay within the
# bound of Documentation/offload.rst, check (after repair where wrong
# parity reached the disks) gives mismatch_cnt 0, and an honest raidkmd
# attaches and serves afterwards.  Then the cost of the default checks
# against none, honest daemon, rounds interleaved (TCG: ratios only).
# timeout: 900
. /lib/raidkm/lib.sh

K=/sys/kernel/raidkm
P=/sys/module/raidkm/parameters
N=6 M=2
# rounds of the cost measurement: one in make check (it asserts nothing
# on time); offload.rst's figures are medians of ROUNDS=5
ROUNDS=${ROUNDS:-1}

# --randrepeat=0: new data every run.  With fio's fixed seed a round
# rewrites the data the previous one wrote, the stale parity an uncoded
# job leaves is then right, and a skip fault would be a lie that is true.
FIO="fio --output-format=terse --minimal --filename=/dev/md0 --direct=1 --ioengine=libaio --randrepeat=0 --verify=crc32c --do_verify=1 --verify_fatal=1"

ramdisks $N 16
load_raidkm
# the daemon path is under test: it gets every job it can take
check sh -c "echo daemon >/sys/module/raidkm/parameters/placement"
[ "$(cat $P/verify_spot)" = 1 ] || fail "verify_spot default $(cat $P/verify_spot)"
[ "$(cat $P/verify_fresh_jobs)" = 1024 ] || fail "verify_fresh_jobs default"
[ "$(cat $P/verify_ppm)" = 10000 ] || fail "verify_ppm default $(cat $P/verify_ppm)"
# TCG is slow and 2 vCPUs are shared with fio: no deadline drops here.
check sh -c "echo 10000 >$P/deadline_ms"

check mdadm_km --create /dev/md0 --run --level=km --layout=m$M \
	--raid-devices=$N --chunk=64 $(members $N)
wait_sync md0
S=/sys/block/md0/md

# load NAME: one round of writes, full stripes then read-modify-write
load() {
	check $FIO --name=$1-seq --rw=write --bs=256k --iodepth=4 --size=16M
	check $FIO --name=$1-rnd --rw=randwrite --bs=4k --iodepth=8 \
		--size=8M --offset=16M --number_ios=300
}

# lying SPEC MAXROUNDS BOUND: raidkmd --fault=SPEC under fio until the
# kernel drops it (MAXROUNDS rounds at most); at most BOUND jobs may have
# been accepted from it; sets $wrote (sectors found wrong by check)
lying() {
	note "lying daemon --fault=$1, verify_spot $(cat $P/verify_spot) verify_fresh_jobs $(cat $P/verify_fresh_jobs) verify_ppm $(cat $P/verify_ppm)"
	off0=$(rkm_stat jobs_offloaded)
	mis0=$(rkm_stat verify_mismatches)
	logged=$(dmesg | grep -c 'returned a wrong result')
	start_raidkmd --fault=$1
	r=0
	while [ "$(rkm_stat daemon_state)" = running ]; do
		r=$((r + 1))
		[ $r -le $2 ] || fail "--fault=$1 not caught in $2 rounds ($(($(rkm_stat jobs_offloaded) - off0)) jobs accepted)"
		load lie$r
	done
	wait $daemon
	wait_daemon_state idle
	acc=$(($(rkm_stat jobs_offloaded) - off0))
	inj=$(sed -n 's/.*, \([0-9]*\) faults injected.*/\1/p' $RKMD_LOG | tail -n 1)
	echo "--fault=$1: caught in round $r; jobs accepted from it before: $acc (bound $3); faults it injected: $inj"
	[ "$(rkm_stat verify_mismatches)" -gt "$mis0" ] || fail "no verify mismatch counted"
	[ "$acc" -le "$3" ] || fail "$acc jobs accepted from a lying daemon, bound $3"
	[ "$(dmesg | grep -c 'returned a wrong result')" -gt "$logged" ] ||
		fail "mismatch not logged"
	dmesg | grep 'returned a wrong result' | tail -n 1
	dmesg | grep -q "run a parity check ('echo check > /sys/block/mdX/md/sync_action'" ||
		fail "no advice to run a parity check"
	[ "$acc" = 0 ] ||
		dmesg | grep -q 'echo check > /sys/block/md0/md/sync_action' ||
		fail "no advice to check md0"
	parity_check md0
	wrote=$mm
	echo "--fault=$1: wrong sectors on disk before repair: $wrote"
	if [ "$wrote" != 0 ]; then
		echo repair >$S/sync_action
		sleep 1
		wait_sync md0
		parity_check md0
		[ "$mm" = 0 ] || fail "mismatch_cnt $mm after repair"
	fi

	note "an honest daemon attaches and serves after --fault=$1"
	honest_serves load honest
	: >$RKMD_LOG
}

# (i) never codes: its first completion is checked in full (fresh)
lying skip:1 3 0
[ "$wrote" = 0 ] || fail "skip:1 wrote wrong parity"
# (ii) the first skipped job is caught (fresh window or spot check); the
# 99 honest entries before it hold at most 16 jobs each
lying skip:100 20 1584
[ "$wrote" = 0 ] || fail "skip:100 wrote wrong parity"
# (iii) one byte in one job of 100: caught for sure in the fresh window,
# after it with p = 1/64 + 1% per wrong job (99.9 %: 267 wrong jobs,
# each after 99 honest entries of at most 16 jobs)
lying corrupt:100 60 $((268 * 100 * 16))
[ "$wrote" -le $((267 * 8)) ] || fail "corrupt:100 wrote $wrote wrong sectors"
# (iv) past the fresh window (as after 1024 jobs): spot check and sample
# alone, p = 1/64 + 1 % = 2.55 % per wrong job whatever its length, so
# more than 540 wrong jobs before the first caught has a chance below
# 1e-6.  One job in 10 is wrong here, so that a round brings about 36 of
# them and the 60 rounds 2,000 (one in 100 gave 60 rounds about 220,
# and a single 64-byte window, before it grew with the job, covered a
# wide job's byte with less than 1/64: CI saw one run not caught).
check sh -c "echo 0 >$P/verify_fresh_jobs"
lying corrupt:10 60 $((541 * 10 * 16))
[ "$inj" -le 541 ] || fail "corrupt:10 injected $inj faults before it was caught"
[ "$wrote" -le $((540 * 8)) ] || fail "corrupt:10 wrote $wrote wrong sectors"

# the cost past the fresh window (read at ATTACH: 0 here, so that each
# mode's rounds measure what it does to every job after the first 1024;
# the rounds' few hundred wide jobs would all fall in the window)
note "cost of the default checks: honest daemon, $ROUNDS rounds interleaved"
mis0=$(rkm_stat verify_mismatches)
start_raidkmd
load warm
# median of the numbers on stdin
median() {
	sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'
}
# vns: nanoseconds spent checking so far, spot and full
vns() {
	echo $(($(rkm_stat verify_spot_ns) + $(rkm_stat verify_full_ns)))
}
# mode NAME SPOT PPM: one measured round (32 MiB of full-stripe writes);
# appends "KiB/s jobs check-ns/job spot-ns/check full-ns/check"
mode() {
	check sh -c "echo $2 >$P/verify_spot; echo $3 >$P/verify_ppm"
	j0=$(rkm_stat jobs_offloaded)
	n0=$(vns)
	sc0=$(rkm_stat verify_spot_checks) sn0=$(rkm_stat verify_spot_ns)
	fc0=$(rkm_stat verify_full_checks) fn0=$(rkm_stat verify_full_ns)
	t0=$(awk '{ print int($1 * 1000) }' /proc/uptime)
	check $FIO --name=cost --rw=write --bs=256k --iodepth=4 --size=32M \
		--do_verify=0 >/dev/null
	t1=$(awk '{ print int($1 * 1000) }' /proc/uptime)
	jobs=$(($(rkm_stat jobs_offloaded) - j0))
	[ "$jobs" -gt 0 ] || fail "no job offloaded"
	kibs=$((32 * 1024 * 1000 / (t1 - t0)))
	per=$((($(vns) - n0) / jobs))
	sc=$(($(rkm_stat verify_spot_checks) - sc0))
	fc=$(($(rkm_stat verify_full_checks) - fc0))
	sp=0 fu=0
	[ $sc = 0 ] || sp=$((($(rkm_stat verify_spot_ns) - sn0) / sc))
	[ $fc = 0 ] || fu=$((($(rkm_stat verify_full_ns) - fn0) / fc))
	echo "$kibs $jobs $per $sp $fu" >>/tmp/cost.$1
	echo "round $i $1: $kibs KiB/s, $jobs jobs, checks $per ns/job ($sc spot at $sp ns, $fc full at $fu ns)"
}
# col N FILE: median of column N
col() {
	cut -d' ' -f$1 $2 | median
}
rm -f /tmp/cost.*
i=0
while [ $i -lt $ROUNDS ]; do
	i=$((i + 1))
	mode off 0 0
	mode default 1 10000
	mode full 0 1000000
done
for m in off default full; do
	echo "median $m: $(col 1 /tmp/cost.$m) KiB/s, $(col 2 /tmp/cost.$m) jobs, checks $(col 3 /tmp/cost.$m) ns/job"
done
full=$(col 5 /tmp/cost.full)
spot=$(col 4 /tmp/cost.default)
dflt=$(col 3 /tmp/cost.default)
echo "a spot check: $spot ns, a full check (= coding the job on the CPU and comparing): $full ns"
echo "default checks cost $((dflt * 10000 / full))/100 % of coding every job on the CPU (spot alone $((spot * 10000 / full))/100 %)"
echo "throughput default/off: $(($(col 1 /tmp/cost.default) * 100 / $(col 1 /tmp/cost.off))) %, full/off: $(($(col 1 /tmp/cost.full) * 100 / $(col 1 /tmp/cost.off))) %"
check sh -c "echo 1 >$P/verify_spot; echo 10000 >$P/verify_ppm; echo 1024 >$P/verify_fresh_jobs"
[ "$(rkm_stat verify_mismatches)" = "$mis0" ] || fail "mismatches from the honest daemon"
kill -TERM $daemon
wait $daemon || fail "raidkmd exited $? on SIGTERM"
wait_daemon_state idle

check mdadm_km --stop /dev/md0
dmesg | grep raidkm | tail -n 20
echo "offload-verify: ok"
