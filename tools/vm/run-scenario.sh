#!/bin/bash
# Boot Debian's 6.1 kernel in QEMU (TCG) with the raidkm guest image and run
# scenario scripts; report PASS/FAIL per scenario.
#
# usage: run-scenario.sh [options] SCENARIO.sh...
#   --one-boot     run all scenarios in one boot (default: one boot each)
#   --show         stream the guest console to stdout (demo, debugging)
#   --kvm          use KVM instead of TCG (nested KVM hangs on our CI hosts)
#   --mem MIB      guest memory (default: the largest "# mem:" header, or 1024)
#   --smp N        guest CPUs (default 2)
#   --image FILE   base initramfs (default build/vm/base.cpio)
#   --logdir DIR   console logs (default build/vm/logs)
#
# A scenario fails when it exits non-zero, runs past its "# timeout:",
# the guest dies, or the kernel prints WARNING:/BUG:/Oops/Call Trace.
#
# "# disks: N MIB" gives the guest N virtio disks (/dev/vda...) backed by
# files that outlive a boot; "# boots: B" runs the scenario in B boots in a
# row over the same disks (RKM_PHASE=1..B in the guest).  Every boot but
# the last must end with crash_guest (lib.sh), a power cut.
set -uo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
image=$top/build/vm/base.cpio
logdir=$top/build/vm/logs
kver=${KVER:-$(ls /lib/modules 2>/dev/null | grep -E '^6\.1\.[0-9]+-[0-9]+-amd64$' | sort -V | tail -n 1)}
one_boot=0 show=0 accel=tcg mem="" smp=2
scenarios=()

while [ $# -gt 0 ]; do
	case $1 in
	--one-boot) one_boot=1 ;;
	--show) show=1 ;;
	--kvm) accel=kvm ;;
	--mem) mem=$2; shift ;;
	--smp) smp=$2; shift ;;
	--image) image=$2; shift ;;
	--logdir) logdir=$2; shift ;;
	-h|--help) sed -n '2,15p' "$0"; exit 0 ;;
	-*) echo "run-scenario: unknown option $1" >&2; exit 2 ;;
	*) scenarios+=("$1") ;;
	esac
	shift
done

[ ${#scenarios[@]} -gt 0 ] || { echo "run-scenario: no scenario given" >&2; exit 2; }
[ -f "$image" ] || { echo "run-scenario: no guest image $image (run make vm-image)" >&2; exit 2; }
kernel=/boot/vmlinuz-$kver
[ -r "$kernel" ] || { echo "run-scenario: cannot read $kernel (install linux-image-amd64)" >&2; exit 2; }
mkdir -p "$logdir"

bad_kernel='^\[ *[0-9]+\.[0-9]+\].*(WARNING:|BUG:|Oops|Call Trace|general protection fault|Kernel panic|blocked for more than)'

header() { sed -n "s/^# $1: *\([0-9][0-9]*\).*/\1/p" "$2" | head -n 1; }

# boot LOG SCENARIO...: one guest running the given scenarios in order;
# $boot_args (extra qemu arguments) and $boot_phase apply to it
boot_args=() boot_phase=1
boot() {
	local log=$1; shift
	local work s i=0 t total=30 m=1024 hm
	work=$(mktemp -d)
	mkdir -p "$work/ov/scenarios"
	for s in "$@"; do
		cp "$s" "$work/ov/scenarios/$(printf '%02d' $i)-$(basename "$s")"
		t=$(header timeout "$s"); total=$((total + ${t:-120}))
		hm=$(header mem "$s"); [ -n "$hm" ] && [ "$hm" -gt "$m" ] && m=$hm
		i=$((i + 1))
	done
	[ -n "$mem" ] && m=$mem
	(cd "$work/ov" && find . | cpio -o -H newc --quiet) >"$work/ov.cpio"
	cat "$image" "$work/ov.cpio" >"$work/initrd"

	local acc=(-accel tcg -cpu max)
	[ $accel = kvm ] && acc=(-accel kvm -cpu host)
	local cmd=(qemu-system-x86_64 "${acc[@]}" -smp "$smp" -m "$m"
		-display none -no-reboot -monitor none -serial stdio
		-kernel "$kernel" -initrd "$work/initrd" "${boot_args[@]}"
		-append "console=ttyS0 printk.time=1 panic=-1 oops=panic rdinit=/init loglevel=7 mitigations=off tsc=reliable rkm.phase=$boot_phase")
	if [ $show = 1 ]; then
		timeout -k 5 "$total" "${cmd[@]}" </dev/null 2>&1 | tee "$log"
	else
		timeout -k 5 "$total" "${cmd[@]}" </dev/null >"$log" 2>&1
	fi
	rm -rf "$work"
}

# verdict LOG NAME: print PASS/FAIL for one scenario from a console log
verdict() {
	local log=$1 name=$2 seg rc
	seg=$(sed -n "/RKM-BEGIN [0-9]*-$name timeout/,/RKM-END [0-9]*-$name rc=/p" "$log")
	rc=$(printf '%s\n' "$seg" | sed -n "s/.*RKM-END [0-9]*-$name rc=\([0-9]*\).*/\1/p" | tail -n 1)
	if [ -z "$seg" ]; then
		echo "FAIL guest/$name: never started (guest died earlier)"
	elif [ -z "$rc" ]; then
		echo "FAIL guest/$name: guest died or hung (see $log)"
	elif printf '%s\n' "$seg" | grep -Eq "$bad_kernel|RKM-KERNEL-BAD"; then
		echo "FAIL guest/$name: kernel warning (see $log)"
		printf '%s\n' "$seg" | grep -E -m5 "$bad_kernel" | sed 's/^/    /'
	elif printf '%s\n' "$seg" | grep -q "RKM-TIMEOUT"; then
		echo "FAIL guest/$name: timed out (see $log)"
	elif [ "$rc" != 0 ]; then
		echo "FAIL guest/$name: exit status $rc (see $log)"
	else
		echo "PASS guest/$name"
		return 0
	fi
	if [ $show = 0 ]; then
		printf '%s\n' "$seg" | grep -v '^\[' | tail -n 25 | sed 's/^/    | /'
	fi
	return 1
}

# run_one SCENARIO NAME LOG: its own boot(s), with its disks
run_one() {
	local s=$1 n=$2 log=$3 boots disks mib dir i p ok=0
	boots=$(header boots "$s"); boots=${boots:-1}
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
			boot "$log.boot$p" "$s"
			if ! grep -q "RKM-PHASE-END" "$log.boot$p"; then
				echo "FAIL guest/$n: boot $p of $boots did not end with crash_guest (see $log.boot$p)"
				grep -v '^\[' "$log.boot$p" | tail -n 25 | sed 's/^/    | /'
				ok=1
				break
			fi
			if grep -Eq "$bad_kernel" "$log.boot$p"; then
				echo "FAIL guest/$n: kernel warning in boot $p (see $log.boot$p)"
				ok=1
				break
			fi
		else
			boot "$log" "$s"
			verdict "$log" "$n" || ok=1
		fi
	done
	[ -n "$dir" ] && rm -rf "$dir"
	boot_phase=1 boot_args=()
	return $ok
}

status=0
if [ $one_boot = 1 ]; then
	log=$logdir/boot-$$.log
	boot "$log" "${scenarios[@]}"
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
	echo "FAIL guest/boot: kernel warning while booting (see $log)"
	status=1
fi
exit $status
