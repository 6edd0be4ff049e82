/*
 * plugins/opencl/prelude.c - the OpenCL C definition of weft's portable
 * kernel dialect: the same names weft/kernel_host.h defines for the host
 * (docs/kernel-dialect.md lists them), for OpenCL C 1.2.
 *
 * Parts depend on the device, through the build options open() derives
 * from it (device.c, weft__ocl_read_caps): WEFT_HAS_F64 (weft_f64 and its
 * helpers, with cl_khr_fp64) and WEFT_HAS_ATOMIC64 (weft_atomic_add_u64,
 * with cl_khr_int64_base_atomics). Float arithmetic is never contracted
 * (FP_CONTRACT OFF), so that it rounds as the host builds do.
 *
 * A model's program is this prelude, a #line directive naming the program
 * (so that compiler messages give lines of the model's own text), then the
 * model's source, which brings weft/kernel.h and everything else it needs.
 *
 * WEFT_KERNEL(name) { body } becomes:
 *
 *   static inline void name__item(BUFS, uint weft__gid, uint weft__extent);
 *   __kernel void name(BUFS, __global const uint *weft__xbuf,
 *                      uint weft__xidx, uint weft__xcap, uint weft__xdyn,
 *                      STRIDES, ulong weft__xs)
 *   {
 *           r = get_global_id(1);
 *           extent = xdyn ? min(xcap, xbuf[xidx + r * xs]) : xcap;
 *           for (gid = get_global_id(0); gid < extent;
 *                gid += get_global_size(0))
 *                   name__item(BUFS + r * STRIDES, gid, extent);
 *   }
 *   static inline void name__item(BUFS, uint weft__gid, uint weft__extent)
 *   { body }
 *
 * where BUFS are the twelve buffer parameters weft__b0..weft__b11 (bound
 * to a dummy buffer when a launch binds fewer) and STRIDES twelve ulong
 * byte strides weft__s0..weft__s11. The extent is computed on the device,
 * from a count buffer when the launch has one, so a launch whose count is
 * known only on the device costs no host round trip; the grid-stride loop
 * lets the host start no more work items than the device can run at once
 * (launch.c), and no item ever sees gid >= extent. `return` in a body ends
 * that item, as on the host.
 *
 * The second dimension of the range is the replica (step_replicas(),
 * backend ABI 1.4): replica r's item function sees buffer k starting
 * r * weft__s{k} bytes into it, and its count r * weft__xs words after
 * weft__xidx. step() launches one replica with every stride 0, so the same
 * program serves both, and a body never knows which replica it is.
 */
#include "config.h"

#include "priv.h"

/* The device's options follow (device.c, weft__ocl_read_caps): correctly
 * rounded f32 divide and square root when it has them, WEFT_HAS_F64 and
 * WEFT_HAS_ATOMIC64. Never -cl-denorms-are-zero, -cl-mad-enable,
 * -cl-unsafe-math-optimizations or -cl-fast-relaxed-math. */
const char weft__ocl_build_options[] = "-cl-std=CL1.2";

