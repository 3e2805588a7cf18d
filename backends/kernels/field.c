/* ---- ${f}: the prime field of ${F}_BITS bits, ${F}_N limbs of LIMB_BITS bits, in Montgomery form x·R mod p ----
 * Every function takes and returns values in [0, p), so results are canonical without a final reduction. */

typedef struct { limb_t l[${F}_N]; } ${f}_t;

DEVICE ${f}_t ${f}_zero(void) {
  ${f}_t r;
  UNROLL for (int i = 0; i < ${F}_N; i++) r.l[i] = 0;
  return r;
}

DEVICE ${f}_t ${f}_one(void) {
  ${f}_t r = {${F}_ONE};
  return r;
}

DEVICE bool ${f}_is_zero(${f}_t a) {
  limb_t acc = 0;
  UNROLL for (int i = 0; i < ${F}_N; i++) acc |= a.l[i];
  return acc == 0;
}

DEVICE bool ${f}_eq(${f}_t a, ${f}_t b) {
  limb_t acc = 0;
  UNROLL for (int i = 0; i < ${F}_N; i++) acc |= a.l[i] ^ b.l[i];
  return acc == 0;
}

/* a − p when a ≥ p, else a: brings a value of [0, 2p) into [0, p). */
DEVICE ${f}_t ${f}_reduce(${f}_t a) {
  const limb_t p[${F}_N] = ${F}_P;
  ${f}_t d;
  limb_t borrow = 0;
  UNROLL for (int i = 0; i < ${F}_N; i++) d.l[i] = sub_cc(a.l[i], p[i], &borrow);
  return borrow ? a : d;
}

/* p < R/2, so a + b < 2p never carries out of the top limb. */
DEVICE ${f}_t ${f}_add(${f}_t a, ${f}_t b) {
  ${f}_t r;
  limb_t carry = 0;
  UNROLL for (int i = 0; i < ${F}_N; i++) r.l[i] = add_cc(a.l[i], b.l[i], &carry);
  return ${f}_reduce(r);
}

DEVICE ${f}_t ${f}_sub(${f}_t a, ${f}_t b) {
  const limb_t p[${F}_N] = ${F}_P;
  ${f}_t r;
  limb_t borrow = 0;
  UNROLL for (int i = 0; i < ${F}_N; i++) r.l[i] = sub_cc(a.l[i], b.l[i], &borrow);
  limb_t mask = (limb_t)0 - borrow; /* all ones when a < b: add p back */
  limb_t carry = 0;
  UNROLL for (int i = 0; i < ${F}_N; i++) r.l[i] = add_cc(r.l[i], p[i] & mask, &carry);
  return r;
}

DEVICE ${f}_t ${f}_neg(${f}_t a) { return ${f}_sub(${f}_zero(), a); }

DEVICE ${f}_t ${f}_dbl(${f}_t a) { return ${f}_add(a, a); }

/* a·b·R⁻¹ mod p by CIOS without the extra carry word (valid as p's top limb < 2^(w−1) − 1; constants.py checks).
 * Kept out of line: inlined into every point formula it multiplies GPU compile times (nvcc took 159 s instead of
 * 25 s for BN254's G2 MSM program) and register pressure. */
DEVICE_NOINLINE ${f}_t ${f}_mul(${f}_t a, ${f}_t b) {
  const limb_t p[${F}_N] = ${F}_P;
  limb_t t[${F}_N];
  UNROLL for (int j = 0; j < ${F}_N; j++) t[j] = 0;
  UNROLL for (int i = 0; i < ${F}_N; i++) {
    limb_t A = 0, C = 0;
    t[0] = mac_cc(t[0], a.l[0], b.l[i], &A);
    limb_t m = t[0] * (limb_t)${F}_INV;
    mac_cc(t[0], m, p[0], &C);
    UNROLL for (int j = 1; j < ${F}_N; j++) {
      t[j] = mac_cc(t[j], a.l[j], b.l[i], &A);
      t[j - 1] = mac_cc(t[j], m, p[j], &C);
    }
    t[${F}_N - 1] = C + A;
  }
  ${f}_t r;
  UNROLL for (int j = 0; j < ${F}_N; j++) r.l[j] = t[j];
  return ${f}_reduce(r);
}

DEVICE ${f}_t ${f}_sqr(${f}_t a) { return ${f}_mul(a, a); }

/* a^(p−2) = a⁻¹ by Fermat (0 maps to 0); square-and-multiply from the top bit of p − 2. */
DEVICE ${f}_t ${f}_inverse(${f}_t a) {
  const limb_t e[${F}_N] = ${F}_P_MINUS_2;
  ${f}_t r = ${f}_one();
  for (int i = ${F}_N - 1; i >= 0; i--) {
    for (int bit = LIMB_BITS - 1; bit >= 0; bit--) {
      r = ${f}_sqr(r);
      if ((e[i] >> bit) & 1) r = ${f}_mul(r, a);
    }
  }
  return r;
}

/* canonical x → x·R (multiply by R² in Montgomery form) and back (multiply by 1). */
DEVICE ${f}_t ${f}_to_mont(${f}_t a) {
  ${f}_t r2 = {${F}_R2};
  return ${f}_mul(a, r2);
}

DEVICE ${f}_t ${f}_from_mont(${f}_t a) {
  ${f}_t one = ${f}_zero();
  one.l[0] = 1;
  return ${f}_mul(a, one);
}
