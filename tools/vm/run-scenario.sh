#!/bin/bash
# Boot a Debian kernel (6.1 or 6.12) in QEMU (TCG) with the raidkm guest
# image built for it and run scenario scripts; report PASS/FAIL per
# scenario as "guest-SERIES/NAME" (guest-6.1/km-basic).
#
# usage: run-scenario.sh [options] SCENARIO.sh...
#   --kernel KVER  the guest kernel, as in /lib/modules (default $KVER, or the
#                  newest 6.1 installed); its image is build/vm/KVER/base.cpio
#   --one-boot     run all scenarios in one boot (default: one boot each)
#   --show         stream the guest console to stdout (demo, debugging)
#   --kvm          use KVM instead of TCG (nested KVM hangs on our CI hosts)
#   --mem MIB      guest memory (default: the largest "# mem:" header, or 1024)
#   --smp N        guest CPUs (default 2)
#   --image FILE   base initramfs (default build/vm/KVER/base.cpio)
#   --logdir DIR   console logs (default build/vm/logs/KVER)
#   --bridge B     serve the guest's raidkm.ko from raidkmd on this host with
#                  backend B (cpu, cuda) through the guest-RAM bridge; also
#                  for every scenario with a "# bridge: yes" header (backend
#                  $RKM_BRIDGE_BACKEND, default cpu)
#   --share I/N    this kernel's share of the scenarios' sweeps (lib.sh's
#                  share: item j of a sweep runs where j % N == I; default
#                  $RKM_SHARE, or 0/1: every item)
#
# Environment: RKM_QEMU (the QEMU command, default qemu-system-x86_64; may
# be several words), RKM_KERNEL (the guest kernel image, default
# build/vm/KVER/vmlinux, else /boot/vmlinuz-KVER), RKM_IMAGE (the
# base initramfs), RKM_IMAGE_EXTRA (archives appended to it, e.g. the
# bench's perf), RKM_LOGDIR, RKM_CPIO (cpio, or "busybox cpio"),
# RKM_HOST_RAIDKMD (raidkmd for --bridge, default build/bin/raidkmd),
# RKM_BOOT_LIMIT (seconds for the guest kernel to reach /init, default 120).
#
# A scenario fails when it exits non-zero, runs past its "# timeout:",
# the guest dies, or the kernel prints WARNING:/BUG:/Oops/Call Trace.
#
# "# disks: N MIB" gives the guest N virtio disks (/dev/vda...) backed by
# files that outlive a boot; "# boots: B" runs the scenario in B boots in a
# row over the same disks (RKM_PHASE=1..B, RKM_BOOTS=B in the guest);
# "# boots-shared: S" runs S boots instead where this kernel has a share
# of the sweeps (--share I/N with N > 1: make check's kernels each take
# some of the repetitions).  Every boot but the last must end with
# crash_guest (lib.sh), a power cut.
#
# With the bridge, the guest's RAM is a file in /dev/shm and a
# virtio-serial port "org.raidkm.bridge" leads to a unix socket on which
# the host's raidkmd --bridge serves raidkm-relay in the guest.  A scenario
# drives that host daemon with console lines "RKM-HOST: start [ARGS]",
# "RKM-HOST: kill" (SIGKILL) and "RKM-HOST: stop" (SIGTERM); its log is
# LOG.host.  Each "# host-log: REGEX" header (grep -E) must match a line of
# LOG.host for the scenario to pass: what only the host sees (a GPU's
# worker down and back).
set -uo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
image=${RKM_IMAGE:-}
logdir=${RKM_LOGDIR:-}
read -r -a cpio <<<"${RKM_CPIO:-cpio}"
kver=${KVER:-$(ls /lib/modules 2>/dev/null | grep -E '^6\.1\.[0-9]+-[0-9]+-amd64$' | sort -V | tail -n 1)}
one_boot=0 show=0 accel=tcg mem="" smp=2 nboots=1 bridge_opt="" share=${RKM_SHARE:-0/1}
boot_limit=${RKM_BOOT_LIMIT:-120}
read -r -a qemu <<<"${RKM_QEMU:-qemu-system-x86_64}"
host_raidkmd=${RKM_HOST_RAIDKMD:-$top/build/bin/raidkmd}
scenarios=()

