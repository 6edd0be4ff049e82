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
 * Randomness is counter-based: Philox4x32-10 (Salmon et al., SC'11, the
 * generator of Random123), so a draw is a pure function of (seed, step,
 * subject, purpose), no generator state is stored and results cannot
 * depend on scheduling. It is written out here, rather than included from
 * Random123's headers, so that the program text handed to run-time
 * compilers is self-contained (no include paths on the machine that runs
 * it); tests/core/test-rng.c checks it against Random123's philox4x32 and its
 * known-answer vectors. WEFT_MULHI32 (the high word of a 32x32 product)
 * comes from the target prelude: mul_hi in OpenCL, __umulhi in CUDA.
 */
#ifndef WEFT_KERNEL_H
#define WEFT_KERNEL_H

/* A kernel written to vectorise on the host (WEFT_KERNEL_SIMD,
 * docs/kernel-dialect.md) is a plain kernel on a target whose prelude
 * does not define the form (the OpenCL and CUDA backends', a third
 * party's): each item runs both parts of its body, main then after, and
 * an item at or past the extent (a launch rounded up to whole groups)
 * runs neither, since the parts' bodies do not check it themselves. */
#ifndef WEFT_KERNEL_SIMD
#define WEFT_KERNEL_SIMD(name) WEFT_KERNEL(name)
#define WEFT_SIMD_MAIN	       (WEFT_GID < WEFT_EXTENT)
#define WEFT_SIMD_AFTER	       (WEFT_GID < WEFT_EXTENT)
#endif
/* The deferred part (a prelude that defines WEFT_KERNEL_SIMD without it
 * gets this one): true where the after part is, so that every item runs
 * it, right after its after part (on a target that runs an item's parts
 * in turn, and in the after phase of a host prelude that runs them in
 * phases). The main part's mark is evaluated (it may be a call that does
 * the main part's work) and otherwise unused, since each deferred part
 * checks its own item. */
#ifndef WEFT_SIMD_DEFERRED
#define WEFT_SIMD_DEFERRED WEFT_SIMD_AFTER
#define WEFT_SIMD_DEFER(c) ((void)(c))
#endif

/* A large function that its callers call rather than copy (the
 * correctly rounded sin and cos of weft/math.h, its pow): one copy in
 * the program, where WEFT_FN's may be copied into every caller (the CUDA
 * prelude forces them inline, and a model calling sin, cos and pow at
 * every Runge-Kutta stage from four kernels then took NVRTC minutes to
 * compile). The
 * same operations either way, so the same bits. A prelude that does not
 * define it (OpenCL's, a third party's) gets WEFT_FN. Not for the main
 * part of a WEFT_KERNEL_SIMD kernel, which calls nothing. */
#ifndef WEFT_FN_OUTLINE
#define WEFT_FN_OUTLINE WEFT_FN
#endif

/* a where c (0 or 1), else b, as bit masks: compilers keep these as
 * selects, where `c ? a : b` may become a branch (the main part of a
 * WEFT_KERNEL_SIMD kernel needs them: docs/kernel-dialect.md, "Kernels
 * that vectorise"); floats are chosen by their bits. */
WEFT_FN weft_u32 weft_select_u32(weft_u32 c, weft_u32 a, weft_u32 b)
{
	weft_u32 m = 0u - c;

	return (a & m) | (b & ~m);
}

WEFT_FN weft_f32 weft_select_f32(weft_u32 c, weft_f32 a, weft_f32 b)
{
	return weft_u32_as_f32(
		weft_select_u32(c, weft_f32_as_u32(a), weft_f32_as_u32(b)));
}

typedef struct weft_rand4 {
	weft_u32 v[4];
} weft_rand4;

#define WEFT_PHILOX_M0 0xD2511F53u
#define WEFT_PHILOX_M1 0xCD9E8D57u
#define WEFT_PHILOX_W0 0x9E3779B9u /* golden ratio */
#define WEFT_PHILOX_W1 0xBB67AE85u /* sqrt(3) - 1 */

/* Four independent 32-bit draws keyed by a 64-bit seed and indexed by a
 * four-word counter (for example step, agent, other, purpose): Philox
 * 4x32 with 10 rounds. The words are locals, not an array, so that a host
 * compiler keeps them in registers at -O2 (an array handed to a round
 * function by address stays in memory there).
 *
 * On the host (WEFT_TARGET_HOST) the rounds are written on 64-bit words
 * whose low 32 bits are Philox's, the same bits: each product is one
 * 64-bit multiply of a word's low half, and where a WEFT_KERNEL_SIMD
 * kernel draws in its main part GCC's AVX-512 build keeps 16 items in
 * two vectors of 8 whose chains of rounds overlap; with the 32-bit form
 * it widened the words, multiplied and shuffled the halves back
 * together every round, one chain. The rounds are unrolled. Other targets keep
 * the 32-bit form (mul.hi and mul.lo). */
#if defined(WEFT_TARGET_HOST)
WEFT_FN weft_rand4 weft_philox(weft_u32 seed_lo, weft_u32 seed_hi, weft_u32 c0,
			       weft_u32 c1, weft_u32 c2, weft_u32 c3)
{
	weft_rand4 r;
	weft_u64 x0 = c0, x1 = c1, x2 = c2, x3 = c3, p0, p1;
	weft_u64 k0 = seed_lo, k1 = seed_hi;
	int i;

	/* Only the low 32 bits of x0 .. x3, k0 and k1 are Philox's words:
	 * the products take them alone, and the rest never reaches them. */
#if defined(__clang__) || (defined(__GNUC__) && __GNUC__ >= 8)
#pragma GCC unroll 10
#endif
	for (i = 0; i < 10; i++) {
		p0 = (x0 & 0xFFFFFFFFu) * (weft_u64)WEFT_PHILOX_M0;
		p1 = (x2 & 0xFFFFFFFFu) * (weft_u64)WEFT_PHILOX_M1;
		x0 = (p1 >> 32) ^ x1 ^ k0;
		x1 = p1;
		x2 = (p0 >> 32) ^ x3 ^ k1;
		x3 = p0;
		k0 += WEFT_PHILOX_W0;
		k1 += WEFT_PHILOX_W1;
	}
	r.v[0] = (weft_u32)x0;
	r.v[1] = (weft_u32)x1;
	r.v[2] = (weft_u32)x2;
	r.v[3] = (weft_u32)x3;
	return r;
}
#else
WEFT_FN weft_rand4 weft_philox(weft_u32 seed_lo, weft_u32 seed_hi, weft_u32 c0,
			       weft_u32 c1, weft_u32 c2, weft_u32 c3)
{
	weft_rand4 r;
	weft_u32 k0 = seed_lo, k1 = seed_hi, hi0, lo0, hi1, lo1;
	int i;

	for (i = 0; i < 10; i++) {
		hi0 = WEFT_MULHI32(WEFT_PHILOX_M0, c0);
		lo0 = WEFT_PHILOX_M0 * c0;
		hi1 = WEFT_MULHI32(WEFT_PHILOX_M1, c2);
		lo1 = WEFT_PHILOX_M1 * c2;
		c0 = hi1 ^ c1 ^ k0;
		c1 = lo1;
		c2 = hi0 ^ c3 ^ k1;
		c3 = lo0;
		k0 += WEFT_PHILOX_W0;
		k1 += WEFT_PHILOX_W1;
	}
	r.v[0] = c0;
	r.v[1] = c1;
	r.v[2] = c2;
	r.v[3] = c3;
	return r;
}
#endif

#endif /* WEFT_KERNEL_H */
