/* The OpenCL prelude: 64-bit limbs; carries and products through 128-bit integers where the compiler has them
 * (CPUs), else from comparisons and mul_hi.
 * Everything after the preludes is written once for both APIs against these names. */

typedef uint u32;
typedef int i32;
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
#define UNROLL _Pragma("unroll")
/* Work-group level: local memory, its barrier, the work-item's place in its group. */
#define LOCAL __local
#define BARRIER() barrier(CLK_LOCAL_MEM_FENCE)
#define LOCAL_ID() ((u32)get_local_id(0))
#define GROUP_ID() ((u32)get_group_id(0))
#define LOCAL_SIZE() ((u32)get_local_size(0))

#ifdef __SIZEOF_INT128__
/* CPU devices (PoCL): 128-bit integers compile to add/adc and mul/mulx, far faster than PoCL's mul_hi. */
typedef unsigned __int128 u128;

/* a + b + *carry; *carry becomes the carry out (0 or 1). */
DEVICE limb_t add_cc(limb_t a, limb_t b, limb_t *carry) {
  u128 t = (u128)a + b + *carry;
  *carry = (limb_t)(t >> 64);
  return (limb_t)t;
}

/* a − b − *borrow; *borrow becomes the borrow out (0 or 1). */
DEVICE limb_t sub_cc(limb_t a, limb_t b, limb_t *borrow) {
  u128 t = (u128)a - b - *borrow;
  *borrow = (limb_t)(t >> 127);
  return (limb_t)t;
}

/* The low limb of a + b·c + *carry; *carry becomes the high limb (no overflow: the sum is < 2^128). */
DEVICE limb_t mac_cc(limb_t a, limb_t b, limb_t c, limb_t *carry) {
  u128 t = (u128)b * c + a + *carry;
  *carry = (limb_t)(t >> 64);
  return (limb_t)t;
}
#else
/* GPUs: carries from comparisons, the high half of a product from mul_hi (one instruction there). */
/* a + b + *carry; *carry becomes the carry out (0 or 1). */
DEVICE limb_t add_cc(limb_t a, limb_t b, limb_t *carry) {
  limb_t s = a + b;
  limb_t c1 = s < a;
  limb_t r = s + *carry;
  *carry = c1 | (r < s);
  return r;
}

/* a − b − *borrow; *borrow becomes the borrow out (0 or 1). */
DEVICE limb_t sub_cc(limb_t a, limb_t b, limb_t *borrow) {
  limb_t d = a - b;
  limb_t b1 = a < b;
  limb_t r = d - *borrow;
  *borrow = b1 | (d < *borrow);
  return r;
}

/* The low limb of a + b·c + *carry; *carry becomes the high limb (no overflow: the sum is < 2^128). */
DEVICE limb_t mac_cc(limb_t a, limb_t b, limb_t c, limb_t *carry) {
  limb_t lo = b * c;
  limb_t hi = mul_hi(b, c);
  lo += a;
  hi += lo < a;
  lo += *carry;
  hi += lo < *carry;
  *carry = hi;
  return lo;
}
#endif
