# Guest side of tools/bench/bench-gpu-guest.sh: md raid6 4+2 against km
# 4+2 and 8+3, each km geometry coded once by the in-kernel codec (the
# array's km/placement cpu), once served by raidkmd on the VM host through
# the guest-RAM bridge (CUDA on the GPU host; module placement=daemon:
# every job to the daemon) and once with the array's km/placement set to
# auto (each job where it is expected to finish first: issue #30), on the
# same brd ramdisks in one boot.  One raidkm-relay serves the whole run,
# and jobs past the result checks' fresh window (verify_fresh_jobs: every
# job of a newly attached daemon checked in full) are coded before any
# timed run, so every configuration is measured in the steady state that
# a daemon reaches once after it attaches.  Rounds interleave the
# configurations (odd rounds in order, even rounds backwards).  Each run
# measures 1 MiB sequential write and read,
# the same read with km/read_verify=correct (issue #29), 4 KiB random
# reads unverified and verified, 4 KiB random writes, 4 KiB write
# latency, a one-member rebuild and a read with m members failed.  Prints
# one BENCH line per configuration and round, MEDIAN [min, max] per
# metric and RATIO lines from the medians (served/in-kernel, auto against
# the better of the two, verified/unverified, km/raid6, ...).  Asserts
# nothing about speed; it checks only that a served configuration was
# served (jobs_offloaded rose, few jobs_cpu), that an in-kernel one was
# not, that an auto one ran auto (its split of jobs is printed, not
# judged) and that verified reads were verified (read_verify_reads rose,
# no mismatch), and ends with a correctness pass under fio --verify (never
# in the timed runs), verified reads included.  A disk-like pass (dm-delay
# on every member read) measures healthy, verified and degraded
# sequential reads where the members bound them.
# bridge: yes
# timeout: 2400
# mem: 2048
. /lib/raidkm/lib.sh

ROUNDS=3
MIB=64
CHUNK=64		# KiB, every array's chunk
SEQ=$((MIB * 3))	# MiB per sequential run: 3/4 of a 4+2 array
RW_IOS=4000		# 4 KiB random writes, depth 16 ...
RR_IOS=2000		# 4 KiB random reads (unverified, verified), depth 16 ...
LAT_IOS=2000		# 4 KiB writes at depth 1 (latency) ...
IOS_S=5			# ... or this many seconds, whichever comes first
VR_S=10			# a verified sequential read: at most this many seconds
VERIFY_MIB=32		# the correctness pass
DEADLINE_MS=		# deadline_ms (empty: see below)
USER_HZ=100		# /proc/stat's unit (x86)
CONFIGS="r6 k42c k83c k42s k83s k42n k42a k83a"
PASSES="main disk verify"	# main: the rounds on ramdisks; disk: the
		# disk-like pass; verify: the correctness pass; profile: where
		# the guest's CPUs spend a read, a degraded read and a rebuild
		# (perf in the guest image: bench-gpu-guest.sh's BENCH_PROFILE)
PCONFIGS="r6 k42c k42s k83c k83s"	# those the profile pass profiles
PROF_HZ=499		# its samples per second and vCPU (cpu-clock)
VCONFIGS="k42c k83c k42s k83s k42a k83a"	# those that also read verified
SLOW_MS=20		# disk-like pass: dm-delay of each member I/O (0: none); at
		# 4 ms the pass allowed 1 GB/s, above the guest's own copies
		# (2026-11-27 run): 20 ms makes the members the bound
MAX_CPU=0.05		# a served configuration codes at most this share in the guest
P=/sys/module/raidkm/parameters

ramdisks 11 $MIB
# brd allocates a page on its first write: every page now, so that the
# first configuration to touch a member is not the one that pays
for d in $(members 11); do dd if=/dev/zero of=$d bs=1M count=$MIB 2>/dev/null; done
sync
echo 3 >/proc/sys/vm/drop_caches
# the wide paths' jobs cover up to 1 MiB per chunk: an arena and a
# staging pool sized for them (as the bridge scenarios size the arena), so
# that no job is coded in the guest for want of staging
# the served configurations measure the daemon's path: every job to it
# (placement=auto, the default, would choose per job; see offload.rst);
# the auto and in-kernel ones set km/placement (auto, cpu) on their array
check modprobe raidkm arena_mb=256 stage_mb=64 placement=daemon
start_relay
grep -q '\[km\]' /proc/mdstat || fail "/proc/mdstat does not list km"
load_raid6
echo 2000000 > /proc/sys/dev/raid/speed_limit_min
echo 2000000 > /proc/sys/dev/raid/speed_limit_max
# the job deadline: DEADLINE_MS when given; else, as the bridge
# scenarios, 1 s where the host daemon's coding threads share a build
# machine's 2 cores with the emulated guest, the default on the GPU host.
# The result checks (verify_*) stay at their defaults: their cost is part
# of what offload costs the guest.
if [ -n "$DEADLINE_MS" ]; then
	check sh -c "echo $DEADLINE_MS >$P/deadline_ms"
elif [ "$RKM_BRIDGE" = cpu ]; then
	check sh -c "echo 1000 >$P/deadline_ms"
fi
echo "INFO guest kernel $(uname -r), $(nproc) vCPUs, $(awk '/MemTotal/ { print int($2 / 1024) }' /proc/meminfo) MiB," \
	"bridge backend ${RKM_BRIDGE:-none}; ramdisks 11 x $MIB MiB, chunk ${CHUNK}K," \
	"sequential runs $SEQ MiB (verified: at most $VR_S s), randwrite $RW_IOS x 4 KiB" \
	"(depth 16), randread $RR_IOS x 4 KiB (depth 16), latency $LAT_IOS x 4 KiB (depth 1)," \
	"each at most $IOS_S s, $ROUNDS rounds; read_verify $(cat $P/km_read_verify) (verified runs: correct);" \
	"deadline_ms $(cat $P/deadline_ms), verify_spot $(cat $P/verify_spot 2>/dev/null)," \
	"verify_fresh_jobs $(cat $P/verify_fresh_jobs 2>/dev/null), verify_ppm $(cat $P/verify_ppm)," \
	"arena_mb $(cat $P/arena_mb), stage_mb $(cat $P/stage_mb)"

verify_spot0=$(cat $P/verify_spot) verify_ppm0=$(cat $P/verify_ppm)

name() {
	case $1 in
	r6) echo raid6-4+2 ;;
	k42c) echo km-4+2-kernel ;;
	k42s) echo km-4+2-served ;;
	k42n) echo km-4+2-served-unchecked ;;
	k83c) echo km-8+3-kernel ;;
	k83s) echo km-8+3-served ;;
	k42a) echo km-4+2-auto ;;
	k83a) echo km-8+3-auto ;;
	esac
}

