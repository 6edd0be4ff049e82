#!/bin/sh
# tests/models/test-golden.sh - the outputs of the examples are byte for byte
# those of weft before models became plugins (tests/data/refresh.sh says
# how they were made): examples/astoria.ini's daily.csv and summary.txt,
# examples/cartpole.ini's episodes.csv and summary.txt, with [output]
# plot = none, on openmp and on opencl when it is built (a backend that
# cannot run here is skipped with its reason), on cuda when it can run
# here, and on the CUDA plugin built against the stand-in runtime when
# CUDA is built. The build's models are found through WEFT_MODEL_PATH (tests/local.mk).
set -u
weft="$WEFT_BUILDDIR/cli/weft"
data="$WEFT_SRCDIR/tests/data"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/weft-golden-XXXXXX")
. "$WEFT_SRCDIR/tests/tap.sh"
trap 'rm -rf "$tmp"' EXIT

# golden BACKEND EXAMPLE CSV [LABEL]: run examples/EXAMPLE.ini on BACKEND
# and compare CSV and summary.txt with tests/data/EXAMPLE-*.
golden() {
	b=$1 ex=$2 csv=$3 label=${4:-$1}
	out="$tmp/$label-$2"
	"$weft" run --quiet "$WEFT_SRCDIR/examples/$ex.ini" \
		--set backend.name="$b" --set output.plot=none \
		--set output.directory="$out" > "$tmp/run.out" 2>&1
	rc=$?
	for f in "$csv" summary.txt; do
		if [ "$rc" -eq 0 ] && cmp -s "$data/$ex-$f" "$out/$f"; then
			ok 0 "$label: $ex.ini's $f is byte for byte the reference"
		else
			ok 1 "$label: $ex.ini's $f is byte for byte the reference (run exit $rc)"
			diag "$tmp/run.out"
			[ -f "$out/$f" ] && diff "$data/$ex-$f" "$out/$f" | head -20 | diag
		fi
	done
}

# backend NAME: compare on NAME's plugin from this build; skip (or, for
# cuda, only say) why when it is not built or cannot run here.
backend() {
	libs="$WEFT_BUILDDIR/plugins/$1/.libs"
	WEFT_PLUGIN_PATH=$libs
	export WEFT_PLUGIN_PATH
	if [ ! -f "$libs/weft-backend-$1.so" ]; then
		why="not built"
	elif ! "$weft" backends > "$tmp/backends" 2>&1; then
		why="weft backends failed: $(head -1 "$tmp/backends")"
	elif ! grep -q "^$1  *available " "$tmp/backends"; then
		why=$(sed -n '2s/^ *//p' "$tmp/backends")
	else
		golden "$1" astoria daily.csv
		golden "$1" cartpole episodes.csv
		return
	fi
	if [ "$1" = cuda ]; then
		echo "# cuda: not compared ($why)"
		return
	fi
	for t in astoria-daily.csv astoria-summary.txt cartpole-episodes.csv \
		cartpole-summary.txt; do
		skip "$1: $t is byte for byte the reference" "$1 $why"
	done
}

# The CUDA plugin's host logic on the stand-in runtime (tests/plugins/cuda-mock.c,
# built with CUDA): the kernels' host builds, run in the order the mock
# picks among its streams, NVRTC compiling the real sources.
standin() {
	libs="$WEFT_BUILDDIR/tests/plugins/cuda-mock/.libs"
	if [ ! -f "$libs/weft-backend-cuda.so" ]; then
		echo "# cuda stand-in: not built (configured without CUDA)"
		return
	fi
	WEFT_PLUGIN_PATH=$libs
	export WEFT_PLUGIN_PATH
	golden cuda astoria daily.csv "cuda stand-in"
	golden cuda cartpole episodes.csv "cuda stand-in"
}

backend openmp
backend opencl
backend cuda
standin

tap_done
