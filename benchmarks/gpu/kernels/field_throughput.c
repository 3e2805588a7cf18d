/* ---- throughput of the ${f} multiplications (benchmarks/gpu/cuda_bench.py --field-mul, --mul-threads) ----
 * Appended by the benchmark to the field_ops program, once for fq and once for fr; no product program holds it.
 * Each work-item raises x[i] through `rounds` rounds of two dependent products, b ← MUL_B(b, a) and a ← MUL_A(a, a)
 * (every value stays in [0, p), so the timing is that of real operands), and writes a + b so that nothing is
 * optimised away. The kernels named *_f64_*, mixed and mixed3 need the FP64 multiplication: build with
 * -DCUZK_FP64_MUL (backends/kernels/field_f64.c). */
#define ${F}_THROUGHPUT_KERNEL(name, MUL_B, MUL_A)               \
  KERNEL void name(GLOBAL ${f}_t *x, u32 n, u32 rounds) {        \
    u32 i = GLOBAL_ID();                                         \
    if (i >= n) return;                                          \
    ${f}_t a = x[i], b = ${f}_one();                             \
    for (u32 k = 0; k < rounds; k++) {                           \
      b = MUL_B(b, a);                                           \
      a = MUL_A(a, a);                                           \
    }                                                            \
    x[i] = ${f}_add(a, b);                                       \
  }

/* mul: the out-of-line ${f}_mul, a call per product; int: the body inlined. */
${F}_THROUGHPUT_KERNEL(${f}_mul_throughput, ${f}_mul, ${f}_mul)
${F}_THROUGHPUT_KERNEL(${f}_int_throughput, ${f}_mul_body, ${f}_mul_body)

/* mul2: the same two products a round by ${f}_mul2, interleaved in one call: how far a work-item's own independent
 * products hide the multiplication's latency. */
KERNEL void ${f}_mul2_throughput(GLOBAL ${f}_t *x, u32 n, u32 rounds) {
  u32 i = GLOBAL_ID();
  if (i >= n) return;
  ${f}_t a = x[i], b = ${f}_one();
  for (u32 k = 0; k < rounds; k++) {
    ${f}_pair_t r = ${f}_mul2(b, a, a, a);
    b = r.first;
    a = r.second;
  }
  x[i] = ${f}_add(a, b);
}

#ifdef HAS_F64
/* f64: both products on the FP64 pipe; mixed: one on each pipe; mixed3: one on the integer pipe beside two on the
 * FP64 pipe (three products a round). */
${F}_THROUGHPUT_KERNEL(${f}_f64_throughput, ${f}_mul_f64_body, ${f}_mul_f64_body)
${F}_THROUGHPUT_KERNEL(${f}_mixed_throughput, ${f}_mul_body, ${f}_mul_f64_body)

KERNEL void ${f}_mixed3_throughput(GLOBAL ${f}_t *x, u32 n, u32 rounds) {
  u32 i = GLOBAL_ID();
  if (i >= n) return;
  ${f}_t a = x[i], b = ${f}_one(), c = ${f}_one();
  for (u32 k = 0; k < rounds; k++) {
    b = ${f}_mul_body(b, a);
    c = ${f}_mul_f64_body(c, a);
    a = ${f}_mul_f64_body(a, a);
  }
  x[i] = ${f}_add(${f}_add(a, b), c);
}
#endif
