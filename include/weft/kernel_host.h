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
#define WEFT_FN		static inline __attribute__((unused))
#define WEFT_FN_OUTLINE static __attribute__((unused, noinline))
/* For a function of fused multiply-adds (double.h's WEFT_D64_FN, math.h's
 * WEFT_FMA_FN): on x86-64, built by GCC for the baseline instruction set
 * (where an fma is a call of the C library's), a second build for CPUs
 * with FMA, everything it calls inlined into each, the loader picking
 * the one the CPU runs (target_clones); nothing elsewhere. */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && \
	!defined(__FMA__)
#define WEFT__FMA_CLONES \
	__attribute__((flatten, target_clones("fma", "default")))
#else
#define WEFT__FMA_CLONES
#endif
/* File-scope constant tables: `WEFT_CONST weft_f64 name[] = { ... };`
 * (__constant in OpenCL, __device__ in CUDA). Index them directly; do not
 * take pointers to them. */
#define WEFT_CONST static const
/* High 32 bits of the 64-bit product of two 32-bit words. */
#define WEFT_MULHI32(a, b) ((weft_u32)(((weft_u64)(a) * (weft_u64)(b)) >> 32))

/* The extent reaches the item as a value: read through weft__ka, it
 * would be reloaded after every store of a 32-bit word (which may alias
 * it), once or twice per item. One loop, so that the body is inlined
 * once (a second copy, in a loop bounded by the extent where the
 * compiler could drop the kernel's extent check, made GCC stop inlining
 * the helpers a large kernel calls). */
#define WEFT_KERNEL(name)                                                  \
	static inline void name##__item(                                   \
		const weft_kargs *weft__ka, uint32_t weft__gid,            \
		uint32_t weft__extent) __attribute__((always_inline));     \
	static void name(const weft_kargs *weft__ka, uint32_t weft__begin, \
			 uint32_t weft__end)                               \
	{                                                                  \
		const uint32_t weft__x = weft__ka->extent;                 \
                                                                           \
		for (uint32_t weft__g = weft__begin; weft__g < weft__end;  \
		     weft__g++)                                            \
			name##__item(weft__ka, weft__g, weft__x);          \
	}                                                                  \
	static inline void name##__item(                                   \
		const weft_kargs *weft__ka __attribute__((unused)),        \
		uint32_t weft__gid __attribute__((unused)),                \
		uint32_t weft__extent __attribute__((unused)))

/* WEFT_KERNEL_SIMD(name): a kernel written to vectorise on the host
 * (docs/kernel-dialect.md, "Kernels that vectorise"). Its body has two
 * parts, `if (WEFT_SIMD_MAIN) { ... }` and `if (WEFT_SIMD_AFTER) { ... }`
 * (below). The main part is straight-line code over independent items
 * (selects instead of branches, no return, no loop but of a fixed count
 * (weft_philox's rounds), no call that is not inlined, arrays indexed by
 * the item index itself), so that the compiler runs several items per
 * instruction; the after part is anything, run one item at a time. The
 * range function copies the launch's arguments (so that stores through the
 * buffers cannot be taken to change them) and runs the items in blocks of
 * WEFT__SIMD_BLOCK: the main part of the block's items, in a loop of a
 * fixed count whose iterations it tells GCC are independent (ivdep: no
 * run-time alias checks, which -O2's "very cheap" cost model would refuse,
 * and no scalar epilogue, which it refuses too), then their after parts;
 * the items past the last whole block run their parts one item at a time. A
 * body may have a third part, `if (WEFT_SIMD_DEFERRED) { ... }`, for rare
 * work: the main part marks the items that need it with WEFT_SIMD_DEFER(c)
 * (a byte an item, in an array of the block's marks), and the range
 * function, after the block's after parts, runs the deferred parts of the
 * marked items alone, in item order, found eight marks a test (each
 * deferred part still checks its own item: it runs for every item on OpenCL
 * and CUDA). With GCC the function inlines everything it calls (flatten)
 * and, on x86-64 Linux from GCC 12, is built for x86-64-v4 (AVX-512),
 * x86-64-v3 (AVX2) and the baseline, the loader picking the build the CPU
 * runs (target_clones, through an ifunc). Every build computes the same
 * bits: vector + - * / and comparisons are the IEEE operations of the
 * scalar ones, conversions are exact or correctly rounded, and nothing is
 * contracted (the file weft-wk writes turns contraction off).
 * WEFT_NO_SIMD_CLONES defined beforehand keeps the baseline build alone. On
 * OpenCL and CUDA it is WEFT_KERNEL, and each item runs its parts in turn. */
