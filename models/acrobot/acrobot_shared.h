/*
 * models/acrobot/acrobot_shared.h - what the Acrobot kernels (acrobot.wk)
 * and the model's host code (acrobot.c) share, in the kernel dialect: the
 * parameter block, the layout of the packed result buffer, and
 * Gymnasium's Acrobot-v1 (gymnasium/envs/classic_control/acrobot.py,
 * Gymnasium 1.x) in binary64 and in binary32.
 *
 * precision = f64 computes AcrobotEnv.step as Gymnasium's float64
 * arithmetic does, operation for operation in Python's order: _dsdt with
 * book_or_nips = "book", the fourth-order Runge-Kutta step of Gymnasium's
 * rk4() over [0, dt] (derivatives at t0, t0 + dt/2, t0 + dt/2, t0 + dt;
 * y0 + dt/2 k1, y0 + dt/2 k2, y0 + dt k3, then
 * y0 + dt/6 (((k1 + 2 k2) + 2 k3) + k4)), wrap() of the angles, bound()
 * of the velocities, the termination test. Every + - * / is one IEEE
 * operation, never contracted (the framework compiles kernels with
 * contraction off). sin and cos are weft/math.h's correctly rounded
 * weft_sin_cr, weft_cos_cr and weft_sincos_cr where Gymnasium has NumPy's,
 * i.e. glibc's, which are correctly rounded for all but about 0.1 % of
 * arguments; x**2 is weft_pow (Arm's algorithm, as glibc's pow). A step
 * is Gymnasium's bit for bit but where glibc misrounds
 * (models/acrobot/acrobot.md gives the measured agreement). Every backend
 * computes the same bits: the library is written in the dialect.
 *
 * precision = f32 takes the same step on f32, its arithmetic arranged
 * for speed (acro32_dsdt): three cosines taken from the sines and
 * cosines of the two angles (acro32_dsdt and acro32_terminal), the
 * derivative's quotients over their exact common denominator (one
 * division), products and sums fused (weft_fmaf), the constants rounded
 * to f32, and weft/math.h's weft_sincosf_fma (f32 arithmetic,
 * branch-free, within 1.49 ulp for |x| <= 64), so that the host
 * vectorises its step (acrobot_act_f32, acrobot.wk).
 *
 * The f64 step computes in binary64 (weft/math.h) and both precisions
 * draw their first states in binary64: the program needs a device with
 * WEFT_CAP_F64.
 */
#ifndef ACROBOT_SHARED_H
#define ACROBOT_SHARED_H

#include <weft/env.wk>
#include <weft/math.h>

#define ACRO_PRECISION_F32 0u
#define ACRO_PRECISION_F64 1u

#define ACRO_POLICY_RANDOM 0u
#define ACRO_POLICY_ZERO   1u /* torque 0 always (action 1) */

/* One environment's observation: cos s0, sin s0, cos s1, sin s1, s2, s3. */
#define ACRO_OBS 6u
/* Its state, Gymnasium's order: theta1, theta2, dtheta1, dtheta2. */
#define ACRO_STATE 4u

/* The parameter block (buffer p of every kernel): 32-bit words only. */
typedef struct acrobot_params {
	weft_u32 n_envs;
	weft_u32 seed_lo;
	weft_u32 seed_hi;
	weft_u32 max_steps; /* truncation: an episode ends after this many */
	weft_u32 autoreset; /* WEFT_ENV_AUTORESET_* of the act list */
	weft_u32 precision; /* ACRO_PRECISION_* */
	weft_u32 policy;    /* ACRO_POLICY_*, for `weft run` */
	weft_u32 reserved;
} acrobot_params;

/* The packed result buffer (io) for n environments, in bytes:
 *   0       f32 obs[n][6]
 *   24n     f32 reward[n]
 *   28n     u8  terminated[n]
 *   29n     u8  truncated[n]
 *   F       f32 final_obs[n][6] (SAME_STEP: the last observation of an
 *                                episode that ended in this step)
 * with F = 30n rounded up to a multiple of 4; F + 24n bytes in all. */
