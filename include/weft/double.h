/*
 * weft/double.h - IEEE binary64 for kernels that must run on every device,
 * with or without hardware doubles (docs/double.md).
 *
 * weft_d64 is a double and the functions below its operations. Where the
 * prelude says WEFT_HAS_F64 1 (the host; OpenCL devices with cl_khr_fp64;
 * CUDA) weft_d64 is the device's hardware double and each function one
 * hardware operation; where it says 0 weft_d64 holds the double's bits and
 * each function is weft/softf64.h's integer version. Both compute the
 * IEEE 754 results, rounded to nearest, ties to even (subnormals kept),
 * so a kernel written on weft_d64 gives the same bits on every backend,
 * whichever path its device takes (NaN payloads aside: test "is NaN",
 * not a NaN's bits). The choice is the prelude's, at the device's compile:
 * the model writes one source.
 *
 * Operations: add, sub, mul, div, fma (one rounding), sqrt (correctly
 * rounded), neg, abs, copysign, comparisons (lt, le, gt, ge, eq: false
 * with a NaN), conversions from and to f32 (to: rounded to nearest) and
 * i32 and u32 (to: truncated toward zero, defined only when the result
 * fits, as C's casts), and the 64 bits (from_bits, bits: constants are
 * written as bits, which needs no double literal in the program).
 *
 * Needs. A program that includes this header needs no WEFT_CAP_F64: the
 * hardware type is named only inside `#if WEFT_HAS_F64`, through a macro,
 * so that weft-wk, which reads the token `weft_f64` as "this program needs
 * WEFT_CAP_F64", does not see it here. A model that writes weft_f64 itself
 * runs only on devices with doubles.
 *
 * WEFT_D64_SOFT defined before this header (on the compiler's command
 * line, or in a test) takes the software path even where the device has
 * doubles: a host build that checks the software path.
 */
#ifndef WEFT_DOUBLE_H
#define WEFT_DOUBLE_H

#include "softf64.h"

#if WEFT_HAS_F64 && !defined(WEFT_D64_SOFT)

#define WEFT_D64_HARDWARE 1
/* The prelude's hardware double: weft_f ## 64 (see "Needs" above). */
#define WEFT__D64_PASTE(a, b) a##b
typedef WEFT__D64_PASTE(weft_f, 64) weft_d64;

/* Fused multiply-add with one rounding: a prelude may define
 * WEFT_FMA_F64; otherwise each target's built-in, which IEEE 754's
 * fusedMultiplyAdd defines exactly (unlike sin or exp, its result is the
 * same on every target; OpenCL's is named through an object-like macro,
 * weft-wk refusing calls of C library names in kernel code). */
#ifdef WEFT_FMA_F64
#define WEFT__D64_FMA WEFT_FMA_F64
#elif defined(WEFT_TARGET_OPENCL)
#define WEFT__D64_FMA fma
#elif defined(WEFT_TARGET_CUDA)
#define WEFT__D64_FMA(a, b, c) __fma_rn(a, b, c)
#else
#define WEFT__D64_FMA(a, b, c) __builtin_fma(a, b, c)
#endif

WEFT_FN weft_d64 weft_d64_from_bits(weft_u64 u)
{
	return weft_u64_as_f64(u);
}

WEFT_FN weft_u64 weft_d64_bits(weft_d64 a)
{
	return weft_f64_as_u64(a);
}

WEFT_FN weft_d64 weft_d64_add(weft_d64 a, weft_d64 b)
{
	return a + b;
}

WEFT_FN weft_d64 weft_d64_sub(weft_d64 a, weft_d64 b)
{
	return a - b;
}

WEFT_FN weft_d64 weft_d64_mul(weft_d64 a, weft_d64 b)
{
	return a * b;
}

WEFT_FN weft_d64 weft_d64_div(weft_d64 a, weft_d64 b)
{
	return a / b;
}

WEFT_FN weft_d64 weft_d64_fma(weft_d64 a, weft_d64 b, weft_d64 c)
{
	return WEFT__D64_FMA(a, b, c);
}

WEFT_FN weft_d64 weft_d64_sqrt(weft_d64 a)
{
	return WEFT_SQRT_F64(a);
}

WEFT_FN weft_d64 weft_d64_neg(weft_d64 a)
{
	return -a;
}

WEFT_FN int weft_d64_lt(weft_d64 a, weft_d64 b)
{
	return a < b;
}

WEFT_FN int weft_d64_le(weft_d64 a, weft_d64 b)
{
	return a <= b;
}

WEFT_FN int weft_d64_eq(weft_d64 a, weft_d64 b)
{
	return a == b;
}

WEFT_FN weft_d64 weft_d64_from_f32(weft_f32 f)
{
	return (weft_d64)f;
}

WEFT_FN weft_f32 weft_d64_to_f32(weft_d64 a)
{
	return (weft_f32)a;
}

WEFT_FN weft_d64 weft_d64_from_i32(weft_i32 i)
{
	return (weft_d64)i;
}

WEFT_FN weft_d64 weft_d64_from_u32(weft_u32 u)
{
	return (weft_d64)u;
}

WEFT_FN weft_i32 weft_d64_to_i32(weft_d64 a)
{
	return (weft_i32)a;
}

