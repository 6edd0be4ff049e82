#!/bin/sh
# tests/cli/test-kstats.sh - `weft run --stats` and the step time: the
# model template (models/template, SIR, kernels sir_step and sir_tick, one
# launch of each per step) run for 37 steps on the OpenMP, template and
# OpenCL backends lists each kernel with exactly 37 launches, all timed,
# and its time; without --stats there are no per-kernel lines. On OpenCL,
# where step() only enqueues, the reported step time covers the kernels'
# work: a heavy grid in one chunk takes at least the kernels' total time
# (before, it was the enqueueing alone, and the work showed up under
# "finish"). "outputs between" leaves out the device waits of checkpoints
# taken between chunks. OpenCL parts are skipped when no OpenCL device is
# available.
set -u
weft="$WEFT_BUILDDIR/cli/weft"
ini="$WEFT_SRCDIR/models/template/sir.ini"
WEFT_PLUGIN_PATH="$WEFT_BUILDDIR/plugins/openmp/.libs:$WEFT_BUILDDIR/plugins/opencl/.libs:$WEFT_BUILDDIR/plugins/template/.libs${WEFT_PLUGIN_PATH:+:$WEFT_PLUGIN_PATH}"
export WEFT_PLUGIN_PATH
tmp=$(mktemp -d "${TMPDIR:-/tmp}/weft-kstats-XXXXXX")
. "$WEFT_SRCDIR/tests/tap.sh"
trap 'rm -rf "$tmp"' EXIT

# run NAME weft-args...: the template model into $tmp/NAME, output in
# $tmp/NAME.out; ok when it succeeds.
run() {
	name=$1
	shift
	"$weft" run "$ini" --quiet --set "output.directory=$tmp/$name" \
		--set output.plot=none "$@" > "$tmp/$name.out" 2>&1
	rc=$?
	ok "$rc" "$name: the model template runs"
	[ "$rc" -eq 0 ] || diag "$tmp/$name.out"
}

# kernel_line NAME KERNEL: the per-kernel line of KERNEL in NAME's output
# (name, launches, time ms, share, %, mean us[, (N timed)]).
kernel_line() {
	sed -n '/^per-kernel counters/,$p' "$tmp/$1.out" | grep "^  $2 "
}

# counted NAME STEPS: both kernels listed, each with STEPS launches, all
# timed (no "(N timed)" note), time above zero.
counted() {
	for k in sir_step sir_tick; do
		line=$(kernel_line "$1" "$k")
		echo "$line" | awk -v n="$2" '
			NF == 6 && $2 == n && $3 + 0 > 0 && $6 + 0 > 0 { ok = 1 }
			END { exit !ok }'
		ok $? "$1: --stats lists $k with $2 launches, timed (got: $line)"
	done
	grep -q '^per-kernel counters (.*, 2 kernels, by time):$' \
		"$tmp/$1.out"
	ok $? "$1: the per-kernel header counts the model's 2 kernels"
}

"$weft" backends > "$tmp/backends" 2>&1
for be in openmp template; do
	run "$be" --stats --set backend.name=$be --set simulation.steps=37 \
		--set output.every=10
	counted "$be" 37
done

run plain --set backend.name=openmp --set simulation.steps=37
! grep -q '^per-kernel counters' "$tmp/plain.out"
ok $? "without --stats there are no per-kernel lines"

# A backend without kernel_stats(): the asynchronous test backend
# (tests/plugins/async.c, built by make check).
async="$WEFT_BUILDDIR/tests/plugins/async/.libs/weft-backend-async.so"
if [ -f "$async" ]; then
	run async --stats --set "backend.plugin=$async" \
		--set simulation.steps=37
	grep -q '^per-kernel counters: none (backend async keeps no per-kernel counters (.*weft-backend-async.so: it has no kernel_stats()))$' \
		"$tmp/async.out"
	ok $? "async: --stats says the backend keeps no per-kernel counters, and why"
else
	skip "async: a backend without kernel_stats()" "$async is not built"
fi

if ! grep -q '^opencl  *available' "$tmp/backends"; then
	why=$(grep -A1 '^opencl ' "$tmp/backends" | tail -1 | sed 's/^ *//')
	skip "opencl: --stats and the step time" \
		"the OpenCL backend is not available: ${why:-not found}"
	tap_done
	exit
fi

run opencl --stats --set backend.name=opencl --set simulation.steps=37 \
	--set output.every=10
counted opencl 37

# One chunk of heavy steps: nothing waits between them, so only the step
# time's end at the completion of the work can cover the kernels.
run heavy --stats --set backend.name=opencl --set simulation.steps=30 \
	--set output.every=30 --set sir.width=512 --set sir.height=512
steps_ms=$(awk '$1 == "steps" && $3 == "in" { print $4 * 1000 }' \
	"$tmp/heavy.out")
kernel_ms=$(sed -n '/^per-kernel counters/,$p' "$tmp/heavy.out" |
	awk '/^  sir_/ { s += $3 } END { print s + 0 }')
awk -v s="${steps_ms:-0}" -v k="$kernel_ms" 'BEGIN { exit !(k > 0 && s + 1 >= k) }'
ok $? "opencl: the step time ($steps_ms ms) covers the kernels' time ($kernel_ms ms)"
grep -q "nothing waited for their work" "$tmp/heavy.out"
[ $? -ne 0 ]
ok $? "opencl: the step time ends where the work was seen complete"

# Heavy steps with a checkpoint after every chunk of 3: each checkpoint
# syncs, and its blocking reads wait, for the chunk's kernels. "outputs
# between" is host time without those waits: with them, it held nearly
# all of the kernels' time and, with half of it, came to more than the
# step time. The checkpoints go to memory (/dev/shm), so that the host's
# share (waiting for the previous checkpoint's fsync among it) stays
# small and the kernels run in the waits.
shm=$(mktemp -d /dev/shm/weft-kstats-XXXXXX 2>/dev/null)
if [ -n "$shm" ]; then
	trap 'rm -rf "$tmp" "$shm"' EXIT
	run ckpt --stats --set backend.name=opencl --set simulation.steps=30 \
		--set output.every=30 --set checkpoint.every=3 \
		--set "checkpoint.directory=$shm/ckpt" \
		--set sir.width=512 --set sir.height=512
	steps_ms=$(awk '$1 == "steps" && $3 == "in" { print $4 * 1000 }' \
		"$tmp/ckpt.out")
	between_ms=$(awk '$1 == "outputs" && $2 == "between" { print $3 * 1000 }' \
		"$tmp/ckpt.out")
	kernel_ms=$(sed -n '/^per-kernel counters/,$p' "$tmp/ckpt.out" |
		awk '/^  sir_/ { s += $3 } END { print s + 0 }')
	grep -q '^  checkpoints  *9 written' "$tmp/ckpt.out" &&
		awk -v s="${steps_ms:-0}" -v b="${between_ms:-999999}" \
			-v k="$kernel_ms" \
			'BEGIN { exit !(k > 0 && b + k / 2 <= s + 1) }'
	st=$?
	ok $st "opencl: outputs between ($between_ms ms) leaves out the checkpoints' waits (steps $steps_ms ms, kernels $kernel_ms ms)"
	[ $st -eq 0 ] || diag "$tmp/ckpt.out"
else
	skip "opencl: outputs between leaves out the checkpoints' waits" \
		"no /dev/shm to write checkpoints to"
fi

tap_done
