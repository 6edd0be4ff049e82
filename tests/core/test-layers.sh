#!/bin/sh
# tests/core/test-layers.sh - the library's layers hold: core/ is built
# from folders, bottom first
#
#	util < plugin < config < output < run < ensemble
#
# and a folder calls and includes only its own and the folders below it,
# so the layers can be read, tested and changed from the bottom up. Three
# checks, each naming every offence:
#
#  1. calls, from the built objects of core/libweft-internal.la (nm): no
#     object refers to a global symbol defined in a folder above its own
#     (with none, no two folders can call each other either; cycles
#     between folders are named as well when there are);
#  2. includes, from the sources: `#include "X/..."` in folder F names a
#     folder X at or below F, and no file of a folder includes the
#     umbrella "internal.h", which is for the tests;
#  3. entry points: no core object calls an exported function of libweft
#     (weft_xxx) defined in another core object: the exported function
#     checks its arguments and calls an internal weft__xxx that does the
#     work, and core calls weft__xxx (as SQLite's sqlite3_xxx and
#     sqlite3Xxx).
set -u
layers="util plugin config output run ensemble"
srcdir=${WEFT_SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}
builddir=${WEFT_BUILDDIR:-.}
NM=${NM:-nm}
. "$srcdir/tests/tap.sh"
for tool in "$NM" ar; do
	command -v "$tool" > /dev/null 2>&1 ||
		skip_all "no $tool to read the objects with"
done
tmp=$(mktemp -d "${TMPDIR:-/tmp}/weft-layers-XXXXXX")
trap 'rm -rf "$tmp"' EXIT

# rank NAME: the layer's place in the order (1 for util), 0 for no layer.
rank() {
	r=0 i=1
	for l in $layers; do
		[ "$l" = "$1" ] && r=$i
		i=$((i + 1))
	done
	echo $r
}

