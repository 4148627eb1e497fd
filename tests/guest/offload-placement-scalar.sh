# covers: offload: placement by measured cost; bridge: guest-RAM bridge; codec: implementation choice
# Placement against a fast daemon (issue #30): the guest kernel's CPU
# codec forced to its scalar implementation (codec_impl=scalar, emulated
# by TCG) while raidkmd's cpu backend codes natively on the VM host (its
# SIMD codec) through the guest-RAM bridge.  Under auto, once both sides
# are measured (a warm-up on each: the array's placement cpu, then
# daemon), the daemon gets most of the bandwidth-bound jobs of a 16+16
# array (1 MiB of data each): at least 2 in 3 of the bytes of full-stripe
# writes (encode), of degraded reads with 8 members out and of their
# rebuild (decode); the mirror of offload-placement.sh's slow daemon that
# loses them.  Every fio run verifies its data (crc32c), the spot check
# finds no wrong result, the parity is consistent at the end.  No timing
# is asserted.
# bridge: yes
# timeout: 900
# mem: 1536
. /lib/raidkm/lib.sh

P=/sys/module/raidkm/parameters
# 16+16 with 64 KiB chunks, written a stripe (1 MiB) at a time: one wide
# job each, 1 MiB of data and 16 parity rows.  The scalar codec's cost
# grows with the bytes and the parity rows (a third of a second a job
# under TCG), the daemon's round trip through the bridge does not; the
# degraded reads, 8 members out, decode 8 chunks a stripe.  One job at a
# time: the guest's two CPUs also carry the relay and the completions.
N=32 M=16 OUT=8
FIO="fiov --bs=1M --iodepth=1"

# placed OP SIDE: bytes of OP jobs coded on SIDE so far, every class
placed() {
	awk -v op=$1 -v side=$2 '$1 == op {
		for (i = 3; i < NF; i++) if ($i == side) { n += $(i + 2); break } }
		END { print n + 0 }' $RKM_SYS/placement_stats
}

# snap OP: remember OP's bytes on each side
snap() {
	c0=$(placed $1 cpu) d0=$(placed $1 daemon)
}

# mostly_daemon OP WHAT: since snap, at least 2 in 3 of OP's bytes went
# to the daemon (the rest: the CPU's share of exploring, a job each time
# its estimate is 500 ms old, and one in 64)
mostly_daemon() {
	c=$(($(placed $1 cpu) - c0)) d=$(($(placed $1 daemon) - d0))
	echo "$2: $1 bytes on the cpu $c, on the daemon $d"
	[ $((c + d)) -gt 0 ] || fail "$2: no $1 job at all"
	[ $((3 * d)) -ge $((2 * (c + d))) ] || {
		cat $RKM_SYS/placement_stats $RKM_SYS/placement_reasons
		fail "$2: the fast daemon got $d of $((c + d)) $1 bytes (wanted 2 in 3) against a scalar CPU codec"
	}
}

check modprobe raidkm arena_mb=256
[ "$(cat $P/placement)" = auto ] || fail "placement is '$(cat $P/placement)', not auto by default"
impl=$(cat $P/codec_impl)
check sh -c "echo scalar >$P/codec_impl"
[ "$(cat $P/codec_impl)" = scalar ] ||
	fail "codec_impl is '$(cat $P/codec_impl)' after writing scalar"
echo "guest codec: $impl at load, scalar forced"
# the host daemon's threads compete with the emulated guest's on a
# build machine of 2 cores (and other tenants): more than the default
# 50 ms deadline
[ "$RKM_BRIDGE" = cpu ] && check sh -c "echo 10000 >$P/deadline_ms"

# The daemon's time, as placement learns it, runs until its results are
# copied back and checked; a job checked in full is recomputed on the
# CPU first, so a daemon in its fresh window (every job in full), or
# drawn by the sample, looks slower than the CPU alone.  Only the spot
# check here (1/64 of every job): the daemon's own speed is under test.
check sh -c "echo 0 >$P/verify_fresh_jobs"
check sh -c "echo 0 >$P/verify_ppm"
ramdisks $((N + OUT)) 10
check mdadm_km --create /dev/md0 --run --assume-clean --level=km \
	--layout=m$M --raid-devices=$N --chunk=64 $(members $N)
start_relay

A=/sys/block/md0/md/km/placement

# est OP: the estimates of OP's classes that have seen jobs
est() {
	awk -v op=$1 '$1 == op && $4 + $7 > 0 { print "  " $0 }' $RKM_SYS/placement_stats
}

# measured OP CMD...: CMD under placement cpu, then daemon: both sides
# of OP's classes measured (the daemon's estimate falls an eighth a
# sample, so it needs more than auto's few explored jobs), then default
measured() {
	op=$1
	shift
	echo cpu >$A || fail "array placement cpu refused"
	"$@"
	echo daemon >$A || fail "array placement daemon refused"
	"$@"
	echo default >$A || fail "array placement default refused"
	echo "$op estimates, both sides measured:"
	est $op
}

# under_auto OP WHAT FIO-ARGS...: both sides of OP measured on the first
# 32 MiB, then the next 64 MiB under auto, where the daemon must get
# most of OP's bytes
under_auto() {
	op=$1 what=$2
	shift 2
	measured $op $FIO --name=w0 --rw=write --size=32M --offset=0 "$@"
	snap $op
	$FIO --name=w --rw=write --size=64M --offset=64M "$@"
	est $op
	mostly_daemon $op "$what"
}

note "full-stripe writes"
under_auto encode "writes"

note "degraded reads, $OUT members out"
for i in $(seq 0 $((OUT - 1))); do
	check mdadm_km /dev/md0 --fail /dev/ram$i
done
under_auto decode "degraded reads" --verify_only

note "rebuild of $OUT members"
for i in $(seq 0 $((OUT - 1))); do
	check mdadm_km /dev/md0 --remove /dev/ram$i
done
echo 200000 >/proc/sys/dev/raid/speed_limit_min
snap decode
check mdadm_km /dev/md0 --add $(members $OUT $N)
sleep 1
wait_sync md0
est decode
mostly_daemon decode "rebuild"
$FIO --name=w --rw=write --size=64M --offset=64M --verify_only

cat $RKM_SYS/placement_reasons
check_clean md0 "after the rebuild"
[ "$(rkm_stat verify_mismatches)" = 0 ] ||
	fail "verify_mismatches $(rkm_stat verify_mismatches)"
[ "$(rkm_stat verify_spot_checks)" -gt 0 ] || fail "no spot check ran"
kill -TERM $relay
wait $relay || fail "raidkm-relay exited $? on SIGTERM"
check mdadm_km --stop /dev/md0
check sh -c "echo $impl >$P/codec_impl"
echo PASS
