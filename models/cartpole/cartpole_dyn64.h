/*
 * models/cartpole/cartpole_dyn64.h - CartPole-v1 in binary64 for
 * [cartpole] precision = f64: Gymnasium's CartPoleEnv.step operation by
 * operation, on weft_d64 (weft/double.h: the device's hardware doubles
 * where it has them, weft/softf64.h's integer doubles where it has not),
 * so that the state and the float32 observations are Gymnasium's, bit for
 * bit, on every backend (models/cartpole/cartpole.md, "Gymnasium-exact
 * physics").
 *
 * Gymnasium computes cos and sin with numpy, which calls the C library
 * for float64 scalars. glibc's sin and cos are not correctly rounded (up
 * to 0.548 ulp): their bits come from their algorithm, so it is written
 * out here, as glibc 2.28 and later (sysdeps/ieee754/dbl-64/s_sin.c) run
 * it on x86-64 with FMA (the __sin_fma and __cos_fma variants the C
 * library picks on any x86-64 with AVX2 and FMA): for |x| < 0.855469 a
 * Taylor polynomial (sin, |x| < 0.126) or the sine and cosine of the
 * nearest multiple of 1/128, from a table, combined with a short
 * polynomial of the remainder, with fused multiply-adds where the
 * compiled library has them (read off its machine code, and checked on 2e7
 * angles: tests/models/test-cartpole-f64.c). CartPole only ever takes the
 * sine of an angle within 12 degrees, so the larger-argument paths are left
 * out. The table (cp64_sincos_table) is the model's `constants` buffer.
 * Constants are written as their bits (no double literal in the program
 * text: a device without doubles has none).
 */
#ifndef CARTPOLE_DYN64_H
#define CARTPOLE_DYN64_H

#include <weft/double.h>

/* Gymnasium's constants as its float64 arithmetic makes them. */
#define CP64_GRAVITY	     0x402399999999999aul /* 9.8 */
#define CP64_MASSPOLE	     0x3fb999999999999aul /* 0.1 */
#define CP64_TOTAL_MASS	     0x3ff199999999999aul /* 0.1 + 1.0 */
#define CP64_LENGTH	     0x3fe0000000000000ul /* 0.5 */
#define CP64_POLEMASS_LENGTH 0x3fa999999999999aul /* 0.1 * 0.5 */
#define CP64_FORCE	     0x4024000000000000ul /* 10.0 */
#define CP64_TAU	     0x3f947ae147ae147bul /* 0.02 */
#define CP64_FOUR_THIRDS     0x3ff5555555555555ul /* 4.0 / 3.0 */
#define CP64_X_THRESHOLD     0x4003333333333333ul /* 2.4 */
#define CP64_THETA_THRESHOLD 0x3fcacee9f37bebd5ul /* 12 * 2 * pi / 360 */
/* CP_RESET_SCALE, the f32 constant, as a double. */
#define CP64_RESET_SCALE 0x3e399999a0000000ul
#define CP64_ONE	 0x3ff0000000000000ul
#define CP64_SIGN	 0x8000000000000000ul

/* The constants of glibc's sin and cos. */
#define CP64_TRIG_BIG 0x42c8000000000000ul /* 1.5 * 2^45: rounds to 1/128 */
#define CP64_S1	      0xbfc5555555555555ul
#define CP64_S2	      0x3f81111111110eceul
#define CP64_S3	      0xbf2a01a019db08b8ul
#define CP64_S4	      0x3ec71de27b9a7ed9ul
#define CP64_S5	      0xbe5addffc2fcdf59ul
#define CP64_SN3      0xbfc5555555555515ul
#define CP64_SN5      0x3f811110e829872ful
#define CP64_CS2      0x3fe0000000000000ul
#define CP64_CS4      0xbfa5555555555535ul
#define CP64_CS6      0x3f56c16bedd9e239ul
#define CP64_0_126    0x3fc020c49ba5e354ul /* 0.126 */

/* The `constants` buffer: for k = 0 .. CP64_TABLE_ROWS - 1, sin(k/128)
 * and cos(k/128), each as a double and a correction (sn, ssn, cs, ccs);
 * then the linear policy's weights and bias as doubles. */
#define CP64_TABLE_ROWS	  28 /* up to 27/128 > 12 degrees */
#define CP64_CONST_POLICY (4 * CP64_TABLE_ROWS)
#define CP64_CONST_COUNT  (CP64_CONST_POLICY + 5)

/* A constant (bits) as a weft_d64. */
#define CP64_K(bits) weft_d64_from_bits(bits)

typedef struct cartpole_obs64 {
	weft_d64 x, x_dot, theta, theta_dot;
} cartpole_obs64;

