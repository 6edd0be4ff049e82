#!/bin/sh
# tests/core/test-long-path.sh - no path is ever cut. A path the system
# takes holds at most 4,095 bytes (PATH_MAX); weft builds the paths of a
# run's set, an ensemble's runs and a checkpoint from the [output]
# directory, and one that would be longer is refused with a message that
# names it (its start, its end, its length), never written cut.
#
# Output directories of 4,000 to 4,085 bytes (nested directories
# of 200 bytes: a name holds at most 255) for a run, a run with
# checkpoints and an ensemble: each works, writing the same files as with
# a short directory, or fails with one line naming the directory; after
# it, the tree holds the set or nothing: no file or directory at a cut
# path.
set -u
. "$WEFT_SRCDIR/tests/tap.sh"
weft="$WEFT_BUILDDIR/cli/weft"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/weft-long-XXXXXX")
trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || bail_out "cannot enter $tmp"
[ ${#tmp} -lt 3000 ] || skip_all "TMPDIR is too long for these paths ($tmp)"

cat > run.ini <<INI
[simulation]
model = seir
steps = 12
[backend]
name = openmp
threads = 1
[output]
plot = none
[seir]
agents = 2000
INI
{ cat run.ini; printf '[checkpoint]\nevery = 5\n'; } > ckpt.ini
{ cat run.ini; printf '[ensemble]\nruns = 2\n[sweep]\nseir.beta = 0.02, 0.03\n'; } > ens.ini

# long LEN: a directory's path of LEN bytes, $tmp/LEN/ddd.../ooo: its
# parents (directories of 200 bytes) made, itself not.
long() {
	p="$tmp/$1"
	seg=$(printf '%0200d' 0 | tr 0 d)
	while [ $((${#p} + 201 + 21)) -le "$1" ]; do p="$p/$seg"; done
	mkdir -p "$p"
	printf '%s/%s' "$p" "$(printf "%0$(($1 - ${#p} - 1))d" 0 | tr 0 o)"
}

# tail_of: each line's last 160 bytes (these paths differ at their end).
tail_of() { awk '{ print (length($0) > 160 ? "..." substr($0, length($0) - 159) : $0) }'; }

# files DIR: what DIR holds, one relative path a line, sorted.
files() { (cd "$1" && find . | LC_ALL=C sort); }

# The reference sets, written with short directories.
for kind in run ckpt ens; do
	"$weft" run "$kind.ini" --quiet --set output.directory="ref-$kind" \
		> /dev/null 2> "ref-$kind.err" || bail "ref-$kind.err"
	files "ref-$kind" > "ref-$kind.files"
done
files ref-ckpt.checkpoint > ref-ckpt-checkpoint.files

# try KIND LEN: run KIND.ini into a directory of LEN bytes.
try() {
	out=$(long "$2")
	what="$1, output directory of $2 bytes"
	"$weft" run "$1.ini" --quiet --set output.directory="$out" \
		> /dev/null 2> err
	rc=$?
	# What the tree under $tmp/LEN holds besides the directories made.
	(cd "$tmp/$2" && find . | LC_ALL=C sort) > tree
	dirs=$(dirname "$out")
	if [ $rc -eq 0 ]; then
		# The set, as with a short directory; beside it, nothing but
		# the checkpoint (with checkpoints) and the parents.
		files "$out" > got
		ok "$(cmp -s "ref-$1.files" got; echo $?)" "$what: the run works and writes the set a short directory gets"
		diag err
		extra=0
		if [ "$1" = ckpt ]; then
			files "$out.checkpoint" > got
			cmp -s ref-ckpt-checkpoint.files got || extra=1
		fi
		base=$(basename "$out")
		(cd "$dirs" && ls -A) | grep -v -x -e "$base" -e ".$base.weft-lock" \
			-e "$base.checkpoint" -e ".$base.checkpoint.weft-lock" |
			tail_of > beside
		[ $extra -eq 0 ] && [ ! -s beside ]
		ok $? "  ...and nothing else: no file at a cut path"
		diag beside
	else
		# One line, naming the directory (output's, or checkpoint's
		# beside it) by its start and its length, saying what is too
		# long.
		[ "$(wc -l < err)" -eq 1 ] &&
			grep -q "directory = $tmp/$2/ddd.*(4,0[0-9][0-9] bytes).*too long" err
		ok $? "$what: refused, one line naming the directory (exit $rc)"
		diag err
		# Nothing left: the parents made above and the directories'
		# locks beside them (kept, as after any run), no more.
		chain="./${dirs#"$tmp/$2/"}"
		lock="$chain/.$(basename "$out").weft-lock"
		while read -r f; do
			case "$chain" in
			"$f" | "$f"/*) [ -d "$tmp/$2/$f" ] || echo "$f" ;;
			*) [ "$f" = "$lock" ] ||
				[ "$f" = "${lock%.weft-lock}.checkpoint.weft-lock" ] ||
				echo "$f" ;;
			esac
		done < tree | tail_of > left
		[ ! -s left ]
		ok $? "  ...and nothing left in the tree: no file at a cut path"
		diag left
	fi
	rm -rf "${tmp:?}/$2"
}

for len in 4000 4050 4060 4085; do
	for kind in run ckpt ens; do
		try $kind $len
	done
done

# weft check refuses what weft run would: before any work.
out=$(long 4085)
"$weft" check run.ini --set output.directory="$out" > /dev/null 2> err
rc=$?
[ $rc -ne 0 ] && grep -q "too long" err && [ -z "$(ls -A "$(dirname "$out")")" ]
ok $? "weft check refuses an output directory too long for its set (exit $rc)"
diag err

tap_done