#define ACRO_IO_REWARD(n)     (24u * (n))
#define ACRO_IO_TERMINATED(n) (28u * (n))
#define ACRO_IO_TRUNCATED(n)  (29u * (n))
#define ACRO_IO_FINAL(n)      ((30u * (n) + 3u) & ~3u)
#define ACRO_IO_BYTES(n)      (ACRO_IO_FINAL(n) + 24u * (n))

/* ---- Gymnasium's constants, as its float64 arithmetic makes them ------ */

#define ACRO_PI	     0x1.921fb54442d18p+1 /* numpy.pi */
#define ACRO_PI_2    0x1.921fb54442d18p+0 /* pi / 2.0, pi / 2 */
#define ACRO_TWO_PI  0x1.921fb54442d18p+2 /* wrap's diff: pi - (-pi) */
#define ACRO_MAX_V1  0x1.921fb54442d18p+3 /* 4 * pi */
#define ACRO_MAX_V2  0x1.c463abeccb2bbp+4 /* 9 * pi */
#define ACRO_G_LC2   0x1.399999999999ap+2 /* m2 * lc2 * g = 4.9 */
#define ACRO_G_LINK1 0x1.d666666666667p+3 /* (m1 lc1 + m2 l1) g = 14.7 + */
#define ACRO_DT	     0x1.999999999999ap-3 /* dt = 0.2 */
#define ACRO_DT2     0x1.999999999999ap-4 /* dt / 2.0 */
#define ACRO_DT6     0x1.1111111111111p-5 /* dt / 6.0 */
/* Reset: uniform in [-0.1, 0.1): low + (high - low) u, high - low = 0.2. */
#define ACRO_RESET_LOW	 -0x1.999999999999ap-4
#define ACRO_RESET_RANGE 0x1.999999999999ap-3

/* The f64 step's sin, cos and x**2: weft/math.h's, sin and cos correctly
 * rounded. A host test may define ACRO64_SIN and ACRO64_COS (both) and
 * ACRO64_POW before this header (the C library's sin, cos and pow: then
 * the step is Gymnasium's bit for bit, tests/models/test-acrobot.c). */
#ifdef ACRO64_SIN
#define ACRO64_SINCOS(x, s, c) (*(s) = ACRO64_SIN(x), *(c) = ACRO64_COS(x))
#else
#define ACRO64_SIN    weft_sin_cr
#define ACRO64_COS    weft_cos_cr
#define ACRO64_SINCOS weft_sincos_cr
#endif
#ifndef ACRO64_POW
#define ACRO64_POW weft_pow
#endif

typedef struct acro64 {
	weft_f64 s0, s1, s2, s3; /* theta1, theta2, dtheta1, dtheta2 */
} acro64;

/* x**2 of a numpy float64: pow(x, 2.0), which glibc does not always
 * round as x * x does; weft_pow is the same algorithm (Arm's). */
WEFT_FN weft_f64 acro64_sq(weft_f64 x)
{
	return ACRO64_POW(x, 2.0);
}

/* AcrobotEnv._dsdt (book) at state y with torque a: the derivatives of
 * the four state values (the torque's is 0). */
