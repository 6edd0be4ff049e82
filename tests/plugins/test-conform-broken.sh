#!/bin/sh
# tests/plugins/test-conform-broken.sh - the conformance suite catches every
# broken promise: `weft conform` on each plugin of tests/plugins/broken.c
# (the template backend with one function broken) exits with status 1 and
# a `not ok` line in the group that states the promise; the template
# itself, and the wrapper with nothing broken, pass (status 0).
set -u
dir="$WEFT_BUILDDIR/tests/plugins/broken/.libs"
template="$WEFT_BUILDDIR/plugins/template/.libs/weft-backend-template.so"
. "$WEFT_SRCDIR/tests/plugins/conform-lib.sh"
needs "$dir/weft-backend-intact.so" "the template backend"

passes "$dir/weft-backend-intact.so" "the template through the wrapper, nothing broken"
if [ -f "$template" ]; then
	passes "$template" "the template backend"
else
	skip "the template backend passes" "$template is not built"
fi

caught brk-misalign   'not ok .* - align: '         "misaligned buffers"
caught brk-alloc0     'not ok .* - alloc: 0 bytes'  "alloc(0) refused"
# SIGSEGV; SIGABRT in a sanitizer build, where UBSan stops at the NULL store.
caught brk-freenull   'not ok .* - alloc: crashed with \(SIGSEGV\|SIGABRT\) in "free(NULL)' "free(NULL) crashing" --only=alloc,align,transfer
caught brk-readoff    'not ok .* - transfer: .*offsets 0 and 7' "a read that ignores its offset"
caught brk-asyncorder 'not ok .* - async-order: overlapping async writes' "async writes applied out of order"
caught brk-nobounds   'not ok .* - invalid-args: write of 16 bytes at offset' "a write without a bounds check"
caught brk-oversize   'not ok .* - oversize: allocating' "an allocation failure without the byte count"
caught brk-uncounted  'not ok .* - counters: transfers are counted' "a transfer not counted"
caught brk-stepsync   'not ok .* - counters: step(1000) makes zero synchronisations' "a sync inside step()"
caught brk-overrun    'not ok .* - guard: ' "launches running one item past the extent"
caught brk-devextent  'not ok .* - device-extent: ' "device-side extents ignored"
caught brk-dropstep   'not ok .* - models: seir state' "a model step dropped"
caught brk-hang       'not ok .* - counters: did not finish in 2 s in "' "a sync that never returns" --timeout=2 --only=counters
caught brk-waitpending 'not ok .* - fence: wait(token) makes the async reads issued before the fence visible' "a wait() that leaves earlier async reads pending"
caught brk-nativeoff  'not ok .* - native: host memory: what write() and a launch wrote is read through the handle' "native() reporting the wrong memory"
caught brk-shortblock 'not ok .* - guard: live buffers do not share memory' "blocks that end inside their neighbour"
caught brk-repstride  'not ok .* - replicas: .*5 replicas of 200 items.*' "step_replicas() shifting every slot by slot 0's stride" --only=replicas
caught brk-repcount   'not ok .* - replicas: .*5 replicas of 200 items.*' "step_replicas() ignoring the count's stride" --only=replicas
caught brk-repalign   'not ok .* - replicas: a stride that is not a multiple of 64' "step_replicas() accepting a stride that is not a multiple of 64" --only=replicas
caught brk-repcounted 'not ok .* - replicas: step_replicas(100) of 6 launches on 5 replicas counts' "step_replicas() counting a launch per replica" --only=replicas

# A crash ends its group only: the line after it says what runs next, and
# the groups after alloc still run and report (brk-freenull's last run).
f="$tmp/brk-freenull.tap"
grep -A 1 '^not ok [0-9]* - alloc: crashed with' "$f" | tail -n 1 |
	grep -qx '# the rest of group alloc did not run; the suite goes on with group align' &&
	awk '/^not ok [0-9]* - alloc: crashed with/ { c = 1 }
	     c && /^ok [0-9]* - align: / { a = 1 }
	     c && /^ok [0-9]* - transfer: / { t = 1 }
	     END { exit !(a && t) }' "$f" &&
	grep -qx "1\.\.$(grep -c '^\(not \)\?ok [0-9]' "$f")" "$f"
ok $? "brk-freenull: after alloc's crash a '#' line says the suite goes on with align, whose results and transfer's follow"
grep -A 1 '^not ok [0-9]* - counters: did not finish' "$tmp/brk-hang.tap" | tail -n 1 |
	grep -qx '# its child was killed with SIGKILL after 2 s (--timeout gives each group more); the rest of group counters did not run; it was the last group to run'
ok $? "brk-hang: the '#' line after it says the child was killed after 2 s and what runs next"

# A plugin that cannot be loaded is one failed test; a usage error is 2.
"$weft" conform "$tmp/weft-backend-none.so" > "$tmp/none.tap" 2>&1
rc=$?
grep -q '^not ok 1 - load: .*weft-backend-none.so: open: ' "$tmp/none.tap" && grep -qx '1\.\.1' "$tmp/none.tap"
ok $(( $? != 0 || rc != 1 )) "a plugin that cannot be loaded fails 'load' (exit $rc)"
"$weft" conform --only=nosuchgroup "$dir/weft-backend-intact.so" > /dev/null 2> "$tmp/usage.err"
rc=$?
[ "$rc" -eq 2 ] && grep -q "^weft: no conformance group named 'nosuchgroup'" "$tmp/usage.err"
ok $? "an unknown group is a usage error (exit $rc)"

tap_done
