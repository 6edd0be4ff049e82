# tests/plugins/conform-lib.sh - what the scripts that run `weft conform` on
# plugins built to fail it share (test-conform-broken.sh,
# test-conform-async.sh): the command, a scratch directory, TAP lines, and
# the checks. Sourced; the caller sets dir (where its plugins are) and
# calls `needs` first.
weft="$WEFT_BUILDDIR/cli/weft"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/weft-conform-XXXXXX")
. "$WEFT_SRCDIR/tests/tap.sh"
trap 'rm -rf "$tmp"' EXIT

# needs FILE WHAT: skip the whole script when FILE was not built.
needs() {
	[ -f "$1" ] || skip_all "$2 is not built ($1)"
}

# caught NAME PATTERN WHAT [weft conform options]: the suite fails the
# plugin weft-backend-NAME.so with a `not ok` line matching PATTERN.
caught() {
	name=$1 pattern=$2 what=$3; shift 3
	"$weft" conform --timeout=5 "$@" "$dir/weft-backend-$name.so" > "$tmp/$name.tap" 2> "$tmp/$name.err"
	rc=$?
	if [ "$rc" -eq 1 ] && grep -q -- "$pattern" "$tmp/$name.tap"; then
		ok 0 "$name: $what is caught"
		grep -m 1 -- "$pattern" "$tmp/$name.tap" | diag
	else
		ok 1 "$name: $what is caught (exit $rc, wanted 1 and a line matching '$pattern')"
		grep '^not ok' "$tmp/$name.tap" | head -5 | diag
		diag "$tmp/$name.err"
	fi
}

# passes FILE WHAT [weft conform options]: the suite passes it (exit 0,
# no `not ok`).
passes() {
	file=$1 what=$2; shift 2
	"$weft" conform --timeout=60 "$@" "$file" > "$tmp/pass.tap" 2> "$tmp/pass.err"
	rc=$?
	if [ "$rc" -eq 0 ] && ! grep -q '^not ok' "$tmp/pass.tap" && grep -q '^1\.\.[1-9]' "$tmp/pass.tap"; then
		ok 0 "$what passes ($(grep -c '^ok' "$tmp/pass.tap") tests)"
	else
		ok 1 "$what passes (exit $rc)"
		grep '^not ok' "$tmp/pass.tap" | head -5 | diag
		diag "$tmp/pass.err"
	fi
}
