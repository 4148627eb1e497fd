# covers: km: verified reads (read_verify); km: silent corruption; raidkmd: serving
# Verified reads (km/read_verify): silent corruption planted on a member
# behind md's back (dd to the ramdisk) with each mode.  off returns the
# bad data (fio's crc32c verify fails: the problem is real); detect fails
# the reads of the corrupted rows with EIO and never returns bad data;
# correct returns good data, says which chunk it rebuilt and writes it
# back (a later check finds mismatch_cnt 0).  A parity chunk too; two
# bad chunks in one row: correct fails those reads with EIO, corrects
# nothing and says no single chunk explains it.  With m=3 and nothing
# lost, correct reads the data, P and Q only: a bad data chunk is still
# corrected (the range read again whole to locate it), a bad third
# parity chunk goes unread (no mismatch counted) and check finds it; then
# with members failed: m=3 corrects with one lost (each suspect tried),
# is detect-only with two and verifies nothing with three, saying so in
# the kernel log and read_verify_state; m=1 detects only.  A real read
# error (a dm "error" segment on member 0) and a bad chunk on member 1 in
# the same row: 4+2 fails the reads of that row with EIO (one chunk of
# redundancy left: detect only), 3+3 returns good data, rewrites the bad
# chunk and tries to rewrite the unreadable one (the error segment fails
# the write: a bad block is recorded).  The arrays of the sweep (m2, m3,
# m1, rerr) are shared between the kernels of a check.
# Last, on every kernel, 4+2 served by raidkmd (cpu backend): the daemon
# codes every verified read's CHECK, and a correction's DECODE and CHECK
# (its LOCATE stays on the CPU), the data verifies and the rewrite leaves
# no mismatch; then 3+3, whose clean reads' CHECKs are of the (k, 2)
# code, and one correction through the whole read again.  Its deadline
# is raised as in offload-fio: with the default 50 ms the emulated
# guest's daemon misses one during the first writes and is dropped,
# after which everything is coded on the CPU, unseen.
# timeout: 300
. /lib/raidkm/lib.sh
rmmod brd 2>/dev/null

ramdisks 6 8
load_raidkm
S=/sys/block/md0/md
K=$S/km
# 1 MiB of data written once, verified after every change
A="--name=a --rw=write --bs=64k --size=1M --offset=0"

# plant MEMBER MSEC: 512 bytes of garbage at member sector MSEC of ramMEMBER
plant() {
	off=$(cat $S/dev-ram$1/offset)
	check dd if=/dev/urandom of=/dev/ram$1 bs=512 count=1 seek=$((off + $2)) conv=notrunc 2>/dev/null
	check blockdev --flushbufs /dev/ram$1
}

# read4k BLOCK: one direct 4 KiB read of the array; its status
read4k() {
	dd if=/dev/md0 of=/dev/null bs=4k skip=$1 count=1 iflag=direct 2>/tmp/dd.err
}

mode() {
	echo $1 > $K/read_verify || fail "read_verify $1 refused"
	[ "$(cat $K/read_verify)" = $1 ] || fail "read_verify reads $(cat $K/read_verify)"
}

expect_state() {
	[ "$(cat $K/read_verify_state)" = "$1" ] ||
		fail "read_verify_state $(cat $K/read_verify_state), expected $1"
}

# detail_says TEXT: mdadm --detail's Read Verify line reads TEXT
detail_says() {
	mdadm_km --detail /dev/md0 >/tmp/detail 2>&1
	grep -q "^ *Read Verify : $1\$" /tmp/detail ||
		fail "mdadm --detail: not 'Read Verify : $1': $(grep 'Read Verify' /tmp/detail)"
}

# verify_fails: the data read back is wrong or unreadable
verify_fails() {
	fio --filename=/dev/md0 --direct=1 --ioengine=libaio --verify=crc32c \
	    --iodepth=8 $A --verify_only >/tmp/fio.out 2>&1 &&
		fail "fio verified good data: $1"
	true
}

# run_sync ACTION: sync_action ACTION (check, repair) to its end
run_sync() {
	echo $1 > $S/sync_action
	sleep 0.5
	wait_sync md0
}

# check_clean: "check" finds no mismatch
check_clean() {
	run_sync check
	[ "$(cat $S/mismatch_cnt)" = 0 ] ||
		fail "mismatch_cnt $(cat $S/mismatch_cnt) after correction"
}

create() {
	check mdadm_km --create /dev/md0 --run --assume-clean --level=km \
		--layout=m$2 --raid-devices=$1 --chunk=64 $(members $1)
	[ "$(cat $K/read_verify)" = off ] || fail "read_verify not off by default"
	detail_says off
	fiov $A
}

