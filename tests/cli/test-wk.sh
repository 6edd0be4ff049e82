#!/bin/sh
# tests/cli/test-wk.sh - weft-wk, the kernel tool (docs/kernel-tool.md), as a
# model's build uses it: the sample tests/cli/wk/demo.wk (three kernels, a
# shared header included twice, comments and literals holding WEFT_BUF)
# becomes a C file and a header that compile with -pedantic -Werror, whose
# program, signatures and launch helpers tests/cli/wk/run.c checks on the host
# and on every backend plugin built here (OpenCL and CUDA compile the
# embedded text at run time); then every error, with its FILE:LINE.
set -u
src="$WEFT_SRCDIR"
build="$WEFT_BUILDDIR"
wk="$build/cli/weft-wk"
cc=${CC:-cc}
# What links tests/cli/wk/run.c, which loads this build's plugins: a sanitizer
# build (tests/sanitize/run.sh) needs its runtime in the program.
runcc=${WEFT_PLUGIN_HOST_CC:-$cc}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/weft-wk-XXXXXX")
. "$WEFT_SRCDIR/tests/tap.sh"
trap 'rm -rf "$tmp"' EXIT

# okd STATUS TEXT FILE...: ok, with the files as diagnostics when it failed.
okd() { rc=$1 what=$2; shift 2; ok "$rc" "$what"; [ "$rc" -eq 0 ] || diag "$@"; }
cflags="-std=c11 -Wall -Wextra -Werror -pedantic -I$src/include"

# ---- the sample ------------------------------------------------------------
out="$tmp/demo"
mkdir -p "$out"
(cd "$out" && "$wk" -I "$src/include" "$src/tests/cli/wk/demo.wk") > "$tmp/wk.log" 2>&1 &&
	test -s "$out/demo_kernels.c" && test -s "$out/demo_kernels.h" &&
	! test -s "$tmp/wk.log"
rc=$?
ok $rc "weft-wk demo.wk writes demo_kernels.c and demo_kernels.h, silently"
diag "$tmp/wk.log"
[ "$rc" -eq 0 ] || bail
ls "$out" | grep -q '\.tmp$'
ok $((1 - $?)) "no temporary file is left behind"

$cc $cflags -c -o "$out/demo_kernels.o" "$out/demo_kernels.c" > "$tmp/cc.log" 2>&1
okd $? "demo_kernels.c compiles with -std=c11 -Wall -Wextra -Werror -pedantic" "$tmp/cc.log"
printf '#include "demo_kernels.h"\n#include "demo_kernels.h"\n' > "$out/twice.c"
$cc $cflags -I"$out" -c -o "$out/twice.o" "$out/twice.c" > "$tmp/cc.log" 2>&1
okd $? "demo_kernels.h compiles alone, included twice" "$tmp/cc.log"
nm "$out/demo_kernels.o" | awk '$2 ~ /^[A-Z]$/ && $2 != "U" { print $3 }' | sort > "$tmp/syms"
readelf -sW "$out/demo_kernels.o" | awk '$5 == "GLOBAL" && $6 != "HIDDEN" && $7 != "UND"' > "$tmp/visible"
test "$(tr '\n' ' ' < "$tmp/syms")" = "demo_program demo_sigs " && ! test -s "$tmp/visible"
rc=$?
ok $rc "it defines demo_program and demo_sigs, hidden, and nothing else global"
[ "$rc" -eq 0 ] || diag "$tmp/syms" "$tmp/visible"

$runcc $cflags -I"$src/tests/cli/wk" -I"$out" -o "$out/run" "$src/tests/cli/wk/run.c" \
	"$out/demo_kernels.c" -ldl > "$tmp/cc.log" 2>&1
rc=$?
ok $rc "tests/cli/wk/run.c links with demo_kernels.c (-pedantic -Werror)"
diag "$tmp/cc.log"
if [ "$rc" -eq 0 ]; then
	set --
	for b in openmp opencl cuda template; do
		p="$build/plugins/$b/.libs/weft-backend-$b.so"
		[ -f "$p" ] && set -- "$@" "$p"
	done
	"$out/run" "$tmp/source.txt" "$@" > "$tmp/run.log" 2>&1
	rc=$?
	while IFS= read -r line; do
		case $line in
		"ok - "*) ok 0 "${line#ok - }" ;;
		"not ok - "*) ok 1 "${line#not ok - }" ;;
		"#"*) echo "$line" ;;
		*) echo "# $line" ;;
		esac
	done < "$tmp/run.log"
	ok $rc "run exits 0"
fi

# The program text: weft/kernel.h, then demo.wk with its includes inlined
# (each once), its buffers numbered and #line directives to the files (named
# as weft-wk was given them, here under $src/); tests/cli/wk/demo.program is
# what must follow kernel.h.
cat "$src/include/weft/kernel.h" "$src/tests/cli/wk/demo.program" > "$tmp/want.txt"
sed "s|^#line \([0-9]*\) \"$src/|#line \\1 \"|" "$tmp/source.txt" > "$tmp/source-rel.txt"
cmp "$tmp/want.txt" "$tmp/source-rel.txt" > "$tmp/cmp" 2>&1
rc=$?
ok $rc "the embedded text is weft/kernel.h then tests/cli/wk/demo.program"
[ "$rc" -eq 0 ] || diff "$tmp/want.txt" "$tmp/source-rel.txt" | head -40 | diag
grep -qF 'WEFT_BUF(weft_u32, x, 1);' "$tmp/source.txt" &&
	grep -qF 'WEFT_BUF(weft_u32, braces, 3);' "$tmp/source.txt"
