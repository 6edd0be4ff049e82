/*
 * weft/softf64.h - IEEE 754 binary64 arithmetic on integers, in the kernel
 * dialect: doubles for devices that have none.
 *
 * A double is carried as its 64 bits in a weft_u64, and every operation is
 * written out on integer operations: add, sub, mul, div, fused
 * multiply-add, square root, negation, absolute value, comparisons and the
 * conversions from and to f32, i32 and u32, rounded to nearest, ties to
 * even, as IEEE 754 says, with subnormals, infinities and NaN. Integer
 * arithmetic is exact on every target, so every backend computes the same
 * bits, and they are the bits a double-precision FPU computes
 * (tests/core/test-softf64.c compares every operation with the host's
 * hardware on millions of operands and on the special values).
 *
 * NaN: an operation whose result is NaN returns WEFT_SF64_NAN (a positive
 * quiet NaN); an FPU may return another (x86's invalid operations give a
 * negative one), so only "is NaN" is portable, not a NaN's bits.
 * Conversions to i32 and u32 truncate toward zero, as C's casts, and are
 * defined, as C's are, only when the truncated value fits.
 *
 * Cost: tens to hundreds of integer operations each (a division is a long
 * division, a square root one bit per step); weft/double.h picks hardware
 * doubles where the device has them and these where it has not.
 *
 * The layout follows the usual software-float scheme: a result is
 * rounded from a significand `sig` whose leading one is at bit 62 (ten
 * bits below the 53 kept: bit 9 is the half, bits 8..0 are sticky) and an
 * exponent `exp` one less than the biased exponent of that leading one
 * (weft__sf64_round_pack adds the leading one into the exponent field):
 * the value is sig * 2^(exp - 1084).
 */
#ifndef WEFT_SOFTF64_H
#define WEFT_SOFTF64_H

#define WEFT_SF64_SIGN	   0x8000000000000000ul
#define WEFT_SF64_FRAC	   0x000ffffffffffffful
#define WEFT_SF64_HIDDEN   0x0010000000000000ul
#define WEFT_SF64_INF	   0x7ff0000000000000ul
#define WEFT_SF64_NAN	   0x7ff8000000000000ul
#define WEFT_SF64_ONE	   0x3ff0000000000000ul
#define WEFT_SF64_EXP(a)   ((weft_i32)(((a) >> 52) & 0x7ffu))
#define WEFT_SF64_ISNAN(a) (((a) & ~WEFT_SF64_SIGN) > WEFT_SF64_INF)

/* A 128-bit unsigned integer, for exact products and sums. */
typedef struct weft__sf64_u128 {
	weft_u64 hi, lo;
} weft__sf64_u128;

/* Leading zeros of a (64 for 0). */
WEFT_FN weft_i32 weft__sf64_clz(weft_u64 a)
{
	weft_i32 n = 0;

	if (!a)
		return 64;
	if (!(a >> 32)) {
		n += 32;
		a <<= 32;
	}
	if (!(a >> 48)) {
		n += 16;
		a <<= 16;
	}
	if (!(a >> 56)) {
		n += 8;
		a <<= 8;
	}
	if (!(a >> 60)) {
		n += 4;
		a <<= 4;
	}
	if (!(a >> 62)) {
		n += 2;
		a <<= 2;
	}
	if (!(a >> 63))
		n += 1;
	return n;
}

/* a >> d, with the bits shifted out ORed into bit 0 ("jamming"). */
WEFT_FN weft_u64 weft__sf64_shr_jam(weft_u64 a, weft_i32 d)
{
	if (d <= 0)
		return a;
	if (d >= 64)
		return a != 0u;
	return (a >> d) | ((a << (64 - d)) != 0u);
}

