#!/bin/sh
# tests/cli/test-cli.sh - the weft command as a user meets it: a real run, the
# listings, and bad input of every kind. Each bad input must end with a
# non-zero status, one message on stderr naming where the problem is, and
# nothing written (or replaced) under the output directory.
set -u
weft="$WEFT_BUILDDIR/cli/weft"
src="$WEFT_SRCDIR"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/weft-cli-XXXXXX")
. "$WEFT_SRCDIR/tests/tap.sh"
trap 'rm -rf "$tmp"' EXIT

# A small valid configuration to break one key at a time.
base="$tmp/base.ini"
cat > "$base" <<INI
[simulation]
model = seir
steps = 20
seed = 7

[backend]
name = auto

[output]
directory = $tmp/out

[seir]
agents = 2000
INI

# expect_error NAME EXPECTED-TEXT weft-args...: fails cleanly, says TEXT.
expect_error() {
	name=$1 want=$2; shift 2
	mkdir -p "$tmp/out"
	echo "sentinel" > "$tmp/out/daily.csv"
	"$weft" "$@" > "$tmp/stdout" 2> "$tmp/stderr"
	rc=$?
	lines=$(wc -l < "$tmp/stderr")
	left=$(ls -A "$tmp/out" | grep -v '^daily.csv$' | wc -l)
	if [ "$rc" -ne 0 ] && [ "$rc" -lt 128 ] && grep -qF -- "$want" "$tmp/stderr" &&
	   [ "$lines" -eq 1 ] && [ "$left" -eq 0 ] && grep -qx sentinel "$tmp/out/daily.csv"; then
		ok 0 "$name"
	else
		ok 1 "$name"
		echo "# exit $rc, wanted stderr to contain: $want"; diag "$tmp/stderr"
		ls -A "$tmp/out" | sed 's/^/# left: /'
	fi
}

# with KEY-LINE-EDIT: a copy of base with sed applied, printed path.
variant() {
	f="$tmp/v$n.ini"
	sed "$1" "$base" > "$f"
	echo "$f"
}

# ---- bad configuration files -------------------------------------------
expect_error "missing file" "nonexistent.ini" run "$tmp/nonexistent.ini"
expect_error "syntax error names file:line" "v$n.ini:2" run "$(variant '2s/.*/model seir/')"
expect_error "unknown section suggests" "[simulation]" run "$(variant 's/^\[simulation\]/[simulaton]/')"
expect_error "unknown key suggests" "'steps'" run "$(variant 's/^steps = 20/stpes = 20/')"
expect_error "duplicate key names both lines" ":4" run "$(variant '3a steps = 30')"
expect_error "wrong type" "integer" run "$(variant 's/^steps = 20/steps = twenty/')"
expect_error "out of range" "steps" run "$(variant 's/^steps = 20/steps = 0/')"
expect_error "bad boolean" "true" run "$(variant 's/^directory/csv = maybe\ndirectory/')"
expect_error "bad plot value names file:line" "v$n.ini:10: [output] plot = jpeg" run "$(variant 's/^directory/plot = jpeg\ndirectory/')"
expect_error "plot without the CSV names both keys" "[output] csv = false" run "$(variant 's/^directory/plot = svg\ncsv = false\ndirectory/')"
expect_error "real that is not finite" "beta" run "$(variant 's/^agents = 2000/agents = 2000\nbeta = nan/')"
expect_error "key outside a section" ":1" run "$(variant '1i steps = 5')"
expect_error "empty integer" "steps" run "$(variant 's/^steps = 20/steps =/')"
long=$(printf 'x%.0s' $(seq 1 300))
expect_error "over-long line" ":7" run "$(variant "7s/.*/name = $long/")"
expect_error "unknown model suggests" "seir" run "$(variant 's/^model = seir/model = seirr/')"
expect_error "backend name that is a path" "plugin" run "$(variant 's|^name = auto|name = ./weft-backend-openmp.so|')"
expect_error "backend typo suggests" "openmp" run "$(variant 's/^name = auto/name = opnmp/')"
expect_error "explicit cuda does not fall back" "cuda" run "$(variant 's/^name = auto/name = cuda/')"
expect_error "initial_infected > agents names both" "initial_infected" run "$(variant 's/^agents = 2000/agents = 5\ninitial_infected = 6/')"

