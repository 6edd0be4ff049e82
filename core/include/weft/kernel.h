/*
 * weft/kernel.h - the target-independent part of the portable kernel
 * dialect, shared by every model's kernel source.
 *
 * It is compiled after a target prelude (kernel_host.h on the host; the
 * OpenCL and CUDA backends carry their own), and is prepended verbatim to
 * the model's source in the program handed to run-time compilers. It may use
 * only the dialect: WEFT_FN, WEFT_GLOBAL, the weft_* types, and C99 that is
 * also valid OpenCL C and CUDA.
 *
 * Randomness is counter-based (Philox4x32-10 from Random123): a draw is a
 * pure function of (seed, step, subject, purpose), so no generator state is
 * stored and results cannot depend on scheduling.
 */
#ifndef WEFT_KERNEL_H
#define WEFT_KERNEL_H

#include <Random123/philox.h>

typedef struct weft_rand4 {
	weft_u32 v[4];
} weft_rand4;

/* Four independent 32-bit draws keyed by a 64-bit seed and indexed by a
 * four-word counter (for example step, agent, other, purpose). */
WEFT_FN weft_rand4 weft_philox(weft_u32 seed_lo, weft_u32 seed_hi, weft_u32 c0,
			       weft_u32 c1, weft_u32 c2, weft_u32 c3)
{
	philox4x32_key_t k = { { seed_lo, seed_hi } };
	philox4x32_ctr_t c = { { c0, c1, c2, c3 } };
	philox4x32_ctr_t r = philox4x32(c, k);
	weft_rand4 out;
	out.v[0] = r.v[0];
	out.v[1] = r.v[1];
	out.v[2] = r.v[2];
	out.v[3] = r.v[3];
	return out;
}

#endif /* WEFT_KERNEL_H */
