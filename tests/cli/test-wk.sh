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
# (each once) and its buffers numbered; tests/cli/wk/demo.program is what must
# follow kernel.h.
cat "$src/include/weft/kernel.h" "$src/tests/cli/wk/demo.program" > "$tmp/want.txt"
cmp "$tmp/want.txt" "$tmp/source.txt" > "$tmp/cmp" 2>&1
rc=$?
ok $rc "the embedded text is weft/kernel.h then tests/cli/wk/demo.program"
[ "$rc" -eq 0 ] || diff "$tmp/want.txt" "$tmp/source.txt" | head -40 | diag
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
