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
 * work-item (every value stays in [0, p), so the timing is that of real operands). */
KERNEL void ${f}_mul_throughput(GLOBAL ${f}_t *x, u32 n, u32 rounds) {
  u32 i = GLOBAL_ID();
  if (i >= n) return;
  ${f}_t a = x[i], b = ${f}_one();
  for (u32 k = 0; k < rounds; k++) {
    b = ${f}_mul(b, a);
    a = ${f}_mul(a, a);
  }
  x[i] = ${f}_add(a, b);
}

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
