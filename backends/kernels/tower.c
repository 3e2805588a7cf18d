/* ---- the tower above fq2 for the pairing (pairing.c), after cuzk.reference.fields.tower, in Montgomery form ----
 *   fq6  = fq2[v]/(v³ − ξ): c0 + c1·v + c2·v²;   fq12 = fq6[w]/(w² − v): c0 + c1·w,
 * so on the w-basis a = Σ g_i·w^i with (g0, …, g5) = (c0.c0, c1.c0, c0.c1, c1.c1, c0.c2, c1.c2). The formulas are
 * the cpu backend's (backends/cpu/tower.py): Fq6 products by Karatsuba for a cubic extension (6 Fq2 products; 5 by
 * a sparse (b0, b1, 0)); Fq12 products by Karatsuba over Fq6, squarings by the complex method (Devegili,
 * Ó hÉigeartaigh, Scott, Dahab, "Multiplication and squaring on pairing-friendly fields", 2006, §§3–4); cyclotomic
 * squarings (Granger, Scott, PKC 2010); the Frobenius map by the γ_i = ξ^(i(q−1)/6) of pairing_tables. */

typedef struct { fq2_t c0, c1, c2; } fq6_t;
typedef struct { fq6_t c0, c1; } fq12_t;

/* ---- fq2 helpers ---- */

DEVICE fq2_t fq2_conj(fq2_t a) {
  a.c1 = fq_neg(a.c1);
  return a;
}

DEVICE fq2_t fq2_scale(fq2_t a, fq_t s) {
  a.c0 = fq_mul(a.c0, s);
  a.c1 = fq_mul(a.c1, s);
  return a;
}

/* k·a for a small constant k > 0, by double-and-add (unrolled where k is known). */
DEVICE fq_t fq_mul_small(fq_t a, u32 k) {
  fq_t r = fq_zero();
  for (; k; k >>= 1) {
    if (k & 1) r = fq_add(r, a);
    a = fq_dbl(a);
  }
  return r;
}

/* a·ξ with ξ = PAIRING_XI_C0 + PAIRING_XI_C1·u of small coefficients: (x0·a0 − x1·a1) + (x0·a1 + x1·a0)·u by
 * additions. The cyclotomic squaring's and the Fq6 product's reductions by v³ = ξ are a third of their cost
 * as full Fq2 products. */
DEVICE_NOINLINE fq2_t fq2_mul_xi(fq2_t a) {
  fq2_t r;
  r.c0 = fq_sub(fq_mul_small(a.c0, PAIRING_XI_C0), fq_mul_small(a.c1, PAIRING_XI_C1));
  r.c1 = fq_add(fq_mul_small(a.c1, PAIRING_XI_C0), fq_mul_small(a.c0, PAIRING_XI_C1));
  return r;
}

/* fq2_mul and fq2_sqr (fq2.c) with their independent Fq products in one function, so that their carry chains
 * overlap (on a GPU one thread runs the whole final exponentiation: its time is the chains' latency). */
DEVICE_NOINLINE fq2_t fq2_mul_out(fq2_t a, fq2_t b) {
  fq_t v0 = fq_mul_body(a.c0, b.c0), v1 = fq_mul_body(a.c1, b.c1);
  fq_t s = fq_mul_body(fq_add(a.c0, a.c1), fq_add(b.c0, b.c1));
  fq2_t r;
  r.c0 = fq_sub(v0, v1);
  r.c1 = fq_sub(fq_sub(s, v0), v1);
  return r;
}

DEVICE_NOINLINE fq2_t fq2_sqr_out(fq2_t a) {
  fq2_t r;
  r.c0 = fq_mul_body(fq_add(a.c0, a.c1), fq_sub(a.c0, a.c1));
  r.c1 = fq_dbl(fq_mul_body(a.c0, a.c1));
  return r;
}

/* ---- fq6 ---- */

DEVICE fq6_t fq6_add(fq6_t a, fq6_t b) {
  a.c0 = fq2_add(a.c0, b.c0);
  a.c1 = fq2_add(a.c1, b.c1);
  a.c2 = fq2_add(a.c2, b.c2);
  return a;
}

DEVICE fq6_t fq6_sub(fq6_t a, fq6_t b) {
  a.c0 = fq2_sub(a.c0, b.c0);
  a.c1 = fq2_sub(a.c1, b.c1);
  a.c2 = fq2_sub(a.c2, b.c2);
  return a;
}

DEVICE fq6_t fq6_neg(fq6_t a) {
  a.c0 = fq2_neg(a.c0);
  a.c1 = fq2_neg(a.c1);
  a.c2 = fq2_neg(a.c2);
  return a;
}

/* a·v = ξ·a2 + a0·v + a1·v². */
DEVICE fq6_t fq6_mul_v(fq6_t a) {
  fq6_t r;
  r.c0 = fq2_mul_xi(a.c2);
  r.c1 = a.c0;
  r.c2 = a.c1;
  return r;
}

