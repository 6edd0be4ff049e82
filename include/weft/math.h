/*
 * weft/math.h - a math library in weft's portable kernel dialect, with the
 * same bits on every backend.
 *
 * `#include <weft/math.h>` in a model's .wk file gives its kernels
 *
 *   f64: weft_floor ceil trunc round fabs fmin fmax clamp copysign sqrt
 *        hypot sin cos tan sincos asin acos atan atan2 exp exp2 expm1 log
 *        log2 log1p pow tanh (weft_NAME(x), weft_clamp(x, lo, hi),
 *        weft_sincos(x, &s, &c)); sin_cr cos_cr sincos_cr (correctly
 *        rounded for |x| < 2^20, weft_sin_cr(x), weft_sincos_cr(x, &s, &c))
 *   f32: the same names with an f suffix (weft_sinf, weft_sincosf, ...);
 *        weft_sincosf_simd (f32 arithmetic alone, branch-free: for kernels
 *        that vectorise, within 1.52 ulp for |x| <= 64); weft_fmaf
 *        (a * b + c rounded once, the same on every target) and
 *        weft_sincosf_fma (weft_sincosf_simd with fused multiply-adds,
 *        within 1.49 ulp for |x| <= 64); WEFT_FMA_FN
 *
 * Every function is written out here in the dialect's C subset: integer
 * operations, bit casts, and + - * / and square root on binary64, which
 * every backend rounds correctly and never contracts into a fused
 * multiply-add. No device library is called, so the host build, OpenCL
 * and CUDA compute the same bits. The f32 functions evaluate the f64 one
 * and round once, so they need hardware doubles too: a program that
 * includes this header needs WEFT_CAP_F64. NaN results are one quiet NaN
 * (0x7ff8000000000000, 0x7fc00000) whatever the target would make of
 * them; fabs and copysign only move the sign bit. docs/math.md gives the
 * measured accuracy (f64 within 1 ulp; f32 correctly rounded but for
 * rare double-rounding cases).
 *
 * The algorithms and constants are musl's libm (src/math), chosen where
 * musl has a variant for targets without FMA; tables are WEFT_CONST arrays
 * indexed directly; helpers are weft__math_*. Beyond musl: hypot takes a
 * Newton step on an exact residual, atan2 corrects for the rounding of
 * y / x and adds pi before the last rounding, tanh divides expm1's result
 * carried to twice the precision; sin_cr and cos_cr (weft's own, not
 * musl's) evaluate in double-double and round once. Their notices follow.
 *
 * musl: Copyright (c) 2005-2020 Rich Felker, et al.
 *
 * Permission is hereby granted, free of charge, to any person obtaining
 * a copy of this software and associated documentation files (the
 * "Software"), to deal in the Software without restriction, including
 * without limitation the rights to use, copy, modify, merge, publish,
 * distribute, sublicense, and/or sell copies of the Software, and to
 * permit persons to whom the Software is furnished to do so, subject to
 * the following conditions:
 *
 * The above copyright notice and this permission notice shall be
 * included in all copies or substantial portions of the Software.
 *
 * THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND,
 * EXPRESS OR IMPLIED, INCLUDING BUT NOT LIMITED TO THE WARRANTIES OF
 * MERCHANTABILITY, FITNESS FOR A PARTICULAR PURPOSE AND NONINFRINGEMENT.
 * IN NO EVENT SHALL THE AUTHORS OR COPYRIGHT HOLDERS BE LIABLE FOR ANY
 * CLAIM, DAMAGES OR OTHER LIABILITY, WHETHER IN AN ACTION OF CONTRACT,
 * TORT OR OTHERWISE, ARISING FROM, OUT OF OR IN CONNECTION WITH THE
 * SOFTWARE OR THE USE OR OTHER DEALINGS IN THE SOFTWARE.
 *
 * exp, exp2, log, log2, pow and their tables (musl's exp.c, exp2.c,
 * log.c, log2.c, pow.c, *_data.c): Copyright (c) 2018, Arm Limited.
 * SPDX-License-Identifier: MIT
 *
 * The trigonometric functions, their argument reduction, asin, acos, atan,
 * atan2, expm1, log1p (musl's copies of FreeBSD msun / fdlibm):
 * ====================================================
 * Copyright (C) 1993 by Sun Microsystems, Inc. All rights reserved.
 *
 * Developed at SunSoft, a Sun Microsystems, Inc. business.
 * Permission to use, copy, modify, and distribute this
 * software is freely granted, provided that this notice
 * is preserved.
 * ====================================================
 * (__rem_pio2.c also: Optimized by Bruce D. Evans.)
 */
#ifndef WEFT_MATH_H
#define WEFT_MATH_H

#include <weft/kernel.h> /* weft_select_f32 */

#if !defined(WEFT_HAS_F64) || !WEFT_HAS_F64
#error "weft/math.h computes in binary64 and this target has no hardware double (WEFT_HAS_F64 is 0): a program that includes it needs a device with WEFT_CAP_F64"
#endif

/* ---- bits, NaN and infinity ---------------------------------------- */

WEFT_FN weft_u32 weft__math_top32(weft_f64 x)
{
	return (weft_u32)(weft_f64_as_u64(x) >> 32);
}

WEFT_FN weft_u32 weft__math_low32(weft_f64 x)
{
	return (weft_u32)weft_f64_as_u64(x);
}

/* x with its low 32 bits cleared (fdlibm's SET_LOW_WORD(x, 0)). */
WEFT_FN weft_f64 weft__math_clear_low(weft_f64 x)
{
	return weft_u64_as_f64(weft_f64_as_u64(x) & 0xffffffff00000000);
}

WEFT_FN weft_f64 weft__math_nan(void)
{
	return weft_u64_as_f64(0x7ff8000000000000);
}

/* +inf when sign is 0, -inf otherwise. */
WEFT_FN weft_f64 weft__math_inf(weft_u32 sign)
{
	return weft_u64_as_f64(sign ? 0xfff0000000000000 : 0x7ff0000000000000);
}

/* +0 when sign is 0, -0 otherwise (musl's __math_uflow result). */
WEFT_FN weft_f64 weft__math_zero(weft_u32 sign)
{
	return weft_u64_as_f64(sign ? 0x8000000000000000 : 0);
}

/* Every NaN result becomes the one quiet NaN, so that its bits do not
 * depend on the target. */
WEFT_FN weft_f64 weft__math_canon(weft_f64 x)
{
	return x != x ? weft__math_nan() : x;
}

WEFT_FN weft_f32 weft__math_canonf(weft_f32 x)
{
	return x != x ? weft_u32_as_f32(0x7fc00000u) : x;
}

WEFT_FN int weft__math_isnan(weft_f64 x)
{
	return (weft_f64_as_u64(x) << 1) > 0xffe0000000000000;
}

/* ---- rounding, sign, min and max ----------------------------------- */

WEFT_FN weft_f64 weft_fabs(weft_f64 x)
{
	return weft_u64_as_f64(weft_f64_as_u64(x) & 0x7fffffffffffffff);
}

WEFT_FN weft_f64 weft_copysign(weft_f64 x, weft_f64 y)
{
	return weft_u64_as_f64((weft_f64_as_u64(x) & 0x7fffffffffffffff) |
			       (weft_f64_as_u64(y) & 0x8000000000000000));
}

/* 2^52: x + 2^52 - 2^52 is x rounded to an integer for 0 <= x < 2^52. */
#define WEFT__MATH_TOINT (0x1p52)

/* int(x) - x, where int(x) is an integer neighbour of x (x rounded to
 * one, by 2^52's addition and subtraction), for |x| < 2^52: floor, ceil
 * and round correct x + the difference by one where it went the wrong
 * way. */
WEFT_FN weft_f64 weft__math_toint_diff(weft_f64 x)
{
	if (weft_f64_as_u64(x) >> 63)
		return x - WEFT__MATH_TOINT + WEFT__MATH_TOINT - x;
	return x + WEFT__MATH_TOINT - WEFT__MATH_TOINT - x;
}

WEFT_FN weft_f64 weft_floor(weft_f64 x)
{
	weft_u64 u = weft_f64_as_u64(x);
	int e = (int)(u >> 52 & 0x7ff);
	weft_f64 y;

	if (e >= 0x3ff + 52 || x == 0)
		return weft__math_canon(x);
	y = weft__math_toint_diff(x);
	if (e <= 0x3ff - 1)
		return u >> 63 ? -1.0 : 0.0;
	if (y > 0)
		return x + y - 1;
	return x + y;
}

WEFT_FN weft_f64 weft_ceil(weft_f64 x)
{
	weft_u64 u = weft_f64_as_u64(x);
	int e = (int)(u >> 52 & 0x7ff);
	weft_f64 y;

	if (e >= 0x3ff + 52 || x == 0)
		return weft__math_canon(x);
	y = weft__math_toint_diff(x);
	if (e <= 0x3ff - 1)
		return u >> 63 ? -0.0 : 1.0;
	if (y < 0)
		return x + y + 1;
	return x + y;
}

WEFT_FN weft_f64 weft_trunc(weft_f64 x)
{
	weft_u64 u = weft_f64_as_u64(x);
	int e = (int)(u >> 52 & 0x7ff) - 0x3ff + 12;
	weft_u64 m;

	if (e >= 52 + 12)
		return weft__math_canon(x);
	if (e < 12)
		e = 1;
	m = (weft_u64)0xffffffffffffffff >> e;
	return weft_u64_as_f64(u & ~m);
}

/* Halfway cases away from zero, like C's round(). */
WEFT_FN weft_f64 weft_round(weft_f64 x)
{
	weft_u64 u = weft_f64_as_u64(x);
	int e = (int)(u >> 52 & 0x7ff);
	weft_f64 y;

	if (e >= 0x3ff + 52)
		return weft__math_canon(x);
	if (u >> 63)
		x = -x;
	if (e < 0x3ff - 1)
		return weft__math_zero((weft_u32)(u >> 63));
	y = weft__math_toint_diff(x); /* x > 0 here */
	if (y > 0.5)
		y = y + x - 1;
	else if (y <= -0.5)
		y = y + x + 1;
	else
		y = y + x;
	return u >> 63 ? -y : y;
}

/* IEEE minNum (max = 0) or maxNum (max = 1), like C's fmin and fmax: a
 * NaN argument is ignored, -0 < +0; of two equal arguments fmin returns
 * y, fmax x. */
WEFT_FN weft_f64 weft__math_minmax(weft_f64 x, weft_f64 y, int max)
{
	weft_u64 sx = weft_f64_as_u64(x) >> 63;
	weft_u64 sy = weft_f64_as_u64(y) >> 63;
	int x_less;

	if (weft__math_isnan(x))
		return weft__math_canon(y);
	if (weft__math_isnan(y))
		return x;
	x_less = sx != sy ? (int)sx : x < y;
	return x_less != max ? x : y;
}

WEFT_FN weft_f64 weft_fmin(weft_f64 x, weft_f64 y)
{
	return weft__math_minmax(x, y, 0);
}

WEFT_FN weft_f64 weft_fmax(weft_f64 x, weft_f64 y)
{
	return weft__math_minmax(x, y, 1);
}

/* x limited to [lo, hi] (lo <= hi); a NaN x stays NaN. */
WEFT_FN weft_f64 weft_clamp(weft_f64 x, weft_f64 lo, weft_f64 hi)
{
	if (x < lo)
		return lo;
	if (x > hi)
		return hi;
	return weft__math_canon(x);
}

/* ---- square root and hypot ----------------------------------------- */

WEFT_FN weft_f64 weft_sqrt(weft_f64 x)
{
	return weft__math_canon(WEFT_SQRT_F64(x));
}

/* hi + lo = x * x exactly, by Dekker's split (no FMA). */
WEFT_FN void weft__math_sq(weft_f64 *hi, weft_f64 *lo, weft_f64 x)
{
	weft_f64 xc = x * (0x1p27 + 1);
	weft_f64 xh = x - xc + xc;
	weft_f64 xl = x - xh;

	*hi = x * x;
	*lo = xh * xh - *hi + 2 * xh * xl + xl * xl;
}

WEFT_FN weft_f64 weft_hypot(weft_f64 x, weft_f64 y)
{
	weft_u64 ux = weft_f64_as_u64(x) & 0x7fffffffffffffff;
	weft_u64 uy = weft_f64_as_u64(y) & 0x7fffffffffffffff;
	weft_u64 ut;
	int ex, ey;
	weft_f64 hx, lx, hy, ly, z, s, sh, sl, r;

	/* arrange |x| >= |y| */
	if (ux < uy) {
		ut = ux;
		ux = uy;
		uy = ut;
	}
	ex = (int)(ux >> 52);
	ey = (int)(uy >> 52);
	x = weft_u64_as_f64(ux);
	y = weft_u64_as_f64(uy);
	/* hypot(inf, nan) == inf */
	if (ey == 0x7ff)
		return weft__math_canon(y);
	if (ex == 0x7ff || uy == 0)
		return weft__math_canon(x);
	if (ex - ey > 64)
		return x + y;
	/* precise sqrt argument without overflow or underflow in sq */
	z = 1;
	if (ex > 0x3ff + 510) {
		z = 0x1p700;
		x *= 0x1p-700;
		y *= 0x1p-700;
	} else if (ey < 0x3ff - 450) {
		z = 0x1p-700;
		x *= 0x1p700;
		y *= 0x1p700;
	}
	weft__math_sq(&hx, &lx, x);
	weft__math_sq(&hy, &ly, y);
	s = WEFT_SQRT_F64(ly + lx + hy + hx);
	/* One Newton step on the residual x^2 + y^2 - s^2, computed almost
	 * exactly (s^2 = sh + sl exactly), takes musl's 1.003 ulp to about
	 * half an ulp. */
	weft__math_sq(&sh, &sl, s);
	r = (hx - sh) + hy + (lx + ly - sl);
	return z * (s + r / (2 * s));
}

/* x * 2^n (musl's scalbn). */
WEFT_FN weft_f64 weft__math_scalbn(weft_f64 x, int n)
{
	weft_f64 y = x;

	if (n > 1023) {
		y *= 0x1p1023;
		n -= 1023;
		if (n > 1023) {
			y *= 0x1p1023;
			n -= 1023;
			if (n > 1023)
				n = 1023;
		}
	} else if (n < -1022) {
		/* final n < -53 avoids double rounding in the subnormal range
		 */
		y *= 0x1p-1022 * 0x1p53;
		n += 1022 - 53;
		if (n < -1022) {
			y *= 0x1p-1022 * 0x1p53;
			n += 1022 - 53;
			if (n < -1022)
				n = -1022;
		}
	}
	return y * weft_u64_as_f64((weft_u64)(0x3ff + n) << 52);
}

/* ---- argument reduction for sin, cos, tan -------------------------- */

/* Bits of 2/pi, 24 per entry: ipio2[i] * 2^(-24(i+1)) (enough for any
 * binary64 argument). */
WEFT_CONST weft_i32 weft__math_ipio2[66] = {
	0xA2F983, 0x6E4E44, 0x1529FC, 0x2757D1, 0xF534DD, 0xC0DB62, 0x95993C,
	0x439041, 0xFE5163, 0xABDEBB, 0xC561B7, 0x246E3A, 0x424DD2, 0xE00649,
	0x2EEA09, 0xD1921C, 0xFE1DEB, 0x1CB129, 0xA73EE8, 0x8235F5, 0x2EBB44,
	0x84E99C, 0x7026B4, 0x5F7E41, 0x3991D6, 0x398353, 0x39F49C, 0x845F8B,
	0xBDF928, 0x3B1FF8, 0x97FFDE, 0x05980F, 0xEF2F11, 0x8B5A0A, 0x6D1F6D,
	0x367ECF, 0x27CB09, 0xB74F46, 0x3F669E, 0x5FEA2D, 0x7527BA, 0xC7EBE5,
	0xF17B3D, 0x0739F7, 0x8A5292, 0xEA6BFB, 0x5FB11F, 0x8D5D08, 0x560330,
	0x46FC7B, 0x6BABF0, 0xCFBC20, 0x9AF436, 0x1DA9E3, 0x91615E, 0xE61B08,
	0x659985, 0x5F14A0, 0x68408D, 0xFFD880, 0x4D7327, 0x310606, 0x1556CA,
	0x73A8C9, 0x60E27B, 0xC08C6B,
};

/* pi/2 in 24-bit pieces. */
WEFT_CONST weft_f64 weft__math_pio2_24[8] = {
	1.57079625129699707031e+00, /* 0x3FF921FB, 0x40000000 */
	7.54978941586159635335e-08, /* 0x3E74442D, 0x00000000 */
	5.39030252995776476554e-15, /* 0x3CF84698, 0x80000000 */
	3.28200341580791294123e-22, /* 0x3B78CC51, 0x60000000 */
	1.27065575308067607349e-29, /* 0x39F01B83, 0x80000000 */
	1.22933308981111328932e-36, /* 0x387A2520, 0x40000000 */
	2.73370053816464559624e-44, /* 0x36E38222, 0x80000000 */
	2.16741683877804819444e-51, /* 0x3569F31D, 0x00000000 */
};

/*
 * Payne-Hanek reduction (musl's __rem_pio2_large, for double precision:
 * prec 1, jk = jp = 4): x[0..nx-1] are 24-bit pieces of the argument
 * scaled by 2^-e0; y[0] + y[1] = the argument mod pi/2; returns the
 * quadrant's low 3 bits.
 */
WEFT_FN int weft__math_rem_pio2_large(const weft_f64 *x, weft_f64 *y, int e0,
				      int nx)
{
	weft_i32 jz, jx, jv, jp, jk, carry, n, iq[20], i, j, k, m, q0, ih;
	weft_f64 z, fw, f[20], fq[20], q[20];
	int again;

	jk = 4;
	jp = jk;
	/* determine jx, jv, q0; note that 3 > q0 */
	jx = nx - 1;
	jv = (e0 - 3) / 24;
	if (jv < 0)
		jv = 0;
	q0 = e0 - 24 * (jv + 1);
	/* set up f[0] to f[jx+jk] where f[jx+jk] = ipio2[jv+jk] */
	j = jv - jx;
	m = jx + jk;
	for (i = 0; i <= m; i++, j++)
		f[i] = j < 0 ? 0.0 : (weft_f64)weft__math_ipio2[j];
	/* compute q[0], q[1], ... q[jk] */
	for (i = 0; i <= jk; i++) {
		for (j = 0, fw = 0.0; j <= jx; j++)
			fw += x[j] * f[jx + i - j];
		q[i] = fw;
	}
	jz = jk;
	do {
		again = 0;
		/* distill q[] into iq[] reversingly */
		for (i = 0, j = jz, z = q[jz]; j > 0; i++, j--) {
			fw = (weft_f64)(weft_i32)(0x1p-24 * z);
			iq[i] = (weft_i32)(z - 0x1p24 * fw);
			z = q[j - 1] + fw;
		}
		/* compute n */
		z = weft__math_scalbn(z, q0);
		z -= 8.0 * weft_floor(z * 0.125); /* trim off integer >= 8 */
		n = (weft_i32)z;
		z -= (weft_f64)n;
		ih = 0;
		if (q0 > 0) { /* need iq[jz-1] to determine n */
			i = iq[jz - 1] >> (24 - q0);
			n += i;
			iq[jz - 1] -= i << (24 - q0);
			ih = iq[jz - 1] >> (23 - q0);
		} else if (q0 == 0) {
			ih = iq[jz - 1] >> 23;
		} else if (z >= 0.5) {
			ih = 2;
		}
		if (ih > 0) { /* q > 0.5 */
			n += 1;
			carry = 0;
			for (i = 0; i < jz; i++) { /* compute 1-q */
				j = iq[i];
				if (carry == 0) {
					if (j != 0) {
						carry = 1;
						iq[i] = 0x1000000 - j;
					}
				} else {
					iq[i] = 0xffffff - j;
				}
			}
			if (q0 == 1)
				iq[jz - 1] &= 0x7fffff;
			else if (q0 == 2)
				iq[jz - 1] &= 0x3fffff;
			if (ih == 2) {
				z = 1.0 - z;
				if (carry != 0)
					z -= weft__math_scalbn(1.0, q0);
			}
		}
		/* check if recomputation is needed */
		if (z == 0.0) {
			j = 0;
			for (i = jz - 1; i >= jk; i--)
				j |= iq[i];
			if (j == 0) { /* need recomputation */
				for (k = 1; iq[jk - k] == 0; k++)
					; /* k = no. of terms needed */
				for (i = jz + 1; i <= jz + k; i++) {
					f[jx + i] = (weft_f64)
						weft__math_ipio2[jv + i];
					for (j = 0, fw = 0.0; j <= jx; j++)
						fw += x[j] * f[jx + i - j];
					q[i] = fw;
				}
				jz += k;
				again = 1;
			}
		}
	} while (again);
	/* chop off zero terms */
	if (z == 0.0) {
		jz -= 1;
		q0 -= 24;
		while (iq[jz] == 0) {
			jz--;
			q0 -= 24;
		}
	} else { /* break z into 24-bit if necessary */
		z = weft__math_scalbn(z, -q0);
		if (z >= 0x1p24) {
			fw = (weft_f64)(weft_i32)(0x1p-24 * z);
			iq[jz] = (weft_i32)(z - 0x1p24 * fw);
			jz += 1;
			q0 += 24;
			iq[jz] = (weft_i32)fw;
		} else {
			iq[jz] = (weft_i32)z;
		}
	}
	/* convert integer "bit" chunk to floating-point value */
	fw = weft__math_scalbn(1.0, q0);
	for (i = jz; i >= 0; i--) {
		q[i] = fw * (weft_f64)iq[i];
		fw *= 0x1p-24;
	}
	/* compute PIo2[0,...,jp]*q[jz,...,0] */
	fq[0] = 0.0; /* (jz >= 0: set again below) */
	for (i = jz; i >= 0; i--) {
		for (fw = 0.0, k = 0; k <= jp && k <= jz - i; k++)
			fw += weft__math_pio2_24[k] * q[i + k];
		fq[jz - i] = fw;
	}
	/* compress fq[] into y[] */
	fw = 0.0;
	for (i = jz; i >= 0; i--)
		fw += fq[i];
	y[0] = ih == 0 ? fw : -fw;
	fw = fq[0] - fw;
	for (i = 1; i <= jz; i++)
		fw += fq[i];
	y[1] = ih == 0 ? fw : -fw;
	return n & 7;
}