ok $? "WEFT_BUF(weft_u32, x, 1) and WEFT_BUF(weft_u32, braces, 3) are in it"
# Comments removed, no directive: no two-argument WEFT_BUF is left.
$cc -fpreprocessed -dD -E -P -x c "$tmp/source.txt" 2> /dev/null | grep -v '^#' > "$tmp/code.txt"
test "$(grep -c 'WEFT_BUF(' "$tmp/code.txt")" -eq 6 &&
	! grep -E 'WEFT_BUF\([^,()]*,[^,()]*\)' "$tmp/code.txt"
ok $? "its code has six WEFT_BUF, none with two arguments"
grep -v '^#include' "$tmp/source.txt" | grep -c 'demo_twice(weft_u32 v)' | grep -qx 1 &&
	! grep -q '#include' "$tmp/source.txt"
ok $? "each header is inlined once, and no #include is left"
{ echo '#include <weft/kernel_host.h>'; cat "$tmp/source.txt"; } > "$tmp/host.c"
$cc -std=c11 -Wall -Wno-unused-function -Werror -I"$src/include" -fsyntax-only \
	"$tmp/host.c" > "$tmp/cc.log" 2>&1
okd $? "the embedded text compiles as C after the host prelude" "$tmp/cc.log"

# The host build's #line directives point into the files: break a line of
# demo.wk and one of the header it includes, and the compiler says where.
bad="$tmp/bad"
mkdir -p "$bad"
cp "$src/tests/cli/wk/demo_shared.h" "$src/tests/cli/wk/demo_more.h" "$bad/"
sed '36a\
	sum[g] = not_declared_in_wk;' "$src/tests/cli/wk/demo.wk" > "$bad/demo.wk"
sed 's/return v + v;/return v + not_declared_in_h;/' "$src/tests/cli/wk/demo_more.h" > "$bad/demo_more.h"
(cd "$bad" && "$wk" -I "$src/include" demo.wk && $cc $cflags -c demo_kernels.c) > "$tmp/cc.log" 2>&1
grep -q '^demo\.wk:37:.*not_declared_in_wk' "$tmp/cc.log" &&
	grep -q '^demo_more\.h:4:.*not_declared_in_h' "$tmp/cc.log"
rc=$?
ok $rc "compiler errors in the host build name demo.wk:37 and demo_more.h:4"
[ "$rc" -eq 0 ] || diag "$tmp/cc.log"

# ---- the scanner on harder C -----------------------------------------------
(cd "$out" && "$wk" -I "$src/include" "$src/tests/cli/wk/tricky.wk") > "$tmp/wk.log" 2>&1
okd $? "weft-wk tricky.wk (literals, continued comments, odd spacing)" "$tmp/wk.log"
t="$out/tricky_kernels.c"
grep -qF '	WEFT_BUF(const /* a comment in the type */ weft_u32,' "$t" &&
	grep -qF '		 /* and one before the name */ in, 0);' "$t" &&
	grep -qF '	WEFT_BUF(weft_u32, out, 1) ; // the' "$t" &&
	grep -qF 'WEFT_KERNEL(two){WEFT_BUF(weft_u32,a, 0);WEFT_BUF(weft_u8,b, 1);if(' "$t" &&
	grep -qF 'const char *s = "WEFT_BUF(weft_u32, nope); } \" /* not a comment";' "$t" &&
	grep -qF 'continued: WEFT_BUF(weft_u32, c2, 9);' "$t"
ok $? "each WEFT_BUF gets its slot; literals, comments and the rest are kept"
grep -qF 'weft_buf *in; /* slot 0: const weft_u32 */' "$out/tricky_kernels.h" &&
	grep -qF 'weft_buf *b; /* slot 1: weft_u8 */' "$out/tricky_kernels.h" &&
	grep -qF 'TRICKY_K_ONE' "$out/tricky_kernels.h" && grep -qF 'TRICKY_K_TWO' "$out/tricky_kernels.h"
ok $? "the header's structs show each buffer's slot and type"
$cc $cflags -Wno-comment -c -o "$out/tricky.o" "$t" > "$tmp/cc.log" 2>&1
okd $? "tricky_kernels.c compiles (-Wno-comment: it has a continued // comment)" "$tmp/cc.log"

