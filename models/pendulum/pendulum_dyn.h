/*
 * models/pendulum/pendulum_dyn.h - Pendulum-v1's dynamics, reset and
 * observation for one environment, in the kernel dialect: used by the
 * kernels (pendulum.wk) and by the host for the initial state
 * (pendulum.c). Include after weft/math.h, weft/double.h, weft/env.wk and
 * pendulum_shared.h.
 *
 * precision = f64 is Gymnasium's PendulumEnv.step operation by operation,
 * with numpy's types: the action stays float32 through the clip, so that
 * u**2, 0.001 * u**2 and 3.0 * u are float32 operations (NumPy 2's
 * promotion of Python scalars, NEP 50), added to float64 terms; the rest is
 * float64. Differences from Gymnasium's bits come only from the library
 * functions (models/pendulum/pendulum.md, "Agreement with Gymnasium"):
 * sin and cos are weft/math.h's correctly rounded weft_sin_cr and
 * weft_sincos_cr, numpy's are the C library's (glibc's: correctly rounded
 * for all but about 0.1 % of arguments), and numpy computes x**2 on
 * scalars with pow(), which is not always x * x correctly rounded; this
 * model multiplies.
 * precision = f32 is the same arithmetic in float32 (sin and cos:
 * pd_sincos32, weft/math.h's branch-free weft_sincosf_simd below 4096 in
 * magnitude, weft_sincosf beyond).
 */
#ifndef PENDULUM_DYN_H
#define PENDULUM_DYN_H

/* numpy's pi and 2 * pi, as bits: no decimal rounding in between. */
#define PD64_PI	    0x400921fb54442d18ul
#define PD64_TWO_PI 0x401921fb54442d18ul

/* C's fmod for finite y > 0 (musl's integer algorithm: exact, as every
 * fmod is), so that angle_normalize's % has numpy's bits on every target
 * without the device library. */
WEFT_FN weft_f64 pd_fmod(weft_f64 x, weft_f64 y)
{
	weft_u64 ux = weft_f64_as_u64(x), uy = weft_f64_as_u64(y), i;
	weft_i32 ex = (weft_i32)((ux >> 52) & 0x7ffu);
	weft_i32 ey = (weft_i32)((uy >> 52) & 0x7ffu);
	weft_u64 sx = ux >> 63;

	if (ex == 0x7ff)
		return weft_u64_as_f64(0x7ff8000000000000ul); /* inf, NaN */
	if ((ux << 1) <= (uy << 1))
		return (ux << 1) == (uy << 1) ? x * 0.0 : x;
	if (ex == 0) {
		for (i = ux << 12; (i >> 63) == 0u; ex--, i <<= 1)
			;
		ux <<= (weft_u32)(1 - ex);
	} else {
		ux &= 0xffffffffffffffffu >> 12;
		ux |= (weft_u64)1u << 52;
	}
	uy &= 0xffffffffffffffffu >> 12; /* y is normal */
	uy |= (weft_u64)1u << 52;
	for (; ex > ey; ex--) {
		i = ux - uy;
		if ((i >> 63) == 0u) {
			if (i == 0u)
				return x * 0.0;
			ux = i;
		}
		ux <<= 1;
	}
	i = ux - uy;
	if ((i >> 63) == 0u) {
		if (i == 0u)
			return x * 0.0;
		ux = i;
	}
	for (; (ux >> 52) == 0u; ux <<= 1, ex--)
		;
	if (ex > 0) {
		ux -= (weft_u64)1u << 52;
		ux |= (weft_u64)ex << 52;
	} else {
		ux >>= (weft_u32)(1 - ex);
	}
	return weft_u64_as_f64(ux | (sx << 63));
}

/* numpy's remainder (npy_divmod's mod) for b > 0: fmod, moved by b when
 * its sign differs from b's, +0 for a zero. Python's float % alike. */
WEFT_FN weft_f64 pd_remainder(weft_f64 a, weft_f64 b)
{
	weft_f64 mod = pd_fmod(a, b);

	if (mod == 0.0)
		return 0.0;
	if (mod < 0.0)
		mod = mod + b;
	return mod;
}

/* Gymnasium's angle_normalize: ((x + pi) % (2 * pi)) - pi. */
WEFT_FN weft_f64 pd_angle_normalize(weft_f64 x)
{
	weft_f64 pi = weft_u64_as_f64(PD64_PI);

	return pd_remainder(x + pi, weft_u64_as_f64(PD64_TWO_PI)) - pi;
}

