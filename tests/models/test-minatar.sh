#!/bin/sh
# tests/models/test-minatar.sh - the MinAtar model (models/minatar):
#  - the environment protocol through libweft's run API (minatar-drive
#    test: spaces, views, the three autoreset modes, seeded resets,
#    truncation, Breakout's termination);
#  - `weft conform --model=minatar` on the host backends built (openmp,
#    template, opencl): the same bytes on every backend and thread count;
#  - step-by-step agreement with gymnax's MinBreakout
#    (bench/minatar-compare.py, short: every observation, reward, flag
#    and next state identical), skipped when no Python with gymnax and jax
#    is found ($MINATAR_PYTHON, else the source tree's _venv, else
#    python3);
#  - Asterix, Freeway, Space Invaders and Seaquest: the protocol (minatar-drive
#    games), the same bytes on every backend and thread count
#    (minatar-drive digest), a short comparison with gymnax and one
#    with MinAtar's own Env (bench/minatar-compare.py --reference
#    minatar; skipped without minatar);
#  - examples/minatar.ini runs (shortened).
set -u
. "${WEFT_SRCDIR:-$(dirname "$0")/../..}/tests/tap.sh"
src=${WEFT_SRCDIR:-$(dirname "$0")/../..}
build=${WEFT_BUILDDIR:-.}
weft="$build/cli/weft"
drive="$build/tests/models/minatar-drive"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/weft-minatar-XXXXXX")
trap 'rm -rf "$tmp"' EXIT

[ -f "$build/models/minatar/.libs/weft-model-minatar.so" ] ||
	skip_all "the minatar model is not built"
WEFT_MODEL_PATH="$build/models/minatar/.libs"; export WEFT_MODEL_PATH
omp="$build/plugins/openmp/.libs"
WEFT_PLUGIN_PATH=$omp; export WEFT_PLUGIN_PATH

# The protocol, on openmp.
TMPDIR=$tmp "$drive" test > "$tmp/drive.tap" 2>&1
rc=$?
ok $rc "minatar-drive test: the protocol's checks pass ($(grep -c '^ok' "$tmp/drive.tap") of them)"
grep -v '^ok' "$tmp/drive.tap" | diag

# weft conform on every host backend built.
plugins=$omp
for b in opencl template; do
	[ -f "$build/plugins/$b/.libs/weft-backend-$b.so" ] && plugins="$plugins:$build/plugins/$b/.libs"
done
WEFT_PLUGIN_PATH=$plugins "$weft" conform --model=minatar > "$tmp/conform" 2>&1
rc=$?
ok $rc "weft conform --model=minatar passes on every backend available ($(echo "$plugins" | tr ':' '\n' | sed 's|.*/plugins/||; s|/.libs||' | tr '\n' ' '))"
grep -v '^ok' "$tmp/conform" | diag

# Agreement with gymnax, short: about 600 episodes of random actions,
# then 100 of tracking ones truncated at 20 steps.
# The Python: $MINATAR_PYTHON, else the source tree's _venv (./quickstart
# test installs gymnax and minatar there), else python3, the first that
# has gymnax and jax (find_python; failing that, the first of them there
# is, and the comparisons that need what it lacks skip).
py=$(WEFT_SRCDIR=$src find_python "gymnax, jax" "${MINATAR_PYTHON:-}") ||
	py=$(WEFT_SRCDIR=$src find_python sys "${MINATAR_PYTHON:-}") ||
	py=python3
if ! "$py" -c 'import gymnax, jax' > /dev/null 2>&1; then
	skip "weft's Breakout equals gymnax's step by step" "no Python with gymnax and jax ($py; set MINATAR_PYTHON)"
	skip "weft's Breakout equals gymnax's with truncation at 20 steps" "no Python with gymnax and jax"
else
	TMPDIR=$tmp "$py" "$src/bench/minatar-compare.py" --drive "$drive" \
		--envs 64 --steps 100 --seed 4 --min-episodes 400 > "$tmp/cmp1" 2>&1
	rc=$?
	ok $rc "weft's Breakout equals gymnax's step by step: $(grep 'identical steps' "$tmp/cmp1" | sed 's/^ *//')"
	diag < "$tmp/cmp1"
	TMPDIR=$tmp "$py" "$src/bench/minatar-compare.py" --drive "$drive" \
		--envs 32 --steps 100 --seed 5 --max-steps 20 --policy track \
		--sticky 0.1 > "$tmp/cmp2" 2>&1
	rc=$?
	ok $rc "weft's Breakout equals gymnax's with truncation at 20 steps, sticky actions replayed: $(grep 'identical steps' "$tmp/cmp2" | sed 's/^ *//')"
	diag < "$tmp/cmp2"
