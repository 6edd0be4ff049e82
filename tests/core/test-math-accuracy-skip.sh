#!/bin/sh
# tests/core/test-math-accuracy-skip.sh - what make check runs in place of
# tests/core/test-math-accuracy when configure found no MPFR to measure
# weft/math.h against (tests/core/math.am).
. "$WEFT_SRCDIR/tests/tap.sh"
skip_all "MPFR not found at configure time (mpfr.h and -lmpfr): install libmpfr-dev and re-run configure to measure weft/math.h's accuracy"
