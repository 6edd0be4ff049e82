#!/bin/sh
# Regenerate the build system from a clone (a release tarball has it).
set -e
cd "$(dirname "$0")"
mkdir -p build-aux m4
autoreconf -fi
# Automake's TAP driver runs weft's tests.
cp -f "$(automake --print-libdir)/tap-driver.sh" build-aux/tap-driver.sh
