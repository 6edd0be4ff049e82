#!/bin/sh
# tests/cli/test-calibrate.sh - the [calibration] section and `weft
# calibrate` (docs/calibration.md, "INI: weft calibrate"): every mistake
# in the section is refused by `weft check` (and `weft calibrate`, before
# any Python runs) with one message naming FILE:LINE and the key; a good
# section is accepted by `weft check` and ignored by `weft run`; `weft
# calibrate` says which interpreter or module is missing. The calibration
# itself, through Python, is python/tests/test_calibrate_cli.py's.
set -u
weft="$WEFT_BUILDDIR/cli/weft"
src="$WEFT_SRCDIR"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/weft-calibrate-XXXXXX")
. "$WEFT_SRCDIR/tests/tap.sh"
trap 'rm -rf "$tmp"' EXIT

printf 'day,infected\n2,20\n4,26\n6,31\n' > "$tmp/data.csv"
# Lines 1 to 9; a case's lines start at line 10.
cat > "$tmp/head.ini" <<INI
[simulation]
model = seir
steps = 10
[output]
directory = $tmp/out
[seir]
agents = 300
[calibration]
data = data.csv
INI
good='param.seir.beta = 0.004 .. 0.03
component.infected = normal infected ~ cumulative'

# refused TEXT LINES EXPECTED: the configuration head.ini + LINES is
# refused by weft check with exit status 1 and one line on stderr that
# holds EXPECTED (fixed text).
refused() {
	printf '%s\n' "$2" | cat "$tmp/head.ini" - > "$tmp/bad.ini"
	"$weft" check "$tmp/bad.ini" > "$tmp/stdout" 2> "$tmp/stderr"
	rc=$?
	[ $rc -eq 1 ] && [ "$(wc -l < "$tmp/stderr")" -eq 1 ] &&
		grep -qF -- "$3" "$tmp/stderr"
	r=$?
	ok $r "$1"
	[ $r -eq 0 ] || { echo "# exit $rc, expected: $3"; diag "$tmp/stderr"; }
}

f="$tmp/bad.ini"
refused "bounds in the wrong order" 'param.seir.beta = 0.03 .. 0.004' \
	"$f:10: [calibration] param.seir.beta = 0.03 .. 0.004: LOW (0.03) must be below HIGH (0.004)"
refused "bounds without '..'" 'param.seir.beta = 0.004 0.03' \
	"$f:10: [calibration] param.seir.beta = 0.004 0.03: expected LOW .. HIGH"
refused "a bound that is not a number" 'param.seir.beta = x .. 0.03' \
	"$f:10: [calibration] param.seir.beta = x .. 0.03: expected LOW .. HIGH"
refused "an unknown word after the bounds" 'param.seir.beta = 0.004 .. 0.03 lin' \
	"$f:10: [calibration] param.seir.beta = 0.004 .. 0.03 lin: expected LOW .. HIGH"
refused "log scale from 0" 'param.seir.beta = 0 .. 0.03 log' \
	"$f:10: [calibration] param.seir.beta = 0 .. 0.03 log: a log-scale parameter needs LOW > 0"
refused "a parameter key that is not SECTION.KEY" 'param.beta = 0 .. 1' \
	"$f:10: [calibration] param.beta: expected param.SECTION.KEY"
refused "an unknown key of the model, with a hint" 'param.seir.betta = 0.004 .. 0.03' \
	"$f:10: [calibration] param.seir.betta: unknown key 'betta' in [seir]; did you mean 'beta'?"
refused "an unknown section" 'param.sier.beta = 0.004 .. 0.03' \
	"$f:10: [calibration] param.sier.beta: no section [sier] to calibrate"
refused "a bound outside the key's range" 'param.seir.beta = 0.004 .. 3' \
	"$f:10: [calibration] param.seir.beta: HIGH: [seir] beta = 3: out of range"
refused "an integer key's bound that is not whole" 'param.seir.initial_infected = 1.5 .. 30' \
	"$f:10: [calibration] param.seir.initial_infected: LOW: [seir] initial_infected = 1.5: expected an integer"
refused "a key that is not a number" 'param.seir.population = 1 .. 3' \
	"$f:10: [calibration] param.seir.population: [seir] population is not a number"
refused "an unknown component kind" 'component.x = poisson infected' \
	"$f:10: [calibration] component.x = poisson infected: unknown component kind 'poisson': one of normal, binomial"
refused "a component with too many data columns" 'component.x = normal infected, day' \
	"$f:10: [calibration] component.x = normal infected, day: normal takes one data column, got 2"
refused "a binomial with one data column" 'component.x = binomial infected' \
	"$f:10: [calibration] component.x = binomial infected: binomial takes two data columns, got 1"
refused "more model expressions than data columns" 'component.x = normal infected ~ a, b' \
	"$f:10: [calibration] component.x = normal infected ~ a, b: 1 data columns but 2 model expressions"
refused "a model expression with a missing ')'" 'component.x = normal infected ~ cum(cumulative' \
	"$f:10: [calibration] component.x: model expression 'cum(cumulative': missing ')' after cum("