/* The same in float32: the f32 fmod is exact, so the binary64 one of the
 * same values gives it; moving by b rounds in f32. */
WEFT_FN weft_f32 pd_angle_normalizef(weft_f32 x)
{
	weft_f32 pi = (weft_f32)weft_u64_as_f64(PD64_PI);
	weft_f32 two_pi = (weft_f32)weft_u64_as_f64(PD64_TWO_PI);
	weft_f32 mod = (weft_f32)pd_fmod((weft_f64)(x + pi), (weft_f64)two_pi);

	if (mod == 0.0f)
		mod = 0.0f;
	else if (mod < 0.0f)
		mod = mod + two_pi;
	return mod - pi;
}

/* np.clip(u, -2.0, 2.0) of a float32 action (NaN stays NaN). */
WEFT_FN weft_f32 pd_clip_action(weft_f32 u)
{
	if (u < -2.0f)
		return -2.0f;
	if (u > 2.0f)
		return 2.0f;
	return u;
}

/* Environment i's state in a buffer of n: (th, thdot) pairs, binary64 or
 * float32 by the precision. */
WEFT_FN weft_f64 pd_th64(WEFT_GLOBAL const weft_u8 *state, weft_u32 i,
			 weft_u32 k)
{
	return ((WEFT_GLOBAL const weft_f64 *)state)[2u * i + k];
}

WEFT_FN weft_f32 pd_th32(WEFT_GLOBAL const weft_u8 *state, weft_u32 i,
			 weft_u32 k)
{
	return ((WEFT_GLOBAL const weft_f32 *)state)[2u * i + k];
}

/* One step of Gymnasium's PendulumEnv.step in float64: the new state
 * stored, the reward (-costs, rounded to f32) returned. k is
 * 3 * g / (2 * l), as Python computes it from g. */
WEFT_FN weft_f32 pd_step64(WEFT_GLOBAL weft_u8 *state, weft_u32 i, weft_f32 a,
			   weft_f64 k)
{
	WEFT_GLOBAL weft_f64 *s = (WEFT_GLOBAL weft_f64 *)state + 2u * i;
	weft_f64 th = s[0], thdot = s[1], an, costs, newthdot;
	weft_f32 u = pd_clip_action(a);

	an = pd_angle_normalize(th);
	/* an**2 + 0.1 * thdot**2 + 0.001 * (u**2), the last in float32 */
	costs = an * an + 0.1 * (thdot * thdot);
	costs = costs + (weft_f64)(0.001f * (u * u));
	/* thdot + (3g/(2l) * sin(th) + 3.0 / (m l^2) * u) * dt */
	newthdot = k * weft_sin_cr(th) + (weft_f64)(3.0f * u);
	newthdot = thdot + newthdot * 0.05;
	newthdot = weft_clamp(newthdot, -8.0, 8.0);
	s[0] = th + newthdot * 0.05;
	s[1] = newthdot;
	return weft_d64_to_f32(-costs);
}

/* sin and cos of an f32 angle: weft/math.h's branch-free
 * weft_sincosf_simd below PD32_TRIG_MAX in magnitude (within 2.4 ulp
 * there), which the vectorised step (pendulum_act_f32) computes for every
 * environment it commits; weft_sincosf beyond (and for NaN), where
 * that step leaves the environment to this code. */
#define PD32_TRIG_MAX 4096.0f

WEFT_FN void pd_sincos32(weft_f32 x, weft_f32 *s, weft_f32 *c)
{
	if (x > -PD32_TRIG_MAX && x < PD32_TRIG_MAX)
		weft_sincosf_simd(x, s, c);
	else
		weft_sincosf(x, s, c);
}

WEFT_FN weft_f32 pd_sin32(weft_f32 x)
{
	weft_f32 s, c;

	pd_sincos32(x, &s, &c);
	return s;
}

