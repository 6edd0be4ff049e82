/*
 * models/cartpole/cartpole_f64.h - IEEE 754 binary64 arithmetic in integer
 * operations, in the kernel dialect, for [cartpole] precision = f64.
 *
 * The dialect has no 64-bit float (OpenCL's double is optional, and a
 * device's double may contract or flush), so a double is carried as its
 * bits in a weft_u64 and every operation is written out on integers:
 * add, sub, mul, fused multiply-add, div, comparisons and the conversions
 * the model needs, all rounded to nearest, ties to even, as IEEE 754 says,
 * with subnormals, infinities and NaN (one quiet NaN). Integer arithmetic
 * is exact on every target, so every backend computes the same bits, and
 * they are the bits a double-precision FPU computes
 * (tests/models/test-cartpole-f64.c compares each operation with the host's
 * hardware on millions of operands).
 *
 * The layout follows the usual software-float scheme: a result is
 * rounded from a significand `sig` whose leading one is at bit 62 (ten
 * bits below the 53 kept: bit 9 is the half, bits 8..0 are sticky) and an
 * exponent `exp` one less than the biased exponent of that leading one
 * (cp64_round_pack adds the leading one into the exponent field).
 */
#ifndef CARTPOLE_F64_H
#define CARTPOLE_F64_H

#define CP64_SIGN     0x8000000000000000ul
#define CP64_FRAC     0x000ffffffffffffful
#define CP64_HIDDEN   0x0010000000000000ul
#define CP64_INF      0x7ff0000000000000ul
#define CP64_NAN      0x7ff8000000000000ul
#define CP64_ONE      0x3ff0000000000000ul
#define CP64_EXP(a)   ((weft_i32)(((a) >> 52) & 0x7ffu))
#define CP64_ISNAN(a) (((a) & ~CP64_SIGN) > CP64_INF)

/* A 128-bit unsigned integer, for exact products and sums. */
typedef struct cp_u128 {
	weft_u64 hi, lo;
} cp_u128;

/* Leading zeros of a (64 for 0). */
WEFT_FN weft_i32 cp64_clz(weft_u64 a)
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
WEFT_FN weft_u64 cp64_shr_jam(weft_u64 a, weft_i32 d)
{
	if (d <= 0)
		return a;
	if (d >= 64)
		return a != 0u;
	return (a >> d) | ((a << (64 - d)) != 0u);
}

/* The full product of two 64-bit integers, from 32-bit halves. */
WEFT_FN cp_u128 cp64_mul128(weft_u64 a, weft_u64 b)
{
	weft_u64 a0 = a & 0xffffffffu, a1 = a >> 32;
	weft_u64 b0 = b & 0xffffffffu, b1 = b >> 32;
	weft_u64 p00 = a0 * b0, p01 = a0 * b1, p10 = a1 * b0, p11 = a1 * b1;
	weft_u64 mid = (p00 >> 32) + (p01 & 0xffffffffu) + (p10 & 0xffffffffu);
	cp_u128 r;

	r.lo = (mid << 32) | (p00 & 0xffffffffu);
	r.hi = p11 + (p01 >> 32) + (p10 >> 32) + (mid >> 32);
	return r;
}

WEFT_FN weft_i32 cp128_clz(cp_u128 a)
{
	return a.hi ? cp64_clz(a.hi) : 64 + cp64_clz(a.lo);
}