# geometry ID: sets level, k, m
geometry() {
	case $1 in
	r6) level=6 k=4 m=2 ;;
	k42?) level=km k=4 m=2 ;;
	k83?) level=km k=8 m=3 ;;
	esac
}

# cpu_ticks: busy guest CPU time so far (user nice system irq softirq),
# in USER_HZ ticks
cpu_ticks() {
	awk '$1 == "cpu" { print $2 + $3 + $4 + $7 + $8; exit }' /proc/stat
}

# per_gb TICKS BYTES: CPU seconds per GB (1e9 bytes) moved
per_gb() {
	awk -v t=$1 -v b=$2 -v hz=$USER_HZ 'BEGIN { if (b > 0) printf "%.2f", t / hz / (b / 1e9); else print 0 }'
}

# fio_run NAME ARGS...: one timed fio job on /dev/md0; sets f_mibs (MiB/s),
# f_iops, f_cpu (guest CPU s per GB moved), f_p50, f_p99 (write
# completion latency percentiles, us)
fio_run() {
	fname=$1
	shift
	t0=$(cpu_ticks)
	fio --filename=/dev/md0 --direct=1 --ioengine=libaio --output-format=terse \
		--name=$fname "$@" >/tmp/fio.out 2>&1 ||
		{ cat /tmp/fio.out; fail "fio $fname $*"; }
	t1=$(cpu_ticks)
	# terse v3: read io KiB, bw, iops in 6-8, write in 47-49, write clat
	# percentiles "P%=us" in 59-78
	set -- $(awk -F';' '/^3;/ {
		kib = $6 + $47; bw = $7 + $48; iops = $8 + $49
		for (i = 59; i <= 78; i++) {
			split($i, p, "%=")
			if (p[1] + 0 == 50) p50 = p[2]
			if (p[1] + 0 == 99) p99 = p[2]
		}
		printf "%.1f %d %d %d %d\n", bw / 1024, iops, kib * 1024, p50, p99
	}' /tmp/fio.out)
	[ $# = 5 ] || { cat /tmp/fio.out; fail "no terse result from fio $fname"; }
	f_mibs=$1 f_iops=$2 f_p50=$4 f_p99=$5
	f_cpu=$(per_gb $((t1 - t0)) $3)
	c_bytes=$((c_bytes + $3))
}

# fresh_window: code past the result checks' fresh window of the daemon
# attached at the start (verify_fresh_jobs jobs, each checked in full on
# the guest's CPU), untimed, on a km 4+2 array served by it
fresh_window() {
	local want=$(($(cat $P/verify_fresh_jobs) + 64)) off0=$(rkm_stat jobs_offloaded)
	check mdadm_km --create /dev/md0 --run --assume-clean --level=km \
		--layout=m2 --raid-devices=6 --chunk=64 $(members 6)
	while [ $(($(rkm_stat jobs_offloaded) - off0)) -lt $want ]; do
		fio --filename=/dev/md0 --direct=1 --ioengine=libaio --name=fresh --rw=randwrite \
			--bs=4k --iodepth=16 --size=16M --number_ios=500 >/dev/null 2>&1 ||
			fail "fresh window: fio randwrite"
	done
	check mdadm_km --stop /dev/md0
	echo "INFO fresh window: $(($(rkm_stat jobs_offloaded) - off0)) jobs served (verify_fresh_jobs $(cat $P/verify_fresh_jobs)) before the timed runs"
}

# relay_stop: the relay attached at the start stops, the module sees it go
relay_stop() {
	kill -TERM $relay
	wait $relay
	i=0
	while :; do
		case $(rkm_stat daemon_state) in idle|open) break ;; esac
		i=$((i + 1))
		[ $i -lt 100 ] || fail "daemon_state '$(rkm_stat daemon_state)' after the relay stopped"
		sleep 0.1
	done
}

# place_snap FILE: the jobs placement counted so far, per op and side
# (/sys/kernel/raidkm/placement_stats summed over the size classes): "OP
# CPU DAEMON" lines in op order
place_snap() {
	awk '!($1 in c) { op[++n] = $1 } { c[$1] += $4; d[$1] += $7 }
		END { for (i = 1; i <= n; i++) print op[i], c[op[i]], d[op[i]] }' \
		$RKM_SYS/placement_stats >$1
}

# place_split FILE [OP]: "op cpu/daemon" of each op (or OP) since FILE
place_split() {
	place_snap /tmp/place.now
	awk -v op="$2" 'NR == FNR { c[$1] = $2; d[$1] = $3; next }
		op == "" || $1 == op { printf "%s%s %d/%d", sep, $1, $2 - c[$1], $3 - d[$1]; sep = ", " }' \
		$1 /tmp/place.now
}

# place_daemon FILE OP: the jobs of OP placed on the daemon since FILE
place_daemon() {
	place_snap /tmp/place.now
	awk -v op=$2 'NR == FNR { d[$1] = $3; next } $1 == op { print $3 - d[$1] }' \
		$1 /tmp/place.now
}

# reasons_split FILE: the placement decisions since FILE, by side and
# reason (placement_reasons), those that changed
reasons_split() {
	awk 'NR == FNR { c[$1 " " $2] = $3; next }
		$3 - c[$1 " " $2] { printf "%s%s/%s %d", sep, $1, $2, $3 - c[$1 " " $2]; sep = ", " }' \
		$1 $RKM_SYS/placement_reasons
}

# phase_start ID / phase_line ID PHASE: an auto configuration's jobs and
# decisions in one phase alone ("PHASE-PLACE" lines: which side coded
# the rebuild's or the degraded read's jobs, and why)
phase_start() {
	case $1 in *a) ;; *) return 0 ;; esac
	place_snap /tmp/place.p
	cp $RKM_SYS/placement_reasons /tmp/reasons.p
}
phase_line() {
	case $1 in *a) ;; *) return 0 ;; esac
	echo "PHASE-PLACE $(name $1) $2: cpu/daemon by op: $(place_split /tmp/place.p); decisions: $(reasons_split /tmp/reasons.p)"
}

# place_estimates ID: the placement's estimates now (placement_stats)
# of every op and size class that has coded a job: the CPU's ps per
# byte, the daemon's ns per job and ps per byte (0: not measured)
place_estimates() {
	awk '$4 + $7 > 0 { printf "%s%s/%s cpu_ps=%s daemon_ns=%s daemon_ps=%s daemon_qps=%s", sep, $1, $2, $11, $13, $15, $17; sep = "; " }
		END { print "" }' $RKM_SYS/placement_stats | sed "s|^|PLACE-EST $(name $1): |"
}

