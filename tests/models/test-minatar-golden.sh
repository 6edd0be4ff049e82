#!/bin/sh
# tests/models/test-minatar-golden.sh - MinAtar's outputs pinned, bit for
# bit: for each game, minatar-drive digest (400 steps of 96 environments,
# LCG actions, sticky 0.1, same_step autoreset: every view after every
# step -- obs, reward, flags, final_obs, state, bookkeeping -- folded into
# one FNV-1a hash) equals the hash the per-byte observation code gave
# before the observations were written a word per cell (Breakout;
# models/minatar/minatar.md, "Performance"). On openmp with 1 and 2
# threads, and on opencl where it is built. Then other autoreset modes
# and sticky probabilities, 4,100 environments, Breakout with the paddle
# following the ball (the output then also counts environment steps
# left without a brick), out-of-set actions and truncation, and the
# model's per-byte build (below).
set -u
. "${WEFT_SRCDIR:-$(dirname "$0")/../..}/tests/tap.sh"
build=${WEFT_BUILDDIR:-.}
drive="$build/tests/models/minatar-drive"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/weft-minatar-golden-XXXXXX")
trap 'rm -rf "$tmp"' EXIT

[ -f "$build/models/minatar/.libs/weft-model-minatar.so" ] ||
	skip_all "the minatar model is not built"
WEFT_MODEL_PATH="$build/models/minatar/.libs"; export WEFT_MODEL_PATH

# pinned WHAT WANT BACKEND:THREADS GAME [AUTORESET STICKY [ENVS [POLICY
# [MAX_STEPS]]]]: one test, that minatar-drive digest of the game on that
# backend prints WANT (skipped where the backend is not built). Every
# argument before the last one given must be non-empty.
pinned() {
	what=$1 want=$2 name=${3%:*} threads=${3#*:}
	shift 3
	if [ ! -f "$build/plugins/$name/.libs/weft-backend-$name.so" ]; then
		skip "$what on $name ($threads thread(s)): the pinned digest" "the $name backend is not built"
		return
	fi
	got=$(WEFT_PLUGIN_PATH=$build/plugins/$name/.libs TMPDIR=$tmp \
		"$drive" digest "$1" "$name" "$threads" ${2:+"$2"} ${3:+"$3"} \
		${4:+"$4"} ${5:+"$5"} ${6:+"$6"} 2>&1)
	[ "$got" = "$want" ]
	ok $? "$what on $name ($threads thread(s)): the pinned digest $want (got $got)"
}

for gh in breakout:72f3641a40dd7b69 asterix:012c108e5aa744a5 \
	freeway:84cb209339ae97b2 space_invaders:5d2f97176f44673e \
	seaquest:b19d5c8f27f01d72; do
	g=${gh%:*}
	for b in openmp:1 openmp:2 opencl:1; do
		pinned "$g" "${gh#*:}" "$b" "$g"
	done
done

# The act kernel's other paths, pinned to the hashes of the code that
# drew the sticky action in the game's step (before the draws moved to
# the act kernel's vectorised main part, models/minatar/minatar.md):
# next_step (environments waiting for their next episode), disabled
# (environments stepped past their end), sticky 1 (every step repeats).
for c in breakout:next_step:0.1:1a108674aaa5d680 \
	breakout:disabled:0.1:64edf5b5fa4e1f03 \
	breakout:next_step:1:06ae3197d1f80204 \
	seaquest:next_step:0.1:1f479c094d0948f8 \
	asterix:disabled:0.3:07f0dc709bc56672; do
	rest=${c%:*}
	g=${rest%%:*}
	rest=${rest#*:}
	mode=${rest%%:*}
	sticky=${rest#*:}
	for b in openmp:2 opencl:1; do
		pinned "$g, $mode, sticky $sticky," "${c##*:}" "$b" "$g" \
			"$mode" "$sticky"
	done
done

# 4,100 environments: two threads split the launch where both are given
# (openmp splits one from 2,048 items), and the items past the last whole
# block of 64 run one at a time. Pinned to the hashes of the code before
# Breakout's steps were planned in the act kernel's main part
# (models/minatar/minatar.md, "Performance").
for c in same_step:0.1:b2a94483d9ee4325 next_step:0.1:ed107c9aee7c7525 \
	disabled:0.3:26d5efa5ca0477f9; do
	mode=${c%%:*}
	rest=${c#*:}
	sticky=${rest%%:*}
	pinned "breakout, $mode, sticky $sticky, 4,100 environments," \
		"${c##*:}" openmp:2 breakout "$mode" "$sticky" 4100
done
pinned "breakout, next_step, sticky 0.1, 4,100 environments," \
	ed107c9aee7c7525 opencl:1 breakout next_step 0.1 4100
# The paddle following the ball (minatar-drive's track policy), so that
# episodes last and bricks run out (the count of environment steps left
# without one is part of the output: the refill at the paddle's row
# follows), with truncation at 150 in DISABLED mode; actions outside the
# set (wide) with truncation at 37.
pinned "breakout, next_step, sticky 0.1, 4,100 environments, tracking," \
	"fe4c40637bf0a2ee, 1360 with no brick left" openmp:2 breakout \
	next_step 0.1 4100 track
pinned "breakout, disabled, sticky 0.1, 4,100 environments, tracking, max 150," \
	"df1e66cb6618b0ff, 1017 with no brick left" openmp:2 breakout \
	disabled 0.1 4100 track 150
pinned "breakout, next_step, sticky 0.3, 4,100 environments, any byte, max 37," \
	c389c45577b65944 openmp:2 breakout next_step 0.3 4100 wide 37
pinned "breakout, same_step, sticky 0.1, 4,100 environments, any byte, max 37," \
	e6bda74d6b96c7de openmp:2 breakout same_step 0.1 4100 wide 37
pinned "breakout, same_step, sticky 0.1, 1,024 environments, tracking," \
	"d5bda71759e0136b, 458 with no brick left" opencl:1 breakout \
	same_step 0.1 1024 track

# The model built with MA_LE32 0 (tests/models/minatar.am, built by make
# check): Breakout's per-byte observation code and its scalar step for
# every environment, which targets that are not little-endian run (the
# other games have no other code there), give the same hashes.
bytes_dir="$build/tests/models/minatar-bytes/.libs"
if [ -f "$bytes_dir/weft-model-minatar.so" ]; then
	WEFT_MODEL_PATH=$bytes_dir
	pinned "breakout, per-byte build," 72f3641a40dd7b69 openmp:1 breakout
	pinned "breakout, per-byte build, next_step, sticky 0.1, 4,100 environments, tracking," \
		"fe4c40637bf0a2ee, 1360 with no brick left" openmp:2 breakout \
		next_step 0.1 4100 track
else
	ok 1 "the per-byte build of the model is there ($bytes_dir/weft-model-minatar.so)"
fi

tap_done
