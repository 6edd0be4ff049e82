#!/bin/sh
# tests/models/test-abm-kit.sh - the agent-based kit (weft/space.h and
# space.wk, weft/agents.h and agents.wk, weft/grid.h and grid.wk, with
# weft/blocks.* and weft/math.h beneath them) is usable by a third party's
# model built from the installed kit alone: `make install` staged under a
# DESTDIR (headers, weft.pc, libweft, weft-wk and the minimal template for
# its Makefile.example), then the sources of models/circles and
# models/wolf-sheep (their .c, .wk and _shared.h, nothing else) copied
# into a fresh directory each and built there with pkg-config and the
# staged weft-wk (no path into weft's source or build tree). Each plugin
# exports only weft_model_entry, reads only staged weft headers, and,
# found through WEFT_MODEL_PATH and run by this tree's weft command on
# its OpenMP backend, writes outputs byte for byte those of the plugin
# built in the tree; `weft conform --model=circles` passes on it.
set -u
build="$WEFT_BUILDDIR"
src="$WEFT_SRCDIR"
weft="$build/cli/weft"
cc=${CC:-cc}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/weft-abm-kit-XXXXXX")
. "$src/tests/tap.sh"
trap 'rm -rf "$tmp"' EXIT

. "$src/tests/models/kit.sh"

# ---- the kit, staged as `make install` installs it -----------------------
# The minimal template comes along for its Makefile.example, the build
# recipe the kit gives a model author (weft-wk, then the compiler).
kit_stage install-dist_modeltemplateminimalDATA "the minimal template"
tpl=$($pc --variable=modeltemplateminimaldir weft)
test -f "$tpl/Makefile.example"
ok $? "weft.pc's modeltemplateminimaldir holds Makefile.example (the build recipe used below)"

# The kit's agent-based services and what they include: each must be
# installed, or a model outside the tree cannot include it.
kit="space.h space.wk agents.h agents.wk grid.h grid.wk blocks.h blocks.wk math.h"
for h in $kit; do
	test -f "$inc/weft/$h" || echo "not installed: $inc/weft/$h"
done > "$tmp/missing"
test ! -s "$tmp/missing"
ok $? "the staged kit holds weft/{space,agents,grid,blocks}.{h,wk} and weft/math.h"
diag "$tmp/missing"

