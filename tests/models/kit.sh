# tests/models/kit.sh - what the model-template tests share: the kit
# staged as `make install` installs it, and pkg-config pointed at it. A
# test sources it after tests/tap.sh, with build and tmp set:
#
#   . "$WEFT_SRCDIR/tests/models/kit.sh"
#   kit_stage install-dist_modeltemplateDATA "the model template"
#
# kit_stage installs only what a model author needs (the headers,
# weft.pc, libweft, weft-wk and the template's directory, through
# automake's own install rules with the lists cut to those files) into
# $tmp/stage, as one test, and sets stage, pc (pkg-config with the
# staged prefix) and inc (the staged include directory). It also
# defines exports SO (the symbols a shared object defines for others,
# without those some linkers add to every shared object) and smake (make
# without the test's own make flags).

exports() { nm -D --defined-only "$1" | awk '{ print $3 }' | grep -v -x -e _edata -e _end -e __bss_start -e _init -e _fini; }
smake() { env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make "$@"; }

command -v pkg-config > /dev/null 2>&1 ||
	skip_all "pkg-config is not installed (the kit builds through weft.pc)"
command -v nm > /dev/null 2>&1 ||
	skip_all "nm is not installed (binutils)"

# kit_stage TARGET WHAT: the kit with the template TARGET installs.
kit_stage() {
	stage="$tmp/stage"
	smake -s -C "$build" DESTDIR="$stage" install-weftincludeHEADERS \
		install-pkgconfigDATA "$1" \
		install-libLTLIBRARIES lib_LTLIBRARIES=core/libweft.la \
		install-binPROGRAMS bin_PROGRAMS='cli/weft-wk$(EXEEXT)' > "$tmp/install.log" 2>&1
	ok $? "headers, weft.pc, libweft, weft-wk and $2 install into a staging directory"
	[ "$failed" -eq 0 ] || bail "$tmp/install.log"
	pcdir=$(dirname "$(find "$stage" -name weft.pc | head -n 1)")
	PKG_CONFIG_PATH="$pcdir"; export PKG_CONFIG_PATH
	prefix=$(pkg-config --variable=prefix weft)
	pc="pkg-config --define-variable=prefix=$stage$prefix"
	inc=$($pc --variable=includedir weft)
}
