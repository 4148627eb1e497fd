# covers: km: NVMe-oF export; km: degraded I/O; km: rebuild
# Serving beyond one host.  A km 4+3 array exported through the
# kernel's NVMe-oF target (nvmet, nvmet-tcp; configfs) on 127.0.0.1:4420
# and imported by the kernel's NVMe/TCP initiator (nvme-tcp, through
# /dev/nvme-fabrics as "nvme connect" does): the namespace has the array's
# size; fio --verify=crc32c on the namespace goes on without an error while
# m=3 members are failed, removed, added back and rebuilt underneath (I/O
# running during the rebuild); data written through the initiator reads
# back with three other members failed; then the initiator disconnects and
# the target's configfs tree comes down, leaving md0 and the modules free.
# timeout: 180
. /lib/raidkm/lib.sh

N=7 M=3
NQN=nqn.2024-06.org.raidkm:export-md0
CFG=/sys/kernel/config/nvmet
SUB=$CFG/subsystems/$NQN
PORT=$CFG/ports/1

ramdisks $N 16
load_raidkm
check mdadm_km --create /dev/md0 --run --assume-clean --level=km \
	--layout=m$M --chunk=64 --raid-devices=$N $(members $N)

note "target: nvmet, nvmet-tcp, configfs"
check modprobe nvmet
check modprobe nvmet-tcp
grep -q ' /sys/kernel/config configfs' /proc/mounts ||
	check mount -t configfs configfs /sys/kernel/config
[ -d $CFG ] || fail "no $CFG after modprobe nvmet"
check ip link set lo up
check mkdir $SUB
echo 1 >$SUB/attr_allow_any_host || fail "attr_allow_any_host"
check mkdir $SUB/namespaces/1
printf /dev/md0 >$SUB/namespaces/1/device_path || fail "device_path"
echo 1 >$SUB/namespaces/1/enable || fail "enabling namespace 1 (/dev/md0)"
check mkdir $PORT
echo tcp >$PORT/addr_trtype && echo ipv4 >$PORT/addr_adrfam &&
	echo 127.0.0.1 >$PORT/addr_traddr && echo 4420 >$PORT/addr_trsvcid ||
	fail "port attributes"
check ln -s $SUB $PORT/subsystems/$NQN

note "initiator: nvme-tcp connects to 127.0.0.1:4420"
check modprobe nvme-tcp
[ -c /dev/nvme-fabrics ] || fail "no /dev/nvme-fabrics"
# what "nvme connect -t tcp -a 127.0.0.1 -s 4420 -n NQN" writes; reading
# the same open file back names the new controller
exec 3<>/dev/nvme-fabrics
echo "transport=tcp,traddr=127.0.0.1,trsvcid=4420,nqn=$NQN" >&3 ||
	fail "connect through /dev/nvme-fabrics refused"
read -r reply <&3
exec 3>&-
echo "connected: $reply"
inst=$(echo "$reply" | sed -n 's/^instance=\([0-9]*\),.*/\1/p')
[ -n "$inst" ] || fail "no controller instance in '$reply'"
ctrl=/sys/class/nvme/nvme$inst
[ "$(cat $ctrl/subsysnqn)" = "$NQN" ] || fail "nvme$inst is not $NQN"
[ "$(cat $ctrl/transport)" = tcp ] || fail "nvme$inst transport $(cat $ctrl/transport)"

