/*
 * tests/core/test-rng.c - weft's Philox4x32-10 (weft/kernel.h, what every
 * model's kernels draw from on every backend) against Random123's
 * philox4x32 from Debian's librandom123-dev, and against Random123's
 * published known-answer vectors: the host form (64-bit words) and the
 * form the OpenCL and CUDA programs get (32-bit words, rng-device.c).
 */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <Random123/philox.h>
#include <weft/kernel_host.h>
#include <weft/kernel.h>

#include "rng-device.h"
#include "tap.h"

/* Random123's kat_vectors for philox4x32_10: counter, key, result. */
static const uint32_t kat[][10] = {
	{ 0, 0, 0, 0, 0, 0, 0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8 },
	{ 0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff,
	  0xffffffff, 0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd },
	{ 0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344, 0xa4093822,
	  0x299f31d0, 0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1 },
};

typedef weft_rand4 (*philox_fn)(uint32_t, uint32_t, uint32_t, uint32_t,
				uint32_t, uint32_t);

/* The two forms of kernel.h's Philox: the host's, the devices'. */
static weft_rand4 philox_host(uint32_t seed_lo, uint32_t seed_hi, uint32_t c0,
			      uint32_t c1, uint32_t c2, uint32_t c3)
{
	return weft_philox(seed_lo, seed_hi, c0, c1, c2, c3);
}

static const struct {
	const char *name;
	philox_fn fn;
} forms[] = {
	{ "host form", philox_host },
	{ "device form", test_philox_device },
};

static void test_kat(const char *name, philox_fn philox)
{
	for (size_t i = 0; i < sizeof kat / sizeof kat[0]; i++) {
		const uint32_t *k = kat[i];
		weft_rand4 r = philox(k[4], k[5], k[0], k[1], k[2], k[3]);

		tap_ok(r.v[0] == k[6] && r.v[1] == k[7] && r.v[2] == k[8] &&
			       r.v[3] == k[9],
		       "%s, known-answer vector %zu: %08" PRIx32 " %08" PRIx32
		       " %08" PRIx32 " %08" PRIx32,
		       name, i, r.v[0], r.v[1], r.v[2], r.v[3]);
	}
}

/* A small generator for test inputs, independent of the one under test. */
static uint32_t next(uint64_t *s)
{
	*s = *s * 6364136223846793005u + 1442695040888963407u;
	return (uint32_t)(*s >> 32);
}

static void test_against_random123(const char *name, philox_fn philox)
{
	uint64_t s = 42;
	long bad = 0, n = 200000;

	for (long i = 0; i < n; i++) {
		philox4x32_ctr_t c = { { next(&s), next(&s), next(&s),
					 next(&s) } };
		philox4x32_key_t k = { { next(&s), next(&s) } };
		philox4x32_ctr_t want = philox4x32(c, k);
		weft_rand4 got =
			philox(k.v[0], k.v[1], c.v[0], c.v[1], c.v[2], c.v[3]);

		for (int w = 0; w < 4; w++)
			bad += got.v[w] != want.v[w];
	}
	tap_ok(bad == 0,
	       "%s, %ld random counters and keys: every word equals "
	       "Random123's philox4x32 (%ld words differ)",
	       name, n, bad);
}

/* The draws are uniform enough for threshold comparisons: the fraction
 * below 2^31 over a million draws is within 5 standard deviations. */
static void test_balance(void)
{
	long below = 0, n = 250000;

	for (long i = 0; i < n; i++) {
		weft_rand4 r = weft_philox(7, 0, (uint32_t)i, 3, 0, 1);
		for (int w = 0; w < 4; w++)
			below += r.v[w] < 0x80000000u;
	}
	tap_ok(below > 2 * n - 5000 && below < 2 * n + 5000,
	       "%ld of %ld draws below 2^31 (expected %ld +- 5000)", below,
	       4 * n, 2 * n);
}

int main(void)
{
	for (size_t f = 0; f < sizeof forms / sizeof forms[0]; f++) {
		test_kat(forms[f].name, forms[f].fn);
		test_against_random123(forms[f].name, forms[f].fn);
	}
	test_balance();
	return tap_done();
}
