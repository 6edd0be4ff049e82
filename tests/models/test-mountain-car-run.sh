#!/bin/sh
# tests/models/test-mountain-car-run.sh - the mountain-car environment model
# (models/mountain-car): `weft run examples/mountain_car.ini` (shortened)
# ends episodes in both variants; every step's state and results (a trace
# of test-mountain-car --trace: MountainCar-v0 and MountainCarContinuous-v0,
# precision f64 and f32) byte for byte the same on openmp with 1 and 2
# threads, template and opencl; `weft conform` passes; and, with a python3
# that has gymnasium and numpy ($WEFT_PYTHON, the source tree's _venv,
# python3), every step of the precision = f64 traces (the energy policy)
# against Gymnasium's own environments, and every episode run freely there
# with the same policy (bench/gym-compare.py --trace DIR --check: its
# THRESHOLDS: MountainCar-v0 obs, reward and flags bit for bit in every
# step and the state in 99.9 % (so all together in at least 99.9 %),
# MountainCarContinuous-v0 all in every step; every episode's end as
# Gymnasium's).
set -u
build=${WEFT_BUILDDIR:-.}
src=${WEFT_SRCDIR:-.}
weft="$build/cli/weft"
drive="$build/tests/models/test-mountain-car"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/weft-mountain-car-XXXXXX")
. "$src/tests/tap.sh"
. "$src/tests/models/env-run.sh"
trap 'rm -rf "$tmp"' EXIT
WEFT_MODEL_PATH="$build/models/mountain-car/.libs"
export WEFT_MODEL_PATH

# ---- weft run ---------------------------------------------------------------
for c in false true; do
	WEFT_PLUGIN_PATH="$build/plugins/openmp/.libs" "$weft" run --quiet \
		"$src/examples/mountain_car.ini" --set backend.name=openmp \
		--set simulation.steps=300 --set mountain_car.envs=256 \
		--set mountain_car.continuous=$c \
		--set output.directory="$tmp/run-$c" > "$tmp/run-$c.out" 2>&1
	rc=$?
	[ "$rc" -eq 0 ] && grep -q '^episodes ended: *[1-9]' "$tmp/run-$c/summary.txt"
	ok $? "weft run examples/mountain_car.ini, continuous = $c: episodes end (exit $rc)"
	[ "$rc" -eq 0 ] || diag "$tmp/run-$c.out"
done

# ---- byte for byte across backends and thread counts -------------------------
for c in false true; do
	for p in f64 f32; do
		ref="$tmp/tr-$c-$p-openmp-1"
		mkdir -p "$ref"
		"$drive" --trace "$ref" $c $p 64 400 openmp 1 > "$ref.out" 2>&1
		ok $? "continuous = $c, precision = $p: a trace of 400 steps of 64 environments on openmp, 1 thread"
		for bt in openmp:2 template:1 opencl:1; do
			b=${bt%:*} th=${bt#*:}
			if ! available "$b"; then
				skip "continuous = $c, $p, $b, $th threads: the trace as openmp's" "$b not built or not available"
				continue
			fi
			d="$tmp/tr-$c-$p-$b-$th"
			mkdir -p "$d"
			"$drive" --trace "$d" $c $p 64 400 "$b" "$th" > "$d.out" 2>&1 &&
				cmp -s "$ref/trace.bin" "$d/trace.bin"
			ok $? "continuous = $c, $p, $b, $th threads: every step's state and results byte for byte openmp's"
			diag "$d.out"
		done
	done
done

# ---- weft conform -------------------------------------------------------------
conform mountain_car

# ---- agreement with Gymnasium -------------------------------------------------
for c in false true; do
	id=MountainCar-v0 want=99.9
	[ "$c" = true ] && id=MountainCarContinuous-v0 want=100
	gym_agree "continuous = $c, f64 ($id): at least $want % of steps bit for bit Gymnasium's (state, obs, reward, flags), every episode ends as there" \
		"$id" --trace "$tmp/tr-$c-f64-openmp-1"
done
tap_done
