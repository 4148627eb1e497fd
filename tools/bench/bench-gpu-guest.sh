#!/bin/bash
# make bench-gpu-guest: md raid6 4+2 against km 4+2 and 8+3 in one QEMU
# TCG guest, km coded by the guest's in-kernel codec, served by raidkmd
# on this host through the guest-RAM bridge (placement=daemon), and with
# the daemon attached but the array's placement auto (issue #30), same
# boot, same ramdisks (tools/bench/km-gpu-bench-guest.sh).  Besides
# writes, reads, rebuild and degraded reads it measures verified reads
# (km/read_verify correct, issue #29): 1 MiB sequential and 4 KiB random
# beside the same array's unverified ones, and sequential on disk-like
# (dm-delay) members.  Prints a header and the guest's
# BENCH/MEDIAN/RATIO lines (and its CHECK/COST/DATAPATH/MEMBER/VERIFY/
# PLACE-EST/PHASE-PLACE lines).
#
# usage: bench-gpu-guest.sh [--gpu] [--save DIR]
#   --gpu       on the GPU host: QEMU, kernel, image and raidkmd from the
#               bundle of "make gpu-guest" (tools/gpu-guest/env.sh), host
#               raidkmd --backend=cuda
#   --save DIR  also write the output to DIR/bench-gpu-guest-<date>.txt,
#               the console log and the host raidkmd's log beside it
# Environment: BENCH_ROUNDS (default 3; medians of the rounds),
# BENCH_MIB (ramdisk size, default 64), BENCH_CHUNK (every array's chunk
# in KiB, default 64), BENCH_SLOW_MS (the disk-like
# pass's dm-delay per member read, default 20; 0 skips it), BENCH_PASSES
# (which passes run, of "main disk verify": the rounds on ramdisks, the
# disk-like pass, the correctness pass; default all three), BENCH_SMP
# (the guest's vCPUs, default 2), BENCH_MAX_CPU
# (the share of a served configuration's jobs it may code in the guest,
# default 0.05), BENCH_DEADLINE_MS (the guest's
# deadline_ms; default 1000 with the cpu backend, the module's default
# otherwise), RKM_BRIDGE_BACKEND (the host raidkmd's backend: default
# cpu, cuda with --gpu), BENCH_IMAGE (guest image), BENCH_PROFILE=1
# (perf in the guest image, appended to it, and the profile pass: where
# the guest's CPUs spend a read, a rebuild and a degraded read, on
# ramdisks and on disk-like members; default
# passes then "profile"; BENCH_PCONFIGS: which configurations it
# profiles, of "r6 k42c k42s k83c k83s"), RKM_LOGDIR (console log, default
# build/vm/bench-gpu).
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
gpu=0 save=""
cmd="$0 $*"
while [ $# -gt 0 ]; do
	case $1 in
	--gpu) gpu=1 ;;
	--save) save=$2; shift ;;
	-h|--help) sed -n '2,37p' "$0"; exit 0 ;;
	*) echo "bench-gpu-guest: unknown argument $1" >&2; exit 2 ;;
	esac
	shift
