# covers: km: write hole; km: write journal; km: member log; km: unclean shutdown; km: degraded I/O
# The write hole (issue #31), with real power cuts: a partial-stripe write
# cut off by a power failure leaves some members with the new chunk or
# parity and others with the old.  Once a member is missing, its chunks
# are rebuilt from that parity: data nobody was writing comes back as
# garbage.  A write journal closes the hole, and so does the member log.
#
# Four arrays of 4+2 members with 64 KiB chunks, each member a slice
# (dm-linear) of one virtio disk; members 1 and 2 of each write through
# dm-delay (300 ms a write: slow disks, so that partial-stripe writes
# are always in flight, half landed) during the writes that a power cut
# interrupts, and at full speed otherwise:
#   md0  km, no journal (unprotected: must show the hole)
#   md1  md raid6 with a write journal (mdadm --write-journal)
#   md2  km with a write journal
#   md3  km with a member log (--layout=m2,log) and an internal
#        write-intent bitmap: no journal device
# Every 4 KiB block of the arrays' region (stripes 4-35) carries its
# block number and a generation (rkm-stamp, tests/guest/stamp.c), so
# every block read back is known to be the old data, the new data, or
# neither.
#
# Each boot but the last creates the arrays anew (--assume-clean), fills
# the region (generation G = 100 x boot, full stripes), rewrites one
# data chunk of each of stripes 8-31 in 8 threads per array (generations
# G+1, G+2, ...), and once every array has acknowledged a write, cuts
# the power 1.2-2.2 s later (a random 0.2-1.2 s, then crash_guest's
# 1 s).  The chunk rewritten is the one after the chunk on member 0, so
# that member 0's chunk of the stripe, never written, is the one rebuilt
# from parity when member 0 is gone.  Two power cuts in three come with
# member 0 missing (case a: degraded while writing), every third (cuts
# 3, 6, ...) with the arrays whole (case b).  The next boot assembles the arrays (case b:
# auto-read-only through md_mod's start_ro, so that no resync can start,
# and member 0 failed at once) and reads the region: every chunk not
# written must read its old data, a written chunk old or new data block
# by block, nothing else.  On md0 every block that is neither must lie
# in member 0's chunk of a stripe (the hole and nothing else); on md1,
# md2 and md3 there must be none, and their logs must have replayed
# stripes after some power cut.  20 power cuts in all, 14 of case a
# (make check: 15 on each kernel, "boots-shared", 10 of case a: 20 of
# case a and 10 of case b in each check); in the last boot the hole must
# have shown on md0 at least once in each case (so that the test can
# fail: it shows after 19-20 cuts of 20).
#
# Last boot, case c: the journal of md1 (md2) fails under writes (its dm
# table becomes "error").  Writes then fail with EIO, reads go on and
# verify, no acknowledged write is lost; after mdadm --remove of the
# journal, consistency_policy "resync" makes the array writable again.
#
# md raid6 starts a dirty degraded array only with md_mod's
# start_dirty_degraded (its journal replays all the same): set here.
# boots: 21
# boots-shared: 16
# disks: 1 320
# timeout: 200
. /lib/raidkm/lib.sh

N=6 K=4 X=0 CH=65536
# the region filled and read back: stripes 4-35 (1-9 MiB); the stripes
# written: 8-31
SPAN="-k $K -c $CH -s 4:32"
WSPAN="-k $K -c $CH -s 8:24"
DELAYED="1 2" DELAY_MS=300
LAST=$RKM_BOOTS			# this boot is the last
G=$((RKM_PHASE * 100))		# this boot's fill generation
P=/sys/module/md_mod/parameters

[ -b /dev/vda ] || fail "no /dev/vda"
load_raidkm
load_raid6
check modprobe dm-delay

# mode C: the state of the arrays at power cut C (a: degraded, b: whole)
mode() {
	[ $(($1 % 3)) = 0 ] && echo b || echo a
}

# rnd N: a random number 0..N-1
rnd() {
	echo $(($(od -An -N2 -tu2 /dev/urandom) % $1))
}

