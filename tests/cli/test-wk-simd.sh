#!/bin/sh
# tests/cli/test-wk-simd.sh - WEFT_KERNEL_SIMD, the dialect's kernel written
# to vectorise on the host (docs/kernel-dialect.md): weft-wk takes it as a
# kernel (tests/cli/wk/simd.wk), its host build computes what scalar code
# does over any split of the items (tests/cli/wk/simd_run.c), GCC vectorises
# its main part at -O2, and on x86-64 with GCC the build has AVX-512, AVX2
# and baseline versions chosen at load time; on other targets weft/kernel.h
# makes it a plain kernel.
set -u
src="$WEFT_SRCDIR"
build="$WEFT_BUILDDIR"
wk="$build/cli/weft-wk"
cc=${CC:-cc}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/weft-wk-simd-XXXXXX")
. "$WEFT_SRCDIR/tests/tap.sh"
trap 'rm -rf "$tmp"' EXIT

okd() { rc=$1 what=$2; shift 2; ok "$rc" "$what"; [ "$rc" -eq 0 ] || diag "$@"; }
cflags="-std=c11 -Wall -Wextra -Werror -pedantic -I$src/include"

(cd "$tmp" && "$wk" -I "$src/include" "$src/tests/cli/wk/simd.wk") > "$tmp/wk.log" 2>&1 &&
	grep -q 'SIMD_K_AXPB, /\* simd_axpb \*/' "$tmp/simd_kernels.h" &&
	grep -q '^WEFT_KERNEL_SIMD(simd_axpb)$' "$tmp/simd_kernels.c"
okd $? "weft-wk takes WEFT_KERNEL_SIMD(simd_axpb) as a kernel, with its buffers" "$tmp/wk.log"

$cc $cflags -O2 -I"$tmp" -o "$tmp/run" "$src/tests/cli/wk/simd_run.c" \
	"$tmp/simd_kernels.c" > "$tmp/cc.log" 2>&1
okd $? "simd_kernels.c and simd_run.c compile at -O2 with -Werror -pedantic" "$tmp/cc.log"
if [ -x "$tmp/run" ]; then
	"$tmp/run" > "$tmp/run.tap" 2>&1
	while IFS= read -r line; do
		case $line in
		"ok "*) ok 0 "${line#ok - }" ;;
		"not ok "*) ok 1 "${line#not ok - }" ;;
		esac
	done < "$tmp/run.tap"
else
	skip "simd_defer over one range" "no simd_run"
	skip "simd_defer over five ranges" "no simd_run"
	skip "simd_axpb computes every item as scalar code does" "no simd_run"
	skip "the kernel table lists simd_axpb, simd_defer and simd_plain" "no simd_run"
fi

# GCC at -O2 (its "very cheap" vectoriser cost model) vectorises the item
# loop of the main part; the line is that of WEFT_KERNEL_SIMD in simd.wk.
line=$(grep -n '^WEFT_KERNEL_SIMD(simd_axpb)' "$src/tests/cli/wk/simd.wk" | cut -d: -f1)
if $cc --version 2>/dev/null | grep -qi 'gcc\|free software foundation' &&
	! $cc --version 2>/dev/null | grep -qi clang; then
	$cc $cflags -O2 -fopt-info-vec-optimized -c -o "$tmp/k.o" \
		"$tmp/simd_kernels.c" > "$tmp/vec.log" 2>&1
	grep -q "simd.wk:$line:.*loop vectorized" "$tmp/vec.log"
	okd $? "GCC -O2 vectorises simd_axpb's item loop (simd.wk:$line)" "$tmp/vec.log"
	dline=$(grep -n '^WEFT_KERNEL_SIMD(simd_defer)' "$src/tests/cli/wk/simd.wk" | cut -d: -f1)
	grep -q "simd.wk:$dline:.*loop vectorized" "$tmp/vec.log"
	okd $? "  ...and simd_defer's, with its WEFT_SIMD_DEFER marks (simd.wk:$dline)" "$tmp/vec.log"
else
	skip "GCC -O2 vectorises simd_axpb's item loop" "not GCC"
	skip "  ...and simd_defer's" "not GCC"
fi

