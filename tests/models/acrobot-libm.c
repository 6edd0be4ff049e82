/*
 * tests/models/acrobot-libm.c - the Acrobot model's f64 step
 * (models/acrobot/acrobot_shared.h) compiled with the C library's sin,
 * cos and pow in place of weft/math.h's: with glibc's, the functions
 * NumPy calls, the step must be Gymnasium's bit for bit, which checks the
 * order of every other operation (test-acrobot.c). pow is called through
 * a pointer, so that the compiler cannot turn pow(x, 2.0) into x * x.
 */
#include <math.h>

static double (*volatile acrobot_pow)(double, double) = pow;

#define ACRO64_SIN sin
#define ACRO64_COS cos
#define ACRO64_POW acrobot_pow

#include <weft/kernel_host.h>
#include <weft/kernel.h>

#include "acrobot-libm.h"
#include "acrobot_shared.h"

void acrobot_libm_step(const double s[4], unsigned action, double out[4],
		       float obs[6], int *terminated)
{
	acro64 x = { s[0], s[1], s[2], s[3] }, n = acro64_step(x, action);

	out[0] = n.s0;
	out[1] = n.s1;
	out[2] = n.s2;
	out[3] = n.s3;
	acro64_obs(n, obs);
	*terminated = acro64_terminal(n);
}
