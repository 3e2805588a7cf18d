/* The OpenCL prelude: 64-bit limbs; carries and products through 128-bit integers where the compiler has them
 * (CPUs), else from comparisons and mul_hi, behind the carry-chain primitives of the CUDA prelude's PTX.
 * Everything after the preludes is written once for both APIs against these names. */

typedef uint u32;
typedef int i32;
typedef long i64;
typedef ulong u64;
typedef ulong limb_t;
#define LIMB_BITS 64

#define KERNEL __kernel
#define DEVICE
#define DEVICE_NOINLINE __attribute__((noinline))
#define GLOBAL __global
#define CONSTANT __constant
#define GLOBAL_ID() ((u32)get_global_id(0))
#define ATOMIC_INC(p) atomic_inc(p)
#define ATOMIC_MIN(p, v) atomic_min((p), (v))
#define UNROLL _Pragma("unroll")
/* Work-group level: local memory, its barrier, the work-item's place in its group. */
#define LOCAL __local
#define BARRIER() barrier(CLK_LOCAL_MEM_FENCE)
#define LOCAL_ID() ((u32)get_local_id(0))
#define GROUP_ID() ((u32)get_group_id(0))
#define LOCAL_SIZE() ((u32)get_local_size(0))
#define PREFETCH(p, bytes) prefetch((GLOBAL const uchar *)(p), (bytes))
/* Launch bounds are CUDA's (OpenCL has no register cap to ask for). */
#define LAUNCH_BOUNDS(threads, groups)
/* 16 bytes at p (16-byte aligned) in one load or store: VEC_LIMBS limbs. */
#define VEC_LIMBS 2
DEVICE void load_vec(GLOBAL const limb_t *p, limb_t *out) {
  ulong2 v = *(GLOBAL const ulong2 *)p;
  out[0] = v.x, out[1] = v.y;
}
DEVICE void store_vec(GLOBAL limb_t *p, const limb_t *in) { *(GLOBAL ulong2 *)p = (ulong2)(in[0], in[1]); }

/* The carry-chain primitives, named after the PTX instructions the CUDA prelude maps them to: *cc is the carry
 * (or borrow) flag, 0 or 1, that a chain passes along (CUDA's hardware flag; a variable here). "_cc": sets *cc;
 * "c": adds (subtracts) *cc. */
#if defined(__SIZEOF_INT128__) && !defined(CUZK_NO_INT128)
/* CPU devices (PoCL): 128-bit integers compile to add/adc and mul/mulx, far faster than PoCL's mul_hi.
 * CUZK_NO_INT128 (a build option) takes the GPUs' path instead, so that it can be tested on a CPU. */
typedef unsigned __int128 u128;
DEVICE limb_t mul_hi_limb(limb_t a, limb_t b) { return (limb_t)(((u128)a * b) >> 64); }
DEVICE limb_t add3_cc(limb_t a, limb_t b, limb_t c, limb_t *cc) {
  u128 t = (u128)a + b + c;
  *cc = (limb_t)(t >> 64);
  return (limb_t)t;
}
DEVICE limb_t sub3_cc(limb_t a, limb_t b, limb_t c, limb_t *cc) {
  u128 t = (u128)a - b - c;
  *cc = (limb_t)(t >> 127);
  return (limb_t)t;
}
#else
/* GPUs: carries from comparisons, the high half of a product from mul_hi (one instruction there). */
DEVICE limb_t mul_hi_limb(limb_t a, limb_t b) { return mul_hi(a, b); }
DEVICE limb_t add3_cc(limb_t a, limb_t b, limb_t c, limb_t *cc) {
  limb_t s = a + b, r = s + c;
  *cc = (limb_t)(s < a) | (limb_t)(r < s);
  return r;
}
DEVICE limb_t sub3_cc(limb_t a, limb_t b, limb_t c, limb_t *cc) {
  limb_t d = a - b, r = d - c;
  *cc = (limb_t)(a < b) | (limb_t)(d < c);
  return r;
}
#endif

DEVICE limb_t mad_lo_cc(limb_t a, limb_t b, limb_t c, limb_t *cc) { return add3_cc(a * b, c, 0, cc); }
DEVICE limb_t madc_lo_cc(limb_t a, limb_t b, limb_t c, limb_t *cc) { return add3_cc(a * b, c, *cc, cc); }
DEVICE limb_t mad_hi_cc(limb_t a, limb_t b, limb_t c, limb_t *cc) { return add3_cc(mul_hi_limb(a, b), c, 0, cc); }
DEVICE limb_t madc_hi_cc(limb_t a, limb_t b, limb_t c, limb_t *cc) {
  return add3_cc(mul_hi_limb(a, b), c, *cc, cc);
}
DEVICE limb_t madc_hi(limb_t a, limb_t b, limb_t c, limb_t *cc) { return mul_hi_limb(a, b) + c + *cc; }
DEVICE limb_t add_cc(limb_t a, limb_t b, limb_t *cc) { return add3_cc(a, b, 0, cc); }
DEVICE limb_t addc_cc(limb_t a, limb_t b, limb_t *cc) { return add3_cc(a, b, *cc, cc); }
DEVICE limb_t addc(limb_t a, limb_t b, limb_t *cc) { return a + b + *cc; }
DEVICE limb_t sub_cc(limb_t a, limb_t b, limb_t *cc) { return sub3_cc(a, b, 0, cc); }
DEVICE limb_t subc_cc(limb_t a, limb_t b, limb_t *cc) { return sub3_cc(a, b, *cc, cc); }
DEVICE limb_t subc(limb_t a, limb_t b, limb_t *cc) { return a - b - *cc; }

/* The FP64 pipe (field_f64.c), only under the build option CUZK_FP64_MUL (no product program sets it) and where the
 * device has doubles: a double's bits as an integer, and back. */
#if defined(cl_khr_fp64) && defined(CUZK_FP64_MUL)
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#define HAS_F64 1
DEVICE u64 f64_bits(double x) { return as_ulong(x); }
DEVICE double bits_f64(u64 b) { return as_double(b); }
#endif