# One virtio disk in slices of 12 MiB (each virtio disk costs the boot
# about 0.35 s): slice 6A+I is member I of array A, slices 24 and 25 the
# journals of md1 and md2, the MiB after them the record of the boots.
# Every slice is a dm device: wAmI (linear; members $DELAYED become
# dm-delay in slow), wAj (linear; "error" in case c).  MEM_A_I and
# JOURNAL_A are their nodes (no udev: /dev/dm-MINOR).
SL=24576			# sectors a slice
TALLY_SEEK=$((26 * SL / 128))	# the record, in 64 KiB blocks
spec=""
for a in 0 1 2 3; do
	i=0
	while [ $i -lt $N ]; do
		spec="$spec${spec:+;}w${a}m$i,,,,0 $SL linear /dev/vda $(((a * N + i) * SL))"
		i=$((i + 1))
	done
done
spec="$spec;w1j,,,,0 $SL linear /dev/vda $((24 * SL));w2j,,,,0 $SL linear /dev/vda $((25 * SL))"
dmsetup create --concise "$spec" || fail "dmsetup create --concise '$spec'"
for b in /sys/block/dm-*; do
	read -r n <$b/dm/name
	a=${n#w}
	case $n in
	w?m?) eval MEM_${a%m*}_${n#*m}=/dev/${b##*/} ;;
	w?j) eval JOURNAL_${a%j}=/dev/${b##*/} ;;
	esac
done

# slow A: from now on array A's members $DELAYED write through dm-delay
# (only the writes that the power cut interrupts: assembly, journal
# replay and fill run at full speed)
slow() {
	local i names=""
	for i in $DELAYED; do
		echo "0 $SL delay /dev/vda $((($1 * N + i) * SL)) 0 /dev/vda $((($1 * N + i) * SL)) $DELAY_MS" |
			dmsetup load w$1m$i || fail "dmsetup load w$1m$i"
		names="$names w$1m$i"
	done
	check dmsetup resume $names
}

# members_of A MODE: array A's members for mode MODE ("missing" for X
# in mode a) in $MEMBERS
members_of() {
	local i=0 d
	MEMBERS=""
	while [ $i -lt $N ]; do
		eval d=\$MEM_$1_$i
		[ $2 = a ] && [ $i = $X ] && d=missing
		MEMBERS="$MEMBERS $d"
		i=$((i + 1))
	done
}

# Where the chunks are: data chunk d of stripe s sits on member
# (p + shift + d) mod N, p = N-1 - (s mod N) the first parity member,
# shift 1 for km (Documentation/layout.rst), 2 for md raid6
# (left-symmetric: P, Q, then the data).  LOST_A_J: the data chunk on
# member X of array A's stripes s with s mod N = J (-1: X holds parity);
# WMAP_A: rkm-stamp's -m, per s mod N the data chunk rewritten, the one
# after the chunk on member X.
for a in 0 1 2 3; do
	sh=1
	[ $a = 1 ] && sh=2
	s=0 w=""
	while [ $s -lt $N ]; do
		d=$(((X - (N - 1 - s) - sh + 2 * N) % N))
		[ $d -lt $K ] || d=-1
		eval LOST_${a}_$s=$d
		w="$w${w:+,}$(((d + 1) % K))"
		s=$((s + 1))
	done
	eval WMAP_$a=$w
done

# the record of past boots: text lines after the slices, written before
# any write of a boot starts
tally() {
	dd if=/dev/vda bs=64k skip=$TALLY_SEEK count=1 2>/dev/null | tr -d '\000'
}
record() {
	{ tally; echo "$*"; } >/tmp/tally
	dd if=/tmp/tally of=/dev/vda bs=64k seek=$TALLY_SEEK conv=fsync,sync,notrunc 2>/dev/null ||
		fail "cannot write the record"
}

# quiet CMD...: run CMD, show its output only when it fails
quiet() {
	"$@" >/tmp/quiet 2>&1 || { cat /tmp/quiet; fail "command failed: $*"; }
}

# the arrays: md0, md1, md2 (km with a write journal: its creation
# must work, and must give the journal consistency policy) and md3
ARRAYS="0 1 2 3"
kmj_probe() {
	local cp
	members_of 2 b
	quiet mdadm_km --create /dev/md2 --run --assume-clean --level=km --layout=m2 \
		--raid-devices=$N --chunk=64 --write-journal $JOURNAL_2 $MEMBERS
	cp=$(cat /sys/block/md2/md/consistency_policy)
	[ "$cp" = journal ] || fail "km with --write-journal: consistency_policy '$cp', not journal"
	quiet mdadm_km --stop /dev/md2
	wait_md_gone md2
}

echo 1 >$P/start_dirty_degraded
[ "$RKM_PHASE" = 1 ] && kmj_probe

# create A MODE: array A as for mode MODE, clean, its region filled
create() {
	local a=$1 j="" cp want=journal
	case $a in 1 | 2) eval j=\"--write-journal \$JOURNAL_$a\" ;; esac
	members_of $a $2
	if [ $a = 1 ]; then
		quiet mdadm_km --create /dev/md1 --run --assume-clean --level=6 \
			--raid-devices=$N --chunk=64 $j $MEMBERS
	elif [ $a = 3 ]; then
		quiet mdadm_km --create /dev/md3 --run --assume-clean --level=km \
			--layout=m2,log --bitmap=internal --raid-devices=$N \
			--chunk=64 $MEMBERS
		want=bitmap
	else
		quiet mdadm_km --create /dev/md$a --run --assume-clean --level=km \
			--layout=m2 --raid-devices=$N --chunk=64 $j $MEMBERS
	fi
	if [ $a != 0 ]; then
		read -r cp </sys/block/md$a/md/consistency_policy
		[ "$cp" = $want ] || fail "md$a: consistency_policy $cp, not $want"
	fi
	if [ $a = 2 ] || [ $a = 3 ]; then
		grep -q '^state active' /sys/block/md$a/md/km/journal ||
			fail "md$a: md/km/journal: $(cat /sys/block/md$a/md/km/journal)"
	fi
	check rkm-stamp fill /dev/md$a $SPAN -g $G
}

