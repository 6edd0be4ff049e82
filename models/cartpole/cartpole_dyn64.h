/*
 * models/cartpole/cartpole_dyn64.h - CartPole-v1 in binary64 for
 * [cartpole] precision = f64: Gymnasium's CartPoleEnv.step operation by
 * operation, on the integer doubles of cartpole_f64.h, so that the state
 * and the float32 observations are Gymnasium's, bit for bit, on every
 * backend (models/cartpole/cartpole.md, "Gymnasium-exact physics").
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
 */
#ifndef CARTPOLE_DYN64_H
#define CARTPOLE_DYN64_H

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

typedef struct cartpole_obs64 {
	weft_u64 x, x_dot, theta, theta_dot;
} cartpole_obs64;

/* |x| split into the nearest k/128 (its table row, returned) and the
 * remainder *r, as glibc does it: u = big + |x|; r = |x| - (u - big). */
WEFT_FN weft_u32 cp64_trig_split(weft_u64 ax, weft_u64 *r)
{
	weft_u64 u = cp64_add(ax, CP64_TRIG_BIG);

	*r = cp64_sub(ax, cp64_sub(u, CP64_TRIG_BIG));
	return (weft_u32)u * 4u;
}

/* glibc's sin(x) for |x| <= 0.2094 (CartPole's angles). */
WEFT_FN weft_u64 cp64_sin(weft_u64 x, WEFT_GLOBAL const weft_u64 *tab)
{
	weft_u64 ax = cp64_abs(x), r, xx, p, t, q, s, c, cor, dx;
	weft_u32 k;

	if (ax < 0x3e50000000000000ul) /* |x| < 2^-26 */
		return x;
	if (ax < CP64_0_126) {
		xx = cp64_mul(x, x);
		p = cp64_fma(xx, CP64_S5, CP64_S4);
		p = cp64_fma(xx, p, CP64_S3);
		p = cp64_fma(xx, p, CP64_S2);
		p = cp64_fma(xx, p, CP64_S1);
		return cp64_add(x, cp64_mul(xx, cp64_mul(x, p)));
	}
	dx = cp64_lt(0u, x) ? 0u : CP64_SIGN; /* +0 or -0 */
	k = cp64_trig_split(ax, &r);
	xx = cp64_mul(r, r);
	p = cp64_fma(xx, CP64_SN5, CP64_SN3);
	t = cp64_fma(cp64_mul(r, xx), p, dx);
	q = cp64_fma(xx, CP64_CS6, CP64_CS4);
	q = cp64_fma(xx, q, CP64_CS2);
	s = cp64_add(r, t);
	c = cp64_fma(r, dx, cp64_mul(xx, q));
	cor = cp64_fma(s, tab[k + 3u], tab[k + 1u]);
	cor = cp64_fma(cp64_neg(c), tab[k], cor);
	cor = cp64_fma(s, tab[k + 2u], cor);
	return cp64_abs(cp64_add(tab[k], cor)) | (x & CP64_SIGN);
}

/* glibc's cos(x) for |x| <= 0.2094. */
WEFT_FN weft_u64 cp64_cos(weft_u64 x, WEFT_GLOBAL const weft_u64 *tab)
{
	weft_u64 ax = cp64_abs(x), r, xx, p, s, q, c, cor;
	weft_u32 k;

	if (ax < 0x3e40000000000000ul) /* |x| < 2^-27 */
		return CP64_ONE;
	k = cp64_trig_split(ax, &r);
	r = cp64_add(r, (x >> 63) ? CP64_SIGN : 0u);
	xx = cp64_mul(r, r);
	p = cp64_fma(xx, CP64_SN5, CP64_SN3);
	s = cp64_fma(cp64_mul(r, xx), p, r);
	q = cp64_fma(xx, CP64_CS6, CP64_CS4);
	q = cp64_fma(xx, q, CP64_CS2);
	c = cp64_mul(xx, q);
	cor = cp64_fma(cp64_neg(s), tab[k + 1u], tab[k + 3u]);
	cor = cp64_fma(cp64_neg(c), tab[k + 2u], cor);
	cor = cp64_fma(cp64_neg(s), tab[k], cor);
	return cp64_add(tab[k + 2u], cor);
}

/* One Euler step of Gymnasium's CartPoleEnv.step, in its order of
 * operations (left to right, as Python evaluates them). */
WEFT_FN cartpole_obs64 cp64_dynamics(cartpole_obs64 s, weft_u32 action,
				     WEFT_GLOBAL const weft_u64 *tab)
{
	weft_u64 force = action ? CP64_FORCE : cp64_neg(CP64_FORCE);
	weft_u64 c = cp64_cos(s.theta, tab), sn = cp64_sin(s.theta, tab);
	weft_u64 temp, den, thetaacc, xacc, v;
	cartpole_obs64 n;

	/* (force + polemass_length * theta_dot^2 * sin) / total_mass */
	v = cp64_mul(CP64_POLEMASS_LENGTH, cp64_mul(s.theta_dot, s.theta_dot));
	temp = cp64_div(cp64_add(force, cp64_mul(v, sn)), CP64_TOTAL_MASS);
	/* length * (4/3 - masspole * cos^2 / total_mass) */
	v = cp64_div(cp64_mul(CP64_MASSPOLE, cp64_mul(c, c)), CP64_TOTAL_MASS);
	den = cp64_mul(CP64_LENGTH, cp64_sub(CP64_FOUR_THIRDS, v));
	thetaacc = cp64_div(
		cp64_sub(cp64_mul(CP64_GRAVITY, sn), cp64_mul(c, temp)), den);
	v = cp64_mul(cp64_mul(CP64_POLEMASS_LENGTH, thetaacc), c);
	xacc = cp64_sub(temp, cp64_div(v, CP64_TOTAL_MASS));
	n.x = cp64_add(s.x, cp64_mul(CP64_TAU, s.x_dot));
	n.x_dot = cp64_add(s.x_dot, cp64_mul(CP64_TAU, xacc));
	n.theta = cp64_add(s.theta, cp64_mul(CP64_TAU, s.theta_dot));
	n.theta_dot = cp64_add(s.theta_dot, cp64_mul(CP64_TAU, thetaacc));
	return n;
}

WEFT_FN int cp64_terminated(cartpole_obs64 s)
{
	return cp64_lt(s.x, cp64_neg(CP64_X_THRESHOLD)) ||
	       cp64_lt(CP64_X_THRESHOLD, s.x) ||
	       cp64_lt(s.theta, cp64_neg(CP64_THETA_THRESHOLD)) ||
	       cp64_lt(CP64_THETA_THRESHOLD, s.theta);
}

/* cp_uniform's float as a double, on integers: the same value. */
WEFT_FN weft_u64 cp64_uniform(weft_u32 draw)
{
	weft_u64 d =
		cp64_mul(cp64_from_i32((weft_i32)(draw >> 8) - CP_RESET_OFFSET),
			 CP64_RESET_SCALE);

	return cp64_from_f32_bits(cp64_to_f32_bits(d));
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
	WEFT_GLOBAL const weft_u64 *w = tab + CP64_CONST_POLICY;
	weft_u64 v = cp64_mul(w[0], s.x);

	v = cp64_add(v, cp64_mul(w[1], s.x_dot));
	v = cp64_add(v, cp64_mul(w[2], s.theta));
	v = cp64_add(v, cp64_mul(w[3], s.theta_dot));
	v = cp64_add(v, w[4]);
	return cp64_lt(0u, v) ? 1u : 0u;
}

#endif /* CARTPOLE_DYN64_H */
