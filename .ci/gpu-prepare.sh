#!/bin/sh
# .ci/gpu-prepare.sh [KITDIR] - build, here, the kit that
# .ci/gpu-check.sh needs on a GPU machine that has a compiler, make, nvcc
# and the NVIDIA driver, but no package registry and no autotools.
#
#   KITDIR/weft-VERSION.tar.gz   the release tarball (`make dist`: the
#                                configure script is generated already)
#   KITDIR/deps/include, lib     Debian's inih, xxHash, Random123, the
#                                OpenCL headers and the OpenCL ICD loader,
#                                unpacked from their .deb files
#   KITDIR/deps/lib/pkgconfig    inih.pc, relocatable (${pcfiledir})
#   KITDIR/gpu-check.sh          the script to run there
#   KITDIR/MANIFEST              what is in the kit, and from where
#
# KITDIR defaults to _gpukit/ in the source tree. Needs, here: autotools
# (unless ./configure exists), make, a C compiler, apt-get with package
# lists (`apt-get update` done once, as root), dpkg-deb. Runs as any user:
# `apt-get download` writes into the current directory only.
set -eu

top=$(cd "$(dirname "$0")/.." && pwd)
kit=${1:-$top/_gpukit}
case $kit in /*) ;; *) kit=$PWD/$kit ;; esac
pkgs="libinih1 libinih-dev libxxhash0 libxxhash-dev librandom123-dev
      opencl-c-headers ocl-icd-libopencl1 ocl-icd-opencl-dev"
limit_mib=60

say() { echo "gpu-prepare: $*" >&2; }
die() { say "$*"; exit 1; }

for tool in apt-get dpkg-deb make cc; do
	command -v "$tool" >/dev/null 2>&1 || die "$tool not found"
done
multiarch=$(cc -print-multiarch 2>/dev/null || true)
[ -n "$multiarch" ] || multiarch=$(dpkg-architecture -qDEB_HOST_MULTIARCH 2>/dev/null || true)
[ -n "$multiarch" ] || die "cannot tell the multiarch directory (cc -print-multiarch)"

work=$(mktemp -d "${TMPDIR:-/tmp}/weft-gpukit-XXXXXX")
trap 'rm -rf "$work"' EXIT INT TERM
rm -rf "$kit"
mkdir -p "$kit/deps/include" "$kit/deps/lib/pkgconfig"

# 1. The release tarball, from a build directory of its own.
say "making the release tarball"
if [ ! -x "$top/configure" ]; then
	(cd "$top" && ./autogen.sh) > "$work/autogen.log" 2>&1 ||
		{ cat "$work/autogen.log" >&2; die "autogen.sh failed"; }
fi
if [ -f "$top/config.status" ]; then
	# Configured in place (a VPATH build would be refused): make dist
	# there, and move the tarball out.
	rm -f "$top"/weft-*.tar.gz
	make -C "$top" dist > "$work/dist.log" 2>&1 ||
		{ tail -n 40 "$work/dist.log" >&2; die "make dist failed"; }
	mv "$top"/weft-*.tar.gz "$kit/"
else
	mkdir "$work/build"
	(cd "$work/build" && "$top/configure" && make dist) > "$work/dist.log" 2>&1 ||
		{ tail -n 40 "$work/dist.log" >&2; die "configure or make dist failed"; }
	mv "$work"/build/weft-*.tar.gz "$kit/"
fi
set -- "$kit"/weft-*.tar.gz
[ -f "$1" ] || die "make dist made no tarball"
tarball=$(basename "$1")

# 2. The Debian packages, unpacked; their files flattened into deps/.
say "downloading$(echo " $pkgs" | tr -s ' \n' ' ')"
mkdir "$work/debs" "$work/root"
# shellcheck disable=SC2086 # one word per package
(cd "$work/debs" && apt-get download $pkgs) > "$work/apt.log" 2>&1 ||
	{ cat "$work/apt.log" >&2; die "apt-get download failed (run apt-get update as root?)"; }
for deb in "$work"/debs/*.deb; do
	dpkg-deb -x "$deb" "$work/root" || die "cannot unpack $deb"
done
cp -R "$work/root/usr/include/." "$kit/deps/include/"
# -P: the .so links are relative (libinih.so -> libinih.so.1): keep them.
for f in "$work/root/usr/lib/$multiarch"/*; do
	[ -f "$f" ] || [ -L "$f" ] || continue
	cp -P "$f" "$kit/deps/lib/"
done
# A relocatable inih.pc: the kit is unpacked anywhere.
cat > "$kit/deps/lib/pkgconfig/inih.pc" <<'EOF'
prefix=${pcfiledir}/../..
includedir=${prefix}/include
libdir=${prefix}/lib

Name: inih
Description: simple .INI file parser (from the weft GPU kit)
Version: 55
Libs: -L${libdir} -linih
Cflags: -I${includedir}
EOF
for need in include/ini.h include/xxhash.h include/Random123/philox.h \
	include/CL/cl.h lib/libinih.so lib/libOpenCL.so.1; do
	[ -e "$kit/deps/$need" ] || die "deps/$need is missing from the packages"
done

# 3. The check script and a manifest.
cp "$top/.ci/gpu-check.sh" "$kit/gpu-check.sh"
chmod +x "$kit/gpu-check.sh"
{
	echo "weft GPU kit, made $(date -u '+%Y-%m-%d %H:%M UTC') on $(uname -n)"
	echo "source: $top ($(cd "$top" && git describe --always --dirty 2>/dev/null || echo 'not a git checkout'))"
	echo "tarball: $tarball"
	echo "packages (Debian, $multiarch):"
	for deb in "$work"/debs/*.deb; do
		echo "  $(dpkg-deb -f "$deb" Package) $(dpkg-deb -f "$deb" Version)"
	done
	echo "glibc symbol versions the shared libraries need:"
	for so in "$kit"/deps/lib/*.so.*; do
		[ -L "$so" ] && continue
		v=$(objdump -T "$so" 2>/dev/null | grep -o 'GLIBC_[0-9.]*' | sort -uV | tail -n 1)
		echo "  $(basename "$so"): ${v:-unknown}"
	done
	echo "run there: sh gpu-check.sh [OUTDIR]   (see its header)"
} > "$kit/MANIFEST"

size_kib=$(du -sk "$kit" | cut -f1)
[ "$size_kib" -le $((limit_mib * 1024)) ] ||
	die "the kit is $((size_kib / 1024)) MiB, over the $limit_mib MiB limit"
say "kit ready: $kit ($((size_kib / 1024 + 1)) MiB or less)"
cat "$kit/MANIFEST"
