/*
 * weft/kernel_host.h - the host C prelude of the portable kernel dialect.
 *
 * A model's kernel source (models/NAME/NAME.wk) is compiled three ways:
 * as OpenCL C and as CUDA by their backends, each with its own prelude, and
 * as plain C at build time with this prelude, so that host backends
 * (OpenMP, or any third party's) need no compiler at run time. Every
 * prelude defines the same macros; docs/kernel-dialect.md lists them.
 *
 * On the host a kernel becomes a function that runs work items begin..end-1
 * (a weft_host_kernel_fn); its body is an inline per-item function, so the
 * compiler sees one loop.
 */
#ifndef WEFT_KERNEL_HOST_H
#define WEFT_KERNEL_HOST_H

#include <stdint.h>
#include <string.h>
#include <weft/program.h>

typedef uint8_t weft_u8;
typedef uint16_t weft_u16;
typedef uint32_t weft_u32;
typedef int32_t weft_i32;
typedef uint64_t weft_u64;
typedef int64_t weft_i64;
typedef float weft_f32;
typedef double weft_f64;

#define WEFT_TARGET_HOST 1
/* 1: weft_f64 is hardware binary64 (WEFT_CAP_F64); every prelude defines
 * it, 0 where the device has no double. */
#define WEFT_HAS_F64 1
/* 1: weft_atomic_add_u64 exists (WEFT_CAP_ATOMIC64); every prelude
 * defines it, 0 where the device has no 64-bit atomics. */
#define WEFT_HAS_ATOMIC64 1
#define WEFT_GLOBAL
#define WEFT_FN static inline __attribute__((unused))
/* File-scope constant tables: `WEFT_CONST weft_f64 name[] = { ... };`
 * (__constant in OpenCL, __device__ in CUDA). Index them directly; do not
 * take pointers to them. */
#define WEFT_CONST static const
/* High 32 bits of the 64-bit product of two 32-bit words. */
#define WEFT_MULHI32(a, b) ((weft_u32)(((weft_u64)(a) * (weft_u64)(b)) >> 32))

#define WEFT_KERNEL(name)                                                  \
	static inline void name##__item(const weft_kargs *weft__ka,        \
					uint32_t weft__gid)                \
		__attribute__((always_inline));                            \
	static void name(const weft_kargs *weft__ka, uint32_t weft__begin, \
			 uint32_t weft__end)                               \
	{                                                                  \
		for (uint32_t weft__g = weft__begin; weft__g < weft__end;  \
		     weft__g++)                                            \
			name##__item(weft__ka, weft__g);                   \
	}                                                                  \
	static inline void name##__item(                                   \
		const weft_kargs *weft__ka __attribute__((unused)),        \
		uint32_t weft__gid __attribute__((unused)))

/* WEFT_BUF(type, name, k): bind the k-th launch buffer as `type *name`. */
#define WEFT_BUF(T, name, k) T *name = (T *)weft__ka->buf[k]
#define WEFT_GID	     (weft__gid)
#define WEFT_EXTENT	     (weft__ka->extent)

/* Relaxed loads and stores for bytes that one work item may write while
 * another reads them (never for values where the order matters): plain
 * accesses on GPUs, relaxed atomics here so that C11 sees no data race. */
#define WEFT_LOAD_RELAXED(p)	 __atomic_load_n((p), __ATOMIC_RELAXED)
#define WEFT_STORE_RELAXED(p, v) __atomic_store_n((p), (v), __ATOMIC_RELAXED)

WEFT_FN weft_u32 weft_atomic_add_u32(WEFT_GLOBAL weft_u32 *p, weft_u32 v)
{
	return __atomic_fetch_add(p, v, __ATOMIC_RELAXED);
}

WEFT_FN weft_u32 weft_atomic_cas_u32(WEFT_GLOBAL weft_u32 *p, weft_u32 expect,
				     weft_u32 desired)
{
	__atomic_compare_exchange_n(p, &expect, desired, 0, __ATOMIC_RELAXED,
				    __ATOMIC_RELAXED);
	return expect;
}

/* Correctly rounded square roots (sqrt in OpenCL with
 * -cl-fp32-correctly-rounded-divide-sqrt, __fsqrt_rn/__dsqrt_rn in CUDA);
 * weft/math.h's weft_sqrtf and weft_sqrt use these. */
#define WEFT_SQRT_F32(x) __builtin_sqrtf(x)
#define WEFT_SQRT_F64(x) __builtin_sqrt(x)

/* 64-bit add (WEFT_CAP_ATOMIC64), unsigned max and min; each returns the
 * old value. */
WEFT_FN weft_u64 weft_atomic_add_u64(WEFT_GLOBAL weft_u64 *p, weft_u64 v)
{
	return __atomic_fetch_add(p, v, __ATOMIC_RELAXED);
}

WEFT_FN weft_u32 weft_atomic_max_u32(WEFT_GLOBAL weft_u32 *p, weft_u32 v)
{
	weft_u32 old = __atomic_load_n(p, __ATOMIC_RELAXED);

	while (old < v &&
	       !__atomic_compare_exchange_n(p, &old, v, 1, __ATOMIC_RELAXED,
					    __ATOMIC_RELAXED))
		;
	return old;
}

WEFT_FN weft_u32 weft_atomic_min_u32(WEFT_GLOBAL weft_u32 *p, weft_u32 v)
{
	weft_u32 old = __atomic_load_n(p, __ATOMIC_RELAXED);

	while (old > v &&
	       !__atomic_compare_exchange_n(p, &old, v, 1, __ATOMIC_RELAXED,
					    __ATOMIC_RELAXED))
		;
	return old;
}

/* The bits of a float and back (as_uint, __float_as_uint, ...). */
WEFT_FN weft_u32 weft_f32_as_u32(weft_f32 x)
{
	weft_u32 u;

	memcpy(&u, &x, sizeof u);
	return u;
}

WEFT_FN weft_f32 weft_u32_as_f32(weft_u32 u)
{
	weft_f32 x;

	memcpy(&x, &u, sizeof x);
	return x;
}

WEFT_FN weft_u64 weft_f64_as_u64(weft_f64 x)
{
	weft_u64 u;

	memcpy(&u, &x, sizeof u);
	return u;
}

WEFT_FN weft_f64 weft_u64_as_f64(weft_u64 u)
{
	weft_f64 x;

	memcpy(&x, &u, sizeof x);
	return x;
}

#endif /* WEFT_KERNEL_HOST_H */