# assemble A MODE: array A after a power cut in mode MODE, from the
# members that were there and its journal; for mode b auto-read-only
# (no resync can start) and member X failed at once
assemble() {
	local a=$1 j="" st x
	members_of $a $2
	case $a in 1 | 2) eval j=\$JOURNAL_$a ;; esac
	[ $2 = b ] && echo 1 >$P/start_ro
	quiet mdadm_km --assemble --run /dev/md$a ${MEMBERS/missing/} $j
	echo 0 >$P/start_ro
	if [ $2 = b ]; then
		read -r st </sys/block/md$a/md/array_state
		[ "$st" = read-auto ] || fail "md$a: array_state $st, not read-auto"
		eval x=\$MEM_${a}_$X
		quiet mdadm_km /dev/md$a --fail $x
	fi
	grep -A2 "^md$a " /proc/mdstat | grep -v '^ *$'
}

# replayed A: what array A's journal replayed at its start (kernel log)
replayed() {
	if [ $1 = 1 ]; then
		dmesg | sed -n 's/.*md\/raid:md1: recovering \([0-9]*\) data-only stripes and \([0-9]*\) data-parity.*/\1 \2/p' |
			awk '{ print $1 + $2 }' | tail -n 1
	else
		dmesg | sed -n "s/.*md\/km:md$1: \(journal\|member log\) on .*: replayed \([0-9]*\) records.*/\2/p" | tail -n 1
	fi
}

