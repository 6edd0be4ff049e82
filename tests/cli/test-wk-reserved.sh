#!/bin/sh
# tests/cli/test-wk-reserved.sh - what weft-wk refuses at build time because
# a target does (docs/kernel-tool.md, "What the dialect leaves out"): names
# that OpenCL C or CUDA reserve, whether declared as a variable, parameter,
# struct member, typedef, macro or function; types and constructs outside the
# dialect; calls of the C library. One case per construct, each checked for
# its message and FILE:LINE; then what must pass: the same words in comments
# and strings, the dialect's own choices (size_t, goto, a variable named sin),
# kit files, and every kernel file in the tree.
set -u
src="$WEFT_SRCDIR"
build="$WEFT_BUILDDIR"
wk="$build/cli/weft-wk"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/weft-wk-reserved-XXXXXX")
. "$WEFT_SRCDIR/tests/tap.sh"
trap 'rm -rf "$tmp"' EXIT

# refused NAME LINE TEXT BODY [TOP]: a kernel file of TOP (file scope) and
# a kernel whose body is BODY fails with one line "NAME.wk:LINE: TEXT...",
# status 1, and writes nothing. Lines: TOP's, then WEFT_KERNEL(k), {, the
# buffer, then BODY's first line.
refused() {
	name=$1 line=$2 want=$3 body=$4 top=${5-}
	printf '%s\n' "$top" "WEFT_KERNEL(k)" "{" "	WEFT_BUF(weft_u32, x);" "$body" "}" > "$tmp/$name.wk"
	(cd "$tmp" && "$wk" -I "$tmp/mathkit" -I "$src/include" "$name.wk") > "$tmp/stdout" 2> "$tmp/stderr"
	rc=$?
	if [ "$rc" -eq 1 ] && [ "$(wc -l < "$tmp/stderr")" -eq 1 ] &&
	   grep -qxF -- "$name.wk:$line: $want" "$tmp/stderr" &&
	   ! test -e "$tmp/${name}_kernels.c"; then
		ok 0 "$name.wk:$line: $want"
	else
		ok 1 "$name: $want"
		echo "# exit $rc, wanted $name.wk:$line: $want"; diag "$tmp/stderr"
	fi
}
# accepted NAME WHAT BODY [TOP]: the same file passes.
accepted() {
	name=$1 what=$2 body=$3 top=${4-}
	printf '%s\n' "$top" "WEFT_KERNEL(k)" "{" "	WEFT_BUF(weft_u32, x);" "$body" "}" > "$tmp/$name.wk"
	(cd "$tmp" && "$wk" -I "$src/include" "$name.wk") > "$tmp/out.log" 2>&1 &&
		${CC:-cc} -std=c11 -Wall -Wextra -Werror -pedantic -I"$src/include" \
			-c -o "$tmp/$name.o" "$tmp/${name}_kernels.c" >> "$tmp/out.log" 2>&1
	rc=$?
	ok $rc "accepted: $what"
	[ "$rc" -eq 0 ] || diag "$tmp/out.log"
}
type='is reserved in OpenCL C (a type name); rename it'
# The math library the hints name: weft_NAME when <weft/math.h> has it.
mkdir -p "$tmp/mathkit/weft"
printf '%s\n' '#define weft_sin(x) (x)' '#define weft_sqrtf(x) (x)' '#define weft_fabs(x) (x)' \
	> "$tmp/mathkit/weft/math.h"
kw='is reserved in OpenCL C (a keyword); rename it'
as='is reserved in OpenCL C (an address space); rename it'

# ---- reserved names, in every place a name is declared ----------------------
refused half 5 "'half' $type" '	weft_u32 half = x[0];'
refused param 1 "'global' $as" '	x[0] = 1;' 'WEFT_FN weft_u32 f(weft_u32 global) { return global; }'
refused member 1 "'local' $as" '	x[0] = 1;' 'typedef struct s { weft_u32 local; } s;'
refused typedef 1 "'uint' $type" '	x[0] = 1;' 'typedef weft_u32 uint;'
refused macro 1 "'kernel' $kw" '	x[0] = 1;' '#define kernel 1'
refused function 1 "'constant' $as" '	x[0] = 1;' 'WEFT_FN weft_u32 constant(void) { return 1; }'
refused private 6 "'private' $as" '	x[0] = 1;
	weft_u32 private = 2;'
