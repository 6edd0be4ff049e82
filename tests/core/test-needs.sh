#!/bin/sh
# tests/core/test-needs.sh - a model whose program needs hardware double
# (weft_program_desc.needs = WEFT_CAP_F64; tests/models/broken-model.c
# built as weft-model-needsf64.so) runs on OpenMP, and is refused on an
# OpenCL device without fp64 (WEFT_OPENCL_NO_FP64=1 makes PoCL's one) before
# its program is loaded and before its setup() runs, with one line naming
# the model, the capability, the backend, its plugin file and the
# backend's reason, which names the device. On OpenCL with fp64 it runs.
# The conformance suite's models group skips such runs, saying why. A
# backend without caps() has none. With backend = auto, a backend whose
# device lacks it is passed over for the next (by score) that has it, and
# when none has it the one line says what each lacked. `weft backends
# --verbose` lists each available backend's capabilities.
# The OpenCL checks are skipped when the OpenCL backend is not available.
set -u
weft="$WEFT_BUILDDIR/cli/weft"
dir="$WEFT_BUILDDIR/tests/models/broken-models/.libs"
so="$dir/weft-model-needsf64.so"
ocl="$WEFT_BUILDDIR/plugins/opencl/.libs"
WEFT_PLUGIN_PATH="$WEFT_BUILDDIR/plugins/openmp/.libs:$ocl${WEFT_PLUGIN_PATH:+:$WEFT_PLUGIN_PATH}"
export WEFT_PLUGIN_PATH
tmp=$(mktemp -d "${TMPDIR:-/tmp}/weft-needs-XXXXXX")
WEFT_BM_SETUP_LOG="$tmp/setup.log"
export WEFT_BM_SETUP_LOG
. "$WEFT_SRCDIR/tests/tap.sh"
trap 'rm -rf "$tmp"' EXIT

[ -f "$so" ] || bail_out "the test model is not built ($so)"
unset WEFT_OPENCL_NO_FP64

printf '[simulation]\nsteps = 3\n[model]\nplugin = %s\n[output]\nplot = none\n' \
	"$so" > "$tmp/needs.ini"

# run NAME BACKEND [env...]: the model on BACKEND into $tmp/out-NAME.
run() {
	name=$1 backend=$2; shift 2
	rm -f "$WEFT_BM_SETUP_LOG"
	env "$@" "$weft" run --quiet "$tmp/needs.ini" \
		--set "output.directory=$tmp/out-$name" \
		--set "backend.name=$backend" > "$tmp/$name.out" 2> "$tmp/$name.err"
}

run openmp openmp
rc=$?
[ "$rc" -eq 0 ] && [ ! -s "$tmp/openmp.err" ] && [ -s "$WEFT_BM_SETUP_LOG" ]
ok $? "a program needing f64 runs on openmp (exit $rc)"
[ "$rc" -eq 0 ] || diag "$tmp/openmp.err"

# A backend without caps() (the template built without it,
# tests/plugins/broken.c with BROKEN_NO_CAPS) offers exact f32 only.
nocaps="$WEFT_BUILDDIR/tests/plugins/broken/.libs/weft-backend-nocaps.so"
if [ -f "$nocaps" ]; then
	rm -f "$WEFT_BM_SETUP_LOG"
	"$weft" run --quiet "$tmp/needs.ini" --set "output.directory=$tmp/out-nocaps" \
		--set "backend.plugin=$nocaps" > "$tmp/nocaps.out" 2> "$tmp/nocaps.err"
	rc=$?
	[ "$rc" -eq 1 ] && [ "$(wc -l < "$tmp/nocaps.err")" -eq 1 ] &&
		grep -qF "weft: model 'needsf64' needs hardware double (WEFT_CAP_F64); backend nocaps ($nocaps) has no hardware double (WEFT_CAP_F64) on its device: the backend does not report capabilities (no caps(), backend ABI 1.5), so it is taken to have only exact f32 with subnormals" "$tmp/nocaps.err" &&
		[ ! -e "$WEFT_BM_SETUP_LOG" ]
	st=$?
	ok $st "a backend without caps() has no f64: refused before setup (exit $rc)"
	diag "$tmp/nocaps.err"
else
	skip "a backend without caps() has none" "the test backends are not built ($nocaps)"
fi

# backend = auto passes over a backend whose device lacks what the program
# needs: nocaps and the template tie on score 1 and nocaps, found first,
# is tried first; the template has f64. With nocaps alone, the one line
# says what each backend tried lacked.
tpl="$WEFT_BUILDDIR/plugins/template/.libs"
if [ -f "$nocaps" ] && [ -f "$tpl/weft-backend-template.so" ]; then
	mkdir "$tmp/nocaps-dir"
	cp "$nocaps" "$tmp/nocaps-dir/"
	rm -f "$WEFT_BM_SETUP_LOG"
	WEFT_PLUGIN_PATH="$tmp/nocaps-dir:$tpl" "$weft" run "$tmp/needs.ini" \
		--set "output.directory=$tmp/out-auto" --set backend.name=auto \
		> "$tmp/auto.out" 2> "$tmp/auto.err"
	rc=$?
	[ "$rc" -eq 0 ] && [ ! -s "$tmp/auto.err" ] &&
		grep -q '^weft: needsf64 on template$' "$tmp/auto.out" &&
		[ -s "$WEFT_BM_SETUP_LOG" ]
	st=$?
	ok $st "auto passes over nocaps (no f64) for the template, which has it (exit $rc)"
	[ $st -eq 0 ] || diag "$tmp/auto.out" "$tmp/auto.err"
	rm -f "$WEFT_BM_SETUP_LOG"
	WEFT_PLUGIN_PATH="$tmp/nocaps-dir" "$weft" run "$tmp/needs.ini" \
		--set "output.directory=$tmp/out-auto-none" --set backend.name=auto \
		> "$tmp/auto-none.out" 2> "$tmp/auto-none.err"
	rc=$?
	[ "$rc" -eq 1 ] && [ "$(wc -l < "$tmp/auto-none.err")" -eq 1 ] &&
		grep -qF "weft: model 'needsf64' needs hardware double (WEFT_CAP_F64), and no backend found has it (backend = auto): backend nocaps ($tmp/nocaps-dir/weft-backend-nocaps.so) has no hardware double (WEFT_CAP_F64) on its device: the backend does not report capabilities" "$tmp/auto-none.err" &&
		[ ! -e "$WEFT_BM_SETUP_LOG" ]
	st=$?
	ok $st "auto with no backend that fits: refused before setup, saying what each lacked (exit $rc)"
	diag "$tmp/auto-none.err"