# counters_start / counters_check ID: a served configuration was served
# (jobs_offloaded rose, the daemon is still attached, the fraction of jobs
# coded on the CPU is small); an in-kernel one was not; an auto one says
# how its jobs were split (per op, cpu/daemon, and why), asserting only
# that the daemon stayed attached
counters_start() {
	place_snap /tmp/place.0
	cp $RKM_SYS/placement_reasons /tmp/reasons.0
	c_off=$(rkm_stat jobs_offloaded) c_cpu=$(rkm_stat jobs_cpu)
	c_miss=$(rkm_stat deadline_misses) c_sfb=$(rkm_stat stage_fallbacks)
	c_afb=$(($(rkm_stat arena_fallbacks) + $(rkm_stat arena_run_fallbacks)))
	c_bytes=0 c_ticks=$(cpu_ticks)
	c_copy=$(ns_stat stage_copy_ns)
	c_chk=$(($(ns_stat verify_spot_ns) + $(ns_stat verify_full_ns)))
}

# ns_stat NAME: a nanosecond counter of /sys/kernel/raidkm (0 if absent)
ns_stat() {
	cat $RKM_SYS/$1 2>/dev/null || echo 0
}

# cost_line ID: what the trust boundary's output copy (stage_copy_ns)
# and the result checks (verify_*_ns, which include the copy of the
# checked windows) cost the guest in this configuration's run: CPU
# seconds per GB that fio moved, and their share of the guest's busy CPU
# time over the same run (the reference)
cost_line() {
	cid=$1
	copy=$(($(ns_stat stage_copy_ns) - c_copy))
	chk=$(($(ns_stat verify_spot_ns) + $(ns_stat verify_full_ns) - c_chk))
	busy=$(($(cpu_ticks) - c_ticks))
	set -- $(awk -v cp=$copy -v ck=$chk -v b=$c_bytes -v t=$busy -v hz=$USER_HZ 'BEGIN {
		gb = b / 1e9; s = t / hz
		printf "%.3f %.3f %.1f %.1f\n", gb ? cp / 1e9 / gb : 0, gb ? ck / 1e9 / gb : 0,
			s ? 100 * cp / 1e9 / s : 0, s ? 100 * ck / 1e9 / s : 0 }')
	echo "COST round $round $(name $cid) stage_copy_cpu_s_per_GB=$1 result_checks_cpu_s_per_GB=$2 stage_copy_share_of_guest_cpu_pct=$3 result_checks_share_pct=$4"
	eval "${cid}_all_cpy=\"\${${cid}_all_cpy} $1\""
	eval "${cid}_all_chk=\"\${${cid}_all_chk} $2\""
	eval "${cid}_all_cpyp=\"\${${cid}_all_cpyp} $3\""
}
counters_check() {
	off=$(($(rkm_stat jobs_offloaded) - c_off))
	cpu=$(($(rkm_stat jobs_cpu) - c_cpu))
	miss=$(($(rkm_stat deadline_misses) - c_miss))
	st=$(rkm_stat daemon_state)
	frac=$(awk -v o=$off -v c=$cpu 'BEGIN { if (o + c) printf "%.4f", c / (o + c); else print 0 }')
	case $1 in
	r6) ;;
	*s|*n)
		echo "CHECK $(name $1) served: jobs_offloaded +$off, jobs_cpu +$cpu (cpu fraction $frac, $(($(rkm_stat stage_fallbacks) - c_sfb)) for want of staging, arena misses +$(($(rkm_stat arena_fallbacks) + $(rkm_stat arena_run_fallbacks) - c_afb))), deadline misses $miss, daemon $st/$(rkm_stat daemon_backend)"
		[ $off -gt 0 ] || fail "$(name $1): no job offloaded"
		[ "$st" = running ] || fail "$(name $1): daemon $st at the end"
		awk -v f=$frac -v x=$MAX_CPU 'BEGIN { exit !(f <= x) }' ||
			fail "$(name $1): $frac of the jobs were coded in the guest"
		;;
	*a)
		share=$(awk -v o=$off -v c=$cpu 'BEGIN { if (o + c) printf "%.4f", o / (o + c); else print 0 }')
		echo "CHECK $(name $1) auto: jobs_offloaded +$off, jobs_cpu +$cpu (offloaded share $share; cpu/daemon by op: $(place_split /tmp/place.0); decisions: $(reasons_split /tmp/reasons.0)), deadline misses $miss, daemon $st/$(rkm_stat daemon_backend)"
		[ "$st" = running ] || fail "$(name $1): daemon $st at the end"
		place_estimates $1
		;;
	*c)
		echo "CHECK $(name $1) in-kernel: jobs_cpu +$cpu, jobs_offloaded +$off, daemon $st, km/placement cpu"
		[ $off = 0 ] || fail "$(name $1): $off jobs offloaded with km/placement cpu"
		;;
	esac
}

# datapath_start / datapath_line ID: what km's degraded read moved
# (wide_read.c): the share of the bytes delivered by wide reads, the bytes
# the guest copied per byte delivered (member reads into the survivors'
# buffers, the staging copy of decoded chunks, the copy into the reader's
# pages; a healthy read copies each byte once, from the ramdisk), the
# average member read, and the decode jobs' average length per chunk
kmstat() { cat /sys/block/md0/md/km/$1 2>/dev/null || echo 0; }
datapath_start() {
	d_wb=$(kmstat wide_read_bytes) d_mb=$(kmstat wide_member_read_bytes)
	d_mr=$(kmstat wide_member_reads) d_rows=$(kmstat wide_read_rows)
	d_wr=$(kmstat wide_reads) d_cp=$(ns_stat stage_copy_bytes)
}
datapath_line() {
	[ $level = km ] || return 0
	wb=$(($(kmstat wide_read_bytes) - d_wb)) mb=$(($(kmstat wide_member_read_bytes) - d_mb))
	mr=$(($(kmstat wide_member_reads) - d_mr)) rows=$(($(kmstat wide_read_rows) - d_rows))
	wr=$(($(kmstat wide_reads) - d_wr)) cp=$(($(ns_stat stage_copy_bytes) - d_cp))
	awk -v wb=$wb -v mb=$mb -v mr=$mr -v rows=$rows -v wr=$wr -v cp=$cp \
	    -v all=$((SEQ * 1048576)) -v r=$round -v n="$(name $1)" 'BEGIN {
		printf "DATAPATH round %d %s degraded_seqread wide_share=%.2f copies_per_byte=%.2f member_read_KiB=%.0f decode_KiB_per_chunk=%.0f\n",
			r, n, wb / all, wb ? (mb + cp + wb) / wb : 0,
			mr ? mb / mr / 1024 : 0, wr ? rows * 4 / wr : 0 }'
}

