# tests/models/env-run.sh - what the environment models' command tests
# share (test-acrobot-run.sh, test-pendulum-run.sh,
# test-mountain-car-run.sh). A test sources it after tests/tap.sh, with
# weft (the command) and tmp set:
#
#   . "$WEFT_SRCDIR/tests/models/env-run.sh"
#
#   available BACKEND   0 when BACKEND's plugin is built and `weft
#                       backends` lists it available
#   conform MODEL       one test: `weft conform --model=MODEL` on every
#                       backend available among openmp, template and
#                       opencl; the first failures as diagnostics
#   gym_agree TEXT ARG...
#                       one test TEXT: bench/gym-compare.py ARG... --check
#                       (the thresholds of its THRESHOLDS), its table as
#                       diagnostics; skipped without a python3 that has
#                       gymnasium and numpy ($WEFT_PYTHON, else the source
#                       tree's _venv, else python3; py names the one found)
#   gym_agree_precisions TEXT ARG...
#                       gym_agree "f64: TEXT" ARG... --precision f64, then
#                       the same with f32
env_build=${WEFT_BUILDDIR:-.}
env_src=${WEFT_SRCDIR:-.}

available() {
	[ -f "$env_build/plugins/$1/.libs/weft-backend-$1.so" ] &&
		WEFT_PLUGIN_PATH="$env_build/plugins/$1/.libs" "$weft" backends 2>/dev/null |
		grep -q "^$1  *available "
}

conform() {
	env_path=""
	for env_b in openmp template opencl; do
		env_path="$env_path${env_path:+:}$env_build/plugins/$env_b/.libs"
	done
	WEFT_PLUGIN_PATH="$env_path" "$weft" conform --model="$1" > "$tmp/conform.out" 2>&1
	ok $? "weft conform --model=$1 on every backend available"
	grep '^not ok' "$tmp/conform.out" | head -5 | diag
}

py=$(find_python "gymnasium, numpy" "${WEFT_PYTHON:-}") || py=

gym_agree() {
	env_text=$1
	shift
	if [ -z "$py" ]; then
		skip "$env_text" "no python3 with gymnasium and numpy"
		return
	fi
	WEFT_PLUGIN_PATH="$env_build/plugins/openmp/.libs" \
		"$py" "$env_src/bench/gym-compare.py" "$@" --build "$env_build" \
		--check > "$tmp/gym.out" 2>&1
	ok $? "$env_text"
	diag "$tmp/gym.out"
}

gym_agree_precisions() {
	env_t=$1
	shift
	for env_p in f64 f32; do
		gym_agree "$env_p: $env_t" "$@" --precision "$env_p"
	done
}
