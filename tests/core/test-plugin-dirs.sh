#!/bin/sh
# tests/core/test-plugin-dirs.sh - plugins that someone else could have put
# or replaced are refused before any of their code runs, as ld.so's secure
# mode refuses such libraries (core/plugin/loader.c): a plugin in a
# directory writable by others (not sticky) or owned by another user, or a
# plugin file writable by others or owned by another user, is listed by
# `weft backends` / `weft models` as failed at open with the reason, its
# constructor never runs (WEFT_FAKE_CTOR_LOG), and a run that names it
# fails with that reason. A sticky directory of ours (like /tmp) with a file
# of ours is fine; WEFT_ALLOW_UNSAFE_PLUGIN_DIRS=1 loads them anyway.
# Another user's files are trusted in weft's own install (a shared install
# made by a non-root admin): in the installation's plugin directory, and
# anywhere when that user owns the directory holding libweft.
set -u
weft="$WEFT_BUILDDIR/cli/weft"
good="$WEFT_TEST_PLUGINS/weft-backend-fakegood.so"
seir="$WEFT_BUILDDIR/models/seir/.libs/weft-model-seir.so"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/weft-plugin-dirs-XXXXXX")
. "$WEFT_SRCDIR/tests/tap.sh"
trap 'chmod -R u+w "$tmp" 2>/dev/null; rm -rf "$tmp"' EXIT
unset WEFT_ALLOW_UNSAFE_PLUGIN_DIRS
export WEFT_FAKE_CTOR_LOG="$tmp/ctor.log"

# listed NAME STATE REASON: the listing in $tmp/out has NAME in STATE,
# then REASON on the next line.
listed() {
	grep -A1 "^$1  *$2 " "$tmp/out" | tail -1 | grep -qF -- "$3"
}

# lists NAME STATE REASON TEXT COMMAND...: the listing COMMAND prints
# ($tmp/out) exits 0 with NAME in STATE and REASON, and no constructor of
# a plugin in STATE failed ran (WEFT_FAKE_CTOR_LOG); test TEXT.
lists() {
	lists_name=$1 lists_state=$2 lists_reason=$3 lists_text=$4
	shift 4
	"$@" > "$tmp/out" 2> "$tmp/err"
	rc=$?
	[ "$rc" -eq 0 ] && listed "$lists_name" "$lists_state" "$lists_reason" &&
		{ [ "$lists_state" != failed ] || [ ! -e "$tmp/ctor.log" ]; }
	ok $? "$lists_text (exit $rc)"
	diag "$tmp/out" "$tmp/err"
}