# create ID: /dev/md0 of configuration ID over clean member heads
create() {
	geometry $1
	n=$((k + m))
	# k42n: the kernel's checks of the daemon's results off, to measure
	# what they cost; every other configuration runs with the defaults
	if [ $1 = k42n ]; then
		echo 0 >$P/verify_spot; echo 0 >$P/verify_ppm
	else
		echo $verify_spot0 >$P/verify_spot; echo $verify_ppm0 >$P/verify_ppm
	fi
	for d in $(members $n); do dd if=/dev/zero of=$d bs=1M count=1 2>/dev/null; done
	if [ $level = km ]; then
		check mdadm_km --create /dev/md0 --run --assume-clean --level=km \
			--layout=m$m --raid-devices=$n --chunk=$CHUNK $(members $n)
	else
		check mdadm_km --create /dev/md0 --run --assume-clean --level=6 \
			--raid-devices=$n --chunk=$CHUNK $(members $n)
	fi
	# auto: this array's jobs placed by cost; in-kernel: all on the
	# guest's CPU; the module's placement (daemon) left to the others
	case $1 in
	*a) km_placement auto ;;
	*c) km_placement cpu ;;
	esac
}

# km_placement MODE: /dev/md0's km/placement
km_placement() {
	echo $1 >/sys/block/md0/md/km/placement || fail "km/placement $1 refused"
	[ "$(kmstat placement)" = $1 ] || fail "km/placement reads $(kmstat placement), not $1"
}

# verified ID: configuration ID also reads with read_verify
verified() {
	case " $VCONFIGS " in *" $1 "*) return 0 ;; esac
	return 1
}

# read_verify MODE: km/read_verify of /dev/md0
read_verify() {
	echo $1 >/sys/block/md0/md/km/read_verify || fail "km/read_verify $1 refused"
	[ "$(kmstat read_verify)" = $1 ] || fail "km/read_verify reads $(kmstat read_verify), not $1"
}

# vr_start / vr_check ID WHAT: the verified reads of configuration ID
# since vr_start (WHAT: which runs) were verified: read_verify_reads
# rose, nothing inconsistent found (every range read was written whole
# by this array, so parity matches), at most a tenth of the reads served
# unverified, and a served configuration's check jobs went to the daemon.
# vr_start also keeps the array's read_verify (its default) in vr_mode0.
vr_start() {
	vr_mode0=$(kmstat read_verify)
	vr_reads=$(kmstat read_verify_reads) vr_mis=$(kmstat read_verify_mismatches)
	vr_fail=$(kmstat read_verify_failed) vr_unv=$(kmstat read_verify_unverified)
	place_snap /tmp/place.v
}
vr_check() {
	vr_r=$(($(kmstat read_verify_reads) - vr_reads))
	vr_m=$(($(kmstat read_verify_mismatches) - vr_mis))
	vr_f=$(($(kmstat read_verify_failed) - vr_fail))
	vr_u=$(($(kmstat read_verify_unverified) - vr_unv))
	vr_d=$(place_daemon /tmp/place.v check)
	echo "CHECK $(name $1) verified reads: read_verify_reads +$vr_r ($2), mismatches +$vr_m, failed +$vr_f, unverified +$vr_u; check jobs cpu/daemon $(place_split /tmp/place.v check | sed 's/^check //')"
	[ $vr_r -gt 0 ] || fail "$(name $1): read_verify_reads did not rise: no read verified"
	[ $((vr_m + vr_f)) = 0 ] || fail "$(name $1): $vr_m verified reads found a mismatch, $vr_f failed"
	[ $((vr_u * 10)) -le $((vr_r + vr_u)) ] || fail "$(name $1): $vr_u of $((vr_r + vr_u)) reads served unverified"
	case $1 in
	*s) [ "${vr_d:-0}" -gt 0 ] || fail "$(name $1): no check job went to the daemon" ;;
	esac
}

# metrics ID: those configuration ID measures (VCONFIGS: the verified
# reads too)
metrics() {
	if verified $1; then
		echo sw sr svr rr rvr rw dr reb p50 p99 csw csr csvr crr crvr crw cdr creb
	else
		echo sw sr rr rw dr reb p50 p99 csw csr crr crw cdr creb
	fi
}
key() {
	case $1 in
	sw) echo seqwrite_1M_MiBs ;;
	sr) echo seqread_1M_MiBs ;;
	svr) echo seqread_verified_1M_MiBs ;;
	rr) echo randread_4k_iops ;;
	rvr) echo randread_verified_4k_iops ;;
	rw) echo randwrite_4k_iops ;;
	dr) echo degraded_seqread_1M_MiBs ;;
	reb) echo rebuild_1_member_s ;;
	p50) echo lat_4k_write_p50_us ;;
	p99) echo lat_4k_write_p99_us ;;
	csw) echo cpu_s_per_GB_seqwrite ;;
	csr) echo cpu_s_per_GB_seqread ;;
	csvr) echo cpu_s_per_GB_seqread_verified ;;
	crr) echo cpu_s_per_GB_randread_4k ;;
	crvr) echo cpu_s_per_GB_randread_verified_4k ;;
	crw) echo cpu_s_per_GB_randwrite_4k ;;
	cdr) echo cpu_s_per_GB_degraded_seqread ;;
	creb) echo cpu_s_per_GB_rebuild ;;
	esac
}

