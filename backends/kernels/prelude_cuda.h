/* The CUDA prelude: 32-bit limbs, carries and products through 64-bit integers. Hand-written PTX carry chains
 * (add.cc/addc, mad.lo.cc/madc.hi.cc) can replace the three functions below without touching anything else.
 * Everything after the preludes is written once for both APIs against these names. */

typedef unsigned int u32;
typedef int i32;
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
#define UNROLL _Pragma("unroll")
/* Work-group (block) level: shared memory, its barrier, the thread's place in its block. */
#define LOCAL __shared__
#define BARRIER() __syncthreads()
#define LOCAL_ID() (threadIdx.x)
#define GROUP_ID() (blockIdx.x)
#define LOCAL_SIZE() (blockDim.x)

/* a + b + *carry; *carry becomes the carry out (0 or 1). */
DEVICE limb_t add_cc(limb_t a, limb_t b, limb_t *carry) {
  u64 t = (u64)a + b + *carry;
  *carry = (limb_t)(t >> 32);
  return (limb_t)t;
}

/* a − b − *borrow; *borrow becomes the borrow out (0 or 1). */
DEVICE limb_t sub_cc(limb_t a, limb_t b, limb_t *borrow) {
  u64 t = (u64)a - b - *borrow;
  *borrow = (limb_t)(t >> 63);
  return (limb_t)t;
}

/* The low limb of a + b·c + *carry; *carry becomes the high limb. */
DEVICE limb_t mac_cc(limb_t a, limb_t b, limb_t c, limb_t *carry) {
  u64 t = (u64)b * c + a + *carry;
  *carry = (limb_t)(t >> 32);
  return (limb_t)t;
}
