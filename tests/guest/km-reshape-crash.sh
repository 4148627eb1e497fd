# covers: km: reshape across a power cut; km: unclean shutdown
# A power cut in the middle of each kind of reshape.
# A km 3+2 array on five virtio disks holds fio-verified data (A, then B
# written while the reshape runs, both ended by a flush).  Boot 1: grow k
# to 4+2 onto a sixth disk and cut the power (sysrq-b) half way, while
# random writes go on elsewhere.  Boot 2: mdadm assembles the array from
# the same disks, the reshape resumes from the position the superblocks
# recorded and ends; A and B verify and km's check finds no mismatch.
# Then grow m to 4+3 onto a seventh disk and cut the power again.
# Boot 3: the same checks, then three members fail and the data still
# verify.
# boots: 3
# disks: 7 32
# timeout: 600
. /lib/raidkm/lib.sh

S=/sys/block/md0/md
old="/dev/vda /dev/vdb /dev/vdc /dev/vdd /dev/vde"
for d in $old /dev/vdf /dev/vdg; do [ -b $d ] || fail "no $d"; done
load_raidkm

A="--name=a --rw=write --bs=64k --size=24M --offset=0 --randseed=3"
B="--name=b --rw=randwrite --bs=16k --size=8M --offset=48M --randseed=5"
slow() { echo "$1" >/proc/sys/dev/raid/speed_limit_max; }

# cut LABEL MDADM-GROW-ARGS...: start a slowed reshape, write B and flush
# it while the reshape runs, keep writing elsewhere, cut the power half way
cut() {
	label=$1
	shift
	slow 1000
	check mdadm_km --grow /dev/md0 "$@"
	sleep 1
	fiov $B --do_verify=1 --end_fsync=1
	fio --filename=/dev/md0 --direct=1 --ioengine=libaio --iodepth=8 \
		--name=c --rw=randwrite --bs=4k --size=4M --offset=64M \
		--time_based --runtime=60 >/dev/null 2>&1 &
	sleep 2
	pos=$(cat $S/reshape_position)
	[ "$pos" != none ] && [ "$pos" -gt 0 ] ||
		fail "$label: reshape_position $pos: not in the middle"
	echo "$label: power cut with the reshape at array sector $pos of $(cat /sys/block/md0/size)"
	crash_guest
}

# after LABEL DISKS RAID_DISKS LAYOUT: assemble after the cut; the reshape
# resumes and ends; the data verify; no mismatch
after() {
	label=$1 disks=$2
	note "boot $RKM_PHASE: assemble after the power cut in $label"
	mdadm_km --examine /dev/vda | grep -E 'Reshape pos|Delta Devices|New Layout' ||
		fail "$label: --examine shows no reshape in progress"
	dmesg -c >/dev/null
	check mdadm_km --assemble /dev/md0 $disks
	sleep 0.5
	dmesg | grep 'md/km:md0: reshape .* resumes at array sector' ||
		fail "$label: no resume line: $(dmesg | grep km)"
	wait_sync md0
	[ "$(cat $S/reshape_position)" = none ] || fail "$label: reshape_position $(cat $S/reshape_position)"
	[ "$(cat $S/raid_disks)" = "$3" ] || fail "$label: raid_disks $(cat $S/raid_disks)"
	[ "$(cat $S/layout)" = "$4" ] || fail "$label: layout $(cat $S/layout)"
	fiov $A --verify_only || fail "$label: region A changed"
	fiov $B --verify_only || fail "$label: region B changed"
	check_clean md0 "$label"
}

case "$RKM_PHASE" in
1)
	note "boot 1: km 3+2, data, grow k to 4+2, power cut half way"
	check mdadm_km --create /dev/md0 --run --assume-clean --level=km \
		--layout=m2 --raid-devices=5 --chunk=64 $old
	fiov $A --do_verify=1 --end_fsync=1
	check mdadm_km /dev/md0 --add /dev/vdf
	cut "grow k" --raid-devices=6
	;;
2)
	after "grow k" "$old /dev/vdf" 6 2
	note "boot 2: grow m to 4+3, power cut half way"
	check mdadm_km /dev/md0 --add /dev/vdg
	cut "grow m" --layout=m3 --raid-devices=7
	;;
3)
	after "grow m" "$old /dev/vdf /dev/vdg" 7 3
	note "boot 3: three members fail, the data verify"
	check mdadm_km /dev/md0 --fail /dev/vda --fail /dev/vdd --fail /dev/vdg
	fiov $A --verify_only || fail "region A changed with three failed"
	fiov $B --verify_only || fail "region B changed with three failed"
	check mdadm_km --stop /dev/md0
	echo "km-reshape-crash: ok"
	;;
esac
