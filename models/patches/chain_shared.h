/*
 * chain_shared.h - chains of Bernoulli trials, the patch model's way of
 * drawing rare events over a block of slots (exposures, deaths,
 * campaigns, conceptions): one draw a block a day plus one per success.
 * Shared by its kernels (patches.wk) and the host's burn-in of
 * pregnancies (fertility.c). Written in the kernel dialect; include
 * after weft/math.h and patches_shared.h.
 */
#ifndef PATCHES_CHAIN_SHARED_H
#define PATCHES_CHAIN_SHARED_H

/* The gap to the next success of a chain of Bernoulli trials of chance
 * p (lq = log(1 - p)): the trials that fail before it, floor(log(u) /
 * lq) for u uniform in (0, 1) from the 32-bit draw r; at most cap. */
WEFT_FN weft_u32 pt_gap(weft_u32 r, weft_f64 lq, weft_u32 cap)
{
	weft_f64 g = weft_log(((weft_f64)r + 0.5) * (1.0 / 4294967296.0)) / lq;

	return g < (weft_f64)cap ? (weft_u32)g : cap;
}

/* log(1 - t / 2^32): the chance of a 32-bit threshold t (t < 2^32 - 1
 * exact in a double, and so is 1 - t / 2^32). */
WEFT_FN weft_f64 pt_log_fail(weft_u32 t)
{
	return weft_log((weft_f64)(0xFFFFFFFFu - t) * (1.0 / 4294967296.0) +
			(1.0 / 4294967296.0));
}

/* A chain of Bernoulli trials over slots 0 .. n - 1 of block g, all at
 * chance t (lq = pt_log_fail(t)): draw i, keyed by (seed, day, block g,
 * stream and purpose | i << 8), gives in word 0 the gap to success i
 * (pt_gap; none at t = 2^32 - 1, when every slot succeeds) and words 1
 * to 3 to its success. */
typedef struct pt_chain {
	weft_u32 day, g, stream, purpose, t, n;
	weft_f64 lq;
	weft_u32 i, k; /* the draws made; the next success's slot */
	weft_rand4 r;  /* its draw */
} pt_chain;

/* The chain's next success: 0 when it has passed the block, else 1 with
 * its slot in c->k and its draw in c->r; the call after moves past it. */
WEFT_FN int pt_chain_next(WEFT_GLOBAL const pt_params *p, pt_chain *c)
{
	c->r = weft_philox(p->seed_lo, p->seed_hi, c->day, c->g, c->stream,
			   c->purpose | (c->i++ << 8));
	if (c->i > 1u)
		c->k++;
	c->k += c->t == 0xFFFFFFFFu ? 0u : pt_gap(c->r.v[0], c->lq, c->n);
	return c->k < c->n;
}

/* A chain at chance t over block g's n slots (pt_chain_next). */
WEFT_FN pt_chain pt_chain_start(weft_u32 day, weft_u32 g, weft_u32 stream,
				weft_u32 purpose, weft_u32 t, weft_u32 n)
{
	pt_chain c;

	c.day = day;
	c.g = g;
	c.stream = stream;
	c.purpose = purpose;
	c.t = t;
	c.n = n;
	c.lq = pt_log_fail(t);
	c.i = 0u;
	c.k = 0u;
	return c;
}

/* Whether a trial drawn at the chain's chance tmax succeeds at chance t
 * (t <= tmax): v / 2^32 < t / tmax (thinning), as integers. */
WEFT_FN int pt_thin(weft_u32 v, weft_u32 t, weft_u32 tmax)
{
	return t == tmax || (weft_u64)v * tmax < ((weft_u64)t << 32);
}

#endif