WEFT_FN acro64 acro64_dsdt(acro64 y, weft_f64 a)
{
	weft_f64 c2, s2, d1, d2, phi1, phi2, dd1, dd2, num, den;
	acro64 k;

	ACRO64_SINCOS(y.s1, &s2, &c2);

	/* d1 = m1 lc1^2 + m2 (l1^2 + lc2^2 + 2 l1 lc2 cos t2) + I1 + I2 */
	d1 = ((0.25 + (1.25 + c2)) + 1.0) + 1.0;
	/* d2 = m2 (lc2^2 + l1 lc2 cos t2) + I2 */
	d2 = (0.25 + 0.5 * c2) + 1.0;
	/* phi2 = m2 lc2 g cos(t1 + t2 - pi / 2.0) */
	phi2 = ACRO_G_LC2 * ACRO64_COS((y.s0 + y.s1) - ACRO_PI_2);
	/* phi1 = -m2 l1 lc2 dt2^2 sin t2 - 2 m2 l1 lc2 dt2 dt1 sin t2
	 *        + (m1 lc1 + m2 l1) g cos(t1 - pi / 2) + phi2 */
	phi1 = (-0.5 * acro64_sq(y.s3)) * s2 - (y.s3 * y.s2) * s2;
	phi1 = phi1 + ACRO_G_LINK1 * ACRO64_COS(y.s0 - ACRO_PI_2);
	phi1 = phi1 + phi2;
	/* ddtheta2 = (a + d2 / d1 phi1 - m2 l1 lc2 dt1^2 sin t2 - phi2)
	 *            / (m2 lc2^2 + I2 - d2^2 / d1) */
	num = ((a + (d2 / d1) * phi1) - (0.5 * acro64_sq(y.s2)) * s2) - phi2;
	den = 1.25 - acro64_sq(d2) / d1;
	dd2 = num / den;
	/* ddtheta1 = -(d2 ddtheta2 + phi1) / d1 */
	dd1 = -(d2 * dd2 + phi1) / d1;
	k.s0 = y.s2;
	k.s1 = y.s3;
	k.s2 = dd1;
	k.s3 = dd2;
	return k;
}

/* y0 + h k, element by element, as numpy's y0 + h * k. */
WEFT_FN acro64 acro64_axpy(acro64 y0, weft_f64 h, acro64 k)
{
	acro64 r;

	r.s0 = y0.s0 + h * k.s0;
	r.s1 = y0.s1 + h * k.s1;
	r.s2 = y0.s2 + h * k.s2;
	r.s3 = y0.s3 + h * k.s3;
	return r;
}

/* (((k1 + 2 k2) + 2 k3) + k4) of one element, then y0 + dt/6 of it. */
WEFT_FN weft_f64 acro64_rk_sum(weft_f64 y0, weft_f64 k1, weft_f64 k2,
			       weft_f64 k3, weft_f64 k4)
{
	return y0 + ACRO_DT6 * (((k1 + 2.0 * k2) + 2.0 * k3) + k4);
}

/* Gymnasium's wrap(x, -pi, pi). */
WEFT_FN weft_f64 acro64_wrap(weft_f64 x)
{
	while (x > ACRO_PI)
		x = x - ACRO_TWO_PI;
	while (x < -ACRO_PI)
		x = x + ACRO_TWO_PI;
	return x;
}

/* Gymnasium's bound(x, -m, m): min(max(x, -m), m) as Python's builtins
 * choose (the first argument unless the second is strictly beyond). */
WEFT_FN weft_f64 acro64_bound(weft_f64 x, weft_f64 m)
{
	weft_f64 y = -m > x ? -m : x;

	return m < y ? m : y;
}

/* AcrobotEnv.step's state update with action a (0, 1, 2: torque -1, 0,
 * +1): rk4 over [0, dt], then wrap and bound. */
WEFT_FN acro64 acro64_step(acro64 s, weft_u32 action)
{
	weft_f64 a = (weft_f64)(weft_i32)action - 1.0;
	acro64 k1, k2, k3, k4, n;

	k1 = acro64_dsdt(s, a);
	k2 = acro64_dsdt(acro64_axpy(s, ACRO_DT2, k1), a);
	k3 = acro64_dsdt(acro64_axpy(s, ACRO_DT2, k2), a);
	k4 = acro64_dsdt(acro64_axpy(s, ACRO_DT, k3), a);
	n.s0 = acro64_wrap(acro64_rk_sum(s.s0, k1.s0, k2.s0, k3.s0, k4.s0));
	n.s1 = acro64_wrap(acro64_rk_sum(s.s1, k1.s1, k2.s1, k3.s1, k4.s1));
	n.s2 = acro64_bound(acro64_rk_sum(s.s2, k1.s2, k2.s2, k3.s2, k4.s2),
			    ACRO_MAX_V1);
	n.s3 = acro64_bound(acro64_rk_sum(s.s3, k1.s3, k2.s3, k3.s3, k4.s3),
			    ACRO_MAX_V2);
	return n;
}