/* Karatsuba for a cubic extension (Devegili et al. 2006, §4), the reference's Fq6Element.__mul__. */
DEVICE_NOINLINE fq6_t fq6_mul(fq6_t a, fq6_t b) {
  fq2_t v0 = fq2_mul_out(a.c0, b.c0), v1 = fq2_mul_out(a.c1, b.c1), v2 = fq2_mul_out(a.c2, b.c2);
  fq6_t r;
  r.c0 = fq2_add(fq2_mul_xi(fq2_sub(fq2_sub(fq2_mul_out(fq2_add(a.c1, a.c2), fq2_add(b.c1, b.c2)), v1), v2)), v0);
  r.c1 = fq2_add(fq2_sub(fq2_sub(fq2_mul_out(fq2_add(a.c0, a.c1), fq2_add(b.c0, b.c1)), v0), v1), fq2_mul_xi(v2));
  r.c2 = fq2_add(fq2_sub(fq2_sub(fq2_mul_out(fq2_add(a.c0, a.c2), fq2_add(b.c0, b.c2)), v0), v2), v1);
  return r;
}

/* a·(b0 + b1·v): the Karatsuba formulas with b2 = 0 (5 Fq2 products). */
DEVICE_NOINLINE fq6_t fq6_mul_by_01(fq6_t a, fq2_t b0, fq2_t b1) {
  fq2_t v0 = fq2_mul_out(a.c0, b0), v1 = fq2_mul_out(a.c1, b1);
  fq6_t r;
  r.c0 = fq2_add(fq2_mul_xi(fq2_mul_out(a.c2, b1)), v0);
  r.c1 = fq2_sub(fq2_sub(fq2_mul_out(fq2_add(a.c0, a.c1), fq2_add(b0, b1)), v0), v1);
  r.c2 = fq2_add(fq2_mul_out(a.c2, b0), v1);
  return r;
}

/* a·b for b in Fq2. */
DEVICE fq6_t fq6_mul_fq2(fq6_t a, fq2_t b) {
  a.c0 = fq2_mul_out(a.c0, b);
  a.c1 = fq2_mul_out(a.c1, b);
  a.c2 = fq2_mul_out(a.c2, b);
  return a;
}

/* ---- fq12 ---- */

DEVICE fq12_t fq12_one(void) {
  fq12_t r;
  r.c0.c0 = fq2_one();
  r.c0.c1 = fq2_zero();
  r.c0.c2 = fq2_zero();
  r.c1.c0 = fq2_zero();
  r.c1.c1 = fq2_zero();
  r.c1.c2 = fq2_zero();
  return r;
}

DEVICE bool fq12_is_one(fq12_t a) {
  fq12_t one = fq12_one();
  return fq2_eq(a.c0.c0, one.c0.c0) && fq2_is_zero(a.c0.c1) && fq2_is_zero(a.c0.c2) && fq2_is_zero(a.c1.c0) &&
         fq2_is_zero(a.c1.c1) && fq2_is_zero(a.c1.c2);
}

/* c0 − c1·w = a^(q⁶): the inverse of a in the cyclotomic subgroup. */
DEVICE fq12_t fq12_conj(fq12_t a) {
  a.c1 = fq6_neg(a.c1);
  return a;
}

/* Karatsuba over Fq6 (3 Fq6 products), the reference's Fq12Element.__mul__. */
DEVICE_NOINLINE fq12_t fq12_mul(fq12_t a, fq12_t b) {
  fq6_t v0 = fq6_mul(a.c0, b.c0), v1 = fq6_mul(a.c1, b.c1);
  fq6_t s = fq6_mul(fq6_add(a.c0, a.c1), fq6_add(b.c0, b.c1));
  fq12_t r;
  r.c0 = fq6_add(v0, fq6_mul_v(v1));
  r.c1 = fq6_sub(fq6_sub(s, v0), v1);
  return r;
}

/* Complex squaring (2 Fq6 products): (a0 + a1)(a0 + a1·v) − ab − ab·v, 2ab with ab = a0·a1. */
DEVICE_NOINLINE fq12_t fq12_sqr(fq12_t a) {
  fq6_t ab = fq6_mul(a.c0, a.c1);
  fq6_t c0 = fq6_mul(fq6_add(a.c0, a.c1), fq6_add(a.c0, fq6_mul_v(a.c1)));
  fq12_t r;
  r.c0 = fq6_sub(fq6_sub(c0, ab), fq6_mul_v(ab));
  r.c1 = fq6_add(ab, ab);
  return r;
}

/* (x + y·s)² in Fq4 = Fq2[s]/(s² − ξ): (x² + ξ·y²) + ((x + y)² − x² − y²)·s. */
DEVICE void fq4_sqr(fq2_t x, fq2_t y, fq2_t *r0, fq2_t *r1) {
  fq2_t t0 = fq2_sqr_out(x), t1 = fq2_sqr_out(y);
  *r0 = fq2_add(fq2_mul_xi(t1), t0);
  *r1 = fq2_sub(fq2_sub(fq2_sqr_out(fq2_add(x, y)), t0), t1);
}

