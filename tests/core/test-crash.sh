#!/bin/sh
# tests/core/test-crash.sh - plugins that crash or hang in a hook the run
# calls (the plugins of tests/plugins/crash, tests/core/isolation.am):
#
#  - a crash inside a plugin's code prints one line naming the signal, the
#    plugin file and the hook, and the process ends by that signal (exit
#    128 + N): a model's setup() (also a stack overflow there), a
#    backend's open(), a model's check() run in the process
#    (WEFT_PROBE_TIMEOUT=0);
#  - a model's check() runs in a child: its crash is a message naming the
#    plugin and the hook, exit 1, for `weft check` and `weft run`;
#  - a model's setup() that never returns ends on the first SIGINT within
#    a second, saying which call did not return (exit 130), and leaves the
#    output directory as it was; the next run removes what it left.
set -u
weft="$WEFT_BUILDDIR/cli/weft"
dir="$WEFT_BUILDDIR/tests/plugins/crash/.libs"
walk="$WEFT_BUILDDIR/models/template-minimal/.libs"
openmp="$WEFT_BUILDDIR/plugins/openmp/.libs"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/weft-crash-XXXXXX")
. "$WEFT_SRCDIR/tests/tap.sh"
trap 'rm -rf "$tmp"' EXIT
ulimit -c 0

[ -f "$dir/weft-model-crashsetup.so" ] && [ -f "$walk/weft-model-walk.so" ] ||
	bail_out "the test plugins are not built ($dir, $walk)"