#define WEFT__SIMD_BLOCK 64u
/* Everything the item calls inlined (GCC; Clang refuses flatten with
 * target_clones, and inlines such code on its own). */
#if defined(__clang__)
#define WEFT__SIMD_FLATTEN
#elif defined(__GNUC__)
#define WEFT__SIMD_FLATTEN __attribute__((flatten))
#else
#define WEFT__SIMD_FLATTEN
#endif
/* The iterations of the block loop are independent: GCC's ivdep. Clang's
 * vectorize(assume_safety) is left out: it warns (an error with -Werror)
 * where it cannot vectorise, and Clang vectorises such loops with run-time
 * checks of its own. */
#if defined(__clang__)
#define WEFT__SIMD_LOOP
#elif defined(__GNUC__)
#define WEFT__SIMD_LOOP _Pragma("GCC ivdep")
#else
#define WEFT__SIMD_LOOP
#endif
/* g + j (j < WEFT__SIMD_BLOCK) does not wrap (g + WEFT__SIMD_BLOCK <= end),
 * so that the compiler takes an item's index, and an array indexed by it,
 * as advancing by one from item to item. */
#if defined(__GNUC__)
#define WEFT__SIMD_NO_WRAP(g)                            \
	do {                                             \
		if ((g) > UINT32_MAX - WEFT__SIMD_BLOCK) \
			__builtin_unreachable();         \
	} while (0)
#else
#define WEFT__SIMD_NO_WRAP(g) ((void)0)
#endif
/* GCC 12 and later on x86-64 Linux (Clang 14 builds target_clones with a
 * global resolver, and without the AVX2 build). */
#if defined(__x86_64__) && defined(__ELF__) && defined(__linux__) && \
	!defined(WEFT_NO_SIMD_CLONES) && !defined(__clang__) &&      \
	defined(__GNUC__) && __GNUC__ >= 12
