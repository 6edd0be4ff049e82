/*
 * tests/models/acrobot-libm.h - the Acrobot f64 step with the C library's
 * sin, cos and pow (acrobot-libm.c).
 */
#ifndef ACROBOT_LIBM_H
#define ACROBOT_LIBM_H

/* One step from state s with action (0, 1, 2): the next state, its
 * float32 observation and whether it is terminal. */
void acrobot_libm_step(const double s[4], unsigned action, double out[4],
		       float obs[6], int *terminated);

#endif /* ACROBOT_LIBM_H */