# ---- weft's kit: <weft/NAME.h> and <weft/NAME.wk> ---------------------------
# tests/cli/wk/kituse.wk includes the kit fixtures under tests/cli/wk/kit, each
# twice; the kit kernel keeps its weft_* name.
kit="$src/tests/cli/wk/kit"
(cd "$out" && "$wk" -I "$kit" -I "$src/include" "$src/tests/cli/wk/kituse.wk") > "$tmp/wk.log" 2>&1
okd $? "weft-wk -I tests/cli/wk/kit kituse.wk (kit includes)" "$tmp/wk.log"
$cc $cflags -c -o "$out/kituse.o" "$out/kituse_kernels.c" > "$tmp/cc.log" 2>&1 &&
	printf '#include "kituse_kernels.h"\n' > "$out/kituse_h.c" &&
	$cc $cflags -I"$out" -c -o "$out/kituse_h.o" "$out/kituse_h.c" >> "$tmp/cc.log" 2>&1
okd $? "kituse_kernels.c and .h compile with -pedantic -Werror" "$tmp/cc.log"
h="$out/kituse_kernels.h"
grep -qF 'KITUSE_K_WEFT_DEMOKIT_FILL, /* weft_demokit_fill */' "$h" &&
	grep -q '^weft_demokit_fill_launch(weft_demokit_fill_bufs b, uint32_t extent)$' "$h" &&
	grep -qF 'KITUSE_K_TRIPLE, /* triple */' "$h" && grep -q '^kituse_triple_launch(' "$h"
ok $? "the kit kernel keeps its name: KITUSE_K_WEFT_DEMOKIT_FILL, weft_demokit_fill_launch"
c="$out/kituse_kernels.c"
test "$(grep -c '^	"WEFT_FN weft_u32 weft_demokit_triple(weft_u32 v)\\n"$' "$c")" -eq 1 &&
	test "$(grep -c '^	"WEFT_KERNEL(weft_demokit_fill)\\n"$' "$c")" -eq 1 &&
	! grep -q '^	"#include' "$c" &&
	grep -q '^ \*   [0-9]*-[0-9]*: .*tests/cli/wk/kit/weft/demokit\.wk:1-15$' "$c" &&
	grep -q '^#line 1 ".*tests/cli/wk/kit/weft/demokit\.h"$' "$c"
ok $? "each kit file is inlined once into the program text and the host build, with its lines mapped"

# ---- what the program needs of a device --------------------------------------
grep -qx '	.needs = 0,' "$out/demo_kernels.c" && grep -qx ' \*   none' "$out/demo_kernels.c"
ok $? "demo.wk needs nothing (.needs = 0, the comment says none)"
needs() { # needs NAME BODY WANT [TOP]: TOP, a kernel of BODY: .needs = WANT
	printf '%s\n' "${4-}" "WEFT_KERNEL(k)" "{" "	WEFT_BUF(weft_u32, x);" "$2" "}" > "$tmp/$1.wk"
	(cd "$tmp" && "$wk" -I "$tmp/kit" -I "$src/include" "$1.wk") > "$tmp/wk.log" 2>&1 &&
		grep -qxF "	.needs = $3," "$tmp/$1_kernels.c" &&
		$cc $cflags -c -o "$tmp/$1.o" "$tmp/$1_kernels.c" >> "$tmp/wk.log" 2>&1
	rc=$?
	ok $rc "needs: $1 gives .needs = $3"
	[ "$rc" -eq 0 ] || { diag "$tmp/wk.log"; grep 'needs =' "$tmp/$1_kernels.c" | diag; }
}
mkdir -p "$tmp/kit/weft"
printf '/* no double in it */\nWEFT_FN weft_u32 weft_m(weft_u32 v)\n{\n\treturn v;\n}\n' > "$tmp/kit/weft/math.h"
# Exact floats need subnormals kept: WEFT_CAP_SUBNORMAL comes with each.
f32n='WEFT_CAP_F32_EXACT | WEFT_CAP_SUBNORMAL'
needs f64 '	weft_f64 d = (weft_f64)x[0]; x[0] = (weft_u32)d;' 'WEFT_CAP_F64 | WEFT_CAP_SUBNORMAL'
needs f32 '	x[0] = weft_f32_as_u32((weft_f32)x[0]);' "$f32n"
needs lit '	x[0] = (weft_u32)(x[0] * 1.5f);' "$f32n"
needs hexlit '	x[0] = (weft_u32)(x[0] * 0x1p3f) + 0xE + 1e0f;' "$f32n"
needs ints '	x[0] = 0xEu + 10u + 0x1E;' 0
needs atom '	WEFT_BUF(weft_u64, y); x[0] = (weft_u32)weft_atomic_add_u64(&y[0], 1u);' WEFT_CAP_ATOMIC64
needs mathh '	x[0] = weft_m(x[0]);' 'WEFT_CAP_F64 | WEFT_CAP_SUBNORMAL' '#include <weft/math.h>'
needs notcode '	/* weft_f64 1.5 */ const char *s = "weft_f64 weft_atomic_add_u64 2.5"; x[0] = s[0]; // weft_f32' 0
needs all '	WEFT_BUF(weft_u64, y); weft_f64 d = x[0]; x[0] = (weft_u32)weft_atomic_add_u64(&y[0], 1u) + (weft_u32)(weft_f32)d;' \
	'WEFT_CAP_F64 | WEFT_CAP_F32_EXACT | WEFT_CAP_SUBNORMAL | WEFT_CAP_ATOMIC64'
