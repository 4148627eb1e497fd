# Shared by the guest benchmarks (bench-vm.sh, reshape-bench.sh): run a
# guest-side script in the QEMU guest with settings written into its copy,
# print its BENCH/RATIO lines under a header naming the host, and with
# --save keep them in bench/results/.
#
# guest_bench NAME GUEST_SCRIPT SAVE(0|1) [SED-EXPRESSION...]
#   NAME          the benchmark (header, bench/results/NAME-<date>.txt)
#   GUEST_SCRIPT  tools/bench/<...>-guest.sh
#   SED-EXPRESSION  settings for the guest's copy ("s/^ROUNDS=.*/ROUNDS=4/")
# Environment: KVER (the guest kernel), BENCH_IMAGE (guest image).
guest_bench() {
	local name=$1 guest=$2 save=$3 base rc=0 log out cpu f
	local cmd=${0#"$top"/}
	[ "$save" = 1 ] && cmd="$cmd --save"
	shift 3
	local logdir=$top/build/vm/bench sedargs=()
	for e in "$@"; do sedargs+=(-e "$e"); done
	mkdir -p "$logdir"
	base=$(basename "$guest")
	# the guest has no environment of ours: settings go into its copy
	sed "${sedargs[@]}" "$guest" >"$logdir/$base"
	"$top/tools/vm/run-scenario.sh" --logdir "$logdir" \
		${KVER:+--kernel "$KVER"} ${BENCH_IMAGE:+--image "$BENCH_IMAGE"} \
		"$logdir/$base" || rc=$?
	log=$logdir/${base%.sh}.log
	[ -f "$log" ] || { echo "$name: no log" >&2; return 1; }
	cpu=$(sed -n 's/^model name\s*: //p' /proc/cpuinfo | head -1)
	out=$( { echo "# $name $(date -u +%Y-%m-%dT%H:%MZ), host $cpu, $(nproc) CPUs, QEMU TCG guest, kernel ${KVER:-default}"
		 echo "# command: $cmd"
		 grep -E '^(BENCH|RATIO|MEDIAN-RATIO)' "$log"; } )
	echo "$out"
	if [ "$save" = 1 ] && [ $rc = 0 ]; then
		mkdir -p "$top/bench/results"
		f=$top/bench/results/$name-$(date -u +%Y%m%d-%H%M).txt
		echo "$out" >"$f"
		echo "saved $f"
	fi
	return $rc
}
