# covers: mdadm: auto-assembly (--assemble --scan, -I)
# Arrays come up by themselves.  With the personality's module
# NOT loaded, "mdadm --assemble --scan" from an mdadm.conf ARRAY line
# (written by "mdadm --detail --scan") loads it through md's
# request_module("md-level-N") and starts the array; members that appear
# one by one through "mdadm -I" (what udev runs) start it once all are
# there; with members missing, "mdadm -IRs" starts it degraded and the
# late members come back through "mdadm -I".  The same steps run on md
# raid6 4+2 first as the reference and km 4+2 must go through exactly the
# same states; data written by fio --verify=crc32c before verifies after
# every assembly.
# timeout: 150
. /lib/raidkm/lib.sh

# What a Debian system has at /sbin/modprobe (kmod); the busybox guest
# has no /sbin/modprobe, so md's request_module would find nothing.
echo /bin/modprobe >/proc/sys/kernel/modprobe

N=6
ramdisks $((2 * N)) 8

# fio_md ARGS...: fio with crc32c verification on /dev/md0, the same
# 24 MiB each time (write it, or --verify_only)
fio_md() {
	fio --name=scan --filename=/dev/md0 --rw=write --bs=64k --size=16M \
	    --direct=1 --ioengine=libaio --iodepth=8 --verify=crc32c \
	    --verify_fatal=1 "$@" >/tmp/fio.out 2>&1 ||
		{ cat /tmp/fio.out; fail "$level: fio $* on /dev/md0"; }
}

# verify WHEN: the data written at the start reads back intact
verify() {
	fio_md --verify_only
	echo "$level: verified after $1"
}

# state: md0 as an admin sees it: none, inactive with how many members,
# or running (read-auto: not written since started) with its member
# count, raid_disks and how many are missing
state() {
	s=/sys/block/md0/md
	if [ ! -e $s/array_state ]; then
		echo none
		return
	fi
	as=$(cat $s/array_state)
	nd=$(ls -d $s/dev-* 2>/dev/null | wc -l)
	case $as in
	inactive) echo "inactive/$nd" ;;
	clean|active|active-idle|write-pending)
		echo "running/$nd/$(cat $s/raid_disks)/degraded=$(cat $s/degraded)" ;;
	read-auto)
		echo "read-auto/$nd/$(cat $s/raid_disks)/degraded=$(cat $s/degraded)" ;;
	*) echo "$as/$nd" ;;
	esac
}

# step WHAT: record md0's state after WHAT in the trace
step() {
	st=$(state)
	echo "$level: $1: $st"
	trace="$trace $1=$st;"
}

# expect WANT: md0 is in state WANT now (and record it)
expect() {
	step "$2"
	[ "$st" = "$1" ] || fail "$level: after $2: md0 is '$st', wanted '$1'"
}

# wait_rebuilt: until md0 has no member missing and no recovery running
# (30 s at most; md starts the recovery a moment after --add)
wait_rebuilt() {
	i=0
	until [ "$(cat /sys/block/md0/md/degraded)" = 0 ] &&
	      [ "$(cat /sys/block/md0/md/sync_action)" = idle ]; do
		i=$((i + 1))
		[ $i -le 300 ] || fail "$level: md0 not rebuilt after 30 s: $(cat /proc/mdstat)"
		sleep 0.1
	done
}

stop_md0() {
	check mdadm_km --stop /dev/md0
	wait_md_gone md0
}

# unload: stop md0 and unload the personality's module
unload() {
	stop_md0
	check rmmod $mod
	[ -d /sys/module/$mod ] && fail "$level: $mod still loaded after rmmod"
	true
}

# uuid_of DEV: the array UUID in DEV's superblock
uuid_of() {
	mdadm_km --examine "$1" | sed -n 's/^ *Array UUID : //p'
}