# On x86-64 Linux with GCC 12 and later: the AVX-512 (x86-64-v4) and AVX2
# versions and the baseline, behind an ifunc; WEFT_NO_SIMD_CLONES keeps the
# baseline alone.
clones=$(printf '%s\n' '#if defined(__x86_64__) && defined(__linux__) && !defined(__clang__) && __GNUC__ >= 12' yes '#endif' |
	$cc -E -P - 2>/dev/null | grep -c yes)
if [ "$clones" = 1 ] && $cc $cflags -O2 -c -o "$tmp/k.o" "$tmp/simd_kernels.c"; then
	nm "$tmp/k.o" > "$tmp/nm.txt"
	grep -q ' i simd_axpb$' "$tmp/nm.txt" && grep -q 'simd_axpb\.arch_x86_64_v4$' "$tmp/nm.txt" &&
		grep -q 'simd_axpb\.arch_x86_64_v3$' "$tmp/nm.txt" && grep -q 'simd_axpb\.default$' "$tmp/nm.txt"
	okd $? "simd_axpb has AVX-512, AVX2 and baseline builds behind an ifunc" "$tmp/nm.txt"
	objdump -d "$tmp/k.o" | awk '/<simd_axpb\.arch_x86_64_v4>:/,/^$/' | grep -q zmm
	ok $? "  ...its AVX-512 build works on 512-bit registers"
	objdump -d "$tmp/k.o" | grep -q 'vfmadd\|vfmsub\|vfnmadd\|vfnmsub'
	ok $((1 - $?)) "  ...and no build fuses a * b + c"
	$cc $cflags -O2 -DWEFT_NO_SIMD_CLONES -c -o "$tmp/k1.o" "$tmp/simd_kernels.c" &&
		nm "$tmp/k1.o" | grep -q ' t simd_axpb$' && ! nm "$tmp/k1.o" | grep -q x86_64_v4
	ok $? "WEFT_NO_SIMD_CLONES keeps the baseline build alone"
else
	for what in "simd_axpb has AVX-512, AVX2 and baseline builds" \
		"  ...its AVX-512 build works on 512-bit registers" \
		"  ...and no build fuses a * b + c" \
		"WEFT_NO_SIMD_CLONES keeps the baseline build alone"; do
		skip "$what" "no target_clones (x86-64 Linux, GCC 12 and later)"
	done
fi

# A target prelude without the form (the OpenCL and CUDA backends', a
# third party's) gets it from weft/kernel.h as a plain kernel whose items
# run both parts.
cat > "$tmp/plain.c" <<'EOF2'
typedef unsigned weft_u32;
typedef float weft_f32;
#define WEFT_FN static inline
WEFT_FN weft_u32 weft_f32_as_u32(weft_f32 x) { union { weft_f32 f; weft_u32 u; } v = { x }; return v.u; }
WEFT_FN weft_f32 weft_u32_as_f32(weft_u32 x) { union { weft_u32 u; weft_f32 f; } v = { x }; return v.f; }
#define WEFT_MULHI32(a, b) ((a) * (b))
#define WEFT_KERNEL(name) int name##_plain(unsigned gid, unsigned extent)
#define WEFT_GID gid
#define WEFT_EXTENT extent
#include <weft/kernel.h>
static int marks;
static int mark(void) { return ++marks; }
WEFT_KERNEL_SIMD(k)
{
	WEFT_SIMD_DEFER(mark());
	return 100 * WEFT_SIMD_MAIN + 10 * WEFT_SIMD_AFTER + WEFT_SIMD_DEFERRED;
}
int main(void)
{
	return !(k_plain(2, 3) == 111 && marks == 1 && k_plain(3, 3) == 0 &&
		 marks == 2);
}
EOF2
"$cc" -std=c11 -Wall -Werror -I"$src/include" -o "$tmp/plain" "$tmp/plain.c" > "$tmp/plain.log" 2>&1 &&
	"$tmp/plain"
ok $? "a prelude without WEFT_KERNEL_SIMD gets it from weft/kernel.h as WEFT_KERNEL, all three parts for items below the extent, none past it, WEFT_SIMD_DEFER's argument evaluated once"
[ -s "$tmp/plain.log" ] && diag "$tmp/plain.log"
tap_done
