/* ---- element-wise ${f} arithmetic on canonical values (the conformance field vectors) ---- */

KERNEL void ${f}_elementwise(GLOBAL const ${f}_t *a, GLOBAL const ${f}_t *b, GLOBAL ${f}_t *out, u32 n, u32 op) {
  u32 i = GLOBAL_ID();
  if (i >= n) return;
  ${f}_t x = ${f}_to_mont(a[i]), y = ${f}_to_mont(b[i]), r;
  switch (op) {
    case 0: r = ${f}_add(x, y); break;
    case 1: r = ${f}_sub(x, y); break;
    case 2: r = ${f}_mul(x, y); break;
    case 3: r = ${f}_neg(x); break;
    case 4: r = ${f}_sqr(x); break;
    default: r = ${f}_inverse(x); break;
  }
  out[i] = ${f}_from_mont(r);
}

/* Throughput of the multiplication (benchmarks): x[i] ← x[i]^(2^rounds)·…, two dependent products a round per
 * work-item, b ← MUL_B(b, a) and a ← MUL_A(a, a) (every value stays in [0, p), so the timing is that of real
 * operands). */
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

${F}_THROUGHPUT_KERNEL(${f}_mul_throughput, ${f}_mul, ${f}_mul)

/* The same two products a round by ${f}_mul2, interleaved in one call: how far a work-item's own independent
 * products hide the multiplication's latency (benchmarks). */
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
/* out[i] = a[i]·b[i]·R⁻¹ by the FP64 pipe's multiplication (a, b in [0, p), Montgomery form or not): its tests. */
KERNEL void ${f}_mul_f64_pairs(GLOBAL const ${f}_t *a, GLOBAL const ${f}_t *b, GLOBAL ${f}_t *out, u32 n) {
  u32 i = GLOBAL_ID();
  if (i >= n) return;
  out[i] = ${f}_mul_f64_body(a[i], b[i]);
}

/* The same with the bodies inlined: two products a round on the integer pipe (int), on the FP64 pipe (f64), one on
 * each (mixed), and one on the integer pipe beside two on the FP64 pipe (mixed3, three products a round). */
${F}_THROUGHPUT_KERNEL(${f}_int_throughput, ${f}_mul_body, ${f}_mul_body)
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