# The objects of core/libweft-internal.la: the members of its archive,
# found in the folders they were compiled in (libtool's .libs/, or the
# folder itself when it built no PIC copy). Each object becomes the
# source file it was compiled from: core/run/.libs/libweft_internal_la-
# sim.o is core/run/sim.c. A member found in no layer's folder is in no
# layer: check 1 names it.
archive="$builddir/core/.libs/libweft-internal.a"
: > "$tmp/objects"
: > "$tmp/lost"
if [ -f "$archive" ]; then
	for m in $(ar t "$archive"); do
		found=
		for f in "$builddir"/core/*/.libs/"$m" "$builddir"/core/*/"$m"; do
			[ -f "$f" ] || continue
			dir=$(basename "$(dirname "$f")")
			[ "$dir" = .libs ] && dir=$(basename "$(dirname "$(dirname "$f")")")
			[ "$(rank "$dir")" -gt 0 ] || continue
			found=1
			base=${m#*_la-}
			src="core/$dir/${base%.o}.c"
			grep -q " $src\$" "$tmp/objects" || echo "$f $dir $src" >> "$tmp/objects"
		done
		[ -n "$found" ] ||
			echo "$m: an object of core/libweft-internal.la in no layer's folder" >> "$tmp/lost"
	done
fi
[ -s "$tmp/objects" ] ||
	bail_out "no objects of core/libweft-internal.la under $builddir/core: build the library first"

# One line a global symbol: "D rank folder file symbol" where it is
# defined (T for a function, D for anything else), "U rank folder file
# symbol" where it is referred to.
while read -r obj dir src; do
	r=$(rank "$dir")
	$NM -P -g "$obj" | awk -v r="$r" -v d="$dir" -v s="$src" '
		$2 == "U" || $2 == "w" { print "U", r, d, s, $1; next }
		$2 == "T" { print "T", r, d, s, $1; next }
		{ print "D", r, d, s, $1 }'
done < "$tmp/objects" > "$tmp/symbols"

# Every reference joined to its definition (in another object of core;
# the C library's and inih's symbols are defined in none and drop out):
# "from-rank from-folder from-file to-rank to-folder to-file type symbol".
awk '$1 != "U" { def[$5] = $2 " " $3 " " $4 " " $1; next }
	{ ref[NR] = $0 }
	END {
		for (i in ref) {
			split(ref[i], u, " ")
			if (u[5] in def)
				print u[2], u[3], u[4], def[u[5]], u[5]
		}
	}' "$tmp/symbols" | sort -u > "$tmp/edges"

# 1. Calls: no edge up the order.
awk '$1 < $4 { print $3 " -> " $6 ": " $8 }' "$tmp/edges" | sort -u > "$tmp/up"
# Cycles between folders: an edge up from F to G with a path from G back
# down to F.
awk '$2 != $5 { print $2, $5 }' "$tmp/edges" | sort -u > "$tmp/folder-edges"
awk -v layers="$layers" '
	{ e[$1, $2] = 1 }
	END {
		m = split(layers, l, " ")
		for (i = 1; i <= m; i++)
			for (j = 1; j <= m; j++)
				p[l[i], l[j]] = ((l[i], l[j]) in e)
		for (k = 1; k <= m; k++)
			for (i = 1; i <= m; i++)
				for (j = 1; j <= m; j++)
					if (p[l[i], l[k]] && p[l[k], l[j]])
						p[l[i], l[j]] = 1
		for (i = 1; i <= m; i++)
			for (j = i + 1; j <= m; j++)
				if (p[l[i], l[j]] && p[l[j], l[i]])
					print "cycle: " l[i] "/ and " l[j] "/ call each other"
	}' "$tmp/folder-edges" > "$tmp/cycles"
if [ -s "$tmp/up" ] || [ -s "$tmp/cycles" ] || [ -s "$tmp/lost" ]; then
	echo "# calls up the order $layers (file -> file defining it: symbol):"
	diag "$tmp/up" "$tmp/cycles" "$tmp/lost"
	ok 1 "calls go down the layers ($(($(wc -l < "$tmp/up"))) up)"
else
	ok 0 "calls go down the layers ($(($(wc -l < "$tmp/objects"))) objects, $(($(wc -l < "$tmp/edges"))) references)"
fi

# 2. Includes: "X/..." names a folder at or below the file's own, or one
# that is no layer ("weft/..."); "internal.h" is for the tests.
: > "$tmp/includes"
for dir in $layers; do
	r=$(rank "$dir")
	for f in "$srcdir"/core/"$dir"/*.[ch]; do
		[ -f "$f" ] || continue
		sed -n 's/^[ 	]*#[ 	]*include[ 	]*"\([^"]*\)".*/\1/p' "$f" |
		while read -r inc; do
			path=${inc#../}
			case $path in
			internal.h)
				echo "core/$dir/${f##*/}: #include \"$inc\" (the umbrella is for tests)" ;;
			*/*)
				x=${path%%/*}
				rx=$(rank "$x")
				[ "$rx" -gt "$r" ] &&
					echo "core/$dir/${f##*/}: #include \"$inc\" ($x/ is above $dir/)" ;;
			esac
		done
	done
done >> "$tmp/includes"
if [ -s "$tmp/includes" ]; then
	echo "# includes up the order $layers:"
	diag "$tmp/includes"
	ok 1 "includes go down the layers"
else
	ok 0 "includes go down the layers"
fi

# 3. Entry points: a reference to a function weft_xxx (exported: one
# underscore) defined in another object of core.
awk '$7 == "T" && $8 ~ /^weft_[a-z]/ { print $3 " -> " $8 " (" $6 ")" }' \
	"$tmp/edges" | sort -u > "$tmp/entry"
if [ -s "$tmp/entry" ]; then
	echo "# core calls exported entry points; call their weft__ version (file -> symbol (its file)):"
	diag "$tmp/entry"
	ok 1 "exported entry points are not called inside core ($(($(wc -l < "$tmp/entry"))) calls)"
else
	ok 0 "exported entry points are not called inside core"
fi

tap_done