done
[ $gpu = 1 ] && . "$top/tools/gpu-guest/env.sh"
backend=${RKM_BRIDGE_BACKEND:-cpu}
logdir=${RKM_LOGDIR:-$top/build/vm/bench-gpu}
mkdir -p "$logdir"
passes=${BENCH_PASSES:-main disk verify}
# the profile pass: perf and its libraries appended to the guest image
# (run-scenario.sh's RKM_IMAGE_EXTRA; the bundle carries them as
# perf.cpio.xz beside base.cpio.xz)
if [ "${BENCH_PROFILE:-0}" = 1 ]; then
	passes=${BENCH_PASSES:-profile}
	if [ $gpu = 1 ]; then
		ov=${RKM_IMAGE%/*}/perf.cpio.xz
		[ -f "$ov" ] || { echo "bench-gpu-guest: the bundle has no perf.cpio.xz (perf on the build machine)" >&2; exit 2; }
	else
		ov=$logdir/perf.cpio
		perf=$(command -v perf) || { echo "bench-gpu-guest: BENCH_PROFILE=1 needs perf (Debian's linux-perf)" >&2; exit 2; }
		"$top/tools/vm/mkimage.sh" --programs "$ov" "$perf" >/dev/null
	fi
	export RKM_IMAGE_EXTRA=$ov
fi
# the guest has no environment of ours: settings go into its copy
sed -e "s/^ROUNDS=.*/ROUNDS=${BENCH_ROUNDS:-3}/" \
    -e "s/^MIB=.*/MIB=${BENCH_MIB:-64}/" \
    -e "s/^CHUNK=[0-9]*/CHUNK=${BENCH_CHUNK:-64}/" \
    -e "s/^SLOW_MS=[0-9]*/SLOW_MS=${BENCH_SLOW_MS:-20}/" \
    -e "s/^DEADLINE_MS=.*/DEADLINE_MS=${BENCH_DEADLINE_MS:-}/" \
    -e "s/^MAX_CPU=[0-9.]*/MAX_CPU=${BENCH_MAX_CPU:-0.05}/" \
    -e "s/^PASSES=\"[a-z ]*\"/PASSES=\"$passes\"/" \
    -e "s/^PCONFIGS=\"[a-z0-9 ]*\"/PCONFIGS=\"${BENCH_PCONFIGS:-r6 k42c k42s k83c k83s}\"/" \
	"$top/tools/bench/km-gpu-bench-guest.sh" >"$logdir/km-gpu-bench-guest.sh"
log=$logdir/km-gpu-bench-guest.log
rm -f "$log" "$log.host"

start=$SECONDS when=$(date -u +%Y-%m-%dT%H:%MZ) stamp=$(date -u +%Y%m%d-%H%M)
rc=0
verdict=$("$top/tools/vm/run-scenario.sh" --logdir "$logdir" ${BENCH_IMAGE:+--image "$BENCH_IMAGE"} \
	${BENCH_SMP:+--smp "$BENCH_SMP"} \
	"$logdir/km-gpu-bench-guest.sh" 2>&1) || rc=$?
elapsed=$((SECONDS - start))
[ -f "$log" ] || { echo "$verdict"; echo "bench-gpu-guest: no log" >&2; exit 1; }

gpuname=none
command -v nvidia-smi >/dev/null 2>&1 &&
	gpuname=$(nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>&1 | head -n 1)
out=$( {
	echo "# bench-gpu-guest $when"
	echo "# host: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//'), $(nproc) cores, kernel $(uname -r)"
	echo "# gpu: $gpuname"
	echo "# guest: QEMU TCG, $(tr -d '\r' <"$log" | sed -n 's/^INFO guest kernel \([^,]*\),.*/\1/p' | head -n 1), host raidkmd --backend=$backend through the guest-RAM bridge"
	echo "# command: BENCH_ROUNDS=${BENCH_ROUNDS:-3} BENCH_MIB=${BENCH_MIB:-64}${BENCH_CHUNK:+ BENCH_CHUNK=$BENCH_CHUNK}${BENCH_MAX_CPU:+ BENCH_MAX_CPU=$BENCH_MAX_CPU}${BENCH_DEADLINE_MS:+ BENCH_DEADLINE_MS=$BENCH_DEADLINE_MS}${BENCH_SLOW_MS:+ BENCH_SLOW_MS=$BENCH_SLOW_MS}${BENCH_PASSES:+ BENCH_PASSES=\"$BENCH_PASSES\"}${BENCH_PROFILE:+ BENCH_PROFILE=$BENCH_PROFILE}${BENCH_SMP:+ BENCH_SMP=$BENCH_SMP}${BENCH_IMAGE:+ BENCH_IMAGE=$BENCH_IMAGE} RKM_BRIDGE_BACKEND=$backend $cmd"
	tr -d '\r' <"$log" | grep -E '^(INFO|CHECK|BENCH|COST|DATAPATH|MEMBER|MEDIAN|RATIO|VERIFY|PLACE-EST|PHASE-PLACE|PROFILE)'
	[ -f "$log.host" ] && grep -E 'info: (backend|cpu backend|cuda:|served)' "$log.host" | sed 's/^/# host /' || true
	echo "$verdict"
	echo "# elapsed ${elapsed} s (boot, all rounds, the correctness pass)"
} )
echo "$out"
if [ -n "$save" ]; then
	mkdir -p "$save"
	f=$save/bench-gpu-guest-$stamp
	echo "$out" >"$f.txt"
	cp "$log" "$f.console.log"
	[ -f "$log.host" ] && cp "$log.host" "$f.host.log"
	echo "saved $f.txt"
fi
exit $rc
