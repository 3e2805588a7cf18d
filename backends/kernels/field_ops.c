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

#ifdef HAS_F64
/* out[i] = a[i]·b[i]·R⁻¹ by the FP64 pipe's multiplication (a, b in [0, p), Montgomery form or not): its tests, which
 * build with CUZK_FP64_MUL (field_f64.c). */
KERNEL void ${f}_mul_f64_pairs(GLOBAL const ${f}_t *a, GLOBAL const ${f}_t *b, GLOBAL ${f}_t *out, u32 n) {
  u32 i = GLOBAL_ID();
  if (i >= n) return;
  out[i] = ${f}_mul_f64_body(a[i], b[i]);
}
#endif