# `weft check` validates what `weft run` would refuse, short of running:
# the model's check() (expect_check: check and run fail alike).
expect_check() {
	name=$1 want=$2; shift 2
	expect_error "check: $name" "$want" check "$@"
	expect_error "run: $name" "$want" run "$@"
}
expect_check "interventions that do not parse" "[seir] interventions = bogus" "$base" --set seir.interventions=bogus
expect_check "a duration that does not parse" "[seir] latent_duration = soon" "$base" --set seir.latent_duration=soon
expect_check "population = csv without agents_file" "population = csv needs agents_file" "$base" --set seir.population=csv
expect_check "steps beyond the model's limit" "more days than the series can hold" "$base" --set simulation.steps=500000000
expect_check "initial_infected > agents" "initial_infected = 3000 exceeds agents = 2000" "$base" --set seir.initial_infected=3000

# NUL bytes and control characters: errors naming line and column, the
# line shown escaped (inih used to cut the value at a NUL byte).
printf '[simulation]\nmodel = seir\nsteps = 2\0000\n' > "$tmp/nul.ini"
expect_error "a NUL byte names its line and column" "nul.ini:3: a NUL byte (\\x00) at column 10: 'steps = 2'" check "$tmp/nul.ini"
printf '[simulation]\nmodel = se\033[31mir\n' > "$tmp/esc.ini"
expect_error "a control character, escaped" "esc.ini:2: a control character (\\x1b) at column 11" check "$tmp/esc.ini"
if grep -q "$(printf '\033')" "$tmp/stderr"; then ok 1 "no raw control character reaches the terminal"; else ok 0 "no raw control character reaches the terminal"; fi
expect_error "/dev/zero is refused at once, as a device" "configuration file /dev/zero is a character device, not a regular file" check /dev/zero

# A configuration holds at most 1 MiB: 16384 lines of 64 bytes fill it, and
# the first byte past it is refused at its line; a stream (here yes(1) on
# standard input) is not a regular file, refused at once, not read forever.
awk 'BEGIN { for (i = 0; i < 16400; i++) printf "; %061d\n", i }' > "$tmp/big.ini"
expect_error "a configuration past 1 MiB is refused at its line" "big.ini:16385: the file goes on past 1048576 bytes, the most a configuration may hold" check "$tmp/big.ini"
head -n 16384 "$tmp/big.ini" > "$tmp/full.ini"
"$weft" check "$tmp/full.ini" > /dev/null 2>&1
ok $? "a configuration of exactly 1 MiB is read"
yes '; comment' | timeout 20 "$weft" check /dev/stdin > /dev/null 2> "$tmp/stderr"
rc=$?
[ "$rc" -eq 1 ] && grep -q "^weft: configuration file /dev/stdin is a FIFO (named pipe), not a regular file" "$tmp/stderr"
ok $? "a configuration from a pipe is refused at once (exit $rc)"

# A model selected by default reads well in messages.
printf '[output]\ncsv = false\n' > "$tmp/default.ini"
WEFT_MODEL_PATH="$tmp/nomodels" "$weft" check "$tmp/default.ini" > /dev/null 2> "$tmp/stderr"
grep -qF "weft: [simulation] model = seir (the default): no model plugin weft-model-seir.so in $tmp/nomodels" "$tmp/stderr"
ok $? "a model selected by default: '[simulation] model = seir (the default): ...'"