# verify A C: read array A's region after power cut C; record md0's bad
# chunks, fail on any of md1's or md2's
verify() {
	local a=$1 c=$2 g0=$(($2 * 100)) rc bad=0 s d l wm
	eval wm=\$WMAP_$a
	rkm-stamp verify /dev/md$a $SPAN -g $g0 -m $wm -w $((g0 + 1)):$((g0 + 99)) \
		-r 8:24 >/tmp/v$a 2>&1
	rc=$?
	sed "s/^/md$a: /" /tmp/v$a
	[ $rc = 0 ] || [ $rc = 1 ] || fail "md$a: rkm-stamp verify exit status $rc"
	if [ $a != 0 ]; then
		[ $rc = 0 ] || fail "md$a: data lost after power cut $c (mode $(mode $c)) with a journal"
		record "cut $c $(mode $c) md$a bad 0"
		return
	fi
	# md0: every bad chunk is member X's chunk of its stripe, not written
	while read -r s d; do
		[ -n "$s" ] || continue
		eval l=\$LOST_0_$((s % N))
		[ "$d" = "$l" ] ||
			fail "md0: bad chunk $d of stripe $s is not member $X's chunk ($l): not the write hole"
		bad=$((bad + 1))
	done <<EOF
$(sed -n 's/^bad: stripe \([0-9]*\) data chunk \([0-9]*\) (not written.*/\1 \2/p' /tmp/v0)
EOF
	grep -q '^bad: .*(written' /tmp/v0 && fail "md0: a written chunk read back neither old nor new"
	[ $rc = 0 ] || [ $bad -gt 0 ] || fail "md0: bad blocks but no bad chunk line"
	record "cut $c $(mode $c) md0 bad $bad"
}

if [ "$RKM_PHASE" -gt 1 ]; then
	c=$((RKM_PHASE - 1))
	m=$(mode $c)
	note "boot $RKM_PHASE: after power cut $c ($([ $m = a ] && echo "a: member $X missing at the cut" || echo "b: member $X failed after the reboot"))"
	for a in $ARRAYS; do
		dmesg -c >/dev/null
		assemble $a $m
		if [ $a != 0 ]; then
			r=$(replayed $a)
			echo "md$a: journal replayed ${r:-0}"
			[ $a -ge 2 ] && sed "s/^/md$a: md\/km\/journal: /" /sys/block/md$a/md/km/journal
			[ "${r:-0}" -gt 0 ] && record "replay md$a $r"
		fi
		verify $a $c
		quiet mdadm_km --stop /dev/md$a
		wait_md_gone md$a
	done
fi

if [ "$RKM_PHASE" -lt "$LAST" ]; then
	m=$(mode $RKM_PHASE)
	note "boot $RKM_PHASE: fill (gen $G), partial-stripe writes, power cut $RKM_PHASE ($m)"
	for a in $ARRAYS; do
		create $a $m
	done
	for a in $ARRAYS; do
		slow $a
	done
	for a in $ARRAYS; do
		eval wm=\$WMAP_$a
		rkm-stamp write /dev/md$a $WSPAN -m $wm -g $((G + 1)) -t 8 \
			-l /tmp/ack$a >/tmp/w$a 2>&1 &
	done
	# the writes flow on every array (TCG on a busy host can be slow)
	n=0
	for a in $ARRAYS; do
		while ! [ -s /tmp/ack$a ]; do
			n=$((n + 1))
			[ $n -le 300 ] || fail "md$a: no write acknowledged in 30 s: $(cat /tmp/w$a)"
			sleep 0.1
		done
	done
	t=$(($(rnd 1000) + 200))
	sleep $((t / 1000)).$(printf '%03d' $((t % 1000)))
	for a in $ARRAYS; do
		echo "md$a: $(wc -l </tmp/ack$a) chunk writes acknowledged"
	done
	echo "power cut $t ms after the first acknowledgements"
	crash_guest
fi

# --- the last boot: what the power cuts showed ---
note "the record of the power cuts"
tally
for m in a b; do
	c=$(tally | grep -c "^cut [0-9]* $m md0 ")
	h=$(tally | grep -c "^cut [0-9]* $m md0 bad [1-9]")
	n=$(tally | awk -v m=$m '$1 == "cut" && $3 == m && $4 == "md0" { n += $6 } END { print n + 0 }')
	echo "md0 (km, no journal), mode $m: the hole showed after $h of $c power cuts, $n chunks in all"
	[ $h -gt 0 ] || fail "md0: no corruption after any power cut of mode $m: the test does not show the hole"
