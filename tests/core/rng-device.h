/*
 * tests/core/rng-device.h - the device form of weft_philox, for
 * test-rng (rng-device.c). Include weft/kernel.h (weft_rand4) first.
 */
#ifndef WEFT_TEST_RNG_DEVICE_H
#define WEFT_TEST_RNG_DEVICE_H

#include <stdint.h>

weft_rand4 test_philox_device(uint32_t seed_lo, uint32_t seed_hi, uint32_t c0,
			      uint32_t c1, uint32_t c2, uint32_t c3);

#endif