#define WEFT__MATH_PIO4	   (0x1.921fb54442d18p-1)
#define WEFT__MATH_INVPIO2 (6.36619772367581382433e-01)
#define WEFT__MATH_PIO2_1  (1.57079632673412561417e+00)
#define WEFT__MATH_PIO2_1T (6.07710050650619224932e-11)
#define WEFT__MATH_PIO2_2  (6.07710050630396597660e-11)
#define WEFT__MATH_PIO2_2T (2.02226624879595063154e-21)
#define WEFT__MATH_PIO2_3  (2.02226624871116645580e-21)
#define WEFT__MATH_PIO2_3T (8.47842766036889956997e-32)

/* y[0] + y[1] = x - n*pi/2 with x and y[0] of tiny fractions over the
 * multiple k of pi/2 subtracted (musl's __rem_pio2 for |x| ~<= 9pi/4). */
WEFT_FN void weft__math_rem_pio2_k(weft_f64 x, weft_f64 *y, weft_f64 k,
				   int sign)
{
	weft_f64 z;

	if (!sign) {
		z = x - k * WEFT__MATH_PIO2_1;
		y[0] = z - k * WEFT__MATH_PIO2_1T;
		y[1] = (z - y[0]) - k * WEFT__MATH_PIO2_1T;
	} else {
		z = x + k * WEFT__MATH_PIO2_1;
		y[0] = z + k * WEFT__MATH_PIO2_1T;
		y[1] = (z - y[0]) + k * WEFT__MATH_PIO2_1T;
	}
}

/* One more Cody-Waite round of the medium reduction: *r less fn * c
 * (c + ct the next piece of pi/2), returns the new tail w, *r - w the
 * new y[0]. */
WEFT_FN weft_f64 weft__math_rem_pio2_round(weft_f64 *r, weft_f64 fn, weft_f64 c,
					   weft_f64 ct)
{
	weft_f64 t = *r, w = fn * c;

	*r = t - w;
	return fn * ct - ((t - *r) - w);
}

/* Cody-Waite reduction for |x| < 2^20 pi/2: returns n, y[0] + y[1] =
 * x - n pi/2. */
WEFT_FN int weft__math_rem_pio2_medium(weft_f64 x, weft_f64 *y, weft_u32 ix)
{
	weft_f64 w, r, fn;
	int n, ex, ey;

	/* rint(x/(pi/2)) */
	fn = x * WEFT__MATH_INVPIO2 + 0x1.8p52 - 0x1.8p52;
	n = (weft_i32)fn;
	r = x - fn * WEFT__MATH_PIO2_1;
	w = fn * WEFT__MATH_PIO2_1T; /* 1st round, good to 85 bits */
	if (r - w < -WEFT__MATH_PIO4) {
		n--;
		fn--;
		r = x - fn * WEFT__MATH_PIO2_1;
		w = fn * WEFT__MATH_PIO2_1T;
	} else if (r - w > WEFT__MATH_PIO4) {
		n++;
		fn++;
		r = x - fn * WEFT__MATH_PIO2_1;
		w = fn * WEFT__MATH_PIO2_1T;
	}
	y[0] = r - w;
	ey = (int)(weft_f64_as_u64(y[0]) >> 52 & 0x7ff);
	ex = (int)(ix >> 20);
	if (ex - ey > 16) { /* 2nd round, good to 118 bits */
		w = weft__math_rem_pio2_round(&r, fn, WEFT__MATH_PIO2_2,
					      WEFT__MATH_PIO2_2T);
		y[0] = r - w;
		ey = (int)(weft_f64_as_u64(y[0]) >> 52 & 0x7ff);
		if (ex - ey > 49) { /* 3rd round, good to 151 bits */
			w = weft__math_rem_pio2_round(&r, fn, WEFT__MATH_PIO2_3,
						      WEFT__MATH_PIO2_3T);
			y[0] = r - w;
		}
	}
	y[1] = (r - y[0]) - w;
	return n;
}

/* musl's __rem_pio2 for finite |x| > pi/4: returns n, y[0] + y[1] = x -
 * n pi/2 with |y[0] + y[1]| <= pi/4 (to about 2^-60 relative). */
WEFT_FN int weft__math_rem_pio2(weft_f64 x, weft_f64 *y)
{
	weft_u64 u = weft_f64_as_u64(x);
	weft_f64 z, tx[3], ty[2];
	weft_u32 ix;
	int sign, n, i, medium = 0;

	sign = (int)(u >> 63);
	ix = (weft_u32)(u >> 32) & 0x7fffffff;
	if (ix <= 0x400f6a7a) {			 /* |x| ~<= 5pi/4 */
		if ((ix & 0xfffff) == 0x921fb) { /* |x| ~= pi/2 or 2pi/2 */
			medium = 1; /* cancellation: use the medium case */
		} else {
			n = ix <= 0x4002d97c ? 1 : 2; /* |x| ~<= 3pi/4 */
			weft__math_rem_pio2_k(x, y, n, sign);
			return sign ? -n : n;
		}
	} else if (ix <= 0x401c463b) { /* |x| ~<= 9pi/4 */
		if (ix == 0x4012d97c || ix == 0x401921fb) {
			medium = 1; /* |x| ~= 3pi/2 or 4pi/2 */
		} else {
			n = ix <= 0x4015fdbc ? 3 : 4; /* |x| ~<= 7pi/4 */
			weft__math_rem_pio2_k(x, y, n, sign);
			return sign ? -n : n;
		}
	}
	if (medium || ix < 0x413921fb) /* |x| ~< 2^20*(pi/2) */
		return weft__math_rem_pio2_medium(x, y, ix);
	/* all other (large) arguments: z = scalbn(|x|, -ilogb(x) + 23) */
	u &= 0x000fffffffffffff;
	u |= (weft_u64)(0x3ff + 23) << 52;
	z = weft_u64_as_f64(u);
	for (i = 0; i < 2; i++) {
		tx[i] = (weft_f64)(weft_i32)z;
		z = (z - tx[i]) * 0x1p24;
	}
	tx[i] = z;
	/* skip zero terms, first term is non-zero */
	while (tx[i] == 0.0)
		i--;
	n = weft__math_rem_pio2_large(tx, ty, (int)(ix >> 20) - (0x3ff + 23),
				      i + 1);
	if (sign) {
		y[0] = -ty[0];
		y[1] = -ty[1];
		return -n;
	}
	y[0] = ty[0];
	y[1] = ty[1];
	return n;
}

/* ---- sin, cos, tan kernels on [-pi/4, pi/4] ------------------------ */

/* sin(x + y), |y| tiny; iy = 0 means y is 0. */
WEFT_FN weft_f64 weft__math_ksin(weft_f64 x, weft_f64 y, int iy)
{
	weft_f64 z, r, v, w;

	z = x * x;
	w = z * z;
	r = 8.33333333332248946124e-03 +
	    z * (-1.98412698298579493134e-04 + z * 2.75573137070700676789e-06) +
	    z * w *
		    (-2.50507602534068634195e-08 +
		     z * 1.58969099521155010221e-10);
	v = z * x;
	if (iy == 0)
		return x + v * (-1.66666666666666324348e-01 + z * r);
	return x -
	       ((z * (0.5 * y - v * r) - y) - v * -1.66666666666666324348e-01);
}

/* cos(x + y), |y| tiny. */
WEFT_FN weft_f64 weft__math_kcos(weft_f64 x, weft_f64 y)
{
	weft_f64 hz, z, r, w;

	z = x * x;
	w = z * z;
	r = z * (4.16666666666666019037e-02 +
		 z * (-1.38888888888741095749e-03 +
		      z * 2.48015872894767294178e-05)) +
	    w * w *
		    (-2.75573143513906633035e-07 +
		     z * (2.08757232129817482790e-09 +
			  z * -1.13596475577881948265e-11));
	hz = 0.5 * z;
	w = 1.0 - hz;
	return w + (((1.0 - w) - hz) + (z * r - x * y));
}

WEFT_CONST weft_f64 weft__math_tan_t[13] = {
	3.33333333333334091986e-01, 1.33333333333201242699e-01,
	5.39682539762260521377e-02, 2.18694882948595424599e-02,
	8.86323982359930005737e-03, 3.59207910759131235356e-03,
	1.45620945432529025516e-03, 5.88041240820264096874e-04,
	2.46463134818469906812e-04, 7.81794442939557092300e-05,
	7.14072491382608190305e-05, -1.85586374855275456654e-05,
	2.59073051863633712884e-05,
};

/* tan(x + y) (odd = 0) or -1/tan(x + y) (odd = 1), |y| tiny. */
WEFT_FN weft_f64 weft__math_ktan(weft_f64 x, weft_f64 y, int odd)
{
	weft_f64 z, r, v, w, s, a, w0, a0;
	weft_u32 hx;
	int big, sign = 0;

	hx = weft__math_top32(x);
	big = (hx & 0x7fffffff) >= 0x3FE59428; /* |x| >= 0.6744 */
	if (big) {
		sign = (int)(hx >> 31);
		if (sign) {
			x = -x;
			y = -y;
		}
		x = (7.85398163397448278999e-01 - x) +
		    (3.06161699786838301793e-17 - y);
		y = 0.0;
	}
	z = x * x;
	w = z * z;
	r = weft__math_tan_t[1] +
	    w * (weft__math_tan_t[3] +
		 w * (weft__math_tan_t[5] +
		      w * (weft__math_tan_t[7] +
			   w * (weft__math_tan_t[9] +
				w * weft__math_tan_t[11]))));
	v = z * (weft__math_tan_t[2] +
		 w * (weft__math_tan_t[4] +
		      w * (weft__math_tan_t[6] +
			   w * (weft__math_tan_t[8] +
				w * (weft__math_tan_t[10] +
				     w * weft__math_tan_t[12])))));
	s = z * x;
	r = y + z * (s * (r + v) + y) + s * weft__math_tan_t[0];
	w = x + r;
	if (big) {
		s = 1 - 2 * odd;
		v = s - 2.0 * (x + (r - w * w / (w + s)));
		return sign ? -v : v;
	}
	if (!odd)
		return w;
	/* -1.0/(x+r) has up to 2ulp error, so compute it accurately */
	w0 = weft__math_clear_low(w);
	v = r - (w0 - x); /* w0+v = r+x */
	a = -1.0 / w;
	a0 = weft__math_clear_low(a);
	return a0 + a * (1.0 + a0 * w0 + a0 * v);
}

/* ---- sin, cos, tan, sincos ----------------------------------------- */

/* sin(y + n pi/2) from sn = sin(y) and cs = cos(y): cos(y + n pi/2) is
 * the same with n + 1. */
WEFT_FN weft_f64 weft__math_quadrant(weft_f64 sn, weft_f64 cs, int n)
{
	weft_f64 v = n & 1 ? cs : sn;

	return n & 2 ? -v : v;
}

/* sin(y[0] + y[1] + n pi/2), |y[1]| tiny: weft__math_quadrant with only
 * the kernel it needs. */
WEFT_FN weft_f64 weft__math_sin_quadrant(const weft_f64 *y, int n)
{
	weft_f64 v = n & 1 ? weft__math_kcos(y[0], y[1])
			   : weft__math_ksin(y[0], y[1], 1);

	return n & 2 ? -v : v;
}

WEFT_FN weft_f64 weft_sin(weft_f64 x)
{
	weft_f64 y[2];
	weft_u32 ix = weft__math_top32(x) & 0x7fffffff;
	int n;

	if (ix <= 0x3fe921fb) {	     /* |x| ~< pi/4 */
		if (ix < 0x3e500000) /* |x| < 2**-26 */
			return x;
		return weft__math_ksin(x, 0.0, 0);
	}
	if (ix >= 0x7ff00000) /* sin(Inf or NaN) is NaN */
		return weft__math_nan();
	n = weft__math_rem_pio2(x, y);
	return weft__math_sin_quadrant(y, n);
}

WEFT_FN weft_f64 weft_cos(weft_f64 x)
{
	weft_f64 y[2];
	weft_u32 ix = weft__math_top32(x) & 0x7fffffff;
	int n;

	if (ix <= 0x3fe921fb) {
		if (ix < 0x3e46a09e) /* |x| < 2**-27 * sqrt(2) */
			return 1.0;
		return weft__math_kcos(x, 0);
	}
	if (ix >= 0x7ff00000)
		return weft__math_nan();
	n = weft__math_rem_pio2(x, y);
	return weft__math_sin_quadrant(y, n + 1); /* cos(x) = sin(x + pi/2) */
}

WEFT_FN weft_f64 weft_tan(weft_f64 x)
{
	weft_f64 y[2];
	weft_u32 ix = weft__math_top32(x) & 0x7fffffff;
	int n;

	if (ix <= 0x3fe921fb) {
		if (ix < 0x3e400000) /* |x| < 2**-27 */
			return x;
		return weft__math_ktan(x, 0.0, 0);
	}
	if (ix >= 0x7ff00000)
		return weft__math_nan();
	n = weft__math_rem_pio2(x, y);
	return weft__math_ktan(y[0], y[1], n & 1);
}

/* *s = sin(x), *c = cos(x), sharing the argument reduction. */
WEFT_FN void weft_sincos(weft_f64 x, weft_f64 *s, weft_f64 *c)
{
	weft_f64 y[2], sn, cs;
	weft_u32 ix = weft__math_top32(x) & 0x7fffffff;
	int n;

	if (ix <= 0x3fe921fb) {
		if (ix < 0x3e46a09e) { /* |x| < 2**-27 * sqrt(2) */
			*s = x;
			*c = 1.0;
			return;
		}
		*s = weft__math_ksin(x, 0.0, 0);
		*c = weft__math_kcos(x, 0.0);
		return;
	}
	if (ix >= 0x7ff00000) {
		*s = weft__math_nan();
		*c = *s;
		return;
	}
	n = weft__math_rem_pio2(x, y);
	sn = weft__math_ksin(y[0], y[1], 1);
	cs = weft__math_kcos(y[0], y[1]);
	*s = weft__math_quadrant(sn, cs, n);
	*c = weft__math_quadrant(sn, cs, n + 1);
}

/* ---- asin, acos, atan, atan2 --------------------------------------- */

#define WEFT__MATH_PIO2_HI (1.57079632679489655800e+00)
#define WEFT__MATH_PIO2_LO (6.12323399573676603587e-17)

/* Rational approximation of (asin(x)-x)/x^3 in z = x^2. */
WEFT_FN weft_f64 weft__math_asin_r(weft_f64 z)
{
	weft_f64 p, q;

	p = z * (1.66666666666666657415e-01 +
		 z * (-3.25565818622400915405e-01 +
		      z * (2.01212532134862925881e-01 +
			   z * (-4.00555345006794114027e-02 +
				z * (7.91534994289814532176e-04 +
				     z * 3.47933107596021167570e-05)))));
	q = 1.0 + z * (-2.40339491173441421878e+00 +
		       z * (2.02094576023350569471e+00 +
			    z * (-6.88283971605453293030e-01 +
				 z * 7.70381505559019352791e-02)));
	return p / q;
}

WEFT_FN weft_f64 weft_asin(weft_f64 x)
{
	weft_f64 z, r, s, f, c;
	weft_u32 hx = weft__math_top32(x), ix = hx & 0x7fffffff;

	if (ix >= 0x3ff00000) { /* |x| >= 1 or nan */
		if (((ix - 0x3ff00000) | weft__math_low32(x)) == 0)
			return x * WEFT__MATH_PIO2_HI; /* asin(+-1) = +-pi/2 */
		return weft__math_nan();
	}
	if (ix < 0x3fe00000) { /* |x| < 0.5 */
		if (ix < 0x3e500000 && ix >= 0x00100000)
			return x;
		return x + x * weft__math_asin_r(x * x);
	}
	/* 1 > |x| >= 0.5 */
	z = (1 - weft_fabs(x)) * 0.5;
	s = WEFT_SQRT_F64(z);
	r = weft__math_asin_r(z);
	if (ix >= 0x3fef3333) { /* |x| > 0.975 */
		x = WEFT__MATH_PIO2_HI - (2 * (s + s * r) - WEFT__MATH_PIO2_LO);
	} else {
		/* f+c = sqrt(z) */
		f = weft__math_clear_low(s);
		c = (z - f * f) / (s + f);
		x = 0.5 * WEFT__MATH_PIO2_HI -
		    (2 * s * r - (WEFT__MATH_PIO2_LO - 2 * c) -
		     (0.5 * WEFT__MATH_PIO2_HI - 2 * f));
	}
	return hx >> 31 ? -x : x;
}

WEFT_FN weft_f64 weft_acos(weft_f64 x)
{
	weft_f64 z, w, s, c, df;
	weft_u32 hx = weft__math_top32(x), ix = hx & 0x7fffffff;

	if (ix >= 0x3ff00000) { /* |x| >= 1 or nan */
		if (((ix - 0x3ff00000) | weft__math_low32(x)) == 0)
			return hx >> 31 ? 2 * WEFT__MATH_PIO2_HI : 0.0;
		return weft__math_nan();
	}
	if (ix < 0x3fe00000) {	      /* |x| < 0.5 */
		if (ix <= 0x3c600000) /* |x| < 2**-57 */
			return WEFT__MATH_PIO2_HI;
		return WEFT__MATH_PIO2_HI -
		       (x -
			(WEFT__MATH_PIO2_LO - x * weft__math_asin_r(x * x)));
	}
	if (hx >> 31) { /* x < -0.5 */
		z = (1.0 + x) * 0.5;
		s = WEFT_SQRT_F64(z);
		w = weft__math_asin_r(z) * s - WEFT__MATH_PIO2_LO;
		return 2 * (WEFT__MATH_PIO2_HI - (s + w));
	}
	/* x > 0.5 */
	z = (1.0 - x) * 0.5;
	s = WEFT_SQRT_F64(z);
	df = weft__math_clear_low(s);
	c = (z - df * df) / (s + df);
	w = weft__math_asin_r(z) * s + c;
	return 2 * (df + w);
}

/* atan(0.5), atan(1), atan(1.5), atan(inf): high and low parts. */
WEFT_CONST weft_f64 weft__math_atanhi[4] = {
	4.63647609000806093515e-01,
	7.85398163397448278999e-01,
	9.82793723247329054082e-01,
	1.57079632679489655800e+00,
};

WEFT_CONST weft_f64 weft__math_atanlo[4] = {
	2.26987774529616870924e-17,
	3.06161699786838301793e-17,
	1.39033110312309984516e-17,
	6.12323399573676603587e-17,
};

WEFT_CONST weft_f64 weft__math_at[11] = {
	3.33333333333329318027e-01, -1.99999999998764832476e-01,
	1.42857142725034663711e-01, -1.11111104054623557880e-01,
	9.09088713343650656196e-02, -7.69187620504482999495e-02,
	6.66107313738753120669e-02, -5.83357013379057348645e-02,
	4.97687799461593236017e-02, -3.65315727442169155270e-02,
	1.62858201153657823623e-02,
};

/* atan(x + c) = hi + *lo before the last rounding, for c a correction
 * far below x's last bit (0 for atan(x)): musl's atan with c / (1 + x^2)
 * added; hi + *lo rounded is musl's atan(x) when c is 0. */
