/*
 * tests/core/double-op.h - the body of D64_OP_FN(op, a, b, c): operation
 * op of weft/double.h on the 64 bits of doubles (double-ops.h numbers
 * them). Included once by each file that compiles one of weft/double.h's
 * paths, after weft/double.h and with D64_OP_FN defined to the function's
 * name: double-hw.c (d64_hw_op, the hardware path) and test-softf64.c
 * (d64_soft_op, the software path), so that both paths run the same
 * calls.
 */
#ifndef D64_OP_FN
#error "define D64_OP_FN before including double-op.h"
#endif

#include "double-ops.h"

uint64_t D64_OP_FN(int op, uint64_t ua, uint64_t ub, uint64_t uc)
{
	weft_d64 a = weft_d64_from_bits(ua), b = weft_d64_from_bits(ub);
	weft_d64 c = weft_d64_from_bits(uc), r;

	switch (op) {
	case D64_ADD: r = weft_d64_add(a, b); break;
	case D64_SUB: r = weft_d64_sub(a, b); break;
	case D64_MUL: r = weft_d64_mul(a, b); break;
	case D64_DIV: r = weft_d64_div(a, b); break;
	case D64_FMA: r = weft_d64_fma(a, b, c); break;
	case D64_SQRT: r = weft_d64_sqrt(a); break;
	case D64_NEG: r = weft_d64_neg(a); break;
	case D64_ABS: r = weft_d64_abs(a); break;
	case D64_COPYSIGN: r = weft_d64_copysign(a, b); break;
	case D64_FROM_F32:
		r = weft_d64_from_f32(weft_u32_as_f32((weft_u32)ua));
		break;
	case D64_FROM_I32: r = weft_d64_from_i32((weft_i32)(weft_u32)ua); break;
	case D64_FROM_U32: r = weft_d64_from_u32((weft_u32)ua); break;
	case D64_LT: return (uint64_t)weft_d64_lt(a, b);
	case D64_LE: return (uint64_t)weft_d64_le(a, b);
	case D64_GT: return (uint64_t)weft_d64_gt(a, b);
	case D64_GE: return (uint64_t)weft_d64_ge(a, b);
	case D64_EQ: return (uint64_t)weft_d64_eq(a, b);
	case D64_TO_F32: return weft_f32_as_u32(weft_d64_to_f32(a));
	case D64_TO_I32: return (weft_u32)weft_d64_to_i32(a);
	case D64_TO_U32: return weft_d64_to_u32(a);
	default: return 0;
	}
	return weft_d64_bits(r);
}