now() { date +%s.%N; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.2f", b - a }'; }
under() { awk -v t="$1" -v max="$2" 'BEGIN { exit !(t < max) }'; }

# ini MODEL: a configuration of MODEL (a plugin of $dir, or walk) on openmp.
ini() {
	cat > "$tmp/$1.ini" <<INI
[simulation]
model = $1
steps = 20
[model]
plugin_path = $dir:$walk
[backend]
name = openmp
[output]
directory = $tmp/out
plot = none
[$1]
walkers = 64
INI
}
for m in crashsetup crashcheck hangsetup deepsetup walk; do ini $m; done

sentinel() { mkdir -p "$tmp/out" && echo sentinel > "$tmp/out/daily.csv"; }
untouched() {
	grep -qx sentinel "$tmp/out/daily.csv" && [ "$(ls -A "$tmp/out")" = daily.csv ]
}

# said NAME RC WANT LINE: the command ended with RC (WANT wanted), and
# standard error is LINE alone (but for the line some shells add about a
# command that died of SIGSEGV).
# In a sanitizer build (WEFT_SANITIZE) the sanitizer's own handler takes
# over after weft's line: it reports (in the child too, where it aborts),
# then aborts; there the line must be said, naming the plugin and the hook
# (the signal may be the sanitizer's SIGABRT), and the status be 1 for a
# child's crash, a signal's for the process's.
said() {
	if [ -n "${WEFT_SANITIZE:-}" ]; then
		rest=${4#*crashed with SIGSEGV}
		grep '^weft: crashed with SIG' "$tmp/err" | grep -qF -- "$rest" &&
			{ { [ "$3" -eq 1 ] && [ "$2" -eq 1 ]; } ||
				{ [ "$3" -ne 1 ] && [ "$2" -gt 128 ]; }; }
		ok $? "$1: exit $2 (want $3, or a sanitizer's abort), the line naming the plugin and the hook"
		return
	fi
	got=$(grep -v '^Segmentation fault' "$tmp/err")
	[ "$2" -eq "$3" ] && [ "$got" = "$4" ]
	ok $? "$1: exit $2 (want $3), one line naming the plugin and the hook"
	[ "$got" = "$4" ] || { echo "# want: $4"; diag "$tmp/err"; }
}

# ---- crashes in the process: one line, then the signal ----------------------
sentinel
WEFT_PLUGIN_PATH=$openmp "$weft" run "$tmp/crashsetup.ini" > /dev/null 2> "$tmp/err"
said "a model's setup() that crashes" $? 139 \
	"weft: crashed with SIGSEGV in model plugin $dir/weft-model-crashsetup.so, setup()"
untouched
ok $? "... and the output directory is as it was"

WEFT_PLUGIN_PATH=$openmp "$weft" run "$tmp/deepsetup.ini" > /dev/null 2> "$tmp/err"
said "a model's setup() that overflows its stack" $? 139 \
	"weft: crashed with SIGSEGV in model plugin $dir/weft-model-deepsetup.so, setup()"

WEFT_PLUGIN_PATH=$openmp "$weft" run "$tmp/walk.ini" --set backend.name=auto \
	--set backend.plugin="$dir/weft-backend-crashopen.so" > /dev/null 2> "$tmp/err"
said "a backend's open() that crashes" $? 139 \
	"weft: crashed with SIGSEGV in backend plugin $dir/weft-backend-crashopen.so, open()"

WEFT_PROBE_TIMEOUT=0 WEFT_PLUGIN_PATH=$openmp "$weft" check "$tmp/crashcheck.ini" > /dev/null 2> "$tmp/err"
said "a model's check() that crashes in the process (WEFT_PROBE_TIMEOUT=0)" $? 139 \
	"weft: crashed with SIGSEGV in model plugin $dir/weft-model-crashcheck.so, check()"

# ---- check() in a child ----------------------------------------------------
child="weft: crashed with SIGSEGV in model plugin $dir/weft-model-crashcheck.so, check() (run in a child process, which it took down alone)"
WEFT_PLUGIN_PATH=$openmp "$weft" check "$tmp/crashcheck.ini" > "$tmp/out.txt" 2> "$tmp/err"
said "weft check: a model's check() that crashes, in a child" $? 1 "$child"
WEFT_PLUGIN_PATH=$openmp "$weft" run "$tmp/crashcheck.ini" > /dev/null 2> "$tmp/err"
said "weft run: a model's check() that crashes, in a child" $? 1 "$child"
untouched
ok $? "... and the output directory is as it was"

# ---- a setup() that never returns: the first SIGINT ------------------------
# --progress says when the setup starts.
WEFT_PLUGIN_PATH=$openmp "$weft" run --progress "$tmp/hangsetup.ini" > /dev/null 2> "$tmp/err" &
pid=$!
i=0
while ! grep -q "setting the model up" "$tmp/err" && [ $i -lt 400 ]; do
	sleep 0.05
	i=$((i + 1))
done
sleep 0.2
t0=$(now)
kill -INT "$pid"
i=0
while kill -0 "$pid" 2> /dev/null && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
kill -KILL "$pid" 2> /dev/null
wait "$pid"
rc=$?
took=$(since "$t0")
[ "$rc" -eq 130 ] && under "$took" 1.0 &&
	grep -qxF "weft: interrupted by SIGINT during model plugin $dir/weft-model-hangsetup.so, setup(), which did not return within 0.5 s: stopped without it (the output directory is as it was)" "$tmp/err"
r=$?
ok $r "a setup() that never returns ends on the first SIGINT (exit $rc in $took s), naming the call"
[ $r -eq 0 ] || diag "$tmp/err"
untouched
ok $? "... and the output directory is as it was"
WEFT_PLUGIN_PATH=$openmp "$weft" run --quiet "$tmp/walk.ini" > /dev/null 2> "$tmp/err"
rc=$?
[ "$rc" -eq 0 ] && [ -s "$tmp/out/summary.txt" ] &&
	[ -z "$(ls -A "$tmp" | grep '^\.out\.weft-\(new\|old\)-')" ]
r=$?
ok $r "the next run into it succeeds and removes what the stopped one left (exit $rc)"
[ $r -eq 0 ] || diag "$tmp/err"

tap_done
