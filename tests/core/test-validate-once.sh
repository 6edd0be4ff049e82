#!/bin/sh
# tests/core/test-validate-once.sh - validation runs once: `weft run`
# validates its configuration (the core's checks, the directories, the
# model's check() and estimate() against the host's memory) and the run
# trusts that record, so each of the model's hooks runs once per run. The
# model is tests/models/broken-model.c built with BM_HOOKS (weft-model-
# hooks.so), which appends the name of each hook it runs to
# $WEFT_BM_HOOK_LOG. Also: a model reading a key it does not declare
# fails with a message that names the key (weft-model-undeclared.so).
set -u
weft="$WEFT_BUILDDIR/cli/weft"
dir="$WEFT_BUILDDIR/tests/models/broken-models/.libs"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/weft-validate-once-XXXXXX")
WEFT_BM_HOOK_LOG="$tmp/hooks.log"
export WEFT_BM_HOOK_LOG
. "$WEFT_SRCDIR/tests/tap.sh"
trap 'rm -rf "$tmp"' EXIT

[ -f "$dir/weft-model-hooks.so" ] ||
	bail_out "the test models are not built ($dir)"

# count HOOK: how many times HOOK ran since the log was emptied.
count() { grep -c "^$1\$" "$WEFT_BM_HOOK_LOG" 2>/dev/null || true; }
# counts: "check=N estimate=N setup=N".
counts() {
	echo "check=$(count check) estimate=$(count estimate) setup=$(count setup)"
}
# expect WHAT WANT: the counts are WANT; the log is emptied for the next.
expect() {
	got=$(counts)
	[ "$got" = "$2" ]
	ok $? "$1: $2"
	[ "$got" = "$2" ] || echo "# got $got"
	rm -f "$WEFT_BM_HOOK_LOG"
}

cat > "$tmp/hooks.ini" <<INI
[simulation]
model = hooks
steps = 5
[model]
plugin_path = $dir
[backend]
name = openmp
[output]
directory = $tmp/out
plot = none
[hooks]
items = 8
INI

"$weft" run --quiet "$tmp/hooks.ini" > "$tmp/run.out" 2>&1
r=$?
ok $r "weft run of the hooks model"
[ $r -eq 0 ] || diag "$tmp/run.out"
expect "weft run: every hook once" "check=1 estimate=1 setup=1"

"$weft" check "$tmp/hooks.ini" > "$tmp/check.out" 2>&1
ok $? "weft check of the hooks model"
expect "weft check: check() and estimate() once, no setup" \
	"check=1 estimate=1 setup=0"

"$weft" run --quiet --set simulation.steps=6 --set hooks.items=9 \
	"$tmp/hooks.ini" > "$tmp/set.out" 2>&1
ok $? "weft run with --set"
expect "weft run with overrides: every hook once" "check=1 estimate=1 setup=1"

# A key the model does not declare.
sed 's/model = hooks/model = undeclared/; s/^\[hooks\]/[undeclared]/' \
	"$tmp/hooks.ini" > "$tmp/undeclared.ini"
"$weft" run --quiet "$tmp/undeclared.ini" > "$tmp/undeclared.out" 2>&1
st=$?
[ "$st" -ne 0 ]
ok $? "a model reading an undeclared key fails (exit $st)"
grep -q "model undeclared read \[undeclared\] itemz, a key it does not declare.*did you mean 'items'" \
	"$tmp/undeclared.out"
r=$?
ok $r "the message names the model, the key and the closest declared key"
[ $r -eq 0 ] || diag "$tmp/undeclared.out"

# The model is found at validation, with the search path as the file and
# every --set left it: a later --set model.plugin_path is honoured (here
# a broken weft-model-seir.so that shadows the real one, which
# $WEFT_MODEL_PATH also holds).
shadow="$WEFT_BUILDDIR/tests/models/broken-models/shadow/.libs"
printf '[simulation]\nmodel = seir\nsteps = 2\n[output]\ndirectory = %s\n' \
	"$tmp/seir-out" > "$tmp/seir.ini"
"$weft" check --set "model.plugin_path=$shadow" "$tmp/seir.ini" \
	> "$tmp/shadow.out" 2>&1
st=$?
[ "$st" -ne 0 ] && grep -q "$shadow/weft-model-seir.so" "$tmp/shadow.out"
r=$?
ok $r "a --set model.plugin_path after the file is searched first (exit $st)"
[ $r -eq 0 ] || diag "$tmp/shadow.out"

tap_done
