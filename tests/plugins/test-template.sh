#!/bin/sh
# tests/plugins/test-template.sh - the template backend is what a third party starts
# from, so check it the way they will use it: compiled alone against the
# headers `make install` installs, through the installed weft.pc and
# Makefile.example, then loaded and run by the weft command.
set -u
src="$WEFT_SRCDIR"
build="$WEFT_BUILDDIR"
weft="$build/cli/weft"
cc=${CC:-cc}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/weft-template-XXXXXX")
. "$WEFT_SRCDIR/tests/tap.sh"
trap 'rm -rf "$tmp"' EXIT

# Symbols a shared object defines for others, without those some linkers
# add to every shared object.
exports() { nm -D --defined-only "$1" | awk '{ print $3 }' | grep -v -x -e _edata -e _end -e __bss_start -e _init -e _fini; }

# ---- built from the installed headers alone ----------------------------
# Stage exactly what `make install` puts in $(includedir)/weft, and weft.pc.
stage="$tmp/stage"
env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -s -C "$build" DESTDIR="$stage" \
	install-weftincludeHEADERS install-pkgconfigDATA > "$tmp/make.log" 2>&1
ok $? "the public headers and weft.pc install into a staging directory"
[ "$failed" -eq 0 ] || bail "$tmp/make.log"
inc=$(dirname "$(dirname "$(find "$stage" -path '*/weft/backend.h')")")

so="$tmp/alone/weft-backend-template.so"
mkdir -p "$tmp/alone"
$cc -std=c11 -pedantic -Wall -Wextra -Werror -fPIC -shared -fvisibility=hidden \
	-I"$inc" -o "$so" "$src/plugins/template/template.c" > "$tmp/cc.log" 2>&1
ok $? "template.c compiles with -std=c11 -pedantic -Werror and the installed headers"
diag "$tmp/cc.log"

# Every weft header it reads comes from the staged copy, none from the tree.
$cc -std=c11 -M -I"$inc" "$src/plugins/template/template.c" 2> /dev/null |
	tr ' \\' '\n\n' | grep '/weft/' > "$tmp/deps"
test -s "$tmp/deps" && ! grep -v "^$inc/weft/" "$tmp/deps" > /dev/null
ok $? "every weft header it includes is an installed one"
grep -v "^$inc/weft/" "$tmp/deps" | diag

test "$(exports "$so" 2>&1)" = weft_backend_entry
ok $? "it exports exactly one symbol, weft_backend_entry"
exports "$so" 2>&1 | diag

# Makefile.example, as a third party runs it: weft.pc gives the flags.
mkdir -p "$tmp/copy"
cp "$src/plugins/template/template.c" "$src/plugins/template/Makefile.example" "$tmp/copy/"
prefix=$(PKG_CONFIG_PATH="$(dirname "$(find "$stage" -name weft.pc)")" \
	pkg-config --variable=prefix weft)
PKG_CONFIG_PATH="$(dirname "$(find "$stage" -name weft.pc)")" \
	env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -C "$tmp/copy" -f Makefile.example check \
	PKG_CONFIG="pkg-config --define-variable=prefix=$stage$prefix" > "$tmp/make.log" 2>&1
rc=$?
ok $rc "Makefile.example builds it with weft.pc's Cflags and checks its exports"
[ "$rc" -eq 0 ] || diag "$tmp/make.log"

# ---- loaded and run by the weft command ----------------------------------
plugdir="$build/plugins/template/.libs"
omp="$build/plugins/openmp/.libs/weft-backend-openmp.so"
WEFT_PLUGIN_PATH="$plugdir:${WEFT_PLUGIN_PATH:-}" "$weft" backends > "$tmp/backends" 2>&1
grep -q "^template  *available  *$plugdir/weft-backend-template.so\$" "$tmp/backends"
rc=$?
ok $rc "weft backends lists the template as available"
[ "$rc" -eq 0 ] || diag "$tmp/backends"

cat > "$tmp/run.ini" <<INI
[simulation]
model = seir
steps = 30
seed = 11

[output]
directory = $tmp/unused

[seir]
agents = 3000
INI
if [ -f "$omp" ]; then
	WEFT_PLUGIN_PATH="$plugdir:${WEFT_PLUGIN_PATH:-}" "$weft" run "$tmp/run.ini" \
		--set output.directory="$tmp/auto" > "$tmp/auto.out" 2>&1
	grep -q '^weft: seir on openmp' "$tmp/auto.out"
	ok $? "backend = auto prefers openmp to the template (probe score 1)"

	"$weft" run "$tmp/run.ini" --set backend.plugin="$plugdir/weft-backend-template.so" \
		--set seir.agents=3000 --set simulation.steps=30 \
		--set output.directory="$tmp/tpl" > "$tmp/tpl.out" 2>&1 &&
	grep -q '^weft: seir on template' "$tmp/tpl.out"
	rc=$?
	ok $rc "seir runs on the template plugin, loaded by path"
	[ "$rc" -eq 0 ] || diag "$tmp/tpl.out"
	"$weft" run "$tmp/run.ini" --set backend.name=openmp \
		--set seir.agents=3000 --set simulation.steps=30 \
		--set output.directory="$tmp/omp" > /dev/null 2>&1 &&
	test "$(wc -l < "$tmp/tpl/daily.csv")" -eq 32 &&
	cmp "$tmp/tpl/daily.csv" "$tmp/omp/daily.csv" > "$tmp/cmp" 2>&1
	ok $? "its daily.csv (31 days) is byte-identical to OpenMP's"
	diag "$tmp/cmp"
else
	for what in "auto prefers openmp" "seir runs on the template" "daily.csv matches OpenMP"; do
		skip "$what" "the openmp backend is not built"
	done
fi

tap_done
