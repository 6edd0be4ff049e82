#!/bin/sh
# tests/models/test-wolf-sheep-cost.sh - at Mesa's example size
# (examples/wolf-sheep.ini) on one OpenMP thread the framework's share of
# a step dominates, the space kit's clear kernel first among it: that
# kernel is built as a vectorising kernel wherever the toolchain builds
# SIMD clones (CartPole's act kernel shows it does). What a step costs is
# measured in docs/benchmarks.md (callgrind's instructions per step), not
# here: a count would differ under the sanitizers' build and other
# compilers.
set -u
ws="$WEFT_BUILDDIR/models/wolf-sheep/.libs/weft-model-wolf_sheep.so"
cp="$WEFT_BUILDDIR/models/cartpole/.libs/weft-model-cartpole.so"
. "$WEFT_SRCDIR/tests/tap.sh"

# ---- the clear kernel vectorises ---------------------------------------------
if ! command -v objdump > /dev/null 2>&1 || [ ! -f "$ws" ] || [ ! -f "$cp" ]; then
	skip "weft_space_clear is built with SIMD clones" "no objdump or no models"
elif ! objdump -t "$cp" | grep -q 'cartpole_act_f32\.arch_x86_64_v3'; then
	skip "weft_space_clear is built with SIMD clones" \
		"this toolchain builds no SIMD clones"
else
	objdump -t "$ws" | grep -q 'weft_space_clear\.arch_x86_64_v3'
	ok $? "weft_space_clear is built with SIMD clones, as CartPole's kernels"
fi

tap_done
