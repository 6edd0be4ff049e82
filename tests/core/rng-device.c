/*
 * tests/core/rng-device.c - weft/kernel.h's Philox4x32-10 in the form
 * that the OpenCL and CUDA programs get (32-bit words: kernel.h without
 * WEFT_TARGET_HOST), compiled on the host so that test-rng checks it
 * against Random123 as it checks the host form.
 */
#include <weft/kernel_host.h>
#undef WEFT_TARGET_HOST
#define weft_philox weft__test_philox_device
#include <weft/kernel.h>
#undef weft_philox

#include "rng-device.h"

weft_rand4 test_philox_device(uint32_t seed_lo, uint32_t seed_hi, uint32_t c0,
			      uint32_t c1, uint32_t c2, uint32_t c3)
{
	return weft__test_philox_device(seed_lo, seed_hi, c0, c1, c2, c3);
}
