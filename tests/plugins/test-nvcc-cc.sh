#!/bin/sh
# tests/plugins/test-nvcc-cc.sh - plugins/cuda/nvcc-cc.sh turns a C compiler's
# command line (as libtool and configure write it) into nvcc's: nvcc keeps
# its own options, the rest goes to the host compiler, arguments keep
# their spaces, and a comma that nvcc would split is refused. A stand-in
# nvcc prints the arguments it gets, one per line, so no toolkit is needed.
src="$WEFT_SRCDIR"
. "$src/tests/tap.sh"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/weft-nvcc-XXXXXX")
trap 'rm -rf "$tmp"' EXIT
cat > "$tmp/nvcc" <<'SH'
#!/bin/sh
for a in "$@"; do printf '%s\n' "$a"; done
SH
chmod +x "$tmp/nvcc"
check() { # check NAME COMMAND...: ok when the command succeeds
	name=$1
	shift
	"$@"
	ok $? "$name"
}
sh "$src/plugins/cuda/nvcc-cc.sh" "$tmp/nvcc" "gcc" -DHAVE_CONFIG_H -I. \
	-I "$tmp/inc dir" '-DDIR="/usr/lib/weft x"' -std=c11 -Wall -Werror \
	-fvisibility=hidden -g -O2 -MT a.lo -MD -MP -MF .deps/a.Tpo -fPIC \
	-DPIC -c a.c -o .libs/a.o > "$tmp/args" 2> "$tmp/err"
rc=$?
check "the wrapper runs nvcc" [ "$rc" -eq 0 ]
expect() { # expect LINE: the line is one of nvcc's arguments
	grep -qxF -- "$1" "$tmp/args"
}
check "host compiler and language first" \
	[ "$(head -n 4 "$tmp/args" | tr '\n' ' ')" = "-ccbin gcc -x c " ]
for a in -DHAVE_CONFIG_H -I. "$tmp/inc dir" '-DDIR="/usr/lib/weft x"' \
	-g -O2 -MD -MP a.lo .deps/a.Tpo -DPIC -c a.c .libs/a.o; do
	check "nvcc keeps $a" expect "$a"
done
for a in -std=c11 -Wall -Werror -fvisibility=hidden -fPIC; do
	check "$a goes to the host compiler" expect "-Xcompiler=$a"
	check "$a is not left to nvcc" sh -c '! grep -qxF -- "$1" "$2"' sh "$a" "$tmp/args"
done
check "-o keeps its argument next to it" \
	sh -c 'grep -A1 -xF -- -o "$1" | tail -n 1 | grep -qxF .libs/a.o' sh "$tmp/args"
sh "$src/plugins/cuda/nvcc-cc.sh" "$tmp/nvcc" gcc -Wl,-z,defs -c a.c \
	> /dev/null 2> "$tmp/err"
rc=$?
check "an argument with a comma is refused" [ "$rc" -ne 0 ]
check "the refusal names the argument" grep -q -- "-Wl,-z,defs" "$tmp/err"
tap_done