# Relative plugin paths of an INI file are taken from its directory.
mkdir -p "$tmp/kit" "$tmp/cwd"
ln -s "$WEFT_BUILDDIR/plugins/openmp/.libs/weft-backend-openmp.so" "$tmp/kit/weft-backend-openmp.so"
sed -e 's/^name = auto/name = openmp\nplugin_path = ./' -e "s|^directory = .*|directory = $tmp/kitout|" "$base" > "$tmp/kit/kit.ini"
(cd "$tmp/cwd" && WEFT_PLUGIN_PATH= "$weft" run --quiet "$tmp/kit/kit.ini") > "$tmp/stdout" 2> "$tmp/stderr"
ok $? "[backend] plugin_path = . is the INI file's directory, wherever weft runs"
(cd "$tmp/cwd" && WEFT_PLUGIN_PATH= "$weft" run --quiet "$tmp/kit/kit.ini" --set backend.plugin_path=.) > /dev/null 2> "$tmp/stderr"
rc=$?
[ "$rc" -eq 1 ] && grep -q "no backend named 'openmp'.*; searched \.:" "$tmp/stderr"
ok $? "--set backend.plugin_path=. is the current directory (exit $rc)"

# Standard output that cannot be written is a failure (the outputs are
# committed all the same).
"$weft" run "$base" --quiet --set "output.directory=$tmp/fullout" > /dev/full 2> "$tmp/stderr"
rc=$?
[ "$rc" -eq 1 ] && [ "$(wc -l < "$tmp/stderr")" -eq 1 ] && grep -q "^weft: cannot write standard output: No space left on device" "$tmp/stderr"
ok $? "weft run > /dev/full exits 1 with one line (got $rc)"
"$weft" backends > /dev/full 2> /dev/null
ok "$(test $? -eq 1; echo $?)" "weft backends > /dev/full exits 1"
"$weft" check "$base" > /dev/full 2> /dev/null
ok "$(test $? -eq 1; echo $?)" "weft check > /dev/full exits 1"
"$weft" config-reference > /dev/full 2> /dev/null
ok "$(test $? -eq 1; echo $?)" "weft config-reference > /dev/full exits 1"

# ---- bad overrides and command lines ------------------------------------
expect_error "--set without =" "--set" run "$base" --set simulation.steps
"$weft" check "$base" --set simulation.steps > /dev/null 2>&1
ok "$(test $? -eq 2; echo $?)" "--set without '=' is a usage error: exit 2"
"$weft" check "$base" --set steps=3 > /dev/null 2>&1
ok "$(test $? -eq 2; echo $?)" "--set without a section is a usage error: exit 2"
"$weft" conform weft-backend-openmp.so > "$tmp/stdout" 2>&1
grep -qF "'weft-backend-openmp.so' is a file name, not a backend name; give a plugin file as a path, such as ./weft-backend-openmp.so" "$tmp/stdout"
ok $? "weft conform weft-backend-NAME.so without a '/' says to give it as a path"
expect_error "--set unknown key suggests" "seed" run "$base" --set simulation.sed=3
expect_error "--set out of range" "steps" run "$base" --set simulation.steps=-4
expect_error "--set unknown section" "backend" run "$base" --set backnd.name=openmp
expect_error "unknown option" "--fast" run "$base" --fast
expect_error "unknown command" "frobnicate" frobnicate

# ---- bad plugin files ----------------------------------------------------
echo "not a shared object" > "$tmp/weft-backend-text.so"
expect_error "plugin file missing" "open" run "$base" --set "backend.plugin=$tmp/none.so"
expect_error "plugin not a shared object" "open" run "$base" --set "backend.plugin=$tmp/weft-backend-text.so"
expect_error "plugin without entry symbol" "symbol" run "$base" --set "backend.plugin=$WEFT_TEST_PLUGINS/weft-backend-nosymbol.so"
expect_error "plugin for another ABI" "version" run "$base" --set "backend.plugin=$WEFT_TEST_PLUGINS/weft-backend-abi2.so"
expect_error "plugin entry too small" "version" run "$base" --set "backend.plugin=$WEFT_TEST_PLUGINS/weft-backend-small.so"
expect_error "plugin whose probe fails" "probe" run "$base" --set "backend.plugin=$WEFT_TEST_PLUGINS/weft-backend-unavail.so"

# ---- output directory problems -------------------------------------------
echo file > "$tmp/afile"
expect_error "output directory is a file" "not a directory" run "$base" --set "output.directory=$tmp/afile"