refused float4 5 "'float4' $type" '	weft_u32 float4 = x[0];'
refused uchar16 5 "'uchar16' $type" '	weft_u8 uchar16 = 0;'
refused double3 5 "'double3' $type" '	weft_u32 double3 = 0;'
refused image 1 "'image2d_t' $type" '	x[0] = 1;' 'typedef weft_u32 image2d_t;'
refused sampler 5 "'sampler_t' $type" '	weft_u32 sampler_t = 0;'
refused readonly 5 "'read_only' $kw" '	weft_u32 read_only = 0;'
refused ulong 5 "'ulong' $type" '	weft_u32 ulong = 0;'
refused threadidx 5 "'threadIdx' is reserved in CUDA (a built-in variable); rename it" '	weft_u32 threadIdx = 0;'
refused warpsize 1 "'warpSize' is reserved in CUDA (a built-in variable); rename it" '	x[0] = 1;' '#define warpSize 32'
refused shared 5 "'__shared__' is reserved in CUDA (a keyword); rename it" '	weft_u32 __shared__ = 0;'
refused class 5 "'class' is reserved in CUDA (a C++ keyword); rename it" '	weft_u32 class = x[0];'
refused new 5 "'new' is reserved in CUDA (a C++ keyword); rename it" '	weft_u32 new = x[0];'
refused under 5 "'__count' is reserved for the implementation (names that begin with __ or weft__); rename it" '	weft_u32 __count = 0;'
refused weftunder 1 "'weft__helper' is reserved for the implementation (names that begin with __ or weft__); rename it" '	x[0] = 1;' 'WEFT_FN weft_u32 weft__helper(void) { return 1; }'
refused cudacc 5 "'__CUDACC__' is defined on one target only: test it in #if, #ifdef or #elif lines" '	x[0] = __CUDACC__;'
refused oclversion 1 "'__OPENCL_VERSION__' is defined on one target only: test it in #if, #ifdef or #elif lines" '	x[0] = 1;' '#define WK_OCL __OPENCL_VERSION__'
# A // comment or a literal in a directive starts no comment: what follows
# up to a later */ is still checked.
refused dirslash 6 "'half' $type" '	weft_u32 half = x[0]; /* a comment */' '#ifndef WK_X // see weft/*.h
#endif'
refused dirquote 5 "'half' $type" '	weft_u32 half = x[0]; /* a comment */' '#pragma message("see weft/*.h")'
refused dirchar 6 "'half' $type" '	weft_u32 half = x[0]; /* a comment */' "#if WK_C == '\"' || WK_D // \"see weft/*.h\"
#endif"
# Groups for devices with and without doubles are checked all the same.
refused f64group 2 "'half' $type" '	x[0] = 1;' '#if WEFT_HAS_F64
typedef weft_f64 half;
#endif'

# ---- outside the dialect -------------------------------------------------
refused double 5 "'double' is not in the kernel dialect: write weft_f64 (hardware binary64 where the device has it)" '	double d = x[0];'
refused float 1 "'float' is not in the kernel dialect: write weft_f32" '	x[0] = 1;' 'typedef float real;'
refused long 5 "'long' is not in the kernel dialect (32 bits on some hosts, 64 on devices): write weft_i64 or weft_u64" '	unsigned long n = x[0];'
refused bool 5 "'bool' is not in the kernel dialect (its size differs between targets and C needs a header for it): use an integer type, weft_u8 or weft_u32" '	bool b = x[0];'
refused sizebuf 3 "buffer y of kernel k0: size_t is as wide as the host's or the device's pointers, which differ; write weft_u32 or weft_u64" '	x[0] = 1;' \
	'WEFT_KERNEL(k0)
{
	WEFT_BUF(const size_t, y);
}'
refused fnptr 5 "(*fp)(...): function pointers are not in the kernel dialect (OpenCL C has none)" '	weft_u32 (*fp)(weft_u32) = 0;'
refused sin 6 "'sin' is a C library function, not in the kernel dialect (its results differ between targets): use <weft/math.h>'s weft_sin, the same bits on every backend" '	weft_f32 v = (weft_f32)x[0];
	x[0] = (weft_u32)sin(v);'
refused sqrtf 5 "'sqrtf' is a C library function, not in the kernel dialect (its results differ between targets): use <weft/math.h>'s weft_sqrtf, the same bits on every backend" '	x[0] = (weft_u32)sqrtf((weft_f32)x[0]);'
refused fabsmacro 1 "'fabs' is a C library function, not in the kernel dialect (its results differ between targets): use <weft/math.h>'s weft_fabs, the same bits on every backend" '	x[0] = 1;' '#define ABS(v) fabs (v)'
refused sinl 5 "'sinl' is a C library function, not in the kernel dialect (its results differ between targets): use <weft/math.h>'s weft_sin, the same bits on every backend" '	x[0] = (weft_u32)sinl(x[0]);'
refused cbrt 5 "'cbrt' is a C library function, not in the kernel dialect (its results differ between targets), nor in <weft/math.h>: write it with the dialect's arithmetic" '	x[0] = (weft_u32)cbrt(x[0]);'
refused printf 5 "'printf' is a C library function: kernels have no C library" '	printf("%u\n", x[0]);'
refused malloc 5 "'malloc' is a C library function: kernels have no C library" '	weft_u32 *p = malloc(4);'
refused system 1 "#include <math.h>: the program text must be self-contained; include only \"files\" (inlined), <weft/kernel.h> and weft's kit files (<weft/NAME.h>, <weft/NAME.wk>)" '	x[0] = 1;' '#include <math.h>'

