#!/bin/sh
# tests/test-format.sh - every C file follows .clang-format (the Linux
# kernel's style); one TAP check per file. Skipped without clang-format.
# Generated files (*_source.c, weft-wk's *_kernels.[ch]) are not checked.
src="$WEFT_SRCDIR"
command -v clang-format >/dev/null 2>&1 ||
	{ echo "1..0 # SKIP clang-format is not installed"; exit 0; }
[ -f "$src/.clang-format" ] ||
	{ echo "1..0 # SKIP no .clang-format in $src (not a git checkout)"; exit 0; }
n=0 failed=0
for f in $(cd "$src" && find include core cli conform plugins models tests bench -name '*.[ch]' ! -name '*_source.c' ! -name '*_kernels.[ch]' 2>/dev/null | sort); do
	n=$((n + 1))
	if (cd "$src" && clang-format --dry-run -Werror "$f") > /dev/null 2>&1; then
		echo "ok $n - $f"
	else
		echo "not ok $n - $f is not formatted: clang-format -i $f"
		failed=$((failed + 1))
	fi
done
echo "1..$n"
[ "$failed" -eq 0 ]