WEFT_FN weft_f64 weft__math_atan_hl(weft_f64 x, weft_f64 c, weft_f64 *lo)
{
	weft_f64 w, s1, s2, z, d = 0;
	weft_u32 ix = weft__math_top32(x), sign;
	int id;

	*lo = 0.0;
	if (c != 0)
		d = c / (1.0 + x * x);
	sign = ix >> 31;
	ix &= 0x7fffffff;
	if (ix >= 0x44100000) { /* |x| >= 2^66 */
		if (weft__math_isnan(x))
			return weft__math_nan();
		z = weft__math_atanhi[3];
		return sign ? -z : z;
	}
	if (ix < 0x3fdc0000) {	     /* |x| < 0.4375 */
		if (ix < 0x3e400000) /* |x| < 2^-27 */
			return x;
		id = -1;
	} else {
		x = weft_fabs(x);
		if (ix < 0x3ff30000) {	       /* |x| < 1.1875 */
			if (ix < 0x3fe60000) { /*  7/16 <= |x| < 11/16 */
				id = 0;
				x = (2.0 * x - 1.0) / (2.0 + x);
			} else { /* 11/16 <= |x| < 19/16 */
				id = 1;
				x = (x - 1.0) / (x + 1.0);
			}
		} else if (ix < 0x40038000) { /* |x| < 2.4375 */
			id = 2;
			x = (x - 1.5) / (1.0 + 1.5 * x);
		} else { /* 2.4375 <= |x| < 2^66 */
			id = 3;
			x = -1.0 / x;
		}
	}
	z = x * x;
	w = z * z;
	/* odd and even parts of sum aT[i] z^(i+1) */
	s1 = z *
	     (weft__math_at[0] +
	      w * (weft__math_at[2] +
		   w * (weft__math_at[4] +
			w * (weft__math_at[6] +
			     w * (weft__math_at[8] + w * weft__math_at[10])))));
	s2 = w * (weft__math_at[1] +
		  w * (weft__math_at[3] +
		       w * (weft__math_at[5] +
			    w * (weft__math_at[7] + w * weft__math_at[9]))));
	if (id < 0) {
		*lo = -(x * (s1 + s2) - d);
		return x;
	}
	z = -(x * (s1 + s2) - weft__math_atanlo[id] - d - x);
	*lo = sign ? -z : z;
	return sign ? -weft__math_atanhi[id] : weft__math_atanhi[id];
}

WEFT_FN weft_f64 weft_atan(weft_f64 x)
{
	weft_f64 lo, hi = weft__math_atan_hl(x, 0.0, &lo);

	return lo == 0 ? hi : hi + lo; /* atan(-0) is -0 */
}

/* hi + lo = x exactly, hi of 26 significant bits (Dekker's split). */
WEFT_FN void weft__math_split(weft_f64 x, weft_f64 *hi, weft_f64 *lo)
{
	weft_f64 c = x * (0x1p27 + 1);

	*hi = c - (c - x);
	*lo = x - *hi;
}

/* The rounding error of q = a / b (a, b > 0): a / b - q, to about 2^-100
 * relative, from Dekker's exact product q * b; 0 where the exponents leave
 * no room for it (q below 2^-400 or above 2^400). */
WEFT_FN weft_f64 weft__math_div_err(weft_f64 a, weft_f64 b, weft_f64 q)
{
	weft_u32 ea = weft__math_top32(a) >> 20, eb = weft__math_top32(b) >> 20;
	weft_u32 eq = weft__math_top32(q) >> 20;
	weft_f64 qh, ql, bh, bl, ph, pl;
	int k;

	if (ea - (0x3ff - 400) > 800 || eb - (0x3ff - 400) > 800) {
		/* b near 1, a and b scaled alike: the same q */
		k = 0x3ff - (int)eb;
		a = weft__math_scalbn(a, k);
		b = weft__math_scalbn(b, k);
		ea = weft__math_top32(a) >> 20;
		eb = weft__math_top32(b) >> 20;
	}
	if (ea - (0x3ff - 400) > 800 || eb - (0x3ff - 400) > 800 ||
	    eq - (0x3ff - 400) > 800)
		return 0.0;
	weft__math_split(q, &qh, &ql);
	weft__math_split(b, &bh, &bl);
	ph = q * b;
	pl = ((qh * bh - ph) + qh * bl + ql * bh) + ql * bl;
	return ((a - ph) - pl) / b;
}

#define WEFT__MATH_PI	 (3.1415926535897931160E+00)
#define WEFT__MATH_PI_LO (1.2246467991473531772E-16)

WEFT_FN weft_f64 weft_atan2(weft_f64 y, weft_f64 x)
{
	weft_f64 hi, lo, q, s, e;
	weft_u32 m, lx, ly, ix, iy;

	if (weft__math_isnan(x) || weft__math_isnan(y))
		return weft__math_nan();
	ix = weft__math_top32(x);
	lx = weft__math_low32(x);
	iy = weft__math_top32(y);
	ly = weft__math_low32(y);
	if (((ix - 0x3ff00000) | lx) == 0) /* x = 1.0 */
		return weft_atan(y);
	m = ((iy >> 31) & 1) | ((ix >> 30) & 2); /* 2*sign(x)+sign(y) */
	ix = ix & 0x7fffffff;
	iy = iy & 0x7fffffff;
	if ((iy | ly) == 0) { /* y = 0 */
		if (m < 2)
			return y; /* atan(+-0,+anything)=+-0 */
		return m == 2 ? WEFT__MATH_PI : -WEFT__MATH_PI;
	}
	if ((ix | lx) == 0) /* x = 0 */
		return m & 1 ? -WEFT__MATH_PI / 2 : WEFT__MATH_PI / 2;
	if (ix == 0x7ff00000) { /* x is INF */
		if (iy == 0x7ff00000) {
			switch (m) {
			case 0: return WEFT__MATH_PI / 4;
			case 1: return -WEFT__MATH_PI / 4;
			case 2: return 3 * WEFT__MATH_PI / 4;
			default: return -3 * WEFT__MATH_PI / 4;
			}
		}
		switch (m) {
		case 0: return 0.0;
		case 1: return -0.0;
		case 2: return WEFT__MATH_PI;
		default: return -WEFT__MATH_PI;
		}
	}
	/* |y/x| > 0x1p64 */
	if (ix + (64 << 20) < iy || iy == 0x7ff00000)
		return m & 1 ? -WEFT__MATH_PI / 2 : WEFT__MATH_PI / 2;
	/* hi + lo = atan(|y/x|), with the division's rounding error taken
	 * into account, and pi added before the last rounding (musl rounds
	 * atan(|y/x|) first, then adds pi) */
	if ((m & 2) && iy + (64 << 20) < ix) { /* |y/x| < 0x1p-64, x<0 */
		hi = 0;
		lo = 0;
	} else {
		q = weft_fabs(y / x);
		hi = weft__math_atan_hl(
			q, weft__math_div_err(weft_fabs(y), weft_fabs(x), q),
			&lo);
	}
	if (m < 2) { /* atan(+,+), atan(-,+) */
		hi = lo == 0 ? hi : hi + lo;
		return m ? -hi : hi;
	}
	/* pi - (hi + lo): s + e = pi - hi exactly (Fast2Sum) */
	s = WEFT__MATH_PI - hi;
	e = (WEFT__MATH_PI - s) - hi;
	s = s + ((e - lo) + WEFT__MATH_PI_LO);
	return m == 2 ? s : -s; /* atan(+,-), atan(-,-) */
}

/* ---- exp, exp2 (Arm's, table of 2^(i/128)) ------------------------- */

#define WEFT__MATH_EXP_INVLN2N	 (0x1.71547652b82fep+7)
#define WEFT__MATH_EXP_SHIFT	 (0x1.8p+52)
#define WEFT__MATH_EXP_NEGLN2HIN (-0x1.62e42fefap-8)
#define WEFT__MATH_EXP_NEGLN2LON (-0x1.cf79abc9e3b3ap-47)
#define WEFT__MATH_EXP2_SHIFT	 (0x1.8p+45)
#define WEFT__MATH_EXP_P0	 (0x1.ffffffffffdbdp-2)
#define WEFT__MATH_EXP_P1	 (0x1.555555555543cp-3)
#define WEFT__MATH_EXP_P2	 (0x1.55555cf172b91p-5)
#define WEFT__MATH_EXP_P3	 (0x1.1111167a4d017p-7)
#define WEFT__MATH_EXP2_P0	 (0x1.62e42fefa39efp-1)
#define WEFT__MATH_EXP2_P1	 (0x1.ebfbdff82c424p-3)
#define WEFT__MATH_EXP2_P2	 (0x1.c6b08d70cf4b5p-5)
#define WEFT__MATH_EXP2_P3	 (0x1.3b2abd24650ccp-7)
#define WEFT__MATH_EXP2_P4	 (0x1.5d7e09b4e3a84p-10)
WEFT_CONST weft_u64 weft__math_exp_tab[256] = {
	0x0000000000000000, 0x3ff0000000000000, 0x3c9b3b4f1a88bf6e,
	0x3feff63da9fb3335, 0xbc7160139cd8dc5d, 0x3fefec9a3e778061,
	0xbc905e7a108766d1, 0x3fefe315e86e7f85, 0x3c8cd2523567f613,
	0x3fefd9b0d3158574, 0xbc8bce8023f98efa, 0x3fefd06b29ddf6de,
	0x3c60f74e61e6c861, 0x3fefc74518759bc8, 0x3c90a3e45b33d399,
	0x3fefbe3ecac6f383, 0x3c979aa65d837b6d, 0x3fefb5586cf9890f,
	0x3c8eb51a92fdeffc, 0x3fefac922b7247f7, 0x3c3ebe3d702f9cd1,
	0x3fefa3ec32d3d1a2, 0xbc6a033489906e0b, 0x3fef9b66affed31b,
	0xbc9556522a2fbd0e, 0x3fef9301d0125b51, 0xbc5080ef8c4eea55,
	0x3fef8abdc06c31cc, 0xbc91c923b9d5f416, 0x3fef829aaea92de0,
	0x3c80d3e3e95c55af, 0x3fef7a98c8a58e51, 0xbc801b15eaa59348,
	0x3fef72b83c7d517b, 0xbc8f1ff055de323d, 0x3fef6af9388c8dea,
	0x3c8b898c3f1353bf, 0x3fef635beb6fcb75, 0xbc96d99c7611eb26,
	0x3fef5be084045cd4, 0x3c9aecf73e3a2f60, 0x3fef54873168b9aa,
	0xbc8fe782cb86389d, 0x3fef4d5022fcd91d, 0x3c8a6f4144a6c38d,
	0x3fef463b88628cd6, 0x3c807a05b0e4047d, 0x3fef3f49917ddc96,
	0x3c968efde3a8a894, 0x3fef387a6e756238, 0x3c875e18f274487d,
	0x3fef31ce4fb2a63f, 0x3c80472b981fe7f2, 0x3fef2b4565e27cdd,
	0xbc96b87b3f71085e, 0x3fef24dfe1f56381, 0x3c82f7e16d09ab31,
	0x3fef1e9df51fdee1, 0xbc3d219b1a6fbffa, 0x3fef187fd0dad990,
	0x3c8b3782720c0ab4, 0x3fef1285a6e4030b, 0x3c6e149289cecb8f,
	0x3fef0cafa93e2f56, 0x3c834d754db0abb6, 0x3fef06fe0a31b715,
	0x3c864201e2ac744c, 0x3fef0170fc4cd831, 0x3c8fdd395dd3f84a,
	0x3feefc08b26416ff, 0xbc86a3803b8e5b04, 0x3feef6c55f929ff1,
	0xbc924aedcc4b5068, 0x3feef1a7373aa9cb, 0xbc9907f81b512d8e,
	0x3feeecae6d05d866, 0xbc71d1e83e9436d2, 0x3feee7db34e59ff7,
	0xbc991919b3ce1b15, 0x3feee32dc313a8e5, 0x3c859f48a72a4c6d,
	0x3feedea64c123422, 0xbc9312607a28698a, 0x3feeda4504ac801c,
	0xbc58a78f4817895b, 0x3feed60a21f72e2a, 0xbc7c2c9b67499a1b,
	0x3feed1f5d950a897, 0x3c4363ed60c2ac11, 0x3feece086061892d,
	0x3c9666093b0664ef, 0x3feeca41ed1d0057, 0x3c6ecce1daa10379,
	0x3feec6a2b5c13cd0, 0x3c93ff8e3f0f1230, 0x3feec32af0d7d3de,
	0x3c7690cebb7aafb0, 0x3feebfdad5362a27, 0x3c931dbdeb54e077,
	0x3feebcb299fddd0d, 0xbc8f94340071a38e, 0x3feeb9b2769d2ca7,
	0xbc87deccdc93a349, 0x3feeb6daa2cf6642, 0xbc78dec6bd0f385f,
	0x3feeb42b569d4f82, 0xbc861246ec7b5cf6, 0x3feeb1a4ca5d920f,
	0x3c93350518fdd78e, 0x3feeaf4736b527da, 0x3c7b98b72f8a9b05,
	0x3feead12d497c7fd, 0x3c9063e1e21c5409, 0x3feeab07dd485429,
	0x3c34c7855019c6ea, 0x3feea9268a5946b7, 0x3c9432e62b64c035,
	0x3feea76f15ad2148, 0xbc8ce44a6199769f, 0x3feea5e1b976dc09,
	0xbc8c33c53bef4da8, 0x3feea47eb03a5585, 0xbc845378892be9ae,
	0x3feea34634ccc320, 0xbc93cedd78565858, 0x3feea23882552225,
	0x3c5710aa807e1964, 0x3feea155d44ca973, 0xbc93b3efbf5e2228,
	0x3feea09e667f3bcd, 0xbc6a12ad8734b982, 0x3feea012750bdabf,
	0xbc6367efb86da9ee, 0x3fee9fb23c651a2f, 0xbc80dc3d54e08851,
	0x3fee9f7df9519484, 0xbc781f647e5a3ecf, 0x3fee9f75e8ec5f74,
	0xbc86ee4ac08b7db0, 0x3fee9f9a48a58174, 0xbc8619321e55e68a,
	0x3fee9feb564267c9, 0x3c909ccb5e09d4d3, 0x3feea0694fde5d3f,
	0xbc7b32dcb94da51d, 0x3feea11473eb0187, 0x3c94ecfd5467c06b,
	0x3feea1ed0130c132, 0x3c65ebe1abd66c55, 0x3feea2f336cf4e62,
	0xbc88a1c52fb3cf42, 0x3feea427543e1a12, 0xbc9369b6f13b3734,
	0x3feea589994cce13, 0xbc805e843a19ff1e, 0x3feea71a4623c7ad,
	0xbc94d450d872576e, 0x3feea8d99b4492ed, 0x3c90ad675b0e8a00,
	0x3feeaac7d98a6699, 0x3c8db72fc1f0eab4, 0x3feeace5422aa0db,
	0xbc65b6609cc5e7ff, 0x3feeaf3216b5448c, 0x3c7bf68359f35f44,
	0x3feeb1ae99157736, 0xbc93091fa71e3d83, 0x3feeb45b0b91ffc6,
	0xbc5da9b88b6c1e29, 0x3feeb737b0cdc5e5, 0xbc6c23f97c90b959,
	0x3feeba44cbc8520f, 0xbc92434322f4f9aa, 0x3feebd829fde4e50,
	0xbc85ca6cd7668e4b, 0x3feec0f170ca07ba, 0x3c71affc2b91ce27,
	0x3feec49182a3f090, 0x3c6dd235e10a73bb, 0x3feec86319e32323,
	0xbc87c50422622263, 0x3feecc667b5de565, 0x3c8b1c86e3e231d5,
	0x3feed09bec4a2d33, 0xbc91bbd1d3bcbb15, 0x3feed503b23e255d,
	0x3c90cc319cee31d2, 0x3feed99e1330b358, 0x3c8469846e735ab3,
	0x3feede6b5579fdbf, 0xbc82dfcd978e9db4, 0x3feee36bbfd3f37a,
	0x3c8c1a7792cb3387, 0x3feee89f995ad3ad, 0xbc907b8f4ad1d9fa,
	0x3feeee07298db666, 0xbc55c3d956dcaeba, 0x3feef3a2b84f15fb,
	0xbc90a40e3da6f640, 0x3feef9728de5593a, 0xbc68d6f438ad9334,
	0x3feeff76f2fb5e47, 0xbc91eee26b588a35, 0x3fef05b030a1064a,
	0x3c74ffd70a5fddcd, 0x3fef0c1e904bc1d2, 0xbc91bdfbfa9298ac,
	0x3fef12c25bd71e09, 0x3c736eae30af0cb3, 0x3fef199bdd85529c,
	0x3c8ee3325c9ffd94, 0x3fef20ab5fffd07a, 0x3c84e08fd10959ac,
	0x3fef27f12e57d14b, 0x3c63cdaf384e1a67, 0x3fef2f6d9406e7b5,
	0x3c676b2c6c921968, 0x3fef3720dcef9069, 0xbc808a1883ccb5d2,
	0x3fef3f0b555dc3fa, 0xbc8fad5d3ffffa6f, 0x3fef472d4a07897c,
	0xbc900dae3875a949, 0x3fef4f87080d89f2, 0x3c74a385a63d07a7,
	0x3fef5818dcfba487, 0xbc82919e2040220f, 0x3fef60e316c98398,
	0x3c8e5a50d5c192ac, 0x3fef69e603db3285, 0x3c843a59ac016b4b,
	0x3fef7321f301b460, 0xbc82d52107b43e1f, 0x3fef7c97337b9b5f,
	0xbc892ab93b470dc9, 0x3fef864614f5a129, 0x3c74b604603a88d3,
	0x3fef902ee78b3ff6, 0x3c83c5ec519d7271, 0x3fef9a51fbc74c83,
	0xbc8ff7128fd391f0, 0x3fefa4afa2a490da, 0xbc8dae98e223747d,
	0x3fefaf482d8e67f1, 0x3c8ec3bc41aa2008, 0x3fefba1bee615a27,
	0x3c842b94c3a9eb32, 0x3fefc52b376bba97, 0x3c8a64a931d185ee,
	0x3fefd0765b6e4540, 0xbc8e37bae43be3ed, 0x3fefdbfdad9cbe14,
	0x3c77893b4d91cd9d, 0x3fefe7c1819e90d8, 0x3c5305c14160cc89,
	0x3feff3c22b8f71f1,
};
/* Top 12 bits of a double (sign and exponent bits). */
WEFT_FN weft_u32 weft__math_top12(weft_f64 x)
{
	return (weft_u32)(weft_f64_as_u64(x) >> 52);
}

/*
 * scale * (1 + tmp) where the exponent of scale (bits sbits, whose sign
 * is the result's: pow's may be negative) may be out of range:
 * (weft_i32)ki > 0 may overflow,
 * < 0 may underflow. shift is the exponent taken off before scaling back
 * (1009 for exp and pow, 1 for exp2). Rounds once in the subnormal range.
 */
WEFT_FN weft_f64 weft__math_exp_special(weft_f64 tmp, weft_u64 sbits,
					weft_u64 ki, int shift)
{
	weft_f64 scale, y, hi, lo, one;

	if ((ki & 0x80000000) == 0) {
		/* k > 0, the exponent of scale might have overflowed */
		sbits -= (weft_u64)shift << 52;
		scale = weft_u64_as_f64(sbits);
		y = scale + scale * tmp;
		return shift == 1 ? 2 * y : 0x1p1009 * y;
	}
	/* k < 0, need special care in the subnormal range */
	sbits += (weft_u64)1022 << 52;
	scale = weft_u64_as_f64(sbits);
	y = scale + scale * tmp;
	if (weft_fabs(y) < 1.0) {
		one = y < 0.0 ? -1.0 : 1.0;
		lo = scale - y + scale * tmp;
		hi = one + y;
		lo = one - hi + y + lo;
		y = (hi + lo) - one;
		/* Fix the sign of 0. */
		if (y == 0.0)
			y = weft_u64_as_f64(sbits & 0x8000000000000000);
	}
	return 0x1p-1022 * y;
}

/* x = k ln2/N + r (N = 128) with |r| <= ln2/2N: returns r, *ki the bits
 * whose low ones are k (exp's and pow's reduction). */
WEFT_FN weft_f64 weft__math_exp_reduce(weft_f64 x, weft_u64 *ki)
{
	weft_f64 z = WEFT__MATH_EXP_INVLN2N * x;
	weft_f64 kd = z + WEFT__MATH_EXP_SHIFT;

	*ki = weft_f64_as_u64(kd);
	kd -= WEFT__MATH_EXP_SHIFT;
	return x + kd * WEFT__MATH_EXP_NEGLN2HIN +
	       kd * WEFT__MATH_EXP_NEGLN2LON;
}

/* 2^(k/N) ~= scale * (1 + *tail), k the low bits of ki: returns scale's
 * bits, bias (pow's sign, 0x800 << 7, or 0) added to k first. This is
 * only a valid scale when -1023*N < k < 1024*N. */
WEFT_FN weft_u64 weft__math_exp_scale(weft_u64 ki, weft_u64 bias,
				      weft_f64 *tail)
{
	weft_u64 idx = 2 * (ki % 128);

	*tail = weft_u64_as_f64(weft__math_exp_tab[idx]);
	return weft__math_exp_tab[idx + 1] + ((ki + bias) << (52 - 7));
}

/* tail + exp(r) - 1, |r| <= ln2/2N (exp's and pow's polynomial):
 * 2^(k/N) exp(r) ~= scale + scale * the result. */
WEFT_FN weft_f64 weft__math_exp_poly(weft_f64 r, weft_f64 tail)
{
	weft_f64 r2 = r * r;

	return tail + r + r2 * (WEFT__MATH_EXP_P0 + r * WEFT__MATH_EXP_P1) +
	       r2 * r2 * (WEFT__MATH_EXP_P2 + r * WEFT__MATH_EXP_P3);
}