/* The full product of two 64-bit integers, from 32-bit halves. */
WEFT_FN weft__sf64_u128 weft__sf64_mul128(weft_u64 a, weft_u64 b)
{
	weft_u64 a0 = a & 0xffffffffu, a1 = a >> 32;
	weft_u64 b0 = b & 0xffffffffu, b1 = b >> 32;
	weft_u64 p00 = a0 * b0, p01 = a0 * b1, p10 = a1 * b0, p11 = a1 * b1;
	weft_u64 mid = (p00 >> 32) + (p01 & 0xffffffffu) + (p10 & 0xffffffffu);
	weft__sf64_u128 r;

	r.lo = (mid << 32) | (p00 & 0xffffffffu);
	r.hi = p11 + (p01 >> 32) + (p10 >> 32) + (mid >> 32);
	return r;
}

WEFT_FN weft_i32 weft__sf128_clz(weft__sf64_u128 a)
{
	return a.hi ? weft__sf64_clz(a.hi) : 64 + weft__sf64_clz(a.lo);
}

WEFT_FN weft__sf64_u128 weft__sf128_shl(weft__sf64_u128 a, weft_i32 d)
{
	weft__sf64_u128 r;

	if (d <= 0)
		return a;
	if (d >= 64) {
		r.hi = a.lo << (d - 64);
		r.lo = 0u;
		return r;
	}
	r.hi = (a.hi << d) | (a.lo >> (64 - d));
	r.lo = a.lo << d;
	return r;
}

WEFT_FN weft__sf64_u128 weft__sf128_shr_jam(weft__sf64_u128 a, weft_i32 d)
{
	weft__sf64_u128 r;

	if (d <= 0)
		return a;
	if (d >= 128) {
		r.hi = 0u;
		r.lo = (a.hi | a.lo) != 0u;
		return r;
	}
	if (d >= 64) {
		r.hi = 0u;
		r.lo = weft__sf64_shr_jam(a.hi, d - 64) | (a.lo != 0u);
		return r;
	}
	r.hi = a.hi >> d;
	r.lo = (a.hi << (64 - d)) | (a.lo >> d) | ((a.lo << (64 - d)) != 0u);
	return r;
}

/* Round sig (leading one at bit 62, or lower for a subnormal result) to
 * 53 bits, nearest even, and pack it with sign and exp (see the header). */
WEFT_FN weft_u64 weft__sf64_round_pack(weft_u64 sign, weft_i32 exp,
				       weft_u64 sig)
{
	weft_u64 round_bits = sig & 0x3ffu;

	if (exp < 0) {
		sig = weft__sf64_shr_jam(sig, -exp);
		exp = 0;
		round_bits = sig & 0x3ffu;
	} else if (exp > 0x7fd ||
		   (exp == 0x7fd && sig + 0x200u >= 0x8000000000000000ul)) {
		return sign | WEFT_SF64_INF;
	}
	sig = (sig + 0x200u) >> 10;
	if (round_bits == 0x200u)
		sig &= ~(weft_u64)1u;
	if (!sig)
		exp = 0;
	return sign + ((weft_u64)exp << 52) + sig;
}

/* The significand of a finite, non-zero a with its leading one at bit 52
 * (subnormals normalised), and its exponent (biased; below 1 for
 * subnormals). */
WEFT_FN weft_u64 weft__sf64_unpack(weft_u64 a, weft_i32 *exp)
{
	weft_u64 m = a & WEFT_SF64_FRAC;
	weft_i32 e = WEFT_SF64_EXP(a), s;

	if (e) {
		*exp = e;
		return m | WEFT_SF64_HIDDEN;
	}
	s = weft__sf64_clz(m) - 11;
	*exp = 1 - s;
	return m << s;
}

WEFT_FN int weft__sf64_is_zero(weft_u64 a)
{
	return (a & ~WEFT_SF64_SIGN) == 0u;
}

WEFT_FN int weft__sf64_is_inf(weft_u64 a)
{
	return (a & ~WEFT_SF64_SIGN) == WEFT_SF64_INF;
}