stop() {
	check mdadm_km --stop /dev/md0
	wait_md_gone md0
	# case rerr's member 0 over ram0, if there
	dmsetup info rv >/dev/null 2>&1 && check dmsetup remove --noudevsync rv
	# zeroed members for the next case: it creates with --assume-clean
	# and its check covers the whole array, beyond what it wrote
	check rmmod brd
	ramdisks 6 8
}

# 4+2: off, detect, correct on a data chunk and on a parity chunk
case_m2() {
	note "4+2: modes"
	create 6 2
	echo bogus > $K/read_verify 2>/dev/null && fail "bogus mode accepted"
	[ "$(cat $K/read_verify)" = off ] || fail "a bad value changed the mode"
	expect_state off
	# data chunk 2 of stripe 0 (ram2), row 2: array block 34 (4 KiB)
	plant 2 19
	note "off returns the bad data"
	verify_fails "off"
	grep -qi "verify" /tmp/fio.out || fail "off: fio failed, not on verify: $(cat /tmp/fio.out)"
	mode detect
	expect_state detect-only
	note "detect fails the corrupted row's read, others read"
	read4k 34 && fail "detect returned data of a corrupted row"
	grep -q "Input/output error" /tmp/dd.err || fail "not EIO: $(cat /tmp/dd.err)"
	read4k 0 || fail "a clean row failed in detect mode"
	verify_fails "detect"
	grep -q "Input/output error" /tmp/fio.out || fail "fio saw no EIO in detect mode: $(cat /tmp/fio.out)"
	grep -qi "verify failed\|bad magic\|bad header" /tmp/fio.out &&
		fail "detect returned bad data to fio: $(cat /tmp/fio.out)"
	[ "$(cat $K/read_verify_failed)" -ge 1 ] || fail "read_verify_failed 0"
	[ "$(cat $K/read_verify_mismatches)" -ge 1 ] || fail "read_verify_mismatches 0"
	dmesg | grep -q "read_verify: parity mismatch" || fail "mismatch not logged"
	mode correct
	expect_state full
	detail_says "correct (reads full)"
	note "correct returns good data and rewrites the chunk"
	fiov $A --verify_only
	dmesg | grep -q "corrected data chunk 2 on member 2 at member sector 0" ||
		fail "data chunk on ram2 not corrected"
	[ "$(cat $K/read_verify_corrected)" -ge 1 ] || fail "read_verify_corrected 0"
	mode off
	check_clean
	note "parity chunk 1 (ram4)"
	plant 4 3
	mode detect
	read4k 0 && fail "detect returned a row with bad parity"
	mode correct
	fiov $A --verify_only
	dmesg | grep -q "corrected parity chunk 1 on member 4 at member sector 0" ||
		fail "parity chunk on ram4 not corrected"
	mode off
	check_clean
	note "two bad chunks in one row (data 2 on ram2, data 3 on ram3): EIO"
	plant 2 19
	plant 3 19
	mode correct
	f=$(cat $K/read_verify_failed) c=$(cat $K/read_verify_corrected)
	read4k 34 && fail "correct returned a row with two bad chunks"
	grep -q "Input/output error" /tmp/dd.err || fail "not EIO: $(cat /tmp/dd.err)"
	read4k 50 && fail "correct returned the other bad chunk's row"
	[ "$(cat $K/read_verify_failed)" -ge $((f + 2)) ] || fail "read_verify_failed did not count both"
	[ "$(cat $K/read_verify_corrected)" = "$c" ] || fail "a chunk was 'corrected' from two bad ones"
	dmesg | grep -q "no single chunk explains it" || fail "two bad chunks: not logged"
	read4k 0 || fail "a clean row failed next to the bad one"
	# the data rewritten, then the array is clean again
	mode off
	fiov $A
	check_clean
	cat $K/read_verify_reads $K/read_verify_unverified >/dev/null
	stop
}

# logged_more PATTERN COUNT: the kernel log has more lines matching
# PATTERN than COUNT
logged_more() {
	[ "$(dmesg | grep -c "$1")" -gt "$2" ]
}

