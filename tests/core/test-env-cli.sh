#!/bin/sh
# tests/core/test-env-cli.sh - `weft envs`: the environment ids of the
# available models (tests/core/env-model.c's copies, tests/core/env.am)
# in a table sorted by id, the first model on the path winning an id;
# `weft models` lists an environment model as any other.
set -u
weft="$WEFT_BUILDDIR/cli/weft"
good="$WEFT_BUILDDIR/tests/core/env-good/.libs"
broken="$WEFT_BUILDDIR/tests/core/env-models/.libs"
. "$WEFT_SRCDIR/tests/tap.sh"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/weft-envs-XXXXXX")
trap 'rm -rf "$tmp"' EXIT
[ -f "$good/weft-model-envgood.so" ] || bail_out "the test model is not built ($good)"

# Only the test models: no $WEFT_MODEL_PATH, an empty installed directory
# (a build with test hooks; without, nothing is installed while testing).
WEFT_MODEL_PATH=
WEFT_TEST_PLUGINDIR="$tmp/none"
export WEFT_MODEL_PATH WEFT_TEST_PLUGINDIR
mkdir "$tmp/none"

"$weft" envs --model-path "$good" > "$tmp/out" 2> "$tmp/err"
rc=$?
cat > "$tmp/want" <<'EOT'
ID                  MODEL    MAX STEPS  THRESHOLD  SUMMARY
EnvGood-v0          envgood  200        150.5      a test environment
Envtest/envgood-v1  envgood  -          -          the same, in f64
EOT
[ "$rc" -eq 0 ] && [ ! -s "$tmp/err" ] && cmp -s "$tmp/out" "$tmp/want"
ok $? "weft envs: ID, MODEL, MAX STEPS, THRESHOLD and SUMMARY, one line an id (exit $rc)"
[ "$rc" -eq 0 ] && cmp -s "$tmp/out" "$tmp/want" || { diag "$tmp/out"; diag "$tmp/err"; }

"$weft" envs --model-path "$good:$broken" > "$tmp/out" 2> "$tmp/err"
rc=$?
[ "$rc" -eq 0 ] && [ "$(grep -c . "$tmp/out")" -eq 8 ] &&
	grep -q "^EnvGood-v0  *envgood  " "$tmp/out" &&
	grep -q "^Envtest/em_shape-v1  *em_shape  " "$tmp/out" &&
	! grep -q "em_badid\|em_dupid\|em_count\|em_autoreset\|em_threshold" "$tmp/out"
ok $? "the first model on the path wins an id; refused models serve none"
diag "$tmp/out"

"$weft" envs --model-path "$broken:$good" > "$tmp/out" 2> "$tmp/err"
grep -q "^EnvGood-v0  *em_dtype  " "$tmp/out"
ok $? "in the other order, the other model wins it"

"$weft" models --model-path "$good" > "$tmp/out" 2> "$tmp/err"
grep -q "^envgood    available  $good/weft-model-envgood.so$" "$tmp/out" &&
	grep -q "^           an environment model for the protocol's tests (version 0)$" "$tmp/out"
ok $? "weft models lists an environment model as any other"

"$weft" envs --frobnicate > /dev/null 2> "$tmp/err"
rc=$?
[ "$rc" -eq 2 ] && grep -q "unexpected argument '--frobnicate'" "$tmp/err"
ok $? "weft envs: an unknown option is a usage error (exit $rc)"

"$weft" --help | grep -q "^       weft envs \[--model-path DIRS\]$"
ok $? "weft --help lists envs"
tap_done
