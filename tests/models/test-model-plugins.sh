#!/bin/sh
# tests/models/test-model-plugins.sh - broken model plugins are refused, each with
# one line that names the file, the load stage and the reason, wherever
# they are met: `weft models` (listed as failed), `weft run` and `weft
# check` with [model] plugin = PATH and with [simulation] model = NAME
# found through $WEFT_MODEL_PATH, and `weft conform PATH`. None of a
# refused model's code runs: the test model's setup() writes its name to
# $WEFT_BM_SETUP_LOG, which must stay absent (and be written by the intact
# copy). The plugins are tests/models/broken-model.c built once per flaw
# (tests/models/model-plugins.am). Also: a broken model earlier in the search path
# is not skipped for a good one further on, and the messages of the model
# lookup in the configuration and the command.
set -u
weft="$WEFT_BUILDDIR/cli/weft"
dir="$WEFT_BUILDDIR/tests/models/broken-models/.libs"
shadow="$WEFT_BUILDDIR/tests/models/broken-models/shadow/.libs"
seir="$WEFT_BUILDDIR/models/seir/.libs"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/weft-model-plugins-XXXXXX")
WEFT_BM_SETUP_LOG="$tmp/setup.log"
export WEFT_BM_SETUP_LOG
. "$WEFT_SRCDIR/tests/tap.sh"
trap 'rm -rf "$tmp"' EXIT

# `make check` builds them (check_LTLIBRARIES).
[ -f "$dir/weft-model-intact.so" ] ||
	bail_out "the test models are not built ($dir)"

# okd STATUS WHAT FILE...: ok, and the files as diagnostics when it failed.
okd() {
	st=$1 what=$2; shift 2
	ok "$st" "$what"
	[ "$st" -eq 0 ] || diag "$@"
}

# one_line FILE PREFIX FRAGMENT: FILE holds one line, which starts with
# PREFIX and contains FRAGMENT further on (the system's part of a reason
# differs between C libraries).
one_line() {
	[ "$(wc -l < "$1")" -eq 1 ] || return 1
	line=$(cat "$1")
	case $line in
	"$2"*"$3"*) return 0 ;;
	esac
	return 1
}

# no_outputs DIR: DIR was not made, or is empty.
no_outputs() {
	[ ! -e "$1" ] || [ -z "$(ls -A "$1")" ]
}

# setup_ran NAME: the log holds NAME's line (and nothing else).
setup_ran() {
	[ -f "$WEFT_BM_SETUP_LOG" ] && [ "$(sort -u "$WEFT_BM_SETUP_LOG")" = "$1" ]
}

# Configurations: p-NAME.ini loads the file ([model] plugin, line 4),
# n-NAME.ini names the model ([simulation] model, line 2).
write_configs() {
	name=$1 so=$2
	printf '[simulation]\nsteps = 3\n[model]\nplugin = %s\n[output]\ndirectory = %s\nplot = none\n' \
		"$so" "$tmp/out-p-$name" > "$tmp/p-$name.ini"
	printf '[simulation]\nmodel = %s\nsteps = 3\n[output]\ndirectory = %s\nplot = none\n' \
		"$name" "$tmp/out-n-$name" > "$tmp/n-$name.ini"
}