/* a + b, both finite and non-zero, |a| >= |b|. */
WEFT_FN weft_u64 weft__sf64_add_finite(weft_u64 a, weft_u64 b)
{
	weft_i32 ea, eb, s;
	weft_u64 ma = weft__sf64_unpack(a, &ea) << 9,
		 mb = weft__sf64_unpack(b, &eb) << 9;
	weft_u64 m;

	mb = weft__sf64_shr_jam(mb, ea - eb);
	m = ((a ^ b) & WEFT_SF64_SIGN) ? ma - mb : ma + mb;
	if (!m)
		return 0u; /* x - x is +0 when rounding to nearest */
	s = weft__sf64_clz(m) - 1;
	/* ma's leading one at bit 61 stands for 2^(ea - 1023): m * 2^(ea -
	 * 1084), which is round_pack's scale with exp = ea. */
	return weft__sf64_round_pack(a & WEFT_SF64_SIGN, ea - s, m << s);
}

WEFT_FN weft_u64 weft_sf64_add(weft_u64 a, weft_u64 b)
{
	if (WEFT_SF64_ISNAN(a) || WEFT_SF64_ISNAN(b))
		return WEFT_SF64_NAN;
	if (weft__sf64_is_inf(a) || weft__sf64_is_inf(b)) {
		if (weft__sf64_is_inf(a) && weft__sf64_is_inf(b) && a != b)
			return WEFT_SF64_NAN;
		return weft__sf64_is_inf(a) ? a : b;
	}
	if (weft__sf64_is_zero(a))
		return weft__sf64_is_zero(b) ? (a & b) : b;
	if (weft__sf64_is_zero(b))
		return a;
	if ((a & ~WEFT_SF64_SIGN) < (b & ~WEFT_SF64_SIGN))
		return weft__sf64_add_finite(b, a);
	return weft__sf64_add_finite(a, b);
}

WEFT_FN weft_u64 weft_sf64_sub(weft_u64 a, weft_u64 b)
{
	return weft_sf64_add(a, WEFT_SF64_ISNAN(b) ? b : b ^ WEFT_SF64_SIGN);
}

WEFT_FN weft_u64 weft_sf64_neg(weft_u64 a)
{
	return a ^ WEFT_SF64_SIGN;
}

WEFT_FN weft_u64 weft_sf64_abs(weft_u64 a)
{
	return a & ~WEFT_SF64_SIGN;
}

/* Round an exact 128-bit magnitude p, worth p * 2^(scale - 1075 - 1075),
 * into a double. */
WEFT_FN weft_u64 weft__sf64_round128(weft_u64 sign, weft_i32 scale,
				     weft__sf64_u128 p)
{
	weft_i32 k = weft__sf128_clz(p) - 1;
	weft_u64 sig;

	p = weft__sf128_shl(p, k);
	sig = p.hi | (p.lo != 0u);
	/* p << k has its leading one at bit 126; sig = (p << k) / 2^64:
	 * value = sig * 2^(scale - 2150 + 64 - k) = sig * 2^(exp - 1084). */
	return weft__sf64_round_pack(sign, scale - 1002 - k, sig);
}

WEFT_FN weft_u64 weft_sf64_mul(weft_u64 a, weft_u64 b)
{
	weft_u64 sign = (a ^ b) & WEFT_SF64_SIGN;
	weft_i32 ea, eb;
	weft_u64 ma, mb;

	if (WEFT_SF64_ISNAN(a) || WEFT_SF64_ISNAN(b))
		return WEFT_SF64_NAN;
	if (weft__sf64_is_inf(a) || weft__sf64_is_inf(b))
		return weft__sf64_is_zero(a) || weft__sf64_is_zero(b)
			       ? WEFT_SF64_NAN
			       : sign | WEFT_SF64_INF;
	if (weft__sf64_is_zero(a) || weft__sf64_is_zero(b))
		return sign;
	ma = weft__sf64_unpack(a, &ea);
	mb = weft__sf64_unpack(b, &eb);
	return weft__sf64_round128(sign, ea + eb, weft__sf64_mul128(ma, mb));
}

