#!/bin/sh
# tests/plugins/test-conform-repeat.sh - the conformance suite's driver
# (conform/driver.c). `weft conform --repeat=K` runs the groups whose
# outcome can depend on timing (lifetime, ordering) K times, each run in a
# child of its own, their lines labelled "GROUP (run r of K)", and every
# other group once; a count that is not 1 to 1000 is a usage error naming
# --repeat. A group's child that exits, or dies of a signal without a
# name (tests/plugins/conform-die.c), is one failed test saying how and in
# which test, then a '#' line saying what runs next, and the later groups
# and runs still run.
set -u
dir="$WEFT_BUILDDIR/tests/plugins/broken/.libs"
template="$WEFT_BUILDDIR/plugins/template/.libs/weft-backend-template.so"
. "$WEFT_SRCDIR/tests/plugins/conform-lib.sh"
needs "$template" "the template backend"
needs "$dir/weft-backend-brk-exit.so" "the broken template backends"

# results FILE: how many result lines FILE holds.
results() {
	grep -c '^\(not \)\?ok [0-9]' "$1"
}

# ---- --repeat -----------------------------------------------------------------
"$weft" conform --repeat=1 --only=lifetime,ordering "$template" > "$tmp/once.tap" 2>&1
rc1=$?
"$weft" conform --repeat=3 --only=lifetime,ordering "$template" > "$tmp/thrice.tap" 2>&1
rc3=$?
once=$(results "$tmp/once.tap")
thrice=$(results "$tmp/thrice.tap")
[ "$rc1" -eq 0 ] && [ "$rc3" -eq 0 ] && [ "$once" -gt 0 ] &&
	[ "$thrice" -eq $((3 * once)) ] && grep -qx "1\.\.$thrice" "$tmp/thrice.tap" &&
	! grep -q '(run ' "$tmp/once.tap" &&
	grep -q '^ok [0-9]* - lifetime (run 3 of 3): ' "$tmp/thrice.tap" &&
	grep -q '^ok [0-9]* - ordering (run 3 of 3): ' "$tmp/thrice.tap" &&
	grep -qx '# lifetime and ordering run 3 times (--repeat), each run in a child of its own' "$tmp/thrice.tap"
ok $? "--repeat=3 --only=lifetime,ordering: 3 x the results of --repeat=1 ($thrice and $once; exit $rc3 and $rc1), labelled up to '(run 3 of 3)'"
[ "$rc3" -eq 0 ] || diag "$tmp/thrice.tap"

# Each run holds the tests of a single run, in the same order.
sed -n 's/^ok [0-9]* - //p' "$tmp/once.tap" > "$tmp/once.txt"
same=0
[ -s "$tmp/once.txt" ] || same=1
for r in 1 2 3; do
	sed -n "s/^ok [0-9]* - \([a-z]*\) (run $r of 3):/\1:/p" "$tmp/thrice.tap" > "$tmp/run$r.txt"
	cmp -s "$tmp/once.txt" "$tmp/run$r.txt" || same=1
done
ok $same "--repeat=3: run 1, 2 and 3 each give the tests of --repeat=1, in order"
# lifetime's runs come first, then ordering's.
sed -n 's/^ok [0-9]* - \([a-z]* (run [0-9] of 3)\):.*/\1/p' "$tmp/thrice.tap" | uniq > "$tmp/order.txt"
printf '%s\n' "lifetime (run 1 of 3)" "lifetime (run 2 of 3)" "lifetime (run 3 of 3)" \
	"ordering (run 1 of 3)" "ordering (run 2 of 3)" "ordering (run 3 of 3)" | cmp -s - "$tmp/order.txt"
ok $? "--repeat=3: the runs of lifetime, then those of ordering"

# Other groups run once, unlabelled ("--repeat K" as two arguments too).
"$weft" conform --only=alloc "$template" > "$tmp/alloc.tap" 2>&1
"$weft" conform --repeat 2 --only=alloc,lifetime "$template" > "$tmp/two.tap" 2>&1
rc=$?
a1=$(grep -c '^ok [0-9]* - alloc: ' "$tmp/alloc.tap")
a2=$(grep -c '^ok [0-9]* - alloc: ' "$tmp/two.tap")
[ "$rc" -eq 0 ] && [ "$a1" -gt 0 ] && [ "$a1" -eq "$a2" ] && ! grep -q 'alloc (run' "$tmp/two.tap" &&
	grep -q '^ok [0-9]* - lifetime (run 2 of 2): ' "$tmp/two.tap" &&
	grep -qx '# lifetime runs 2 times (--repeat), each run in a child of its own' "$tmp/two.tap"
ok $? "--repeat 2 --only=alloc,lifetime: alloc runs once ($a2 results, $a1 alone), lifetime twice (exit $rc)"

for bad in 0 x 1001 -1 2x ''; do
	"$weft" conform --repeat="$bad" "$template" > "$tmp/bad.out" 2> "$tmp/bad.err"
	rc=$?
	[ "$rc" -eq 2 ] && [ ! -s "$tmp/bad.out" ] &&
		grep -qx "weft: --repeat needs a number of runs (1 to 1000), not '$bad' (see 'weft --help')" "$tmp/bad.err"
	ok $? "--repeat=$bad is a usage error naming the option (exit $rc)"
done

# ---- a child that does not end its group --------------------------------------
caught brk-exit 'not ok .* - alloc: exited with status 3 in "free(NULL) does nothing"' \
	"a child that exits with status 3" --only=alloc,align
grep -A 1 '^not ok [0-9]* - alloc: exited' "$tmp/brk-exit.tap" | tail -n 1 |
	grep -qx '# the rest of group alloc did not run; the suite goes on with group align'
ok $? "brk-exit: the '#' line after it says the suite goes on with group align"
caught brk-rtsig 'not ok .* - alloc: crashed with signal [0-9][0-9]* in "free(NULL) does nothing"' \
	"a child killed by a signal without a name" --only=alloc
grep -A 1 '^not ok [0-9]* - alloc: crashed' "$tmp/brk-rtsig.tap" | tail -n 1 |
	grep -qx '# the rest of group alloc did not run; it was the last group to run'
ok $? "brk-rtsig: the '#' line after it says alloc was the last group"

# A crash before repeated groups: they all still run, and the '#' line
# names the first run.
"$weft" conform --repeat=2 --only=alloc,lifetime,ordering "$dir/weft-backend-brk-freenull.so" > "$tmp/crash2.tap" 2>&1
rc=$?
[ "$rc" -eq 1 ] &&
	grep -A 1 '^not ok [0-9]* - alloc: crashed with' "$tmp/crash2.tap" | tail -n 1 |
	grep -qx '# the rest of group alloc did not run; the suite goes on with group lifetime (run 1 of 2)' &&
	grep -q '^ok [0-9]* - ordering (run 2 of 2): ' "$tmp/crash2.tap" &&
	grep -qx "1\.\.$(results "$tmp/crash2.tap")" "$tmp/crash2.tap"
ok $? "brk-freenull --repeat=2: alloc crashes, the runs of lifetime and ordering still run (exit $rc)"
[ "$rc" -eq 1 ] || diag "$tmp/crash2.tap"

tap_done