run_one() {	# run_one ID: one configuration, one round
	id=$1
	create $id
	counters_start
	fio_run sw --rw=write --bs=1M --iodepth=8 --size=${SEQ}M
	sw=$f_mibs csw=$f_cpu
	fio_run sr --rw=read --bs=1M --iodepth=8 --size=${SEQ}M
	sr=$f_mibs csr=$f_cpu
	# verified reads (read_verify correct) beside the unverified ones, of
	# what sw wrote (whole stripes: parity matches); read_verify back to
	# the array's default after each
	if verified $id; then
		vr_start
		read_verify correct
		fio_run svr --rw=read --bs=1M --iodepth=8 --size=${SEQ}M --runtime=$VR_S
		svr=$f_mibs csvr=$f_cpu
		read_verify $vr_mode0
		vr_seq=$(($(kmstat read_verify_reads) - vr_reads))
	fi
	fio_run rr --rw=randread --bs=4k --iodepth=16 --size=${SEQ}M --number_ios=$RR_IOS --runtime=$IOS_S
	rr=$f_iops crr=$f_cpu
	if verified $id; then
		read_verify correct
		fio_run rvr --rw=randread --bs=4k --iodepth=16 --size=${SEQ}M --number_ios=$RR_IOS --runtime=$IOS_S
		rvr=$f_iops crvr=$f_cpu
		read_verify $vr_mode0
		vr_check $id "1 MiB sequential $vr_seq, 4 KiB random $(($(kmstat read_verify_reads) - vr_reads - vr_seq))"
	fi
	fio_run rw --rw=randwrite --bs=4k --iodepth=16 --size=${SEQ}M --number_ios=$RW_IOS --runtime=$IOS_S
	rw=$f_iops crw=$f_cpu
	fio_run lat --rw=randwrite --bs=4k --iodepth=1 --size=${SEQ}M --number_ios=$LAT_IOS --runtime=$IOS_S
	p50=$f_p50 p99=$f_p99
	# rebuild of a single member: fail, remove, zero, re-add
	check mdadm_km /dev/md0 --fail /dev/ram1
	check mdadm_km /dev/md0 --remove /dev/ram1
	dd if=/dev/zero of=/dev/ram1 bs=1M count=1 2>/dev/null
	phase_start $id
	t0=$(cpu_ticks)
	check mdadm_km /dev/md0 --add /dev/ram1
	sleep 0.2
	wait_sync md0
	t1=$(cpu_ticks)
	phase_line $id rebuild
	reb=$(recovery_s md0)
	creb=$(per_gb $((t1 - t0)) $((MIB * 1048576)))
	# degraded read with m members failed
	check mdadm_km /dev/md0 --fail $(members $m 1)
	datapath_start
	phase_start $id
	fio_run dr --rw=read --bs=1M --iodepth=8 --size=${SEQ}M
	dr=$f_mibs cdr=$f_cpu
	phase_line $id degraded_seqread
	datapath_line $id
	check mdadm_km --stop /dev/md0
	counters_check $id
	case $id in *s|*n|*a) cost_line $id ;; esac
	line="" nm=$(name $id)
	for v in $(metrics $id); do
		eval "val=\$$v"
		kv=$(key $v)
		line="$line $kv=$val"
		echo "$id $v $nm $kv $val" >>/tmp/bench.vals
	done
	echo "BENCH round $round $nm$line"
}

# stats LIST: "median [min, max]"
stats() {
	echo "$@" | tr ' ' '\n' | grep . | sort -g | awk '{ a[NR] = $1 }
		END { med = (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2
		      printf "%g [%g, %g]\n", med, a[1], a[NR] }'
}
# ratio A B: A / B
ratio() { awk -v a=$1 -v b=$2 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "n/a" }'; }
# med ID METRIC; rng ID METRIC: "min max" of its rounds
med() { eval "echo \$${1}_med_$2"; }
rng() { eval "echo \$${1}_min_$2 \$${1}_max_$2"; }

# pass NAME: NAME is one of PASSES
pass() {
	case " $PASSES " in *" $1 "*) return 0 ;; esac
	return 1
}

start=$(cut -d' ' -f1 /proc/uptime)
fresh_window

