/* ---- fq2 = fq[u]/(u² + 1): c0 + c1·u, both coordinates in Montgomery form ---- */

typedef struct { fq_t c0, c1; } fq2_t;

DEVICE fq2_t fq2_zero(void) {
  fq2_t r;
  r.c0 = fq_zero();
  r.c1 = fq_zero();
  return r;
}

DEVICE fq2_t fq2_one(void) {
  fq2_t r;
  r.c0 = fq_one();
  r.c1 = fq_zero();
  return r;
}

DEVICE bool fq2_is_zero(fq2_t a) { return fq_is_zero(a.c0) && fq_is_zero(a.c1); }

DEVICE bool fq2_eq(fq2_t a, fq2_t b) { return fq_eq(a.c0, b.c0) && fq_eq(a.c1, b.c1); }

DEVICE bool fq2_is_reduced(fq2_t a) { return fq_is_reduced(a.c0) && fq_is_reduced(a.c1); }

DEVICE fq2_t fq2_add(fq2_t a, fq2_t b) {
  fq2_t r;
  r.c0 = fq_add(a.c0, b.c0);
  r.c1 = fq_add(a.c1, b.c1);
  return r;
}

DEVICE fq2_t fq2_sub(fq2_t a, fq2_t b) {
  fq2_t r;
  r.c0 = fq_sub(a.c0, b.c0);
  r.c1 = fq_sub(a.c1, b.c1);
  return r;
}

DEVICE fq2_t fq2_neg(fq2_t a) {
  fq2_t r;
  r.c0 = fq_neg(a.c0);
  r.c1 = fq_neg(a.c1);
  return r;
}

DEVICE fq2_t fq2_dbl(fq2_t a) { return fq2_add(a, a); }

/* Karatsuba: (a0 + a1u)(b0 + b1u) = a0b0 − a1b1 + ((a0 + a1)(b0 + b1) − a0b0 − a1b1)u: 3 multiplications. */
DEVICE fq2_t fq2_mul(fq2_t a, fq2_t b) {
  fq_t v0 = fq_mul(a.c0, b.c0);
  fq_t v1 = fq_mul(a.c1, b.c1);
  fq2_t r;
  r.c0 = fq_sub(v0, v1);
  r.c1 = fq_sub(fq_sub(fq_mul(fq_add(a.c0, a.c1), fq_add(b.c0, b.c1)), v0), v1);
  return r;
}

/* Two products, as fq_mul2's callers use it (here simply one after the other). */
typedef struct { fq2_t first, second; } fq2_pair_t;

DEVICE fq2_pair_t fq2_mul2(fq2_t a1, fq2_t b1, fq2_t a2, fq2_t b2) {
  fq2_pair_t r;
  r.first = fq2_mul(a1, b1);
  r.second = fq2_mul(a2, b2);
  return r;
}

/* (a0 + a1u)² = (a0 + a1)(a0 − a1) + 2a0a1·u: 2 multiplications. */
DEVICE fq2_t fq2_sqr(fq2_t a) {
  fq2_t r;
  r.c0 = fq_mul(fq_add(a.c0, a.c1), fq_sub(a.c0, a.c1));
  r.c1 = fq_dbl(fq_mul(a.c0, a.c1));
  return r;
}

/* (a0 + a1u)⁻¹ = (a0 − a1u)/(a0² + a1²); 0 maps to 0. */
DEVICE fq2_t fq2_inverse(fq2_t a) {
  fq_t t = fq_inverse(fq_add(fq_sqr(a.c0), fq_sqr(a.c1)));
  fq2_t r;
  r.c0 = fq_mul(a.c0, t);
  r.c1 = fq_neg(fq_mul(a.c1, t));
  return r;
}

DEVICE fq2_t fq2_to_mont(fq2_t a) {
  fq2_t r;
  r.c0 = fq_to_mont(a.c0);
  r.c1 = fq_to_mont(a.c1);
  return r;
}

DEVICE fq2_t fq2_from_mont(fq2_t a) {
  fq2_t r;
  r.c0 = fq_from_mont(a.c0);
  r.c1 = fq_from_mont(a.c1);
  return r;
}