WEFT_FN weft_f64 weft_exp(weft_f64 x)
{
	weft_u32 abstop;
	weft_u64 ki, sbits;
	weft_f64 r, scale, tail, tmp;

	abstop = weft__math_top12(x) & 0x7ff;
	if (abstop - 0x3c9 >= 0x408 - 0x3c9) {
		if (abstop - 0x3c9 >= 0x80000000) /* |x| < 2^-54 */
			return 1.0 + x;
		if (abstop >= 0x409) { /* |x| >= 1024 */
			if (weft_f64_as_u64(x) == 0xfff0000000000000)
				return 0.0;
			if (abstop >= 0x7ff)
				return weft__math_canon(1.0 + x);
			if (weft_f64_as_u64(x) >> 63)
				return 0.0;
			return weft__math_inf(0);
		}
		/* Large x is special cased below. */
		abstop = 0;
	}
	/* exp(x) = 2^(k/N) * exp(r), with exp(r) in [2^(-1/2N),2^(1/2N)]. */
	/* x = ln2/N*k + r, with int k and r in [-ln2/2N, ln2/2N]. */
	r = weft__math_exp_reduce(x, &ki);
	sbits = weft__math_exp_scale(ki, 0, &tail);
	/* exp(x) = 2^(k/N) * exp(r) ~= scale + scale * (tail + exp(r) - 1). */
	tmp = weft__math_exp_poly(r, tail);
	if (abstop == 0)
		return weft__math_exp_special(tmp, sbits, ki, 1009);
	scale = weft_u64_as_f64(sbits);
	return scale + scale * tmp;
}

WEFT_FN weft_f64 weft_exp2(weft_f64 x)
{
	weft_u32 abstop;
	weft_u64 ki, sbits;
	weft_f64 kd, r, r2, scale, tail, tmp;

	abstop = weft__math_top12(x) & 0x7ff;
	if (abstop - 0x3c9 >= 0x408 - 0x3c9) {
		if (abstop - 0x3c9 >= 0x80000000) /* |x| < 2^-54 */
			return 1.0 + x;
		if (abstop >= 0x409) { /* |x| >= 1024 */
			if (weft_f64_as_u64(x) == 0xfff0000000000000)
				return 0.0;
			if (abstop >= 0x7ff)
				return weft__math_canon(1.0 + x);
			if (!(weft_f64_as_u64(x) >> 63))
				return weft__math_inf(0);
			if (weft_f64_as_u64(x) >= weft_f64_as_u64(-1075.0))
				return 0.0;
		}
		if (2 * weft_f64_as_u64(x) > 2 * weft_f64_as_u64(928.0))
			/* Large x is special cased below. */
			abstop = 0;
	}
	/* exp2(x) = 2^(k/N) * 2^r, with 2^r in [2^(-1/2N),2^(1/2N)]. */
	/* x = k/N + r, with int k and r in [-1/2N, 1/2N]. */
	kd = x + WEFT__MATH_EXP2_SHIFT;
	ki = weft_f64_as_u64(kd);    /* k */
	kd -= WEFT__MATH_EXP2_SHIFT; /* k/N for int k */
	r = x - kd;
	sbits = weft__math_exp_scale(ki, 0, &tail);
	r2 = r * r;
	tmp = tail + r * WEFT__MATH_EXP2_P0 +
	      r2 * (WEFT__MATH_EXP2_P1 + r * WEFT__MATH_EXP2_P2) +
	      r2 * r2 * (WEFT__MATH_EXP2_P3 + r * WEFT__MATH_EXP2_P4);
	if (abstop == 0)
		return weft__math_exp_special(tmp, sbits, ki, 1);
	scale = weft_u64_as_f64(sbits);
	return scale + scale * tmp;
}

/* ---- expm1 and tanh (fdlibm) --------------------------------------- */

/* musl's expm1 up to its last step, for 2^-54 <= |x| < 56 ln2: returns
 * k with expm1(x) = r - (r * e - *h) when k is 0, and
 * 2^k (r - e + 1) - 1 otherwise (r in *r, e in *e). */
WEFT_FN int weft__math_expm1_k(weft_f64 x, weft_f64 *r, weft_f64 *e,
			       weft_f64 *h)
{
	weft_f64 hi, lo, c = 0, t, hfx, hxs, r1;
	weft_u64 u = weft_f64_as_u64(x);
	weft_u32 hx = (weft_u32)(u >> 32) & 0x7fffffff;
	int k, sign = (int)(u >> 63);

	/* argument reduction */
	if (hx > 0x3fd62e42) {	       /* |x| > 0.5 ln2 */
		if (hx < 0x3FF0A2B2) { /* and |x| < 1.5 ln2 */
			if (!sign) {
				hi = x - 6.93147180369123816490e-01;
				lo = 1.90821492927058770002e-10;
				k = 1;
			} else {
				hi = x + 6.93147180369123816490e-01;
				lo = -1.90821492927058770002e-10;
				k = -1;
			}
		} else {
			k = (int)(1.44269504088896338700e+00 * x +
				  (sign ? -0.5 : 0.5));
			t = k;
			hi = x - t * 6.93147180369123816490e-01; /* exact */
			lo = t * 1.90821492927058770002e-10;
		}
		x = hi - lo;
		c = (hi - x) - lo;
	} else {
		k = 0;
	}
	/* x is now in primary range */
	hfx = 0.5 * x;
	hxs = x * hfx;
	r1 = 1.0 +
	     hxs * (-3.33333333333331316428e-02 +
		    hxs * (1.58730158725481460165e-03 +
			   hxs * (-7.93650757867487942473e-05 +
				  hxs * (4.00821782732936239552e-06 +
					 hxs * -2.01099218183624371326e-07))));
	t = 3.0 - r1 * hfx;
	*e = hxs * ((r1 - t) / (6.0 - x * t));
	*r = x;
	*h = hxs;
	if (k != 0) {
		*e = x * (*e - c) - c;
		*e -= hxs;
	}
	return k;
}

WEFT_FN weft_f64 weft_expm1(weft_f64 x)
{
	weft_f64 y, t, e, hxs, twopk;
	weft_u64 u = weft_f64_as_u64(x);
	weft_u32 hx = (weft_u32)(u >> 32) & 0x7fffffff;
	int k, sign = (int)(u >> 63);

	/* filter out huge and non-finite argument */
	if (hx >= 0x4043687A) { /* |x| >= 56*ln2 */
		if (weft__math_isnan(x))
			return weft__math_nan();
		if (sign)
			return -1;
		if (x > 7.09782712893383973096e+02)
			return weft__math_inf(0);
	}
	if (hx < 0x3c900000) /* |x| < 2**-54, return x */
		return x;
	k = weft__math_expm1_k(x, &x, &e, &hxs);
	if (k == 0)
		return x - (x * e - hxs);
	/* exp(x) ~ 2^k (x_reduced - e + 1) */
	if (k == -1)
		return 0.5 * (x - e) - 0.5;
	if (k == 1) {
		if (x < -0.25)
			return -2.0 * (e - (x + 0.5));
		return 1.0 + 2.0 * (x - e);
	}
	twopk = weft_u64_as_f64((weft_u64)(0x3ff + k) << 52); /* 2^k */
	if (k < 0 || k > 56) { /* suffice to return exp(x)-1 */
		y = x - e + 1.0;
		if (k == 1024)
			y = y * 2.0 * 0x1p1023;
		else
			y = y * twopk;
		return y - 1.0;
	}
	t = weft_u64_as_f64((weft_u64)(0x3ff - k) << 52); /* 2^-k */
	if (k < 20)
		y = (x - e + (1 - t)) * twopk;
	else
		y = (x - (e + t) + 1) * twopk;
	return y;
}

/* s + *err = a + b exactly (Knuth's TwoSum). */
WEFT_FN weft_f64 weft__math_two_sum(weft_f64 a, weft_f64 b, weft_f64 *err)
{
	weft_f64 s = a + b, bb = s - a;

	*err = (a - (s - bb)) + (b - bb);
	return s;
}

/* hi + *lo = expm1(x) to about 2^-60 relative, for 2^-26 <= |x| <= 40
 * (tanh's arguments): musl's expm1 with its last additions exact. */
WEFT_FN weft_f64 weft__math_expm1_hl(weft_f64 x, weft_f64 *lo)
{
	weft_f64 r, e, h, s, se, s2, se2, scale;
	int k = weft__math_expm1_k(x, &r, &e, &h);

	if (k == 0) { /* r - (r * e - h), r the larger part */
		*lo = -(r * e - h);
		s = r + *lo;
		*lo = (r - s) + *lo;
		return s;
	}
	/* 2^k (r - e + (1 - 2^-k)), 1 - 2^-k exact for k <= 53 */
	scale = weft_u64_as_f64((weft_u64)(0x3ff + k) << 52);
	s = weft__math_two_sum(r, -e, &se);
	s2 = weft__math_two_sum(
		s, 1.0 - weft_u64_as_f64((weft_u64)(0x3ff - k) << 52), &se2);
	*lo = (se2 + se) * scale;
	return s2 * scale;
}

/* q + *r = (nh + nl) / (dh + dl) to about 2^-100 relative (the
 * remainder from Dekker's exact product q * dh), for dh from 1 to 2^60
 * and |nl| << |nh|, |dl| << |dh|. */
WEFT_FN weft_f64 weft__math_div_hl(weft_f64 nh, weft_f64 nl, weft_f64 dh,
				   weft_f64 dl, weft_f64 *r)
{
	weft_f64 q = nh / dh, qh, ql, bh, bl, ph, pl;

	weft__math_split(q, &qh, &ql);
	weft__math_split(dh, &bh, &bl);
	ph = q * dh;
	pl = ((qh * bh - ph) + qh * bl + ql * bh) + ql * bl;
	*r = (((nh - ph) - pl) + nl - q * dl) / dh;
	return q;
}

WEFT_FN weft_f64 weft_tanh(weft_f64 x)
{
	weft_u64 u = weft_f64_as_u64(x);
	weft_u32 w;
	int sign = (int)(u >> 63);
	weft_f64 t, tl, dh, dl, q, r, e;

	/* x = |x| */
	u &= 0x7fffffffffffffff;
	x = weft_u64_as_f64(u);
	w = (weft_u32)(u >> 32);
	if (w > 0x40340000) {
		/* |x| > 20 or nan */
		if (w >= 0x7ff00000 && weft__math_isnan(x))
			return weft__math_nan();
		t = 1.0;
	} else if (w > 0x3fe193ea) {
		/* |x| > log(3)/2 ~= 0.5493: 1 - 2 / (t + 2), t = expm1(2x),
		 * with t + 2 and the quotient to twice the precision */
		t = weft__math_expm1_hl(2 * x, &tl);
		dh = t + 2;
		dl = (t - dh) + 2 + tl;
		q = weft__math_div_hl(2, 0, dh, dl, &r);
		t = 1 - q;
		e = (1 - t) - q;
		t = t + (e - r);
	} else if (w >= 0x3e400000) {
		/* |x| >= 2^-27: t / (t + 2), t = expm1(2x), the same way
		 * (musl rounds t, t + 2 and the quotient: up to 2 ulp) */
		t = weft__math_expm1_hl(2 * x, &tl);
		dh = t + 2;
		dl = (2 - dh) + t + tl;
		q = weft__math_div_hl(t, tl, dh, dl, &r);
		t = q + r;
	} else {
		/* |x| < 2^-27: tanh(x) = x (1 - x^2/3 + ...) rounds to x */
		t = x;
	}
	return sign ? -t : t;
}

/* ---- log, log2 (Arm's) --------------------------------------------- */

