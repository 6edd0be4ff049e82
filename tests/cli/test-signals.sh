#!/bin/sh
# tests/cli/test-signals.sh - signals in every phase of `weft run` and `weft
# check` (cli/weft.c, weft_context_cancel): SIGINT, SIGTERM and SIGHUP end
# the model's setup, the steps and the finish (gnuplot killed) within a
# second, with exit 128 + N, one line on stderr and nothing replaced; a
# second signal ends the process at once (blocked in a backend); SIGQUIT
# ends it at once by its default action, also once PoCL (OpenCL) is loaded;
# gnuplot gets a time limit.
set -u
weft="$WEFT_BUILDDIR/cli/weft"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/weft-signals-XXXXXX")
. "$WEFT_SRCDIR/tests/tap.sh"
trap 'rm -rf "$tmp"' EXIT
ulimit -c 0 # SIGQUIT's core dumps

now() { date +%s.%N; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.2f", b - a }'; }
under() { awk -v t="$1" -v max="$2" 'BEGIN { exit !(t < max) }'; }

cat > "$tmp/base.ini" <<INI
[simulation]
model = seir
steps = 1000000
[backend]
name = openmp
[output]
directory = $tmp/out
every = 1000
plot = none
[seir]
agents = 30000
INI

# A stand-in gnuplot that says where it is, then takes its time.
mkdir -p "$tmp/bin"
cat > "$tmp/bin/gnuplot" <<EOF
#!/bin/sh
echo \$\$ > "$tmp/gnuplot.pid"
exec sleep 30
EOF
chmod +x "$tmp/bin/gnuplot"

sentinel() { mkdir -p "$tmp/out" && echo sentinel > "$tmp/out/daily.csv"; }
untouched() {
	grep -qx sentinel "$tmp/out/daily.csv" && [ "$(ls -A "$tmp/out")" = daily.csv ] &&
		[ -z "$(ls -A "$tmp" | grep '^\.out\.weft-\(new\|old\)-')" ]
}

# finish PID SECONDS: wait for PID, killing it (-9) if it is still there
# after SECONDS; its status in rc, the time taken from now in took.
finish() {
	t0=$(now)
	i=0
	while kill -0 "$1" 2> /dev/null && [ $i -lt $(($2 * 20)) ]; do sleep 0.05; i=$((i + 1)); done
	kill -KILL "$1" 2> /dev/null
	wait "$1"
	rc=$?
	took=$(since "$t0")
}

# until_file FILE: wait (up to 20 s) for FILE to exist.
until_file() {
	i=0
	while [ ! -s "$1" ] && [ $i -lt 400 ]; do sleep 0.05; i=$((i + 1)); done
}

# stepping: wait (up to 60 s) until the run in the background has set its
# model up (SEIR opens daily.csv in the new output set last), then a
# little more, so that a signal lands in the step loop however long the
# setup took (a loaded machine, a sanitizer build).
stepping() {
	i=0
	while ! ls "$tmp"/.out.weft-new-*/daily.csv > /dev/null 2>&1 && [ $i -lt 1200 ]; do
		sleep 0.05
		i=$((i + 1))
	done
	sleep 0.3
}

# stopped NAME RC SIG TEXT: the run ended with RC in under 1 s, saying TEXT
# in one line, and replaced nothing.
stopped() {
	[ "$rc" -eq "$2" ] && under "$took" 1.0 && [ "$(wc -l < "$tmp/err" | tr -d ' ')" -le 2 ] &&
		grep -q "^weft: interrupted by $3: .*$4" "$tmp/err" && untouched
	ok $? "$1: exit $rc (want $2) in $took s, '$4', nothing replaced"
	diag "$tmp/err"
}

# interrupt AFTER SIG NAME RC TEXT [weft run options]: a run of base.ini
# gets SIG AFTER seconds in (or, with AFTER "stepping", once it steps),
# and must have stopped as stopped() says.
interrupt() {
	after=$1 sig=$2 name=$3 want=$4 text=$5
	shift 5
	sentinel
	"$weft" run "$tmp/base.ini" "$@" > /dev/null 2> "$tmp/err" &
	pid=$!
	if [ "$after" = stepping ]; then stepping; else sleep "$after"; fi
	kill -"$sig" "$pid"
	finish "$pid" 10
	stopped "$name" "$want" "SIG$sig" "$text"
}

# ---- setup: building a population of 2 million agents ----------------------
interrupt 0.8 INT "SIGINT during the model's setup" 130 "cancelled while" \
	--set seir.agents=2000000

# ---- the steps (stepping: until the run's new set holds daily.csv) ------------
interrupt stepping HUP "SIGHUP during the steps, like SIGTERM" 129 "cancelled while stepping"
interrupt stepping TERM "SIGTERM during the steps" 143 "cancelled while stepping"

# ---- the finish: gnuplot is killed ------------------------------------------
sentinel
rm -f "$tmp/gnuplot.pid"
PATH="$tmp/bin:$PATH" "$weft" run "$tmp/base.ini" --set simulation.steps=20 \
	--set seir.agents=2000 --set output.plot=png > /dev/null 2> "$tmp/err" &
pid=$!
until_file "$tmp/gnuplot.pid"
kill -TERM "$pid"
finish "$pid" 10
stopped "SIGTERM while gnuplot draws" 143 SIGTERM "cancelled while drawing the plot (gnuplot was killed)"
gp=$(cat "$tmp/gnuplot.pid" 2> /dev/null)
sleep 0.2
ok "$(test -n "$gp" && ! kill -0 "$gp" 2> /dev/null; echo $?)" "... and gnuplot was killed"

rm -f "$tmp/gnuplot.pid"
t0=$(now)
PATH="$tmp/bin:$PATH" WEFT_GNUPLOT_TIMEOUT=1 "$weft" run "$tmp/base.ini" --set simulation.steps=20 \
	--set seir.agents=2000 --set output.plot=png > "$tmp/stdout" 2> "$tmp/err"
rc=$?
took=$(since "$t0")
[ "$rc" -eq 0 ] && under "$took" 5 && grep -q "not drawn: $tmp/bin/gnuplot did not finish in 1 s and was killed (WEFT_GNUPLOT_TIMEOUT)" "$tmp/stdout" &&
	[ -s "$tmp/out/daily.csv" ] && [ ! -e "$tmp/out/daily.png" ]
ok $? "a gnuplot past its time limit is killed; the run completes without the image ($took s, exit $rc)"

# ---- a second signal ends the process at once ---------------------------------
# Here, blocked in a backend's sync() that never returns (the broken
# backend brk-hang), which no check reaches.
WEFT_PLUGIN_PATH="$WEFT_PLUGIN_PATH:$WEFT_BUILDDIR/tests/plugins/broken/.libs" \
	"$weft" run "$tmp/base.ini" --set backend.name=brk-hang \
	--set simulation.steps=10 --set seir.agents=1000 \
	--set output.directory="$tmp/hang" > /dev/null 2> "$tmp/err" &
pid=$!
sleep 1
kill -INT "$pid"
sleep 0.3
kill -0 "$pid" 2> /dev/null
alive=$?
kill -INT "$pid"
finish "$pid" 5
[ "$alive" -eq 0 ] && [ "$rc" -eq 130 ] && under "$took" 1.0
ok $? "a second SIGINT ends the process at once, by SIGINT (status $rc in $took s)"

# ---- SIGQUIT: at once, by its default action -----------------------------------
quit_test() {
	sentinel
	"$weft" run "$tmp/base.ini" "$@" > /dev/null 2> "$tmp/err" &
	pid=$!
	sleep 2
	kill -QUIT "$pid"
	finish "$pid" 10
	[ "$rc" -eq 131 ] && under "$took" 1.0 && grep -qx sentinel "$tmp/out/daily.csv"
}
quit_test
ok $? "SIGQUIT during the steps ends the process by SIGQUIT (status $rc in $took s)"
if WEFT_PLUGIN_PATH="$WEFT_BUILDDIR/plugins/opencl/.libs" "$weft" backends 2> /dev/null |
	grep -q '^opencl  *available'; then
	WEFT_PLUGIN_PATH="$WEFT_BUILDDIR/plugins/opencl/.libs" quit_test \
		--set backend.name=opencl --set output.every=100
	ok $? "SIGQUIT with PoCL loaded (which installs its own handlers) still ends the process (status $rc in $took s)"
else
	skip "no OpenCL device here"
fi

tap_done