/* AcrobotEnv._terminal: -cos(s0) - cos(s1 + s0) > 1.0. */
WEFT_FN int acro64_terminal(acro64 s)
{
	return -ACRO64_COS(s.s0) - ACRO64_COS(s.s1 + s.s0) > 1.0;
}

/* AcrobotEnv._get_ob, rounded to float32 as numpy does. */
WEFT_FN void acro64_obs(acro64 s, weft_f32 *o)
{
	weft_f64 c0, s0, c1, s1;

	ACRO64_SINCOS(s.s0, &s0, &c0);
	ACRO64_SINCOS(s.s1, &s1, &c1);
	o[0] = (weft_f32)c0;
	o[1] = (weft_f32)s0;
	o[2] = (weft_f32)c1;
	o[3] = (weft_f32)s1;
	o[4] = (weft_f32)s.s2;
	o[5] = (weft_f32)s.s3;
}

/* ---- precision = f32: the step on f32, arranged for speed --------------- */

typedef struct acro32 {
	weft_f32 s0, s1, s2, s3;
} acro32;

/* _dsdt in f32. Its cos(t1 + t2 - pi/2) and cos(t1 - pi/2) are taken as
 * sin(t1 + t2) = sin t1 cos t2 + cos t1 sin t2 and sin t1, from the sin
 * and cos of t1 and t2: two sincos where there were three, and no
 * f32 rounding of pi/2 in an argument (so nearer the float64 values).
 * With d1 = 3.5 + cos t2 and d2 = 1.25 + 0.5 cos t2, Gymnasium's
 * ddtheta2 = (a + d2/d1 phi1 - 0.5 dtheta1^2 sin t2 - phi2) /
 * (1.25 - d2^2/d1) is num / den multiplied through by d1: num =
 * d1 (a - 0.5 dtheta1^2 sin t2 - phi2) + d2 phi1, den = 1.25 d1 - d2^2 =
 * 2.8125 - 0.25 cos^2 t2; and ddtheta1 = -(d2 ddtheta2 + phi1) / d1 =
 * -(d2 num + phi1 den) / (den d1): one division, 1 / (den d1), where
 * Gymnasium's has four. phi1's -0.5 dtheta2^2 sin t2 - dtheta2 dtheta1
 * sin t2 is -sin t2 (0.5 dtheta2 + dtheta1) dtheta2. */
WEFT_FN acro32 acro32_dsdt(acro32 y, weft_f32 a)
{
	weft_f32 c1, s1, c2, s2, d1, d2, phi1, phi2, num, den, inv;
	acro32 k;

	weft_sincosf_fma(y.s0, &s1, &c1);
	weft_sincosf_fma(y.s1, &s2, &c2);
	d1 = c2 + 3.5f;
	d2 = weft_fmaf(0.5f, c2, 1.25f);
	phi2 = (weft_f32)ACRO_G_LC2 * weft_fmaf(s1, c2, c1 * s2);
	phi1 = weft_fmaf((weft_f32)ACRO_G_LINK1, s1, phi2);
	phi1 = weft_fmaf(-s2, weft_fmaf(0.5f, y.s3, y.s2) * y.s3, phi1);
	num = a - weft_fmaf(0.5f * y.s2, y.s2 * s2, phi2);
	num = weft_fmaf(d1, num, d2 * phi1);
	den = weft_fmaf(-0.25f * c2, c2, 2.8125f);
	inv = 1.0f / (den * d1);
	k.s0 = y.s2;
	k.s1 = y.s3;
	k.s2 = -weft_fmaf(d2, num, phi1 * den) * inv;
	k.s3 = num * d1 * inv;
	return k;
}