/* |x| split into the nearest k/128 (its table row, returned) and the
 * remainder *r, as glibc does it: u = big + |x|; r = |x| - (u - big). */
WEFT_FN weft_u32 cp64_trig_split(weft_d64 ax, weft_d64 *r)
{
	weft_d64 u = weft_d64_add(ax, CP64_K(CP64_TRIG_BIG));

	*r = weft_d64_sub(ax, weft_d64_sub(u, CP64_K(CP64_TRIG_BIG)));
	return (weft_u32)weft_d64_bits(u) * 4u;
}

/* Row k's entries of the table. */
WEFT_FN weft_d64 cp64_tab(WEFT_GLOBAL const weft_u64 *tab, weft_u32 k)
{
	return weft_d64_from_bits(tab[k]);
}

/* The polynomials that glibc's do_sin and do_cos share, at xx = r * r
 * (returned): *p = SN3 + xx SN5, the sine's, and
 * *q = CS2 + xx (CS4 + xx CS6), the cosine's. */
WEFT_FN weft_d64 cp64_sincos_poly(weft_d64 r, weft_d64 *p, weft_d64 *q)
{
	weft_d64 xx = weft_d64_mul(r, r);

	*p = weft_d64_fma(xx, CP64_K(CP64_SN5), CP64_K(CP64_SN3));
	*q = weft_d64_fma(xx, CP64_K(CP64_CS6), CP64_K(CP64_CS4));
	*q = weft_d64_fma(xx, *q, CP64_K(CP64_CS2));
	return xx;
}

/* glibc's sin(x) for |x| <= 0.2094 (CartPole's angles). */
WEFT_FN weft_d64 cp64_sin(weft_d64 x, WEFT_GLOBAL const weft_u64 *tab)
{
	weft_d64 ax = weft_d64_abs(x), r, xx, p, t, q, s, c, cor, dx;
	weft_u32 k;

	if (weft_d64_lt(ax, CP64_K(0x3e50000000000000ul))) /* |x| < 2^-26 */
		return x;
	if (weft_d64_lt(ax, CP64_K(CP64_0_126))) {
		xx = weft_d64_mul(x, x);
		p = weft_d64_fma(xx, CP64_K(CP64_S5), CP64_K(CP64_S4));
		p = weft_d64_fma(xx, p, CP64_K(CP64_S3));
		p = weft_d64_fma(xx, p, CP64_K(CP64_S2));
		p = weft_d64_fma(xx, p, CP64_K(CP64_S1));
		return weft_d64_add(x, weft_d64_mul(xx, weft_d64_mul(x, p)));
	}
	/* +0 or -0 */
	dx = CP64_K(weft_d64_lt(CP64_K(0u), x) ? 0u : CP64_SIGN);
	k = cp64_trig_split(ax, &r);
	xx = cp64_sincos_poly(r, &p, &q);
	t = weft_d64_fma(weft_d64_mul(r, xx), p, dx);
	s = weft_d64_add(r, t);
	c = weft_d64_fma(r, dx, weft_d64_mul(xx, q));
	cor = weft_d64_fma(s, cp64_tab(tab, k + 3u), cp64_tab(tab, k + 1u));
	cor = weft_d64_fma(weft_d64_neg(c), cp64_tab(tab, k), cor);
	cor = weft_d64_fma(s, cp64_tab(tab, k + 2u), cor);
	return weft_d64_copysign(weft_d64_add(cp64_tab(tab, k), cor), x);
}

/* glibc's cos(x) for |x| <= 0.2094. */
WEFT_FN weft_d64 cp64_cos(weft_d64 x, WEFT_GLOBAL const weft_u64 *tab)
{
	weft_d64 ax = weft_d64_abs(x), r, xx, p, s, q, c, cor;
	weft_u32 k;

	if (weft_d64_lt(ax, CP64_K(0x3e40000000000000ul))) /* |x| < 2^-27 */
		return CP64_K(CP64_ONE);
	k = cp64_trig_split(ax, &r);
	/* r + (-0) for negative x: a zero remainder keeps x's sign */
	r = weft_d64_add(r, CP64_K(weft_d64_bits(x) & CP64_SIGN));
	xx = cp64_sincos_poly(r, &p, &q);
	s = weft_d64_fma(weft_d64_mul(r, xx), p, r);
	c = weft_d64_mul(xx, q);
	cor = weft_d64_fma(weft_d64_neg(s), cp64_tab(tab, k + 1u),
			   cp64_tab(tab, k + 3u));
	cor = weft_d64_fma(weft_d64_neg(c), cp64_tab(tab, k + 2u), cor);
	cor = weft_d64_fma(weft_d64_neg(s), cp64_tab(tab, k), cor);
	return weft_d64_add(cp64_tab(tab, k + 2u), cor);
}

