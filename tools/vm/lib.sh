# Functions for guest scenarios (sourced as /lib/raidkm/lib.sh).

RKMD_LOG=/tmp/raidkmd.log	# raidkmd's log when start_raidkmd runs it
RELAY_LOG=/tmp/relay.log	# raidkm-relay's (the bridge, start_relay)

# fail MSG: report and end the scenario as failed (with what raidkmd
# logged, if a daemon ran)
fail() {
	echo "FAIL: $*"
	if [ -s "$RKMD_LOG" ]; then
		echo "--- raidkmd log"
		cat "$RKMD_LOG"
	fi
	if [ -s "$RELAY_LOG" ]; then
		echo "--- raidkm-relay log"
		tail -n 30 "$RELAY_LOG"
	fi
	[ -s "$RKMD_LOG" ] || [ -s "$RELAY_LOG" ] &&
		dmesg | grep raidkm | tail -n 30
	exit 1
}

# check CMD ARGS...: run; fail with the command line if it exits non-zero
check() {
	"$@" || fail "command failed (rc=$?): $*"
}

# note MSG: a progress line in the log
note() {
	echo "--- $*"
}

# ramdisks N MIB: /dev/ram0..N-1 of MIB MiB each
ramdisks() {
	check modprobe brd rd_nr="$1" rd_size=$(($2 * 1024)) max_part=0
	i=0
	while [ $i -lt "$1" ]; do
		[ -b /dev/ram$i ] || fail "ramdisk /dev/ram$i missing"
		i=$((i + 1))
	done
}

# scsi_debug_disk MIB: one scsi_debug disk of MIB MiB (the parameters it
# needs for medium errors, opts=0 until a scenario sets them); its name
# (sda...) in $sd
scsi_debug_disk() {
	check modprobe sd_mod
	check modprobe scsi_debug dev_size_mb="$1" sector_size=512 opts=0
	sd=""
	for i in 1 2 3 4 5 6 7 8 9 10; do
		sd=$(ls /sys/block | grep '^sd' | head -1)
		[ -n "$sd" ] && [ -b /dev/$sd ] && break
		sleep 1
	done
	[ -b "/dev/$sd" ] || fail "no scsi_debug disk"
	note "scsi_debug disk /dev/$sd"
}

