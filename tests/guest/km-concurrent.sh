# covers: km: concurrent writes to one stripe
# Writers and a reader hammering the same stripe rows at once: four
# writers each own one data chunk of the same two chunk stripes (so every
# row gets concurrent partial-stripe writes from all of them, 4 KiB and
# 512 B), each verifying what it wrote while it runs and at the end; a
# reader reads the same rows all along.  Also a degraded pass.  No lost
# update (fio verify), parity consistent (check), no kernel warning.
# timeout: 240
. /lib/raidkm/lib.sh
# a previous scenario of the same boot may have left ramdisks behind
rmmod brd 2>/dev/null

N=6 M=2
ramdisks $N 8
load_raidkm
S=/sys/block/md0/md

check mdadm_km --create /dev/md0 --run --assume-clean --level=km --layout=m$M \
	--raid-devices=$N --chunk=64 $(members $N)

hammer() {
	common="--filename=/dev/md0 --direct=1 --ioengine=libaio --iodepth=8"
	w="--rw=randwrite --verify=crc32c --verify_fatal=1 --verify_backlog=16 --loops=$1"
	# chunk stripe s covers array bytes [s*256K, (s+1)*256K); data chunk d
	# of it is [s*256K + d*64K, +64K)
	pids=""
	for s in 0 1; do
		for d in 0 1 2 3; do
			bs=4k
			[ $d = 3 ] && bs=512
			fio $common $w --name=w$s$d --bs=$bs --size=64k \
				--offset=$((s * 262144 + d * 65536)) >/tmp/w$s$d.out 2>&1 &
			pids="$pids $!"
		done
	done
	fio $common --name=r --rw=randread --bs=16k --size=512k --offset=0 \
		--loops=$(($1 * 4)) >/tmp/r.out 2>&1 &
	rpid=$!
	for p in $pids; do
		wait $p || { cat /tmp/w*.out; fail "writer lost an update or failed"; }
	done
	wait $rpid || { cat /tmp/r.out; fail "reader failed"; }
	# final full verify of every writer's range
	for s in 0 1; do
		for d in 0 1 2 3; do
			bs=4k
			[ $d = 3 ] && bs=512
			fio $common --rw=randwrite --verify=crc32c --verify_fatal=1 \
				--verify_only --name=w$s$d --bs=$bs --size=64k \
				--offset=$((s * 262144 + d * 65536)) >/tmp/v.out 2>&1 ||
				{ cat /tmp/v.out; fail "final verify w$s$d"; }
		done
	done
}

note "healthy"
hammer 20
echo check > $S/sync_action
sleep 1
wait_sync md0
[ "$(cat $S/mismatch_cnt)" = 0 ] || fail "mismatch_cnt $(cat $S/mismatch_cnt) after concurrent writes"
echo "rmw=$(cat $S/km/rmw_writes) rcw=$(cat $S/km/rcw_writes) full=$(cat $S/km/full_stripe_writes)"

note "degraded (one data member of the hammered rows failed)"
check mdadm_km /dev/md0 --fail /dev/ram1
hammer 10
check mdadm_km --stop /dev/md0
rmmod brd 2>/dev/null
echo PASS
