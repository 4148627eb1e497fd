# covers: bridge: guest-RAM bridge; km: member log
# The member log's parity work coded by raidkmd (issue #31: it goes
# through the job path).  Boot 1: km 4+2 with a member log and a bitmap
# on six persistent virtio disks (dm-linear; members 1 and 2 write 300
# ms late through dm-delay), sequential 1 MiB writes (full stripes of an
# optimal array: left to the bitmap, not logged), then a power cut
# (sysrq-b).  Boot 2: raidkm-relay attaches the host's raidkmd first
# (placement daemon), then the assembly recomputes the parity of the
# bitmap's dirty regions before the array serves, with ENCODE jobs that
# the daemon codes (jobs_offloaded grows during the assembly, when
# nothing else runs), and every stripe's P parity matches its data on
# the members (rkm-parity, the array stopped read-auto before any
# resync); then a check finds no mismatch.
# bridge: yes
# boots: 2
# disks: 6 32
# timeout: 300
. /lib/raidkm/lib.sh

N=6 MIB=32
VDS="a b c d e f"
S=/sys/block/md0/md
MP=/sys/module/md_mod/parameters
check modprobe raidkm arena_mb=256
check sh -c "echo daemon >/sys/module/raidkm/parameters/placement"
linear_members $MIB $VDS

jstat() {
	sed -n "s/^$1 //p" $S/km/journal
}

if [ "$RKM_PHASE" = 1 ]; then
	note "boot 1: full-stripe writes on slow members, then a power cut"
	check mdadm_km --create /dev/md0 --run --assume-clean --level=km \
		--layout=m2,log --raid-devices=$N --chunk=64 --bitmap=internal $DEVS
	full_stripes_on_slow $MIB /dev/vdb /dev/vdc
	[ "$(jstat bitmap_writes)" -gt 0 ] || fail "no full stripe left to the bitmap before the power cut"
	crash_guest
fi

note "boot 2: raidkmd attached, then the assembly replays the log"
start_relay
o0=$(rkm_stat jobs_offloaded)
echo 1 >$MP/start_ro
check mdadm_km --assemble /dev/md0 $DEVS
echo 0 >$MP/start_ro
o1=$(rkm_stat jobs_offloaded)
dmesg | grep 'md/km:md0: member log'
cat $S/km/journal
r=$(jstat recomputed_rows)
[ "$r" -gt 0 ] || fail "no row's parity recomputed after a power cut under full-stripe writes"
echo "replay: $r rows recomputed, $((o1 - o0)) jobs coded by raidkmd ($RKM_BRIDGE)"
# one ENCODE job per chunk stripe of 16 rows (64 KiB chunks)
[ $((o1 - o0)) -ge $((r / 16)) ] ||
	fail "the replay's $((r / 16)) encodes were not coded by raidkmd: jobs_offloaded $o0 -> $o1"
members_parity_ok $DEVS
check mdadm_km --assemble /dev/md0 $DEVS
check_clean md0 "after the replay"
check mdadm_km --stop /dev/md0
wait_md_gone md0
echo PASS