refused "an unknown function" 'component.x = normal infected ~ cumm(cumulative)' \
	"$f:10: [calibration] component.x: model expression 'cumm(cumulative)': unknown function 'cumm'"
refused "a product in an expression" 'component.x = normal infected ~ S * 2' \
	"$f:10: [calibration] component.x: model expression 'S * 2': unexpected text at '* 2'"
refused "a negative weight" 'component.x = normal infected weight=-1' \
	"$f:10: [calibration] component.x = normal infected weight=-1: weight is a number >= 0"
refused "an unknown option" 'component.x = normal infected wieght=1' \
	"$f:10: [calibration] component.x = normal infected wieght=1: unknown option"
refused "sigma2 on a binomial" 'component.x = binomial infected, day sigma2=3' \
	"$f:10: [calibration] component.x = binomial infected, day sigma2=3: sigma2 is for normal components only"
refused "a component set twice" 'component.x = normal infected
component.x = normal infected' \
	"$f:11: [calibration] component.x is set twice (first at line 10)"
refused "an unknown key, with a hint" 'trial = 3' \
	"$f:10: unknown key 'trial' in [calibration]; did you mean 'trials'?"
refused "trials out of range" 'trials = -3' \
	"$f:10: [calibration] trials = -3: out of range"
refused "an unknown sampler" 'sampler = grid' \
	"$f:10: [calibration] sampler = grid: expected one of: tpe, cmaes, random"
refused "a data column the data file lacks" "$good
component.cases = normal cases ~ new_infections" \
	"$f:12: [calibration] component.cases: data column 'cases' is not in $tmp/data.csv (its columns: day, infected)"
refused "a time column the data file lacks" "$good
time = days" \
	"$f:12: [calibration] time = days: $tmp/data.csv has no column 'days'"
refused "the data key set twice" "$good
[calibration]
data = nothere.csv" \
	"$f:13: [calibration] data is set twice (first at $f:9)"
refused "no component line" 'param.seir.beta = 0.004 .. 0.03' \
	"$f: [calibration] has no component.NAME line"
refused "no param line" 'component.infected = normal infected' \
	"$f: [calibration] has no param.SECTION.KEY line"
refused "a parameter of another model" "param.cartpole.bias = 0 .. 1
component.infected = normal infected ~ cumulative" \
	"$f:10: [calibration] param.cartpole.bias: the configuration runs the model seir, not cartpole"

# A missing data file, in the file and given by --set (relative to the
# current directory).
printf '%s\n' "$good" | cat "$tmp/head.ini" - > "$tmp/good.ini"
sed 's/^data = data.csv/data = nothere.csv/' "$tmp/good.ini" > "$tmp/nodata.ini"
"$weft" check "$tmp/nodata.ini" > /dev/null 2> "$tmp/stderr"
rc=$?
[ $rc -eq 1 ] && grep -qF "weft: $tmp/nodata.ini:9: [calibration] data = $tmp/nothere.csv: cannot open it: No such file or directory" "$tmp/stderr"
ok $? "a data file that is not there is named, with the line of data"
diag "$tmp/stderr"
"$weft" check "$tmp/good.ini" --set calibration.data=nothere.csv > /dev/null 2> "$tmp/stderr"
rc=$?
[ $rc -eq 1 ] && grep -qF "weft: --set calibration.data: [calibration] data = nothere.csv: cannot open it" "$tmp/stderr"
ok $? "a data file that is not there is named with where it was set"
"$weft" check "$tmp/good.ini" --set "calibration.param.seir.beta=0.1 .. 0.01" > /dev/null 2> "$tmp/stderr"
rc=$?
[ $rc -eq 1 ] && grep -qF "weft: --set calibration.param.seir.beta: [calibration] param.seir.beta = 0.1 .. 0.01: LOW (0.1) must be below HIGH (0.01)" "$tmp/stderr"
ok $? "--set of a parameter is checked and named"
"$weft" check "$tmp/good.ini" --set "calibration.param.seir.bet=0.01 .. 0.1" > /dev/null 2> "$tmp/stderr"
rc=$?
[ $rc -eq 1 ] && grep -qF "weft: --set calibration.param.seir.bet: [calibration] param.seir.bet: unknown key 'bet' in [seir]; did you mean 'beta'?" "$tmp/stderr"
ok $? "--set of a parameter names an unknown key"

# weft check accepts a good section (data relative to the INI's
# directory, from elsewhere) and says what weft calibrate would run.
mkdir "$tmp/elsewhere"
(cd "$tmp/elsewhere" && "$weft" check "$tmp/good.ini" --set calibration.trials=7 > "$tmp/stdout" 2> "$tmp/stderr")
rc=$?
[ $rc -eq 0 ] && grep -q "^$tmp/good.ini: ok" "$tmp/stdout" &&
	grep -q "calibration  *7 trials x 1 replicas: weft calibrate" "$tmp/stdout"
ok $? "weft check accepts a [calibration] section and says what it runs"
[ $rc -eq 0 ] || diag "$tmp/stderr"
"$weft" check "$src/examples/calibrate-seir.ini" > /dev/null 2> "$tmp/stderr"
ok $? "weft check accepts examples/calibrate-seir.ini"
[ -s "$tmp/stderr" ] && diag "$tmp/stderr"