done
for a in $ARRAYS; do
	[ $a = 0 ] && continue
	c=$(tally | grep -c "^cut [0-9]* . md$a ")
	r=$(tally | grep -c "^replay md$a ")
	echo "md$a: no loss after $c power cuts, its log replayed stripes after $r"
	[ $c = $((LAST - 1)) ] || fail "md$a: $c power cuts recorded, not $((LAST - 1))"
	[ $r -gt 0 ] || fail "md$a: the journal never replayed anything: nothing was in flight"
done

# --- case c: the journal fails under writes ---
# failed_writes A: the writes to array A have met the failed journal
# (some chunk's writes came back with an error), within 60 s
failed_writes() {
	local i
	for i in $(seq 600); do
		grep -q ' err ' /tmp/ack$1 2>/dev/null && return 0
		sleep 0.1
	done
	return 1
}

# jfail A: array A (with a journal) whole and filled; its journal fails
# after 1.5 s of writes, which go on until some of them have failed (not
# for a fixed time: on a loaded host the failure could come after them)
jfail() {
	local a=$1 w st j wm
	note "md$a: the journal fails under writes"
	eval j=\$JOURNAL_$a wm=\$WMAP_$a
	create $a b
	rm -f /tmp/ack$a
	rkm-stamp write /dev/md$a $WSPAN -m $wm -g $((G + 1)) -t 4 -l /tmp/ack$a &
	w=$!
	sleep 1.5
	echo "0 $SL error" | dmsetup load w${a}j || fail "dmsetup load w${a}j"
	check dmsetup resume w${a}j
	failed_writes $a || fail "md$a: every write succeeded after its journal failed"
	kill $w
	wait $w
	echo "md$a: $(grep -c ' ok$' /tmp/ack$a) chunk writes acknowledged, $(grep -c ' err ' /tmp/ack$a) failed"
	grep ' err ' /tmp/ack$a | grep -qv ' err 5$' &&
		fail "md$a: a write failed with another error than EIO: $(grep ' err ' /tmp/ack$a | grep -v ' err 5$' | head -n 1)"
	grep -q ' ok$' /tmp/ack$a || fail "md$a: no write acknowledged before the journal failed"
	grep -A2 "^md$a " /proc/mdstat | grep -v '^ *$'
	read -r st </sys/block/md$a/md/dev-${j#/dev/}/state
	echo "md$a: journal state $st"
	case $st in *faulty*) ;; *) fail "md$a: journal not faulty ($st)" ;; esac
	note "md$a: reads go on, nothing acknowledged is lost, writes fail"
	check rkm-stamp verify /dev/md$a $SPAN -g $G -m $wm -w $((G + 1)):$((G + 99)) -r 8:24 -a /tmp/ack$a
	rkm-stamp write /dev/md$a -k $K -c $CH -s 8:1 -m $wm -g $((G + 50)) -n 1 -t 1 &&
		fail "md$a: a write succeeded with its journal failed"
	note "md$a: journal removed, consistency_policy resync: writable again"
	quiet mdadm_km /dev/md$a --remove $j
	echo resync >/sys/block/md$a/md/consistency_policy ||
		fail "md$a: consistency_policy resync refused"
	echo "md$a: consistency_policy $(cat /sys/block/md$a/md/consistency_policy)"
	rm -f /tmp/ack$a
	check rkm-stamp write /dev/md$a $WSPAN -m $wm -g $((G + 60)) -n 1 -t 4 -l /tmp/ack$a
	check rkm-stamp verify /dev/md$a $SPAN -g $G -m $wm -w $((G + 60)):$((G + 60)) -r 8:24 -a /tmp/ack$a
	quiet mdadm_km --stop /dev/md$a
	wait_md_gone md$a
}
for a in 1 2; do
	jfail $a
done
echo PASS