else
	skip "auto passes over a backend without f64" "the test backends are not built"
	skip "auto with no backend that fits" "the test backends are not built"
fi

"$weft" backends --verbose > "$tmp/backends" 2>&1
awk '/^openmp / { getline; getline; print; exit }' "$tmp/backends" > "$tmp/omp.caps"
grep -qx ' *caps: f64 f32-exact subnormal atomic64' "$tmp/omp.caps"
st=$?
ok $st "weft backends --verbose: openmp has every capability"
[ $st -eq 0 ] || diag "$tmp/backends"

if ! grep -q '^opencl  *available' "$tmp/backends"; then
	for what in "refused on OpenCL without fp64" "setup() never ran" \
		"conform skips the runs OpenCL without fp64 refuses" \
		"WEFT_OPENCL_NO_FP64=1 takes f64 away" "OpenCL with fp64 runs it" \
		"and writes what OpenMP writes"; do
		skip "$what" "the OpenCL backend is not available"
	done
	tap_done
	exit $?
fi

run nofp64 opencl WEFT_OPENCL_NO_FP64=1
rc=$?
line="weft: model 'needsf64' needs hardware double (WEFT_CAP_F64); backend opencl ($ocl/weft-backend-opencl.so) has no hardware double (WEFT_CAP_F64) on its device: device '"
[ "$rc" -eq 1 ] && [ "$(wc -l < "$tmp/nofp64.err")" -eq 1 ] &&
	case $(cat "$tmp/nofp64.err") in
	"$line"*"': no cl_khr_fp64 (WEFT_OPENCL_NO_FP64 is set)"*) true ;;
	*) false ;;
	esac
st=$?
ok $st "refused on OpenCL without fp64, naming model, backend, plugin, device and reason (exit $rc)"
diag "$tmp/nofp64.err"
[ ! -e "$WEFT_BM_SETUP_LOG" ]
ok $? "the model's setup() never ran"

# The conformance suite's models group skips, saying why, the runs that
# a device without f64 refuses (before, it failed them).
WEFT_OPENCL_NO_FP64=1 "$weft" conform --only=models --model="$so" opencl \
	> "$tmp/conform-nofp64.out" 2>&1
rc=$?
[ "$rc" -eq 0 ] && ! grep -q '^not ok' "$tmp/conform-nofp64.out" &&
	grep -q "^ok .* needsf64 runs to its end on opencl .*# SKIP model 'needsf64' needs hardware double (WEFT_CAP_F64); backend opencl .*no cl_khr_fp64" \
		"$tmp/conform-nofp64.out"
st=$?
ok $st "weft conform --only=models: OpenCL without fp64 skips needsf64's runs, saying why (exit $rc)"
[ $st -eq 0 ] || diag "$tmp/conform-nofp64.out"

WEFT_OPENCL_NO_FP64=1 "$weft" backends --verbose > "$tmp/backends-nofp64" 2>&1
awk '/^opencl / { getline; getline; print; exit }' "$tmp/backends-nofp64" > "$tmp/ocl.caps"
grep -q '^ *caps: .*missing: .*no cl_khr_fp64 (WEFT_OPENCL_NO_FP64 is set)' "$tmp/ocl.caps" &&
	! grep -q 'caps: f64' "$tmp/ocl.caps"
st=$?
ok $st "weft backends --verbose: WEFT_OPENCL_NO_FP64=1 takes f64 away, and says why"
[ $st -eq 0 ] || diag "$tmp/backends-nofp64"

awk '/^opencl / { getline; getline; print; exit }' "$tmp/backends" > "$tmp/ocl.caps"
if grep -q 'caps: f64' "$tmp/ocl.caps"; then
	run fp64 opencl
	rc=$?
	[ "$rc" -eq 0 ] && [ ! -s "$tmp/fp64.err" ] && [ -s "$WEFT_BM_SETUP_LOG" ]
	ok $? "with its fp64, OpenCL runs it (exit $rc)"
	[ "$rc" -eq 0 ] || diag "$tmp/fp64.err"
	cmp -s "$tmp/out-openmp/ticks.csv" "$tmp/out-fp64/ticks.csv"
	ok $? "and writes what OpenMP writes"
else
	why="the OpenCL device has no fp64: $(sed 's/^ *//' "$tmp/ocl.caps")"
	skip "OpenCL with fp64 runs it" "$why"
	skip "and writes what OpenMP writes" "$why"
fi

tap_done