while [ $# -gt 0 ]; do
	case $1 in
	--kernel) kver=$2; shift ;;
	--one-boot) one_boot=1 ;;
	--show) show=1 ;;
	--kvm) accel=kvm ;;
	--mem) mem=$2; shift ;;
	--smp) smp=$2; shift ;;
	--image) image=$2; shift ;;
	--logdir) logdir=$2; shift ;;
	--bridge) bridge_opt=$2; shift ;;
	--share) share=$2; shift ;;
	-h|--help) sed -n '2,42p' "$0"; exit 0 ;;
	-*) echo "run-scenario: unknown option $1" >&2; exit 2 ;;
	*) scenarios+=("$1") ;;
	esac
	shift
done

[ ${#scenarios[@]} -gt 0 ] || { echo "run-scenario: no scenario given" >&2; exit 2; }
if ! [[ $share =~ ^[0-9]+/[1-9][0-9]*$ ]] || [ "${share%/*}" -ge "${share#*/}" ]; then
	echo "run-scenario: --share wants I/N with 0 <= I < N, not '$share'" >&2
	exit 2
fi
image=${image:-$top/build/vm/$kver/base.cpio}
logdir=${logdir:-$top/build/vm/logs/$kver}
tag=guest-$(echo "$kver" | sed -E 's/^([0-9]+\.[0-9]+).*/\1/')
[ -f "$image" ] || { echo "run-scenario: no guest image $image (run make vm-image)" >&2; exit 2; }
# the ELF vmlinux make vm-images unpacked (tools/vm/unpack-kernel.sh)
# boots seconds sooner under TCG than the bzImage it came from
kernel=${RKM_KERNEL:-}
if [ -z "$kernel" ]; then
	kernel=$top/build/vm/$kver/vmlinux
	[ -r "$kernel" ] || kernel=/boot/vmlinuz-$kver
fi
[ -r "$kernel" ] || { echo "run-scenario: cannot read $kernel (install linux-image-amd64)" >&2; exit 2; }
mkdir -p "$logdir"

# bad_kernel, alive, boot_watch, boot_died
# shellcheck source=tools/vm/boot-watch.sh
. "$top/tools/vm/boot-watch.sh"

header() { sed -n "s/^# $1: *\([0-9][0-9]*\).*/\1/p" "$2" | head -n 1; }

# shown LINE: --show prints the scenario's output and the kernel's lines
# about km arrays and the daemon, not the whole boot log
shown() {
	case $1 in
	\[*"raidkm: daemon"*|\[*md/km*) printf '%s\n' "$1" ;;
	\[*) ;;
	*) printf '%s\n' "$1" ;;
	esac
}

# host_daemon DIR start [VAR=VALUE...] [ARGS...] | kill | stop: the
# bridge's raidkmd (started only when none runs)
host_daemon() {
	local dir=$1 what=$2 pid a envs=() args=()
	shift 2
	pid=$(cat "$dir/hpid" 2>/dev/null)
	case $what in
	start)
		[ -n "$pid" ] && alive "$pid" && return
		for a in "$@"; do
			if [[ $a =~ ^[A-Z_][A-Z0-9_]*= ]]; then envs+=("$a"); else args+=("$a"); fi
		done
		echo "=== $(date +%T) host: starting raidkmd ${envs[*]} ${args[*]}" >>"$dir/host.log"
		# from a subshell: no job notices when a test kills it
		(env "${envs[@]}" "$host_raidkmd" --bridge="$dir/sock" --guest-ram="$dir/ram" \
			--backend="$(cat "$dir/backend")" --foreground "${args[@]}" \
			>>"$dir/host.log" 2>&1 &
		 echo $! >"$dir/hpid") ;;
	kill) [ -n "$pid" ] && kill -KILL "$pid" 2>/dev/null ;;
	stop)	# and wait for it (10 s), so that a "start" after it starts one
		[ -n "$pid" ] && kill -TERM "$pid" 2>/dev/null || return 0
		for a in $(seq 1 100); do
			alive "$pid" || return 0
			sleep 0.1
		done
		kill -KILL "$pid" 2>/dev/null ;;
	esac
}

