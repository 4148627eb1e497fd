# covers: codec: self-test at load; codec: implementation choice
# raidkm's codec initialises in the guest kernel: every
# implementation the (emulated) CPU supports passes its known-answer check
# against the scalar reference, one is chosen, and the module parameter
# codec_impl names it (root may write another to force it: bad names are
# refused, scalar and back are taken).  The chosen one passed the self-test in
# every decode form and both ways of P+Q (built with this kernel's flags:
# 6.12's -funsigned-char once broke AVX2's doubling) and none was refused.
# No timing is asserted.
# timeout: 90
. /lib/raidkm/lib.sh

load_raidkm
log=$(dmesg | grep 'raidkm: codec')
echo "$log"

param=/sys/module/raidkm/parameters/codec_impl
[ -r $param ] || fail "no $param"
impl=$(cat $param)
case "$impl" in
scalar|ssse3|avx2|avx512|gfni-avx2|gfni) ;;
*) fail "codec_impl is '$impl', not a known implementation" ;;
esac
echo "$log" | grep -q "raidkm: codec chose $impl (.*), self-test ok in every form" ||
	fail "dmesg has no 'codec chose $impl ..., self-test ok' line"
echo "$log" | grep -Eq "self-test: |refused" &&
	fail "an implementation failed its self-test"
for p in codec_decode_form codec_pq; do
	[ -r /sys/module/raidkm/parameters/$p ] || fail "no parameter $p"
done
echo "$log" | grep -q "raidkm: codec scalar: known-answer ok" ||
	fail "the scalar reference did not pass its known-answer check"
echo "$log" | grep -q "raidkm: codec $impl: known-answer ok" ||
	fail "the chosen $impl has no known-answer ok line"
echo "$log" | grep -q "known-answer check failed" &&
	fail "an implementation failed its known-answer check"

# every implementation the guest CPU supports was checked
flags=$(grep -m1 '^flags' /proc/cpuinfo)
has() { echo " $flags " | grep -q " $1 "; }
want="scalar"
has ssse3 && want="$want ssse3"
has avx2 && want="$want avx2"
has avx512bw && want="$want avx512"
has avx2 && has gfni && want="$want gfni-avx2"
has avx512bw && has gfni && want="$want gfni"
for w in $want; do
	echo "$log" | grep -q "raidkm: codec $w: known-answer ok" ||
		fail "CPU supports $w but dmesg has no known-answer ok line for it"
done

# root may force another implementation (tests); bad names change nothing
for v in bogus "" "scalar avx2"; do
	(echo "$v" > $param) 2>/dev/null && fail "codec_impl accepted '$v'"
done
[ "$(cat $param)" = "$impl" ] || fail "codec_impl changed after a bad write"
check sh -c "echo scalar > $param"
[ "$(cat $param)" = scalar ] || fail "codec_impl is '$(cat $param)' after writing scalar"
check sh -c "echo $impl > $param"
[ "$(cat $param)" = "$impl" ] || fail "codec_impl is '$(cat $param)' after writing $impl back"

# the module unloads and loads again with the same checks
check rmmod raidkm
check modprobe raidkm
[ -r $param ] || fail "no $param after reload"
echo "codec-selftest: ok ($impl; checked: $want)"
