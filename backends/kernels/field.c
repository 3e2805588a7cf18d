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

/* Montgomery multiplication a·b·R⁻¹ mod p by CIOS (Koç, Acar, Kaliski 1996) with the running sum t split in two,
 * t = E + O, so that a row's products need no carries between them (the even/odd accumulation of GPU multi-precision
 * code). A product y_j·x (one limb by one) covers limbs j and j + 1: for even j those pairs tile E[0 … N − 1], for
 * odd j they tile O[1 … N], and O[0] takes none.
 * Each half is then one carry chain of lo/hi pairs, which CUDA runs as one wide multiply-add (IMAD.WIDE) a pair,
 * and the two chains of a row are independent of each other. ${F}_N is even for every field here.
 *
 * A row per limb b_i: E += a_even·b_i (the carry of the row before coming in at limb 0), O += a_odd·b_i; then
 * m = (E_0 + O_0)·(−p⁻¹) mod 2^w, E += p_even·m, O += p_odd·m, which makes E_0 + O_0 ≡ 0 (mod 2^w), and the shift
 * by one limb swaps the halves' roles: E' = O[1 … N], O' = E[1 … N], with the carry out of E_0 + O_0 into the next
 * row's first chain. Bounds (p < R/2, so a_even, a_odd, p_even, p_odd < R/2): a row adds less than
 * 2^w·R − R to either half, which then held less than R after the shift, so each half stays below 2^w·R
 * (N + 1 limbs) and O's chains never carry out of limb N; the sum t is the usual CIOS one, below 2p at the end.
 * The body is inlined into the out-of-line ${f}_mul and ${f}_mul2, one copy each per program, and into the NTT
 * pass (ntt.c): inlined everywhere, it multiplied GPU compile times (minutes for BLS12-381's G2 MSM program) and
 * made the G1 MSMs slower, their bucket kernel short of registers (docs/performance.md). */
#if ${F}_N % 2 != 0
#error "the even/odd multiplication needs an even number of limbs"
#endif

/* E[0 … N] += x·y_even, with *cc (the row's carry-in) added at limb 0 by FIRST = madc_lo_cc, or none by mad_lo_cc. */
#define ${F}_CHAIN_EVEN(E, x, y, FIRST)                  \
  do {                                                   \
    E[0] = FIRST(x, y[0], E[0], &cc);                    \
    E[1] = madc_hi_cc(x, y[0], E[1], &cc);               \
    UNROLL for (int j = 2; j < ${F}_N; j += 2) {         \
      E[j] = madc_lo_cc(x, y[j], E[j], &cc);             \
      E[j + 1] = madc_hi_cc(x, y[j], E[j + 1], &cc);     \
    }                                                    \
    E[${F}_N] = addc(E[${F}_N], 0, &cc);                 \
  } while (0)

/* O[1 … N] += x·y_odd; the bound above means no carry leaves limb N. */
#define ${F}_CHAIN_ODD(O, x, y)                          \
  do {                                                   \
    O[1] = mad_lo_cc(x, y[1], O[1], &cc);                \
    O[2] = madc_hi_cc(x, y[1], O[2], &cc);               \
    UNROLL for (int j = 3; j < ${F}_N - 1; j += 2) {     \
      O[j] = madc_lo_cc(x, y[j], O[j], &cc);             \
      O[j + 1] = madc_hi_cc(x, y[j], O[j + 1], &cc);     \
    }                                                    \
    O[${F}_N - 1] = madc_lo_cc(x, y[${F}_N - 1], O[${F}_N - 1], &cc); \
    O[${F}_N] = madc_hi(x, y[${F}_N - 1], O[${F}_N], &cc);            \
  } while (0)

/* p and −p⁻¹ for the multiplication, read from constant memory: with them as literals ptxas specialised the
 * reduction on their values and, for BLS12-381's Fr (−p⁻¹ = 2^32 − 1, p_0 = 1, p_1 = 2^32 − 1), split its wide
 * multiply-adds into halves, more instructions a product and fewer products a second (docs/performance.md). */
CONSTANT limb_t ${F}_P_WORDS[${F}_N] = ${F}_P;
CONSTANT limb_t ${F}_INV_WORD = ${F}_INV;

DEVICE ${f}_t ${f}_mul_body(${f}_t a, ${f}_t b) {
  limb_t e[${F}_N + 1], o[${F}_N + 1], cc;
  /* row 0: t = a·b_0, the products side by side with nothing to carry */
  UNROLL for (int j = 0; j < ${F}_N; j += 2) {
    e[j] = a.l[j] * b.l[0];
    e[j + 1] = mul_hi_limb(a.l[j], b.l[0]);
    o[j + 1] = a.l[j + 1] * b.l[0];
    o[j + 2] = mul_hi_limb(a.l[j + 1], b.l[0]);
  }
  e[${F}_N] = 0;
  o[0] = 0;
  UNROLL for (int i = 0; i < ${F}_N; i++) {
    if (i > 0) {
      (void)add_cc(e[0], o[0], &cc); /* the carry out of limb 0: E_0 + O_0 is 0 or 2^w */
      limb_t shifted[${F}_N];
      UNROLL for (int j = 0; j < ${F}_N; j++) shifted[j] = e[j + 1];
      UNROLL for (int j = 0; j < ${F}_N; j++) e[j] = o[j + 1];
      UNROLL for (int j = 0; j < ${F}_N; j++) o[j] = shifted[j];
      e[${F}_N] = 0;
      o[${F}_N] = 0;
      ${F}_CHAIN_EVEN(e, b.l[i], a.l, madc_lo_cc);
      ${F}_CHAIN_ODD(o, b.l[i], a.l);
    }
    limb_t m = (e[0] + o[0]) * ${F}_INV_WORD;
    ${F}_CHAIN_EVEN(e, m, ${F}_P_WORDS, mad_lo_cc);
    ${F}_CHAIN_ODD(o, m, ${F}_P_WORDS);
  }
  /* t/2^w = E[1 … N] + O[1 … N] + the carry out of limb 0, below 2p < R */
  ${f}_t r;
  (void)add_cc(e[0], o[0], &cc);
  UNROLL for (int j = 0; j < ${F}_N - 1; j++) r.l[j] = addc_cc(e[j + 1], o[j + 1], &cc);
  r.l[${F}_N - 1] = addc(e[${F}_N], o[${F}_N], &cc);
  return ${f}_reduce(r);
}

