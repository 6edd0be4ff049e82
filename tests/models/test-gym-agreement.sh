#!/bin/sh
# tests/models/test-gym-agreement.sh - the environment models against
# Gymnasium's reference environments, at small sizes: bench/gym-compare.py
# --check for each id (tests/models/env-trace records the model, Gymnasium
# replays it; the thresholds are the script's THRESHOLDS). First the
# harness itself: a trace Gymnasium makes of itself agrees bit for bit,
# and one with two observations (and the states after them) nudged by one
# ulp fails and says so.
# An id that no model in this build serves is skipped, as is the whole
# test without a python3 that has gymnasium and numpy: $WEFT_PYTHON,
# else the source tree's _venv (./quickstart python), else python3.
set -u
. "$WEFT_SRCDIR/tests/tap.sh"
cmp="$WEFT_SRCDIR/bench/gym-compare.py"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/weft-gym-agreement-XXXXXX")
trap 'rm -rf "$tmp"' EXIT

py=$(find_python "gymnasium, numpy" "${WEFT_PYTHON:-}") || skip_all "no python3 with gymnasium and numpy (set WEFT_PYTHON, or ./quickstart python for _venv)"

# ---- the harness on Gymnasium's own trace ---------------------------------
"$py" "$cmp" CartPole-v1 --gym-trace "$tmp/self" --envs 4 --steps 100 \
	>"$tmp/self.out" 2>&1 &&
	"$py" "$cmp" CartPole-v1 --trace "$tmp/self" --require-identical 1 \
		--max-ulp 0 --min-same-ends 1 >>"$tmp/self.out" 2>&1 &&
	grep -q "one-step bit-identical  *100.00% (400 of 400)" "$tmp/self.out"
st=$?
ok $st "Gymnasium's own trace agrees bit for bit"
[ $st -eq 0 ] || diag "$tmp/self.out"

"$py" "$cmp" CartPole-v1 --gym-trace "$tmp/nudged" --envs 4 --steps 100 \
	--perturb 2 >"$tmp/nudged.out" 2>&1
"$py" "$cmp" CartPole-v1 --trace "$tmp/nudged" --require-identical 1 \
	--max-ulp 0 >>"$tmp/nudged.out" 2>&1
st=$?
grep -q "FAIL (one-step bit-identical; one-step obs max ulp (f32))" \
	"$tmp/nudged.out" && grep -q "(398 of 400)" "$tmp/nudged.out" &&
	[ $st -eq 1 ]
st=$?
ok $st "two observations one ulp off fail the thresholds, named"
[ $st -eq 0 ] || diag "$tmp/nudged.out"

"$py" "$cmp" CartPole-v1 --trace "$tmp/nudged" --max-obs-diff 0 \
	--require-state-identical 1 --max-state-diff 0 >"$tmp/state.out" 2>&1
st=$?
grep -q "FAIL (one-step obs max |diff|; state after step bit-identical (float64); state after step max |diff|)" \
	"$tmp/state.out" && [ $st -eq 1 ]
st=$?
ok $st "...and so do their absolute differences and the states one ulp off"
[ $st -eq 0 ] || diag "$tmp/state.out"

# ---- each id's model ------------------------------------------------------
for id in CartPole-v1 Acrobot-v1 MountainCar-v0 MountainCarContinuous-v0 \
	Pendulum-v1; do
	"$py" "$cmp" "$id" --build "$WEFT_BUILDDIR" --envs 24 --episodes 20 \
		--check >"$tmp/$id.out" 2>&1
	st=$?
	if [ $st -eq 77 ]; then
		skip "$id agrees with Gymnasium" "$(sed -n 's/^SKIP: //p' "$tmp/$id.out" | head -n 1)"
		continue
	fi
	ok $st "$id agrees with Gymnasium (gym-compare.py --check)"
	diag "$tmp/$id.out"
done
tap_done