# ns: the namespace's block device (nvmeXnY; nvmeXcYnZ are the hidden
# paths of native multipath); it appears a moment after connecting
i=0 ns=""
while [ -z "$ns" ]; do
	for b in /sys/block/nvme*n*; do
		case ${b##*/} in *c*) continue ;; esac
		[ "$(cat $b/device/subsysnqn 2>/dev/null)" = "$NQN" ] && ns=${b##*/}
	done
	[ -n "$ns" ] && [ -b /dev/$ns ] && break
	ns=""
	i=$((i + 1))
	[ $i -le 100 ] || fail "no namespace of $NQN 10 s after connecting"
	sleep 0.1
done
md_bytes=$(blockdev --getsize64 /dev/md0)
ns_bytes=$(blockdev --getsize64 /dev/$ns)
echo "initiator sees /dev/$ns: $ns_bytes bytes, lba $(cat /sys/block/$ns/queue/logical_block_size); md0: $md_bytes bytes"
[ "$ns_bytes" -gt 0 ] && [ "$ns_bytes" = "$md_bytes" ] ||
	fail "namespace $ns_bytes bytes, array $md_bytes"

# fio_ns ARGS...: fio with crc32c verification on the namespace
fio_ns() {
	fio --name=ns --filename=/dev/$ns --direct=1 --ioengine=libaio \
	    --iodepth=8 --verify=crc32c --verify_fatal=1 "$@" >/tmp/fio.out 2>&1
}

# live WHEN: the initiator's controller is still connected
live() {
	[ "$(cat $ctrl/state)" = live ] || fail "nvme$inst is $(cat $ctrl/state) $1"
}

# degraded_is D: md0 misses D members
degraded_is() {
	[ "$(cat /sys/block/md0/md/degraded)" = "$1" ] ||
		fail "md0 degraded=$(cat /sys/block/md0/md/degraded), wanted $1"
}

note "fio write + verify through NVMe/TCP, healthy"
fio_ns --rw=write --bs=64k --size=32M || { cat /tmp/fio.out; fail "fio, healthy"; }

note "random writes verified as they go while $M members fail and rebuild"
# fio passes back to back (random writes, verified as they go) until
# /tmp/ns.stop exists, so that I/O runs through every step below however
# long each takes; the rebuild paced to last a few seconds
echo 8000 >/sys/block/md0/md/sync_speed_max || fail "sync_speed_max 8000"
rm -f /tmp/ns.stop /tmp/ns.bad /tmp/ns.passes
(
	p=0
	while [ ! -e /tmp/ns.stop ]; do
		p=$((p + 1))
		fio_ns --rw=randwrite --bs=16k --size=32M --number_ios=512 \
			--verify_backlog=64 --randseed=$p ||
			{ cp /tmp/fio.out /tmp/ns.bad; exit 1; }
		echo $p >/tmp/ns.passes
	done
) &
fio=$!
# load_on WHEN: the fio passes are still running, none failed
load_on() {
	[ -e /tmp/ns.bad ] && { cat /tmp/ns.bad; fail "fio on /dev/$ns $1"; }
	kill -0 $fio 2>/dev/null || fail "the fio passes ended $1"
}
sleep 2
for d in $(members $M 1); do
	check mdadm_km /dev/md0 --fail $d
	sleep 0.5
done
degraded_is $M
live "with $M members failed"
check mdadm_km /dev/md0 --remove $(members $M 1)
sleep 1
load_on "with $M members removed"
check mdadm_km /dev/md0 --add $(members $M 1)
i=0
until grep -q recovery /proc/mdstat; do
	i=$((i + 1))
	[ $i -le 50 ] || fail "no recovery 5 s after --add: $(cat /proc/mdstat)"
	sleep 0.1
done
load_on "when the rebuild started"
grep -A3 '^md0' /proc/mdstat
live "during the rebuild"
wait_sync md0
load_on "during the rebuild"
touch /tmp/ns.stop
wait $fio || { cat /tmp/ns.bad; fail "fio on /dev/$ns during fail/remove/add/rebuild"; }
echo "rebuild over under $(cat /tmp/ns.passes) fio passes"
grep 'err=' /tmp/fio.out
degraded_is 0
live "after the rebuild"
echo system >/sys/block/md0/md/sync_speed_max || fail "sync_speed_max system"
check_clean md0 "rebuild under NVMe/TCP I/O"

note "write through the initiator, read back with $M other members failed"
fio_ns --rw=write --bs=64k --size=32M --do_verify=0 ||
	{ cat /tmp/fio.out; fail "fio write"; }
for d in $(members $M 4); do
	check mdadm_km /dev/md0 --fail $d
done
degraded_is $M
fio_ns --rw=write --bs=64k --size=32M --verify_only ||
	{ cat /tmp/fio.out; fail "fio verify with $M members failed"; }
live "with $M members failed"
[ "$(blockdev --getsize64 /dev/$ns)" = "$md_bytes" ] ||
	fail "namespace size changed while degraded"

note "disconnect, tear down the target"
echo 1 >$ctrl/delete_controller || fail "delete_controller"
i=0
while [ -e /dev/$ns ] || [ -e $ctrl ]; do
	i=$((i + 1))
	[ $i -le 100 ] || fail "nvme$inst / $ns still there 10 s after disconnecting"
	sleep 0.1
done
check rm $PORT/subsystems/$NQN
check rmdir $PORT
echo 0 >$SUB/namespaces/1/enable || fail "disabling namespace 1"
check rmdir $SUB/namespaces/1
check rmdir $SUB
check rmmod nvme_tcp
check rmmod nvmet_tcp
check rmmod nvmet
check mdadm_km --stop /dev/md0
wait_md_gone md0
echo "export-nvmet: ok"