# the rounds on ramdisks
if pass main; then
	# warm-up, untimed: every km configuration encodes, updates, checks
	# (verified reads) and decodes once, so that no first round pays for a
	# backend's first use of a geometry (kernel builds, coefficient uploads,
	# codec choices); the auto configurations share the served ones' daemon
	for id in k42s k83s k42c k83c; do
		create $id
		fio --filename=/dev/md0 --direct=1 --ioengine=libaio --name=warm --rw=write \
			--bs=1M --iodepth=8 --size=16M >/dev/null 2>&1 || fail "warm-up write"
		fio --filename=/dev/md0 --direct=1 --ioengine=libaio --name=warm --rw=randwrite \
			--bs=4k --iodepth=8 --size=16M --number_ios=500 >/dev/null 2>&1 || fail "warm-up randwrite"
		vr0=$(kmstat read_verify)
		read_verify correct
		fio --filename=/dev/md0 --direct=1 --ioengine=libaio --name=warm --rw=read \
			--bs=1M --iodepth=8 --size=16M >/dev/null 2>&1 || fail "warm-up verified read"
		fio --filename=/dev/md0 --direct=1 --ioengine=libaio --name=warm --rw=randread \
			--bs=4k --iodepth=8 --size=16M --number_ios=500 >/dev/null 2>&1 || fail "warm-up verified randread"
		read_verify $vr0
		check mdadm_km /dev/md0 --fail $(members $m 1)
		fio --filename=/dev/md0 --direct=1 --ioengine=libaio --name=warm --rw=read \
			--bs=1M --iodepth=8 --size=16M >/dev/null 2>&1 || fail "warm-up read"
		check mdadm_km --stop /dev/md0
	done

	start=$(cut -d' ' -f1 /proc/uptime)
	rm -f /tmp/bench.vals	# "ID METRIC NAME KEY VALUE" of every run
	round=1
	while [ $round -le $ROUNDS ]; do
		order=$CONFIGS
		if [ $((round % 2)) = 0 ]; then
			order=""
			for id in $CONFIGS; do order="$id $order"; done
		fi
		for id in $order; do
			run_one $id
		done
		echo "INFO round $round done at $(awk -v s=$start '{ printf "%.0f", $1 - s }' /proc/uptime) s"
		round=$((round + 1))
	done

	# the MEDIAN lines of every configuration and metric in one awk (forks
	# are slow in the emulated guest), in the order of the first round;
	# ID_med_METRIC for the RATIO lines
	awk '{ k = $1 " " $2 " " $3 " " $4; if (!(k in n)) ord[++no] = k; x[k, ++n[k]] = $5 }
		END { for (i = 1; i <= no; i++) {
			k = ord[i]; c = n[k]
			for (a = 1; a <= c; a++) s[a] = x[k, a] + 0
			for (a = 2; a <= c; a++) {
				t = s[a]
				for (b = a - 1; b >= 1 && s[b] > t; b--) s[b + 1] = s[b]
				s[b + 1] = t
			}
			med = (c % 2) ? s[(c + 1) / 2] : (s[c / 2] + s[c / 2 + 1]) / 2
			split(k, f, " ")
			printf "%s_med_%s=%g\n", f[1], f[2], med >"/tmp/bench.med"
			printf "%s_min_%s=%g\n%s_max_%s=%g\n", f[1], f[2], s[1], f[1], f[2], s[c] >"/tmp/bench.med"
			printf "MEDIAN %s %s %g [%g, %g]\n", f[3], f[4], med, s[1], s[c]
		} }' /tmp/bench.vals
	. /tmp/bench.med

	echo "RATIO from the medians of $ROUNDS rounds: A/B of MiB/s, iops, rebuild_speed (B's time / A's): > 1 = A faster; of latency, cpu_s_per_GB: < 1 = A lower"
	for g in 42 83; do
		c=k${g}c s=k${g}s
		line=""
		for v in sw sr rw dr; do line="$line $(key $v | sed -E 's/_(MiBs|iops)$//')=$(ratio $(med $s $v) $(med $c $v))"; done
		line="$line rebuild_speed=$(ratio $(med $c reb) $(med $s reb))"
		line="$line lat_4k_write_p50=$(ratio $(med $s p50) $(med $c p50)) lat_4k_write_p99=$(ratio $(med $s p99) $(med $c p99))"
		for v in csw csr crw cdr creb; do line="$line $(key $v)=$(ratio $(med $s $v) $(med $c $v))"; done
		echo "RATIO served/in-kernel $(name $s | sed 's/-served//'):$line"
	done
	line=""
	for v in sw sr rw dr; do line="$line $(key $v | sed -E 's/_(MiBs|iops)$//')=$(ratio $(med k42s $v) $(med k42n $v))"; done
	line="$line rebuild_speed=$(ratio $(med k42n reb) $(med k42s reb))"
	for v in csw csr crw cdr creb; do line="$line $(key $v)=$(ratio $(med k42s $v) $(med k42n $v))"; done
	echo "RATIO result checks (default verify_spot=$verify_spot0 verify_ppm=$verify_ppm0 against both 0) km-4+2 served/served-unchecked:$line"
	for id in k42c k42s k83c k83s; do
		line=""
		for v in sw sr rw dr; do line="$line $(key $v | sed -E 's/_(MiBs|iops)$//')=$(ratio $(med $id $v) $(med r6 $v))"; done
		echo "RATIO km/raid6 $(name $id)/raid6-4+2:$line rebuild_speed=$(ratio $(med r6 reb) $(med $id reb))"
	done
	# auto against the better of served and in-kernel, per metric (issue #30:
	# at least 0.95 of it; of latency at most 1 / 0.95): A / max(B, C) of
	# MiB/s and iops, rebuild_speed min(B, C) / A of the rebuild times, A /
	# min(B, C) of latency; the goal line names the metrics that miss it,
	# which side was the better there and whether auto's median lies in
	# that side's range of rounds or that side's median in auto's ("within
	# the rounds' range": the rounds cannot tell them apart) or not
	# vs_best HOW A B C: "ratio met side" of A against the better of B
	# (served) and C (in-kernel); HOW: hi (higher is better), time (rebuild
	# time: the speed ratio), lat (latency)
	vs_best() {
		awk -v how=$1 -v a=$2 -v b=$3 -v c=$4 'BEGIN {
			if (how == "hi") { best = b >= c ? b : c; side = b >= c ? "served" : "in-kernel"; r = best > 0 ? a / best : -1 }
			else { best = b <= c ? b : c; side = b <= c ? "served" : "in-kernel"
			       if (how == "time") r = a > 0 ? best / a : -1; else r = best > 0 ? a / best : -1 }
			if (r < 0) { print "n/a 0", side; exit }
			met = how == "lat" ? r <= 1 / 0.95 : r >= 0.95
			printf "%.2f %d %s\n", r, met, side }'
	}
	# overlap A B: A's median in B's range of rounds, or B's in A's
	overlap() {
		awk -v am=$(med $1 $3) -v bm=$(med $2 $3) -v ar="$(rng $1 $3)" -v br="$(rng $2 $3)" 'BEGIN {
			split(ar, a, " "); split(br, b, " ")
			exit !((am >= b[1] && am <= b[2]) || (bm >= a[1] && bm <= a[2])) }'
	}
	for g in 42 83; do
		a=k${g}a
		line="" miss="" nmet=0 nall=0
		for v in sw sr svr rr rvr rw dr reb p50 p99; do
			case $v in reb) how=time kv=rebuild_speed ;; p50|p99) how=lat kv=$(key $v) ;; *) how=hi kv=$(key $v) ;; esac
			set -- $(vs_best $how $(med $a $v) $(med k${g}s $v) $(med k${g}c $v))
			line="$line $kv=$1"
			nall=$((nall + 1))
			if [ $2 = 1 ]; then
				nmet=$((nmet + 1))
			else
				case $3 in served) b=k${g}s ;; *) b=k${g}c ;; esac
				if overlap $a $b $v; then
					miss="$miss $kv ($3 better, within the rounds' range)"
				else
					miss="$miss $kv ($3 better, outside the rounds' range)"
				fi
			fi
		done
		echo "RATIO auto/best $(name $a | sed 's/-auto//'):$line"
		echo "RATIO auto/best $(name $a | sed 's/-auto//') goal (>= 0.95; latency <= 1/0.95): $nmet of $nall met${miss:+; missed:$miss}"
	done
	# verified reads (read_verify correct) against the same array's
	# unverified reads of the same round (issue #29)
	for id in $VCONFIGS; do
		echo "RATIO verified/unverified $(name $id): seqread_1M=$(ratio $(med $id svr) $(med $id sr)) randread_4k=$(ratio $(med $id rvr) $(med $id rr))" \
			"cpu_s_per_GB_seqread=$(ratio $(med $id csvr) $(med $id csr)) cpu_s_per_GB_randread_4k=$(ratio $(med $id crvr) $(med $id crr))"
	done
	# against the bound the copies set on ramdisks: a healthy read copies
	# each byte once (ramdisk to the reader's pages); a verified 1 MiB read
	# (whole chunk stripes) copies c/k + 1, c chunks read per k delivered
	# (k + 2 in correct mode, all k + m when m <= 2) and then the fill
	line=""
	for id in $VCONFIGS; do
		geometry $id
		c=$((m >= 2 ? k + 2 : k + m))
		line="$line $(name $id)=$(awk -v c=$c -v k=$k -v r=$(ratio $(med $id svr) $(med $id sr)) 'BEGIN {
			b = 1 / (c / k + 1)
			if (r == "n/a") printf "bound %.2f, n/a", b
			else printf "%.2f/%.2f=%.2f", r, b, r / b }')"
	done
	echo "RATIO verified/unverified seqread_1M against its copy bound (measured/bound=share; copies per byte: verified c/k + 1, healthy 1):$line"
	for id in k42s k83s k42n k42a k83a; do
		eval "a=\$(stats \$${id}_all_cpy) b=\$(stats \$${id}_all_chk) c=\$(stats \$${id}_all_cpyp)"
		echo "MEDIAN-COST $(name $id) stage_copy_cpu_s_per_GB $a result_checks_cpu_s_per_GB $b stage_copy_share_of_guest_cpu_pct $c"
	done
	line=""
	for id in $CONFIGS; do line="$line $(name $id)=$(ratio $(med $id dr) $(med $id sr))"; done
	echo "RATIO degraded/healthy seqread_1M (m members failed, own healthy read):$line"
	line=""
	for id in k42c k42s k83c k83s; do line="$line $(name $id)=$(ratio $(med r6 reb) $(med $id reb))"; done
	echo "RATIO rebuild speed vs raid6-4+2 (one member, same member size):$line"
fi

