# covers: offload: placement by measured cost; raidkmd: serving; offload: daemon loss and CPU fallback
# Where each job is coded while raidkmd (CPU backend) is attached
# (place.c, offload_place.c): bad values of the module parameter and of
# the array's placement file are refused and change nothing; "daemon"
# sends every job to the daemon and "cpu" none; under "auto" a daemon
# made slow by fault injection (20 ms before each batch of completions)
# loses the jobs to the kernel's CPU codec after a bounded number, and a
# daemon killed in the middle of fio loses nothing; raidkmctl status
# shows the placement and the CPUs' busy share.  Every fio run
# verifies its data (crc32c) and the parity is consistent at the end.
# timeout: 400
. /lib/raidkm/lib.sh

P=/sys/module/raidkm/parameters
N=6 M=2
FIO="fio --output-format=terse --minimal --filename=/dev/md0 --direct=1 --ioengine=libaio --verify=crc32c --do_verify=1 --verify_fatal=1"

# placed SIDE: jobs placed on SIDE (cpu or daemon) so far, every op and class
placed() {
	awk -v side=$1 '{ for (i = 1; i < NF; i++) if ($i == side) { n += $(i + 1); break } }
		END { print n + 0 }' $RKM_SYS/placement_stats
}

ramdisks $N 16
load_raidkm
check sh -c "echo 10000 >$P/deadline_ms"
[ "$(cat $P/placement)" = auto ] || fail "placement is '$(cat $P/placement)', not auto by default"

check mdadm_km --create /dev/md0 --run --assume-clean --level=km --layout=m$M \
	--raid-devices=$N --chunk=64 $(members $N)
A=/sys/block/md0/md/km/placement
[ "$(cat $A)" = default ] || fail "the array's placement is '$(cat $A)', not default"

note "bad values change nothing"
for v in bogus "" 7 "auto cpu"; do
	(echo "$v" >$P/placement) 2>/dev/null && fail "module placement '$v' accepted"
	(echo "$v" >$A) 2>/dev/null && fail "array placement '$v' accepted"
done
(echo default >$P/placement) 2>/dev/null && fail "module placement 'default' accepted"
[ "$(cat $P/placement)" = auto ] || fail "module placement changed by bad input"
[ "$(cat $A)" = default ] || fail "array placement changed by bad input"

start_raidkmd

note "daemon: every job to raidkmd"
echo daemon >$A || fail "array placement daemon refused"
c0=$(placed cpu) d0=$(placed daemon)
check $FIO --name=d --rw=randwrite --bs=4k --iodepth=8 --size=4M --number_ios=300
c1=$(placed cpu) d1=$(placed daemon)
echo "daemon: cpu $((c1 - c0)) daemon $((d1 - d0))"
[ $((d1 - d0)) -gt 0 ] || fail "placement daemon: no job placed on the daemon"
[ $((c1 - c0)) = 0 ] || fail "placement daemon: $((c1 - c0)) jobs placed on the CPU"

note "cpu: none to raidkmd"
echo cpu >$A || fail "array placement cpu refused"
o0=$(rkm_stat jobs_offloaded) c0=$(placed cpu)
check $FIO --name=c --rw=randwrite --bs=4k --iodepth=8 --size=4M --offset=4M --number_ios=300
echo "cpu: offloaded $(($(rkm_stat jobs_offloaded) - o0)), placed on the cpu $(($(placed cpu) - c0))"
[ "$(rkm_stat jobs_offloaded)" = "$o0" ] || fail "placement cpu: jobs went to the daemon"
[ $(($(placed cpu) - c0)) -gt 0 ] || fail "placement cpu: no job counted on the CPU"
check kill $daemon
wait $daemon

note "auto: a slow daemon loses the jobs"
echo default >$A || fail "array placement default refused"
start_raidkmd --fault=delay:20000
check $FIO --name=w --rw=randwrite --bs=4k --iodepth=8 --size=4M --offset=8M --number_ios=100
c0=$(placed cpu) d0=$(placed daemon)
check $FIO --name=s --rw=randwrite --bs=4k --iodepth=8 --size=4M --offset=12M --number_ios=400
c=$(($(placed cpu) - c0)) d=$(($(placed daemon) - d0))
echo "auto, slow daemon: cpu $c daemon $d"
cat $RKM_SYS/placement_reasons
[ $c -gt $((4 * d)) ] || fail "auto: the slow daemon kept $d jobs against the CPU's $c"

note "auto: the daemon killed in the middle of fio"
check $FIO --name=k --rw=write --bs=256k --iodepth=4 --size=16M --offset=16M &
fpid=$!
sleep 2
kill -9 $daemon
wait $fpid || fail "fio failed while the daemon was killed"
wait $daemon 2>/dev/null

echo check >/sys/block/md0/md/sync_action
sleep 1
wait_sync md0
[ "$(cat /sys/block/md0/md/mismatch_cnt)" = 0 ] ||
	fail "mismatch_cnt $(cat /sys/block/md0/md/mismatch_cnt)"
raidkmctl status | grep -i placement || fail "raidkmctl status shows no placement"
raidkmctl status | grep -Eq '^placement: auto; CPUs [0-9]+ % busy; ' ||
	fail "raidkmctl status shows no CPU busy share"
raidkmctl status --json | grep -Eq '"cpu_busy_pct": ([0-9]|[1-9][0-9]|100),' ||
	fail "raidkmctl status --json: no cpu_busy_pct in 0-100"
check mdadm_km --stop /dev/md0
echo PASS