/* a * b + c with one rounding (IEEE 754 fusedMultiplyAdd). */
WEFT_FN weft_u64 weft_sf64_fma(weft_u64 a, weft_u64 b, weft_u64 c)
{
	weft_u64 sp = (a ^ b) & WEFT_SF64_SIGN, sc = c & WEFT_SF64_SIGN;
	weft_i32 ea, eb, ec, ep, d;
	weft__sf64_u128 p, q;

	if (WEFT_SF64_ISNAN(a) || WEFT_SF64_ISNAN(b) || WEFT_SF64_ISNAN(c))
		return WEFT_SF64_NAN;
	if (weft__sf64_is_inf(a) || weft__sf64_is_inf(b)) {
		if (weft__sf64_is_zero(a) || weft__sf64_is_zero(b) ||
		    (weft__sf64_is_inf(c) && sc != sp))
			return WEFT_SF64_NAN;
		return sp | WEFT_SF64_INF;
	}
	if (weft__sf64_is_inf(c))
		return c;
	if (weft__sf64_is_zero(a) || weft__sf64_is_zero(b))
		return weft__sf64_is_zero(c) ? (sp & sc) : c;
	p = weft__sf64_mul128(weft__sf64_unpack(a, &ea),
			      weft__sf64_unpack(b, &eb));
	ep = ea + eb; /* p * 2^(ep - 2150) */
	if (weft__sf64_is_zero(c))
		return weft__sf64_round128(sp, ep, p);
	/* Both magnitudes with their leading one at bit 125, two spare bits
	 * above it for the carry, then aligned on the larger. */
	q.hi = 0u;
	q.lo = weft__sf64_unpack(c, &ec);
	q = weft__sf128_shl(q, 125 - 52); /* c = q * 2^(ec - 1148) */
	d = weft__sf128_clz(p) - 2;
	p = weft__sf128_shl(p, d); /* a * b = p * 2^(ep - 2150 - d) */
	ep = ep - 1002 - d; /*       = p * 2^(ep - 1148): compare with ec */
	if (ep < ec ||
	    (ep == ec && (p.hi < q.hi || (p.hi == q.hi && p.lo < q.lo)))) {
		weft__sf64_u128 t = p;
		weft_i32 te = ep;
		weft_u64 ts = sp;

		p = q;
		q = t;
		ep = ec;
		ec = te;
		sp = sc;
		sc = ts;
	}
	q = weft__sf128_shr_jam(q, ep - ec);
	if (sp == sc) {
		weft_u64 lo = p.lo + q.lo;

		p.hi = p.hi + q.hi + (lo < p.lo);
		p.lo = lo;
	} else {
		p.hi = p.hi - q.hi - (p.lo < q.lo);
		p.lo = p.lo - q.lo;
		if (!p.hi && !p.lo)
			return 0u;
	}
	/* p * 2^(ep - 1148), and weft__sf64_round128 takes p * 2^(scale - 2150)
	 */
	return weft__sf64_round128(sp, ep + 1002, p);
}

/* a / b. */
WEFT_FN weft_u64 weft_sf64_div(weft_u64 a, weft_u64 b)
{
	weft_u64 sign = (a ^ b) & WEFT_SF64_SIGN, ma, mb, q, r;
	weft_i32 ea, eb, k;

	if (WEFT_SF64_ISNAN(a) || WEFT_SF64_ISNAN(b))
		return WEFT_SF64_NAN;
	if (weft__sf64_is_inf(a))
		return weft__sf64_is_inf(b) ? WEFT_SF64_NAN
					    : sign | WEFT_SF64_INF;
	if (weft__sf64_is_inf(b))
		return sign;
	if (weft__sf64_is_zero(b))
		return weft__sf64_is_zero(a) ? WEFT_SF64_NAN
					     : sign | WEFT_SF64_INF;
	if (weft__sf64_is_zero(a))
		return sign;
	ma = weft__sf64_unpack(a, &ea);
	mb = weft__sf64_unpack(b, &eb);
	if (ma < mb) {
		ma <<= 1;
		ea--;
	}
	/* Long division, 11 quotient bits at a time (r < mb < 2^53, so r <<
	 * 11 fits): the first digit is 1, then 62 more bits. */
	q = ma / mb;
	r = ma % mb;
	for (k = 0; k < 62; k += 11) {
		weft_i32 step = 62 - k < 11 ? 62 - k : 11;

		r <<= step;
		q = (q << step) | (r / mb);
		r = r % mb;
	}
	return weft__sf64_round_pack(sign, ea - eb + 1022, q | (r != 0u));
}