fi

# The other games: the protocol through the run API (minatar-drive
# games: spaces, first states, termination, sticky actions), the same
# bytes on every backend and thread count (minatar-drive digest: weft
# conform runs the model's one configuration, Breakout), and a short
# comparison with gymnax.
TMPDIR=$tmp "$drive" games > "$tmp/games.tap" 2>&1
rc=$?
ok $rc "minatar-drive games: Asterix, Freeway, Space Invaders and Seaquest's protocol checks pass ($(grep -c '^ok' "$tmp/games.tap") of them)"
grep -v '^ok' "$tmp/games.tap" | diag
for g in asterix freeway space_invaders seaquest; do
	want=$(WEFT_PLUGIN_PATH=$omp OMP_NUM_THREADS=1 TMPDIR=$tmp "$drive" digest $g openmp 1 2>&1)
	good=0
	what="openmp 1 thread: $want"
	for b in openmp:2 openmp:3 opencl:1 template:1; do
		name=${b%:*}
		[ -f "$build/plugins/$name/.libs/weft-backend-$name.so" ] || continue
		got=$(WEFT_PLUGIN_PATH=$build/plugins/$name/.libs TMPDIR=$tmp "$drive" digest $g $name ${b#*:} 2>&1)
		what="$what; $b: $got"
		[ "$got" = "$want" ] || good=1
	done
	case $want in *[!0-9a-f]*|'') good=1 ;; esac
	ok $good "$g: the same bytes on every backend and thread count (400 steps of 96 envs)"
	echo "$what" | diag
done
if ! "$py" -c 'import gymnax, jax' > /dev/null 2>&1; then
	for g in asterix freeway space_invaders seaquest; do
		skip "weft's $g equals gymnax's step by step" "no Python with gymnax and jax"
	done
else
	for g in asterix:random:0 freeway:track:0.1 space_invaders:follow:0.1 seaquest:follow:0; do
		game=${g%%:*}
		rest=${g#*:}
		TMPDIR=$tmp "$py" "$src/bench/minatar-compare.py" --drive "$drive" \
			--game $game --envs 64 --steps 100 --seed 6 --max-steps 60 \
			--policy ${rest%:*} --sticky ${rest#*:} > "$tmp/cmp-$game" 2>&1
		rc=$?
		ok $rc "weft's $game equals gymnax's step by step (policy ${rest%:*}, sticky ${rest#*:}): $(grep 'identical steps' "$tmp/cmp-$game" | tail -n 1 | sed 's/^ *//')"
		diag < "$tmp/cmp-$game"
	done
fi

# Against MinAtar's own Env (its Python rules, where gymnax differs:
# Seaquest's surfacing with no diver), short; skipped without minatar.
if ! "$py" -c 'import minatar.environments' > /dev/null 2>&1; then
	skip "weft's Asterix, Freeway, Space Invaders and Seaquest equal MinAtar's" "no Python with minatar ($py; set MINATAR_PYTHON)"
else
	good=0
	for g in asterix freeway space_invaders seaquest; do
		TMPDIR=$tmp "$py" "$src/bench/minatar-compare.py" --drive "$drive" \
			--game $g --envs 16 --steps 150 --seed 8 --policy track \
			--reference minatar > "$tmp/ref-$g" 2>&1 || good=1
		diag < "$tmp/ref-$g"
	done
	ok $good "weft's Asterix, Freeway, Space Invaders and Seaquest equal MinAtar's own Env step by step (2,400 steps each)"
fi

# The example, shortened.
"$weft" run "$src/examples/minatar.ini" --quiet --set backend.name=openmp \
	--set minatar.envs=512 --set simulation.steps=50 \
	--set output.directory="$tmp/example" > "$tmp/example.log" 2>&1 &&
	grep -q 'episodes ended' "$tmp/example/summary.txt"
rc=$?
ok $rc "examples/minatar.ini runs (512 envs, 50 steps) and its summary counts the episodes"
[ $rc -eq 0 ] || diag < "$tmp/example.log"

tap_done
