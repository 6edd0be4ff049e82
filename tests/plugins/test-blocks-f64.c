/*
 * tests/plugins/test-blocks-f64.c - the binary64 addition written in
 * integer arithmetic in weft/blocks.wk (weft_blocks__add_f64, what f64
 * sums use on a device without hardware double) gives the bits of the
 * host's hardware addition, rounded to nearest, ties to even: on every
 * class of operand (zeros of both signs, subnormals, normals near the
 * bottom and the top of the range, infinities, NaN) and on sums that
 * cancel, 4 million pairs in all.
 *
 * The kit file is compiled here as host C with the host prelude and
 * WEFT_HAS_F64 set to 0, so that its software path is the one built; its
 * kernels are compiled too, but not run.
 */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include <weft/kernel_host.h>

#include "tap.h"

#undef WEFT_HAS_F64
#define WEFT_HAS_F64 0
/* The kit's two-argument form (weft-wk numbers the slots in a model); the
 * kernels are not run here. */
#define WEFT_BUF_KIT(T, name) T *name = (T *)weft__ka->buf[0]
#undef WEFT_BUF
#define WEFT_BUF(T, name) WEFT_BUF_KIT(T, name)
#include <weft/kernel.h>

#pragma GCC diagnostic ignored "-Wunused-function"
#include <weft/blocks.wk>

static uint64_t rng(uint64_t *s)
{
	uint64_t z = (*s += 0x9E3779B97F4A7C15u);

	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9u;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBu;
	return z ^ (z >> 31);
}

/* An operand of class k: random bits, subnormal, small or huge exponents,
 * a signed zero or infinity, NaN. */
static uint64_t operand(uint64_t *s, unsigned k)
{
	uint64_t r = rng(s), sign_frac = r & 0x800fffffffffffffu;

	switch (k % 7) {
	case 0: return r;
	case 1: return sign_frac; /* subnormal (or zero) */
	case 2: return sign_frac | ((1 + rng(s) % 3) << 52);
	case 3: return sign_frac | ((2040 + rng(s) % 7) << 52);
	case 4: return sign_frac | ((1000 + rng(s) % 48) << 52);
	case 5:
		return (r & 0x8000000000000000u) |
		       (rng(s) % 2 ? 0x7ff0000000000000u : 0);
	default: return 0x7ff0000000000001u | sign_frac; /* NaN */
	}
}

int main(void)
{
	uint64_t s = 2026, bad = 0, n = 0, first_a = 0, first_b = 0;
	uint64_t first_got = 0, first_want = 0;

	for (unsigned i = 0; i < 4000000u; i++) {
		uint64_t a = operand(&s, i), b = operand(&s, i / 7), got, want;
		double x, y, z;

		if (i % 5 == 0) /* near cancellation */
			b = (a ^ 0x8000000000000000u) + rng(&s) % 5 - 2;
		memcpy(&x, &a, 8);
		memcpy(&y, &b, 8);
		z = x + y;
		memcpy(&want, &z, 8);
		got = weft_blocks__add_f64(a, b);
		n++;
		if (z != z ? (got & ~0x8000000000000000u) > 0x7ff0000000000000u
			   : got == want)
			continue;
		if (!bad++) {
			first_a = a;
			first_b = b;
			first_got = got;
			first_want = want;
		}
	}
	if (!tap_ok(bad == 0,
		    "software binary64 addition matches the hardware's on "
		    "%llu pairs (NaN for NaN)",
		    (unsigned long long)n))
		tap_diag("%llu differ; first: 0x%016llx + 0x%016llx gives "
			 "0x%016llx, not 0x%016llx",
			 (unsigned long long)bad, (unsigned long long)first_a,
			 (unsigned long long)first_b,
			 (unsigned long long)first_got,
			 (unsigned long long)first_want);
	return tap_done();
}