# 3+3: healthy, correct reads k + 2 chunks; correct with one member lost,
# detect-only with two, none with three
case_m3() {
	note "3+3: healthy, a bad data chunk corrected from data, P and Q"
	create 6 3
	mode correct
	expect_state full
	# stripe 0 of 3+3: data 0-2 on ram0-2, P on ram5, Q on ram4, R on ram3
	fixed="corrected data chunk 2 on member 2 at member sector 0"
	c=$(dmesg | grep -c "$fixed")
	plant 2 9
	fiov $A --verify_only
	logged_more "$fixed" $c || fail "3+3 healthy: data chunk on ram2 not corrected"
	note "3+3: a bad third parity chunk is not read by correct; check finds it"
	plant 3 9
	mm=$(cat $K/read_verify_mismatches)
	fiov $A --verify_only
	[ "$(cat $K/read_verify_mismatches)" = "$mm" ] ||
		fail "correct read the parity past Q (a mismatch counted)"
	mode off
	run_sync check
	[ "$(cat $S/mismatch_cnt)" != 0 ] || fail "check did not find the bad third parity chunk"
	run_sync repair
	check_clean
	note "3+3: degraded"
	mode correct
	check mdadm_km /dev/md0 --fail /dev/ram0
	expect_state full
	# data chunk 1 of stripe 0 (ram1), row 1; data chunk 0 is lost
	plant 1 9
	fiov $A --verify_only
	dmesg | grep -q "corrected data chunk 1 on member 1 at member sector 0" ||
		fail "data chunk on ram1 not corrected with a member lost"
	check mdadm_km /dev/md0 --fail /dev/ram5
	expect_state detect-only
	detail_says "correct (reads detect-only)"
	dmesg | grep -q "read_verify correct: reads are detect-only now" ||
		fail "degrading to detect-only not logged"
	plant 2 17
	read4k 34 && fail "detect-only returned a corrupted row (e=2)"
	read4k 0 || fail "a clean row failed with e=2"
	check mdadm_km /dev/md0 --fail /dev/ram4
	expect_state none
	dmesg | grep -q "read_verify correct: reads are none now" ||
		fail "degrading to none not logged"
	u=$(cat $K/read_verify_unverified)
	read4k 1 || fail "read with e=m failed"
	[ "$(cat $K/read_verify_unverified)" -gt "$u" ] || fail "unverified read not counted"
	stop
}

# 3+1: correct acts as detect
case_m1() {
	note "3+1: detect only"
	create 4 1
	mode correct
	expect_state detect-only
	plant 1 9
	read4k 17 && fail "m=1 returned a corrupted row"
	read4k 16 || fail "m=1: a clean row failed"
	[ "$(cat $K/read_verify_corrected)" = 0 ] || fail "m=1 corrected"
	stop
}

# rv_member ON|OFF: member 0 is the dm device rv over ram0; with ON its
# row 1 of chunk stripe 0 (member sectors 8-15 after the data offset $2)
# fails every read and write
rv_member() {
	sz=$(blockdev --getsz /dev/ram0)
	if [ $1 = ON ]; then
		e=$(($2 + 8))
		printf '0 %d linear /dev/ram0 0\n%d 8 error\n%d %d linear /dev/ram0 %d\n' \
			$e $e $((e + 8)) $((sz - e - 8)) $((e + 8)) >/tmp/table
	else
		echo "0 $sz linear /dev/ram0 0" >/tmp/table
	fi
	if dmsetup info rv >/dev/null 2>&1; then
		check dmsetup suspend rv
		check dmsetup load rv /tmp/table
		check dmsetup resume rv
	else
		check dmsetup create --noudevsync rv /tmp/table
		check dmsetup mknodes rv
	fi
}

# a read error on member 0 and a bad chunk on member 1, both in row 1 of
# chunk stripe 0 (data chunks 0 and 1 for 4+2 and 3+3)
case_rerr() {
	check modprobe dm-mod
	for m in 2 3; do
		k=$((6 - m))
		note "$k+$m: a read error and a bad chunk in one row"
		rv_member OFF 0
		check mdadm_km --create /dev/md0 --run --assume-clean --level=km \
			--layout=m$m --raid-devices=6 --chunk=64 /dev/mapper/rv $(members 5 1)
		fiov $A
		dm=dm-$(dmsetup info -c --noheadings -o minor rv | tr -d ' ')
		rv_member ON "$(cat $S/dev-$dm/offset)"
		plant 1 9
		mode correct
		r=$(dmesg | grep -c "read error on $dm .*(verified read)")
		if [ $m = 2 ]; then
			expect_state full
			read4k 1 && fail "4+2: a row with a read error and a bad chunk returned data"
			grep -q "Input/output error" /tmp/dd.err || fail "not EIO: $(cat /tmp/dd.err)"
			read4k $((16 + 1)) && fail "4+2: the bad chunk's block returned data"
			read4k 0 || fail "4+2: a clean row failed next to the bad one"
			verify_fails "4+2 read error and bad chunk"
			grep -qi "verify failed\|bad magic\|bad header" /tmp/fio.out &&
				fail "4+2: bad data returned to fio: $(cat /tmp/fio.out)"
			dmesg | grep -q "detect only: read failed" ||
				fail "4+2: the mismatch was not reported as detect only"
		else
			fixed="corrected data chunk 1 on member 1 at member sector 0"
			c=$(dmesg | grep -c "$fixed")
			fiov $A --verify_only
			logged_more "$fixed" $c || fail "3+3: the bad chunk next to a read error not corrected"
			[ -s $S/dev-$dm/bad_blocks ] ||
				fail "3+3: the unwritable row of member 0 not recorded as a bad block"
			note "3+3: the bad block is served by the row path, the data still right"
			fiov $A --verify_only
		fi
		logged_more "read error on $dm .*(verified read)" $r ||
			fail "$k+$m: the member read error not reported"
		mode off
		stop
	done
}