const char weft__ocl_prelude[] =
	"/* weft OpenCL prelude (plugins/opencl/prelude.c) */\n"
	"#define WEFT_TARGET_OPENCL 1\n"
	/* Every f32 and f64 operation rounded on its own, as on the host:
	 * never contracted into a fused multiply-add. */
	"#pragma OPENCL FP_CONTRACT OFF\n"
	"typedef uchar weft_u8;\n"
	"typedef ushort weft_u16;\n"
	"typedef uint weft_u32;\n"
	"typedef int weft_i32;\n"
	"typedef ulong weft_u64;\n"
	"typedef long weft_i64;\n"
	"typedef float weft_f32;\n"
	"#define WEFT_GLOBAL __global\n"
	"#define WEFT_FN static inline\n"
	"#define WEFT_CONST __constant\n"
	/* -DWEFT_HAS_F64=1 when the device has hardware double (compile.c
	 * passes the device's; without it weft_f64 is not defined). */
	"#ifndef WEFT_HAS_F64\n"
	"#define WEFT_HAS_F64 0\n"
	"#endif\n"
	"#if WEFT_HAS_F64\n"
	"#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n"
	"typedef double weft_f64;\n"
	"#define WEFT_SQRT_F64(x) sqrt((double)(x))\n"
	"WEFT_FN ulong weft_f64_as_u64(double x) { return as_ulong(x); }\n"
	"WEFT_FN double weft_u64_as_f64(ulong u) { return as_double(u); }\n"
	"#endif\n"
	/* Correctly rounded with -cl-fp32-correctly-rounded-divide-sqrt. */
	"#define WEFT_SQRT_F32(x) sqrt((float)(x))\n"
	"WEFT_FN uint weft_f32_as_u32(float x) { return as_uint(x); }\n"
	"WEFT_FN float weft_u32_as_f32(uint u) { return as_float(u); }\n"
	"#define WEFT_MULHI32(a, b) mul_hi((uint)(a), (uint)(b))\n"
	"#define WEFT_LOAD_RELAXED(p) (*(p))\n"
	"#define WEFT_STORE_RELAXED(p, v) (*(p) = (v))\n"
	"#define weft_atomic_add_u32(p, v) atomic_add((p), (uint)(v))\n"
	"#define weft_atomic_cas_u32(p, e, d) \\\n"
	"\tatomic_cmpxchg((p), (uint)(e), (uint)(d))\n"
	"#define weft_atomic_max_u32(p, v) atomic_max((p), (uint)(v))\n"
	"#define weft_atomic_min_u32(p, v) atomic_min((p), (uint)(v))\n"
	/* -DWEFT_HAS_ATOMIC64=1 with cl_khr_int64_base_atomics. */
	"#ifndef WEFT_HAS_ATOMIC64\n"
	"#define WEFT_HAS_ATOMIC64 0\n"
	"#endif\n"
	"#if WEFT_HAS_ATOMIC64\n"
	"#pragma OPENCL EXTENSION cl_khr_int64_base_atomics : enable\n"
	"#define weft_atomic_add_u64(p, v) atom_add((p), (ulong)(v))\n"
	"#endif\n"
	"#define WEFT_GID (weft__gid)\n"
	"#define WEFT_EXTENT (weft__extent)\n"
	"#define WEFT_BUF(T, name, k) \\\n"
	"\t__global T *name = (__global T *)weft__b##k\n"
	"#define WEFT__BUFS \\\n"
	"\t__global uchar *weft__b0, __global uchar *weft__b1, \\\n"
	"\t__global uchar *weft__b2, __global uchar *weft__b3, \\\n"
	"\t__global uchar *weft__b4, __global uchar *weft__b5, \\\n"
	"\t__global uchar *weft__b6, __global uchar *weft__b7, \\\n"
	"\t__global uchar *weft__b8, __global uchar *weft__b9, \\\n"
	"\t__global uchar *weft__b10, __global uchar *weft__b11\n"
	"#define WEFT__STRIDES \\\n"
	"\tulong weft__s0, ulong weft__s1, ulong weft__s2, ulong weft__s3, \\\n"
	"\tulong weft__s4, ulong weft__s5, ulong weft__s6, ulong weft__s7, \\\n"
	"\tulong weft__s8, ulong weft__s9, ulong weft__s10, ulong weft__s11\n"
	/* Replica r's buffers: each one shifted by r strides. */
	"#define WEFT__ARGS(r) \\\n"
	"\tweft__b0 + (r) * weft__s0, weft__b1 + (r) * weft__s1, \\\n"
	"\tweft__b2 + (r) * weft__s2, weft__b3 + (r) * weft__s3, \\\n"
	"\tweft__b4 + (r) * weft__s4, weft__b5 + (r) * weft__s5, \\\n"
	"\tweft__b6 + (r) * weft__s6, weft__b7 + (r) * weft__s7, \\\n"
	"\tweft__b8 + (r) * weft__s8, weft__b9 + (r) * weft__s9, \\\n"
	"\tweft__b10 + (r) * weft__s10, weft__b11 + (r) * weft__s11\n"
	"#define WEFT_KERNEL(name) \\\n"
	"\tstatic inline void name##__item(WEFT__BUFS, uint weft__gid, \\\n"
	"\t\t\t\t\tuint weft__extent); \\\n"
	"\t__kernel void name(WEFT__BUFS, __global const uint *weft__xbuf, \\\n"
	"\t\t\t   uint weft__xidx, uint weft__xcap, uint weft__xdyn, \\\n"
	"\t\t\t   WEFT__STRIDES, ulong weft__xs) \\\n"
	"\t{ \\\n"
	"\t\tsize_t weft__r = get_global_id(1); \\\n"
	"\t\tuint weft__e = weft__xdyn \\\n"
	"\t\t\t? min(weft__xcap, \\\n"
	"\t\t\t      weft__xbuf[weft__xidx + weft__r * weft__xs]) \\\n"
	"\t\t\t: weft__xcap; \\\n"
	"\t\tfor (size_t weft__g = get_global_id(0); weft__g < weft__e; \\\n"
	"\t\t     weft__g += get_global_size(0)) \\\n"
	"\t\t\tname##__item(WEFT__ARGS(weft__r), (uint)weft__g, \\\n"
	"\t\t\t\t     weft__e); \\\n"
	"\t} \\\n"
	"\tstatic inline void name##__item(WEFT__BUFS, uint weft__gid, \\\n"
	"\t\t\t\t\tuint weft__extent)\n";
