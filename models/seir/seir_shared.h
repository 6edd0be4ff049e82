/*
 * models/seir/seir_shared.h - what the SEIR kernels and the model's host
 * code share, in the kernel dialect: states, the parameter block and the
 * layout of the tally and series buffers. Part of the program text handed
 * to run-time compilers (before seir.wk), and included by seir.c.
 */
#ifndef SEIR_SHARED_H
#define SEIR_SHARED_H

#define SEIR_S 0
#define SEIR_E 1
#define SEIR_I 2
#define SEIR_R 3

/* Purposes: the fourth counter word, so that draws for different
 * decisions never coincide. */
#define SEIR_PURPOSE_TRANSMIT 1u

/* The parameter block (buffer 0 of every launch): 32-bit words only, so
 * the layout is the same on every target. */
typedef struct seir_params {
	weft_u32 n_agents;
	weft_u32 seed_lo;
	weft_u32 seed_hi;
	weft_u32 beta_threshold; /* transmit when draw < threshold */
	weft_u32 latent_days;
	weft_u32 infectious_days;
	weft_u32 n_days; /* rows in the series after row 0 */
	weft_u32 reserved;
} seir_params;

/* The tally (buffer 3): the day being simulated, running totals and
 * today's transitions. */
#define SEIR_T_DAY	 0
#define SEIR_T_S	 1
#define SEIR_T_E	 2
#define SEIR_T_I	 3
#define SEIR_T_R	 4
#define SEIR_T_NEW_E	 5
#define SEIR_T_NEW_I	 6
#define SEIR_T_NEW_R	 7
#define SEIR_TALLY_WORDS 8

/* A row of the series: S, E, I, R, new infections. */
#define SEIR_ROW_WORDS 5

/* Kernel indexes in weft__seir_kernels. */
#define SEIR_K_PROGRESS 0
#define SEIR_K_TRANSMIT 1
#define SEIR_K_TALLY	2

#endif /* SEIR_SHARED_H */