# scenario LEVEL MODULE FIRST-MEMBER CREATE-ARGS...
scenario() {
	level=$1 mod=$2 first=$3
	shift 3
	trace=""
	conf=/tmp/$level.conf
	devs=$(members $N $first)
	set -- $devs
	d0=$1 d5=$6 d4=$5

	note "$level: create on $devs, write data"
	check mdadm_km --create /dev/md0 --run --assume-clean --level=$level \
		--raid-devices=$N --name=scan-$level $CREATE_ARGS $devs
	[ -d /sys/module/$mod ] || fail "$level: --create did not load $mod"
	expect running/6/6/degraded=0 create
	fio_md
	uuid=$(uuid_of $d0)
	[ -n "$uuid" ] || fail "$level: no Array UUID on $d0"
	# what an admin appends to /etc/mdadm/mdadm.conf
	{
		echo "DEVICE $devs"
		mdadm_km --detail --scan
	} >$conf
	cat $conf
	grep -q "^ARRAY /dev/md0 .*UUID=$uuid" $conf ||
		fail "$level: --detail --scan wrote no ARRAY line for $uuid"
	unload

	note "$level: --assemble --scan, $mod not loaded"
	out=$(mdadm_km --assemble --scan --config=$conf 2>&1)
	echo "$out"
	[ -d /sys/module/$mod ] || fail "$level: --assemble --scan did not load $mod"
	expect running/6/6/degraded=0 assemble-scan
	[ "$(mdadm_km --detail /dev/md0 | sed -n 's/^ *UUID : //p')" = "$uuid" ] ||
		fail "$level: --assemble --scan assembled another array"
	verify "--assemble --scan"
	unload

	note "$level: members appear one by one (mdadm -I), $mod not loaded"
	i=0
	for d in $devs; do
		i=$((i + 1))
		out=$(mdadm_km -I --config=$conf $d 2>&1)
		echo "$out"
		if [ $i -lt $N ]; then
			expect inactive/$i incr-$i
		else
			expect running/6/6/degraded=0 incr-$i
		fi
	done
	[ -d /sys/module/$mod ] || fail "$level: mdadm -I did not load $mod"
	verify "mdadm -I of all members"
	stop_md0

	note "$level: $((N - 2)) of $N members, then mdadm -IRs"
	for d in $(members $((N - 2)) $first); do
		check mdadm_km -I --config=$conf $d
	done
	expect inactive/4 incr-partial
	out=$(mdadm_km -IRs --config=$conf 2>&1)
	echo "$out"
	# started read-auto, as md does for arrays assembled by mdadm -I: the
	# first write makes it active
	expect read-auto/4/6/degraded=2 incr-run
	verify "mdadm -IRs with 2 members missing"
	# the data changes while two members are away
	fio_md
	expect running/4/6/degraded=2 written-degraded
	# what udev runs (Debian's 64-md-raid-assembly.rules: no --run) does
	# not add a late member to a running array without a bitmap
	note "$level: the missing members appear late (mdadm -I)"
	for d in $d4 $d5; do
		out=$(mdadm_km -I --config=$conf $d 2>&1)
		echo "$out"
	done
	expect running/4/6/degraded=2 late-members-no-run
	# nor with --run: they missed writes and, without a bitmap, md takes
	# them back only as spares, which mdadm -I leaves to the admin
	note "$level: mdadm -I --run"
	for d in $d4 $d5; do
		mdadm_km -I --run --config=$conf $d 2>&1 && fail "$level: mdadm -I --run added stale $d"
	done
	expect running/4/6/degraded=2 late-members-run
	note "$level: the admin adds them back (mdadm --add), rebuild"
	check mdadm_km /dev/md0 --add $d4 $d5
	wait_rebuilt
	expect running/6/6/degraded=0 late-members
	verify "the late members' rebuild"
	check_clean md0 "after the late members' rebuild"

	note "$level: --detail --scan --verbose of the rebuilt array"
	{
		echo "DEVICE $devs"
		mdadm_km --detail --scan --verbose | grep '^ARRAY'
	} >$conf
	cat $conf
	grep -q "^ARRAY /dev/md0 level=$level num-devices=$N .*UUID=$uuid" $conf ||
		fail "$level: --detail --scan --verbose: no level=$level ARRAY line"
	unload
	out=$(mdadm_km --assemble --scan --config=$conf 2>&1)
	echo "$out"
	[ -d /sys/module/$mod ] || fail "$level: --assemble --scan did not load $mod"
	expect running/6/6/degraded=0 assemble-scan-2
	verify "--assemble --scan from the --verbose line"
	stop_md0
}

# the modules the personalities need besides their own (no udev here to
# load crc32c for raid456's libcrc32c)
check modprobe crc32c_generic
[ -d /sys/module/raidkm ] && fail "raidkm loaded before the test"

CREATE_ARGS=""
scenario raid6 raid456 $N
ref=$trace
CREATE_ARGS="--layout=m2"
scenario km raidkm 0
echo "raid6:$ref"
echo "km:   $trace"
[ "$trace" = "$ref" ] || fail "km went through other states than raid6"
echo "mdadm-scan: ok"
