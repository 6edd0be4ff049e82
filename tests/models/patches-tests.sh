# tests/models/patches-tests.sh - sourced by the patch model's tests
# (test-patches-forcing.sh, -migration, -phases, -measles): the build's
# weft, examples/patches.ini, a scratch directory, and a run of the
# example on a backend; and by test-seir-patches.sh for plot_check.

# patches_setup NAME: $weft, $ex (examples/patches.ini), a scratch
# directory $tmp (removed at exit), tests/tap.sh sourced, and
# WEFT_MODEL_PATH, WEFT_PLUGIN_PATH for the patch model on openmp.
patches_setup() {
	BACKEND= # run's backend: openmp unless a test sets it for one run
	weft="$WEFT_BUILDDIR/cli/weft"
	ex="$WEFT_SRCDIR/examples/patches.ini"
	tmp=$(mktemp -d "${TMPDIR:-/tmp}/weft-patches-$1-XXXXXX")
	. "$WEFT_SRCDIR/tests/tap.sh"
	trap 'rm -rf "$tmp"' EXIT
	WEFT_MODEL_PATH="$WEFT_BUILDDIR/models/patches/.libs"
	WEFT_PLUGIN_PATH="$WEFT_BUILDDIR/plugins/openmp/.libs"
	export WEFT_MODEL_PATH WEFT_PLUGIN_PATH
}

# run LABEL THREADS [--set ...]: examples/patches.ini on openmp (or
# $BACKEND) into $tmp/LABEL, its output in $tmp/LABEL.out.
run() {
	label=$1 th=$2
	shift 2
	WEFT_PLUGIN_PATH="$WEFT_BUILDDIR/plugins/${BACKEND:-openmp}/.libs" \
		"$weft" run --quiet "$ex" --set backend.name="${BACKEND:-openmp}" \
		--set backend.threads="$th" --set output.plot=none \
		--set output.directory="$tmp/$label" "$@" > "$tmp/$label.out" 2>&1
}

# available BACKEND: the backend is built and reports a device.
available() {
	[ -f "$WEFT_BUILDDIR/plugins/$1/.libs/weft-backend-$1.so" ] &&
		WEFT_PLUGIN_PATH="$WEFT_BUILDDIR/plugins/$1/.libs" "$weft" backends 2>/dev/null |
		grep -q "^$1  *available "
}

# same_files REF OTHER FILE...: each FILE of $tmp/OTHER byte for byte the
# same as $tmp/REF's.
same_files() {
	ref=$1 other=$2
	shift 2
	for f in "$@"; do
		cmp -s "$tmp/$ref/$f" "$tmp/$other/$f" || return 1
	done
}

# plot_check DIR PATCHFILE WHAT: models/patches/patches-plot.py draws
# DIR's heatmap.png and, from PATCHFILE, its map.png (a test; skipped
# where no Python has matplotlib: $PYTHON, the source tree's _venv,
# python3).
plot_check() {
	if ! py=$(find_python "matplotlib, numpy" "${PYTHON:-}"); then
		skip "patches-plot.py: $3's heatmap.png and map.png" "no Python with matplotlib (set PYTHON, or ./quickstart python for _venv)"
		return
	fi
	MPLBACKEND=Agg "$py" "$WEFT_SRCDIR/models/patches/patches-plot.py" "$1" \
		--patch-file "$2" > "$tmp/plot.out" 2>&1
	rc=$?
	[ "$rc" -eq 0 ] && [ -s "$1/heatmap.png" ] && [ -s "$1/map.png" ]
	ok $? "patches-plot.py: $3's heatmap.png and map.png (exit $rc)"
	diag "$tmp/plot.out"
}
