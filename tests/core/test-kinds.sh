#!/bin/sh
# tests/core/test-kinds.sh - weft replaces or deletes only what it wrote, and
# only the same kind. A run's outputs, a checkpoint and an ensemble's
# outputs each carry weft's manifest (.weft-outputs) with their kind; a
# checkpoint into a directory holding outputs, or outputs (a run's or an
# ensemble's) into one holding a checkpoint, is refused before anything
# runs (weft check too), in one line naming the directory, what it holds
# and the key, and the directory is left as it was, also when the
# checkpoint is one a killed commit left aside that the run puts back;
# the same kind is replaced, and a run's and an ensemble's outputs, both
# written from [output] directory, replace each other (the old files and
# the ensemble's runs go, files weft did not write stay). A manifest that
# is not a regular file (a FIFO) is refused, not waited on. Manifests written before
# kinds (no kind line) read as outputs, or as a checkpoint when they list
# checkpoint.txt and state.bin. The output and checkpoint directories may
# not be the same directory (however named) or lie one inside the other.
set -u
weft="$WEFT_BUILDDIR/cli/weft"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/weft-kinds-XXXXXX")
. "$WEFT_SRCDIR/tests/tap.sh"
trap 'rm -rf "$tmp"' EXIT

cat > "$tmp/run.ini" << INI
[simulation]
model = seir
steps = 20
seed = 100
[backend]
name = openmp
threads = 1
[output]
directory = $tmp/unused
plot = none
[seir]
agents = 1500
initial_infected = 10
INI
{ cat "$tmp/run.ini"; printf '[ensemble]\nruns = 2\n'; } > "$tmp/ens.ini"

# What a directory holds: each file (hidden ones too, and the runs of an
# ensemble) and its checksum.
signature() { (cd "$1" 2> /dev/null && find . -type f | sort | while read -r f; do echo "$f $(cksum < "$f")"; done); }

# write KIND DIR COMMAND [ARG...]: weft COMMAND (run or check) of a set of
# KIND into DIR (run: a run's outputs; checkpoint: a run's checkpoints, its
# outputs in $tmp/other; ensemble: an ensemble's outputs).
write() {
	kind=$1 dir=$2 cmd=$3
	shift 3
	ini="$tmp/run.ini"
	[ $kind = ensemble ] && ini="$tmp/ens.ini"
	if [ $kind = checkpoint ]; then
		set -- --set "output.directory=$tmp/other" --set checkpoint.every=5 \
			--set "checkpoint.directory=$dir" "$@"
	else
		set -- --set "output.directory=$dir" "$@"
	fi
	"$weft" $cmd "$ini" "$@"
}

# refused KEPT RC TEXT NEW WHAT: test WHAT, that a command was refused
# before it wrote anything: KEPT 0 (what it had to leave as it was, it
# did), exit RC 1, one line on stderr ($tmp/err) holding TEXT, and no NEW.
refused() {
	[ "$1" -eq 0 ] && [ "$2" -eq 1 ] && [ "$(wc -l < "$tmp/err")" -eq 1 ] &&
		grep -qF -- "$3" "$tmp/err" && [ ! -e "$4" ]
	ok $? "$5 (exit $2)"
	diag "$tmp/err"
}
key() { case $1 in checkpoint) echo checkpoint ;; *) echo output ;; esac; }
holds() {
	case $1 in
	run) echo "a run's outputs" ;;
	checkpoint) echo "a checkpoint" ;;
	ensemble) echo "an ensemble's outputs" ;;
	esac
}

# One set of each kind.
for kind in run checkpoint ensemble; do
	write $kind "$tmp/$kind" run > /dev/null 2> "$tmp/err"
	head -1 "$tmp/$kind/.weft-outputs" > "$tmp/first"
	[ -s "$tmp/$kind/.weft-outputs" ] && grep -qx ".kind $(case $kind in run) echo outputs ;; *) echo $kind ;; esac)" "$tmp/first"
	ok $? "$(holds $kind): written with its kind in its manifest ($(cat "$tmp/first"))"
	diag "$tmp/err"
	signature "$tmp/$kind" > "$tmp/sig-$kind"
done

