#!/bin/sh
# tests/models/test-minatar-golden.sh - MinAtar's outputs pinned, bit for
# bit: for each game, minatar-drive digest (400 steps of 96 environments,
# LCG actions, sticky 0.1, same_step autoreset: every view after every
# step -- obs, reward, flags, final_obs, state, bookkeeping -- folded into
# one FNV-1a hash) equals the hash the per-byte observation code gave
# before the observations were written a word per cell (Breakout;
# models/minatar/minatar.md, "Performance"). On openmp with 1 and 2
# threads, and on opencl where it is built. Then other autoreset modes
# and sticky probabilities (below).
set -u
. "${WEFT_SRCDIR:-$(dirname "$0")/../..}/tests/tap.sh"
build=${WEFT_BUILDDIR:-.}
drive="$build/tests/models/minatar-drive"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/weft-minatar-golden-XXXXXX")
trap 'rm -rf "$tmp"' EXIT

[ -f "$build/models/minatar/.libs/weft-model-minatar.so" ] ||
	skip_all "the minatar model is not built"
WEFT_MODEL_PATH="$build/models/minatar/.libs"; export WEFT_MODEL_PATH

# pinned WHAT WANT BACKEND:THREADS GAME [AUTORESET STICKY]: one test, that
# minatar-drive digest of the game on that backend prints WANT (skipped
# where the backend is not built).
pinned() {
	what=$1 want=$2 name=${3%:*} threads=${3#*:}
	shift 3
	if [ ! -f "$build/plugins/$name/.libs/weft-backend-$name.so" ]; then
		skip "$what on $name ($threads thread(s)): the pinned digest" "the $name backend is not built"
		return
	fi
	got=$(WEFT_PLUGIN_PATH=$build/plugins/$name/.libs TMPDIR=$tmp \
		"$drive" digest "$1" "$name" "$threads" ${2:+"$2"} ${3:+"$3"} 2>&1)
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

tap_done
