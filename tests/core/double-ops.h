/*
 * tests/core/double-ops.h - the operations of weft/double.h by number,
 * compiled twice by tests/core/test-softf64: once on the hardware path
 * (double-hw.c) and once on the software path (test-softf64.c), each
 * taking and returning the 64 bits of doubles.
 */
#ifndef TESTS_DOUBLE_OPS_H
#define TESTS_DOUBLE_OPS_H

#include <stdint.h>

enum {
	D64_ADD,
	D64_SUB,
	D64_MUL,
	D64_DIV,
	D64_FMA,
	D64_SQRT,
	D64_NEG,
	D64_ABS,
	D64_COPYSIGN,
	D64_LT,
	D64_LE,
	D64_GT,
	D64_GE,
	D64_EQ,
	D64_TO_F32,   /* result: the float's bits */
	D64_FROM_F32, /* a: a float's bits */
	D64_FROM_I32, /* a: an int32 */
	D64_FROM_U32, /* a: a uint32 */
	D64_TO_I32,   /* result: the int32 as uint32 */
	D64_TO_U32,
	D64_N_OPS
};

/* weft/double.h's hardware path (double-hw.c) and software path
 * (test-softf64.c), both defined by double-op.h. */
uint64_t d64_hw_op(int op, uint64_t a, uint64_t b, uint64_t c);
uint64_t d64_soft_op(int op, uint64_t a, uint64_t b, uint64_t c);

#endif