#define WEFT__MATH_LOG_LN2HI (0x1.62e42fefa38p-1)
#define WEFT__MATH_LOG_LN2LO (0x1.ef35793c7673p-45)
#define WEFT__MATH_LOG_A0    (-0x1.0000000000001p-1)
#define WEFT__MATH_LOG_A1    (0x1.555555551305bp-2)
#define WEFT__MATH_LOG_A2    (-0x1.fffffffeb459p-3)
#define WEFT__MATH_LOG_A3    (0x1.999b324f10111p-3)
#define WEFT__MATH_LOG_A4    (-0x1.55575e506c89fp-3)
#define WEFT__MATH_LOG_B0    (-0x1p-1)
#define WEFT__MATH_LOG_B1    (0x1.5555555555577p-2)
#define WEFT__MATH_LOG_B2    (-0x1.ffffffffffdcbp-3)
#define WEFT__MATH_LOG_B3    (0x1.999999995dd0cp-3)
#define WEFT__MATH_LOG_B4    (-0x1.55555556745a7p-3)
#define WEFT__MATH_LOG_B5    (0x1.24924a344de3p-3)
#define WEFT__MATH_LOG_B6    (-0x1.fffffa4423d65p-4)
#define WEFT__MATH_LOG_B7    (0x1.c7184282ad6cap-4)
#define WEFT__MATH_LOG_B8    (-0x1.999eb43b068ffp-4)
#define WEFT__MATH_LOG_B9    (0x1.78182f7afd085p-4)
#define WEFT__MATH_LOG_B10   (-0x1.5521375d145cdp-4)
WEFT_CONST weft_f64 weft__math_log_invc[128] = {
	0x1.734f0c3e0de9fp+0, 0x1.713786a2ce91fp+0, 0x1.6f26008fab5ap+0,
	0x1.6d1a61f138c7dp+0, 0x1.6b1490bc5b4d1p+0, 0x1.69147332f0cbap+0,
	0x1.6719f18224223p+0, 0x1.6524f99a51ed9p+0, 0x1.63356aa8f24c4p+0,
	0x1.614b36b9ddc14p+0, 0x1.5f66452c65c4cp+0, 0x1.5d867b5912c4fp+0,
	0x1.5babccb5b90dep+0, 0x1.59d61f2d91a78p+0, 0x1.5805612465687p+0,
	0x1.56397cee76bd3p+0, 0x1.54725e2a77f93p+0, 0x1.52aff42064583p+0,
	0x1.50f22dbb2bddfp+0, 0x1.4f38f4734ded7p+0, 0x1.4d843cfde284p+0,
	0x1.4bd3ec078a3c8p+0, 0x1.4a27fc3e0258ap+0, 0x1.4880524d48434p+0,
	0x1.46dce1b192d0bp+0, 0x1.453d9d3391854p+0, 0x1.43a2744b4845ap+0,
	0x1.420b54115f8fbp+0, 0x1.40782da3ef4b1p+0, 0x1.3ee8f5d57fe8fp+0,
	0x1.3d5d9a00b4ce9p+0, 0x1.3bd60c010c12bp+0, 0x1.3a5242b75dab8p+0,
	0x1.38d22cd9fd002p+0, 0x1.3755bc5847a1cp+0, 0x1.35dce49ad36e2p+0,
	0x1.34679984dd44p+0,  0x1.32f5cceffcb24p+0, 0x1.3187775a10d49p+0,
	0x1.301c8373e399p+0,  0x1.2eb4ebb95f841p+0, 0x1.2d50a0219a9d1p+0,
	0x1.2bef9a8b7fd2ap+0, 0x1.2a91c7a0c1babp+0, 0x1.293726014b53p+0,
	0x1.27dfa5757a1f5p+0, 0x1.268b39b1d3bbfp+0, 0x1.2539d838ff5bdp+0,
	0x1.23eb7aac9083bp+0, 0x1.22a012ba940b6p+0, 0x1.2157996cc4132p+0,
	0x1.201201dd2fc9bp+0, 0x1.1ecf4494d480bp+0, 0x1.1d8f5528f6569p+0,
	0x1.1c52311577e7cp+0, 0x1.1b17c74cb26e9p+0, 0x1.19e010c2c1ab6p+0,
	0x1.18ab07bb670bdp+0, 0x1.1778a25efbcb6p+0, 0x1.1648d354c31dap+0,
	0x1.151b990275fddp+0, 0x1.13f0ea432d24cp+0, 0x1.12c8b7210f9dap+0,
	0x1.11a3028ecb531p+0, 0x1.107fbda8434afp+0, 0x1.0f5ee0f4e6bb3p+0,
	0x1.0e4065d2a9fcep+0, 0x1.0d244632ca521p+0, 0x1.0c0a77ce2981ap+0,
	0x1.0af2f83c636d1p+0, 0x1.09ddb98a01339p+0, 0x1.08cabaf52e7dfp+0,
	0x1.07b9f2f4e28fbp+0, 0x1.06ab58c358f19p+0, 0x1.059eea5ecf92cp+0,
	0x1.04949cdd12c9p+0,  0x1.038c6c6f0ada9p+0, 0x1.02865137932a9p+0,
	0x1.0182427ea7348p+0, 0x1.008040614b195p+0, 0x1.fe01ff726fa1ap-1,
	0x1.fa11cc261ea74p-1, 0x1.f6310b081992ep-1, 0x1.f25f63ceeadcdp-1,
	0x1.ee9c8039113e7p-1, 0x1.eae8078cbb1abp-1, 0x1.e741aa29d0c9bp-1,
	0x1.e3a91830a99b5p-1, 0x1.e01e009609a56p-1, 0x1.dca01e577bb98p-1,
	0x1.d92f20b7c9103p-1, 0x1.d5cac66fb5ccep-1, 0x1.d272caa5ede9dp-1,
	0x1.cf26e3e6b2ccdp-1, 0x1.cbe6da2a77902p-1, 0x1.c8b266d37086dp-1,
	0x1.c5894bd5d5804p-1, 0x1.c26b533bb9f8cp-1, 0x1.bf583eeece73fp-1,
	0x1.bc4fd75db96c1p-1, 0x1.b951e0c864a28p-1, 0x1.b65e2c5ef3e2cp-1,
	0x1.b374867c9888bp-1, 0x1.b094b211d304ap-1, 0x1.adbe885f2ef7ep-1,
	0x1.aaf1d31603da2p-1, 0x1.a82e63fd358a7p-1, 0x1.a5740ef09738bp-1,
	0x1.a2c2a90ab4b27p-1, 0x1.a01a01393f2d1p-1, 0x1.9d79f24db3c1bp-1,
	0x1.9ae2505c7b19p-1,  0x1.9852ef297ce2fp-1, 0x1.95cbaeea44b75p-1,
	0x1.934c69de74838p-1, 0x1.90d4f2f6752e6p-1, 0x1.8e6528effd79dp-1,
	0x1.8bfce9fcc007cp-1, 0x1.899c0dabec30ep-1, 0x1.87427aa2317fbp-1,
	0x1.84f00acb39a08p-1, 0x1.82a49e8653e55p-1, 0x1.8060195f4026p-1,
	0x1.7e22563e0a329p-1, 0x1.7beb377dcb5adp-1, 0x1.79baa679725c2p-1,
	0x1.77907f2170657p-1, 0x1.756cadbd6130cp-1,
};
WEFT_CONST weft_f64 weft__math_log_logc[128] = {
	-0x1.7cc7f79e69p-2,  -0x1.76feec20dp-2,	  -0x1.713e31351ep-2,
	-0x1.6b85b382878p-2, -0x1.65d55908078p-2, -0x1.602d07618p-2,
	-0x1.5a8ca86909p-2,  -0x1.54f4356035p-2,  -0x1.4f637c36b4p-2,
	-0x1.49da7fda85p-2,  -0x1.445923989a8p-2, -0x1.3edf439b0b8p-2,
	-0x1.396ce448f7p-2,  -0x1.3401e17bdap-2,  -0x1.2e9e2ef468p-2,
	-0x1.2941b3830ep-2,  -0x1.23ec58cda88p-2, -0x1.1e9e129279p-2,
	-0x1.1956d2b48f8p-2, -0x1.141679ab9f8p-2, -0x1.0edd094ef98p-2,
	-0x1.09aa518db1p-2,  -0x1.047e65263b8p-2, -0x1.feb224586fp-3,
	-0x1.f474a7517bp-3,  -0x1.ea4443d103p-3,  -0x1.e020d44e9bp-3,
	-0x1.d60a22977fp-3,  -0x1.cc00104959p-3,  -0x1.c202956891p-3,
	-0x1.b81178d811p-3,  -0x1.ae2c9ccd3dp-3,  -0x1.a45402e129p-3,
	-0x1.9a877681dfp-3,  -0x1.90c6d69483p-3,  -0x1.87120a645cp-3,
	-0x1.7d68fb4143p-3,  -0x1.73cb83c627p-3,  -0x1.6a39a9b376p-3,
	-0x1.60b3154b7ap-3,  -0x1.5737d76243p-3,  -0x1.4dc7b8fc23p-3,
	-0x1.4462c51d2p-3,   -0x1.3b08abc83p-3,	  -0x1.31b996b49p-3,
	-0x1.2875490a44p-3,  -0x1.1f3b9f879ap-3,  -0x1.160c8252cap-3,
	-0x1.0ce7f57f72p-3,  -0x1.03cdc49feap-3,  -0x1.f57bdbc4b8p-4,
	-0x1.e370896404p-4,  -0x1.d17983ef94p-4,  -0x1.bf9674ed8ap-4,
	-0x1.adc79202f6p-4,  -0x1.9c0c3e7288p-4,  -0x1.8a646b372cp-4,
	-0x1.78d01b3acp-4,   -0x1.674f14538p-4,	  -0x1.55e0e6d878p-4,
	-0x1.4485cdea1ep-4,  -0x1.333d94d6aap-4,  -0x1.22079f8c56p-4,
	-0x1.10e4698622p-4,  -0x1.ffa6c6ad2p-5,	  -0x1.dda8d4a774p-5,
	-0x1.bbcece485p-5,   -0x1.9a1894012cp-5,  -0x1.788583302cp-5,
	-0x1.5715e67d68p-5,  -0x1.35c8a49658p-5,  -0x1.149e364154p-5,
	-0x1.e72c082eb8p-6,  -0x1.a55f152528p-6,  -0x1.63d62cf818p-6,
	-0x1.228fb8caap-6,   -0x1.c317b20f9p-7,	  -0x1.419355daap-7,
	-0x1.81203c2ecp-8,   -0x1.004097924p-9,	  0x1.feff3849p-9,
	0x1.7dc41353dp-7,    0x1.3cea3c4c28p-6,	  0x1.b9fc11489p-6,
	0x1.1b0d8ce11p-5,    0x1.58a5bd001cp-5,	  0x1.95c8340d88p-5,
	0x1.d276aef578p-5,   0x1.07598e598cp-4,	  0x1.253f5e30d2p-4,
	0x1.42edd8b38p-4,    0x1.606598757cp-4,	  0x1.7da76356ap-4,
	0x1.9ab434e1c6p-4,   0x1.b78c7bb0d6p-4,	  0x1.d431332e72p-4,
	0x1.f0a3171de6p-4,   0x1.067152b914p-3,	  0x1.147858292bp-3,
	0x1.2266ecdca3p-3,   0x1.303d7a6c55p-3,	  0x1.3dfc33c331p-3,
	0x1.4ba366b7a8p-3,   0x1.5933928d1fp-3,	  0x1.66acd2418fp-3,
	0x1.740f8ec669p-3,   0x1.815c0f51afp-3,	  0x1.8e92954f68p-3,
	0x1.9bb3602f84p-3,   0x1.a8bed1c2cp-3,	  0x1.b5b515c01dp-3,
	0x1.c2967ccbccp-3,   0x1.cf635d5486p-3,	  0x1.dc1bd3446cp-3,
	0x1.e8c01b8cfep-3,   0x1.f5509c0179p-3,	  0x1.00e6c121fb8p-2,
	0x1.071b80e93dp-2,   0x1.0d46b9e867p-2,	  0x1.13687334bdp-2,
	0x1.1980d672348p-2,  0x1.1f8ffe0cc8p-2,	  0x1.2595fd76368p-2,
	0x1.2b9300914a8p-2,  0x1.3187210436p-2,	  0x1.377266dec18p-2,
	0x1.3d54ffbaf3p-2,   0x1.432eee32fep-2,
};
WEFT_CONST weft_f64 weft__math_log_chi[128] = {
	0x1.61000014fb66bp-1, 0x1.63000034db495p-1, 0x1.650000d94d478p-1,
	0x1.67000074e6fadp-1, 0x1.68ffffedf0faep-1, 0x1.6b0000763c5bcp-1,
	0x1.6d0001e5cc1f6p-1, 0x1.6efffeb05f63ep-1, 0x1.710000e86978p-1,
	0x1.72ffffc67e912p-1, 0x1.74fffdf81116ap-1, 0x1.770000f679c9p-1,
	0x1.78ffffa7ec835p-1, 0x1.7affffe20c2e6p-1, 0x1.7cfffed3fc9p-1,
	0x1.7efffe9261a76p-1, 0x1.81000049ca3e8p-1, 0x1.8300017932c8fp-1,
	0x1.850000633739cp-1, 0x1.87000204289c6p-1, 0x1.88fffebf57904p-1,
	0x1.8b00022bc04dfp-1, 0x1.8cfffe50c1b8ap-1, 0x1.8effffc918e43p-1,
	0x1.910001efa5fc7p-1, 0x1.9300013467bb9p-1, 0x1.94fffe6ee076fp-1,
	0x1.96fffde3c12d1p-1, 0x1.98ffff4458a0dp-1, 0x1.9afffdd982e3ep-1,
	0x1.9cfffed49fb66p-1, 0x1.9f00020f19c51p-1, 0x1.a10001145b006p-1,
	0x1.a300007bbf6fap-1, 0x1.a500010971d79p-1, 0x1.a70001df52e48p-1,
	0x1.a90001c593352p-1, 0x1.ab0002a4f3e4bp-1, 0x1.acfffd7ae1ed1p-1,
	0x1.aefffee510478p-1, 0x1.b0fffdb650d5bp-1, 0x1.b2ffffeaaca57p-1,
	0x1.b4fffd995badcp-1, 0x1.b7000249e659cp-1, 0x1.b8ffff987164p-1,
	0x1.bafffd204cb4fp-1, 0x1.bcfffd2415c45p-1, 0x1.beffff86309dfp-1,
	0x1.c0fffe1b57653p-1, 0x1.c2ffff1fa57e3p-1, 0x1.c4fffdcbfe424p-1,
	0x1.c6fffed54b9f7p-1, 0x1.c8fffeb998fd5p-1, 0x1.cb0002125219ap-1,
	0x1.ccfffdd94469cp-1, 0x1.cefffeafdc476p-1, 0x1.d1000169af82bp-1,
	0x1.d30000d0ff71dp-1, 0x1.d4fffea790fc4p-1, 0x1.d70002edc87e5p-1,
	0x1.d900021dc82aap-1, 0x1.dafffd86b0283p-1, 0x1.dd000296c4739p-1,
	0x1.defffe54490f5p-1, 0x1.e0fffcdabf694p-1, 0x1.e2fffdb52c8ddp-1,
	0x1.e4ffff24216efp-1, 0x1.e6fffe88a5e11p-1, 0x1.e9000119eff0dp-1,
	0x1.eafffdfa51744p-1, 0x1.ed0001a127fa1p-1, 0x1.ef00007babcc4p-1,
	0x1.f0ffff57a8d02p-1, 0x1.f30001ee58ac7p-1, 0x1.f4ffff5823494p-1,
	0x1.f6ffffca94c6bp-1, 0x1.f8fffe1f9c441p-1, 0x1.fafffd2e0e37ep-1,
	0x1.fd0001c77e49ep-1, 0x1.feffff7e0c331p-1, 0x1.00ffff465606ep+0,
	0x1.02ffff3867a58p+0, 0x1.04ffffdfc0d17p+0, 0x1.0700003cd4d82p+0,
	0x1.08ffff9f2cbe8p+0, 0x1.0b000010cda65p+0, 0x1.0d00001a4d338p+0,
	0x1.0effffadafdfdp+0, 0x1.110000bbafd96p+0, 0x1.12ffffae5f45dp+0,
	0x1.150000dd59ad9p+0, 0x1.170000f21559ap+0, 0x1.18ffffc275426p+0,
	0x1.1b000123d3c59p+0, 0x1.1cffff8299eb7p+0, 0x1.1effff48ad4p+0,
	0x1.210000c8b86a4p+0, 0x1.2300003854303p+0, 0x1.24fffffbcf684p+0,
	0x1.26ffff52921d9p+0, 0x1.2900014933a3cp+0, 0x1.2b00014556313p+0,
	0x1.2cfffebfe523bp+0, 0x1.2f0000bb8ad96p+0, 0x1.30ffffb7ae2afp+0,
	0x1.32ffffeac5f7fp+0, 0x1.350000ca66756p+0, 0x1.3700011fbf721p+0,
	0x1.38ffff9592fb9p+0, 0x1.3b00004ddd242p+0, 0x1.3cffff5b2c957p+0,
	0x1.3efffeab0b418p+0, 0x1.410001532aff4p+0, 0x1.4300017478b29p+0,
	0x1.44fffe795b463p+0, 0x1.46fffe80475ep+0,  0x1.48fffef6fc1e7p+0,
	0x1.4afffe5bea704p+0, 0x1.4d000171027dep+0, 0x1.4f0000ff03ee2p+0,
	0x1.5100012dc4bd1p+0, 0x1.530001605277ap+0, 0x1.54fffecdb704cp+0,
	0x1.56fffef5f54a9p+0, 0x1.5900017e61012p+0, 0x1.5b00003c93e92p+0,
	0x1.5d0001d4919bcp+0, 0x1.5efffe7b87a89p+0,
};
WEFT_CONST weft_f64 weft__math_log_clo[128] = {
	0x1.e026c91425b3cp-56,	0x1.dbfea48005d41p-55,	0x1.e7fa786d6a5b7p-55,
	0x1.1fcea6b54254cp-57,	-0x1.c7e274c590efdp-56, -0x1.ac16848dcda01p-55,
	0x1.33f1c9d499311p-55,	-0x1.e80041ae22d53p-56, 0x1.bff6671097952p-56,
	0x1.c00e226bd8724p-55,	-0x1.e02916ef101d2p-57, -0x1.7fc71cd549c74p-57,
	0x1.1bec19ef50483p-55,	-0x1.07e1729cc6465p-56, -0x1.08072087b8b1cp-55,
	0x1.dc0286d9df9aep-55,	0x1.97fd251e54c33p-55,	-0x1.afee9b630f381p-55,
	0x1.9bfbf6b6535bcp-55,	-0x1.bbf65f3117b75p-55, -0x1.9006ea23dcb57p-55,
	-0x1.d00df38e04b0ap-56, -0x1.8007146ff9f05p-55, 0x1.3817bd07a7038p-55,
	0x1.93e9176dfb403p-55,	0x1.f804e4b980276p-56,	-0x1.f7ef0d9ff622ep-55,
	-0x1.082aa962638bap-56, -0x1.7801b9164a8efp-55, -0x1.740e08a5a9337p-55,
	0x1.fce08c19bep-60,	-0x1.a3faa27885b0ap-55, 0x1.4ff489958da56p-56,
	0x1.cbeab8a2b6d18p-55,	0x1.8fecadd78793p-55,	-0x1.f41763dd8abdbp-55,
	-0x1.ebf0284c27612p-55, -0x1.9fd043cff3f5fp-57, -0x1.23ee7129070b4p-55,
	0x1.a063ee00edea3p-57,	0x1.a06c8381f0ab9p-58,	-0x1.9011e74233c1dp-56,
	-0x1.9ff1068862a9fp-56, 0x1.aff45d0864f3ep-55,	0x1.cfe7796c2c3f9p-56,
	-0x1.3ff27eef22bc4p-57, -0x1.cffb7ee3bea21p-57, -0x1.14103972e0b5cp-55,
	0x1.bc16494b76a19p-55,	-0x1.4feef8d30c6edp-57, -0x1.43f68bcec4775p-55,
	0x1.47ea3f053e0ecp-55,	0x1.383068df992f1p-56,	-0x1.8fd8e64180e04p-57,
	0x1.e7ebe1cc7ea72p-55,	0x1.ebe39ad9f88fep-55,	0x1.57d91a8b95a71p-56,
	0x1.9c1906970c7dap-55,	-0x1.80e37c558fe0cp-58, -0x1.f80d64dc10f44p-56,
	-0x1.47c8f94fd5c5cp-56, 0x1.c7f1dc521617ep-55,	0x1.8019eb2ffb153p-55,
	0x1.e00d2c652cc89p-57,	-0x1.f8340202d69d2p-56, 0x1.b00c1ca1b0864p-56,
	0x1.2ffa8b094ab51p-56,	-0x1.7f673b1efbe59p-58, -0x1.4808d5e0bc801p-55,
	0x1.80006d54320b5p-56,	-0x1.002f860565c92p-58, -0x1.540445d35e611p-55,
	-0x1.ffb3139ef9105p-59, 0x1.a81acf2731155p-55,	0x1.a3f41d4d7c743p-55,
	-0x1.202f41c987875p-57, 0x1.77dd1f477e74bp-56,	-0x1.f01199a7ca331p-57,
	0x1.181ee4bceacb1p-56,	-0x1.e05370170875ap-57, -0x1.a7ead491c0adap-55,
	-0x1.77f69c3fcb2ep-54,	0x1.7bffe34cb945bp-54,	0x1.20083c0e456cbp-55,
	-0x1.dffdfbe37751ap-57, -0x1.13f7faee626ebp-54, 0x1.07dfa79489ff7p-55,
	-0x1.7040570d66bcp-56,	0x1.e80d4846d0b62p-55,	0x1.dbffa64fd36efp-54,
	0x1.a0077701250aep-54,	0x1.dfdf9e2e3deeep-55,	0x1.10030dc3b7273p-54,
	0x1.97f7980030188p-54,	-0x1.5f932ab9f8c67p-57, 0x1.37fbf9da75bebp-54,
	0x1.f806b91fd5b22p-54,	0x1.3ffc2eb9fbf33p-54,	0x1.601e77e2e2e72p-56,
	0x1.ffcbb767f0c61p-56,	-0x1.202ca3c02412bp-56, -0x1.2808233f21f02p-54,
	-0x1.8ff7e384fdcf2p-55, -0x1.5ff51503041c5p-55, -0x1.10071885e289dp-55,
	-0x1.1ff5d3fb7b715p-54, 0x1.57f82228b82bdp-54,	0x1.000bac40dd5ccp-55,
	-0x1.43f9d2db2a751p-54, 0x1.57f6b707638e1p-55,	0x1.a023a10bf1231p-56,
	0x1.87f6d66b152bp-54,	0x1.7f8375f198524p-57,	0x1.301e672dc5143p-55,
	0x1.9ff69b8b2895ap-55,	-0x1.5c0b19bc2f254p-54, 0x1.b4009f23a2a72p-54,
	-0x1.4ffb7bf0d7d45p-54, -0x1.9c06471dc6a3dp-54, 0x1.77f890b85531cp-54,
	0x1.004657166a436p-57,	-0x1.6bfcece233209p-54, -0x1.902720505a1d7p-55,
	0x1.bbfe60ec96412p-54,	0x1.87ec581afef9p-55,	-0x1.f41080abf0ccp-54,
	-0x1.8812afb254729p-54, -0x1.47eb780ed6904p-54,
};
#define WEFT__MATH_LOG2_INVLN2HI (0x1.71547652p+0)
#define WEFT__MATH_LOG2_INVLN2LO (0x1.705fc2eefa2p-33)
#define WEFT__MATH_LOG2_A0	 (-0x1.71547652b8339p-1)
#define WEFT__MATH_LOG2_A1	 (0x1.ec709dc3a04bep-2)
#define WEFT__MATH_LOG2_A2	 (-0x1.7154764702ffbp-2)
#define WEFT__MATH_LOG2_A3	 (0x1.2776c50034c48p-2)
#define WEFT__MATH_LOG2_A4	 (-0x1.ec7b328ea92bcp-3)
#define WEFT__MATH_LOG2_A5	 (0x1.a6225e117f92ep-3)
#define WEFT__MATH_LOG2_B0	 (-0x1.71547652b82fep-1)
#define WEFT__MATH_LOG2_B1	 (0x1.ec709dc3a03f7p-2)
#define WEFT__MATH_LOG2_B2	 (-0x1.71547652b7c3fp-2)
#define WEFT__MATH_LOG2_B3	 (0x1.2776c50f05be4p-2)
#define WEFT__MATH_LOG2_B4	 (-0x1.ec709dd768fe5p-3)
#define WEFT__MATH_LOG2_B5	 (0x1.a61761ec4e736p-3)
#define WEFT__MATH_LOG2_B6	 (-0x1.7153fbc64a79bp-3)
#define WEFT__MATH_LOG2_B7	 (0x1.484d154f01b4ap-3)
#define WEFT__MATH_LOG2_B8	 (-0x1.289e4a72c383cp-3)
#define WEFT__MATH_LOG2_B9	 (0x1.0b32f285aee66p-3)
WEFT_CONST weft_f64 weft__math_log2_invc[64] = {
	0x1.724286bb1acf8p+0, 0x1.6e1f766d2cca1p+0, 0x1.6a13d0e30d48ap+0,
	0x1.661ec32d06c85p+0, 0x1.623fa951198f8p+0, 0x1.5e75ba4cf026cp+0,
	0x1.5ac055a214fb8p+0, 0x1.571ed0f166e1ep+0, 0x1.53909590bf835p+0,
	0x1.5014fed61adddp+0, 0x1.4cab88e487bdp+0,  0x1.49539b4334feep+0,
	0x1.460cbdfafd569p+0, 0x1.42d664ee4b953p+0, 0x1.3fb01111dd8a6p+0,
	0x1.3c995b70c5836p+0, 0x1.3991c4ab6fd4ap+0, 0x1.3698e0ce099b5p+0,
	0x1.33ae48213e7b2p+0, 0x1.30d191985bdb1p+0, 0x1.2e025cab271d7p+0,
	0x1.2b404cf13cd82p+0, 0x1.288b02c7ccb5p+0,  0x1.25e2263944de5p+0,
	0x1.234563d8615b1p+0, 0x1.20b46e33eaf38p+0, 0x1.1e2eefdcda3ddp+0,
	0x1.1bb4a580b393p+0,  0x1.19453847f22p+0,   0x1.16e06c0d5d73cp+0,
	0x1.1485f47b7e4c2p+0, 0x1.12358ad0085d1p+0, 0x1.0fef00f532227p+0,
	0x1.0db2077d03a8fp+0, 0x1.0b7e6d65980d9p+0, 0x1.0953efe7b408dp+0,
	0x1.07325cac53b83p+0, 0x1.05197e40d1b5cp+0, 0x1.03091c1208ea2p+0,
	0x1.0101025b37e21p+0, 0x1.fc07ef9caa76bp-1, 0x1.f4465d3f6f184p-1,
	0x1.ecc079f84107fp-1, 0x1.e573a99975ae8p-1, 0x1.de5d6f0bd3de6p-1,
	0x1.d77b681ff38b3p-1, 0x1.d0cb5724de943p-1, 0x1.ca4b2dc0e7563p-1,
	0x1.c3f8ee8d6cb51p-1, 0x1.bdd2b4f020c4cp-1, 0x1.b7d6c006015cap-1,
	0x1.b20366e2e338fp-1, 0x1.ac57026295039p-1, 0x1.a6d01bc2731ddp-1,
	0x1.a16d3bc3ff18bp-1, 0x1.9c2d14967feadp-1, 0x1.970e4f47c9902p-1,
	0x1.920fb3982bcf2p-1, 0x1.8d30187f759f1p-1, 0x1.886e5ebb9f66dp-1,
	0x1.83c97b658b994p-1, 0x1.7f405ffc61022p-1, 0x1.7ad22181415cap-1,
	0x1.767dcf99eff8cp-1,
};
WEFT_CONST weft_f64 weft__math_log2_logc[64] = {
	-0x1.1095feecdbp-1, -0x1.08494bd76dp-1, -0x1.00143aee8f8p-1,
	-0x1.efec5360b4p-2, -0x1.dfdd91ab7ep-2, -0x1.cffae0cc79p-2,
	-0x1.c043811fdap-2, -0x1.b0b67323aep-2, -0x1.a152f5a2dbp-2,
	-0x1.9217f5af86p-2, -0x1.8304db0719p-2, -0x1.74189f9a9ep-2,
	-0x1.6552bb5199p-2, -0x1.56b23a29b1p-2, -0x1.483650f5fap-2,
	-0x1.39de937f6ap-2, -0x1.2baa1538d6p-2, -0x1.1d98340ca4p-2,
	-0x1.0fa853a40ep-2, -0x1.01d9c32e73p-2, -0x1.e857da2fa6p-3,
	-0x1.cd3c8633d8p-3, -0x1.b26034c14ap-3, -0x1.97c1c2f4fep-3,
	-0x1.7d6023f8p-3,   -0x1.633a71a05ep-3, -0x1.494f5e957p-3,
	-0x1.2f9e424e0ap-3, -0x1.162595afdcp-3, -0x1.f9c9a75bd8p-4,
	-0x1.c7b575bf9cp-4, -0x1.960c60ff48p-4, -0x1.64ce247b6p-4,
	-0x1.33f78b2014p-4, -0x1.0387d1a42cp-4, -0x1.a6f9208b5p-5,
	-0x1.47a954f77p-5,  -0x1.d23a8c50cp-6,	-0x1.16a262978p-6,
	-0x1.720f8d8e8p-8,  0x1.6fe53b15p-7,	0x1.11ccce10f8p-5,
	0x1.c4dfc8c8b8p-5,  0x1.3aa321e574p-4,	0x1.918a0d08b8p-4,
	0x1.e72e9da044p-4,  0x1.1dcd2507f6p-3,	0x1.476ab03deap-3,
	0x1.7074377e22p-3,  0x1.98ede8ba94p-3,	0x1.c0db86ad2ep-3,
	0x1.e840aafceep-3,  0x1.0790ab4678p-2,	0x1.1ac056801cp-2,
	0x1.2db11d4feep-2,  0x1.406464ec58p-2,	0x1.52dbe093afp-2,
	0x1.651902050dp-2,  0x1.771d2cdeafp-2,	0x1.88e9c857d9p-2,
	0x1.9a80155e16p-2,  0x1.abe186ed3dp-2,	0x1.bd0f2aea0ep-2,
	0x1.ce0a43dbf4p-2,
};
WEFT_CONST weft_f64 weft__math_log2_chi[64] = {
	0x1.6200012b90a8ep-1, 0x1.66000045734a6p-1, 0x1.69fffc325f2c5p-1,
	0x1.6e00038b95a04p-1, 0x1.71fffe09994e3p-1, 0x1.7600015590e1p-1,
	0x1.7a00012655bd5p-1, 0x1.7e0003259e9a6p-1, 0x1.81fffedb4b2d2p-1,
	0x1.860002dfafcc3p-1, 0x1.89ffff78c6b5p-1,  0x1.8e00039671566p-1,
	0x1.91fffe2bf1745p-1, 0x1.95fffcc5c9fd1p-1, 0x1.9a0003bba4767p-1,
	0x1.9dfffe7b92da5p-1, 0x1.a1fffd72efdafp-1, 0x1.a5fffde04ff95p-1,
	0x1.a9fffca5e8d2bp-1, 0x1.adfffddad03eap-1, 0x1.b1ffff10d3d4dp-1,
	0x1.b5fffce21165ap-1, 0x1.b9fffd950e674p-1, 0x1.be000139ca8afp-1,
	0x1.c20005b46df99p-1, 0x1.c600040b9f7aep-1, 0x1.ca0006255fd8ap-1,
	0x1.cdfffd94c095dp-1, 0x1.d1ffff975d6cfp-1, 0x1.d5fffa2561c93p-1,
	0x1.d9fff9d228b0cp-1, 0x1.de00065bc7e16p-1, 0x1.e200002f64791p-1,
	0x1.e600057d7a6d8p-1, 0x1.ea00027edc00cp-1, 0x1.ee0006cf5cb7cp-1,
	0x1.f2000782b7dccp-1, 0x1.f6000260c450ap-1, 0x1.f9fffe88cd533p-1,
	0x1.fdfffd50f8689p-1, 0x1.0200004292367p+0, 0x1.05fffe3e3d668p+0,
	0x1.0a0000a85a757p+0, 0x1.0e0001a5f3fccp+0, 0x1.11ffff8afbaf5p+0,
	0x1.15fffe54d91adp+0, 0x1.1a00011ac36e1p+0, 0x1.1e00019c84248p+0,
	0x1.220000ffe5e6ep+0, 0x1.26000269fd891p+0, 0x1.2a00029a6e6dap+0,
	0x1.2dfffe0293e39p+0, 0x1.31ffff7dcf082p+0, 0x1.35ffff05a8b6p+0,
	0x1.3a0002e0eaeccp+0, 0x1.3e000043bb236p+0, 0x1.4200002d187ffp+0,
	0x1.460000d387cb1p+0, 0x1.4a00004569f89p+0, 0x1.4e000043543f3p+0,
	0x1.51fffcc027f0fp+0, 0x1.55ffffd87b36fp+0, 0x1.59ffff21df7bap+0,
	0x1.5dfffebfc3481p+0,
};
WEFT_CONST weft_f64 weft__math_log2_clo[64] = {
	0x1.904ab0644b605p-55,	0x1.1ff9bea62f7a9p-57,	0x1.27ecfcb3c90bap-55,
	0x1.8ff8856739326p-55,	0x1.afd40275f82b1p-55,	-0x1.2fd75b4238341p-56,
	0x1.808e67c242b76p-56,	-0x1.208e426f622b7p-57, -0x1.402461ea5c92fp-55,
	0x1.df7f4a2f29a1fp-57,	-0x1.e0453094995fdp-55, -0x1.a04f3bec77b45p-55,
	-0x1.7fa34400e203cp-56, -0x1.6ff8005a0695dp-56, 0x1.0f8c4c4ec7e03p-56,
	0x1.e7fd9478c4602p-55,	-0x1.a0c554dcdae7ep-57, 0x1.67da98ce9b26bp-55,
	-0x1.284c9b54c13dep-55, 0x1.812c8ea602e3cp-58,	-0x1.efaddad27789cp-55,
	0x1.3cb1719c61237p-58,	0x1.3f7d94194cep-56,	0x1.50ac4215d9bcp-56,
	0x1.beea653e9c1c9p-57,	-0x1.c079f274a70d6p-56, -0x1.a0b4076e84c1fp-56,
	0x1.8f933f99ab5d7p-55,	-0x1.82c08665fe1bep-58, -0x1.b04289bd295f3p-56,
	0x1.70251340fa236p-55,	-0x1.5011e16a4d80cp-56, 0x1.9802f09ef62ep-55,
	-0x1.e0b75580cf7fap-56, -0x1.c848309459811p-55, -0x1.f8027951576f4p-55,
	-0x1.f81d97274538fp-55, -0x1.071002727ffdcp-59, -0x1.81bdce1fda8bp-58,
	0x1.7f91acb918e6ep-55,	0x1.b7ff365324681p-54,	0x1.6fa08ddae957bp-55,
	-0x1.7e2de80d3fb91p-58, -0x1.1823305c5f014p-54, -0x1.bfabb6680bac2p-55,
	-0x1.d7f121737e7efp-54, 0x1.c000a0516f5ffp-54,	-0x1.082fbe4da5dap-54,
	-0x1.8fdd04c9cfb43p-55, 0x1.cfe2a7994d182p-55,	-0x1.00273715e8bc5p-56,
	0x1.b7c39dab2a6f9p-54,	0x1.df1336edc5254p-56,	-0x1.e03564ccd31ebp-54,
	0x1.5f0e74bd3a477p-56,	0x1.c7dcb149d8833p-54,	0x1.e08afcf2d3d28p-56,
	0x1.20837856599a6p-55,	-0x1.9fa5c904fbcd2p-55, -0x1.81125ed175329p-56,
	0x1.883d8847754dcp-54,	-0x1.709e731d02807p-55, 0x1.7f79f68727b02p-55,
	-0x1.180902e30e93ep-54,
};

