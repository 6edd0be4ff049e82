# tests/plugins/conform-lib.sh - what the scripts that run `weft conform` on
# plugins built to fail it share (test-conform-broken.sh,
# test-conform-async.sh): the command, a scratch directory, TAP lines, and
# the checks. Sourced; the caller sets dir (where its plugins are) and
# calls `needs` first.
weft="$WEFT_BUILDDIR/cli/weft"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/weft-conform-XXXXXX")
. "$WEFT_SRCDIR/tests/tap.sh"
# WEFT_CONFORM_LOAD=N starts N busy processes for the script's length
# (the machine under load), WEFT_CONFORM_RUNS=K runs each `caught` check K
# times: the proof that a broken plugin is caught every time.
load_pids=
i=0
while [ "$i" -lt "${WEFT_CONFORM_LOAD:-0}" ]; do
	sh -c 'while :; do :; done' &
	load_pids="$load_pids $!"
	i=$((i + 1))
done
cleanup() {
	rm -rf "$tmp"
	[ -z "$load_pids" ] || kill $load_pids 2>/dev/null
}
# dash runs no EXIT trap when a signal ends the script: the busy
# processes must not outlive it.
trap cleanup EXIT
trap 'cleanup; trap - EXIT; exit 130' INT
trap 'cleanup; trap - EXIT; exit 143' TERM
trap 'cleanup; trap - EXIT; exit 129' HUP

# needs FILE WHAT: skip the whole script when FILE was not built.
needs() {
	[ -f "$1" ] || skip_all "$2 is not built ($1)"
}

# caught NAME PATTERN WHAT [weft conform options]: the suite fails the
# plugin weft-backend-NAME.so with a `not ok` line matching PATTERN, in
# each of WEFT_CONFORM_RUNS runs (1 by default).
caught() {
	name=$1 pattern=$2 what=$3; shift 3
	# Only the group that PATTERN names ("not ok .* - GROUP: ..."), unless
	# the options choose: the other groups would pass or fail the same
	# way for every plugin here, and the whole suite takes ten times as
	# long (test-conform-broken.sh's brk-freenull runs three groups, to
	# show that the groups after a crashed one still run).
	case " $* " in
	*" --only="*) ;;
	*)
		group=$(printf '%s\n' "$pattern" | sed -n 's/^not ok \.\* - \([a-z0-9-]*\):.*/\1/p')
		[ -z "$group" ] || set -- "--only=$group" "$@"
		;;
	esac
	runs=${WEFT_CONFORM_RUNS:-1} run=0 hits=0 rc=0
	while [ "$run" -lt "$runs" ]; do
		run=$((run + 1))
		"$weft" conform --timeout=10 "$@" "$dir/weft-backend-$name.so" > "$tmp/$name.tap" 2> "$tmp/$name.err"
		rc=$?
		if [ "$rc" -eq 1 ] && grep -q -- "$pattern" "$tmp/$name.tap"; then
			hits=$((hits + 1))
		else
			cp "$tmp/$name.tap" "$tmp/$name.missed.tap"
			cp "$tmp/$name.err" "$tmp/$name.missed.err"
			missed_rc=$rc
		fi
	done
	if [ "$hits" -eq "$runs" ]; then
		ok 0 "$name: $what is caught ($hits of $runs runs)"
		grep -m 1 -A 1 -- "$pattern" "$tmp/$name.tap" | diag
	else
		ok 1 "$name: $what is caught ($hits of $runs runs; a miss exited $missed_rc, wanted 1 and a line matching '$pattern')"
		grep '^not ok' "$tmp/$name.missed.tap" | head -5 | diag
		diag "$tmp/$name.missed.err"
	fi
}

# says NAME PATTERN WHAT: the output of the last run of `caught NAME` has a
# line matching PATTERN (the message of the test point that caught it).
says() {
	grep -q -- "$2" "$tmp/$1.tap"
	ok $? "$1: $3"
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
