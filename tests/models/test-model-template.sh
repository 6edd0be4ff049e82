#!/bin/sh
# tests/models/test-model-template.sh - the model template is what a model author
# starts from, so check it the way they will use it: `make install` staged
# under a DESTDIR (headers, weft.pc, libweft, weft-wk, the template's
# directory), the installed template copied into a fresh directory and
# built there by its Makefile.example with pkg-config and the staged
# weft-wk alone (no path into weft's source or build tree), then found,
# run and checked by the weft command: `weft models`, `weft run sir.ini`,
# `weft conform` on every backend built, and sir.csv byte for byte the
# same on OpenMP, OpenCL and the template backend, and on a second run.
set -u
build="$WEFT_BUILDDIR"
weft="$build/cli/weft"
cc=${CC:-cc}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/weft-model-template-XXXXXX")
. "$WEFT_SRCDIR/tests/tap.sh"
trap 'rm -rf "$tmp"' EXIT

. "$WEFT_SRCDIR/tests/models/kit.sh"

# ---- the kit, staged as `make install` installs it -----------------------
kit_stage install-dist_modeltemplateDATA "the model template"
wk=$($pc --variable=weft_wk weft)
tpl=$($pc --variable=modeltemplatedir weft)
{ echo "includedir=$inc"; echo "weft_wk=$wk"; echo "modeltemplatedir=$tpl"; } > "$tmp/pc.txt"
test -f "$inc/weft/model.h" && test -x "$wk" && test -f "$tpl/Makefile.example" &&
	test "$(dirname "$tpl")" = "$($pc --variable=pkgdatadir weft)"
ok $? "weft.pc's includedir, weft_wk and modeltemplatedir name the staged headers, kernel tool and template"
diag "$tmp/pc.txt"

(cd "$tpl" && ls) > "$tmp/installed"
printf '%s\n' Makefile.example README.md sir.c sir.ini sir.wk sir_shared.h | cmp -s - "$tmp/installed"
ok $? "the installed template is Makefile.example, README.md, sir.c, sir.ini, sir.wk and sir_shared.h"
diag "$tmp/installed"

# ---- built out of tree, as a third party builds it ------------------------
work="$tmp/my-model"
mkdir -p "$work" && cp "$tpl"/* "$work/"
smake -C "$work" -f Makefile.example CC="$cc" PKG_CONFIG="$pc" > "$tmp/make.log" 2>&1
rc=$?
test "$rc" -eq 0 && test -f "$work/weft-model-sir.so" && test -f "$work/sir_kernels.c" && test -f "$work/sir_kernels.h"
ok $? "Makefile.example runs weft-wk and builds weft-model-sir.so with weft.pc's flags"
[ "$rc" -eq 0 ] || bail "$tmp/make.log"
so="$work/weft-model-sir.so"

# weft-wk read weft/kernel.h from the stage (the generated file says which
# kernel.h went into the program text), and every weft header the
# compiler reads is a staged one.
sed -n 's/^ \*   [0-9-]*: weft\/kernel.h (\(.*\))$/\1/p' "$work/sir_kernels.c" > "$tmp/kernel_h"
test "$(cat "$tmp/kernel_h")" = "$inc/weft/kernel.h"
ok $? "the staged weft-wk embedded the staged weft/kernel.h"
diag "$tmp/kernel_h"
for f in sir.c sir_kernels.c; do
	(cd "$work" && $cc -std=c11 -M $($pc --cflags weft) "$f") 2> /dev/null
done | tr ' \\' '\n\n' | grep '/weft/' | sort -u > "$tmp/deps"
test -s "$tmp/deps" && ! grep -v "^$inc/weft/" "$tmp/deps" > /dev/null
ok $? "every weft header sir.c and sir_kernels.c include is a staged one"
grep -v "^$inc/weft/" "$tmp/deps" | diag

test "$(exports "$so" 2>&1)" = weft_model_entry &&
	smake -s -C "$work" -f Makefile.example exports PKG_CONFIG="$pc" > "$tmp/exports" 2>&1
ok $? "it exports exactly one symbol, weft_model_entry (and Makefile.example's exports target says so)"
exports "$so" 2>&1 | diag
diag "$tmp/exports"

# ---- found, run and checked by the weft command -------------------------
WEFT_MODEL_PATH="$work" "$weft" models > "$tmp/models" 2>&1
grep -q "^sir  *available  *$work/weft-model-sir.so\$" "$tmp/models"
rc=$?
ok $rc "weft models, with WEFT_MODEL_PATH set to its directory, lists it as available"
[ "$rc" -eq 0 ] || diag "$tmp/models"

omp="$build/plugins/openmp/.libs/weft-backend-openmp.so"
if [ ! -f "$omp" ]; then
	for what in "make check" "weft conform" "sir.csv on every backend" "a second run"; do
		skip "$what" "the openmp backend (the reference) is not built"
	done
	tap_done
	exit
fi

# Every backend built here, so that `weft conform` compares each with
# OpenMP (it runs the model on every backend available). The CUDA backend
# is compared where its probe finds a driver and a device; elsewhere a
# diagnostic says why not (`make check` must pass on machines without).
plugins="$build/plugins/openmp/.libs"
for b in opencl template cuda; do
	[ -f "$build/plugins/$b/.libs/weft-backend-$b.so" ] && plugins="$plugins:$build/plugins/$b/.libs"
done
WEFT_PLUGIN_PATH="$plugins"; export WEFT_PLUGIN_PATH
"$weft" backends > "$tmp/backends" 2>&1
backends=$(awk '$2 == "available" { print $1 }' "$tmp/backends" | tr '\n' ' ')
# why NAME: not built, or the reason `weft backends` gives.
why() {
	r=$(awk -v b="$1" '$1 == b { getline; sub(/^ */, ""); print; exit }' "$tmp/backends")
	[ -f "$build/plugins/$1/.libs/weft-backend-$1.so" ] || r="the $1 backend is not built"
	echo "${r:-not available}"
}
diag "$tmp/backends"
# The backends checked one by one below: openmp, opencl and the template
# always (a SKIP when they cannot run), cuda when it can.
checked="openmp opencl template"
case " $backends " in
*" cuda "*) checked="$checked cuda" ;;
*) echo "# cuda: not compared here: $(why cuda)" ;;
esac