/* One Euler step of Gymnasium's CartPoleEnv.step, in its order of
 * operations (left to right, as Python evaluates them). WEFT_D64_FN: with
 * a build for CPUs with FMA on the host (weft/double.h). */
WEFT_D64_FN cartpole_obs64 cp64_dynamics(cartpole_obs64 s, weft_u32 action,
					 WEFT_GLOBAL const weft_u64 *tab)
{
	weft_d64 force = CP64_K(action ? CP64_FORCE : CP64_FORCE | CP64_SIGN);
	weft_d64 c = cp64_cos(s.theta, tab), sn = cp64_sin(s.theta, tab);
	weft_d64 total = CP64_K(CP64_TOTAL_MASS);
	weft_d64 pml = CP64_K(CP64_POLEMASS_LENGTH);
	weft_d64 tau = CP64_K(CP64_TAU);
	weft_d64 temp, den, thetaacc, xacc, v;
	cartpole_obs64 n;

	/* (force + polemass_length * theta_dot^2 * sin) / total_mass */
	v = weft_d64_mul(pml, weft_d64_mul(s.theta_dot, s.theta_dot));
	temp = weft_d64_div(weft_d64_add(force, weft_d64_mul(v, sn)), total);
	/* length * (4/3 - masspole * cos^2 / total_mass) */
	v = weft_d64_div(
		weft_d64_mul(CP64_K(CP64_MASSPOLE), weft_d64_mul(c, c)), total);
	den = weft_d64_mul(CP64_K(CP64_LENGTH),
			   weft_d64_sub(CP64_K(CP64_FOUR_THIRDS), v));
	thetaacc = weft_d64_div(
		weft_d64_sub(weft_d64_mul(CP64_K(CP64_GRAVITY), sn),
			     weft_d64_mul(c, temp)),
		den);
	v = weft_d64_mul(weft_d64_mul(pml, thetaacc), c);
	xacc = weft_d64_sub(temp, weft_d64_div(v, total));
	n.x = weft_d64_add(s.x, weft_d64_mul(tau, s.x_dot));
	n.x_dot = weft_d64_add(s.x_dot, weft_d64_mul(tau, xacc));
	n.theta = weft_d64_add(s.theta, weft_d64_mul(tau, s.theta_dot));
	n.theta_dot = weft_d64_add(s.theta_dot, weft_d64_mul(tau, thetaacc));
	return n;
}

WEFT_FN int cp64_terminated(cartpole_obs64 s)
{
	weft_d64 xt = CP64_K(CP64_X_THRESHOLD);
	weft_d64 tt = CP64_K(CP64_THETA_THRESHOLD);

	return weft_d64_lt(s.x, weft_d64_neg(xt)) || weft_d64_lt(xt, s.x) ||
	       weft_d64_lt(s.theta, weft_d64_neg(tt)) ||
	       weft_d64_lt(tt, s.theta);
}

/* cp_uniform's float as a double: the same value. */
WEFT_FN weft_d64 cp64_uniform(weft_u32 draw)
{
	weft_d64 d = weft_d64_mul(
		weft_d64_from_i32((weft_i32)(draw >> 8) - CP_RESET_OFFSET),
		CP64_K(CP64_RESET_SCALE));

	return weft_d64_from_f32(weft_d64_to_f32(d));
}

/* The state an episode starts from, equal to cp_reset_state's. */
WEFT_FN cartpole_obs64 cp64_reset_state(weft_rand4 r)
{
	cartpole_obs64 s;

	s.x = cp64_uniform(r.v[0]);
	s.x_dot = cp64_uniform(r.v[1]);
	s.theta = cp64_uniform(r.v[2]);
	s.theta_dot = cp64_uniform(r.v[3]);
	return s;
}

/* The linear policy in double: w . s + bias > 0 (weights in the
 * constants buffer). */
WEFT_FN weft_u32 cp64_linear(WEFT_GLOBAL const weft_u64 *tab, cartpole_obs64 s)
{
	weft_u32 w = CP64_CONST_POLICY;
	weft_d64 v = weft_d64_mul(cp64_tab(tab, w), s.x);

	v = weft_d64_add(v, weft_d64_mul(cp64_tab(tab, w + 1u), s.x_dot));
	v = weft_d64_add(v, weft_d64_mul(cp64_tab(tab, w + 2u), s.theta));
	v = weft_d64_add(v, weft_d64_mul(cp64_tab(tab, w + 3u), s.theta_dot));
	v = weft_d64_add(v, cp64_tab(tab, w + 4u));
	return weft_d64_lt(CP64_K(0u), v) ? 1u : 0u;
}

#endif /* CARTPOLE_DYN64_H */
