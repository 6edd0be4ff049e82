/*
 * plugins/cuda/prelude.c - the CUDA C++ definition of weft's portable
 * kernel dialect: every name weft/kernel_host.h defines for C
 * (docs/kernel-dialect.md), for NVRTC with
 * -default-device and C++17.
 *
 * Every device has hardware double and 64-bit atomics (WEFT_HAS_F64 and
 * WEFT_HAS_ATOMIC64 are 1); compile.c's options keep float arithmetic
 * IEEE, operation by operation.
 *
 * A model's program is this prelude, a #line directive naming the program
 * (so that compiler messages give lines of the model's own text), then the
 * model's source (compile.c puts them together). A kernel
 *
 *     WEFT_KERNEL(name) { body }
 *
 * becomes an inlined per-item function holding the body and an
 * extern "C" __global__ entry point `name` that takes one parameter, a
 * struct weft__cuda_args passed by value (priv.h has the host side of the
 * layout). The entry computes the extent on the device (the capacity, or
 * min(capacity, count) with the count read from the extent buffer when
 * the launch runs), then runs a grid-stride loop over the work items, so
 * that any grid covers any extent.
 *
 * The grid's y dimension is the replica (step_replicas(), backend ABI
 * 1.4): block row blockIdx.y runs replicas blockIdx.y, blockIdx.y +
 * gridDim.y, ... (gridDim.y is at most 65535; the args say how many
 * replicas there are). Replica r's per-item function gets the bound
 * buffers shifted by r times their byte strides and the count read
 * r * xstride words after xoff; step() passes 1 replica and strides 0, so
 * the same program serves both, and a body never knows its replica.
 */
#include "config.h"

#include "priv.h"

#define STR_(x) #x
#define STR(x)	STR_(x)
/* Numbers pasted into the text. */
#define MAX_BUFS STR(WEFT_KERNEL_MAX_BUFS)
#define BLOCK	 STR(WEFT__CUDA_BLOCK)