/* log's and log2's x < 0x1p-1022, inf or nan (*ix x's bits): 1 with the
 * result in *y, or 0 for a subnormal x, with *ix the bits of x * 2^52 less
 * 52 in the exponent (normalized). */
WEFT_FN int weft__math_log_special(weft_f64 x, weft_u64 *ix, weft_f64 *y)
{
	weft_u32 top = (weft_u32)(*ix >> 48);

	if (*ix * 2 == 0) {
		*y = weft__math_inf(1);
	} else if (*ix == 0x7ff0000000000000) { /* log(inf) == inf. */
		*y = x;
	} else if ((top & 0x8000) || (top & 0x7ff0) == 0x7ff0) {
		*y = weft__math_nan();
	} else { /* x is subnormal, normalize it. */
		*ix = weft_f64_as_u64(x * 0x1p52) - ((weft_u64)52 << 52);
		return 0;
	}
	return 1;
}

/* x = 2^k z (ix, *iz their bits) with z in [off, 2 off) and exact (off
 * the bits of OFF, a little below 1): returns i, z's subinterval of
 * [off, 2 off) among 2^bits (the index into the tables of c), and *k. */
WEFT_FN int weft__math_log_reduce(weft_u64 ix, weft_u64 off, int bits, int *k,
				  weft_u64 *iz)
{
	weft_u64 tmp = ix - off;

	*k = (int)((weft_i64)tmp >> 52); /* arithmetic shift */
	*iz = ix - (tmp & (weft_u64)0xfff << 52);
	return (int)((tmp >> (52 - bits)) % ((weft_u64)1 << bits));
}

WEFT_FN weft_f64 weft_log(weft_f64 x)
{
	weft_f64 w, z, r, r2, r3, y, invc, logc, kd, hi, lo, rhi, rlo;
	weft_u64 ix, iz;
	weft_u32 top;
	int k, i;

	ix = weft_f64_as_u64(x);
	top = (weft_u32)(ix >> 48);
	/* x in [1 - 0x1p-4, 1 + 0x1.09p-4): close to 1.0 */
	if (ix - 0x3fee000000000000 < 0x3ff1090000000000 - 0x3fee000000000000) {
		if (ix == 0x3ff0000000000000)
			return 0;
		r = x - 1.0;
		r2 = r * r;
		r3 = r * r2;
		y = r3 *
		    (WEFT__MATH_LOG_B1 + r * WEFT__MATH_LOG_B2 +
		     r2 * WEFT__MATH_LOG_B3 +
		     r3 * (WEFT__MATH_LOG_B4 + r * WEFT__MATH_LOG_B5 +
			   r2 * WEFT__MATH_LOG_B6 +
			   r3 * (WEFT__MATH_LOG_B7 + r * WEFT__MATH_LOG_B8 +
				 r2 * WEFT__MATH_LOG_B9 +
				 r3 * WEFT__MATH_LOG_B10)));
		/* Worst-case error is around 0.507 ULP. */
		w = r * 0x1p27;
		rhi = r + w - w;
		rlo = r - rhi;
		w = rhi * rhi * WEFT__MATH_LOG_B0; /* B[0] == -0.5. */
		hi = r + w;
		lo = r - hi + w;
		lo += WEFT__MATH_LOG_B0 * rlo * (rhi + r);
		y += lo;
		y += hi;
		return y;
	}
	/* x < 0x1p-1022 or inf or nan. */
	if (top - 0x0010 >= 0x7ff0 - 0x0010 &&
	    weft__math_log_special(x, &ix, &y))
		return y;
	/* x = 2^k z; where z is in range [OFF,2*OFF) and exact. */
	i = weft__math_log_reduce(ix, 0x3fe6000000000000, 7, &k, &iz);
	invc = weft__math_log_invc[i];
	logc = weft__math_log_logc[i];
	z = weft_u64_as_f64(iz);
	/* log(x) = log1p(z/c-1) + log(c) + k*Ln2. */
	/* r ~= z/c - 1, |r| < 1/(2*N). */
	r = (z - weft__math_log_chi[i] - weft__math_log_clo[i]) * invc;
	kd = (weft_f64)k;
	/* hi + lo = r + log(c) + k*Ln2. */
	w = kd * WEFT__MATH_LOG_LN2HI + logc;
	hi = w + r;
	lo = w - hi + r + kd * WEFT__MATH_LOG_LN2LO;
	/* log(x) = lo + (log1p(r) - r) + hi. */
	r2 = r * r;
	y = lo + r2 * WEFT__MATH_LOG_A0 +
	    r * r2 *
		    (WEFT__MATH_LOG_A1 + r * WEFT__MATH_LOG_A2 +
		     r2 * (WEFT__MATH_LOG_A3 + r * WEFT__MATH_LOG_A4)) +
	    hi;
	return y;
}

WEFT_FN weft_f64 weft_log2(weft_f64 x)
{
	weft_f64 z, r, r2, r4, y, invc, logc, kd, hi, lo, t1, t2, t3, p;
	weft_f64 rhi, rlo;
	weft_u64 ix, iz;
	weft_u32 top;
	int k, i;

	ix = weft_f64_as_u64(x);
	top = (weft_u32)(ix >> 48);
	/* x in [1 - 0x1.5b51p-5, 1 + 0x1.6ab2p-5): close to 1.0 */
	if (ix - weft_f64_as_u64(1.0 - 0x1.5b51p-5) <
	    weft_f64_as_u64(1.0 + 0x1.6ab2p-5) -
		    weft_f64_as_u64(1.0 - 0x1.5b51p-5)) {
		if (ix == 0x3ff0000000000000)
			return 0;
		r = x - 1.0;
		rhi = weft_u64_as_f64(weft_f64_as_u64(r) & 0xffffffff00000000);
		rlo = r - rhi;
		hi = rhi * WEFT__MATH_LOG2_INVLN2HI;
		lo = rlo * WEFT__MATH_LOG2_INVLN2HI +
		     r * WEFT__MATH_LOG2_INVLN2LO;
		r2 = r * r; /* rounding error: 0x1p-62. */
		r4 = r2 * r2;
		/* Worst-case error is less than 0.55 ULP without fma. */
		p = r2 * (WEFT__MATH_LOG2_B0 + r * WEFT__MATH_LOG2_B1);
		y = hi + p;
		lo += hi - y + p;
		lo += r4 * (WEFT__MATH_LOG2_B2 + r * WEFT__MATH_LOG2_B3 +
			    r2 * (WEFT__MATH_LOG2_B4 + r * WEFT__MATH_LOG2_B5) +
			    r4 * (WEFT__MATH_LOG2_B6 + r * WEFT__MATH_LOG2_B7 +
				  r2 * (WEFT__MATH_LOG2_B8 +
					r * WEFT__MATH_LOG2_B9)));
		y += lo;
		return y;
	}
	/* x < 0x1p-1022 or inf or nan. */
	if (top - 0x0010 >= 0x7ff0 - 0x0010 &&
	    weft__math_log_special(x, &ix, &y))
		return y;
	/* x = 2^k z; where z is in range [OFF,2*OFF) and exact. */
	i = weft__math_log_reduce(ix, 0x3fe6000000000000, 6, &k, &iz);
	invc = weft__math_log2_invc[i];
	logc = weft__math_log2_logc[i];
	z = weft_u64_as_f64(iz);
	kd = (weft_f64)k;
	/* log2(x) = log2(z/c) + log2(c) + k. */
	/* r ~= z/c - 1, |r| < 1/(2*N). */
	r = (z - weft__math_log2_chi[i] - weft__math_log2_clo[i]) * invc;
	rhi = weft_u64_as_f64(weft_f64_as_u64(r) & 0xffffffff00000000);
	rlo = r - rhi;
	t1 = rhi * WEFT__MATH_LOG2_INVLN2HI;
	t2 = rlo * WEFT__MATH_LOG2_INVLN2HI + r * WEFT__MATH_LOG2_INVLN2LO;
	/* hi + lo = r/ln2 + log2(c) + k. */
	t3 = kd + logc;
	hi = t3 + t1;
	lo = t3 - hi + t1 + t2;
	/* log2(r+1) = r/ln2 + r^2*poly(r). */
	r2 = r * r;
	r4 = r2 * r2;
	p = WEFT__MATH_LOG2_A0 + r * WEFT__MATH_LOG2_A1 +
	    r2 * (WEFT__MATH_LOG2_A2 + r * WEFT__MATH_LOG2_A3) +
	    r4 * (WEFT__MATH_LOG2_A4 + r * WEFT__MATH_LOG2_A5);
	y = lo + r2 * p + hi;
	return y;
}

/* ---- log1p (fdlibm) ------------------------------------------------ */

WEFT_FN weft_f64 weft_log1p(weft_f64 x)
{
	weft_u64 u = weft_f64_as_u64(x);
	weft_f64 hfsq, f = 0, c = 0, s, z, R, w, t1, t2, dk, uf;
	weft_u32 hx, hu;
	int k;

	hx = (weft_u32)(u >> 32);
	k = 1;
	if (hx < 0x3fda827a || hx >> 31) { /* 1+x < sqrt(2)+ */
		if (hx >= 0xbff00000) {	   /* x <= -1.0 */
			if (x == -1)
				return weft__math_inf(1); /* log1p(-1) = -inf */
			return weft__math_nan(); /* log1p(x<-1) = NaN */
		}
		if (hx << 1 < 0x3ca00000u << 1) /* |x| < 2**-53 */
			return x;
		if (hx <= 0xbfd2bec4) { /* sqrt(2)/2- <= 1+x < sqrt(2)+ */
			k = 0;
			c = 0;
			f = x;
		}
	} else if (hx >= 0x7ff00000) {
		return weft__math_canon(x);
	}
	if (k) {
		uf = 1 + x;
		u = weft_f64_as_u64(uf);
		hu = (weft_u32)(u >> 32);
		hu += 0x3ff00000 - 0x3fe6a09e;
		k = (int)(hu >> 20) - 0x3ff;
		/* correction term ~ log(1+x)-log(u), avoid underflow in c/u */
		if (k < 54) {
			c = k >= 2 ? 1 - (uf - x) : x - (uf - 1);
			c /= uf;
		} else {
			c = 0;
		}
		/* reduce u into [sqrt(2)/2, sqrt(2)] */
		hu = (hu & 0x000fffff) + 0x3fe6a09e;
		u = (weft_u64)hu << 32 | (u & 0xffffffff);
		f = weft_u64_as_f64(u) - 1;
	}
	hfsq = 0.5 * f * f;
	s = f / (2.0 + f);
	z = s * s;
	w = z * z;
	t1 = w *
	     (3.999999999940941908e-01 +
	      w * (2.222219843214978396e-01 + w * 1.531383769920937332e-01));
	t2 = z * (6.666666666666735130e-01 +
		  w * (2.857142874366239149e-01 +
		       w * (1.818357216161805012e-01 +
			    w * 1.479819860511658591e-01)));
	R = t2 + t1;
	dk = k;
	return s * (hfsq + R) + (dk * 1.90821492927058770002e-10 + c) - hfsq +
	       f + dk * 6.93147180369123816490e-01;
}

/* ---- pow (Arm's) --------------------------------------------------- */