WEFT_FN acro32 acro32_axpy(acro32 y0, weft_f32 h, acro32 k)
{
	acro32 r;

	r.s0 = weft_fmaf(h, k.s0, y0.s0);
	r.s1 = weft_fmaf(h, k.s1, y0.s1);
	r.s2 = weft_fmaf(h, k.s2, y0.s2);
	r.s3 = weft_fmaf(h, k.s3, y0.s3);
	return r;
}

WEFT_FN weft_f32 acro32_rk_sum(weft_f32 y0, weft_f32 k1, weft_f32 k2,
			       weft_f32 k3, weft_f32 k4)
{
	weft_f32 sum = weft_fmaf(2.0f, k3, weft_fmaf(2.0f, k2, k1)) + k4;

	return weft_fmaf((weft_f32)ACRO_DT6, sum, y0);
}

/* One turn of wrap(): x - 2 pi where x > pi (down), x + 2 pi where
 * x < -pi (up), branch-free. */
WEFT_FN weft_f32 acro32_turn_down(weft_f32 x)
{
	return weft_select_f32((weft_u32)(x > (weft_f32)ACRO_PI),
			       x - (weft_f32)ACRO_TWO_PI, x);
}

WEFT_FN weft_f32 acro32_turn_up(weft_f32 x)
{
	return weft_select_f32((weft_u32)(x < -(weft_f32)ACRO_PI),
			       x + (weft_f32)ACRO_TWO_PI, x);
}

/* wrap(x, -pi, pi)'s first turn each way, branch-free; *more set to 1
 * where wrap() goes on (acro32_wrap finishes it), else kept. A step from
 * a wrapped state needs a second turn only where the Runge-Kutta stages'
 * velocities are far beyond the bounds: none in a million steps of
 * random actions, 121 in a million of a policy that pumps the second
 * link (torque with the sign of dtheta2) and goes on past termination,
 * 3.7 % of states drawn uniformly within the bounds (at most 5 turns in
 * 20 million). Each turn costs every step; a second one is left to the
 * scalar step. */
WEFT_FN weft_f32 acro32_wrap_some(weft_f32 x, weft_u32 *more)
{
	weft_u32 down;

	x = acro32_turn_down(x);
	down = (weft_u32)(x > (weft_f32)ACRO_PI);
	x = acro32_turn_up(x);
	*more |= down | (weft_u32)(x < -(weft_f32)ACRO_PI);
	return x;
}

/* Gymnasium's wrap(x, -pi, pi): while x > pi: x -= 2 pi; while x < -pi:
 * x += 2 pi (after acro32_wrap_some, what is left of it). */
WEFT_FN weft_f32 acro32_wrap(weft_f32 x)
{
	weft_f32 pi = (weft_f32)ACRO_PI, two_pi = (weft_f32)ACRO_TWO_PI;

	while (x > pi)
		x = x - two_pi;
	while (x < -pi)
		x = x + two_pi;
	return x;
}

WEFT_FN weft_f32 acro32_bound(weft_f32 x, weft_f32 m)
{
	weft_f32 y = weft_select_f32((weft_u32)(-m > x), -m, x);

	return weft_select_f32((weft_u32)(m < y), m, y);
}

/* AcrobotEnv.step's state update in f32, branch-free: wrap() of the
 * angles as far as acro32_wrap_some goes (*more set where it does not
 * finish). */