const char weft__cuda_prelude[] =
	"/* weft's CUDA prelude (plugins/cuda/prelude.c) */\n"
	"typedef unsigned char weft_u8;\n"
	"typedef unsigned short weft_u16;\n"
	"typedef unsigned int weft_u32;\n"
	"typedef int weft_i32;\n"
	"typedef unsigned long long weft_u64;\n"
	"typedef long long weft_i64;\n"
	"typedef float weft_f32;\n"
	"typedef double weft_f64;\n"
	"#define WEFT_TARGET_CUDA 1\n"
	"#define WEFT_HAS_F64 1\n"
	"#define WEFT_HAS_ATOMIC64 1\n"
	"#define WEFT_GLOBAL\n"
	"#define WEFT_FN static __device__ __forceinline__ "
	"__attribute__((unused))\n"
	"#define WEFT_FN_OUTLINE static __device__ __noinline__ "
	"__attribute__((unused))\n"
	"#define WEFT_CONST static __device__ const\n"
	/* Correctly rounded whatever the options (compile.c also gives
	 * --prec-sqrt=true --ftz=false). */
	"#define WEFT_SQRT_F32(x) __fsqrt_rn((float)(x))\n"
	"#define WEFT_SQRT_F64(x) __dsqrt_rn((double)(x))\n"
	"WEFT_FN weft_u32 weft_f32_as_u32(float x)\n"
	"{ return __float_as_uint(x); }\n"
	"WEFT_FN float weft_u32_as_f32(weft_u32 u)\n"
	"{ return __uint_as_float(u); }\n"
	"WEFT_FN weft_u64 weft_f64_as_u64(double x)\n"
	"{ return (weft_u64)__double_as_longlong(x); }\n"
	"WEFT_FN double weft_u64_as_f64(weft_u64 u)\n"
	"{ return __longlong_as_double((long long)u); }\n"
	"#define WEFT_MULHI32(a, b) __umulhi((weft_u32)(a), (weft_u32)(b))\n"
	/* Volatile accesses: never merged, hoisted or cached in L1, so a
	 * word written by another work item is eventually seen (a relaxed
	 * atomic load or store of a naturally aligned word). */
	"template <typename T>\n"
	"static __device__ __forceinline__ T weft__load_relaxed(const T *p)\n"
	"{ return *(const volatile T *)p; }\n"
	"template <typename T, typename V>\n"
	"static __device__ __forceinline__ void weft__store_relaxed(T *p, V "
	"v)\n"
	"{ *(volatile T *)p = (T)v; }\n"
	"#define WEFT_LOAD_RELAXED(p) weft__load_relaxed(p)\n"
	"#define WEFT_STORE_RELAXED(p, v) weft__store_relaxed((p), (v))\n"
	"WEFT_FN weft_u32 weft_atomic_add_u32(weft_u32 *p, weft_u32 v)\n"
	"{ return atomicAdd(p, v); }\n"
	"WEFT_FN weft_u32 weft_atomic_cas_u32(weft_u32 *p, weft_u32 expect,\n"
	"                                     weft_u32 desired)\n"
	"{ return atomicCAS(p, expect, desired); }\n"
	"WEFT_FN weft_u64 weft_atomic_add_u64(weft_u64 *p, weft_u64 v)\n"
	"{ return atomicAdd(p, v); }\n"
	"WEFT_FN weft_u32 weft_atomic_max_u32(weft_u32 *p, weft_u32 v)\n"
	"{ return atomicMax(p, v); }\n"
	"WEFT_FN weft_u32 weft_atomic_min_u32(weft_u32 *p, weft_u32 v)\n"
	"{ return atomicMin(p, v); }\n"
	/* The one kernel parameter: struct weft__cuda_args in priv.h. */
	"struct weft__cuda_args {\n"
	"  void *b[" MAX_BUFS "];\n"
	"  const weft_u32 *xbuf;\n"
	"  weft_u32 xoff, xcap, xdyn, replicas;\n"
	"  weft_u64 stride[" MAX_BUFS "];\n"
	"  weft_u64 xstride;\n"
	"};\n"
	"#define WEFT_KERNEL(name) \\\n"
	"  static __device__ __forceinline__ void name##__item( \\\n"
	"    void *const *weft__b, weft_u32 weft__gid, \\\n"
	"    weft_u32 weft__extent); \\\n"
	"  extern \"C\" __global__ void \\\n"
	"  __launch_bounds__(" BLOCK ") \\\n"
	"  name(const weft__cuda_args weft__a) \\\n"
	"  { \\\n"
	"    for (weft_u32 weft__r = blockIdx.y; weft__r < weft__a.replicas; "
	"\\\n"
	"         weft__r += gridDim.y) { \\\n"
	"      void *weft__b[" MAX_BUFS "]; \\\n"
	"      weft_u32 weft__n = weft__a.xcap; \\\n"
	"      _Pragma(\"unroll\") \\\n"
	"      for (int weft__k = 0; weft__k < " MAX_BUFS "; weft__k++) \\\n"
	"        weft__b[weft__k] = (char *)weft__a.b[weft__k] + \\\n"
	"                           weft__r * weft__a.stride[weft__k]; \\\n"
	"      if (weft__a.xdyn) { \\\n"
	"        weft_u32 weft__c = weft__a.xbuf[weft__a.xoff + \\\n"
	"                             weft__r * weft__a.xstride]; \\\n"
	"        if (weft__c < weft__n) weft__n = weft__c; \\\n"
	"      } \\\n"
	"      for (weft_u64 weft__g = (weft_u64)blockIdx.x * blockDim.x + \\\n"
	"                              threadIdx.x; \\\n"
	"           weft__g < weft__n; \\\n"
	"           weft__g += (weft_u64)gridDim.x * blockDim.x) \\\n"
	"        name##__item(weft__b, (weft_u32)weft__g, weft__n); \\\n"
	"    } \\\n"
	"  } \\\n"
	"  static __device__ __forceinline__ void name##__item( \\\n"
	"    void *const *weft__b, weft_u32 weft__gid, \\\n"
	"    weft_u32 weft__extent)\n"
	"#define WEFT_BUF(T, name, k) T *name = (T *)weft__b[k]\n"
	"#define WEFT_GID (weft__gid)\n"
	"#define WEFT_EXTENT (weft__extent)\n";

const size_t weft__cuda_prelude_len = sizeof weft__cuda_prelude - 1;