#define WEFT__MATH_POW_LN2HI (0x1.62e42fefa38p-1)
#define WEFT__MATH_POW_LN2LO (0x1.ef35793c7673p-45)
#define WEFT__MATH_POW_A0    (-0x1p-1)
#define WEFT__MATH_POW_A1    (-0x1.555555555556p-1)
#define WEFT__MATH_POW_A2    (0x1.0000000000006p-1)
#define WEFT__MATH_POW_A3    (0x1.999999959554ep-1)
#define WEFT__MATH_POW_A4    (-0x1.555555529a47ap-1)
#define WEFT__MATH_POW_A5    (-0x1.2495b9b4845e9p+0)
#define WEFT__MATH_POW_A6    (0x1.0002b8b263fc3p+0)
WEFT_CONST weft_f64 weft__math_pow_invc[128] = {
	0x1.6ap+0, 0x1.68p+0, 0x1.66p+0, 0x1.64p+0, 0x1.62p+0, 0x1.6p+0,
	0x1.5ep+0, 0x1.5cp+0, 0x1.5ap+0, 0x1.58p+0, 0x1.56p+0, 0x1.56p+0,
	0x1.54p+0, 0x1.52p+0, 0x1.5p+0,	 0x1.4ep+0, 0x1.4cp+0, 0x1.4ap+0,
	0x1.4ap+0, 0x1.48p+0, 0x1.46p+0, 0x1.44p+0, 0x1.42p+0, 0x1.4p+0,
	0x1.4p+0,  0x1.3ep+0, 0x1.3cp+0, 0x1.3ap+0, 0x1.3ap+0, 0x1.38p+0,
	0x1.36p+0, 0x1.34p+0, 0x1.34p+0, 0x1.32p+0, 0x1.3p+0,  0x1.3p+0,
	0x1.2ep+0, 0x1.2cp+0, 0x1.2cp+0, 0x1.2ap+0, 0x1.28p+0, 0x1.26p+0,
	0x1.26p+0, 0x1.24p+0, 0x1.24p+0, 0x1.22p+0, 0x1.2p+0,  0x1.2p+0,
	0x1.1ep+0, 0x1.1cp+0, 0x1.1cp+0, 0x1.1ap+0, 0x1.1ap+0, 0x1.18p+0,
	0x1.16p+0, 0x1.16p+0, 0x1.14p+0, 0x1.14p+0, 0x1.12p+0, 0x1.1p+0,
	0x1.1p+0,  0x1.0ep+0, 0x1.0ep+0, 0x1.0cp+0, 0x1.0cp+0, 0x1.0ap+0,
	0x1.0ap+0, 0x1.08p+0, 0x1.08p+0, 0x1.06p+0, 0x1.04p+0, 0x1.04p+0,
	0x1.02p+0, 0x1.02p+0, 0x1p+0,	 0x1p+0,    0x1.fcp-1, 0x1.f8p-1,
	0x1.f4p-1, 0x1.fp-1,  0x1.ecp-1, 0x1.e8p-1, 0x1.e4p-1, 0x1.e2p-1,
	0x1.dep-1, 0x1.dap-1, 0x1.d6p-1, 0x1.d4p-1, 0x1.dp-1,  0x1.ccp-1,
	0x1.cap-1, 0x1.c6p-1, 0x1.c4p-1, 0x1.cp-1,  0x1.bep-1, 0x1.bap-1,
	0x1.b8p-1, 0x1.b4p-1, 0x1.b2p-1, 0x1.aep-1, 0x1.acp-1, 0x1.aap-1,
	0x1.a6p-1, 0x1.a4p-1, 0x1.ap-1,	 0x1.9ep-1, 0x1.9cp-1, 0x1.9ap-1,
	0x1.96p-1, 0x1.94p-1, 0x1.92p-1, 0x1.9p-1,  0x1.8cp-1, 0x1.8ap-1,
	0x1.88p-1, 0x1.86p-1, 0x1.84p-1, 0x1.82p-1, 0x1.7ep-1, 0x1.7cp-1,
	0x1.7ap-1, 0x1.78p-1, 0x1.76p-1, 0x1.74p-1, 0x1.72p-1, 0x1.7p-1,
	0x1.6ep-1, 0x1.6cp-1,
};
WEFT_CONST weft_f64 weft__math_pow_logc[128] = {
	-0x1.62c82f2b9c8p-2,
	-0x1.5d1bdbf5808p-2,
	-0x1.57677174558p-2,
	-0x1.51aad872df8p-2,
	-0x1.4be5f957778p-2,
	-0x1.4618bc21c6p-2,
	-0x1.404308686a8p-2,
	-0x1.3a64c556948p-2,
	-0x1.347dd9a988p-2,
	-0x1.2e8e2bae12p-2,
	-0x1.2895a13de88p-2,
	-0x1.2895a13de88p-2,
	-0x1.22941fbcf78p-2,
	-0x1.1c898c16998p-2,
	-0x1.1675cababa8p-2,
	-0x1.1058bf9ae48p-2,
	-0x1.0a324e2739p-2,
	-0x1.0402594b4dp-2,
	-0x1.0402594b4dp-2,
	-0x1.fb9186d5e4p-3,
	-0x1.ef0adcbdc6p-3,
	-0x1.e27076e2afp-3,
	-0x1.d5c216b4fcp-3,
	-0x1.c8ff7c79aap-3,
	-0x1.c8ff7c79aap-3,
	-0x1.bc286742d9p-3,
	-0x1.af3c94e80cp-3,
	-0x1.a23bc1fe2bp-3,
	-0x1.a23bc1fe2bp-3,
	-0x1.9525a9cf45p-3,
	-0x1.87fa06520dp-3,
	-0x1.7ab890210ep-3,
	-0x1.7ab890210ep-3,
	-0x1.6d60fe719dp-3,
	-0x1.5ff3070a79p-3,
	-0x1.5ff3070a79p-3,
	-0x1.526e5e3a1bp-3,
	-0x1.44d2b6ccb8p-3,
	-0x1.44d2b6ccb8p-3,
	-0x1.371fc201e9p-3,
	-0x1.29552f81ffp-3,
	-0x1.1b72ad52f6p-3,
	-0x1.1b72ad52f6p-3,
	-0x1.0d77e7cd09p-3,
	-0x1.0d77e7cd09p-3,
	-0x1.fec9131dbep-4,
	-0x1.e27076e2bp-4,
	-0x1.e27076e2bp-4,
	-0x1.c5e548f5bcp-4,
	-0x1.a926d3a4aep-4,
	-0x1.a926d3a4aep-4,
	-0x1.8c345d631ap-4,
	-0x1.8c345d631ap-4,
	-0x1.6f0d28ae56p-4,
	-0x1.51b073f062p-4,
	-0x1.51b073f062p-4,
	-0x1.341d7961bep-4,
	-0x1.341d7961bep-4,
	-0x1.16536eea38p-4,
	-0x1.f0a30c0118p-5,
	-0x1.f0a30c0118p-5,
	-0x1.b42dd71198p-5,
	-0x1.b42dd71198p-5,
	-0x1.77458f632cp-5,
	-0x1.77458f632cp-5,
	-0x1.39e87b9fecp-5,
	-0x1.39e87b9fecp-5,
	-0x1.f829b0e78p-6,
	-0x1.f829b0e78p-6,
	-0x1.7b91b07d58p-6,
	-0x1.fc0a8b0fcp-7,
	-0x1.fc0a8b0fcp-7,
	-0x1.fe02a6b1p-8,
	-0x1.fe02a6b1p-8,
	0x0p+0,
	0x0p+0,
	0x1.010157589p-7,
	0x1.0205658938p-6,
	0x1.8492528c9p-6,
	0x1.0415d89e74p-5,
	0x1.466aed42ep-5,
	0x1.894aa149fcp-5,
	0x1.ccb73cdddcp-5,
	0x1.eea31c006cp-5,
	0x1.1973bd1466p-4,
	0x1.3bdf5a7d1ep-4,
	0x1.5e95a4d97ap-4,
	0x1.700d30aeacp-4,
	0x1.9335e5d594p-4,
	0x1.b6ac88dad6p-4,
	0x1.c885801bc4p-4,
	0x1.ec739830a2p-4,
	0x1.fe89139dbep-4,
	0x1.1178e8227ep-3,
	0x1.1aa2b7e23fp-3,
	0x1.2d1610c868p-3,
	0x1.365fcb0159p-3,
	0x1.4913d8333bp-3,
	0x1.527e5e4a1bp-3,
	0x1.6574ebe8c1p-3,
	0x1.6f0128b757p-3,
	0x1.7898d85445p-3,
	0x1.8beafeb39p-3,
	0x1.95a5adcf7p-3,
	0x1.a93ed3c8aep-3,
	0x1.b31d8575bdp-3,
	0x1.bd087383bep-3,
	0x1.c6ffbc6f01p-3,
	0x1.db13db0d49p-3,
	0x1.e530effe71p-3,
	0x1.ef5ade4ddp-3,
	0x1.f991c6cb3bp-3,
	0x1.07138604d58p-2,
	0x1.0c42d67616p-2,
	0x1.1178e8227e8p-2,
	0x1.16b5ccbacf8p-2,
	0x1.1bf99635a68p-2,
	0x1.214456d0eb8p-2,
	0x1.2bef07cdc9p-2,
	0x1.314f1e1d36p-2,
	0x1.36b6776be1p-2,
	0x1.3c25277333p-2,
	0x1.419b423d5e8p-2,
	0x1.4718dc271c8p-2,
	0x1.4c9e09e173p-2,
	0x1.522ae0738ap-2,
	0x1.57bf753c8dp-2,
	0x1.5d5bddf596p-2,
};
WEFT_CONST weft_f64 weft__math_pow_logctail[128] = {
	0x1.ab4242837568p-48,
	-0x1.ca508d8e0f72p-46,
	-0x1.362a4d5b6506dp-45,
	-0x1.684e49eb067d5p-49,
	-0x1.41b6993293eep-47,
	0x1.3d82f484c84ccp-46,
	0x1.c42f3ed820b3ap-50,
	0x1.0b1c68651946p-45,
	0x1.5594dd4c58092p-45,
	0x1.67b1e99b72bd8p-45,
	0x1.5ca14b6cfb03fp-46,
	0x1.5ca14b6cfb03fp-46,
	-0x1.65a242853da76p-46,
	-0x1.fafbc68e75404p-46,
	0x1.f1fc63382a8fp-46,
	-0x1.6a8c4fd055a66p-45,
	-0x1.c6bee7ef4030ep-47,
	-0x1.036b89ef42d7fp-48,
	-0x1.036b89ef42d7fp-48,
	0x1.d572aab993c87p-47,
	0x1.b26b79c86af24p-45,
	-0x1.72f4f543fff1p-46,
	0x1.1ba91bbca681bp-45,
	0x1.7794f689f8434p-45,
	0x1.7794f689f8434p-45,
	0x1.94eb0318bb78fp-46,
	0x1.a4e633fcd9066p-52,
	-0x1.58c64dc46c1eap-45,
	-0x1.58c64dc46c1eap-45,
	-0x1.ad1d904c1d4e3p-45,
	0x1.bbdbf7fdbfa09p-45,
	0x1.bdb9072534a58p-45,
	0x1.bdb9072534a58p-45,
	-0x1.0e46aa3b2e266p-46,
	-0x1.e9e439f105039p-46,
	-0x1.e9e439f105039p-46,
	-0x1.0de8b90075b8fp-45,
	0x1.70cc16135783cp-46,
	0x1.70cc16135783cp-46,
	0x1.178864d27543ap-48,
	-0x1.48d301771c408p-45,
	-0x1.e80a41811a396p-45,
	-0x1.e80a41811a396p-45,
	0x1.a699688e85bf4p-47,
	0x1.a699688e85bf4p-47,
	-0x1.575545ca333f2p-45,
	0x1.a342c2af0003cp-45,
	0x1.a342c2af0003cp-45,
	-0x1.d0c57585fbe06p-46,
	0x1.53935e85baac8p-45,
	0x1.53935e85baac8p-45,
	0x1.37c294d2f5668p-46,
	0x1.37c294d2f5668p-46,
	-0x1.69737c93373dap-45,
	0x1.f025b61c65e57p-46,
	0x1.f025b61c65e57p-46,
	0x1.c5edaccf913dfp-45,
	0x1.c5edaccf913dfp-45,
	0x1.47c5e768fa309p-46,
	0x1.d599e83368e91p-45,
	0x1.d599e83368e91p-45,
	0x1.c827ae5d6704cp-46,
	0x1.c827ae5d6704cp-46,
	-0x1.cfc4634f2a1eep-45,
	-0x1.cfc4634f2a1eep-45,
	0x1.502b7f526feaap-48,
	0x1.502b7f526feaap-48,
	-0x1.980267c7e09e4p-45,
	-0x1.980267c7e09e4p-45,
	-0x1.88d5493faa639p-45,
	-0x1.f1e7cf6d3a69cp-50,
	-0x1.f1e7cf6d3a69cp-50,
	-0x1.9e23f0dda40e4p-46,
	-0x1.9e23f0dda40e4p-46,
	0x0p+0,
	0x0p+0,
	-0x1.0c76b999d2be8p-46,
	-0x1.3dc5b06e2f7d2p-45,
	-0x1.aa0ba325a0c34p-45,
	0x1.111c05cf1d753p-47,
	-0x1.c167375bdfd28p-45,
	-0x1.97995d05a267dp-46,
	-0x1.a68f247d82807p-46,
	-0x1.e113e4fc93b7bp-47,
	-0x1.5325d560d9e9bp-45,
	0x1.cc85ea5db4ed7p-45,
	-0x1.c69063c5d1d1ep-45,
	0x1.c1e8da99ded32p-49,
	0x1.3115c3abd47dap-45,
	-0x1.390802bf768e5p-46,
	0x1.646d1c65aacd3p-45,
	-0x1.dc068afe645ep-45,
	-0x1.534d64fa10afdp-45,
	0x1.1ef78ce2d07f2p-45,
	0x1.ca78e44389934p-45,
	0x1.39d6ccb81b4a1p-47,
	0x1.62fa8234b7289p-51,
	0x1.5837954fdb678p-45,
	0x1.633e8e5697dc7p-45,
	0x1.9cf8b2c3c2e78p-46,
	-0x1.5118de59c21e1p-45,
	-0x1.c661070914305p-46,
	-0x1.73d54aae92cd1p-47,
	0x1.7f22858a0ff6fp-47,
	-0x1.8724350562169p-45,
	-0x1.c358d4eace1aap-47,
	-0x1.d4bc4595412b6p-45,
	-0x1.1ec72c5962bd2p-48,
	-0x1.aff2af715b035p-45,
	0x1.212276041f43p-51,
	-0x1.a211565bb8e11p-51,
	0x1.bcbecca0cdf3p-46,
	0x1.89cdb16ed4e91p-48,
	0x1.7188b163ceae9p-45,
	-0x1.c210e63a5f01cp-45,
	0x1.b9acdf7a51681p-45,
	0x1.ca6ed5147bdb7p-45,
	0x1.a87deba46baeap-47,
	0x1.a9cfa4a5004f4p-45,
	-0x1.8e27ad3213cb8p-45,
	0x1.16ecdb0f177c8p-46,
	0x1.83b54b606bd5cp-46,
	0x1.8e436ec90e09dp-47,
	-0x1.f27ce0967d675p-45,
	-0x1.e20891b0ad8a4p-45,
	0x1.ebe708164c759p-45,
	0x1.fadedee5d40efp-46,
	-0x1.a0b2a08a465dcp-47,
};
/* y + *tail = log(x) with about 15 more bits in tail; ix is the bits of
 * x, subnormals normalised with the exponent's sign bit. */
WEFT_FN weft_f64 weft__math_pow_log(weft_u64 ix, weft_f64 *tail)
{
	weft_f64 z, r, y, invc, logc, logctail, kd, hi, t1, t2, lo, lo1, lo2;
	weft_f64 p, zhi, zlo, rhi, rlo, ar, ar2, ar3, lo3, lo4, arhi, arhi2;
	weft_u64 iz;
	int k, i;

	/* x = 2^k z; where z is in range [OFF,2*OFF) and exact. */
	i = weft__math_log_reduce(ix, 0x3fe6955500000000, 7, &k, &iz);
	z = weft_u64_as_f64(iz);
	kd = (weft_f64)k;
	/* log(x) = k*Ln2 + log(c) + log1p(z/c-1). */
	invc = weft__math_pow_invc[i];
	logc = weft__math_pow_logc[i];
	logctail = weft__math_pow_logctail[i];
	/* Split z such that rhi, rlo and rhi*rhi are exact and |rlo| <= |r|. */
	zhi = weft_u64_as_f64((iz + ((weft_u64)1 << 31)) & 0xffffffff00000000);
	zlo = z - zhi;
	rhi = zhi * invc - 1.0;
	rlo = zlo * invc;
	r = rhi + rlo;
	/* k*Ln2 + log(c) + r. */
	t1 = kd * WEFT__MATH_POW_LN2HI + logc;
	t2 = t1 + r;
	lo1 = kd * WEFT__MATH_POW_LN2LO + logctail;
	lo2 = t1 - t2 + r;
	ar = WEFT__MATH_POW_A0 * r; /* A[0] = -0.5. */
	ar2 = r * ar;
	ar3 = r * ar2;
	/* k*Ln2 + log(c) + r + A[0]*r*r. */
	arhi = WEFT__MATH_POW_A0 * rhi;
	arhi2 = rhi * arhi;
	hi = t2 + arhi2;
	lo3 = rlo * (ar + arhi);
	lo4 = t2 - hi + arhi2;
	/* p = log1p(r) - r - A[0]*r*r. */
	p = (ar3 * (WEFT__MATH_POW_A1 + r * WEFT__MATH_POW_A2 +
		    ar2 * (WEFT__MATH_POW_A3 + r * WEFT__MATH_POW_A4 +
			   ar2 * (WEFT__MATH_POW_A5 + r * WEFT__MATH_POW_A6))));
	lo = lo1 + lo2 + lo3 + lo4 + p;
	y = hi + lo;
	*tail = hi - y + lo;
	return y;
}

/* sign * exp(x + xtail), |xtail| < 2^-8/N and |xtail| <= |x|;
 * sign_bias 0x800 << 7 makes the result negative. */
WEFT_FN weft_f64 weft__math_pow_exp(weft_f64 x, weft_f64 xtail,
				    weft_u32 sign_bias)
{
	weft_u32 abstop;
	weft_u64 ki, sbits;
	weft_f64 r, scale, tail, tmp, one;

	abstop = weft__math_top12(x) & 0x7ff;
	if (abstop - 0x3c9 >= 0x408 - 0x3c9) {
		if (abstop - 0x3c9 >= 0x80000000) {
			/* tiny x: the result is +-1 */
			one = 1.0 + x;
			return sign_bias ? -one : one;
		}
		if (abstop >= 0x409) {
			/* Note: inf and nan are already handled. */
			if (weft_f64_as_u64(x) >> 63)
				return weft__math_zero(sign_bias);
			return weft__math_inf(sign_bias);
		}
		/* Large x is special cased below. */
		abstop = 0;
	}
	r = weft__math_exp_reduce(x, &ki);
	/* The code assumes 2^-200 < |xtail| < 2^-8/N. */
	r += xtail;
	sbits = weft__math_exp_scale(ki, sign_bias, &tail);
	tmp = weft__math_exp_poly(r, tail);
	if (abstop == 0)
		return weft__math_exp_special(tmp, sbits, ki, 1009);
	scale = weft_u64_as_f64(sbits);
	return scale + scale * tmp;
}

/* 0 if iy (a non-zero finite double's bits) is not an integer, 1 if
 * odd, 2 if even. */
WEFT_FN int weft__math_checkint(weft_u64 iy)
{
	int e = (int)(iy >> 52 & 0x7ff);

	if (e < 0x3ff)
		return 0;
	if (e > 0x3ff + 52)
		return 2;
	if (iy & (((weft_u64)1 << (0x3ff + 52 - e)) - 1))
		return 0;
	if (iy & ((weft_u64)1 << (0x3ff + 52 - e)))
		return 1;
	return 2;
}

/* 1 if i is the bits of 0, infinity or nan. */
WEFT_FN int weft__math_zeroinfnan(weft_u64 i)
{
	return 2 * i - 1 >= 2 * (weft_u64)0x7ff0000000000000 - 1;
}

/* pow's special cases: x or y zero, inf or nan. */
WEFT_FN weft_f64 weft__math_pow_zeroinfnan(weft_f64 x, weft_f64 y)
{
	weft_u64 ix = weft_f64_as_u64(x), iy = weft_f64_as_u64(y);
	weft_f64 x2;

	if (weft__math_zeroinfnan(iy)) {
		if (2 * iy == 0)
			return 1.0;
		if (ix == 0x3ff0000000000000)
			return 1.0;
		if (2 * ix > 2 * (weft_u64)0x7ff0000000000000 ||
		    2 * iy > 2 * (weft_u64)0x7ff0000000000000)
			return weft__math_nan();
		if (2 * ix == 2 * (weft_u64)0x3ff0000000000000)
			return 1.0;
		if ((2 * ix < 2 * (weft_u64)0x3ff0000000000000) == !(iy >> 63))
			return 0.0; /* |x|<1 && y==inf or |x|>1 && y==-inf. */
		return y * y;
	}
	/* x is 0, inf or nan */
	x2 = x * x;
	if (ix >> 63 && weft__math_checkint(iy) == 1)
		x2 = -x2;
	return weft__math_canon(iy >> 63 ? 1 / x2 : x2);
}

WEFT_FN_OUTLINE weft_f64 weft_pow(weft_f64 x, weft_f64 y)
{
	weft_u32 sign_bias = 0;
	weft_u64 ix, iy;
	weft_u32 topx, topy;
	weft_f64 lo, hi, ehi, elo, yhi, ylo, lhi, llo;
	int yint;

	ix = weft_f64_as_u64(x);
	iy = weft_f64_as_u64(y);
	topx = weft__math_top12(x);
	topy = weft__math_top12(y);
	if (topx - 0x001 >= 0x7ff - 0x001 ||
	    (topy & 0x7ff) - 0x3be >= 0x43e - 0x3be) {
		/* Special cases: (x < 0x1p-126 or inf or nan) or
		 * (|y| < 0x1p-65 or |y| >= 0x1p63 or nan). */
		if (weft__math_zeroinfnan(iy) || weft__math_zeroinfnan(ix))
			return weft__math_pow_zeroinfnan(x, y);
		/* Here x and y are non-zero finite. */
		if (ix >> 63) {
			/* Finite x < 0. */
			yint = weft__math_checkint(iy);
			if (yint == 0)
				return weft__math_nan();
			if (yint == 1)
				sign_bias = 0x800 << 7;
			ix &= 0x7fffffffffffffff;
			topx &= 0x7ff;
		}
		if ((topy & 0x7ff) - 0x3be >= 0x43e - 0x3be) {
			/* Note: sign_bias == 0 here because y is not odd. */
			if (ix == 0x3ff0000000000000)
				return 1.0;
			if ((topy & 0x7ff) < 0x3be) {
				/* |y| < 2^-65, x^y ~= 1 + y*log(x). */
				return ix > 0x3ff0000000000000 ? 1.0 + y
							       : 1.0 - y;
			}
			return (ix > 0x3ff0000000000000) == (topy < 0x800)
				       ? weft__math_inf(0)
				       : 0.0;
		}
		if (topx == 0) {
			/* Normalize subnormal x so exponent becomes negative.
			 */
			ix = weft_f64_as_u64(x * 0x1p52);
			ix &= 0x7fffffffffffffff;
			ix -= (weft_u64)52 << 52;
		}
	}
	hi = weft__math_pow_log(ix, &lo);
	yhi = weft_u64_as_f64(iy & (weft_u64)0xfffffffff8000000);
	ylo = y - yhi;
	lhi = weft_u64_as_f64(weft_f64_as_u64(hi) &
			      (weft_u64)0xfffffffff8000000);
	llo = hi - lhi + lo;
	ehi = yhi * lhi;
	elo = ylo * lhi + y * llo; /* |elo| < |ehi| * 2^-25. */
	return weft__math_pow_exp(ehi, elo, sign_bias);
}

/* ---- sin and cos correctly rounded (double-double) ------------------ */

/* weft_sin_cr, weft_cos_cr and weft_sincos_cr give the correctly rounded
 * sin and cos for |x| < 2^20, as glibc's sin and cos nearly always are
 * (Gymnasium's numbers come from them): x - k pi/2 in double-double with
 * pi/2 as four 33-bit pieces and a fifth double (k * piece exact, k < 2^20:
 * Cody and Waite's reduction, pi/2 to 2^-198), then the Taylor series of
 * sin or cos in double-double (about 104 bits, + - * only, products made
 * exact by Dekker's split, never a fused multiply-add) and one final
 * rounding. The result is the correctly rounded value unless the exact
 * one lies within about 2^-45 ulp of a point halfway between two doubles
 * (docs/math.md gives the measured agreement with MPFR, mpmath and
 * glibc). |x| >= 2^20, infinities and NaN take weft_sin and weft_cos
 * (within 1 ulp; NaN for infinities and NaN). About 9 times the cost of
 * weft_sin and weft_cos (sincos_cr: 13 times weft_sincos). */