# Makefile.example's check target: exports, `weft conform`, `weft run
# sir.ini` (its 300 steps on 256 x 256 cells), with the weft command here.
(cd "$work" && smake -f Makefile.example check PKG_CONFIG="$pc" WEFT="$weft") > "$tmp/check.log" 2>&1
rc=$?
ok $rc "make -f Makefile.example check passes (exports, weft conform, weft run sir.ini)"
[ "$rc" -eq 0 ] || tail -n 30 "$tmp/check.log" | diag
csv="$work/weft-out/sir/sir.csv"
test -f "$csv" && test "$(head -n 1 "$csv")" = "step,S,I,R" &&
	test "$(sed -n 2p "$csv")" = "0,65532,4,0" && test "$(wc -l < "$csv")" -eq 302 &&
	grep -q '^infected in all: [1-9][0-9]* (attack rate' "$work/weft-out/sir/summary.txt"
ok $? "weft run sir.ini wrote sir.csv (step 0 to 300: 4 of 65536 cells infected at first) and the summary"
[ -f "$csv" ] && { head -n 3 "$csv"; tail -n 1 "$csv"; } | diag

# `weft conform` by hand: every line ok, and every backend compared.
(cd "$work" && "$weft" conform ./weft-model-sir.so) > "$tmp/conform.tap" 2>&1
rc=$?
test "$rc" -eq 0 && ! grep -q '^not ok' "$tmp/conform.tap" && grep -q '^1\.\.[1-9]' "$tmp/conform.tap"
ok $? "weft conform ./weft-model-sir.so passes ($(grep -c '^ok' "$tmp/conform.tap") tests, exit $rc)"
grep '^not ok' "$tmp/conform.tap" | head -n 5 | diag
for b in $checked; do
	if [ "$b" = openmp ]; then
		pat='sir outputs on openmp with 1 thread equal those on openmp with 2 threads'
		what="openmp with 1 thread with 2 threads"
	else
		pat="sir outputs on $b equal those on openmp"
		what="$b with openmp"
	fi
	case " $backends " in
	*" $b "*)
		grep -q "^ok .* - models: $pat" "$tmp/conform.tap"
		ok $? "  ...and compares $what" ;;
	*) skip "  ...and compares $what" "$(why "$b")" ;;
	esac
done

# sir.csv byte for byte on every backend, and on a second run.
run() { # run BACKEND DIR: 150 steps, a row every 5, the plot left out
	(cd "$work" && WEFT_MODEL_PATH=. "$weft" run sir.ini --quiet \
		--set backend.name="$1" --set output.directory="$2" \
		--set simulation.steps=150 --set output.every=5 \
		--set output.plot=none) > "$tmp/run-$1.log" 2>&1
}
run openmp "$tmp/out-openmp" && test "$(wc -l < "$tmp/out-openmp/sir.csv")" -eq 32
rc=$?
ok $rc "sir runs on openmp (150 steps, a row every 5)"
[ "$rc" -eq 0 ] || diag "$tmp/run-openmp.log"
for b in $checked; do
	[ "$b" = openmp ] && continue
	case " $backends " in
	*" $b "*) ;;
	*) skip "sir.csv on $b is byte-identical to OpenMP's" "$(why "$b")"; continue ;;
	esac
	run "$b" "$tmp/out-$b" && cmp "$tmp/out-$b/sir.csv" "$tmp/out-openmp/sir.csv" > "$tmp/cmp" 2>&1
	rc=$?
	ok $rc "sir.csv on $b is byte-identical to OpenMP's"
	[ "$rc" -eq 0 ] && continue
	diag "$tmp/run-$b.log"
	diag "$tmp/cmp"
done
cp "$tmp/out-openmp/sir.csv" "$tmp/first.csv"
run openmp "$tmp/out-openmp" && cmp "$tmp/out-openmp/sir.csv" "$tmp/first.csv" > "$tmp/cmp" 2>&1
ok $? "a second run on openmp writes the same sir.csv"
diag "$tmp/cmp"

smake -s -C "$work" -f Makefile.example clean > /dev/null 2>&1 &&
	test ! -e "$so" && test ! -e "$work/sir_kernels.c" && test ! -e "$work/weft-out"
ok $? "make -f Makefile.example clean removes the plugin, the generated kernels and the outputs"

tap_done