WEFT_FN acro32 acro32_step_some(acro32 s, weft_u32 action, weft_u32 *more)
{
	weft_f32 a = (weft_f32)(weft_i32)action - 1.0f;
	acro32 k1, k2, k3, k4, n;

	k1 = acro32_dsdt(s, a);
	k2 = acro32_dsdt(acro32_axpy(s, (weft_f32)ACRO_DT2, k1), a);
	k3 = acro32_dsdt(acro32_axpy(s, (weft_f32)ACRO_DT2, k2), a);
	k4 = acro32_dsdt(acro32_axpy(s, (weft_f32)ACRO_DT, k3), a);
	n.s0 = acro32_wrap_some(acro32_rk_sum(s.s0, k1.s0, k2.s0, k3.s0, k4.s0),
				more);
	n.s1 = acro32_wrap_some(acro32_rk_sum(s.s1, k1.s1, k2.s1, k3.s1, k4.s1),
				more);
	n.s2 = acro32_bound(acro32_rk_sum(s.s2, k1.s2, k2.s2, k3.s2, k4.s2),
			    (weft_f32)ACRO_MAX_V1);
	n.s3 = acro32_bound(acro32_rk_sum(s.s3, k1.s3, k2.s3, k3.s3, k4.s3),
			    (weft_f32)ACRO_MAX_V2);
	return n;
}

/* AcrobotEnv.step's state update in f32. */
WEFT_FN acro32 acro32_step(acro32 s, weft_u32 action)
{
	weft_u32 more = 0u;
	acro32 n = acro32_step_some(s, action, &more);

	n.s0 = acro32_wrap(n.s0);
	n.s1 = acro32_wrap(n.s1);
	return n;
}

/* Gymnasium's -cos(t1) - cos(t2 + t1) > 1, with cos(t2 + t1) taken as
 * cos t1 cos t2 - sin t1 sin t2: the sin and cos the observation has. */
WEFT_FN int acro32_terminal(acro32 s)
{
	weft_f32 c1, s1, c2, s2;

	weft_sincosf_fma(s.s0, &s1, &c1);
	weft_sincosf_fma(s.s1, &s2, &c2);
	return -c1 - (c1 * c2 - s1 * s2) > 1.0f;
}

WEFT_FN void acro32_obs(acro32 s, weft_f32 *o)
{
	weft_sincosf_fma(s.s0, &o[1], &o[0]);
	weft_sincosf_fma(s.s1, &o[3], &o[2]);
	o[4] = s.s2;
	o[5] = s.s3;
}

/* ---- the first state of an episode ------------------------------------ */

/* A double uniform in [0, 1) from 53 bits of two draws (numpy's
 * random_standard_uniform builds its doubles the same way). */
WEFT_FN weft_f64 acro_unit53(weft_u32 hi, weft_u32 lo)
{
	weft_u64 m = ((weft_u64)(hi >> 5) << 26) | (weft_u64)(lo >> 6);

	return (weft_f64)m * 0x1p-53;
}

/* Gymnasium's reset: np_random.uniform(-0.1, 0.1, size=(4,)) then
 * .astype(np.float32): four doubles -0.1 + 0.2 u rounded to f32, from the
 * first two draws (k = 0, 1) of the episode's step 0. */
WEFT_FN acro32 acro_reset_state(weft_rand4 r0, weft_rand4 r1)
{
	acro32 s;

	s.s0 = (weft_f32)(ACRO_RESET_LOW +
			  ACRO_RESET_RANGE * acro_unit53(r0.v[0], r0.v[1]));
	s.s1 = (weft_f32)(ACRO_RESET_LOW +
			  ACRO_RESET_RANGE * acro_unit53(r0.v[2], r0.v[3]));
	s.s2 = (weft_f32)(ACRO_RESET_LOW +
			  ACRO_RESET_RANGE * acro_unit53(r1.v[0], r1.v[1]));
	s.s3 = (weft_f32)(ACRO_RESET_LOW +
			  ACRO_RESET_RANGE * acro_unit53(r1.v[2], r1.v[3]));
	return s;
}

#endif /* ACROBOT_SHARED_H */