# ---- every pair of kinds ------------------------------------------------------
for writer in run checkpoint ensemble; do
	for held in run checkpoint ensemble; do
		[ $writer = $held ] && continue
		# A run's and an ensemble's outputs replace each other (below).
		[ $writer != checkpoint ] && [ $held != checkpoint ] && continue
		dir="$tmp/$held"
		k=$(key $writer)
		for cmd in check run; do
			rm -rf "$tmp/other"
			write $writer "$dir" $cmd > /dev/null 2> "$tmp/err"
			rc=$?
			signature "$dir" | cmp -s "$tmp/sig-$held" -
			refused $? $rc "--set $k.directory: [$k] directory = $dir: $k directory $dir holds $(holds $held) written by weft" \
				"$tmp/other" "weft $cmd: $writer into a directory holding $(holds $held) is refused, the directory untouched"
		done
	done
done

# ---- a run's and an ensemble's outputs replace each other -------------------
# Both are written from [output] directory: each replaces the other, the old
# set's files (and an ensemble's runs) gone, a file weft did not write kept,
# nothing left beside the directory.
names() { (cd "$1" && find . | sort); }
for pair in "run ensemble" "ensemble run"; do
	set -- $pair
	writer=$1 held=$2 dir="$tmp/$2-by-$1"
	rm -rf "$dir"
	cp -a "$tmp/$held" "$dir"
	echo "my notes" > "$dir/notes.txt"
	write $writer "$dir" check > /dev/null 2> "$tmp/err"
	rc=$?
	ok $rc "weft check: $writer into a directory holding $(holds $held) (exit $rc)"
	diag "$tmp/err"
	write $writer "$dir" run > /dev/null 2> "$tmp/err"
	rc=$?
	{ names "$tmp/$writer"; echo ./notes.txt; } | sort > "$tmp/want"
	names "$dir" | cmp -s "$tmp/want" - && grep -qx "my notes" "$dir/notes.txt" &&
		[ -z "$(ls -A "$tmp" | grep "^\.$held-by-$writer\.weft-")" ] && [ "$rc" -eq 0 ]
	st=$?
	ok $st "weft run: $writer replaces $(holds $held) (exit $rc): its files$( [ $held = ensemble ] && echo ' and runs/') gone, notes.txt kept, nothing left beside"
	diag "$tmp/err"
	[ $st -eq 0 ] || names "$dir" | diff "$tmp/want" - | diag
done

# The same kind is replaced.
for kind in run checkpoint ensemble; do
	write $kind "$tmp/$kind" run --set simulation.seed=7 > /dev/null 2> "$tmp/err"
	rc=$?
	[ "$rc" -eq 0 ] && [ -e "$tmp/$kind/.weft-outputs" ]
	ok $? "$kind into a directory holding $(holds $kind): replaced (exit $rc)"
	diag "$tmp/err"
done

# ---- a checkpoint put back once the directory is locked --------------------
# A checkpoint commit killed between its two renames (a filesystem that
# cannot exchange) leaves no directory: the check before the lock sees
# nothing, the run puts the checkpoint back, and must then refuse it.
if hooks "a checkpoint put back by recovery is not replaced by outputs"; then
	rm -rf "$tmp/other" "$tmp/rec"
	write checkpoint "$tmp/rec" run > /dev/null 2> "$tmp/err"
	rm -rf "$tmp/other"
	WEFT_TEST_COMMIT_RENAME=1 WEFT_TEST_COMMIT_KILL=4 write checkpoint "$tmp/rec" run --set simulation.seed=7 > /dev/null 2>&1
	rc=$?
	left=$(ls -A "$tmp" | grep '^\.rec\.weft-' | tr '\n' ' ')
	write run "$tmp/rec" run > /dev/null 2> "$tmp/err"
	rc2=$?
	[ "$rc" -eq 137 ] && [ -n "$left" ] && [ "$rc2" -eq 1 ] && [ "$(wc -l < "$tmp/err")" -eq 1 ] &&
		grep -qF -- "--set output.directory: [output] directory = $tmp/rec: output directory $tmp/rec holds a checkpoint written by weft" "$tmp/err" &&
		[ -s "$tmp/rec/state.bin" ] && grep -q '^step ' "$tmp/rec/checkpoint.txt"
	ok $? "a checkpoint a killed commit left aside ($left; exit $rc) is put back, and a run's outputs refused (exit $rc2), the checkpoint kept"
	diag "$tmp/err"