WEFT_FN cp_u128 cp128_shl(cp_u128 a, weft_i32 d)
{
	cp_u128 r;

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

WEFT_FN cp_u128 cp128_shr_jam(cp_u128 a, weft_i32 d)
{
	cp_u128 r;

	if (d <= 0)
		return a;
	if (d >= 128) {
		r.hi = 0u;
		r.lo = (a.hi | a.lo) != 0u;
		return r;
	}
	if (d >= 64) {
		r.hi = 0u;
		r.lo = cp64_shr_jam(a.hi, d - 64) | (a.lo != 0u);
		return r;
	}
	r.hi = a.hi >> d;
	r.lo = (a.hi << (64 - d)) | (a.lo >> d) | ((a.lo << (64 - d)) != 0u);
	return r;
}

/* Round sig (leading one at bit 62, or lower for a subnormal result) to
 * 53 bits, nearest even, and pack it with sign and exp (see the header). */
WEFT_FN weft_u64 cp64_round_pack(weft_u64 sign, weft_i32 exp, weft_u64 sig)
{
	weft_u64 round_bits = sig & 0x3ffu;

	if (exp < 0) {
		sig = cp64_shr_jam(sig, -exp);
		exp = 0;
		round_bits = sig & 0x3ffu;
	} else if (exp > 0x7fd ||
		   (exp == 0x7fd && sig + 0x200u >= 0x8000000000000000ul)) {
		return sign | CP64_INF;
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
WEFT_FN weft_u64 cp64_unpack(weft_u64 a, weft_i32 *exp)
{
	weft_u64 m = a & CP64_FRAC;
	weft_i32 e = CP64_EXP(a), s;

	if (e) {
		*exp = e;
		return m | CP64_HIDDEN;
	}
	s = cp64_clz(m) - 11;
	*exp = 1 - s;
	return m << s;
}

WEFT_FN int cp64_is_zero(weft_u64 a)
{
	return (a & ~CP64_SIGN) == 0u;
}

WEFT_FN int cp64_is_inf(weft_u64 a)
{
	return (a & ~CP64_SIGN) == CP64_INF;
}

/* a + b, both finite and non-zero, |a| >= |b|. */
WEFT_FN weft_u64 cp64_add_finite(weft_u64 a, weft_u64 b)
{
	weft_i32 ea, eb, s;
	weft_u64 ma = cp64_unpack(a, &ea) << 9, mb = cp64_unpack(b, &eb) << 9;
	weft_u64 m;

	mb = cp64_shr_jam(mb, ea - eb);
	m = ((a ^ b) & CP64_SIGN) ? ma - mb : ma + mb;
	if (!m)
		return 0u; /* x - x is +0 when rounding to nearest */
	s = cp64_clz(m) - 1;
	/* ma's leading one at bit 61 stands for 2^(ea - 1023): m * 2^(ea -
	 * 1084), which is round_pack's scale with exp = ea. */
	return cp64_round_pack(a & CP64_SIGN, ea - s, m << s);
}

WEFT_FN weft_u64 cp64_add(weft_u64 a, weft_u64 b)
{
	if (CP64_ISNAN(a) || CP64_ISNAN(b))
		return CP64_NAN;
	if (cp64_is_inf(a) || cp64_is_inf(b)) {
		if (cp64_is_inf(a) && cp64_is_inf(b) && a != b)
			return CP64_NAN;
		return cp64_is_inf(a) ? a : b;
	}
	if (cp64_is_zero(a))
		return cp64_is_zero(b) ? (a & b) : b;
	if (cp64_is_zero(b))
		return a;
	if ((a & ~CP64_SIGN) < (b & ~CP64_SIGN))
		return cp64_add_finite(b, a);
	return cp64_add_finite(a, b);
}

WEFT_FN weft_u64 cp64_sub(weft_u64 a, weft_u64 b)
{
	return cp64_add(a, CP64_ISNAN(b) ? b : b ^ CP64_SIGN);
}

WEFT_FN weft_u64 cp64_neg(weft_u64 a)
{
	return a ^ CP64_SIGN;
}

WEFT_FN weft_u64 cp64_abs(weft_u64 a)
{
	return a & ~CP64_SIGN;
}

/* Round an exact 128-bit magnitude p, worth p * 2^(scale - 1075 - 1075),
 * into a double. */
WEFT_FN weft_u64 cp64_round128(weft_u64 sign, weft_i32 scale, cp_u128 p)
{
	weft_i32 k = cp128_clz(p) - 1;
	weft_u64 sig;

	p = cp128_shl(p, k);
	sig = p.hi | (p.lo != 0u);
	/* p << k has its leading one at bit 126; sig = (p << k) / 2^64:
	 * value = sig * 2^(scale - 2150 + 64 - k) = sig * 2^(exp - 1084). */
	return cp64_round_pack(sign, scale - 1002 - k, sig);
}

WEFT_FN weft_u64 cp64_mul(weft_u64 a, weft_u64 b)
{
	weft_u64 sign = (a ^ b) & CP64_SIGN;
	weft_i32 ea, eb;
	weft_u64 ma, mb;

	if (CP64_ISNAN(a) || CP64_ISNAN(b))
		return CP64_NAN;
	if (cp64_is_inf(a) || cp64_is_inf(b))
		return cp64_is_zero(a) || cp64_is_zero(b) ? CP64_NAN
							  : sign | CP64_INF;
	if (cp64_is_zero(a) || cp64_is_zero(b))
		return sign;
	ma = cp64_unpack(a, &ea);
	mb = cp64_unpack(b, &eb);
	return cp64_round128(sign, ea + eb, cp64_mul128(ma, mb));
}

/* a * b + c with one rounding (IEEE 754 fusedMultiplyAdd). */
WEFT_FN weft_u64 cp64_fma(weft_u64 a, weft_u64 b, weft_u64 c)
{
	weft_u64 sp = (a ^ b) & CP64_SIGN, sc = c & CP64_SIGN;
	weft_i32 ea, eb, ec, ep, d;
	cp_u128 p, q;

	if (CP64_ISNAN(a) || CP64_ISNAN(b) || CP64_ISNAN(c))
		return CP64_NAN;
	if (cp64_is_inf(a) || cp64_is_inf(b)) {
		if (cp64_is_zero(a) || cp64_is_zero(b) ||
		    (cp64_is_inf(c) && sc != sp))
			return CP64_NAN;
		return sp | CP64_INF;
	}
	if (cp64_is_inf(c))
		return c;
	if (cp64_is_zero(a) || cp64_is_zero(b))
		return cp64_is_zero(c) ? (sp & sc) : c;
	p = cp64_mul128(cp64_unpack(a, &ea), cp64_unpack(b, &eb));
	ep = ea + eb; /* p * 2^(ep - 2150) */
	if (cp64_is_zero(c))
		return cp64_round128(sp, ep, p);
	/* Both magnitudes with their leading one at bit 125, two spare bits
	 * above it for the carry, then aligned on the larger. */
	q.hi = 0u;
	q.lo = cp64_unpack(c, &ec);
	q = cp128_shl(q, 125 - 52); /* c = q * 2^(ec - 1148) */
	d = cp128_clz(p) - 2;
	p = cp128_shl(p, d); /* a * b = p * 2^(ep - 2150 - d) */
	ep = ep - 1002 - d;  /*       = p * 2^(ep - 1148): compare with ec */
	if (ep < ec ||
	    (ep == ec && (p.hi < q.hi || (p.hi == q.hi && p.lo < q.lo)))) {
		cp_u128 t = p;
		weft_i32 te = ep;
		weft_u64 ts = sp;

		p = q;
		q = t;
		ep = ec;
		ec = te;
		sp = sc;
		sc = ts;
	}
	q = cp128_shr_jam(q, ep - ec);
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
	/* p * 2^(ep - 1148), and cp64_round128 takes p * 2^(scale - 2150) */
	return cp64_round128(sp, ep + 1002, p);
}

/* a / b. */
WEFT_FN weft_u64 cp64_div(weft_u64 a, weft_u64 b)
{
	weft_u64 sign = (a ^ b) & CP64_SIGN, ma, mb, q, r;
	weft_i32 ea, eb, k;

	if (CP64_ISNAN(a) || CP64_ISNAN(b))
		return CP64_NAN;
	if (cp64_is_inf(a))
		return cp64_is_inf(b) ? CP64_NAN : sign | CP64_INF;
	if (cp64_is_inf(b))
		return sign;
	if (cp64_is_zero(b))
		return cp64_is_zero(a) ? CP64_NAN : sign | CP64_INF;
	if (cp64_is_zero(a))
		return sign;
	ma = cp64_unpack(a, &ea);
	mb = cp64_unpack(b, &eb);
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
	return cp64_round_pack(sign, ea - eb + 1022, q | (r != 0u));
}

/* a < b, for non-NaN operands (-0 == +0). */
WEFT_FN int cp64_lt(weft_u64 a, weft_u64 b)
{
	int sa = (a >> 63) != 0u, sb = (b >> 63) != 0u;

	if (cp64_is_zero(a) && cp64_is_zero(b))
		return 0;
	if (sa != sb)
		return sa;
	return sa ? a > b : a < b;
}

/* The float nearest a (ties to even), as its 32 bits. */
WEFT_FN weft_u32 cp64_to_f32_bits(weft_u64 a)
{
	weft_u32 sign = (weft_u32)(a >> 32) & 0x80000000u;
	weft_i32 e, exp;
	weft_u32 sig, round_bits;

	if (CP64_ISNAN(a))
		return 0x7fc00000u;
	if (cp64_is_inf(a))
		return sign | 0x7f800000u;
	if (cp64_is_zero(a))
		return sign;
	/* Leading one at bit 30, seven rounding bits (half: 0x40). */
	sig = (weft_u32)cp64_shr_jam(cp64_unpack(a, &e), 22);
	exp = e - 1023 + 127 - 1;
	if (exp < 0) {
		sig = (weft_u32)cp64_shr_jam(sig, -exp);
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
WEFT_FN weft_u64 cp64_from_f32_bits(weft_u32 w)
{
	weft_u64 sign = (weft_u64)(w & 0x80000000u) << 32;
	weft_u32 e = (w >> 23) & 0xffu, m = w & 0x7fffffu;
	weft_i32 s;

	if (e == 0xffu)
		return m ? CP64_NAN : sign | CP64_INF;
	if (e == 0u) {
		if (!m)
			return sign;
		s = cp64_clz((weft_u64)m) - 40; /* leading one to bit 23 */
		return sign | ((weft_u64)(1 - s - 127 + 1023) << 52) |
		       (((weft_u64)m << s << 29) & CP64_FRAC);
	}
	return sign | ((weft_u64)(e - 127u + 1023u) << 52) |
	       ((weft_u64)m << 29);
}

/* The double equal to the integer i. */
WEFT_FN weft_u64 cp64_from_i32(weft_i32 i)
{
	weft_u64 sign = i < 0 ? CP64_SIGN : 0u;
	weft_u64 m = i < 0 ? (weft_u64)(0u - (weft_u32)i) : (weft_u64)i;
	weft_i32 s;

	if (!m)
		return 0u;
	s = cp64_clz(m) - 11; /* leading one to bit 52 */
	return sign | ((weft_u64)(1023 + 52 - s) << 52) |
	       ((m << s) & CP64_FRAC);
}

#endif /* CARTPOLE_F64_H */