#define WEFT__SIMD_CLONES \
	__attribute__((   \
		target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
#else
#define WEFT__SIMD_CLONES
#endif

/* The next item at or after j of a block that its main part marked (a
 * nonzero byte of mark[0..WEFT__SIMD_BLOCK-1]), or WEFT__SIMD_BLOCK: the
 * marks read eight a word, so that a block with few marks costs a few
 * tests (on a little-endian host with GCC or Clang, the first marked byte
 * of a word found at once). */
#if defined(__GNUC__) && defined(__BYTE_ORDER__) && \
	__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define WEFT__SIMD_FIRST_BYTE(w) ((uint32_t)__builtin_ctzll(w) / 8u)
#endif
static inline uint32_t weft__simd_next_mark(const weft_u8 *mark, uint32_t j)
{
	uint32_t end;
	uint64_t w;

	for (; j < WEFT__SIMD_BLOCK; j = end) {
		end = (j | 7u) + 1u;
		memcpy(&w, mark + end - 8u, sizeof w);
#ifdef WEFT__SIMD_FIRST_BYTE
		w >>= 8u * (j & 7u);
		if (w)
			return j + WEFT__SIMD_FIRST_BYTE(w);
#else
		for (; w && j < end; j++)
			if (mark[j])
				return j;
#endif
	}
	return WEFT__SIMD_BLOCK;
}

#define WEFT_KERNEL_SIMD(name)                                                \
	static inline void name##__item(                                      \
		const weft_kargs *weft__ka, uint32_t weft__gid,               \
		uint32_t weft__extent, int weft__phase, weft_u8 *weft__defer) \
		__attribute__((always_inline));                               \
	WEFT__SIMD_CLONES WEFT__SIMD_FLATTEN static void name(                \
		const weft_kargs *weft__ka, uint32_t weft__begin,             \
		uint32_t weft__end)                                           \
	{                                                                     \
		const weft_kargs weft__kc = *weft__ka;                        \
		uint32_t weft__g = weft__begin, weft__j;                      \
		weft_u8 weft__mark[WEFT__SIMD_BLOCK], weft__one = 0u;         \
                                                                              \
		for (; weft__end - weft__g >= WEFT__SIMD_BLOCK;               \
		     weft__g += WEFT__SIMD_BLOCK) {                           \
			WEFT__SIMD_NO_WRAP(weft__g);                          \
			memset(weft__mark, 0, sizeof weft__mark);             \
			WEFT__SIMD_LOOP                                       \
			for (weft__j = 0; weft__j < WEFT__SIMD_BLOCK;         \
			     weft__j++)                                       \
				name##__item(&weft__kc, weft__g + weft__j,    \
					     weft__kc.extent, 0,              \
					     &weft__mark[weft__j]);           \
			for (weft__j = 0; weft__j < WEFT__SIMD_BLOCK;         \
			     weft__j++)                                       \
				name##__item(&weft__kc, weft__g + weft__j,    \
					     weft__kc.extent, 1, &weft__one); \
			for (weft__j = weft__simd_next_mark(weft__mark, 0);   \
			     weft__j < WEFT__SIMD_BLOCK;                      \
			     weft__j = weft__simd_next_mark(weft__mark,       \
							    weft__j + 1u))    \
				name##__item(&weft__kc, weft__g + weft__j,    \
					     weft__kc.extent, 2, &weft__one); \
		}                                                             \
		for (; weft__g < weft__end; weft__g++) {                      \
			weft__one = 0u;                                       \
			name##__item(&weft__kc, weft__g, weft__kc.extent, 0,  \
				     &weft__one);                             \
			name##__item(&weft__kc, weft__g, weft__kc.extent, 1,  \
				     &weft__one);                             \
			if (weft__one)                                        \
				name##__item(&weft__kc, weft__g,              \
					     weft__kc.extent, 2, &weft__one); \
		}                                                             \
	}                                                                     \
	static inline void name##__item(                                      \
		const weft_kargs *weft__ka __attribute__((unused)),           \
		uint32_t weft__gid __attribute__((unused)),                   \
		uint32_t weft__extent __attribute__((unused)),                \
		int weft__phase __attribute__((unused)),                      \
		weft_u8 *weft__defer __attribute__((unused)))
/* The parts of a WEFT_KERNEL_SIMD body: `if (WEFT_SIMD_MAIN) { ... }`,
 * the straight-line part, vectorised (a draw every item makes too:
 * weft_philox's loop has a fixed count); `if (WEFT_SIMD_AFTER) { ... }`,
 * the rest (branches, loops, the work of one item), run one item at a
 * time after the main part of every item of the block;
 * `if (WEFT_SIMD_DEFERRED) { ... }`, run one item at a time after the
 * block's after parts, only for the items whose main part called
 * WEFT_SIMD_DEFER(c) with c nonzero (c: 0 or 1, evaluated once on every
 * target). All three are 1 on OpenCL and CUDA, where an item runs them
 * in turn and WEFT_SIMD_DEFER only evaluates c. */
#define WEFT_SIMD_MAIN	   (weft__phase == 0)
#define WEFT_SIMD_AFTER	   (weft__phase == 1)
#define WEFT_SIMD_DEFERRED (weft__phase == 2)
#define WEFT_SIMD_DEFER(c) ((void)(*weft__defer |= (weft_u8)(c)))

/* WEFT_BUF(type, name, k): bind the k-th launch buffer as `type *name`. */
#define WEFT_BUF(T, name, k) T *name = (T *)weft__ka->buf[k]
#define WEFT_GID	     (weft__gid)
#define WEFT_EXTENT	     (weft__extent)

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