fi

# ---- a manifest that is not a regular file -----------------------------------
mkdir -p "$tmp/fifo"
mkfifo "$tmp/fifo/.weft-outputs"
for cmd in check run; do
	timeout 10 "$weft" $cmd "$tmp/run.ini" --set "output.directory=$tmp/fifo" > /dev/null 2> "$tmp/err"
	rc=$?
	[ "$rc" -eq 1 ] && [ "$(wc -l < "$tmp/err")" -eq 1 ] &&
		grep -qF "[output] directory = $tmp/fifo: output directory $tmp/fifo: manifest $tmp/fifo/.weft-outputs is a FIFO (named pipe), not a regular file" "$tmp/err" &&
		[ -p "$tmp/fifo/.weft-outputs" ]
	ok $? "weft $cmd: a FIFO as the manifest is refused at once, naming it (exit $rc)"
	diag "$tmp/err"
done

# ---- manifests written before kinds ------------------------------------------
mkdir -p "$tmp/old"
cp -a "$tmp/checkpoint" "$tmp/old/checkpoint"
cp -a "$tmp/run" "$tmp/old/run"
for d in checkpoint run; do
	sed -i '/^\.kind /d' "$tmp/old/$d/.weft-outputs"
	signature "$tmp/old/$d" > "$tmp/sig-old-$d"
done
# kept KIND OLD TEXT WHAT: a run writing KIND into $tmp/old/OLD is refused
# with TEXT, the directory as it was; test WHAT.
kept() {
	rm -rf "$tmp/other"
	write $1 "$tmp/old/$2" run > /dev/null 2> "$tmp/err"
	rc=$?
	signature "$tmp/old/$2" | cmp -s "$tmp/sig-old-$2" -
	refused $? $rc "$3" "$tmp/other" "$4"
}
kept run checkpoint "output directory $tmp/old/checkpoint holds a checkpoint written by weft" \
	"a checkpoint whose manifest has no kind (an older weft's) is known by its checkpoint.txt: a run does not replace it"
kept checkpoint run "checkpoint directory $tmp/old/run holds a run's outputs written by weft" \
	"outputs whose manifest has no kind are outputs: checkpoints do not replace them"
write run "$tmp/old/run" run > /dev/null 2> "$tmp/err"
ok $? "...and a run does, as before"
diag "$tmp/err"

# Files weft did not write, without a manifest: carried over, as ever.
mkdir -p "$tmp/mine"
echo "my notes" > "$tmp/mine/notes.txt"
write checkpoint "$tmp/mine" run > /dev/null 2> "$tmp/err" &&
	grep -qx "my notes" "$tmp/mine/notes.txt" && [ -e "$tmp/mine/checkpoint.txt" ]
ok $? "a directory of files weft did not write takes a checkpoint, the files carried over"
diag "$tmp/err"

# ---- the output and checkpoint directories apart -----------------------------
# apart OUT CK WORDS: refused naming both, with WORDS ("is", "lies inside,",
# "holds") between them, by check and run, and nothing is written.
apart() {
	for cmd in check run; do
		rm -rf "$tmp/n"
		"$weft" $cmd "$tmp/run.ini" --set "output.directory=$1" \
			--set checkpoint.every=5 --set "checkpoint.directory=$2" > /dev/null 2> "$tmp/err"
		refused 0 $? "--set checkpoint.directory: [checkpoint] directory = $2 $3 [output] directory = $1 (--set output.directory)" \
			"$tmp/n" "weft $cmd: checkpoint directory $2 $3 output directory $1: refused, both named"
	done
}
apart "$tmp/n" "$tmp/./n/" is
apart "$tmp/n/out" "$tmp/n/x/../out" is
apart "$tmp/n" "$tmp/n/../n/ck" "lies inside,"
apart "$tmp/n/ck/out" "$tmp/n/ck" holds
ln -s "$tmp/run" "$tmp/link"
apart "$tmp/run" "$tmp/link" is

tap_done