# Disk-like members: every member read delayed SLOW_MS by dm-delay over the
# same ramdisks, so that the members, not the guest's memory copies, bound
# a read (as disks do): healthy, verified (km: read_verify correct; issue
# #29 asks 0.8 of the healthy read, served) and degraded (m failed) 1 MiB
# sequential reads of raid6 4+2 and km 4+2 and 8+3 in-kernel and served,
# interleaved rounds, with the average size of the reads the members
# received.  The members are zeroed first: zero data has zero parity, so
# the verified reads find what they would on an array written whole.
# mstat_start / mstat_kib: the average read the dm members received since
# (sectors read / reads completed, /sys/block/dm-*/stat), KiB
mstat_sum() {
	cat /sys/block/dm-*/stat | awk '{ r += $1; s += $3 } END { print r, s }'
}
mstat_start() { set -- $(mstat_sum); m_r=$1 m_s=$2; }
mstat_kib() {
	set -- $(mstat_sum)
	awk -v r=$(($1 - m_r)) -v s=$(($2 - m_s)) 'BEGIN { if (r) printf "%.0f", s / 2 / r; else print 0 }'
}

# slow_setup / slow_teardown: dm-delay devices slow0..slow10 over the
# zeroed ramdisks (SLOW_MS per member read), and smib, the MiB a read
# reads; slow_create ID: /dev/md0 of
# configuration ID over the first of them (sets $slow, its members)
slow_setup() {
	check modprobe dm-delay
	for d in $(members 11); do dd if=/dev/zero of=$d bs=1M count=$MIB 2>/dev/null; done
	sync
	i=0
	while [ $i -lt 11 ]; do
		# reads delayed, writes not (disk reads bound a degraded read;
		# undelayed writes keep mdadm's superblock updates simple)
		echo "0 $((MIB * 2048)) delay /dev/ram$i 0 $SLOW_MS /dev/ram$i 0 0" |
			dmsetup create --noudevsync slow$i ||
			fail "dm-delay over /dev/ram$i"
		# no udev here: the node is ours to make
		dmsetup mknodes slow$i
		i=$((i + 1))
	done
	# 64 MiB a read, less where the arrays are smaller (SEQ: 3/4 of 4+2)
	smib=64
	[ $SEQ -lt $smib ] && smib=$SEQ
}
slow_teardown() {
	i=0
	while [ $i -lt 11 ]; do dmsetup remove --noudevsync slow$i; i=$((i + 1)); done
}
slow_create() {
	geometry $1
	n=$((k + m))
	slow=""
	i=0
	while [ $i -lt $n ]; do slow="$slow /dev/mapper/slow$i"; i=$((i + 1)); done
	echo $verify_spot0 >$P/verify_spot; echo $verify_ppm0 >$P/verify_ppm
	for d in $slow; do
		dd if=/dev/zero of=$d bs=1M count=1 oflag=direct 2>/dev/null
	done
	check mdadm_km --create /dev/md0 --run --assume-clean --level=$level \
		$([ $level = km ] && echo --layout=m$m) --raid-devices=$n --chunk=$CHUNK $slow
	case $1 in *c) km_placement cpu ;; esac
}

slow_pass() {
	slow_setup
	r=1
	while [ $r -le $ROUNDS ]; do
		for id in r6 k42c k42s k83c k83s; do
			slow_create $id
			fio_run ssr --rw=read --bs=1M --iodepth=4 --size=${smib}M
			ssr=$f_mibs
			vline=""
			if [ $level = km ]; then
				vr_start
				read_verify correct
				fio_run svr --rw=read --bs=1M --iodepth=4 --size=${smib}M --runtime=$VR_S
				svr=$f_mibs
				read_verify $vr_mode0
				vr_check $id "1 MiB sequential, disk-like"
				vline=" seqread_verified_1M_MiBs=$svr"
				eval "slow_${id}_vr=\"\${slow_${id}_vr} $svr\""
			fi
			check mdadm_km /dev/md0 --fail $(echo $slow | cut -d' ' -f2-$((m + 1)))
			mstat_start
			fio_run sdr --rw=read --bs=1M --iodepth=4 --size=${smib}M
			sdr=$f_mibs
			mrk=$(mstat_kib)
			check mdadm_km --stop /dev/md0
			echo "BENCH disk-like round $r $(name $id) seqread_1M_MiBs=$ssr$vline degraded_seqread_1M_MiBs=$sdr degraded_member_read_KiB=$mrk"
			eval "slow_${id}_sr=\"\${slow_${id}_sr} $ssr\" slow_${id}_dr=\"\${slow_${id}_dr} $sdr\" slow_${id}_mr=\"\${slow_${id}_mr} $mrk\""
		done
		r=$((r + 1))
	done
	line="" mline="" vline=""
	for id in r6 k42c k42s k83c k83s; do
		eval "a=\$(stats \$slow_${id}_dr) b=\$(stats \$slow_${id}_sr)"
		eval "c=\$(stats \$slow_${id}_mr)"
		v=""
		if [ $id != r6 ]; then
			eval "v=\$(stats \$slow_${id}_vr)"
			vline="$vline $(name $id)=$(ratio ${v%% *} ${b%% *})"
			v=" seqread_verified_1M_MiBs $v"
		fi
		echo "MEDIAN disk-like $(name $id) seqread_1M_MiBs $b$v degraded_seqread_1M_MiBs $a degraded_member_read_KiB $c"
		line="$line $(name $id)=$(ratio ${a%% *} ${b%% *})"
		mline="$mline $(name $id)=${c%% *}"
	done
	echo "RATIO disk-like members (dm-delay $SLOW_MS ms per I/O) degraded/healthy seqread_1M:$line"
	echo "RATIO disk-like members (dm-delay $SLOW_MS ms per I/O) verified/unverified seqread_1M (read_verify correct; goal 0.8 served):$vline"
	echo "MEMBER disk-like degraded seqread_1M: average member read KiB (every bio the dm members received):$mline"
	slow_teardown
}
pass disk && [ "$SLOW_MS" -gt 0 ] && slow_pass