# rkm_dump: raidkm's offload counters and the array's verify counters
rkm_dump() {
	grep -H . $RKM_SYS/* $K/read_verify* 2>/dev/null | sed 's|.*/||'
}

# served WHAT CPU: since $o, $cpu and $r were taken, raidkmd is still
# attached, returned no wrong result and at most CPU jobs (LOCATE) ran on
# the CPU; sets $r (verified reads), $o and $cpu (jobs coded by raidkmd and
# on the CPU) to what was done since
served() {
	r=$(($(cat $K/read_verify_reads) - r))
	o=$(($(rkm_stat jobs_offloaded) - o)) cpu=$(($(rkm_stat jobs_cpu) - cpu))
	echo "served, $1: $r verified reads, $o jobs coded by raidkmd, $cpu on the CPU"
	[ "$(rkm_stat daemon_state)" = running ] ||
		{ rkm_dump; fail "$1: raidkmd dropped ($(rkm_stat daemon_state)): its jobs went to the CPU"; }
	[ "$(rkm_stat verify_mismatches)" = 0 ] || fail "$1: raidkmd returned wrong results"
	[ $cpu -le $2 ] || { rkm_dump; fail "$1: $cpu jobs coded on the CPU"; }
}

# served_clean WHAT: the region read back verified, with no bad chunk:
# every read's CHECK coded by raidkmd, none on the CPU
served_clean() {
	o=$(rkm_stat jobs_offloaded) cpu=$(rkm_stat jobs_cpu)
	r=$(cat $K/read_verify_reads)
	fiov $A --verify_only
	served "$1" 0
	[ $r -ge 16 ] && [ $o -ge $r ] ||
		{ rkm_dump; fail "$1: $r verified reads, $o jobs coded by raidkmd"; }
}

# served: raidkmd (cpu backend) codes the verified reads' jobs: every
# CHECK of a clean read, and a correction's DECODE and CHECK (its LOCATE
# runs on the CPU: the ring has no such op)
case_served() {
	note "4+2 served by raidkmd"
	check sh -c "echo 10000 >/sys/module/raidkm/parameters/deadline_ms"
	# the daemon's path is under test: every job it can take goes to it
	check sh -c "echo daemon >/sys/module/raidkm/parameters/placement"
	start_raidkmd
	create 6 2
	mode detect
	served_clean "detect"
	note "served: correct returns good data and rewrites the chunk"
	plant 3 21
	mode correct
	o=$(rkm_stat jobs_offloaded) cpu=$(rkm_stat jobs_cpu)
	r=$(cat $K/read_verify_reads) x=$(cat $K/read_verify_corrected)
	fiov $A --verify_only
	dmesg | grep -q "corrected data chunk 3 on member 3 at member sector 0" ||
		{ rkm_dump; fail "served: data chunk on ram3 not corrected"; }
	x=$(($(cat $K/read_verify_corrected) - x))
	served "correct" $x
	# a CHECK per read; a read that corrects (every read of the bad
	# chunk stripe that ran before the rewrite: each checks the whole
	# stripe's rows) adds a DECODE and a CHECK, and its LOCATE on the CPU
	[ $x -ge 1 ] && [ $o -ge $((r + 2 * x)) ] ||
		{ rkm_dump; fail "$x corrected, $o jobs coded by raidkmd"; }
	mode off
	check_clean
	stop
	note "served: 3+3 correct, clean reads checked by P and Q"
	create 6 3
	mode correct
	served_clean "correct 3+3"
	fixed="corrected data chunk 1 on member 1 at member sector 0"
	c=$(dmesg | grep -c "$fixed")
	plant 1 9
	fiov $A --verify_only
	logged_more "$fixed" $c || { rkm_dump; fail "served 3+3: data chunk on ram1 not corrected"; }
	[ "$(rkm_stat daemon_state)" = running ] || fail "served 3+3: raidkmd dropped"
	[ "$(rkm_stat verify_mismatches)" = 0 ] || fail "served 3+3: raidkmd returned wrong results"
	mode off
	check_clean
	kill -TERM $daemon
	wait $daemon || fail "raidkmd exited $? on SIGTERM"
	wait_daemon_state idle
	stop
}

for c in $(share m2 m3 m1 rerr) served; do
	case_$c
done
rmmod brd 2>/dev/null
echo PASS