DEVICE fq2_t three_minus_two(fq2_t t, fq2_t z) { /* 3t − 2z */
  fq2_t d = fq2_sub(t, z);
  return fq2_add(fq2_add(d, d), t);
}

DEVICE fq2_t three_plus_two(fq2_t t, fq2_t z) { /* 3t + 2z */
  fq2_t s = fq2_add(t, z);
  return fq2_add(fq2_add(s, s), t);
}

/* a² for a in the cyclotomic subgroup (Granger, Scott, PKC 2010): with A = g0 + g3·s, B = g1 + g4·s,
 * C = g2 + g5·s in Fq4 (s = w³), a² = A' + B'·w + C'·w² where A' = 3A² − 2·conj(A), B' = 3s·C² + 2·conj(B),
 * C' = 3B² − 2·conj(C): 9 Fq2 squarings. */
DEVICE_NOINLINE fq12_t fq12_cyclotomic_sqr(fq12_t a) {
  fq2_t g0 = a.c0.c0, g2 = a.c0.c1, g4 = a.c0.c2, g1 = a.c1.c0, g3 = a.c1.c1, g5 = a.c1.c2;
  fq2_t a0, a1, b0, b1, c0, c1;
  fq4_sqr(g0, g3, &a0, &a1);
  fq4_sqr(g1, g4, &b0, &b1);
  fq4_sqr(g2, g5, &c0, &c1);
  fq12_t r;
  r.c0.c0 = three_minus_two(a0, g0);
  r.c1.c1 = three_plus_two(a1, g3);
  r.c0.c1 = three_minus_two(b0, g2);
  r.c1.c2 = three_plus_two(b1, g5);
  r.c1.c0 = three_plus_two(fq2_mul_xi(c1), g1);
  r.c0.c2 = three_minus_two(c0, g4);
  return r;
}

/* a^q: w-coefficient g_i becomes conj(g_i)·γ_i (γ_0 = 1). */
DEVICE_NOINLINE fq12_t fq12_frobenius(fq12_t a) {
  fq12_t r;
  r.c0.c0 = fq2_conj(a.c0.c0);
  r.c1.c0 = fq2_mul_out(fq2_conj(a.c1.c0), FROBENIUS_GAMMA[1]);
  r.c0.c1 = fq2_mul_out(fq2_conj(a.c0.c1), FROBENIUS_GAMMA[2]);
  r.c1.c1 = fq2_mul_out(fq2_conj(a.c1.c1), FROBENIUS_GAMMA[3]);
  r.c0.c2 = fq2_mul_out(fq2_conj(a.c0.c2), FROBENIUS_GAMMA[4]);
  r.c1.c2 = fq2_mul_out(fq2_conj(a.c1.c2), FROBENIUS_GAMMA[5]);
  return r;
}

/* a⁻¹ down the tower, the reference's inverses: (a0 − a1·w)/(a0² − a1²·v) in Fq12, then in Fq6
 * (t0 + t1·v + t2·v²)/(a0·t0 + ξ(a2·t1 + a1·t2)) (Scott, "Implementing cryptographic pairings", 2007, §4), then
 * fq2_inverse. Once a pairing check: the easy part's. */
DEVICE_NOINLINE fq12_t fq12_inverse(fq12_t a) {
  fq6_t d = fq6_sub(fq6_mul(a.c0, a.c0), fq6_mul_v(fq6_mul(a.c1, a.c1)));
  fq6_t t;
  t.c0 = fq2_sub(fq2_sqr_out(d.c0), fq2_mul_xi(fq2_mul_out(d.c1, d.c2)));
  t.c1 = fq2_sub(fq2_mul_xi(fq2_sqr_out(d.c2)), fq2_mul_out(d.c0, d.c1));
  t.c2 = fq2_sub(fq2_sqr_out(d.c1), fq2_mul_out(d.c0, d.c2));
  fq2_t norm = fq2_add(fq2_mul_out(d.c0, t.c0), fq2_mul_xi(fq2_add(fq2_mul_out(d.c2, t.c1), fq2_mul_out(d.c1, t.c2))));
  fq6_t d_inv = fq6_mul_fq2(t, fq2_inverse(norm));
  fq12_t r;
  r.c0 = fq6_mul(a.c0, d_inv);
  r.c1 = fq6_neg(fq6_mul(a.c1, d_inv));
  return r;
}

DEVICE fq12_t fq12_from_mont(fq12_t a) {
  a.c0.c0 = fq2_from_mont(a.c0.c0);
  a.c0.c1 = fq2_from_mont(a.c0.c1);
  a.c0.c2 = fq2_from_mont(a.c0.c2);
  a.c1.c0 = fq2_from_mont(a.c1.c0);
  a.c1.c1 = fq2_from_mont(a.c1.c1);
  a.c1.c2 = fq2_from_mont(a.c1.c2);
  return a;
}