# Profile pass: for each of PCONFIGS, once, untimed by the rounds: perf
# samples every guest CPU (cpu-clock) through a 1 MiB sequential read, a
# one-member rebuild and the read with m members failed, as run_one does
# them, then (SLOW_MS > 0) the healthy and degraded reads of the
# disk-like pass; PROFILE lines give each phase's speed and its samples by thread
# (comm) and by function, kernel, module (raidkm) and user space alike.
# Idle CPUs show as swapper's idle functions: the emulated guest's CPUs
# are the resource, so a phase's non-idle share says what bounds it.
# prof_start / prof_end ID PHASE SPEED: perf around one phase; it starts
# with its events off and samples from prof_start's return to prof_end
# only (perf's control fifo), so that its own start is not profiled
prof_start() {
	rm -f /tmp/prof.data /tmp/prof.ctl /tmp/prof.ack
	mkfifo /tmp/prof.ctl /tmp/prof.ack
	perf record -a -F $PROF_HZ -e cpu-clock -D -1 --control fifo:/tmp/prof.ctl,/tmp/prof.ack \
		-o /tmp/prof.data >/tmp/prof.log 2>&1 &
	prof_pid=$!
	p_jobs=$(rkm_stat jobs_offloaded) p_bytes=$(rkm_stat bytes_offloaded)
	prof_ctl enable
}
prof_ctl() {
	echo $1 >/tmp/prof.ctl
	read -r ack </tmp/prof.ack
	[ "$ack" = ack ] || { cat /tmp/prof.log; fail "perf did not acknowledge $1"; }
}
prof_end() {
	prof_ctl disable
	kill -INT $prof_pid
	wait $prof_pid || true
	[ -s /tmp/prof.data ] || { cat /tmp/prof.log; fail "perf recorded nothing"; }
	pfx="PROFILE $(name $1) $2"
	echo "$pfx $3"
	# what went to the daemon meanwhile: jobs and the chunk bytes they
	# described (inputs and outputs), per job (a launch codes one job or
	# more: raidkmd's summary counts launches)
	j=$(($(rkm_stat jobs_offloaded) - p_jobs)) b=$(($(rkm_stat bytes_offloaded) - p_bytes))
	[ $j -gt 0 ] && echo "$pfx offload jobs=$j KiB_per_job=$((b / j / 1024))"
	perf report -i /tmp/prof.data --stdio --no-children --sort comm -q --percent-limit 2 2>/dev/null |
		awk -v p="$pfx comm" 'NF { printf "%s %s %s\n", p, $1, $2 }'
	perf report -i /tmp/prof.data --stdio --no-children --sort dso,sym -q --percent-limit 1 2>/dev/null |
		awk -v p="$pfx sym" 'NF { $1 = $1; print p, $0 }' | head -n 24
}
profile_pass() {
	command -v perf >/dev/null || fail "profile pass: no perf in the guest image (bench-gpu-guest.sh BENCH_PROFILE=1)"
	for id in $PCONFIGS; do
		create $id
		fio --filename=/dev/md0 --direct=1 --ioengine=libaio --name=fill --rw=write \
			--bs=1M --iodepth=8 --size=${SEQ}M >/dev/null 2>&1 || fail "profile: fill"
		prof_start
		fio_run sr --rw=read --bs=1M --iodepth=8 --size=${SEQ}M
		prof_end $id seqread_1M "MiB/s=$f_mibs"
		check mdadm_km /dev/md0 --fail /dev/ram1
		check mdadm_km /dev/md0 --remove /dev/ram1
		dd if=/dev/zero of=/dev/ram1 bs=1M count=1 2>/dev/null
		prof_start
		check mdadm_km /dev/md0 --add /dev/ram1
		sleep 0.05
		# the shell's own read: a poll that forks would be profiled too
		while read -r act </sys/block/md0/md/sync_action && [ "$act" != idle ]; do
			sleep 0.1
		done
		prof_end $id rebuild_1_member "s=$(recovery_s md0)"
		check mdadm_km /dev/md0 --fail $(members $m 1)
		datapath_start
		prof_start
		fio_run dr --rw=read --bs=1M --iodepth=8 --size=${SEQ}M
		prof_end $id degraded_seqread_1M "MiB/s=$f_mibs"
		round=0
		datapath_line $id
		check mdadm_km --stop /dev/md0
	done
	[ "$SLOW_MS" -gt 0 ] || return 0
	# disk-like members (the disk pass's dm-delay): healthy and degraded
	# 1 MiB reads at its depth
	slow_setup
	for id in $PCONFIGS; do
		slow_create $id
		prof_start
		fio_run ssr --rw=read --bs=1M --iodepth=4 --size=${smib}M
		prof_end $id disk_seqread_1M "MiB/s=$f_mibs"
		check mdadm_km /dev/md0 --fail $(echo $slow | cut -d' ' -f2-$((m + 1)))
		prof_start
		fio_run sdr --rw=read --bs=1M --iodepth=4 --size=${smib}M
		prof_end $id disk_degraded_seqread_1M "MiB/s=$f_mibs"
		check mdadm_km --stop /dev/md0
	done
	slow_teardown
}
pass profile && profile_pass

# correctness, untimed: fio --verify healthy, with m members failed, and
# after their rebuild with m other members failed; served, the healthy
# data also read back verified (read_verify correct: the daemon checks
# every range): the 1 MiB blocks, and 4 KiB random writes read back by 4
# KiB reads past them (over whole stripes written first, so that parity
# matches where they land)
if pass verify; then
	for id in k42s k83s k42c k83c; do
		create $id
		counters_start
		fiov --name=v --rw=write --bs=1M --size=${VERIFY_MIB}M --do_verify=1
		fiov --name=v --rw=write --bs=1M --size=${VERIFY_MIB}M --verify_only
		vtext=""
		case $id in
		*s)
			vr_start
			read_verify correct
			fiov --name=v --rw=write --bs=1M --size=${VERIFY_MIB}M --verify_only
			fio --filename=/dev/md0 --direct=1 --ioengine=libaio --name=z --rw=write \
				--bs=1M --offset=${VERIFY_MIB}M --size=4M >/dev/null 2>&1 || fail "fio write past the verified data"
			fiov --name=v4 --rw=randwrite --bs=4k --offset=${VERIFY_MIB}M --size=4M --do_verify=1
			read_verify $vr_mode0
			vr_check $id "fio --verify_only, 1 MiB and 4 KiB"
			vtext=", read back verified too"
			;;
		esac
		check mdadm_km /dev/md0 --fail $(members $m 1)
		fiov --name=v --rw=write --bs=1M --size=${VERIFY_MIB}M --verify_only
		check mdadm_km /dev/md0 --remove $(members $m 1)
		for d in $(members $m 1); do dd if=/dev/zero of=$d bs=1M count=1 2>/dev/null; done
		check mdadm_km /dev/md0 --add $(members $m 1)
		sleep 0.2
		wait_sync md0
		check mdadm_km /dev/md0 --fail $(members $m $((m + 1)))
		fiov --name=v --rw=write --bs=1M --size=${VERIFY_MIB}M --verify_only
		check mdadm_km --stop /dev/md0
		counters_check $id
		echo "VERIFY $(name $id): ok (healthy$vtext, $m failed, rebuilt with $m others failed)"
	done
fi
relay_stop
echo "INFO done at $(awk -v s=$start '{ printf "%.0f", $1 - s }' /proc/uptime) s"