# dir NAME MODE: a new directory $tmp/NAME of that mode holding fakegood.
dir() {
	mkdir "$tmp/$1" && cp "$good" "$tmp/$1/" && chmod 0644 "$tmp/$1"/*.so &&
		chmod "$2" "$tmp/$1"
}

# 1. A directory anyone can write (0777, not sticky).
dir ww 0777
rm -f "$tmp/ctor.log"
lists fakegood failed "open: $tmp/ww is writable by others (mode 0777): a plugin there could be replaced by anyone; fix with chmod o-w $tmp/ww, or set WEFT_ALLOW_UNSAFE_PLUGIN_DIRS=1" \
	"weft backends: a plugin in a directory of mode 0777 fails at open, saying why and what to do" \
	"$weft" backends --plugin-path "$tmp/ww"
[ ! -e "$tmp/ctor.log" ]
ok $? "and its constructor never ran, not even in a child"

cat > "$tmp/run.ini" <<INI
[simulation]
model = seir
steps = 2
[backend]
name = fakegood
[output]
directory = $tmp/out-run
plot = none
[seir]
agents = 100
INI
WEFT_PLUGIN_PATH="$tmp/ww" "$weft" run "$tmp/run.ini" > "$tmp/out" 2> "$tmp/err"
rc=$?
[ "$rc" -ne 0 ] && grep -qF "$tmp/ww/weft-backend-fakegood.so: open: $tmp/ww is writable by others (mode 0777)" "$tmp/err" &&
	[ ! -e "$tmp/ctor.log" ] && [ ! -e "$tmp/out-run" ]
ok $? "a run naming that backend fails with the same reason, loading nothing (exit $rc)"
diag "$tmp/err"

"$weft" run "$tmp/run.ini" --set backend.name=auto \
	--set "backend.plugin=$tmp/ww/weft-backend-fakegood.so" > "$tmp/out" 2> "$tmp/err"
rc=$?
[ "$rc" -ne 0 ] && grep -qF "open: $tmp/ww is writable by others" "$tmp/err" &&
	[ ! -e "$tmp/ctor.log" ]
ok $? "so does backend.plugin = a file there (exit $rc)"
diag "$tmp/err"

lists fakegood available "score 10" "WEFT_ALLOW_UNSAFE_PLUGIN_DIRS=1 loads it anyway" \
	env WEFT_ALLOW_UNSAFE_PLUGIN_DIRS=1 "$weft" backends --plugin-path "$tmp/ww"
rm -f "$tmp/ctor.log"

# 2. Model plugins, the same.
mkdir "$tmp/wm" && cp "$seir" "$tmp/wm/" && chmod 0644 "$tmp/wm"/*.so && chmod 0777 "$tmp/wm"
lists seir failed "open: $tmp/wm is writable by others (mode 0777)" \
	"weft models: a model plugin there fails at open with the reason" \
	"$weft" models --model-path "$tmp/wm"

# 3. A plugin file anyone can write, in a directory of ours.
dir fw 0755
chmod 0666 "$tmp/fw/weft-backend-fakegood.so"
lists fakegood failed "open: $tmp/fw/weft-backend-fakegood.so is writable by others (mode 0666): the plugin could be replaced by anyone; fix with chmod o-w $tmp/fw/weft-backend-fakegood.so" \
	"a plugin file of mode 0666 fails at open" \
	"$weft" backends --plugin-path "$tmp/fw"

# 4. A link from a directory of ours to a plugin in one anyone can write:
# the file loaded is looked at, and its directory.
mkdir "$tmp/ln" && ln -s "$tmp/ww/weft-backend-fakegood.so" "$tmp/ln/"
lists fakegood failed "is writable by others (mode 0777)" \
	"a symbolic link to a plugin there fails too" \
	"$weft" backends --plugin-path "$tmp/ln"

# 5. A sticky directory of ours anyone can write (like /tmp): our own
# file there is fine, one anyone can write is not.
dir st 1777
lists fakegood available "score 10" \
	"a sticky directory of mode 1777 with a file of ours is fine" \
	"$weft" backends --plugin-path "$tmp/st"
rm -f "$tmp/ctor.log"
chmod 0666 "$tmp/st/weft-backend-fakegood.so"
lists fakegood failed "weft-backend-fakegood.so is writable by others (mode 0666)" \
	"but not a file of mode 0666 there" \
	"$weft" backends --plugin-path "$tmp/st"

# 6. A directory, and a file, owned by another user: as root, given to
# nobody; else (the directory only: a file of ours cannot be in a
# directory of root's) the test build pretends that this process is
# another user.
dir ou 0755
me=$(id -u)
if [ "$me" -eq 0 ]; then
	chown 65534 "$tmp/ou"
	lists fakegood failed "open: $tmp/ou is owned by uid 65534, not by you (uid 0) or root: a plugin there could be replaced by its owner; move it to a directory of yours, or set WEFT_ALLOW_UNSAFE_PLUGIN_DIRS=1" \
		"a directory owned by another user fails at open" \
		"$weft" backends --plugin-path "$tmp/ou"
	chown 0 "$tmp/ou" && chown 65534 "$tmp/ou/weft-backend-fakegood.so"
	lists fakegood failed "open: $tmp/ou/weft-backend-fakegood.so is owned by uid 65534, not by you (uid 0) or root: the plugin could be replaced by its owner" \
		"a file owned by another user fails at open" \
		"$weft" backends --plugin-path "$tmp/ou"
elif hooks "a directory owned by another user"; then
	# libweft's directory (the build tree) is ours too: take / for it.
	other=$((me + 1))
	lists fakegood failed "open: $tmp/ou is owned by uid $me, not by you (uid $other) or root: a plugin there could be replaced by its owner" \
		"a directory owned by another user fails at open" \
		env WEFT_TEST_PLUGIN_EUID=$other WEFT_TEST_PLUGIN_LIBDIR=/ \
		"$weft" backends --plugin-path "$tmp/ou"
	skip "a file owned by another user fails at open" "needs root (chown)"
fi

# 7. The installation's own plugin directory (WEFT_TEST_PLUGINDIR stands
# for the compiled-in one) owned by another user, as a shared install made
# by a non-root admin is: trusted, with its owner's files; not a file of a
# third user there, nor the directory once anyone can write it.
dir in 0755
t_in="the installed plugin directory owned by another user is trusted, and its owner's plugin"
t_third="but not a plugin there of a third user"
t_ww="the installed plugin directory is refused when anyone can write it"
if hooks "$t_in" "$t_third" "$t_ww"; then
	if [ "$me" -eq 0 ]; then
		chown -R 65534 "$tmp/in"
		lists fakegood available "score 10" "$t_in" \
			env WEFT_TEST_PLUGINDIR="$tmp/in" "$weft" backends
		rm -f "$tmp/ctor.log"
		chown 65533 "$tmp/in/weft-backend-fakegood.so"
		lists fakegood failed "open: $tmp/in/weft-backend-fakegood.so is owned by uid 65533, not by you (uid 0) or root: the plugin could be replaced by its owner" \
			"$t_third" env WEFT_TEST_PLUGINDIR="$tmp/in" "$weft" backends
		chown 65534 "$tmp/in/weft-backend-fakegood.so"
	else
		lists fakegood available "score 10" "$t_in" \
			env WEFT_TEST_PLUGIN_EUID=$other WEFT_TEST_PLUGIN_LIBDIR=/ \
			WEFT_TEST_PLUGINDIR="$tmp/in" "$weft" backends
		rm -f "$tmp/ctor.log"
		skip "$t_third" "needs root (chown)"
	fi
	chmod 0777 "$tmp/in"
	lists fakegood failed "open: $tmp/in is writable by others (mode 0777)" "$t_ww" \
		env WEFT_TEST_PLUGIN_EUID=${other:-0} WEFT_TEST_PLUGIN_LIBDIR=/ \
		WEFT_TEST_PLUGINDIR="$tmp/in" "$weft" backends
	chmod 0755 "$tmp/in"
fi

# 8. A directory owned by the owner of the directory holding libweft
# (found with dladdr) is trusted anywhere: as root, a copy of libweft in a
# directory given to nobody, loaded through LD_LIBRARY_PATH; else the build
# tree's libweft, ours, with the test build pretending another user.
dir lo 0755
if [ "$me" -eq 0 ]; then
	mkdir "$tmp/lib" && cp -L "$WEFT_BUILDDIR/core/.libs/libweft.so.0" "$tmp/lib/" &&
		chown -R 65534 "$tmp/lib" "$tmp/lo"
	lists fakegood available "score 10" \
		"a directory owned by the owner of libweft's directory is trusted" \
		env LD_LIBRARY_PATH="$tmp/lib" "$WEFT_BUILDDIR/cli/.libs/weft" backends --plugin-path "$tmp/lo"
	rm -f "$tmp/ctor.log"
	chown -R 65533 "$tmp/lo"
	lists fakegood failed "open: $tmp/lo is owned by uid 65533, not by you (uid 0), weft's installer (uid 65534) or root: a plugin there could be replaced by its owner" \
		"but not one of a third user, and the message names the installer" \
		env LD_LIBRARY_PATH="$tmp/lib" "$WEFT_BUILDDIR/cli/.libs/weft" backends --plugin-path "$tmp/lo"
elif [ "$(ls -dn "$WEFT_BUILDDIR/core/.libs" | awk '{ print $3 }')" != "$me" ]; then
	skip "a directory owned by the owner of libweft's directory is trusted" "the build tree is not ours"
	skip "but not one of a third user, and the message names the installer" "needs root (chown)"
elif hooks "a directory owned by the owner of libweft's directory is trusted" \
	"but not one of a third user, and the message names the installer"; then
	lists fakegood available "score 10" \
		"a directory owned by the owner of libweft's directory is trusted" \
		env WEFT_TEST_PLUGIN_EUID=$other "$weft" backends --plugin-path "$tmp/lo"
	rm -f "$tmp/ctor.log"
	skip "but not one of a third user, and the message names the installer" "needs root (chown)"
fi

[ ! -e "$tmp/ctor.log" ]
ok $? "no refused plugin's constructor ever ran, in this process or a child"

tap_done