/* 1/n! as double-doubles (hi, lo), n = 0 .. 29. */
WEFT_CONST weft_f64 weft__math_inv_fact[60] = {
	0x1.0000000000000p+0,	0x0.0p+0,		 /* 1/0! */
	0x1.0000000000000p+0,	0x0.0p+0,		 /* 1/1! */
	0x1.0000000000000p-1,	0x0.0p+0,		 /* 1/2! */
	0x1.5555555555555p-3,	0x1.5555555555555p-57,	 /* 1/3! */
	0x1.5555555555555p-5,	0x1.5555555555555p-59,	 /* 1/4! */
	0x1.1111111111111p-7,	0x1.1111111111111p-63,	 /* 1/5! */
	0x1.6c16c16c16c17p-10,	-0x1.f49f49f49f49fp-65,	 /* 1/6! */
	0x1.a01a01a01a01ap-13,	0x1.a01a01a01a01ap-73,	 /* 1/7! */
	0x1.a01a01a01a01ap-16,	0x1.a01a01a01a01ap-76,	 /* 1/8! */
	0x1.71de3a556c734p-19,	-0x1.c154f8ddc6c00p-73,	 /* 1/9! */
	0x1.27e4fb7789f5cp-22,	0x1.cbbc05b4fa99ap-76,	 /* 1/10! */
	0x1.ae64567f544e4p-26,	-0x1.c062e06d1f209p-80,	 /* 1/11! */
	0x1.1eed8eff8d898p-29,	-0x1.2aec959e14c06p-83,	 /* 1/12! */
	0x1.6124613a86d09p-33,	0x1.f28e0cc748ebep-87,	 /* 1/13! */
	0x1.93974a8c07c9dp-37,	0x1.05d6f8a2efd1fp-92,	 /* 1/14! */
	0x1.ae7f3e733b81fp-41,	0x1.1d8656b0ee8cbp-97,	 /* 1/15! */
	0x1.ae7f3e733b81fp-45,	0x1.1d8656b0ee8cbp-101,	 /* 1/16! */
	0x1.952c77030ad4ap-49,	0x1.ac981465ddc6cp-103,	 /* 1/17! */
	0x1.6827863b97d97p-53,	0x1.eec01221a8b0bp-107,	 /* 1/18! */
	0x1.2f49b46814157p-57,	0x1.2650f61dbdcb4p-112,	 /* 1/19! */
	0x1.e542ba4020225p-62,	0x1.ea72b4afe3c2fp-120,	 /* 1/20! */
	0x1.71b8ef6dcf572p-66,	-0x1.d043ae40c4647p-120, /* 1/21! */
	0x1.0ce396db7f853p-70,	-0x1.aebcdbd20331cp-124, /* 1/22! */
	0x1.761b41316381ap-75,	-0x1.3423c7d91404fp-130, /* 1/23! */
	0x1.f2cf01972f578p-80,	-0x1.9ada5fcc1ab14p-135, /* 1/24! */
	0x1.3f3ccdd165fa9p-84,	-0x1.58ddadf344487p-139, /* 1/25! */
	0x1.88e85fc6a4e5ap-89,	-0x1.71c37ebd16540p-143, /* 1/26! */
	0x1.d1ab1c2dccea3p-94,	0x1.054d0c78aea14p-149,	 /* 1/27! */
	0x1.0a18a2635085dp-98,	0x1.b9e2e28e1aa54p-153,	 /* 1/28! */
	0x1.259f98b4358adp-103, 0x1.eaf8c39dd9bc5p-157,	 /* 1/29! */
};

/* a * b = *p + *e exactly (Dekker's product of 26-bit halves), for
 * |a|, |b| < 2^995 and a product far above the underflow threshold. */
WEFT_FN void weft__math_two_prod(weft_f64 a, weft_f64 b, weft_f64 *p,
				 weft_f64 *e)
{
	weft_f64 ah, al, bh, bl, t = a * b;

	weft__math_split(a, &ah, &al);
	weft__math_split(b, &bh, &bl);
	*e = ((ah * bh - t) + ah * bl + al * bh) + al * bl;
	*p = t;
}

/* (*h, *l) += (bh, bl), normalised (|*l| at most half an ulp of *h). */
WEFT_FN void weft__math_dd_add(weft_f64 *h, weft_f64 *l, weft_f64 bh,
			       weft_f64 bl)
{
	weft_f64 e, s = weft__math_two_sum(*h, bh, &e);

	e = e + (*l + bl);
	*h = s + e;
	*l = e - (*h - s);
}

/* (*h, *l) *= (bh, bl), normalised. */
WEFT_FN void weft__math_dd_mul(weft_f64 *h, weft_f64 *l, weft_f64 bh,
			       weft_f64 bl)
{
	weft_f64 p, e;

	weft__math_two_prod(*h, bh, &p, &e);
	e = e + (*h * bl + *l * bh);
	*h = p + e;
	*l = e - (*h - p);
}

/* *h + *l = x - k pi/2 to about 2^-104 relative, k the integer nearest
 * x 2/pi, for |x| < 2^20 (k below 2^20, so that k times a 33-bit piece of
 * pi/2 is exact); returns k mod 4. */
WEFT_FN int weft__math_cr_reduce(weft_f64 x, weft_f64 *h, weft_f64 *l)
{
	weft_f64 k = weft_floor(x * 0x1.45f306dc9c883p-1 + 0.5);

	*h = weft__math_two_sum(x, -k * 0x1.921fb54400000p+0, l);
	weft__math_dd_add(h, l, -k * 0x1.0b4611a600000p-34, 0.0);
	weft__math_dd_add(h, l, -k * 0x1.3198a2e000000p-69, 0.0);
	weft__math_dd_add(h, l, -k * 0x1.b839a25200000p-104, 0.0);
	weft__math_dd_add(h, l, -k * 0x1.27044533e63a0p-142, 0.0);
	return (int)((weft_i32)k & 3);
}

/* cos r (odd 0) or sin r (odd 1) of r = h + l, |r| <= pi/4 (a little
 * more), r2h + r2l = r^2, rounded once. The series in r^2 by Horner's
 * rule, 1/n! for n = 28, 26, ..., 0 (cos) or 29, ..., 1 times r (sin),
 * signs alternating: the terms from n = 18 on are below 2^-53 of the
 * result, summed in double (their rounding below 2^-106 of the result),
 * the rest in double-double. Series truncated beyond n = 29: below
 * 2^-118 of the result. */
WEFT_FN_OUTLINE weft_f64 weft__math_cr_series(weft_f64 h, weft_f64 l,
					      weft_f64 r2h, weft_f64 r2l,
					      int odd)
{
	int j = odd ? 29 : 28;
	weft_f64 ph = weft__math_inv_fact[2 * j], pl = 0.0;

	for (j = j - 2; j >= 18; j -= 2)
		ph = weft__math_inv_fact[2 * j] - ph * r2h;
	for (; j >= 0; j -= 2) {
		weft__math_dd_mul(&ph, &pl, r2h, r2l);
		ph = -ph;
		pl = -pl;
		weft__math_dd_add(&ph, &pl, weft__math_inv_fact[2 * j],
				  weft__math_inv_fact[2 * j + 1]);
	}
	if (odd)
		weft__math_dd_mul(&ph, &pl, h, l);
	return ph;
}

/* sin(x) correctly rounded for |x| < 2^20 (above: weft_sin). */
WEFT_FN_OUTLINE weft_f64 weft_sin_cr(weft_f64 x)
{
	weft_u32 ix = weft__math_top32(x) & 0x7fffffff;
	weft_f64 h, l, r2h, r2l, v;
	int q;

	if (ix < 0x3e500000) /* |x| < 2^-26: sin x rounds to x (-0 kept) */
		return x;
	if (ix >= 0x41300000) /* |x| >= 2^20, inf, NaN */
		return weft_sin(x);
	q = weft__math_cr_reduce(x, &h, &l);
	r2h = h;
	r2l = l;
	weft__math_dd_mul(&r2h, &r2l, h, l);
	/* sin(r + q pi/2): q = 0 sin r, 1 cos r, 2 -sin r, 3 -cos r */
	v = weft__math_cr_series(h, l, r2h, r2l, (q & 1) ? 0 : 1);
	return q & 2 ? -v : v;
}

/* cos(x) correctly rounded for |x| < 2^20 (above: weft_cos). */
WEFT_FN_OUTLINE weft_f64 weft_cos_cr(weft_f64 x)
{
	weft_u32 ix = weft__math_top32(x) & 0x7fffffff;
	weft_f64 h, l, r2h, r2l, v;
	int q;

	if (ix < 0x3e400000) /* |x| < 2^-27: cos x rounds to 1 */
		return 1.0;
	if (ix >= 0x41300000)
		return weft_cos(x);
	q = weft__math_cr_reduce(x, &h, &l);
	r2h = h;
	r2l = l;
	weft__math_dd_mul(&r2h, &r2l, h, l);
	/* cos(r + q pi/2): q = 0 cos r, 1 -sin r, 2 -cos r, 3 sin r */
	v = weft__math_cr_series(h, l, r2h, r2l, q & 1);
	return q == 1 || q == 2 ? -v : v;
}

/* *s = weft_sin_cr(x), *c = weft_cos_cr(x), sharing the reduction. */
WEFT_FN_OUTLINE void weft_sincos_cr(weft_f64 x, weft_f64 *s, weft_f64 *c)
{
	weft_u32 ix = weft__math_top32(x) & 0x7fffffff;
	weft_f64 h, l, r2h, r2l, sn, cs;
	int q;

	if (ix < 0x3e400000 || ix >= 0x41300000) {
		*s = weft_sin_cr(x);
		*c = weft_cos_cr(x);
		return;
	}
	q = weft__math_cr_reduce(x, &h, &l);
	r2h = h;
	r2l = l;
	weft__math_dd_mul(&r2h, &r2l, h, l);
	sn = weft__math_cr_series(h, l, r2h, r2l, 1);
	cs = weft__math_cr_series(h, l, r2h, r2l, 0);
	*s = weft__math_quadrant(sn, cs, q);
	*c = weft__math_quadrant(sn, cs, q + 1);
}

/* ---- f32: the f64 function, rounded once --------------------------- */

WEFT_FN weft_f32 weft_fabsf(weft_f32 x)
{
	return weft_u32_as_f32(weft_f32_as_u32(x) & 0x7fffffffu);
}

WEFT_FN weft_f32 weft_copysignf(weft_f32 x, weft_f32 y)
{
	return weft_u32_as_f32((weft_f32_as_u32(x) & 0x7fffffffu) |
			       (weft_f32_as_u32(y) & 0x80000000u));
}

/* The f32 result of an f64 computation: one rounding, one NaN. */
WEFT_FN weft_f32 weft__math_f32(weft_f64 x)
{
	return weft__math_canonf((weft_f32)x);
}

WEFT_FN weft_f32 weft_floorf(weft_f32 x)
{
	return weft__math_f32(weft_floor(x));
}

WEFT_FN weft_f32 weft_ceilf(weft_f32 x)
{
	return weft__math_f32(weft_ceil(x));
}

WEFT_FN weft_f32 weft_truncf(weft_f32 x)
{
	return weft__math_f32(weft_trunc(x));
}

WEFT_FN weft_f32 weft_roundf(weft_f32 x)
{
	return weft__math_f32(weft_round(x));
}

WEFT_FN weft_f32 weft_fminf(weft_f32 x, weft_f32 y)
{
	return weft__math_f32(weft_fmin(x, y));
}

WEFT_FN weft_f32 weft_fmaxf(weft_f32 x, weft_f32 y)
{
	return weft__math_f32(weft_fmax(x, y));
}

WEFT_FN weft_f32 weft_clampf(weft_f32 x, weft_f32 lo, weft_f32 hi)
{
	return weft__math_f32(weft_clamp(x, lo, hi));
}

WEFT_FN weft_f32 weft_sqrtf(weft_f32 x)
{
	return weft__math_canonf(WEFT_SQRT_F32(x));
}

/* x*x + y*y is exact in binary64 but for one rounding, and cannot
 * overflow or underflow there. */
WEFT_FN weft_f32 weft_hypotf(weft_f32 x, weft_f32 y)
{
	weft_f64 dx = x, dy = y;
	weft_u32 ax = weft_f32_as_u32(x) & 0x7fffffffu;
	weft_u32 ay = weft_f32_as_u32(y) & 0x7fffffffu;

	if (ax == 0x7f800000u || ay == 0x7f800000u)
		return weft_u32_as_f32(
			0x7f800000u); /* hypot(inf, nan) == inf */
	return weft__math_f32(WEFT_SQRT_F64(dx * dx + dy * dy));
}

WEFT_FN weft_f32 weft_sinf(weft_f32 x)
{
	return weft__math_f32(weft_sin(x));
}

WEFT_FN weft_f32 weft_cosf(weft_f32 x)
{
	return weft__math_f32(weft_cos(x));
}

WEFT_FN weft_f32 weft_tanf(weft_f32 x)
{
	return weft__math_f32(weft_tan(x));
}

WEFT_FN void weft_sincosf(weft_f32 x, weft_f32 *s, weft_f32 *c)
{
	weft_f64 ds, dc;

	weft_sincos(x, &ds, &dc);
	*s = weft__math_f32(ds);
	*c = weft__math_f32(dc);
}

/* sin x and cos x in f32 arithmetic alone, branch-free and table-free,
 * for the main part of a WEFT_KERNEL_SIMD kernel, where the host runs it
 * on several items per instruction (weft_sincosf evaluates in f64, with
 * branches, and does not vectorise). x = k pi/2 + r: k = x 2/pi rounded
 * to the nearest integer (adding and subtracting 1.5 * 2^23, whose sum
 * also holds k mod 4 in its low bits), r = (((x - k C1) - k C2) - k C3)
 * - k C4 (Cody and Waite's reduction: C1, C2 and C3 with 8, 12 and 12
 * significant bits, so that their products by k are exact for
 * |k| < 4096, C4 the rest of pi/2 rounded to f32: pi/2 to within
 * 1e-19); then Cephes' minimax polynomials of sin and cos on
 * [-pi/4, pi/4] (Stephen L. Moshier's sinf.c and cosf.c), swapped and
 * negated by k mod 4. Only + - * and bit operations, none contracted:
 * the same bits on every backend. Measured against the C library's
 * double sin and cos (docs/math.md): within 1.49 ulp for |x| <= 3.2,
 * 1.52 ulp for |x| <= 64, 2.4 ulp for |x| < 6434; beyond, where
 * |k| >= 4096, the reduction loses accuracy: a kernel whose arguments
 * may go there tests |x| and takes weft_sincosf for those. */
#define WEFT__MATH_2_PIF   0x1.45f306p-1f /* 2/pi */
#define WEFT__MATH_PIO2F_1 0x1.92p0f
#define WEFT__MATH_PIO2F_2 0x1.fb6p-12f
#define WEFT__MATH_PIO2F_3 -0x1.778p-25f
#define WEFT__MATH_PIO2F_4 0x1.68c234p-39f
#define WEFT__MATH_ROUNDF  0x1.8p23f

WEFT_FN void weft_sincosf_simd(weft_f32 x, weft_f32 *s, weft_f32 *c)
{
	weft_f32 t = x * WEFT__MATH_2_PIF + WEFT__MATH_ROUNDF;
	weft_f32 k = t - WEFT__MATH_ROUNDF;
	weft_u32 q = weft_f32_as_u32(t);
	weft_f32 r = (((x - k * WEFT__MATH_PIO2F_1) - k * WEFT__MATH_PIO2F_2) -
		      k * WEFT__MATH_PIO2F_3) -
		     k * WEFT__MATH_PIO2F_4;
	weft_f32 z = r * r;
	weft_f32 ps = ((-1.9515295891e-4f * z + 8.3321608736e-3f) * z -
		       1.6666654611e-1f) *
			      z * r +
		      r;
	weft_f32 pc = ((2.443315711809948e-5f * z - 1.388731625493765e-3f) * z +
		       4.166664568298827e-2f) *
			      z * z -
		      0.5f * z + 1.0f;
	weft_u32 odd = q & 1u;

	/* Quadrant k mod 4: sin x = s, c, -s, -c; cos x = c, -s, -c, s. */
	*s = weft_u32_as_f32(weft_f32_as_u32(weft_select_f32(odd, pc, ps)) ^
			     ((q & 2u) << 30));
	*c = weft_u32_as_f32(weft_f32_as_u32(weft_select_f32(odd, ps, pc)) ^
			     (((q + 1u) & 2u) << 30));
}

/* a * b + c with one rounding (IEEE 754's fusedMultiplyAdd, the same
 * bits on every target): a prelude may define WEFT_FMA_F32; otherwise
 * each target's built-in (OpenCL's named through an object-like macro,
 * as double.h does for f64). On an x86-64 host, in a kernel built for a
 * CPU with FMA (a WEFT_KERNEL_SIMD kernel's x86-64-v3 and v4 builds, or
 * a function marked WEFT_FMA_FN) it is one instruction; elsewhere a call
 * of the C library's fmaf, exact but slow. */
#ifdef WEFT_FMA_F32
#define WEFT__MATH_FMAF WEFT_FMA_F32
#elif defined(WEFT_TARGET_OPENCL)
#define WEFT__MATH_FMAF fma
#elif defined(WEFT_TARGET_CUDA)
#define WEFT__MATH_FMAF(a, b, c) __fmaf_rn(a, b, c)
#else
#define WEFT__MATH_FMAF(a, b, c) __builtin_fmaf(a, b, c)
#endif

WEFT_FN weft_f32 weft_fmaf(weft_f32 a, weft_f32 b, weft_f32 c)
{
	return WEFT__MATH_FMAF(a, b, c);
}

/* WEFT_FMA_FN: WEFT_FN for a function of a kernel that is not
 * WEFT_KERNEL_SIMD and calls weft_fmaf (or weft_sincosf_fma) often. On an
 * x86-64 host compiled by GCC for the baseline instruction set, weft_fmaf
 * is a call of the C library's fmaf there; such a function gets a second
 * build for CPUs with FMA, where it is one instruction, everything it
 * calls inlined into it, and the loader picks the build the CPU runs
 * (GCC's target_clones), as double.h's WEFT_D64_FN. Both builds compute
 * the same bits. A WEFT_KERNEL_SIMD kernel needs none: its x86-64-v3 and
 * v4 builds have FMA. Elsewhere it is WEFT_FN. */
#ifdef WEFT_FMA_FN
#elif defined(WEFT_TARGET_HOST)
#define WEFT_FMA_FN WEFT_FN WEFT__FMA_CLONES
#else
#define WEFT_FMA_FN WEFT_FN
#endif

/* weft_sincosf_simd's method with fused multiply-adds: x = k pi/2 + r,
 * r = ((x - k C1) - k C2) - k C3 each step one fma (C1, C2, C3: pi/2 in
 * three f32 parts, to within 1e-22), the same Cephes polynomials
 * evaluated by Horner's rule in fmas. About 20 operations where
 * weft_sincosf_simd takes 34; branch-free, table-free, the same bits on
 * every target for finite x (sin(-0) is +0, and a NaN or infinite x
 * gives a NaN whose bits are the target's, as weft_sincosf_simd).
 * Against the C library's double sin and cos on every float: within
 * 1.49 ulp for |x| <= 64, 1.53 ulp for |x| < 6434; beyond, where
 * |k| >= 4096, take weft_sincosf. */
#define WEFT__MATH_PIO2F_A 0x1.921fb6p0f
#define WEFT__MATH_PIO2F_B -0x1.777a5cp-25f
#define WEFT__MATH_PIO2F_C -0x1.ee59dap-50f

WEFT_FN void weft_sincosf_fma(weft_f32 x, weft_f32 *s, weft_f32 *c)
{
	weft_f32 t = weft_fmaf(x, WEFT__MATH_2_PIF, WEFT__MATH_ROUNDF);
	weft_f32 k = t - WEFT__MATH_ROUNDF;
	weft_u32 q = weft_f32_as_u32(t);
	weft_f32 r = weft_fmaf(-k, WEFT__MATH_PIO2F_A, x);
	weft_f32 z, ps, pc;
	weft_u32 odd = q & 1u;

	r = weft_fmaf(-k, WEFT__MATH_PIO2F_B, r);
	r = weft_fmaf(-k, WEFT__MATH_PIO2F_C, r);
	z = r * r;
	ps = weft_fmaf(weft_fmaf(-1.9515295891e-4f, z, 8.3321608736e-3f), z,
		       -1.6666654611e-1f);
	ps = weft_fmaf(ps * z, r, r);
	pc = weft_fmaf(
		weft_fmaf(2.443315711809948e-5f, z, -1.388731625493765e-3f), z,
		4.166664568298827e-2f);
	pc = weft_fmaf(weft_fmaf(pc, z, -0.5f), z, 1.0f);
	*s = weft_u32_as_f32(weft_f32_as_u32(weft_select_f32(odd, pc, ps)) ^
			     ((q & 2u) << 30));
	*c = weft_u32_as_f32(weft_f32_as_u32(weft_select_f32(odd, ps, pc)) ^
			     (((q + 1u) & 2u) << 30));
}

WEFT_FN weft_f32 weft_asinf(weft_f32 x)
{
	return weft__math_f32(weft_asin(x));
}

WEFT_FN weft_f32 weft_acosf(weft_f32 x)
{
	return weft__math_f32(weft_acos(x));
}

WEFT_FN weft_f32 weft_atanf(weft_f32 x)
{
	return weft__math_f32(weft_atan(x));
}

WEFT_FN weft_f32 weft_atan2f(weft_f32 y, weft_f32 x)
{
	return weft__math_f32(weft_atan2(y, x));
}

WEFT_FN weft_f32 weft_expf(weft_f32 x)
{
	return weft__math_f32(weft_exp(x));
}

WEFT_FN weft_f32 weft_exp2f(weft_f32 x)
{
	return weft__math_f32(weft_exp2(x));
}

WEFT_FN weft_f32 weft_expm1f(weft_f32 x)
{
	return weft__math_f32(weft_expm1(x));
}

WEFT_FN weft_f32 weft_logf(weft_f32 x)
{
	return weft__math_f32(weft_log(x));
}

WEFT_FN weft_f32 weft_log2f(weft_f32 x)
{
	return weft__math_f32(weft_log2(x));
}

WEFT_FN weft_f32 weft_log1pf(weft_f32 x)
{
	return weft__math_f32(weft_log1p(x));
}

WEFT_FN weft_f32 weft_powf(weft_f32 x, weft_f32 y)
{
	return weft__math_f32(weft_pow(x, y));
}

WEFT_FN weft_f32 weft_tanhf(weft_f32 x)
{
	return weft__math_f32(weft_tanh(x));
}

#endif /* WEFT_MATH_H */
