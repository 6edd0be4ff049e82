#!/bin/sh
# tests/plugins/conformance/run.sh FILE.conform - the conformance suite on
# one backend, for `make check` (CONFORM_LOG_COMPILER in
# tests/plugins/conform.am).
# FILE.conform names the backend ("backend = NAME"). When its plugin was
# built in this tree, run `weft conform` on it (TAP on stdout); otherwise
# skip, with the reason configure gave for not building it.
set -u
. "${WEFT_SRCDIR:-$(dirname "$0")/../../..}/tests/tap.sh"
conf=$1
name=$(sed -n 's/^backend *= *//p' "$conf")
build=${WEFT_BUILDDIR:-.}
plugin="$build/plugins/$name/.libs/weft-backend-$name.so"

if [ -z "$name" ]; then
	ok 1 "$conf names no backend (a line 'backend = NAME')"
	bail
fi
if [ -f "$plugin" ]; then
	exec "$build/cli/weft" conform ${WEFT_CONFORM_FLAGS:-} "$plugin"
fi

# Not built: configure's verdict, "no (REASON)", is in config.h for the
# backends weft ships; the template is built by `make check` only.
upper=$(echo "$name" | tr 'a-z-' 'A-Z_')
verdict=$(sed -n "s/^#define WEFT_BUILT_$upper \"\\(.*\\)\"\$/\\1/p" "$build/config.h" 2>/dev/null)
case $verdict in
yes)
	ok 1 "$name: configure built it, but $plugin is missing"
	bail ;;
"no ("*)
	reason=${verdict#no (}; reason=${reason%)} ;;
"")
	reason="no $plugin" ;;
*)
	reason=$verdict ;;
esac
skip_all "$name backend not built: $reason"