# Directives other than #define: a // comment or a literal in one starts no
# comment (else weft_f64 up to the next */ would escape).
needs dirslash '	WEFT_BUF(weft_f64, d);
	d[0] = (weft_f64)x[0]; /* the next comment */' 'WEFT_CAP_F64 | WEFT_CAP_SUBNORMAL' '#ifndef WK_X // see weft/*.h
#define WK_X 1
#endif'
needs dirquote '	WEFT_BUF(weft_f64, d);
	d[0] = (weft_f64)x[0]; /* the next comment */' 'WEFT_CAP_F64 | WEFT_CAP_SUBNORMAL' '#line 1 "wk/*.wk"'
# Code for devices with and without doubles (64-bit atomics): groups of a
# chain that tests WEFT_HAS_F64 (WEFT_HAS_ATOMIC64) need no WEFT_CAP_F64
# (WEFT_CAP_ATOMIC64); subnormals stay needed where a device computes floats.
needs f64guard '	x[0] = (weft_u32)(real)x[0];' "$f32n" '#if WEFT_HAS_F64
typedef weft_f64 real;
#else
typedef weft_f32 real;
#endif'
needs f64nest '	x[0] = 1u;' WEFT_CAP_SUBNORMAL '#ifndef WEFT_HAS_F64
#elif defined(WK_Y)
#ifdef WK_Z
#endif
WEFT_FN weft_u32 wk_y(weft_u64 b) { return (weft_u32)(weft_u64_as_f64(b) > (weft_f64)1); }
#endif'
needs f64after '	x[0] = 1u;' 'WEFT_CAP_F64 | WEFT_CAP_SUBNORMAL' '#if WEFT_HAS_F64
#endif
WEFT_FN weft_u32 wk_y(weft_u64 b) { return (weft_u32)(weft_u64_as_f64(b) > (weft_f64)1); }'
needs mathguard '	x[0] = 1u;' WEFT_CAP_SUBNORMAL '#if WEFT_HAS_F64
#include <weft/math.h>
#endif'
needs mathtwice '	x[0] = 1u;' 'WEFT_CAP_F64 | WEFT_CAP_SUBNORMAL' '#if WEFT_HAS_F64
#include <weft/math.h>
#endif
#include <weft/math.h>'
needs atomguard '	WEFT_BUF(weft_u64, y);
#if WEFT_HAS_ATOMIC64
	(void)weft_atomic_add_u64(&y[0], 1u);
#else
	(void)y;
#endif
	x[0] = 1u;' 0
# #if 0: neither needs nor checks (half is reserved); its #else counts.
needs if0 '#if 0
	weft_f64 half = 1.5; (void)weft_atomic_add_u64(0, 1u);
#if WEFT_HAS_F64
#endif
#elif 0
	weft_f32 half;
#endif
	x[0] = 1u;' 0
needs if0else '#if 0
#else
	x[0] = weft_f32_as_u32((weft_f32)x[0]);
#endif' "$f32n"

# ---- floats in the host build: a * b + c never fused -----------------------
# fma_run prints which of two roundings (unfused) or one (fused) the host
# build of tests/cli/wk/fma.wk computed, compiled to fuse wherever allowed.
# The control, the same file without its pragmas, must fuse: else this CPU or
# compiler cannot tell the two apart and the check says nothing.
fdir="$tmp/fma"
mkdir -p "$fdir"
(cd "$fdir" && "$wk" -I "$src/include" "$src/tests/cli/wk/fma.wk") > "$tmp/wk.log" 2>&1
okd $? "weft-wk fma.wk" "$tmp/wk.log"
sed '/^#pragma STDC FP_CONTRACT OFF$/d; /^#pragma clang fp exceptions/d; /^#pragma GCC optimize/d' \
	"$fdir/fma_kernels.c" > "$fdir/control.c"
fused_flags="-O2 -march=haswell -ffp-contract=fast"
for fcc in gcc clang; do
	if ! command -v "$fcc" > /dev/null 2>&1; then
		skip "$fcc: not installed"
		continue
	fi
	for v in fma_kernels control; do
		$fcc $cflags $fused_flags -I"$fdir" -o "$fdir/$v" "$src/tests/cli/wk/fma_run.c" \
			"$fdir/$v.c" > "$tmp/cc.log" 2>&1 && "$fdir/$v" > "$fdir/$v.out" 2>> "$tmp/cc.log"
		echo $? > "$fdir/$v.rc"
	done
	if [ "$(cat "$fdir/control.rc")" -ne 0 ] || ! grep -q '^f32 fused$' "$fdir/control.out"; then
		skip "$fcc $fused_flags does not fuse here (control: $(tr '\n' ' ' < "$fdir/control.out"))"
		continue
	fi
	test "$(cat "$fdir/fma_kernels.rc")" -eq 0 &&
		test "$(tr '\n' ' ' < "$fdir/fma_kernels.out")" = "f32 unfused f64 unfused needs 0x7 "
	rc=$?
	ok $rc "$fcc $fused_flags: a * b + c in weft_f32 and weft_f64 is rounded twice (the control fuses)"
	[ "$rc" -eq 0 ] || diag "$tmp/cc.log" "$fdir/fma_kernels.out"
done