# ---- a real run ----------------------------------------------------------
rm -rf "$tmp/out"
"$weft" run "$base" > "$tmp/stdout" 2> "$tmp/stderr"
ok $? "a valid run succeeds"
ok "$(test "$(wc -l < "$tmp/out/daily.csv")" -eq 22; echo $?)" "daily.csv has a header and 21 rows"
grep -q '^day,S,E,I_asym,I_sym,R,D,new_infections,new_deaths,cumulative,vaccinated,new_severe,new_critical,hospitalised,icu,over_hosp,over_icu,fully_vaccinated,new_tests,new_diagnoses,diagnosed,new_quarantined,n_quarantined,new_infectious,Rt$' "$tmp/out/daily.csv"; ok $? "daily.csv header"
grep -q 'attack rate' "$tmp/stdout"; ok $? "the summary reports the attack rate"
grep -q 'attack rate' "$tmp/out/summary.txt"; ok $? "summary.txt is written"
test ! -s "$tmp/stderr"; ok $? "no progress line when stderr is not a terminal"
grep -q "/daily.gp$" "$tmp/stdout" && test -s "$tmp/out/daily.gp"
ok $? "the gnuplot script daily.gp is written and listed"
if command -v gnuplot > /dev/null 2>&1; then
	grep -q "/daily.png$" "$tmp/stdout" && test -s "$tmp/out/daily.png"
	ok $? "daily.png is drawn and listed (gnuplot is on PATH)"
else
	grep -q "plot .*not drawn: gnuplot not found on PATH" "$tmp/stdout"
	ok $? "without gnuplot the summary says the plot was not drawn"
fi
test -z "$(ls -A "$tmp/out" | grep '^\.' | grep -vx '\.weft-outputs')$(ls -A "$tmp" | grep '^\.out\.weft-[no]')"
ok $? "no temporary file left, in the output directory or beside it"
"$weft" run "$base" --quiet --stats > "$tmp/stdout" 2>&1
grep -q '0 syncs\|syncs' "$tmp/stdout"; ok $? "--stats prints the counters"
grep -Eq '^  wall time +setup [0-9.]+ s, steps [0-9.]+ s, finish [0-9.]+ s$' "$tmp/stdout"
ok $? "the summary gives the wall time of setup, steps and finish"
grep -q 'work .* 1 syncs, 20 fence waits$' "$tmp/stdout"
ok $? "--stats: one sync, and a fence wait per output chunk (20 days)"

# ---- an interrupted run replaces nothing ----------------------------------
mkdir -p "$tmp/out" && echo sentinel > "$tmp/out/daily.csv"
"$weft" run "$base" --set seir.agents=3000000 --set simulation.steps=100000 \
	--set output.every=1000 > /dev/null 2> "$tmp/stderr" &
pid=$!
sleep 1.5
kill -INT "$pid"
wait "$pid"
rc=$?
ok "$(test "$rc" -eq 130; echo $?)" "SIGINT ends the run with status 130 (got $rc)"
grep -qx sentinel "$tmp/out/daily.csv"; ok $? "the interrupted run replaced no output"
test -z "$(ls -A "$tmp/out" | grep '^\.' | grep -vx '\.weft-outputs')$(ls -A "$tmp" | grep '^\.out\.weft-[no]')"
ok $? "and left no temporary file"

# ---- listings --------------------------------------------------------------
"$weft" backends > "$tmp/stdout" 2>&1
grep -q '^openmp  *available' "$tmp/stdout"; ok $? "backends: openmp is available"
grep -q '^cuda ' "$tmp/stdout" && grep -A1 '^cuda ' "$tmp/stdout" | tail -1 | grep -q '[a-z]'
ok $? "backends: cuda is listed with its reason"
grep -q '^opencl ' "$tmp/stdout"; ok $? "backends: opencl is listed with its reason"
"$weft" models | grep -q '^seir '; ok $? "models lists seir"
"$weft" --version | grep -q "^weft [0-9]"; ok $? "--version"
"$weft" --help | grep -q "usage: weft run"; ok $? "--help"