# In an included file, the included file's own line.
printf '/* inc.h */\n\nWEFT_FN weft_u32 g(weft_u32 half2)\n{\n\treturn half2;\n}\n' > "$tmp/inc.h"
printf '#include "inc.h"\nWEFT_KERNEL(k)\n{\n}\n' > "$tmp/incl.wk"
(cd "$tmp" && "$wk" -I "$src/include" incl.wk) > "$tmp/stdout" 2> "$tmp/stderr"
[ $? -eq 1 ] && grep -qxF "inc.h:3: 'half2' $type" "$tmp/stderr"
rc=$?
ok $rc "in an included file: inc.h:3: 'half2' $type"
[ $rc -eq 0 ] || diag "$tmp/stderr"
# Lines after a comment and a continued directive still count right.
refused lines 9 "'half' $type" '	/* one
	two */
#define TWO(a) \
	((a) + (a))
	weft_u32 half = TWO(x[0]);'

# ---- what passes -------------------------------------------------------------
accepted comments "reserved words in comments and strings" '	/* half global kernel double long sin(x) printf( (*f)( */
	const char *s = "half uint float4 double sin(x) printf(";
	x[0] = (weft_u32)s[0]; // threadIdx class new __x weft__y'
accepted sizet "size_t in a cast, goto, a variable named sin, a function named like sinh_step" '	weft_u32 sin = (weft_u32)((size_t)x & 3u);
	if (sin)
		goto done;
	x[0] = sinh_step(sin);
done:
	x[0] += 1;' 'WEFT_FN weft_u32 sinh_step(weft_u32 v) { return v + 1; }'
accepted ifdef "other directives are left alone (#if defined(__x), #error)" '	x[0] = 1;' '#if defined(__OPENCL_VERSION__) || defined(half)
#error half float double
#endif'
accepted stdnames "the language's names that begin with __: __VA_ARGS__, __LINE__, __FILE__, __func__, __STDC__, __STDC_VERSION__" \
	'	const char *fn = __func__, *file = __FILE__;
	x[0] = WK_AT(fn[0], file[0]) + (weft_u32)__STDC__ + (weft_u32)WK_C11;' \
	'#define WK_AT(...) wk_at(__LINE__, __VA_ARGS__)
#define WK_C11 (__STDC_VERSION__ >= 201112L)
WEFT_FN weft_u32 wk_at(weft_u32 l, weft_u32 a, weft_u32 b) { return l + a + b; }'
accepted if0 "a group of #if 0 is not checked" '	x[0] = 1;' '#if 0
typedef double half;
#elif 0
weft_u32 (*f)(void) = 0;
#endif'
mkdir -p "$tmp/kit/weft"
printf '/* a kit file: weft'"'"'s own, per target */\n#define WEFT__K(v) ((weft_u32)(v))\nWEFT_FN weft_u32 weft_k(weft_u32 v)\n{\n\treturn WEFT__K(v);\n}\n' > "$tmp/kit/weft/k.h"
printf '#include <weft/k.h>\nWEFT_KERNEL(k)\n{\n\tWEFT_BUF(weft_u32, x);\n\tx[0] = weft_k(x[0]);\n}\n' > "$tmp/kit.wk"
(cd "$tmp" && "$wk" -I kit -I "$src/include" kit.wk) > "$tmp/out.log" 2>&1
rc=$?
ok $rc "accepted: names with weft__ in a kit file"
[ $rc -eq 0 ] || diag "$tmp/out.log"

# Every kernel file in the tree (tests/cli/test-wk.sh and the builds check
# that their outputs compile and run).
for f in conform/conform.wk models/*/*.wk tests/models/broken-model.wk tests/cli/wk/*.wk; do
	[ -f "$src/$f" ] || continue
	mkdir -p "$tmp/tree"
	(cd "$tmp/tree" && "$wk" -I "$src/tests/cli/wk/kit" -I "$src/include" -n tree "$src/$f") > "$tmp/out.log" 2>&1
	rc=$?
	ok $rc "accepted: $f"
	[ $rc -eq 0 ] || diag "$tmp/out.log"
done

tap_done