# share ITEM...: this kernel's items of a sweep.  "make check" runs the
# suite on each supported kernel and gives kernel I of N the items j with
# j % N == I (RKM_SHARE=I/N from run-scenario.sh --share), so every item
# runs in each check, each kernel runs every kind of item, and a sweep
# costs each lane 1/N of its time; make check-full gives every kernel
# every item.  One word per item: a multi-word item joins with ':'.
share() {
	local sh=${RKM_SHARE:-0/1} j=0 it
	for it in "$@"; do
		[ $((j % ${sh#*/})) = "${sh%/*}" ] && echo "$it"
		j=$((j + 1))
	done
}

# members N [FIRST]: "/dev/ramFIRST ... /dev/ram<FIRST+N-1>"
members() {
	i=${2:-0}
	end=$((i + $1))
	out=""
	while [ $i -lt $end ]; do
		out="$out /dev/ram$i"
		i=$((i + 1))
	done
	echo $out
}

load_raidkm() {
	check modprobe raidkm
	grep -q '\[km\]' /proc/mdstat || fail "/proc/mdstat does not list km"
}

# mdadm_km ARGS...: the project's mdadm, never asking questions
mdadm_km() {
	/sbin/mdadm "$@" </dev/null
}

# fiov FIO-ARGS...: fio on /dev/md0 (direct, libaio, depth 8) with crc32c
# verification that stops at the first bad block; prints fio's output
# only when it fails
fiov() {
	fio --filename=/dev/md0 --direct=1 --ioengine=libaio --verify=crc32c \
	    --verify_fatal=1 --iodepth=8 "$@" >/tmp/fio.out 2>&1 ||
		{ cat /tmp/fio.out; fail "fio $*"; }
}

# wait_sync MD: wait until resync/recovery on /dev/MD is over
wait_sync() {
	while grep -A3 "^$1 " /proc/mdstat | grep -Eq 'resync|recovery|reshape|check'; do
		sleep 0.2
	done
}

# wait_clean MD: wait (30 s at most: an emulated guest on a busy host
# runs its md thread late) until md has marked /dev/MD clean again after
# writes (safe_mode_delay after the last one)
wait_clean() {
	i=0
	while [ "$(cat /sys/block/$1/md/array_state)" != clean ]; do
		i=$((i + 1))
		[ $i -le 300 ] || fail "$1 still $(cat /sys/block/$1/md/array_state) after 30 s (in flight: $(cat /sys/block/$1/inflight), sync_action $(cat /sys/block/$1/md/sync_action), safe_mode_delay $(cat /sys/block/$1/md/safe_mode_delay))"
		sleep 0.1
	done
}

# wait_md_gone MD [SECONDS]: after MD (md0 or /dev/md0) was stopped, until
# md has deleted its device (10 s at most); fails if it is still there.
# md deletes a stopped array's device from a work queue, after STOP_ARRAY
# has returned, so a check right after --stop that it is gone can race.
wait_md_gone() {
	local md=${1#/dev/} n=0
	while [ -e /sys/block/$md ]; do
		n=$((n + 1))
		[ $n -le $((${2:-10} * 10)) ] ||
			fail "$md still there ${2:-10} s after its stop: $(cat /proc/mdstat)"
		sleep 0.1
	done
}

# recovery_s MD: seconds of MD's last recovery, from md's own kernel log
# lines at its start and end (benchmarks; wait_sync's polling is coarse)
recovery_s() {
	dmesg | awk -v md=$1 '
		function ts(l) { return substr(l, 2, index(l, "]") - 2) + 0 }
		$0 ~ "md: recovery of RAID array " md "$" { s = ts($0) }
		$0 ~ "md: " md ": recovery done" { e = ts($0) }
		END { if (s && e > s) printf "%.2f", e - s; else print 0 }'
}

# parity_check MD: run md's "check" on MD to its end; sets $mm to the
# mismatch_cnt it found
parity_check() {
	echo check >/sys/block/$1/md/sync_action
	sleep 0.2
	wait_sync $1
	mm=$(cat /sys/block/$1/md/mismatch_cnt)
}

# check_clean MD WHAT: a "check" of MD finds no mismatch (WHAT names the
# moment in the failure message)
check_clean() {
	parity_check $1
	[ "$mm" = 0 ] || fail "mismatch_cnt $mm after check ($2)"
}

# load_raid6: md raid6 as a reference (libcrc32c needs a crc32c driver
# first, and the guest has no udev to load it on demand)
load_raid6() {
	check modprobe crc32c_generic
	check modprobe raid456
}

# --- scenarios with raidkmd (offload) ---
RKM_SYS=/sys/kernel/raidkm

# rkm_stat NAME: a value from /sys/kernel/raidkm
rkm_stat() {
	cat $RKM_SYS/$1
}

# wait_jobs_in_flight SECONDS: until the daemon holds a job
wait_jobs_in_flight() {
	i=0
	while [ "$(rkm_stat jobs_in_flight)" = 0 ]; do
		i=$((i + 1))
		[ $i -lt $(($1 * 20)) ] || fail "no job went to the daemon in $1 s"
		sleep 0.05
	done
}

# wait_daemon_state STATE [SECONDS]: until daemon_state is STATE (10 s)
wait_daemon_state() {
	i=0
	while [ "$(rkm_stat daemon_state)" != "$1" ]; do
		i=$((i + 1))
		[ $i -lt $((${2:-10} * 10)) ] ||
			fail "daemon_state '$(rkm_stat daemon_state)', wanted '$1'"
		sleep 0.1
	done
}

# start_raidkmd ARGS...: raidkmd with the CPU backend in the background,
# logging to $RKMD_LOG; returns once attached; sets $daemon
start_raidkmd() {
	raidkmd --backend=cpu --threads=2 --foreground "$@" >>$RKMD_LOG 2>&1 &
	daemon=$!
	wait_daemon_state running
	[ "$(rkm_stat daemon_pid)" = $daemon ] ||
		fail "daemon_pid $(rkm_stat daemon_pid), not $daemon"
	[ "$(rkm_stat daemon_backend)" = cpu ] ||
		fail "daemon_backend $(rkm_stat daemon_backend)"
}

# honest_serves CMD...: a fresh raidkmd (cpu backend) attaches, serves the
# load CMD runs with no wrong result and stops cleanly on SIGTERM (after
# a misbehaving daemon was dropped)
honest_serves() {
	: >$RKMD_LOG
	start_raidkmd
	off=$(rkm_stat jobs_offloaded)
	mis=$(rkm_stat verify_mismatches)
	"$@"
	[ "$(rkm_stat jobs_offloaded)" -gt "$off" ] || fail "honest daemon served nothing"
	[ "$(rkm_stat verify_mismatches)" = "$mis" ] || fail "honest daemon mismatched"
	[ "$(rkm_stat daemon_state)" = running ] || fail "honest daemon dropped"
	kill -TERM $daemon
	wait $daemon || fail "raidkmd exited $? on SIGTERM"
	wait_daemon_state idle
}

# crash_guest: end this boot at once, like a power cut: no sync, no clean
# stop (multi-boot scenarios, "# boots:"; the next boot sees the disks)
crash_guest() {
	echo "RKM-PHASE-END"
	sleep 1		# let the console drain the marker
	echo b >/proc/sysrq-trigger
	sleep 10
	fail "the guest survived sysrq-b"
}

# --- the member log's scenarios (km-member-log, bridge-member-log) ---
# linear_members MIB VD...: dm-linear maps m0, m1, ... of MIB MiB over
# /dev/vdVD... (so that a member can be slowed or failed for real);
# their nodes in $DEVS
linear_members() {
	local mib=$1 v i=0
	shift
	check modprobe dm-mod
	DEVS=""
	for v in "$@"; do
		echo "0 $((mib * 2048)) linear /dev/vd$v 0" |
			check dmsetup create --noudevsync m$i
		DEVS="$DEVS /dev/mapper/m$i"
		i=$((i + 1))
	done
	check dmsetup mknodes
}

# full_stripes_on_slow MIB DEV1 DEV2: dm maps m1 and m2 (members 1 and 2
# of /dev/md0, MIB MiB each) become DEV1 and DEV2 with every write 300 ms
# late (dm-delay: a power cut finds full stripes that reached some
# members and not others), then 1 MiB sequential writes run on /dev/md0
# in the background; back after 3 s of them
full_stripes_on_slow() {
	check modprobe dm-delay
	echo "0 $(($1 * 2048)) delay $2 0 0 $2 0 300" | check dmsetup load m1
	echo "0 $(($1 * 2048)) delay $3 0 0 $3 0 300" | check dmsetup load m2
	check dmsetup resume m1 m2
	fio --filename=/dev/md0 --direct=1 --ioengine=libaio --iodepth=16 \
		--name=s --rw=write --bs=1M --size=24M --time_based --runtime=60 \
		>/dev/null 2>&1 &
	sleep 3
}

# members_parity_ok MEMBER0 MEMBERS...: stop /dev/md0 (km 4+2, 64 KiB
# chunks, members in slot order) and check the P parity of the 96
# stripes full_stripes_on_slow wrote, on the members themselves
# (rkm-parity): what the log's replay left, before any resync
members_parity_ok() {
	local off
	off=$(mdadm_km --examine "$1" | sed -n 's/.*Data Offset : \([0-9]*\) sectors.*/\1/p')
	check mdadm_km --stop /dev/md0
	wait_md_gone md0
	rkm-parity -k 4 -m 2 -c 65536 -o "$off" -s 0:96 "$@" ||
		fail "stripes whose parity does not match their data after the replay"
}

# --- the guest-RAM bridge (run-scenario.sh --bridge, "# bridge: yes"):
# raidkmd runs on the VM host, raidkm-relay here; $RKM_BRIDGE is the host
# daemon's backend (cpu, cuda)
# host_raidkmd start [VAR=VALUE...] [ARGS...] | kill | stop: ask the
# harness to act on the host's raidkmd (start does nothing while one runs)
host_raidkmd() {
	echo "RKM-HOST: $*"
}

# start_relay: raidkm-relay in the background; returns once the host's
# raidkmd attached through it; sets $relay
start_relay() {
	[ -n "$RKM_BRIDGE" ] || fail "not booted with the bridge (run-scenario.sh --bridge)"
	raidkm-relay >>$RELAY_LOG 2>&1 &
	relay=$!
	wait_daemon_state running 60
	[ "$(rkm_stat daemon_pid)" = $relay ] ||
		fail "daemon_pid $(rkm_stat daemon_pid), not the relay's $relay"
	[ "$(rkm_stat daemon_backend)" = "$RKM_BRIDGE" ] ||
		fail "daemon_backend $(rkm_stat daemon_backend), wanted $RKM_BRIDGE"
}
