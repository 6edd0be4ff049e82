#!/bin/sh
# tests/models/test-model-template-minimal.sh - the minimal model template
# (models/template-minimal), checked as a model author uses it: `make
# install` staged under a DESTDIR (headers, weft.pc, libweft, weft-wk, the
# template's directory), the installed copy built in a fresh directory by
# its Makefile.example with pkg-config alone, then found, run and checked
# by the weft command: `weft models`, `make check` (exports, `weft
# conform`, `weft run walk.ini`), `weft conform` on every backend built,
# and the summary the same on a second run. Its host code calls only the
# functions weft/model.h marks "every model".
set -u
build="$WEFT_BUILDDIR"
src="$WEFT_SRCDIR"
weft="$build/cli/weft"
cc=${CC:-cc}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/weft-model-walk-XXXXXX")
. "$src/tests/tap.sh"
trap 'rm -rf "$tmp"' EXIT

. "$src/tests/models/kit.sh"

# ---- the kit, staged as `make install` installs it -----------------------
kit_stage install-dist_modeltemplateminimalDATA "the minimal template"
tpl=$($pc --variable=modeltemplateminimaldir weft)
echo "modeltemplateminimaldir=$tpl" > "$tmp/pc.txt"
test -f "$tpl/Makefile.example" &&
	test "$(dirname "$tpl")" = "$($pc --variable=pkgdatadir weft)"
ok $? "weft.pc's modeltemplateminimaldir names the staged minimal template"
diag "$tmp/pc.txt"

(cd "$tpl" && ls) > "$tmp/installed"
printf '%s\n' Makefile.example README.md walk.c walk.ini walk.wk | cmp -s - "$tmp/installed"
ok $? "the installed minimal template is Makefile.example, README.md, walk.c, walk.ini and walk.wk"
diag "$tmp/installed"

# The headers the kit installs: the contracts and what they share.
(cd "$inc/weft" && ls) > "$tmp/headers"
for h in weft.h distribute.h harness.h common.h program.h backend.h model.h kernel.h kernel_host.h; do
	grep -q -x "$h" "$tmp/headers" || echo "missing: $h"
done > "$tmp/missing"
test ! -s "$tmp/missing"
ok $? "the staged headers include program.h, harness.h and distribute.h beside the other public headers"
diag "$tmp/missing"

# ---- built out of tree, as a third party builds it ------------------------
work="$tmp/my-model"
mkdir -p "$work" && cp "$tpl"/* "$work/"
smake -C "$work" -f Makefile.example CC="$cc" PKG_CONFIG="$pc" CFLAGS='-O2 -Wall -Wextra -Werror' > "$tmp/make.log" 2>&1
rc=$?
test "$rc" -eq 0 && test -f "$work/weft-model-walk.so" && test -f "$work/walk_kernels.c"
ok $? "Makefile.example runs weft-wk and builds weft-model-walk.so without a warning"
[ "$rc" -eq 0 ] || bail "$tmp/make.log"
so="$work/weft-model-walk.so"

test "$(exports "$so" 2>&1)" = weft_model_entry
ok $? "it exports exactly one symbol, weft_model_entry"
exports "$so" 2>&1 | diag

# The minimal template is what model.h's "every model" group says a first
# model needs: its host code calls nothing else of weft.
every="weft_model_fail weft_model_int weft_model_real weft_model_bool
weft_model_string weft_model_where weft_model_seed weft_model_steps
weft_model_alloc weft_model_free weft_model_upload weft_model_download
weft_model_set_step weft_model_summary"
grep -o 'weft_[a-z_]*(' "$work/walk.c" | tr -d '(' | sort -u > "$tmp/calls"
for f in $(cat "$tmp/calls"); do
	case " $(echo $every) " in
	*" $f "*) ;;
	*) echo "$f" ;;
	esac
done > "$tmp/extra"
test -s "$tmp/calls" && test ! -s "$tmp/extra"
ok $? "walk.c calls only the functions weft/model.h marks for every model"
diag "$tmp/extra"

# ---- found, run and checked by the weft command -------------------------
WEFT_MODEL_PATH="$work" "$weft" models > "$tmp/models" 2>&1
grep -q "^walk  *available  *$work/weft-model-walk.so\$" "$tmp/models"
ok $? "weft models, with WEFT_MODEL_PATH set to its directory, lists it as available"
diag "$tmp/models"

if [ ! -f "$build/plugins/openmp/.libs/weft-backend-openmp.so" ]; then
	for what in "make check" "weft conform" "a second run"; do
		skip "$what" "the openmp backend (the reference) is not built"
	done
	tap_done
	exit
fi
plugins="$build/plugins/openmp/.libs"
for b in opencl template cuda; do
	[ -f "$build/plugins/$b/.libs/weft-backend-$b.so" ] && plugins="$plugins:$build/plugins/$b/.libs"
done
WEFT_PLUGIN_PATH="$plugins"; export WEFT_PLUGIN_PATH

(cd "$work" && smake -f Makefile.example check PKG_CONFIG="$pc" WEFT="$weft") > "$tmp/check.log" 2>&1
rc=$?
ok $rc "make -f Makefile.example check passes (exports, weft conform, weft run walk.ini)"
[ "$rc" -eq 0 ] || tail -n 30 "$tmp/check.log" | diag
sum="$work/weft-out/walk/summary.txt"
grep -q '^walkers: 10000$' "$sum" 2> /dev/null &&
	grep -q '^mean square: [0-9.]* (expected 1000\.0)$' "$sum"
ok $? "weft run walk.ini wrote the summary: 10000 walkers, mean square beside its expected 1000"
[ -f "$sum" ] && diag "$sum"

(cd "$work" && "$weft" conform ./weft-model-walk.so) > "$tmp/conform.tap" 2>&1
rc=$?
test "$rc" -eq 0 && ! grep -q '^not ok' "$tmp/conform.tap" &&
	grep -q '^ok .* - models: walk outputs on openmp with 1 thread equal those on openmp with 2 threads' "$tmp/conform.tap"
ok $? "weft conform ./weft-model-walk.so passes ($(grep -c '^ok' "$tmp/conform.tap") tests, exit $rc)"
grep '^not ok' "$tmp/conform.tap" | head -n 5 | diag
grep '^ok .* - models: walk outputs on' "$tmp/conform.tap" | diag

cp "$sum" "$tmp/first.txt"
(cd "$work" && smake -f Makefile.example run PKG_CONFIG="$pc" WEFT="$weft") > "$tmp/run2.log" 2>&1 &&
	cmp "$tmp/first.txt" "$sum" > "$tmp/cmp" 2>&1
ok $? "a second run writes the same summary.txt"
diag "$tmp/cmp"

smake -s -C "$work" -f Makefile.example clean > /dev/null 2>&1 &&
	test ! -e "$so" && test ! -e "$work/walk_kernels.c" && test ! -e "$work/weft-out"
ok $? "make -f Makefile.example clean removes the plugin, the generated kernel and the outputs"

tap_done