# bridge_run DIR LOG TIMEOUT QEMU-ARGS...: QEMU with the bridge, the host
# raidkmd, and a watcher that carries out the guest's RKM-HOST lines
bridge_run() {
	local dir=$1 log=$2 t=$3 qpid wpid i line
	shift 3
	: >"$log"
	timeout -k 5 "$t" "$@" </dev/null >>"$log" 2>&1 &
	qpid=$!
	for i in $(seq 1 300); do
		[ -S "$dir/sock" ] && break
		sleep 0.1
	done
	host_daemon "$dir" start
	tail -n +1 -F --pid=$qpid "$log" 2>/dev/null | while IFS= read -r line; do
		line=${line%$'\r'}
		# a kernel message may land in the middle of the guest's line:
		# arguments never hold '[', a printk time stamp starts with it
		[[ $line == *"RKM-HOST: "* ]] && line=${line%%\[*}
		case $line in
		*"RKM-HOST: start"*) host_daemon "$dir" start ${line#*RKM-HOST: start} ;;
		*"RKM-HOST: kill"*) host_daemon "$dir" kill ;;
		*"RKM-HOST: stop"*) host_daemon "$dir" stop ;;
		esac
		[ $show = 1 ] && shown "$line"
	done &
	wpid=$!
	wait $qpid
	wait $wpid 2>/dev/null
	host_daemon "$dir" stop
	cp "$dir/host.log" "$log.host" 2>/dev/null
}

# boot LOG SCENARIO...: one guest running the given scenarios in order;
# $boot_args (extra qemu arguments) and $boot_phase apply to it
boot_args=() boot_phase=1
boot() {
	local log=$1; shift
	rm -f "$log.host"
	local work s i=0 t total=30 m=1024 hm bb=$bridge_opt
	work=$(mktemp -d)
	mkdir -p "$work/ov/scenarios"
	for s in "$@"; do
		cp "$s" "$work/ov/scenarios/$(printf '%02d' $i)-$(basename "$s")"
		t=$(header timeout "$s"); total=$((total + ${t:-120}))
		hm=$(header mem "$s"); [ -n "$hm" ] && [ "$hm" -gt "$m" ] && m=$hm
		grep -q '^# bridge: *yes' "$s" && [ -z "$bb" ] &&
			bb=${RKM_BRIDGE_BACKEND:-cpu}
		i=$((i + 1))
	done
	[ -n "$mem" ] && m=$mem
	(cd "$work/ov" && find . | "${cpio[@]}" -o -H newc 2>/dev/null) >"$work/ov.cpio"
	# shellcheck disable=SC2086 # RKM_IMAGE_EXTRA: a list of files
	cat "$image" ${RKM_IMAGE_EXTRA:-} "$work/ov.cpio" >"$work/initrd"

	local acc=(-accel tcg -cpu max)
	[ $accel = kvm ] && acc=(-accel kvm -cpu host)
	local br=() bdir=""
	if [ -n "$bb" ]; then
		bdir=$(mktemp -d /dev/shm/rkm-bridge.XXXXXX)
		echo "$bb" >"$bdir/backend"
		br=(-object "memory-backend-file,id=mem,size=${m}M,mem-path=$bdir/ram,share=on"
		    -machine pc,memory-backend=mem -device virtio-serial-pci
		    -chardev "socket,id=rkb,path=$bdir/sock,server=on,wait=off"
		    -device virtserialport,chardev=rkb,name=org.raidkm.bridge)
	fi
	local cmd=("${qemu[@]}" "${acc[@]}" -smp "$smp" -m "$m"
		-display none -no-reboot -monitor none -serial stdio -nic none
		-kernel "$kernel" -initrd "$work/initrd" "${boot_args[@]}" "${br[@]}"
		-append "console=ttyS0 printk.time=1 panic=-1 oops=panic rdinit=/init loglevel=7 mitigations=off tsc=reliable init_on_alloc=0 rkm.phase=$boot_phase rkm.boots=$nboots rkm.share=$share${bb:+ rkm.bridge=$bb}")
	if [ -n "$bb" ]; then
		bridge_run "$bdir" "$log" "$total" "${cmd[@]}"
		rm -rf "$bdir"
	elif [ $show = 1 ]; then
		timeout -k 5 "$total" "${cmd[@]}" </dev/null 2>&1 | tee "$log" |
			while IFS= read -r line; do shown "${line%$'\r'}"; done
	else
		timeout -k 5 "$total" "${cmd[@]}" </dev/null >"$log" 2>&1 &
		# Debian's kernel alone hanging before /init ran (no scenario
		# or raidkm code yet): RKM-BOOT-HUNG ends the log
		boot_watch $! "$log" RKM-BOOTED "$boot_limit"
	fi
	rm -rf "$work"
}

