# tests/models/vt-drive.sh - what test-space.sh and test-graph.sh share: a
# kit test program built on tests/models/vt-drive.c (PROG PLUGIN.so
# THREADS) run on each backend built here, the host one at one and two
# threads. A test sources it after tests/tap.sh:
#
#   . "$WEFT_SRCDIR/tests/models/vt-drive.sh"
#   vt_drive_all space-test weft-space "what a passing run shows"
#
# vt_drive_all PROG TMPNAME WHAT: one test a backend, "BACKEND backend[,
# N thread(s)]: WHAT", skipped where the plugin is not built; the
# program's output as a diagnostic when it fails. Skips all when PROG is
# not built.

# vt_drive BACKEND THREADS: PROG on backend BACKEND (THREADS 0: its default).
vt_drive() {
	plugin="$build/plugins/$1/.libs/weft-backend-$1.so"
	on="$1 backend"
	[ "$2" -eq 0 ] || on="$on, $2 thread(s)"
	if [ ! -f "$plugin" ]; then
		skip "$on: $vt_what" "$plugin not built"
		return
	fi
	OMP_NUM_THREADS=$2 "$vt_prog" "$plugin" "$2" > "$tmp/out" 2>&1
	rc=$?
	ok $rc "$on: $vt_what"
	[ $rc -eq 0 ] || diag "$tmp/out"
}

vt_drive_all() {
	build=${WEFT_BUILDDIR:-.}
	vt_prog="$build/tests/models/$1"
	vt_what=$3
	[ -x "$vt_prog" ] || skip_all "$vt_prog is not built (make check builds it)"
	tmp=$(mktemp -d "${TMPDIR:-/tmp}/$2-XXXXXX")
	trap 'rm -rf "$tmp"' EXIT
	vt_drive openmp 1
	vt_drive openmp 2
	vt_drive template 0
	vt_drive opencl 0
}