# ---- each model built out of tree, as a third party builds it ------------
# build_model DIR NAME LDLIBS: models/DIR's .c, .wk and _shared.h copied
# into $tmp/NAME with the staged Makefile.example, which builds
# weft-model-NAME.so there. Sets work and built (0 when it built).
build_model() {
	work="$tmp/$2"
	mkdir -p "$work" &&
		cp "$src/models/$1"/*.c "$src/models/$1"/*.wk "$src/models/$1"/*_shared.h "$work/" &&
		cp "$tpl/Makefile.example" "$work/"
	(cd "$work" && ls) > "$tmp/$2.files"
	smake -C "$work" -f Makefile.example NAME="$2" SRCS="$2.c" \
		HDRS="$2_shared.h" LDLIBS="$3" CC="$cc" PKG_CONFIG="$pc" \
		CFLAGS='-O2 -Wall -Wextra -Werror' > "$tmp/$2.make.log" 2>&1 &&
		test -f "$work/weft-model-$2.so"
	built=$?
	ok $built "$2: the sources of models/$1 alone ($(echo $(grep -v Makefile.example "$tmp/$2.files"))) build into weft-model-$2.so with the staged kit, without a warning"
	[ "$built" -eq 0 ] || tail -n 30 "$tmp/$2.make.log" | diag
}

# staged_only NAME: every weft header the compiler reads for NAME.c and
# NAME_kernels.c, and every kit file weft-wk inlined into the program text
# (the generated file lists them), is a staged one.
staged_only() {
	(cd "$work" && for f in "$1.c" "$1_kernels.c"; do
		$cc -std=c11 -M $($pc --cflags weft) "$f"
	done) 2> /dev/null | tr ' \\' '\n\n' | grep '/weft/' > "$tmp/$1.deps"
	sed -n 's/^ \*   [0-9-]*: \(\/[^:]*\/weft\/[^:]*\):[0-9-]*$/\1/p; s/^ \*   [0-9-]*: weft\/kernel.h (\(.*\))$/\1/p' \
		"$work/$1_kernels.c" >> "$tmp/$1.deps"
	sort -u "$tmp/$1.deps" -o "$tmp/$1.deps"
	test -s "$tmp/$1.deps" && ! grep -v "^$inc/weft/" "$tmp/$1.deps" > /dev/null
	ok $? "$1: every weft header the compiler and weft-wk read is a staged one"
	grep -v "^$inc/weft/" "$tmp/$1.deps" | diag
}

# exports_entry NAME: the plugin defines weft_model_entry and nothing else.
exports_entry() {
	test "$(exports "$work/weft-model-$1.so" 2>&1)" = weft_model_entry
	ok $? "$1: weft-model-$1.so exports exactly one symbol, weft_model_entry"
	exports "$work/weft-model-$1.so" 2>&1 | diag
}

# found NAME: `weft models`, with WEFT_MODEL_PATH the directory alone,
# finds the copy built here (not the tree's, nor an installed one).
found() {
	WEFT_MODEL_PATH="$work" "$weft" models > "$tmp/$1.models" 2>&1
	grep -q "^$1  *available  *$work/weft-model-$1.so\$" "$tmp/$1.models"
	ok $? "$1: weft models, with WEFT_MODEL_PATH=$work, finds weft-model-$1.so there"
	grep "^$1 " "$tmp/$1.models" | diag
}

# same NAME INI "FILES" [--set ...]: INI run on openmp (1 thread, no plot)
# with the plugin built here and with the tree's, FILES byte for byte equal.
same() {
	name=$1 ini=$2 files=$3
	shift 3
	for w in here tree; do
		if [ "$w" = here ]; then dir="$work"; else dir="$treedir"; fi
		WEFT_MODEL_PATH="$dir" "$weft" run "$src/examples/$ini" --quiet \
			--set backend.name=openmp --set backend.threads=1 \
			--set output.plot=none --set output.directory="$tmp/$name-$w" \
			"$@" > "$tmp/$name-$w.log" 2>&1 || echo "weft run with the $w plugin failed (exit $?)"
	done > "$tmp/$name.cmp" 2>&1
	for f in $files; do
		test -s "$tmp/$name-tree/$f" || echo "the tree's plugin wrote no $f"
		cmp "$tmp/$name-here/$f" "$tmp/$name-tree/$f" 2>&1
	done >> "$tmp/$name.cmp"
	test ! -s "$tmp/$name.cmp"
	rc=$?
	ok $rc "$name: examples/$ini (small, on openmp) writes $(echo $files) byte for byte as the tree's plugin does"
	[ "$rc" -eq 0 ] && return
	diag "$tmp/$name.cmp"
	tail -n 5 "$tmp/$name-here.log" "$tmp/$name-tree.log" 2> /dev/null | diag
}

omp="$build/plugins/openmp/.libs"
if [ -f "$omp/weft-backend-openmp.so" ]; then
	WEFT_PLUGIN_PATH="$omp"; export WEFT_PLUGIN_PATH
fi

# A model's checks: build, headers, exports, found; then its runs (which
# need the openmp backend and the tree's plugin to compare with).
# model DIR NAME LDLIBS: all but the runs; sets work, treedir and runs
# (0 when the runs can go ahead).
model() {
	build_model "$1" "$2" "$3"
	treedir="$build/models/$1/.libs"
	runs=1
	if [ "$built" -ne 0 ]; then
		for what in "only staged headers" "exports" "weft models" "its runs"; do
			skip "$2: $what" "it did not build"
		done
		return
	fi
	staged_only "$2"
	exports_entry "$2"
	found "$2"
	if [ ! -f "$omp/weft-backend-openmp.so" ]; then
		skip "$2: its runs" "the openmp backend is not built"
	elif [ ! -f "$treedir/weft-model-$2.so" ]; then
		skip "$2: its runs" "the tree's $treedir/weft-model-$2.so is not built"
	else
		runs=0
	fi
}

# circles: the continuous space (weft/space.h, weft/space.wk).
model circles circles -lm
if [ "$runs" -eq 0 ]; then
	same circles circles.ini "circles.csv circles-agents.csv summary.txt" \
		--set circles.agents=2000 --set circles.agents_csv=true \
		--set simulation.steps=10 --set output.every=1
	WEFT_MODEL_PATH="$work" "$weft" conform --model=circles openmp > "$tmp/conform.tap" 2>&1
	rc=$?
	test "$rc" -eq 0 && ! grep -q '^not ok' "$tmp/conform.tap" && grep -q '^1\.\.[1-9]' "$tmp/conform.tap"
	ok $? "circles: weft conform --model=circles openmp passes on the copy built here ($(grep -c '^ok' "$tmp/conform.tap") tests, exit $rc)"
	grep '^not ok' "$tmp/conform.tap" | head -n 5 | diag
fi

# wolf_sheep: populations with births and deaths (weft/agents.h,
# weft/agents.wk) on a grid (weft/grid.h, weft/grid.wk).
model wolf-sheep wolf_sheep ""
if [ "$runs" -eq 0 ]; then
	same wolf_sheep wolf-sheep.ini "counts.csv summary.txt" \
		--set wolf_sheep.width=40 --set wolf_sheep.height=30 \
		--set wolf_sheep.initial_sheep=300 --set wolf_sheep.initial_wolves=40 \
		--set wolf_sheep.sheep_reproduce=0.1 --set simulation.steps=80
fi

tap_done
