#!/bin/sh
# tests/core/test-inputs.sh - every file weft reads is a regular file of
# bounded size, checked before it is read: a FIFO with no writer as the
# configuration, the agents file or a file of a checkpoint is refused at
# once (it would block for ever, deaf to the first SIGINT); state.bin as
# /dev/zero is refused as a device, and a sparse 64 GiB state.bin by its
# size against the manifest's, before anything is allocated for it (both
# were read whole until the process was killed for memory), and one whose
# manifest agrees on 64 GiB by what the host has. Each refusal,
# by `weft run` and by `weft check`, exits 1 with one line naming the file.
set -u
weft="$WEFT_BUILDDIR/cli/weft"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/weft-inputs-XXXXXX")
. "$WEFT_SRCDIR/tests/tap.sh"
trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1

cat > seir.ini << 'INI'
[simulation]
model = seir
steps = 20
[backend]
name = openmp
threads = 1
[output]
every = 4
plot = none
[seir]
population = random
agents = 500
[checkpoint]
every = 8
INI

# refused NAME TEXT ARGS...: `weft ARGS` ends within 10 s (killed after
# that: a regression blocks or reads without end) under a 4 GiB address
# space (not under ASan, which reserves terabytes of it), with exit 1 and
# one line on stderr holding TEXT.
refused() {
	name=$1 want=$2
	shift 2
	(
		[ -n "${WEFT_SANITIZE:-}" ] || ulimit -v 4194304 2> /dev/null
		exec timeout -s KILL 10 "$weft" "$@"
	) > out 2> err
	rc=$?
	[ "$rc" -eq 1 ] && [ "$(wc -l < err)" -eq 1 ] && grep -qF -- "$want" err
	ok $? "$name: exit $rc, '$want'"
	diag err
}

# ---- a FIFO with no writer -------------------------------------------------
mkfifo fifo.ini fifo.csv
for cmd in check run; do
	refused "weft $cmd with a FIFO as the configuration" \
		"configuration file fifo.ini is a FIFO (named pipe), not a regular file" \
		$cmd fifo.ini
done
for cmd in check run; do
	refused "weft $cmd with a FIFO as [seir] agents_file" \
		"the agents file '$tmp/fifo.csv' is a FIFO (named pipe), not a regular file" \
		$cmd seir.ini --set seir.population=csv \
		--set seir.agents_file="$tmp/fifo.csv" --set checkpoint.every=0 \
		--set output.directory=out-csv
done

# ---- files of a checkpoint ---------------------------------------------------
"$weft" run seir.ini --quiet --set output.directory=good > /dev/null 2> err &&
	[ -f good.checkpoint/state.bin ]
ok $? "a checkpoint to spoil"
diag err
bytes=$(sed -n 's/^state-bytes //p' good.checkpoint/checkpoint.txt)

# spoil DIR FILE HOW: a copy of the checkpoint whose FILE is HOW's.
spoil() {
	rm -rf "$1"
	cp -r good.checkpoint "$1" && rm "$1/$2" && case $3 in
	fifo) mkfifo "$1/$2" ;;
	zero) ln -s /dev/zero "$1/$2" ;;
	sparse) truncate -s 64G "$1/$2" 2> /dev/null ;;
	esac
}

# resume DIR TEXT NAME: `weft run --resume DIR` and `weft check --resume
# DIR` are refused, saying TEXT.
resume() {
	refused "weft run --resume: $3" "$2" run seir.ini --resume "$1" \
		--set output.directory=out-"$1"
	refused "weft check --resume: $3" "$2" check seir.ini --resume "$1"
}

spoil fifo-manifest checkpoint.txt fifo
resume fifo-manifest \
	"checkpoint file fifo-manifest/checkpoint.txt is a FIFO (named pipe), not a regular file" \
	"checkpoint.txt a FIFO"
spoil fifo-state state.bin fifo
resume fifo-state \
	"checkpoint file fifo-state/state.bin is a FIFO (named pipe), not a regular file" \
	"state.bin a FIFO"
spoil fifo-output output.daily.csv fifo
resume fifo-output \
	"checkpoint file fifo-output/output.daily.csv is a FIFO (named pipe), not a regular file" \
	"output.daily.csv a FIFO"
spoil zero state.bin zero
resume zero \
	"checkpoint file zero/state.bin is a character device, not a regular file" \
	"state.bin is /dev/zero"
if spoil sparse state.bin sparse; then
	resume sparse \
		"checkpoint sparse: state.bin has 68719476736 bytes, its manifest says $bytes: the checkpoint is damaged" \
		"state.bin a sparse file of 64 GiB"
else
	skip "state.bin a sparse file of 64 GiB" "this file system cannot hold one"
fi
rm -rf sparse

# ---- a checkpoint larger than the host's memory ------------------------------
# A manifest and a sparse state.bin that agree on 64 GiB (a checkpoint of a
# larger run, on a smaller machine): the sizes match, so what the host has
# must refuse it, after the manifest's model and configuration are checked
# and before anything is allocated for state.bin (it was read whole, at
# the manifest's size, until the process was killed for memory).

# rehash DIR: the manifest's end line (XXH3-64 of the lines before it)
# made right again after an edit, with libxxhash through Python's ctypes.
rehash() {
	python3 - "$1/checkpoint.txt" 2> /dev/null << 'PY'
import ctypes, sys
lib = ctypes.CDLL("libxxhash.so.0")
lib.XXH3_64bits.restype = ctypes.c_uint64
lib.XXH3_64bits.argtypes = [ctypes.c_char_p, ctypes.c_size_t]
text = open(sys.argv[1], "rb").read()
body = text[: text.rindex(b"\nend ") + 1]
end = b"end %016x\n" % lib.XXH3_64bits(body, len(body))
open(sys.argv[1], "wb").write(body + end)
PY
}
big=68719476736
outs=$(awk '/^output / { s += $2 } END { print s + 0 }' good.checkpoint/checkpoint.txt)
copies=$(grep -c '^output ' good.checkpoint/checkpoint.txt)
[ "$copies" -eq 1 ] && copies="1 output copy" || copies="$copies output copies"
rm -rf big
if cp -r good.checkpoint big &&
	sed -i "s/^state-bytes $bytes\$/state-bytes $big/" big/checkpoint.txt &&
	grep -q "^state-bytes $big\$" big/checkpoint.txt && rehash big &&
	truncate -s 64G big/state.bin 2> /dev/null; then
	export WEFT_MEM_AVAILABLE=1073741824
	resume big \
		"checkpoint big needs $((big + outs)) bytes (64.0 GiB) of host memory ($big for state.bin, $outs for $copies, as its manifest says), WEFT_MEM_AVAILABLE is 1073741824 bytes (1.0 GiB); resume it where there is more memory" \
		"a manifest and state.bin that agree on 64 GiB, more than the host has"
	refused "weft check --resume: the configuration is checked before the memory" \
		"checkpoint big was written for another configuration: [seir] beta is 0.06 here (--set seir.beta)" \
		check seir.ini --resume big --set seir.beta=0.06
	unset WEFT_MEM_AVAILABLE
else
	skip "a manifest and state.bin that agree on 64 GiB" \
		"no python3 with libxxhash to rehash the manifest, or no sparse file here"
fi
rm -rf big
[ ! -e out-zero ] && [ ! -e out-sparse ] && [ ! -e out-fifo-state ] &&
	[ ! -e out-big ]
ok $? "no output directory was made by a refused resume"

tap_done