/* a < b, as IEEE 754 compares: false when either is NaN, -0 == +0. */
WEFT_FN int weft_sf64_lt(weft_u64 a, weft_u64 b)
{
	int sa = (a >> 63) != 0u, sb = (b >> 63) != 0u;

	if (WEFT_SF64_ISNAN(a) || WEFT_SF64_ISNAN(b))
		return 0;
	if (weft__sf64_is_zero(a) && weft__sf64_is_zero(b))
		return 0;
	if (sa != sb)
		return sa;
	return sa ? a > b : a < b;
}

/* a == b: false when either is NaN, -0 == +0. */
WEFT_FN int weft_sf64_eq(weft_u64 a, weft_u64 b)
{
	if (WEFT_SF64_ISNAN(a) || WEFT_SF64_ISNAN(b))
		return 0;
	return a == b || (weft__sf64_is_zero(a) && weft__sf64_is_zero(b));
}

/* a <= b: false when either is NaN. */
WEFT_FN int weft_sf64_le(weft_u64 a, weft_u64 b)
{
	return weft_sf64_lt(a, b) || weft_sf64_eq(a, b);
}

/* The square root of a, correctly rounded: sqrt(-0) is -0, of a negative
 * number NaN. The significand, its exponent made even, is shifted to a
 * 128-bit radicand whose root has its leading one at bit 62, taken one
 * bit at a time (the remainder makes the sticky bit). */
WEFT_FN weft_u64 weft_sf64_sqrt(weft_u64 a)
{
	weft__sf64_u128 n, r, t;
	weft_u64 m, q = 0u;
	weft_i32 e, k;

	if (WEFT_SF64_ISNAN(a) || weft__sf64_is_zero(a))
		return WEFT_SF64_ISNAN(a) ? WEFT_SF64_NAN : a;
	if (a >> 63)
		return WEFT_SF64_NAN;
	if (weft__sf64_is_inf(a))
		return a;
	m = weft__sf64_unpack(a, &e); /* a = m * 2^(e - 1075) */
	e -= 1075;
	if (e & 1) {
		m <<= 1;
		e -= 1;
	}
	/* n = m * 2^72, in [2^124, 2^126): its root in [2^62, 2^63), and
	 * sqrt(a) = root * 2^(e / 2 - 36) = root * 2^(exp - 1084). */
	n.hi = m << 8;
	n.lo = 0u;
	r.hi = 0u;
	r.lo = 0u;
	for (k = 63; k >= 0; k--) {
		/* r = 4r + the next two bits of n; t = 4q + 1 */
		weft_u64 two = k >= 32 ? (n.hi >> (2 * (k - 32))) & 3u
				       : (n.lo >> (2 * k)) & 3u;

		r = weft__sf128_shl(r, 2);
		r.lo |= two;
		t.hi = q >> 62;
		t.lo = (q << 2) | 1u;
		q <<= 1;
		if (r.hi > t.hi || (r.hi == t.hi && r.lo >= t.lo)) {
			r.hi = r.hi - t.hi - (r.lo < t.lo);
			r.lo = r.lo - t.lo;
			q |= 1u;
		}
	}
	return weft__sf64_round_pack(0u, e / 2 + 1048,
				     q | ((r.hi | r.lo) != 0u));
}

