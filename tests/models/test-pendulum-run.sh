#!/bin/sh
# tests/models/test-pendulum-run.sh - the pendulum model (models/pendulum):
# `weft run` of examples/pendulum.ini, made small, gives the same
# summary.txt (episodes ended, their mean return) on openmp with 1 and 2
# threads, on the template backend and on opencl where it is available, in both precisions; `weft conform
# --model=pendulum` passes on every backend built; a trace of 128 episodes
# (tests/models/env-trace) agrees with Gymnasium's Pendulum-v1 as
# models/pendulum/pendulum.md states, in both precisions
# (bench/gym-compare.py --check: its THRESHOLDS for Pendulum-v1; skipped
# without a python3 that has gymnasium and numpy: $WEFT_PYTHON, the source
# tree's _venv, python3).
set -u
weft="$WEFT_BUILDDIR/cli/weft"
ex="$WEFT_SRCDIR/examples/pendulum.ini"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/weft-pendulum-XXXXXX")
. "$WEFT_SRCDIR/tests/tap.sh"
. "$WEFT_SRCDIR/tests/models/env-run.sh"
trap 'rm -rf "$tmp"' EXIT
WEFT_MODEL_PATH="$WEFT_BUILDDIR/models/pendulum/.libs"
export WEFT_MODEL_PATH

# run LABEL BACKEND THREADS PRECISION: the example, 1000 environments for
# 450 steps (two truncations each), into $tmp/LABEL.
run() {
	WEFT_PLUGIN_PATH="$WEFT_BUILDDIR/plugins/$2/.libs" "$weft" run --quiet \
		"$ex" --set backend.name="$2" --set backend.threads="$3" \
		--set pendulum.precision="$4" --set pendulum.envs=1000 \
		--set simulation.steps=450 --set output.directory="$tmp/$1" \
		> "$tmp/$1.out" 2>&1
}

for prec in f64 f32; do
	run "omp1-$prec" openmp 1 "$prec"
	ok $? "weft run pendulum ($prec) on openmp, 1 thread"
	grep -q '^episodes ended: 2000$' "$tmp/omp1-$prec/summary.txt"
	ok $? "$prec: 1000 environments end 2 episodes each in 450 steps"
	for v in "omp2 openmp 2" "tmpl template 1" "ocl opencl 0"; do
		set -- $v
		if ! available "$2"; then
			skip "$prec on $2: backend not available"
			continue
		fi
		run "$1-$prec" "$2" "$3" "$prec"
		cmp -s "$tmp/omp1-$prec/summary.txt" "$tmp/$1-$prec/summary.txt"
		ok $? "$prec: the same summary on $2 with $3 threads"
	done
done

conform pendulum

# ---- agreement with Gymnasium -------------------------------------------------
gym_agree_precisions "128 episodes agree with Gymnasium's Pendulum-v1 as pendulum.md states" \
	Pendulum-v1 --envs 64 --steps 400 --episodes 128 --action-seed 5
tap_done
