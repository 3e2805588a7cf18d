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
  limb_t cc;
  d.l[0] = sub_cc(a.l[0], p[0], &cc);
  UNROLL for (int i = 1; i < ${F}_N; i++) d.l[i] = subc_cc(a.l[i], p[i], &cc);
  limb_t keep = subc(0, 0, &cc); /* all ones when a < p: keep a */
  UNROLL for (int i = 0; i < ${F}_N; i++) d.l[i] = (a.l[i] & keep) | (d.l[i] & ~keep);
  return d;
}

/* p < R/2, so a + b < 2p never carries out of the top limb. */
DEVICE ${f}_t ${f}_add(${f}_t a, ${f}_t b) {
  ${f}_t r;
  limb_t cc;
  r.l[0] = add_cc(a.l[0], b.l[0], &cc);
  UNROLL for (int i = 1; i < ${F}_N - 1; i++) r.l[i] = addc_cc(a.l[i], b.l[i], &cc);
  r.l[${F}_N - 1] = addc(a.l[${F}_N - 1], b.l[${F}_N - 1], &cc);
  return ${f}_reduce(r);
}

DEVICE ${f}_t ${f}_sub(${f}_t a, ${f}_t b) {
  const limb_t p[${F}_N] = ${F}_P;
  ${f}_t r;
  limb_t cc;
  r.l[0] = sub_cc(a.l[0], b.l[0], &cc);
  UNROLL for (int i = 1; i < ${F}_N; i++) r.l[i] = subc_cc(a.l[i], b.l[i], &cc);
  limb_t mask = subc(0, 0, &cc); /* all ones when a < b: add p back */
  r.l[0] = add_cc(r.l[0], p[0] & mask, &cc);
  UNROLL for (int i = 1; i < ${F}_N - 1; i++) r.l[i] = addc_cc(r.l[i], p[i] & mask, &cc);
  r.l[${F}_N - 1] = addc(r.l[${F}_N - 1], p[${F}_N - 1] & mask, &cc);
  return r;
}

DEVICE ${f}_t ${f}_neg(${f}_t a) { return ${f}_sub(${f}_zero(), a); }

DEVICE ${f}_t ${f}_dbl(${f}_t a) { return ${f}_add(a, a); }

/* t[0 … N] += x·y[0 … N−1] (x one limb) in two carry chains, the low halves of the products into t[0 … N−1] and
 * the high halves into t[1 … N]; the caller knows the sum fits in N + 1 limbs. */
#define ${F}_MAD_ROW(t, x, y)                                                      \
  do {                                                                             \
    limb_t cc;                                                                     \
    t[0] = mad_lo_cc(x, y[0], t[0], &cc);                                          \
    UNROLL for (int j = 1; j < ${F}_N; j++) t[j] = madc_lo_cc(x, y[j], t[j], &cc); \
    t[${F}_N] = addc(t[${F}_N], 0, &cc);                                           \
    t[1] = mad_hi_cc(x, y[0], t[1], &cc);                                          \
    UNROLL for (int j = 1; j < ${F}_N - 1; j++)                                    \
      t[j + 1] = madc_hi_cc(x, y[j], t[j + 1], &cc);                               \
    t[${F}_N] = madc_hi(x, y[${F}_N - 1], t[${F}_N], &cc);                         \
  } while (0)

/* a·b·R⁻¹ mod p by CIOS (Koç, Acar, Kaliski 1996), a row per limb b_i: t += a·b_i, then t += m·p with
 * m = t_0·(−p⁻¹) mod 2^w, which zeroes t_0, then t shifts down one limb. With a, b < p and p < R/2, t < 2p after
 * every row and t + a·b_i + m·p < 2^w·2p < 2^w·R: N + 1 limbs hold every intermediate, and one conditional
 * subtraction ends it. Each row is four carry chains (PTX mad/madc on CUDA).
 * Kept out of line, one copy per program: inlined it multiplies GPU compile times (BLS12-381's G2 MSM program: 8
 * minutes with nvcc) and made the H200's G1 MSMs 1.3–3.4× slower (2^18–2^24; the NTT unchanged); inlined into
 * the point functions instead (with those out of line), the bucket kernel of BLS12-381 G1 passes its points
 * through a 1760-byte stack frame (nvcc 13, sm_90). */
DEVICE_NOINLINE ${f}_t ${f}_mul(${f}_t a, ${f}_t b) {
  const limb_t p[${F}_N] = ${F}_P;
  limb_t t[${F}_N + 1];
  UNROLL for (int j = 0; j <= ${F}_N; j++) t[j] = 0;
  UNROLL for (int i = 0; i < ${F}_N; i++) {
    ${F}_MAD_ROW(t, b.l[i], a.l);
    limb_t m = t[0] * (limb_t)${F}_INV;
    ${F}_MAD_ROW(t, m, p);
    UNROLL for (int j = 0; j < ${F}_N; j++) t[j] = t[j + 1];
    t[${F}_N] = 0;
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