/* The float nearest a (ties to even), as its 32 bits. */
WEFT_FN weft_u32 weft_sf64_to_f32_bits(weft_u64 a)
{
	weft_u32 sign = (weft_u32)(a >> 32) & 0x80000000u;
	weft_i32 e, exp;
	weft_u32 sig, round_bits;

	if (WEFT_SF64_ISNAN(a))
		return 0x7fc00000u;
	if (weft__sf64_is_inf(a))
		return sign | 0x7f800000u;
	if (weft__sf64_is_zero(a))
		return sign;
	/* Leading one at bit 30, seven rounding bits (half: 0x40). */
	sig = (weft_u32)weft__sf64_shr_jam(weft__sf64_unpack(a, &e), 22);
	exp = e - 1023 + 127 - 1;
	if (exp < 0) {
		sig = (weft_u32)weft__sf64_shr_jam(sig, -exp);
		exp = 0;
	} else if (exp > 0xfd || (exp == 0xfd && sig + 0x40u >= 0x80000000u)) {
		return sign | 0x7f800000u;
	}
	round_bits = sig & 0x7fu;
	sig = (sig + 0x40u) >> 7;
	if (round_bits == 0x40u)
		sig &= ~1u;
	if (!sig)
		exp = 0;
	return sign + ((weft_u32)exp << 23) + sig;
}

/* The double equal to the float whose bits are w. */
WEFT_FN weft_u64 weft_sf64_from_f32_bits(weft_u32 w)
{
	weft_u64 sign = (weft_u64)(w & 0x80000000u) << 32;
	weft_u32 e = (w >> 23) & 0xffu, m = w & 0x7fffffu;
	weft_i32 s;

	if (e == 0xffu)
		return m ? WEFT_SF64_NAN : sign | WEFT_SF64_INF;
	if (e == 0u) {
		if (!m)
			return sign;
		s = weft__sf64_clz((weft_u64)m) -
		    40; /* leading one to bit 23 */
		return sign | ((weft_u64)(1 - s - 127 + 1023) << 52) |
		       (((weft_u64)m << s << 29) & WEFT_SF64_FRAC);
	}
	return sign | ((weft_u64)(e - 127u + 1023u) << 52) |
	       ((weft_u64)m << 29);
}

/* The double equal to the integer i. */
WEFT_FN weft_u64 weft_sf64_from_i32(weft_i32 i)
{
	weft_u64 sign = i < 0 ? WEFT_SF64_SIGN : 0u;
	weft_u64 m = i < 0 ? (weft_u64)(0u - (weft_u32)i) : (weft_u64)i;
	weft_i32 s;

	if (!m)
		return 0u;
	s = weft__sf64_clz(m) - 11; /* leading one to bit 52 */
	return sign | ((weft_u64)(1023 + 52 - s) << 52) |
	       ((m << s) & WEFT_SF64_FRAC);
}

/* The double equal to the integer u. */
WEFT_FN weft_u64 weft_sf64_from_u32(weft_u32 u)
{
	weft_u64 m = u;
	weft_i32 s;

	if (!m)
		return 0u;
	s = weft__sf64_clz(m) - 11; /* leading one to bit 52 */
	return ((weft_u64)(1023 + 52 - s) << 52) | ((m << s) & WEFT_SF64_FRAC);
}

/* |a| truncated toward zero, for |a| < 2^32 (0 below 1; 2^32 - 1 for
 * larger magnitudes, infinities and NaN, which the callers leave
 * unspecified). */
WEFT_FN weft_u32 weft__sf64_trunc_mag(weft_u64 a)
{
	weft_i32 e = WEFT_SF64_EXP(a) - 1075; /* a = m * 2^e */
	weft_u64 m = (a & WEFT_SF64_FRAC) | WEFT_SF64_HIDDEN;

	if (WEFT_SF64_EXP(a) < 1023)
		return 0u;
	if (e > -21)
		return 0xffffffffu;
	return (weft_u32)(m >> -e);
}

/* a truncated toward zero, as C's (weft_i32) cast: defined when the
 * result lies in [-2^31, 2^31). */
WEFT_FN weft_i32 weft_sf64_to_i32(weft_u64 a)
{
	weft_u32 m = weft__sf64_trunc_mag(a);

	return (a >> 63) ? (weft_i32)(0u - m) : (weft_i32)m;
}

/* a truncated toward zero, as C's (weft_u32) cast: defined when the
 * result lies in [0, 2^32). */
WEFT_FN weft_u32 weft_sf64_to_u32(weft_u64 a)
{
	return (a >> 63) ? 0u : weft__sf64_trunc_mag(a);
}

#endif /* WEFT_SOFTF64_H */