# ---- every command's --help, against the man page ---------------------------
# "COMMAND OPTION" for every option of docs/weft.1's synopsis.
awk '/^\.SH SYNOPSIS/ { on = 1; next } /^\.SH/ { on = 0 } on' "$src/docs/weft.1" |
	awk '/^\.B weft/ { cmd = $3 }
	     { line = $0; gsub(/\\-/, "-", line); sub(/^\.B weft [a-z-]*/, "", line)
	       while (cmd != "" && match(line, /--[a-z][a-z-]*/)) {
		print cmd, substr(line, RSTART, RLENGTH); line = substr(line, RSTART + RLENGTH) } }' |
	sort -u > "$tmp/synopsis"
for cmd in run check backends models envs config-reference conform; do
	"$weft" "$cmd" --help > "$tmp/help" 2> "$tmp/stderr"
	rc=$?
	missing=$(awk -v c="$cmd" '$1 == c { print $2 }' "$tmp/synopsis" |
		while read -r opt; do grep -q -- "$opt" "$tmp/help" || echo "$opt"; done)
	test "$rc" -eq 0 && head -1 "$tmp/help" | grep -q "^usage: weft $cmd" &&
		test ! -s "$tmp/stderr" && test -z "$missing"
	ok $? "$cmd --help: exit 0, its usage and every option of the man page's synopsis${missing:+ (missing: $missing)}"
done
test "$(wc -l < "$tmp/synopsis")" -ge 15
ok $? "the man page's synopsis was read ($(wc -l < "$tmp/synopsis") options)"
"$weft" run --help > "$tmp/help.run"
"$weft" help run | cmp -s - "$tmp/help.run"; ok $? "'weft help run' is 'weft run --help'"
"$weft" run "$base" --set seir.agents=oops --help > "$tmp/help" 2>&1
grep -q "^usage: weft run" "$tmp/help"; ok $? "--help on a command line that would fail shows the help"
"$weft" help nosuch > /dev/null 2> "$tmp/stderr"
ok "$(test $? -eq 2 && grep -q "nosuch" "$tmp/stderr"; echo $?)" "help of an unknown command: usage error naming it"

# ---- progress during setup ----------------------------------------------------
"$weft" run "$base" > /dev/null 2> "$tmp/stderr"
test ! -s "$tmp/stderr"; ok $? "stderr not a terminal, setup under 5 s: no progress"
"$weft" run "$base" --progress > /dev/null 2> "$tmp/stderr"
grep -q "^weft: setup [0-9.]* s: model seir: building the population$" "$tmp/stderr" &&
	grep -q "^weft: setup [0-9.]* s: model seir: building the community layer: counting contacts (1 of 3)$" "$tmp/stderr" &&
	grep -q "^weft: setup [0-9.]* s: loading the kernels$" "$tmp/stderr" && ! grep -q "$(printf '\r')" "$tmp/stderr"
ok $? "--progress: plain lines for each setup phase, the population's layers included"
"$weft" run "$base" --progress --quiet > /dev/null 2> "$tmp/stderr"
test ! -s "$tmp/stderr"; ok $? "--quiet wins over --progress"
if command -v script > /dev/null 2>&1; then
	script -qc "'$weft' run '$base' --set output.plot=none" /dev/null > "$tmp/tty" 2>&1
	grep -q "$(printf '\r\033')\[K  setup [0-9.]* s: model seir: building the home layer" "$tmp/tty"
	ok $? "on a terminal: one setup line rewritten in place"
else
	skip "on a terminal: one setup line rewritten in place" "no script(1)"
fi
"$weft" check "$src/examples/astoria.ini" > /dev/null; ok $? "examples/astoria.ini is valid"
# The reference documents the models installed with weft (the template
# model is on the tests' path, never installed).
models_built=$WEFT_BUILDDIR/models/seir/.libs:$WEFT_BUILDDIR/models/cartpole/.libs
for m in circles boids wolf-sheep acrobot mountain-car pendulum minatar patches; do
	models_built=$models_built:$WEFT_BUILDDIR/models/$m/.libs
done
WEFT_MODEL_PATH=$models_built \
	"$weft" config-reference > "$tmp/config.md"
cmp -s "$tmp/config.md" "$src/docs/config.md"
ok $? "docs/config.md matches 'weft config-reference' (regenerate it)"

tap_done