# -n, -o, -H; an existing output is replaced.
(cd "$out" && "$wk" -I "$src/include" -n other -o x.c -H x.h "$src/tests/cli/wk/demo.wk" &&
	"$wk" -I"$src/include" -nother -ox.c -Hx.h "$src/tests/cli/wk/demo.wk") > "$tmp/wk.log" 2>&1 &&
	grep -qF 'const weft_program_desc other_program = {' "$out/x.c" &&
	grep -q 'OTHER_K_DEMO_SCALE' "$out/x.h" && grep -q 'other_demo_scale_launch(' "$out/x.h" &&
	grep -q 'OTHER_K_ADD' "$out/x.h" && grep -q 'other_tick_launch(' "$out/x.h"
okd $? "-n other -o x.c -H x.h: other_program, OTHER_K_DEMO_SCALE, other_demo_scale_launch" "$tmp/wk.log"

# ---- errors ------------------------------------------------------------------
errdir="$tmp/err"
mkdir -p "$errdir"

# expect_error NAME LINE TEXT [weft-wk options]: errdir/NAME.wk (written by
# the caller) fails with status 1, one line "NAME.wk:LINE: ...TEXT...", and
# writes nothing.
expect_error() {
	name=$1 line=$2 want=$3; shift 3
	rm -f "$errdir"/*_kernels.[ch]
	(cd "$errdir" && "$wk" -I "$src/include" "$@" "$name.wk") > "$tmp/stdout" 2> "$tmp/stderr"
	rc=$?
	if [ "$rc" -eq 1 ] && [ "$(wc -l < "$tmp/stderr")" -eq 1 ] && ! test -s "$tmp/stdout" &&
	   grep -q "^$name\\.wk:$line: " "$tmp/stderr" && grep -qF -- "$want" "$tmp/stderr" &&
	   [ -z "$(ls "$errdir" | grep '_kernels\.[ch]\|\.tmp$')" ]; then
		ok 0 "error: $name ($name.wk:$line: $want)"
	else
		ok 1 "error: $name"
		echo "# exit $rc, wanted $name.wk:$line: ... $want"; diag "$tmp/stderr"
	fi
}
wkfile() { printf "$2" > "$errdir/$1.wk"; }
kernel='WEFT_KERNEL(k)\n{\n\tWEFT_BUF(weft_u32, x);\n}\n'

wkfile three "$kernel"'\nWEFT_KERNEL(j)\n{\n\tWEFT_BUF(weft_u32, y, 0);\n}\n'
expect_error three 8 "slots are numbered by weft-wk: write WEFT_BUF(T, name)"
wkfile outside '/* buffers belong to kernels */\nWEFT_BUF(weft_u32, x);\n'"$kernel"
expect_error outside 2 "WEFT_BUF outside a kernel"
wkfile between "$kernel"'\nWEFT_BUF(weft_u32, y);\n'
expect_error between 6 "WEFT_BUF outside a kernel"
wkfile after 'WEFT_KERNEL(k)\n{\n\tWEFT_BUF(weft_u32, x);\n\tweft_u32 g = WEFT_GID;\n\n\tWEFT_BUF(weft_u32, y);\n}\n'
expect_error after 6 "WEFT_BUF after a statement that is not a WEFT_BUF"
wkfile nested 'WEFT_KERNEL(k)\n{\n\t{\n\t\tWEFT_BUF(weft_u32, x);\n\t}\n}\n'
expect_error nested 4 "WEFT_BUF after a statement that is not a WEFT_BUF"
wkfile dupbuf 'WEFT_KERNEL(k)\n{\n\tWEFT_BUF(weft_u32, x);\n\tWEFT_BUF(weft_u8, y);\n\tWEFT_BUF(weft_u8, x);\n}\n'
expect_error dupbuf 5 "kernel k already has a buffer named x (dupbuf.wk:3)"
{
	printf 'WEFT_KERNEL(k)\n{\n'
	for i in 0 1 2 3 4 5 6 7 8 9 10 11 12; do printf '\tWEFT_BUF(weft_u32, b%s);\n' $i; done
	printf '}\n'
} > "$errdir/many.wk"
expect_error many 15 "kernel k declares more than 12 buffers (WEFT_KERNEL_MAX_BUFS)"
(cd "$errdir" && "$wk" -I "$src/include" many.wk 2>/dev/null; sed -i '/b12/d' many.wk && "$wk" -I "$src/include" many.wk) > "$tmp/wk.log" 2>&1
okd $? "twelve buffers are allowed" "$tmp/wk.log"
wkfile dupkernel "$kernel"'\n/* again */\nWEFT_KERNEL(k)\n{\n}\n'
expect_error dupkernel 7 "kernel k is already defined at dupkernel.wk:1"
wkfile none '/* helpers only */\nWEFT_FN weft_u32 f(weft_u32 v)\n{\n\treturn v;\n}\n'
expect_error none 5 "no kernel"
: > "$errdir/empty.wk"
expect_error empty 1 "no kernel"
wkfile extra "$kernel"'}\n'
expect_error extra 5 "unbalanced braces: '}' without a '{'"
wkfile unclosed 'WEFT_KERNEL(k)\n{\n\tWEFT_BUF(weft_u32, x);\n\tif (x[0]) {\n\t\tx[0] = 1;\n}\n'
expect_error unclosed 2 "unbalanced braces: this '{' is never closed"
wkfile badname "$kernel"
(cd "$errdir" && "$wk" -I "$src/include" -n Bad badname.wk) > "$tmp/stdout" 2> "$tmp/stderr"
rc=$?
[ "$rc" -eq 1 ] && [ "$(wc -l < "$tmp/stderr")" -eq 1 ] && grep -qF "model name 'Bad' must match [a-z][a-z0-9_]*" "$tmp/stderr"
okd $? "error: -n Bad (the model name must match [a-z][a-z0-9_]*), status 1" "$tmp/stderr"
wkfile Caps "$kernel"
(cd "$errdir" && "$wk" -I "$src/include" Caps.wk) > "$tmp/stdout" 2> "$tmp/stderr"
rc=$?
[ "$rc" -eq 1 ] && grep -qF "model name 'Caps' must match [a-z][a-z0-9_]* (give one with -n NAME)" "$tmp/stderr" &&
	(cd "$errdir" && "$wk" -I "$src/include" -n caps Caps.wk) > /dev/null 2>&1
okd $? "error: Caps.wk gives a bad default name; -n caps fixes it" "$tmp/stderr"

# Quoted includes: a missing file, an error inside an included file
# (named with its own line), angle includes.
wkfile noinc '/* shared */\n#include "missing.h"\n'"$kernel"
expect_error noinc 2 "cannot read missing.h"
mkdir -p "$errdir/sub"
printf '/* sub/inner.h */\n\nWEFT_BUF(weft_u32, x);\n' > "$errdir/sub/inner.h"
printf '#include "inner.h"\n' > "$errdir/sub/outer.h"
wkfile inc '#include "sub/outer.h"\n'"$kernel"
(cd "$errdir" && "$wk" -I "$src/include" inc.wk) > "$tmp/stdout" 2> "$tmp/stderr"
rc=$?
[ "$rc" -eq 1 ] && grep -qx 'sub/inner.h:3: WEFT_BUF outside a kernel.*' "$tmp/stderr"
okd $? "error: inside an included file, named with its path and line (sub/inner.h:3)" "$tmp/stderr"
wkfile angle "$kernel"'#include <weft/kernel.h>\n#include <stdint.h>\n'
expect_error angle 6 "#include <stdint.h>: the program text must be self-contained"

wkfile hostinc "$kernel"'#include <weft/model.h>\n'
expect_error hostinc 5 "#include <weft/model.h>: a header for host C code, not kernel dialect"
wkfile hostinc2 '#include <weft/kernel_host.h>\n'"$kernel"
expect_error hostinc2 1 "#include <weft/kernel_host.h>: a header for host C code"
wkfile nokit '/* no such kit file */\n#include <weft/nosuch.h>\n'"$kernel"
expect_error nokit 2 "#include <weft/nosuch.h>: no such kit file under the -I directories"
wkfile kitlike '#include <weft/sub/x.h>\n'"$kernel"
expect_error kitlike 1 "#include <weft/sub/x.h>: the program text must be self-contained"
wkfile weftname 'WEFT_KERNEL(weft_mine)\n{\n}\n'
expect_error weftname 1 "kernel weft_mine: names that begin with weft_ are the dialect's" -I "$kit"
mkdir -p "$errdir/kit/weft"
printf '/* a kit file */\nWEFT_KERNEL(WEFT_BAD)\n{\n}\n' > "$errdir/kit/weft/badkit.wk"
wkfile kitname '#include <weft/badkit.wk>\n'"$kernel"
(cd "$errdir" && "$wk" -I kit -I "$src/include" kitname.wk) > "$tmp/stdout" 2> "$tmp/stderr"
rc=$?
[ "$rc" -eq 1 ] && grep -qx 'kit/weft/badkit.wk:2: kernel WEFT_BAD: names that begin with WEFT_ .*' "$tmp/stderr"
okd $? "error: a kit kernel named WEFT_* (kit/weft/badkit.wk:2)" "$tmp/stderr"

# What the scanner must not be fooled by, and malformed text.
wkfile incomment 'WEFT_KERNEL(k)\n{\n\t/* WEFT_BUF(weft_u32, x, 0); */\n\tWEFT_BUF(weft_u32, x);\n\t// WEFT_BUF(weft_u32, y, 1);\n\tWEFT_BUF(weft_u32, y);\n}\n/* WEFT_BUF(weft_u32, z, 2) */\n'
(cd "$errdir" && "$wk" -I "$src/include" incomment.wk) > "$tmp/wk.log" 2>&1 &&
	grep -qF 'WEFT_BUF(weft_u32, y, 1);' "$errdir/incomment_kernels.c" &&
	grep -qF '{ "k", incomment__k_bufs, 2 },' "$errdir/incomment_kernels.c"
okd $? "WEFT_BUF in comments is ignored (x is slot 0, y slot 1)" "$tmp/wk.log"
wkfile semi 'WEFT_KERNEL(k)\n{\n\tWEFT_BUF(weft_u32, x)\n\tWEFT_BUF(weft_u32, y);\n}\n'
expect_error semi 3 "WEFT_BUF(...) must be followed by ';'"
wkfile nobody 'WEFT_KERNEL(k);\n'
expect_error nobody 1 "WEFT_KERNEL(k) must be followed by its body"
wkfile comment "$kernel"'/* never\nclosed\n'
expect_error comment 5 "unterminated comment"
wkfile onearg 'WEFT_KERNEL(k)\n{\n\tWEFT_BUF(x);\n}\n'
expect_error onearg 3 "WEFT_BUF takes two arguments"
wkfile inner "$kernel"'WEFT_KERNEL(j)\n{\n\tWEFT_KERNEL(i)\n\t{\n\t}\n}\n'
expect_error inner 7 "WEFT_KERNEL inside kernel j"
wkfile clash 'WEFT_KERNEL(clash_x)\n{\n}\n\nWEFT_KERNEL(x)\n{\n}\n'
expect_error clash 5 "are those of kernel clash_x"
wkfile reserved 'WEFT_KERNEL(a__b)\n{\n}\n'
expect_error reserved 1 "kernel a__b"

# An error leaves the outputs of an earlier run as they were.
cp "$out/demo_kernels.c" "$tmp/before.c"
sed 's/WEFT_BUF(weft_u32, sum);/WEFT_BUF(weft_u32, sum, 2);/' "$src/tests/cli/wk/demo.wk" > "$bad/demo.wk"
cp "$src/tests/cli/wk/demo_more.h" "$bad/"
(cd "$out" && "$wk" -I "$src/include" "$bad/demo.wk") > "$tmp/stdout" 2> "$tmp/stderr"
rc=$?
[ "$rc" -eq 1 ] && grep -q "^$bad/demo.wk:33: slots are numbered" "$tmp/stderr" &&
	cmp -s "$tmp/before.c" "$out/demo_kernels.c" && [ -z "$(ls "$out" | grep '\.tmp$')" ]
okd $? "a failed run leaves the earlier demo_kernels.c in place" "$tmp/stderr"

# walk_copy DIR: DIR/logs made (the runs' TMPDIR, where the backends save
# their build logs) and the minimal template's model (walk.c, walk.ini,
# walk.wk) copied into DIR, for a test to append to walk.wk.
walk_copy() {
	mkdir -p "$1/logs" &&
		cp "$src/models/template-minimal/walk.c" "$src/models/template-minimal/walk.ini" \
			"$src/models/template-minimal/walk.wk" "$1/"
}
# walk_build DIR: walk.wk in DIR through weft-wk and the model built there
# for the host (weft-model-walk.so); the output in $tmp/cc.log.
walk_build() {
	(cd "$1" && "$wk" -I "$src/include" walk.wk &&
		$cc -std=c11 -Wall -Wextra -Werror -fPIC -shared -I"$src/include" -o weft-model-walk.so \
			walk.c walk_kernels.c -L"$build/core/.libs" -lweft) > "$tmp/cc.log" 2>&1
}

# ---- run-time compile errors, mapped to the kernel file ------------------------
# The minimal template's model with variadic functions appended: C takes
# them, OpenCL C refuses them. OpenCL's build log must name walk.wk's lines
# (the program text's #line directives), in `weft run` and `weft conform`;
# the whole log is saved to a file that the message names, and the message
# quotes whole lines of it only.
ocl="$build/plugins/opencl/.libs/weft-backend-opencl.so"
weft="$build/cli/weft"
rt="$tmp/runtime"
if [ ! -f "$ocl" ] || [ ! -x "$weft" ]; then
	skip "run-time compile errors: the opencl backend or the weft command is not built"
else
	walk_copy "$rt"
	first=$(($(wc -l < "$rt/walk.wk") + 3))
	for i in 1 2 3 4 5 6 7 8 9 10 11 12; do
		printf '\n/* C takes a variadic function, OpenCL C does not */\n'
		printf 'WEFT_FN weft_u32 walk_first%s(weft_u32 n, ...)\n{\n\treturn n;\n}\n' $i
	done >> "$rt/walk.wk"
	walk_build "$rt"
	okd $? "a model that OpenCL cannot compile builds for the host" "$tmp/cc.log"
	plugdirs="$build/plugins/opencl/.libs:$build/plugins/openmp/.libs"
	(cd "$rt" && TMPDIR="$rt/logs" WEFT_PLUGIN_PATH="$plugdirs" WEFT_MODEL_PATH=. \
		"$weft" run walk.ini --set backend.name=opencl --set simulation.steps=2 --quiet) \
		> "$tmp/run.out" 2>&1
	rc=$?
	msg=$(grep "^weft: .*failed to build" "$tmp/run.out")
	log=$(printf '%s\n' "$msg" | sed -n 's/.*(whole log: \([^)]*\)): .*/\1/p')
	[ "$rc" -ne 0 ] && printf '%s\n' "$msg" | grep -qF "walk.wk:$first:" && [ -n "$log" ] && [ -f "$log" ]
	okd $? "weft run on OpenCL: the build error names walk.wk:$first and the file with the whole log" "$tmp/run.out"
	# The whole log: every one of the twelve errors, each at its line.
	found=0
	for i in 1 2 3 4 5 6 7 8 9 10 11 12; do
		grep -q "walk\.wk:$((first + (i - 1) * 6)):.*variadic" "$log" 2> /dev/null &&
			found=$((found + 1))
	done
	test "$found" -eq 12
	okd $? "the saved log has all 12 errors, each at its walk.wk line ($found)" "$log"
	# The message: whole lines of the log, joined by " | ", then (+N more).
	quoted=$(printf '%s\n' "$msg" | sed 's/.*(whole log: [^)]*): //; s/ (+\([0-9]*\) more)$//')
	more=$(printf '%s\n' "$msg" | sed -n 's/.* (+\([0-9]*\) more)$/\1/p')
	printf '%s\n' "$quoted" | awk 'BEGIN { RS = " \\| " } { sub(/\n$/, ""); print }' > "$tmp/quoted"
	k=$(wc -l < "$tmp/quoted")
	whole=1
	while IFS= read -r q; do grep -qxF -- "$q" "$log" || whole=0; done < "$tmp/quoted"
	[ "$whole" -eq 1 ] && [ -n "$more" ] && [ $((k + more)) -eq "$(grep -c 'error' "$log")" ]
	ok $? "the message quotes $k whole lines of the log and counts the ${more:-?} left out"
	[ "$whole" -eq 1 ] || { echo "# message: $msg"; diag "$tmp/quoted"; }
	(cd "$rt" && TMPDIR="$rt/logs" "$weft" conform --plugin-path="$plugdirs" ./weft-model-walk.so) \
		> "$tmp/conform.tap" 2>&1
	grep -q "^# .*opencl: program 'walk' failed to build.*walk\.wk:$first:" "$tmp/conform.tap"
	okd $? "weft conform ./weft-model-walk.so shows the OpenCL build error at walk.wk:$first" "$tmp/conform.tap"
fi

# The same for CUDA, on the mock device of tests/plugins/cuda-mock.c (the
# plugin's own compile.c, with NVRTC): a void pointer converted implicitly,
# which C takes and C++ does not.
mock="$build/tests/plugins/cuda-mock/.libs"
cx="$tmp/runtime-cuda"
if [ ! -f "$mock/weft-backend-cuda.so" ] || [ ! -x "$weft" ]; then
	skip "run-time compile errors on CUDA: the mock CUDA backend or the weft command is not built"
else
	walk_copy "$cx"
	first=$(($(wc -l < "$cx/walk.wk") + 5))
	printf '\n/* C takes an implicit conversion from void *, C++ does not */\n' >> "$cx/walk.wk"
	printf 'WEFT_FN weft_u32 walk_cxx(void)\n{\n\tweft_u32 *p = (void *)0;\n\treturn p ? 1u : 0u;\n}\n' >> "$cx/walk.wk"
	walk_build "$cx"
	okd $? "a model that CUDA cannot compile builds for the host" "$tmp/cc.log"
	(cd "$cx" && TMPDIR="$cx/logs" WEFT_PLUGIN_PATH="$mock:$build/plugins/openmp/.libs" WEFT_MODEL_PATH=. \
		"$weft" run walk.ini --set backend.name=cuda --set simulation.steps=2 --quiet) \
		> "$tmp/run.out" 2>&1
	msg=$(grep "^weft: .*does not compile" "$tmp/run.out")
	if [ -z "$msg" ] && grep -qi "nvrtc" "$tmp/run.out"; then
		skip "run-time compile errors on CUDA: NVRTC cannot be loaded here"
	else
		log=$(printf '%s\n' "$msg" | sed -n 's/.*(whole log: \([^)]*\)): .*/\1/p')
		printf '%s\n' "$msg" | grep -qF "walk.wk($first): error" && [ -n "$log" ] &&
			grep -qF "walk.wk($first): error" "$log"
		okd $? "weft run on CUDA (NVRTC): the error names walk.wk($first) and the saved log" "$tmp/run.out"
	fi
fi

# ---- the command line --------------------------------------------------------
usage() {
	what=$1; shift
	(cd "$errdir" && "$wk" "$@") > "$tmp/stdout" 2> "$tmp/stderr"
	rc=$?
	[ "$rc" -eq 2 ] && grep -q '^weft-wk: ' "$tmp/stderr"
	ok $? "usage error, status 2: $what"
	[ "$rc" -eq 2 ] || { echo "# exit $rc"; diag "$tmp/stderr"; }
}
usage "no file"
usage "two files" a.wk b.wk
usage "unknown option" -x a.wk
usage "-o without a value" a.wk -o
usage "-o and -H the same file" -I "$src/include" -o same -H same incomment.wk

"$wk" --help > "$tmp/stdout" 2>&1 && grep -q '^usage: weft-wk \[-I DIR\]' "$tmp/stdout"
ok $? "--help prints the usage, status 0"
version=$(sed -n 's/^#define PACKAGE_VERSION "\(.*\)"$/\1/p' "$build/config.h")
test "$("$wk" --version)" = "weft-wk (weft) $version"
ok $? "--version prints weft-wk (weft) $version"

tap_done