# weft run ignores it: the run's outputs, nothing of a calibration.
"$weft" run --quiet "$tmp/good.ini" --set output.plot=none > /dev/null 2> "$tmp/stderr"
rc=$?
[ $rc -eq 0 ] && [ -f "$tmp/out/daily.csv" ] && [ ! -e "$tmp/out/best.ini" ]
ok $? "weft run runs a configuration with [calibration] as if it had none"
[ $rc -eq 0 ] || diag "$tmp/stderr"

# weft calibrate: the command line, a configuration without the section,
# errors found before any interpreter runs.
"$weft" calibrate "$tmp/good.ini" --trials x > /dev/null 2> "$tmp/stderr"
[ $? -eq 2 ] && grep -qF "weft: --trials 'x': expected a whole number from 0 to 1000000" "$tmp/stderr"
ok $? "weft calibrate --trials x is a bad command line"
"$weft" calibrate > /dev/null 2> "$tmp/stderr"
[ $? -eq 2 ] && grep -qF "calibrate needs a CONFIG file" "$tmp/stderr"
ok $? "weft calibrate without CONFIG is a bad command line"
"$weft" --help | grep -q "^       weft calibrate CONFIG"
ok $? "weft --help lists weft calibrate"
# Every option of the man page's synopsis line of calibrate is in its help.
opts=$(awk '/^\.B weft calibrate/ { on = 1; next } on && /^\.(B weft|br)/ { on = 0 }
	on { gsub(/\\-/, "-"); while (match($0, /--[a-z][a-z-]*/)) {
		print substr($0, RSTART, RLENGTH); $0 = substr($0, RSTART + RLENGTH) } }' \
	"$src/docs/weft.1")
"$weft" calibrate --help > "$tmp/help" 2> "$tmp/stderr"
rc=$?
missing=$(for o in $opts; do grep -q -- "$o" "$tmp/help" || echo "$o"; done)
[ $rc -eq 0 ] && head -1 "$tmp/help" | grep -q "^usage: weft calibrate" &&
	[ -n "$opts" ] && [ -z "$missing" ] && [ ! -s "$tmp/stderr" ]
ok $? "calibrate --help: its usage and every option of the man page's synopsis ($(echo $opts))${missing:+ (missing: $missing)}"
head -n 9 "$tmp/head.ini" | sed '/^\[calibration\]/,$d' > "$tmp/plain.ini"
WEFT_PYTHON=/nonexistent/python "$weft" calibrate "$tmp/plain.ini" > /dev/null 2> "$tmp/stderr"
[ $? -eq 1 ] && grep -qF "weft: $tmp/plain.ini has no [calibration] section" "$tmp/stderr"
ok $? "weft calibrate of a configuration without [calibration] says so"
WEFT_PYTHON=/nonexistent/python "$weft" calibrate "$f" > /dev/null 2> "$tmp/stderr"
[ $? -eq 1 ] && [ "$(wc -l < "$tmp/stderr")" -eq 1 ] &&
	grep -qF "weft: $f:10: [calibration] param.cartpole.bias" "$tmp/stderr"
ok $? "weft calibrate checks the section before it starts Python"

# The interpreter: missing, or without the modules it needs.
WEFT_PYTHON=/nonexistent/python "$weft" calibrate "$tmp/good.ini" > /dev/null 2> "$tmp/stderr"
[ $? -eq 1 ] && grep -qF "weft calibrate: cannot run the Python interpreter /nonexistent/python (\$WEFT_PYTHON" "$tmp/stderr"
ok $? "a missing interpreter is named"
diag "$tmp/stderr"
if py=$(command -v python3); then
	mkdir -p "$tmp/noweft/weft" "$tmp/nooptuna/weft" "$tmp/nooptuna/optuna"
	echo 'raise ImportError("no weft here")' > "$tmp/noweft/weft/__init__.py"
	: > "$tmp/nooptuna/weft/__init__.py"
	echo 'raise ImportError("no optuna here")' > "$tmp/nooptuna/optuna/__init__.py"
	PYTHONPATH="$tmp/noweft" WEFT_PYTHON="$py" "$weft" calibrate "$tmp/good.ini" > /dev/null 2> "$tmp/stderr"
	[ $? -eq 1 ] && grep -qF "weft calibrate: $py cannot import weft (install the Python package: ./quickstart python): no weft here" "$tmp/stderr"
	ok $? "an interpreter without the weft package is named, with what to do"
	diag "$tmp/stderr"
	PYTHONPATH="$tmp/nooptuna" WEFT_PYTHON="$py" "$weft" calibrate "$tmp/good.ini" > /dev/null 2> "$tmp/stderr"
	[ $? -eq 1 ] && grep -qF "weft calibrate: $py cannot import optuna (pip install optuna" "$tmp/stderr"
	ok $? "an interpreter without optuna is named, with what to do"
	diag "$tmp/stderr"
else
	skip "an interpreter without the weft package is named" "no python3"
	skip "an interpreter without optuna is named" "no python3"
fi
tap_done