/* The same arithmetic in float32 (sin and cos: pd_sincos32). */
WEFT_FN weft_f32 pd_step32(WEFT_GLOBAL weft_u8 *state, weft_u32 i, weft_f32 a,
			   weft_f32 k)
{
	WEFT_GLOBAL weft_f32 *s = (WEFT_GLOBAL weft_f32 *)state + 2u * i;
	weft_f32 th = s[0], thdot = s[1], an, costs, newthdot;
	weft_f32 u = pd_clip_action(a);

	an = pd_angle_normalizef(th);
	costs = an * an + 0.1f * (thdot * thdot);
	costs = costs + 0.001f * (u * u);
	newthdot = k * pd_sin32(th) + 3.0f * u;
	newthdot = thdot + newthdot * 0.05f;
	newthdot = weft_clampf(newthdot, -8.0f, 8.0f);
	s[0] = th + newthdot * 0.05f;
	s[1] = newthdot;
	return -costs;
}

/* Step environment i with action a in the run's precision; the reward. */
WEFT_FN weft_f32 pd_step(WEFT_GLOBAL const pendulum_params *p,
			 WEFT_GLOBAL weft_u8 *state, weft_u32 i, weft_f32 a)
{
	if (p->precision == PD_PRECISION_F64)
		return pd_step64(
			state, i, a,
			weft_u64_as_f64(((weft_u64)p->k_hi << 32) | p->k_lo));
	return pd_step32(state, i, a, weft_u32_as_f32(p->k_f32));
}

/* Environment i's observation [cos(th), sin(th), thdot] as float32 at
 * at[0..2] (numpy's astype: rounded to nearest from float64). */
WEFT_FN void pd_obs(WEFT_GLOBAL const pendulum_params *p,
		    WEFT_GLOBAL const weft_u8 *state, weft_u32 i,
		    WEFT_GLOBAL weft_f32 *at)
{
	weft_f64 th, thdot, sn, cs;
	weft_f32 t, s32, c32;

	if (p->precision == PD_PRECISION_F64) {
		th = pd_th64(state, i, 0u);
		thdot = pd_th64(state, i, 1u);
		weft_sincos_cr(th, &sn, &cs);
		at[0] = weft_d64_to_f32(cs);
		at[1] = weft_d64_to_f32(sn);
		at[2] = weft_d64_to_f32(thdot);
		return;
	}
	t = pd_th32(state, i, 0u);
	pd_sincos32(t, &s32, &c32);
	at[0] = c32;
	at[1] = s32;
	at[2] = pd_th32(state, i, 1u);
}

/* A 53-bit uniform double in [0, 1) from two draws. */
WEFT_FN weft_f64 pd_u53(weft_u32 hi, weft_u32 lo)
{
	weft_u64 m = ((weft_u64)(hi >> 5) << 26) | (weft_u64)(lo >> 6);

	return (weft_f64)m * 0x1p-53;
}

/* The first state of environment i's current episode, as numpy's
 * uniform(low, high) computes it, low + (high - low) * u: th in
 * [-pi, pi), thdot in [-1, 1) (rounded to f32 with precision = f32). */
WEFT_FN void pd_begin(WEFT_GLOBAL const pendulum_params *p,
		      WEFT_GLOBAL const weft_u32 *ep,
		      WEFT_GLOBAL weft_u8 *state, weft_u32 i)
{
	weft_rand4 r = weft_env_rand(ep, p->n_envs, i, 0u, 0u);
	weft_f64 pi = weft_u64_as_f64(PD64_PI);
	weft_f64 th =
		-pi + weft_u64_as_f64(PD64_TWO_PI) * pd_u53(r.v[0], r.v[1]);
	weft_f64 thdot = -1.0 + 2.0 * pd_u53(r.v[2], r.v[3]);

	if (p->precision == PD_PRECISION_F64) {
		((WEFT_GLOBAL weft_f64 *)state)[2u * i] = th;
		((WEFT_GLOBAL weft_f64 *)state)[2u * i + 1u] = thdot;
	} else {
		((WEFT_GLOBAL weft_f32 *)state)[2u * i] = weft_d64_to_f32(th);
		((WEFT_GLOBAL weft_f32 *)state)[2u * i + 1u] =
			weft_d64_to_f32(thdot);
	}
}

/* The random policy's action for environment i, t steps into its
 * episode: uniform in [-2, 2) on a 2^-22 grid (exact in f32). */
WEFT_FN weft_f32 pd_random_action(WEFT_GLOBAL const weft_u32 *ep, weft_u32 n,
				  weft_u32 i)
{
	weft_rand4 r = weft_env_rand(ep, n, i, weft_env_t(ep, n, i), 15u);

	return (weft_f32)(r.v[0] >> 8) * 0x1p-22f - 2.0f;
}

#endif /* PENDULUM_DYN_H */
