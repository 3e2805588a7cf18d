/* The CUDA prelude: 32-bit limbs; carries and products by PTX carry chains (add.cc/addc, mad.lo.cc/madc.hi.cc).
 * Everything after the preludes is written once for both APIs against these names. */

typedef unsigned int u32;
typedef int i32;
typedef long long i64;
typedef unsigned long long u64;
typedef u32 limb_t;
#define LIMB_BITS 32

#define KERNEL extern "C" __global__
#define DEVICE __device__ __forceinline__
#define DEVICE_NOINLINE __device__ __noinline__
#define GLOBAL
#define CONSTANT __constant__
#define GLOBAL_ID() (blockIdx.x * blockDim.x + threadIdx.x)
#define ATOMIC_INC(p) atomicAdd((p), 1u)
#define ATOMIC_MIN(p, v) atomicMin((p), (v))
#define UNROLL _Pragma("unroll")
/* Work-group (block) level: shared memory, its barrier, the thread's place in its block. */
#define LOCAL __shared__
#define BARRIER() __syncthreads()
#define LOCAL_ID() (threadIdx.x)
#define GROUP_ID() (blockIdx.x)
#define LOCAL_SIZE() (blockDim.x)
/* A kernel's launch bounds: at most `threads` per block, and registers capped so that `groups` blocks fit on a
 * multiprocessor (written between the return type and the name). */
#define LAUNCH_BOUNDS(threads, groups) __launch_bounds__(threads, groups)
/* 16 bytes at p (16-byte aligned) in one load or store: VEC_LIMBS limbs. */
#define VEC_LIMBS 4
DEVICE void load_vec(GLOBAL const limb_t *p, limb_t *out) {
  uint4 v = *(GLOBAL const uint4 *)p;
  out[0] = v.x, out[1] = v.y, out[2] = v.z, out[3] = v.w;
}
DEVICE void store_vec(GLOBAL limb_t *p, const limb_t *in) { *(GLOBAL uint4 *)p = make_uint4(in[0], in[1], in[2], in[3]); }
/* Ask for the cache lines of the `bytes` bytes at p in L2 ahead of their load (no register, no wait). */
#define PREFETCH(p, bytes)                                                                  \
  do {                                                                                      \
    const char *prefetch_at_ = (const char *)(p);                                           \
    asm volatile("prefetch.global.L2 [%0];" ::"l"(prefetch_at_));                           \
    asm volatile("prefetch.global.L2 [%0];" ::"l"(prefetch_at_ + (bytes) - 1));             \
  } while (0)

/* The carry-chain primitives, one PTX instruction each (PTX ISA, "Extended-Precision Integer Arithmetic"): the
 * names are the instructions', and the carry they pass along is the hardware's carry flag CC.CF. The last argument
 * (the OpenCL prelude's software flag) is unused here. They are volatile so that the compiler keeps every chain in
 * the order written; a chain must not be interleaved with another chain's instructions. */
#define CC_ASM3(name, op)                                                                   \
  DEVICE limb_t name(limb_t a, limb_t b, limb_t c, limb_t *cc) {                            \
    limb_t r;                                                                               \
    (void)cc;                                                                               \
    asm volatile(op " %0, %1, %2, %3;" : "=r"(r) : "r"(a), "r"(b), "r"(c));                 \
    return r;                                                                               \
  }
#define CC_ASM2(name, op)                                                                   \
  DEVICE limb_t name(limb_t a, limb_t b, limb_t *cc) {                                      \
    limb_t r;                                                                               \
    (void)cc;                                                                               \
    asm volatile(op " %0, %1, %2;" : "=r"(r) : "r"(a), "r"(b));                             \
    return r;                                                                               \
  }
CC_ASM3(mad_lo_cc, "mad.lo.cc.u32")   /* lo(a·b) + c, carry out */
CC_ASM3(madc_lo_cc, "madc.lo.cc.u32") /* lo(a·b) + c + carry, carry out */
CC_ASM3(mad_hi_cc, "mad.hi.cc.u32")   /* hi(a·b) + c, carry out */
CC_ASM3(madc_hi_cc, "madc.hi.cc.u32") /* hi(a·b) + c + carry, carry out */
CC_ASM3(madc_hi, "madc.hi.u32")       /* hi(a·b) + c + carry */
CC_ASM2(add_cc, "add.cc.u32")         /* a + b, carry out */
CC_ASM2(addc_cc, "addc.cc.u32")       /* a + b + carry, carry out */
CC_ASM2(addc, "addc.u32")             /* a + b + carry */
CC_ASM2(sub_cc, "sub.cc.u32")         /* a − b, borrow out */
CC_ASM2(subc_cc, "subc.cc.u32")       /* a − b − borrow, borrow out */
CC_ASM2(subc, "subc.u32")             /* a − b − borrow */
#undef CC_ASM3
#undef CC_ASM2

/* The high half of a product (a plain product gives the low half). */
DEVICE limb_t mul_hi_limb(limb_t a, limb_t b) { return __umulhi(a, b); }

/* The FP64 pipe (field_f64.c), only under the build option CUZK_FP64_MUL (no product program sets it): a double's
 * bits as an integer, and back. */
#ifdef CUZK_FP64_MUL
#define HAS_F64 1
DEVICE u64 f64_bits(double x) { return (u64)__double_as_longlong(x); }
DEVICE double bits_f64(u64 b) { return __longlong_as_double((long long)b); }
#endif