# listed DIRS NAME PATH STATE [STAGE FRAGMENT]: `weft models` with
# WEFT_MODEL_PATH=DIRS lists PATH once, as NAME in STATE, and the line
# under it starts with "STAGE: " and contains FRAGMENT.
listed() {
	WEFT_MODEL_PATH=$1 "$weft" models > "$tmp/models.out" 2>&1 || return 1
	[ "$(awk -v p="$3" '/^[^ ]/ && $3 == p' "$tmp/models.out" | wc -l)" -eq 1 ] ||
		return 1
	awk -v nm="$2" -v p="$3" -v s="$4" \
		'$1 == nm && $2 == s && $3 == p { getline; sub(/^ +/, ""); print; exit }' \
		"$tmp/models.out" > "$tmp/listed.line"
	[ -s "$tmp/listed.line" ] || return 1
	[ $# -lt 5 ] || one_line "$tmp/listed.line" "$5: " "$6"
}

# refused NAME STAGE FRAGMENT: every command refuses weft-model-NAME.so at
# STAGE, saying FRAGMENT, and none of its code runs.
refused() {
	name=$1 stage=$2 frag=$3
	so="$dir/weft-model-$name.so"
	rm -f "$WEFT_BM_SETUP_LOG"
	write_configs "$name" "$so"

	listed "$dir" "$name" "$so" failed "$stage" "$frag"
	okd $? "$name: weft models lists it as failed, $stage: $frag" "$tmp/models.out"

	WEFT_MODEL_PATH="$dir" "$weft" run --quiet "$tmp/p-$name.ini" > "$tmp/out" 2> "$tmp/err"
	rc=$?
	[ "$rc" -eq 1 ] && [ ! -s "$tmp/out" ] && no_outputs "$tmp/out-p-$name" &&
		one_line "$tmp/err" "weft: $tmp/p-$name.ini:4: [model] plugin = $so: $stage: " "$frag"
	okd $? "$name: weft run with [model] plugin = PATH fails at $stage (exit $rc)" "$tmp/err"

	WEFT_MODEL_PATH="$dir" "$weft" run --quiet "$tmp/n-$name.ini" > "$tmp/out" 2> "$tmp/err"
	rc=$?
	[ "$rc" -eq 1 ] && [ ! -s "$tmp/out" ] && no_outputs "$tmp/out-n-$name" &&
		one_line "$tmp/err" "weft: $tmp/n-$name.ini:2: [simulation] model = $name: $so: $stage: " "$frag"
	okd $? "$name: weft run with [simulation] model = $name from WEFT_MODEL_PATH fails at $stage (exit $rc)" "$tmp/err"

	WEFT_MODEL_PATH="$dir" "$weft" check "$tmp/p-$name.ini" > "$tmp/out" 2> "$tmp/err"
	rc=$?
	WEFT_MODEL_PATH="$dir" "$weft" check "$tmp/n-$name.ini" > "$tmp/out2" 2> "$tmp/err2"
	rc2=$?
	[ "$rc" -eq 1 ] && [ "$rc2" -eq 1 ] && [ ! -s "$tmp/out" ] && [ ! -s "$tmp/out2" ] &&
		one_line "$tmp/err" "weft: $tmp/p-$name.ini:4: [model] plugin = $so: $stage: " "$frag" &&
		one_line "$tmp/err2" "weft: $tmp/n-$name.ini:2: [simulation] model = $name: $so: $stage: " "$frag"
	okd $? "$name: weft check fails at $stage, by path and by name (exit $rc, $rc2)" "$tmp/err" "$tmp/err2"

	WEFT_MODEL_PATH="$dir" "$weft" conform "$so" > "$tmp/conform.tap" 2> "$tmp/err"
	rc=$?
	grep '^# /' "$tmp/conform.tap" > "$tmp/conform.msg"
	[ "$rc" -eq 1 ] && [ ! -s "$tmp/err" ] &&
		grep -qxF "not ok 1 - models: $so loads as a model plugin (name, ABI, table)" "$tmp/conform.tap" &&
		grep -qx '1\.\.1' "$tmp/conform.tap" &&
		one_line "$tmp/conform.msg" "# $so: $stage: " "$frag"
	okd $? "$name: weft conform PATH fails to load it, at $stage (exit $rc)" "$tmp/conform.tap" "$tmp/err"

	[ ! -e "$WEFT_BM_SETUP_LOG" ]
	okd $? "$name: its setup() never ran" "$WEFT_BM_SETUP_LOG"
}

# ---- the intact model: every command takes it, and its setup runs ------------

so="$dir/weft-model-intact.so"
rm -f "$WEFT_BM_SETUP_LOG"
write_configs intact "$so"
listed "$dir" intact "$so" available
okd $? "intact: weft models lists it as available" "$tmp/models.out"
grep -qx ' *counters for the model loader.s tests (version 0)' "$tmp/models.out"
okd $? "intact: with its summary and version" "$tmp/models.out"

printf 'step,count\n1,1\n2,2\n3,3\n' > "$tmp/ticks.want"
for how in p n; do
	WEFT_MODEL_PATH="$dir" "$weft" run --quiet "$tmp/$how-intact.ini" > "$tmp/out" 2> "$tmp/err"
	rc=$?
	[ "$rc" -eq 0 ] && [ ! -s "$tmp/err" ] && grep -q '^weft: intact on ' "$tmp/out" &&
		cmp -s "$tmp/ticks.want" "$tmp/out-$how-intact/ticks.csv"
	okd $? "intact: weft run ($how-intact.ini) writes ticks.csv (exit $rc)" "$tmp/out" "$tmp/err"
done
setup_ran intact
okd $? "intact: its setup() ran" "$WEFT_BM_SETUP_LOG"
WEFT_MODEL_PATH="$dir" "$weft" check "$tmp/p-intact.ini" > "$tmp/out" 2>&1 &&
	WEFT_MODEL_PATH="$dir" "$weft" check "$tmp/n-intact.ini" >> "$tmp/out" 2>&1
okd $? "intact: weft check passes, by path and by name" "$tmp/out"

# A crn_key past its ensemble descriptor's struct_size (a model built for
# the 1.4 layout) is not read: the model loads and runs.
so_old="$dir/weft-model-oldcrn.so"
write_configs oldcrn "$so_old"
listed "$dir" oldcrn "$so_old" available &&
	WEFT_MODEL_PATH="$dir" "$weft" run --quiet "$tmp/n-oldcrn.ini" > "$tmp/out" 2>&1
okd $? "oldcrn: a crn_key past the descriptor's struct_size is ignored: it loads and runs" "$tmp/models.out" "$tmp/out"
WEFT_MODEL_PATH="$dir" "$weft" conform "$so" > "$tmp/conform.tap" 2>&1
rc=$?
[ "$rc" -eq 0 ] && ! grep -q '^not ok' "$tmp/conform.tap" && grep -q '^1\.\.[1-9]' "$tmp/conform.tap"
okd $? "intact: weft conform PATH passes (exit $rc)" "$tmp/conform.tap"

# ---- refused at load: stage and reason ---------------------------------------

refused abi2 version "built for model ABI 2."
refused nosymbol symbol "weft_model_entry is not exported (a model exports its table with WEFT_MODEL_ENTRY)"
refused small version "entry struct is 24 bytes, model ABI 1.0 needs at least"
refused misnamed version "entry is named 'othername', but the file is named for 'misnamed'"
refused noname version "entry has no name (NULL), expected 'noname'"
refused output check "model name 'output' clashes with the core's section [output]"
refused nohelp check "key [nohelp] add has no help text"
refused baddefault check "its default: [baddefault] add = 0: out of range: expected an integer from 1 to 100"
refused badcrn check "ensemble's crn_key [badcrn] items is of type INT, expected BOOL"
refused crntrue check "ensemble's crn_key [crntrue] pair has the default 'true', expected 'false'"
refused nosigs check "its kernels have no signatures (sigs is NULL"
refused noemit check "entry has collect but no emit: a model has both or neither"

# ---- loads, but its setup() fails ----------------------------------------------

so="$dir/weft-model-setupfail.so"
rm -f "$WEFT_BM_SETUP_LOG"
write_configs setupfail "$so"
listed "$dir" setupfail "$so" available
okd $? "setupfail: weft models lists it as available (nothing wrong with its table)" "$tmp/models.out"
WEFT_MODEL_PATH="$dir" "$weft" check "$tmp/p-setupfail.ini" > "$tmp/out" 2>&1 &&
	WEFT_MODEL_PATH="$dir" "$weft" check "$tmp/n-setupfail.ini" >> "$tmp/out" 2>&1
okd $? "setupfail: weft check passes (check runs no model code)" "$tmp/out"
for how in p n; do
	WEFT_MODEL_PATH="$dir" "$weft" run --quiet "$tmp/$how-setupfail.ini" > "$tmp/out" 2> "$tmp/err"
	rc=$?
	[ "$rc" -eq 1 ] && [ ! -s "$tmp/out" ] &&
		one_line "$tmp/err" "weft: model setupfail: setup fails on purpose (BM_SETUP_FAIL)" "" &&
		no_outputs "$tmp/out-$how-setupfail"
	okd $? "setupfail: weft run ($how-setupfail.ini) names the model and its message, and leaves no output file (exit $rc)" "$tmp/err"
done
setup_ran setupfail
okd $? "setupfail: its setup() ran" "$WEFT_BM_SETUP_LOG"
WEFT_MODEL_PATH="$dir" "$weft" conform "$so" > "$tmp/conform.tap" 2>&1
rc=$?
[ "$rc" -eq 1 ] && grep -q '^not ok 5 - models: setupfail runs to its end on openmp' "$tmp/conform.tap" &&
	grep -qxF '# model setupfail: setup fails on purpose (BM_SETUP_FAIL)' "$tmp/conform.tap"
okd $? "setupfail: weft conform PATH fails its runs with the model's message (exit $rc)" "$tmp/conform.tap"

# ---- no fallback past a broken plugin ----------------------------------------

# A seir built for ABI 2 ahead of the real one: `simulation.model = seir`
# fails with its path and stage; the real seir is listed as shadowed.
rm -f "$WEFT_BM_SETUP_LOG"
bad="$shadow/weft-model-seir.so"
printf '[simulation]\nmodel = seir\nsteps = 2\n[output]\ndirectory = %s\nplot = none\n' \
	"$tmp/out-shadow" > "$tmp/shadow.ini"
WEFT_MODEL_PATH="$shadow:$seir" "$weft" run --quiet "$tmp/shadow.ini" > "$tmp/out" 2> "$tmp/err"
rc=$?
[ "$rc" -eq 1 ] && [ ! -s "$tmp/out" ] && no_outputs "$tmp/out-shadow" &&
	one_line "$tmp/err" "weft: $tmp/shadow.ini:2: [simulation] model = seir: $bad: version: " "built for model ABI 2."
okd $? "a broken seir ahead of the real one fails the run with its path and stage (exit $rc)" "$tmp/err"
WEFT_MODEL_PATH="$shadow:$seir" "$weft" check "$WEFT_SRCDIR/examples/astoria.ini" > "$tmp/out" 2> "$tmp/err"
rc=$?
[ "$rc" -eq 1 ] && one_line "$tmp/err" "weft: $WEFT_SRCDIR/examples/astoria.ini:" ": $bad: version: built for model ABI 2."
okd $? "... and examples/astoria.ini's [seir] section too (exit $rc)" "$tmp/err"
listed "$shadow:$seir" seir "$bad" failed version "built for model ABI 2." &&
	listed "$shadow:$seir" seir "$seir/weft-model-seir.so" shadowed &&
	grep -qxF "           shadowed by $bad" "$tmp/models.out"
okd $? "weft models lists the broken seir as failed and the real one as shadowed by it" "$tmp/models.out"
[ ! -e "$WEFT_BM_SETUP_LOG" ]
okd $? "the broken seir's setup() never ran" "$WEFT_BM_SETUP_LOG"
# The file named by [model] plugin wins over the search path, also when
# the model's section comes first in the file.
printf '[seir]\nagents = 500\n[simulation]\nsteps = 2\n[model]\nplugin = %s\n[output]\ndirectory = %s\nplot = none\n' \
	"$seir/weft-model-seir.so" "$tmp/out-seir-first" > "$tmp/seir-first.ini"
WEFT_MODEL_PATH="$shadow:$seir" "$weft" run --quiet "$tmp/seir-first.ini" > "$tmp/out" 2>&1
rc=$?
[ "$rc" -eq 0 ] && grep -q "^  agents  *500$" "$tmp/out"
okd $? "[seir] before [model] plugin = the real seir: its keys go to that plugin, not the broken one found by name (exit $rc)" "$tmp/out"

# ---- the configuration's model lookup ----------------------------------------

# A model's section before the [model] plugin that holds the model.
printf '[intact]\nadd = 3\n[simulation]\nsteps = 2\n[model]\nplugin = %s\n[output]\ndirectory = %s\nplot = none\n' \
	"$dir/weft-model-intact.so" "$tmp/out-first" > "$tmp/first.ini"
WEFT_MODEL_PATH="" "$weft" run --quiet "$tmp/first.ini" > "$tmp/out" 2>&1 &&
	printf 'step,count\n1,3\n2,6\n' | cmp -s - "$tmp/out-first/ticks.csv"
okd $? "[intact] before [model] plugin: its keys are the plugin's model's" "$tmp/out"

# --set of a model key whose plugin is not found, or refused.
WEFT_MODEL_PATH="$dir" "$weft" check "$tmp/n-intact.ini" --set zzz.items=2 > "$tmp/out" 2> "$tmp/err"
rc=$?
[ "$rc" -eq 1 ] && one_line "$tmp/err" "weft: --set zzz.items: unknown section [zzz] (no model plugin weft-model-zzz.so in $dir:" ""
okd $? "--set of a key of a model not found says where it was looked for (exit $rc)" "$tmp/err"
WEFT_MODEL_PATH="$dir" "$weft" check "$tmp/n-intact.ini" --set abi2.add=2 > "$tmp/out" 2> "$tmp/err"
rc=$?
[ "$rc" -eq 1 ] && one_line "$tmp/err" "weft: --set abi2.add: [abi2]: $dir/weft-model-abi2.so: version: " "built for model ABI 2."
okd $? "--set of a key of a refused model names its file and stage (exit $rc)" "$tmp/err"

# [simulation] model naming a core section: refused, not run (it crashed).
for core in backend output; do
	printf '[simulation]\nmodel = %s\n' "$core" > "$tmp/core.ini"
	WEFT_MODEL_PATH="$seir" "$weft" run --quiet "$tmp/core.ini" > "$tmp/out" 2> "$tmp/err"
	rc=$?
	[ "$rc" -eq 1 ] && one_line "$tmp/err" "weft: $tmp/core.ini:2: [simulation] model = $core names the core's section [$core], not a model" ""
	okd $? "[simulation] model = $core is refused: a core section, not a model (exit $rc)" "$tmp/err"
done

# [model] plugin given as a name, and as a file name without a '/'.
printf '[model]\nplugin = intact\n' > "$tmp/bare.ini"
WEFT_MODEL_PATH="$dir" "$weft" check "$tmp/bare.ini" > "$tmp/out" 2> "$tmp/err"
rc=$?
[ "$rc" -eq 1 ] && one_line "$tmp/err" "weft: $tmp/bare.ini:2: [model] plugin = intact is a model name, not a plugin file: set [simulation] model = intact" ""
okd $? "[model] plugin = NAME says to set [simulation] model = NAME (exit $rc)" "$tmp/err"
# Relative paths in an INI file are taken from the file's directory, those
# of --set from the current one.
mkdir -p "$tmp/rel" "$tmp/elsewhere"
ln -s "$dir/weft-model-intact.so" "$tmp/rel/weft-model-intact.so"
printf '[simulation]\nsteps = 2\n[model]\nplugin = weft-model-intact.so\n[output]\ndirectory = %s\nplot = none\n' \
	"$tmp/out-rel" > "$tmp/rel/rel.ini"
(cd "$tmp/elsewhere" && WEFT_MODEL_PATH="" "$weft" run --quiet "$tmp/rel/rel.ini") > "$tmp/out" 2>&1
okd $? "[model] plugin = weft-model-intact.so is the file beside the INI file, wherever weft runs" "$tmp/out"
cp "$tmp/rel/rel.ini" "$tmp/rel2.ini"
(cd "$tmp/rel" && WEFT_MODEL_PATH="$dir" "$weft" check "$tmp/rel2.ini") > "$tmp/out" 2> "$tmp/err"
rc=$?
[ "$rc" -eq 1 ] && one_line "$tmp/err" "weft: $tmp/rel2.ini:4: [model] plugin = $tmp/weft-model-intact.so: open: " ""
okd $? "... never the current directory's, nor one of the search path (exit $rc)" "$tmp/err"
printf '[simulation]\nmodel = intact\nsteps = 2\n[model]\nplugin_path = .\n[output]\ndirectory = %s\nplot = none\n' \
	"$tmp/out-rel" > "$tmp/rel/path.ini"
(cd "$tmp/elsewhere" && WEFT_MODEL_PATH="" "$weft" check "$tmp/rel/path.ini") > "$tmp/out" 2>&1
okd $? "[model] plugin_path = . is the INI file's directory" "$tmp/out"
printf '[simulation]\nsteps = 2\n' > "$tmp/plain.ini"
(cd "$tmp/rel" && WEFT_MODEL_PATH="" "$weft" check "$tmp/plain.ini" --set model.plugin=weft-model-intact.so) > "$tmp/out" 2>&1
okd $? "--set model.plugin=FILE is taken from the current directory" "$tmp/out"

# ---- the command -------------------------------------------------------------

WEFT_MODEL_PATH="$dir" "$weft" models intac > "$tmp/out" 2> "$tmp/err"
rc=$?
[ "$rc" -eq 1 ] && [ ! -s "$tmp/out" ] &&
	one_line "$tmp/err" "weft: no model plugin weft-model-intac.so in $dir:" "; did you mean 'intact'?"
okd $? "weft models NAME for an unknown name says where it looked and suggests one (exit $rc)" "$tmp/err"
WEFT_MODEL_PATH="$dir" "$weft" models "$dir/weft-model-intact.so" > "$tmp/out" 2> "$tmp/err"
rc=$?
[ "$rc" -eq 1 ] && one_line "$tmp/err" "weft: models takes a model name, not a path" ""
okd $? "weft models PATH says it takes a name (exit $rc)" "$tmp/err"
WEFT_MODEL_PATH="$dir" "$weft" models abi2 > "$tmp/out" 2> "$tmp/err"
rc=$?
[ "$rc" -eq 0 ] && grep -q "^abi2 *failed *$dir/weft-model-abi2.so$" "$tmp/out" &&
	grep -q '^ *version: built for model ABI 2\.' "$tmp/out"
okd $? "weft models NAME shows only that one, with its stage (exit $rc)" "$tmp/out" "$tmp/err"
(cd "$dir" && WEFT_MODEL_PATH="$dir" "$weft" conform weft-model-intact.so) > "$tmp/conform.tap" 2>&1
rc=$?
[ "$rc" -eq 1 ] && grep -qF "# 'weft-model-intact.so' is not a model name (a-z, 0-9 and '_'); give a plugin file as a path, such as ./weft-model-intact.so" "$tmp/conform.tap"
okd $? "weft conform weft-model-NAME.so without a '/' says to give a path (exit $rc)" "$tmp/conform.tap"

tap_done
