#!/bin/sh
# tests/test-format.sh - every C file follows .clang-format (the Linux
# kernel's style); one TAP check per file. Skipped without clang-format.
# Generated files (*_source.c, weft-wk's *_kernels.[ch]) are not checked.
src="$WEFT_SRCDIR"
. "$src/tests/tap.sh"
command -v clang-format >/dev/null 2>&1 ||
	skip_all "clang-format is not installed"
[ -f "$src/.clang-format" ] ||
	skip_all "no .clang-format in $src (not a git checkout)"
for f in $(cd "$src" && find include core cli conform plugins models tests bench -name '*.[ch]' ! -name '*_source.c' ! -name '*_kernels.[ch]' 2>/dev/null | sort); do
	if (cd "$src" && clang-format --dry-run -Werror "$f") > /dev/null 2>&1; then
		ok 0 "$f"
	else
		ok 1 "$f is not formatted: clang-format -i $f"
	fi
done
tap_done
