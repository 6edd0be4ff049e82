#!/bin/sh
# tests/core/test-isolation.sh - plugins that crash or hang, met by the weft
# command: `weft backends`, `weft models` and `weft config-reference` list
# them with the reason, `backend = auto` passes over them, a named backend
# loads its own plugin alone, and a model plugin that crashes while loading
# does not take the listing down (core/plugin/isolate.c, the plugins of
# tests/plugins/isolate), also in a second run of the same process.
# WEFT_PROBE_TIMEOUT=1 keeps the hung probe short.
set -u
weft="$WEFT_BUILDDIR/cli/weft"
openmp="$WEFT_BUILDDIR/plugins/openmp/.libs"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/weft-isolation-XXXXXX")
. "$WEFT_SRCDIR/tests/tap.sh"
trap 'rm -rf "$tmp"' EXIT
export WEFT_PROBE_TIMEOUT=1

now() { date +%s.%N; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.2f", b - a }'; }
under() { awk -v t="$1" -v max="$2" 'BEGIN { exit !(t < max) }'; }

# listed NAME STATE REASON: `weft backends` printed NAME in STATE, then
# REASON on the next line.
listed() {
	grep -A1 "^$1  *$2 " "$tmp/out" | tail -1 | grep -qF "$3"
}

t0=$(now)
"$weft" backends --plugin-path "$WEFT_TEST_ISOLATE:$openmp" > "$tmp/out" 2> "$tmp/err"
rc=$?
took=$(since "$t0")
ok "$rc" "weft backends survives plugins that crash and hang (exit $rc)"
diag "$tmp/out" "$tmp/err"
listed crashprobe unavailable "probe: probe crashed with SIGSEGV"
ok $? "a probe that crashes: 'probe crashed with SIGSEGV'"
listed hangprobe unavailable "probe: probe did not answer in 1 s"
ok $? "a probe that hangs: 'probe did not answer in 1 s'"
listed crashctor failed "open: loading it crashed with SIGSEGV"
ok $? "a constructor that crashes: 'open: loading it crashed with SIGSEGV'"
listed openmp available "score"
ok $? "and the plugins after them are listed"
under "$took" 3
ok $? "the hung probe costs its time limit, no more ($took s)"

cat > "$tmp/run.ini" <<INI
[simulation]
model = seir
steps = 5
[output]
directory = $tmp/out-run
plot = none
[seir]
agents = 2000
INI
WEFT_PLUGIN_PATH="$WEFT_TEST_ISOLATE:$openmp" "$weft" run "$tmp/run.ini" > "$tmp/out" 2> "$tmp/err"
rc=$?
[ "$rc" -eq 0 ] && grep -q "^weft: seir on openmp$" "$tmp/out"
ok $? "backend = auto passes over them and runs on openmp (exit $rc)"
diag "$tmp/err"

# Two runs in one process: the second looks at the plugins again with a
# backend loaded here. A probe that says no is then asked again in this
# process (a GPU driver started here fails in a fork()ed child), but one
# that crashed or hung in its child is not.
WEFT_PLUGIN_PATH="$WEFT_TEST_ISOLATE:$openmp" "$weft" run "$tmp/run.ini" \
	--set ensemble.runs=2 --set output.directory="$tmp/out-ens" > "$tmp/out" 2> "$tmp/err"
rc=$?
[ "$rc" -eq 0 ] && grep -q "runs  *2 (1 scenarios x 2 seeds), 0 failed" "$tmp/out"
ok $? "two runs in one process: the second passes over them too, none probed in this process (exit $rc)"
diag "$tmp/err"

# A named backend: only its file is looked at (the hung plugin would cost
# its time limit, here 10 s, the probe log would show the fake ones).
export WEFT_FAKE_PROBE_LOG="$tmp/probe.log" WEFT_FAKE_CTOR_LOG="$tmp/ctor.log"
t0=$(now)
WEFT_PROBE_TIMEOUT=10 WEFT_PLUGIN_PATH="$WEFT_TEST_ISOLATE:$WEFT_TEST_PLUGINS:$openmp" \
	"$weft" run "$tmp/run.ini" --set backend.name=openmp > "$tmp/out" 2> "$tmp/err"
rc=$?
took=$(since "$t0")
[ "$rc" -eq 0 ] && [ ! -e "$tmp/probe.log" ] && [ ! -e "$tmp/ctor.log" ] && under "$took" 5
ok $? "name = openmp loads and probes no other plugin ($took s, exit $rc)"
WEFT_PLUGIN_PATH="$WEFT_TEST_ISOLATE:$WEFT_TEST_PLUGINS:$openmp" "$weft" run "$tmp/run.ini" \
	--set backend.name=crashprobe > "$tmp/out" 2> "$tmp/err"
rc=$?
[ "$rc" -eq 1 ] && grep -q "^weft: backend 'crashprobe' is not available: .*weft-backend-crashprobe.so: probe: probe crashed with SIGSEGV; available: .*openmp" "$tmp/err"
ok $? "name = crashprobe fails with its reason and what is available (exit $rc)"
diag "$tmp/err"
unset WEFT_FAKE_PROBE_LOG WEFT_FAKE_CTOR_LOG

# Model plugins: a constructor that crashes.
WEFT_MODEL_PATH="$WEFT_TEST_ISOLATE:$WEFT_MODEL_PATH" "$weft" models > "$tmp/out" 2> "$tmp/err"
rc=$?
[ "$rc" -eq 0 ] && listed crashctor failed "open: loading it crashed with SIGSEGV" &&
	grep -q "^seir  *available" "$tmp/out"
ok $? "weft models lists a model plugin that crashes while loading, and the others (exit $rc)"
WEFT_MODEL_PATH="$WEFT_TEST_ISOLATE:$WEFT_MODEL_PATH" "$weft" config-reference > "$tmp/out" 2> "$tmp/err"
rc=$?
[ "$rc" -eq 0 ] && grep -q '^### \[seir\]' "$tmp/out"
ok $? "weft config-reference survives it too (exit $rc)"
WEFT_MODEL_PATH="$WEFT_TEST_ISOLATE:$WEFT_MODEL_PATH" "$weft" check "$tmp/run.ini" > "$tmp/out" 2> "$tmp/err"
ok $? "and a run of another model never loads it"

# A file that is not a plugin is refused before any of its code runs.
printf '#!/bin/sh\ntouch %s/ran\n' "$tmp" > "$tmp/weft-backend-script.so"
chmod +x "$tmp/weft-backend-script.so"
"$weft" run "$tmp/run.ini" --set "backend.plugin=$tmp/weft-backend-script.so" > "$tmp/out" 2> "$tmp/err"
rc=$?
[ "$rc" -eq 1 ] && grep -q "weft-backend-script.so: open: invalid ELF header: not an ELF file" "$tmp/err"
ok $? "a file that is not ELF is refused at open, naming why (exit $rc)"
diag "$tmp/err"

tap_done