WEFT_FN weft_u32 weft_d64_to_u32(weft_d64 a)
{
	return (weft_u32)a;
}

#else /* the software path */

#define WEFT_D64_HARDWARE 0
/* The bits, in a struct so that arithmetic operators on a weft_d64 do
 * not compile here (they would be integer operations). */
typedef struct weft_d64 {
	weft_u64 bits;
} weft_d64;

WEFT_FN weft_d64 weft_d64_from_bits(weft_u64 u)
{
	weft_d64 d;

	d.bits = u;
	return d;
}

WEFT_FN weft_u64 weft_d64_bits(weft_d64 a)
{
	return a.bits;
}

WEFT_FN weft_d64 weft_d64_add(weft_d64 a, weft_d64 b)
{
	return weft_d64_from_bits(weft_sf64_add(a.bits, b.bits));
}

WEFT_FN weft_d64 weft_d64_sub(weft_d64 a, weft_d64 b)
{
	return weft_d64_from_bits(weft_sf64_sub(a.bits, b.bits));
}

WEFT_FN weft_d64 weft_d64_mul(weft_d64 a, weft_d64 b)
{
	return weft_d64_from_bits(weft_sf64_mul(a.bits, b.bits));
}

WEFT_FN weft_d64 weft_d64_div(weft_d64 a, weft_d64 b)
{
	return weft_d64_from_bits(weft_sf64_div(a.bits, b.bits));
}

WEFT_FN weft_d64 weft_d64_fma(weft_d64 a, weft_d64 b, weft_d64 c)
{
	return weft_d64_from_bits(weft_sf64_fma(a.bits, b.bits, c.bits));
}

WEFT_FN weft_d64 weft_d64_sqrt(weft_d64 a)
{
	return weft_d64_from_bits(weft_sf64_sqrt(a.bits));
}

WEFT_FN weft_d64 weft_d64_neg(weft_d64 a)
{
	return weft_d64_from_bits(weft_sf64_neg(a.bits));
}

WEFT_FN int weft_d64_lt(weft_d64 a, weft_d64 b)
{
	return weft_sf64_lt(a.bits, b.bits);
}

WEFT_FN int weft_d64_le(weft_d64 a, weft_d64 b)
{
	return weft_sf64_le(a.bits, b.bits);
}

WEFT_FN int weft_d64_eq(weft_d64 a, weft_d64 b)
{
	return weft_sf64_eq(a.bits, b.bits);
}

WEFT_FN weft_d64 weft_d64_from_f32(weft_f32 f)
{
	return weft_d64_from_bits(weft_sf64_from_f32_bits(weft_f32_as_u32(f)));
}

WEFT_FN weft_f32 weft_d64_to_f32(weft_d64 a)
{
	return weft_u32_as_f32(weft_sf64_to_f32_bits(a.bits));
}

WEFT_FN weft_d64 weft_d64_from_i32(weft_i32 i)
{
	return weft_d64_from_bits(weft_sf64_from_i32(i));
}

WEFT_FN weft_d64 weft_d64_from_u32(weft_u32 u)
{
	return weft_d64_from_bits(weft_sf64_from_u32(u));
}

WEFT_FN weft_i32 weft_d64_to_i32(weft_d64 a)
{
	return weft_sf64_to_i32(a.bits);
}

WEFT_FN weft_u32 weft_d64_to_u32(weft_d64 a)
{
	return weft_sf64_to_u32(a.bits);
}

#endif /* WEFT_HAS_F64 */

/* WEFT_D64_FN: WEFT_FN for a function that does much weft_d64
 * arithmetic (fma above all). On an x86-64 host compiled by GCC for the
 * baseline instruction set, weft_d64_fma is a call of the C library's fma
 * (exact, but a call); such a function gets a second build for CPUs with
 * FMA, where it is one instruction, and the loader picks the build the CPU
 * runs (GCC's target_clones). Both builds compute the same bits: fma is
 * exact either way, and nothing else is contracted (-ffp-contract=off).
 * Elsewhere it is WEFT_FN; defined beforehand, it is left as it is (a test
 * that checks the baseline build defines it as WEFT_FN). */
#ifdef WEFT_D64_FN
#elif WEFT_D64_HARDWARE && defined(WEFT_TARGET_HOST)
#define WEFT_D64_FN WEFT_FN WEFT__FMA_CLONES
#else
#define WEFT_D64_FN WEFT_FN
#endif

/* Sign operations on the bits, on both paths (exact everywhere). */
WEFT_FN weft_d64 weft_d64_abs(weft_d64 a)
{
	return weft_d64_from_bits(weft_d64_bits(a) & ~WEFT_SF64_SIGN);
}

/* |a| with the sign of b. */
WEFT_FN weft_d64 weft_d64_copysign(weft_d64 a, weft_d64 b)
{
	return weft_d64_from_bits((weft_d64_bits(a) & ~WEFT_SF64_SIGN) |
				  (weft_d64_bits(b) & WEFT_SF64_SIGN));
}

WEFT_FN int weft_d64_gt(weft_d64 a, weft_d64 b)
{
	return weft_d64_lt(b, a);
}

WEFT_FN int weft_d64_ge(weft_d64 a, weft_d64 b)
{
	return weft_d64_le(b, a);
}

#endif /* WEFT_DOUBLE_H */