# host_log_missing SCENARIO HOSTLOG: print the first "# host-log:" regex
# that no line of HOSTLOG matches (status 0), or nothing (status 1)
host_log_missing() {
	local re
	while IFS= read -r re; do
		grep -Eq -- "$re" "$2" 2>/dev/null || { printf '%s' "$re"; return 0; }
	done < <(sed -n 's/^# host-log: *//p' "$1")
	return 1
}

# verdict LOG NAME [SCENARIO]: print PASS/FAIL for one scenario from a
# console log (and, given SCENARIO, its host-log headers)
verdict() {
	local log=$1 name=$2 scen=${3:-} seg rc missing
	seg=$(sed -n "/RKM-BEGIN [0-9]*-$name timeout/,/RKM-END [0-9]*-$name rc=/p" "$log")
	rc=$(printf '%s\n' "$seg" | sed -n "s/.*RKM-END [0-9]*-$name rc=\([0-9]*\).*/\1/p" | tail -n 1)
	if [ -z "$seg" ]; then
		echo "FAIL $tag/$name: never started (guest died earlier)"
	elif [ -z "$rc" ]; then
		echo "FAIL $tag/$name: guest died or hung (see $log)"
	elif printf '%s\n' "$seg" | grep -Eq "$bad_kernel|RKM-KERNEL-BAD"; then
		echo "FAIL $tag/$name: kernel warning (see $log)"
		printf '%s\n' "$seg" | grep -E -m5 "$bad_kernel" | sed 's/^/    /'
	elif printf '%s\n' "$seg" | grep -q "RKM-TIMEOUT"; then
		echo "FAIL $tag/$name: timed out (see $log)"
	elif [ "$rc" != 0 ]; then
		echo "FAIL $tag/$name: exit status $rc (see $log)"
	elif [ -n "$scen" ] && missing=$(host_log_missing "$scen" "$log.host"); then
		echo "FAIL $tag/$name: no line of the host raidkmd's log matches /$missing/ (see $log.host)"
	else
		echo "PASS $tag/$name"
		return 0
	fi
	if [ $show = 0 ]; then
		printf '%s\n' "$seg" | grep -v '^\[' | tail -n 25 | sed 's/^/    | /'
		if [ -s "$log.host" ]; then
			echo "    host raidkmd (--bridge), last lines:"
			tail -n 15 "$log.host" | sed 's/^/    | /'
		fi
	fi
	return 1
}