DEVICE_NOINLINE ${f}_t ${f}_mul(${f}_t a, ${f}_t b) { return ${f}_mul_body(a, b); }

/* Two independent products in one call: the compiler interleaves their carry chains, which doubles the work in
 * flight for a thread that has little else to run (CUZK_PAIRED_MUL's bucket kernel). */
typedef struct { ${f}_t first, second; } ${f}_pair_t;

DEVICE_NOINLINE ${f}_pair_t ${f}_mul2(${f}_t a1, ${f}_t b1, ${f}_t a2, ${f}_t b2) {
  ${f}_pair_t r;
  r.first = ${f}_mul_body(a1, b1);
  r.second = ${f}_mul_body(a2, b2);
  return r;
}

#undef ${F}_CHAIN_EVEN
#undef ${F}_CHAIN_ODD

DEVICE ${f}_t ${f}_sqr(${f}_t a) { return ${f}_mul(a, a); }

/* a/2 for an integer a < R (the top bit comes in from `top`). */
DEVICE ${f}_t ${f}_shr1(${f}_t a, limb_t top) {
  ${f}_t r;
  UNROLL for (int i = 0; i < ${F}_N - 1; i++) r.l[i] = (a.l[i] >> 1) | (a.l[i + 1] << (LIMB_BITS - 1));
  r.l[${F}_N - 1] = (a.l[${F}_N - 1] >> 1) | (top << (LIMB_BITS - 1));
  return r;
}

/* a·2⁻¹ mod p for a in [0, p): a/2, or (a + p)/2 when a is odd (a + p < 2p < R). */
DEVICE ${f}_t ${f}_half(${f}_t a) {
  if (!(a.l[0] & 1)) return ${f}_shr1(a, 0);
  const limb_t p[${F}_N] = ${F}_P;
  limb_t cc;
  a.l[0] = add_cc(a.l[0], p[0], &cc);
  UNROLL for (int i = 1; i < ${F}_N - 1; i++) a.l[i] = addc_cc(a.l[i], p[i], &cc);
  a.l[${F}_N - 1] = addc(a.l[${F}_N - 1], p[${F}_N - 1], &cc);
  return ${f}_shr1(a, 0);
}

/* a − b as integers into *d; true when a ≥ b (no borrow). */
DEVICE bool ${f}_sub_integers(${f}_t a, ${f}_t b, ${f}_t *d) {
  limb_t cc;
  d->l[0] = sub_cc(a.l[0], b.l[0], &cc);
  UNROLL for (int i = 1; i < ${F}_N; i++) d->l[i] = subc_cc(a.l[i], b.l[i], &cc);
  return subc(0, 0, &cc) == 0;
}

DEVICE bool ${f}_is_one_integer(${f}_t a) {
  limb_t acc = a.l[0] ^ 1;
  UNROLL for (int i = 1; i < ${F}_N; i++) acc |= a.l[i];
  return acc == 0;
}

/* a⁻¹ (0 maps to 0) by the binary extended Euclidean algorithm (Hankerson, Menezes, Vanstone, "Guide to Elliptic
 * Curve Cryptography", algorithm 2.22), on the integer x = a·R: u·x ≡ x1·… keeps x1·x ≡ u and x2·x ≡ v (mod p)
 * while u and v shrink to 1, so the survivor is x⁻¹ = a⁻¹·R⁻¹, and two multiplications by R² give a⁻¹·R. About
 * 2·log2 p cheap steps of shifts and subtractions: for one thread (an MSM's last affine conversion) a tenth of
 * the time of Fermat's a^(p−2), whose log2 p squarings each wait on the one before. Not constant time: the
 * inputs are public (MSM results, proof points). */
DEVICE ${f}_t ${f}_inverse(${f}_t a) {
  if (${f}_is_zero(a)) return a;
  const limb_t p[${F}_N] = ${F}_P;
  ${f}_t u = a, v, x1 = ${f}_zero(), x2 = ${f}_zero(), d;
  UNROLL for (int i = 0; i < ${F}_N; i++) v.l[i] = p[i];
  x1.l[0] = 1;
  while (!${f}_is_one_integer(u) && !${f}_is_one_integer(v)) {
    while (!(u.l[0] & 1)) {
      u = ${f}_shr1(u, 0);
      x1 = ${f}_half(x1);
    }
    while (!(v.l[0] & 1)) {
      v = ${f}_shr1(v, 0);
      x2 = ${f}_half(x2);
    }
    if (${f}_sub_integers(u, v, &d)) {
      u = d;
      x1 = ${f}_sub(x1, x2);
    } else {
      ${f}_sub_integers(v, u, &v);
      x2 = ${f}_sub(x2, x1);
    }
  }
  ${f}_t r2 = {${F}_R2};
  return ${f}_mul(${f}_mul(${f}_is_one_integer(u) ? x1 : x2, r2), r2);
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

/* a < p as integers: a stored value in canonical form (the coordinates of a file's points are checked with it). */
DEVICE bool ${f}_is_reduced(${f}_t a) {
  ${f}_t p = {${F}_P}, d;
  return !${f}_sub_integers(a, p, &d);
}
