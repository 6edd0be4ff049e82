#!/bin/sh
# tests/models/test-cartpole-example.sh - the C example of models/cartpole/cartpole.md runs
# and reports what it should, and `weft run examples/cartpole.ini` works
# (shortened to 230 steps), syncing once, not once per output row.
set -u
build=${WEFT_BUILDDIR:-.}
src=${WEFT_SRCDIR:-.}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/weft-cartpole-XXXXXX")
. "$src/tests/tap.sh"
trap 'rm -rf "$tmp"' EXIT
export TMPDIR="$tmp"

"$build/models/cartpole/example" > "$tmp/example.out" 2>&1
ok $? "models/cartpole/example runs"
diag "$tmp/example.out"
grep -q '^4096 environments on openmp$' "$tmp/example.out"
ok $? "it opens 4096 environments with no configuration"
grep -q '^host actions: 600 steps, [1-9][0-9]* episodes truncated' "$tmp/example.out"
ok $? "its host controller reaches the time limit"
grep -q '^on-device policy: [1-9][0-9]* episodes ended, mean return' "$tmp/example.out"
ok $? "its on-device policy ends episodes, counted on the device"
grep -q '^device results: observations f32\[4096\]\[4\] in host memory of device 0$' "$tmp/example.out"
ok $? "it finds the observations on the device: host memory on openmp"
grep -q '^device results: 200 steps, [1-9][0-9]* episodes terminated, 0 syncs, 201 fence waits$' "$tmp/example.out"
ok $? "its device-result loop reads them in place: a fence wait per step, no sync"
grep -q '^device actions: 600 steps, 0 host-to-device transfers, 0 syncs$' "$tmp/example.out"
ok $? "its device-action loop writes actions in place: nothing sent, no sync"
grep -q '^device actions: [1-9][0-9]* episodes ended, mean return [1-9]' "$tmp/example.out"
ok $? "  ...and its controller, acting in place, ends episodes"

"$build/cli/weft" run --stats "$src/examples/cartpole.ini" --set simulation.steps=230 \
	--set backend.threads=1 \
	--set output.directory="$tmp/out" > "$tmp/run.out" 2>&1
ok $? "weft run examples/cartpole.ini (230 steps)"
diag "$tmp/run.out"
# Rows at steps 100, 200 and 230 go through the output pipeline: a fence
# wait each, and one sync in all, at the end.
grep -q 'work .* 1 syncs, 3 fence waits$' "$tmp/run.out"
ok $? "--stats: one fence wait per episodes.csv row and one sync, not one per row"
[ "$(sed -n '1p;$p' "$tmp/out/episodes.csv" | cut -d, -f1 | tr '\n' ' ')" = "step 230 " ] &&
	[ "$(wc -l < "$tmp/out/episodes.csv")" -eq 4 ]
ok $? "episodes.csv: a header, rows at steps 100 and 200, and the last step"
grep -q '^environments: 65536$' "$tmp/out/summary.txt" &&
	grep -q '^episodes finished: [1-9]' "$tmp/out/summary.txt"
ok $? "summary.txt: 65536 environments, episodes finished"

tap_done
