#!/bin/sh
# tests/core/test-hooks.sh - test hooks only in test builds. The tests make
# the library fail on purpose through WEFT_TEST_* variables (a SIGKILL
# halfway through a commit, an ensemble's run failed), which only a library
# configured with --enable-test-hooks reads: every hook goes through
# weft__test_hook() (core/util/util.h), compiled from core/util/hooks.c in
# such a build and from core/util/nohooks.c (always NULL) in a release
# one. Checked on what was built, with grep -a:
#
#  1. a release libweft (tests/core/libweft-release.la: the library's
#     objects with nohooks.c, linked as libweft.so is) names no WEFT_TEST_
#     variable;
#  2. nor does anything else the build installs (the weft command,
#     weft-mpi, plugins, models; libweft itself when configured without
#     --enable-test-hooks);
#  3. a library configured with --enable-test-hooks does name them (so the
#     checks above can see one);
#  4. no source file but core/util/hooks.c names one in a string.
set -u
. "$WEFT_SRCDIR/tests/tap.sh"
src=$WEFT_SRCDIR
build=$WEFT_BUILDDIR
nohooks="the library is built without --enable-test-hooks"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/weft-hooks-XXXXXX")
trap 'rm -rf "$tmp"' EXIT

# hooks_in FILE...: the WEFT_TEST_ names the files hold, one a line
# ("FILE: NAME"); none when they hold none.
hooks_in() {
	for f in "$@"; do
		LC_ALL=C grep -a -o 'WEFT_TEST_[A-Za-z0-9_]*' "$f" |
			sort -u | sed "s|^|$f: |"
	done
}

# 1. The release library.
release="$build/tests/core/.libs/libweft-release.so"
if [ -f "$release" ] && LC_ALL=C grep -a -q weft_sim_open "$release"; then
	hooks_in "$release" > "$tmp/found"
	[ ! -s "$tmp/found" ]
	ok $? "a release libweft (core/util/nohooks.c) names no WEFT_TEST_ variable"
	diag "$tmp/found"
else
	ok 1 "a release libweft: $release, with weft_sim_open, is built"
fi

# 2. What the build installs: the files libtool built in each folder of
# it (.libs/), libweft's own when it is a release one.
set --
for d in cli mpi conform models/* plugins/*; do
	for f in "$build/$d"/.libs/*; do
		[ -f "$f" ] && [ ! -h "$f" ] && set -- "$@" "$f"
	done
done
if [ "${WEFT_TEST_HOOKS:-no}" != yes ]; then
	for f in "$build"/core/.libs/libweft.so*; do
		[ -f "$f" ] && [ ! -h "$f" ] && set -- "$@" "$f"
	done
fi
hooks_in "$@" > "$tmp/found"
[ $# -gt 0 ] && [ ! -s "$tmp/found" ]
ok $? "what else the build installs names none either ($# files)"
diag "$tmp/found"

# 3. The hooks of a test build, where grep finds them.
if [ "${WEFT_TEST_HOOKS:-no}" = yes ]; then
	hooks_in "$build"/core/.libs/libweft.so > "$tmp/found"
	[ -s "$tmp/found" ]
	ok $? "a library configured with --enable-test-hooks names them"
else
	skip "a library configured with --enable-test-hooks names them" "$nohooks"
fi

# 4. The sources: a hook read anywhere but in core/util/hooks.c would be
# in a release build.
(cd "$src" && grep -rn --include='*.c' --include='*.h' --include='*.cu' \
	'"WEFT_TEST_' core plugins cli mpi conform models include) |
	grep -v '^core/util/hooks\.c:' > "$tmp/found"
[ ! -s "$tmp/found" ]
ok $? "no source file but core/util/hooks.c names a WEFT_TEST_ variable"
diag "$tmp/found"

tap_done