# boot_once LOG SCENARIO...: boot; when the guest kernel crashes or hangs
# before /init reached RKM-BOOTED (before any scenario or raidkm code ran:
# Debian's kernel alone under TCG, e.g. 6.12's "Oops: int3" in its own
# text patching at 1 s, or 6.1 stopping at 5 s after "Loading
# compiled-in X.509 certificates"), say so and boot again, twice at most.
# A crash after RKM-BOOTED is the scenario's and fails it.
boot_once() {
	local log=$1 try why
	shift
	for try in 1 2 3; do
		boot "$log" "$@"
		boot_died "$log" RKM-BOOTED || return 0
		why="guest kernel crashed while booting"
		grep -q "RKM-BOOT-HUNG" "$log" && why="guest kernel hung while booting"
		grep -q "RKM-QEMU-DIED" "$log" && why="QEMU died while the guest booted"
		[ $try = 3 ] && return 0
		cp "$log" "$log.bootcrash$try"
		echo "RETRY $tag/$(basename "$1" .sh): $why, before any scenario ran (see $log.bootcrash$try)"
		grep -E -m3 "$bad_kernel|RKM-BOOT-HUNG|RKM-QEMU-DIED" "$log" | sed 's/^/    /'
	done
}

# run_one SCENARIO NAME LOG: its own boot(s), with its disks
run_one() {
	local s=$1 n=$2 log=$3 boots disks mib dir i p ok=0
	boots=$(header boots "$s"); boots=${boots:-1}
	[ "${share#*/}" -gt 1 ] && [ -n "$(header boots-shared "$s")" ] &&
		boots=$(header boots-shared "$s")
	nboots=$boots
	disks=$(sed -n 's/^# disks: *\([0-9]*\) *\([0-9]*\).*/\1/p' "$s" | head -n 1)
	mib=$(sed -n 's/^# disks: *\([0-9]*\) *\([0-9]*\).*/\2/p' "$s" | head -n 1)
	boot_args=()
	dir=""
	if [ -n "$disks" ]; then
		dir=$(mktemp -d)
		for i in $(seq 1 "$disks"); do
			truncate -s "${mib:-16}M" "$dir/disk$i.img"
			boot_args+=(-drive "file=$dir/disk$i.img,if=virtio,format=raw,cache=unsafe")
		done
	fi
	for p in $(seq 1 "$boots"); do
		boot_phase=$p
		if [ "$p" -lt "$boots" ]; then
			boot_once "$log.boot$p" "$s"
			if ! grep -q "RKM-PHASE-END" "$log.boot$p"; then
				echo "FAIL $tag/$n: boot $p of $boots did not end with crash_guest (see $log.boot$p)"
				grep -v '^\[' "$log.boot$p" | tail -n 25 | sed 's/^/    | /'
				ok=1
				break
			fi
			if grep -Eq "$bad_kernel" "$log.boot$p"; then
				echo "FAIL $tag/$n: kernel warning in boot $p (see $log.boot$p)"
				ok=1
				break
			fi
		else
			boot_once "$log" "$s"
			verdict "$log" "$n" "$s" || ok=1
		fi
	done
	[ -n "$dir" ] && rm -rf "$dir"
	boot_phase=1 boot_args=() nboots=1
	return $ok
}

status=0
if [ $one_boot = 1 ]; then
	log=$logdir/boot-$$.log
	boot_once "$log" "${scenarios[@]}"
	for s in "${scenarios[@]}"; do
		n=$(basename "$s" .sh)
		verdict "$log" "$n" || status=1
	done
else
	for s in "${scenarios[@]}"; do
		n=$(basename "$s" .sh)
		log=$logdir/$n.log
		start=$(date +%s)
		run_one "$s" "$n" "$log" || status=1
		[ $show = 1 ] || echo "    ($(($(date +%s) - start)) s, log $log)" >&2
	done
fi
# a warning during boot, before any scenario, fails the run as well
if sed -n '1,/RKM-BOOTED/p' "$log" | grep -Eq "$bad_kernel"; then
	echo "FAIL $tag/boot: kernel warning while booting (see $log)"
	status=1
fi
exit $status
