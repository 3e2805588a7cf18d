/* ---- ${g}: points of y² = x³ + ${G}_B over ${f} ----
 * Affine (x, y) as stored in the host's arrays (infinity = all zeros, which is on no curve with b ≠ 0), and XYZZ
 * coordinates (X, Y, ZZ, ZZZ) standing for (X/ZZ, Y/ZZZ) with ZZ³ = ZZZ², infinity when ZZ = 0 (EFD,
 * "g1p/auto-shortw-xyzz-3"): a mixed addition costs 8M + 2S and needs no inversion. */

typedef struct { ${f}_t x, y; } ${g}_affine_t;
typedef struct { ${f}_t x, y, zz, zzz; } ${g}_xyzz_t;

DEVICE ${g}_xyzz_t ${g}_infinity(void) {
  ${g}_xyzz_t r;
  r.x = ${f}_zero();
  r.y = ${f}_zero();
  r.zz = ${f}_zero();
  r.zzz = ${f}_zero();
  return r;
}

DEVICE bool ${g}_is_infinity(${g}_xyzz_t p) { return ${f}_is_zero(p.zz); }

DEVICE bool ${g}_affine_is_infinity(${g}_affine_t a) { return ${f}_is_zero(a.x) && ${f}_is_zero(a.y); }

DEVICE ${g}_xyzz_t ${g}_from_affine(${g}_affine_t a) {
  if (${g}_affine_is_infinity(a)) return ${g}_infinity();
  ${g}_xyzz_t r;
  r.x = a.x;
  r.y = a.y;
  r.zz = ${f}_one();
  r.zzz = ${f}_one();
  return r;
}

/* y² = x³ + b, for a point in Montgomery form (infinity counts as on the curve). */
DEVICE bool ${g}_affine_on_curve(${g}_affine_t a) {
  if (${g}_affine_is_infinity(a)) return true;
  ${f}_t b = {${G}_B};
  ${f}_t rhs = ${f}_add(${f}_mul(${f}_sqr(a.x), a.x), b);
  return ${f}_eq(${f}_sqr(a.y), rhs);
}

/* 2P, dbl-2008-s-1 with a = 0. Infinity stays infinity (V = 0 makes ZZ3 = 0). */
DEVICE ${g}_xyzz_t ${g}_dbl(${g}_xyzz_t p) {
  ${f}_t u = ${f}_dbl(p.y);
  ${f}_t v = ${f}_sqr(u);
  ${f}_t w = ${f}_mul(u, v);
  ${f}_t s = ${f}_mul(p.x, v);
  ${f}_t x2 = ${f}_sqr(p.x);
  ${f}_t m = ${f}_add(${f}_dbl(x2), x2);
  ${g}_xyzz_t r;
  r.x = ${f}_sub(${f}_sqr(m), ${f}_dbl(s));
  r.y = ${f}_sub(${f}_mul(m, ${f}_sub(s, r.x)), ${f}_mul(w, p.y));
  r.zz = ${f}_mul(v, p.zz);
  r.zzz = ${f}_mul(w, p.zzz);
  return r;
}

/* 2A for an affine A (not infinity), mdbl-2008-s-1. */
DEVICE ${g}_xyzz_t ${g}_mdbl(${g}_affine_t a) {
  ${f}_t u = ${f}_dbl(a.y);
  ${f}_t v = ${f}_sqr(u);
  ${f}_t w = ${f}_mul(u, v);
  ${f}_t s = ${f}_mul(a.x, v);
  ${f}_t x2 = ${f}_sqr(a.x);
  ${f}_t m = ${f}_add(${f}_dbl(x2), x2);
  ${g}_xyzz_t r;
  r.x = ${f}_sub(${f}_sqr(m), ${f}_dbl(s));
  r.y = ${f}_sub(${f}_mul(m, ${f}_sub(s, r.x)), ${f}_mul(w, a.y));
  r.zz = v;
  r.zzz = w;
  return r;
}

/* P + A for an affine A (not infinity), madd-2008-s; P = A doubles, P = −A gives infinity. With CUZK_PAIRED_MUL
 * (chosen per curve by generate.paired_mul: BLS12-381's G1 on CUDA) its ten products go as five independent pairs,
 * each one call. */
DEVICE ${g}_xyzz_t ${g}_madd(${g}_xyzz_t p, ${g}_affine_t a) {
  if (${g}_is_infinity(p)) return ${g}_from_affine(a);
#if CUZK_PAIRED_MUL
  ${f}_pair_t u = ${f}_mul2(a.x, p.zz, a.y, p.zzz);
  ${f}_t pp = ${f}_sub(u.first, p.x);
  ${f}_t rr = ${f}_sub(u.second, p.y);
  if (${f}_is_zero(pp)) return ${f}_is_zero(rr) ? ${g}_mdbl(a) : ${g}_infinity();
  ${f}_pair_t squares = ${f}_mul2(pp, pp, rr, rr);
  ${f}_pair_t v = ${f}_mul2(pp, squares.first, p.x, squares.first); /* PPP, Q */
  ${g}_xyzz_t r;
  r.x = ${f}_sub(${f}_sub(squares.second, v.first), ${f}_dbl(v.second));
  ${f}_pair_t y = ${f}_mul2(rr, ${f}_sub(v.second, r.x), p.y, v.first);
  r.y = ${f}_sub(y.first, y.second);
  ${f}_pair_t z = ${f}_mul2(p.zz, squares.first, p.zzz, v.first);
  r.zz = z.first;
  r.zzz = z.second;
  return r;
#else
  ${f}_t pp = ${f}_sub(${f}_mul(a.x, p.zz), p.x);
  ${f}_t rr = ${f}_sub(${f}_mul(a.y, p.zzz), p.y);
  if (${f}_is_zero(pp)) return ${f}_is_zero(rr) ? ${g}_mdbl(a) : ${g}_infinity();
  ${f}_t pp2 = ${f}_sqr(pp);
  ${f}_t ppp = ${f}_mul(pp, pp2);
  ${f}_t q = ${f}_mul(p.x, pp2);
  ${g}_xyzz_t r;
  r.x = ${f}_sub(${f}_sub(${f}_sqr(rr), ppp), ${f}_dbl(q));
  r.y = ${f}_sub(${f}_mul(rr, ${f}_sub(q, r.x)), ${f}_mul(p.y, ppp));
  r.zz = ${f}_mul(p.zz, pp2);
  r.zzz = ${f}_mul(p.zzz, ppp);
  return r;
#endif
}

/* P + Q, add-2008-s; P = Q doubles, P = −Q gives infinity. */
DEVICE ${g}_xyzz_t ${g}_add(${g}_xyzz_t p, ${g}_xyzz_t q) {
  if (${g}_is_infinity(p)) return q;
  if (${g}_is_infinity(q)) return p;
  ${f}_t u1 = ${f}_mul(p.x, q.zz);
  ${f}_t s1 = ${f}_mul(p.y, q.zzz);
  ${f}_t pp = ${f}_sub(${f}_mul(q.x, p.zz), u1);
  ${f}_t rr = ${f}_sub(${f}_mul(q.y, p.zzz), s1);
  if (${f}_is_zero(pp)) return ${f}_is_zero(rr) ? ${g}_dbl(p) : ${g}_infinity();
  ${f}_t pp2 = ${f}_sqr(pp);
  ${f}_t ppp = ${f}_mul(pp, pp2);
  ${f}_t v = ${f}_mul(u1, pp2);
  ${g}_xyzz_t r;
  r.x = ${f}_sub(${f}_sub(${f}_sqr(rr), ppp), ${f}_dbl(v));
  r.y = ${f}_sub(${f}_mul(rr, ${f}_sub(v, r.x)), ${f}_mul(s1, ppp));
  r.zz = ${f}_mul(${f}_mul(p.zz, q.zz), pp2);
  r.zzz = ${f}_mul(${f}_mul(p.zzz, q.zzz), ppp);
  return r;
}

/* [k]P for a small k ≥ 0 (a bucket index), double-and-add from the top bit. */
DEVICE ${g}_xyzz_t ${g}_mul_small(${g}_xyzz_t p, u32 k) {
  ${g}_xyzz_t r = ${g}_infinity();
  int top = 31;
  while (top >= 0 && !((k >> top) & 1)) top--;
  for (int bit = top; bit >= 0; bit--) {
    r = ${g}_dbl(r);
    if ((k >> bit) & 1) r = ${g}_add(r, p);
  }
  return r;
}

/* (X/ZZ, Y/ZZZ) with one inversion: t = (ZZ·ZZZ)⁻¹, 1/ZZ = t·ZZZ, 1/ZZZ = t·ZZ. Infinity gives zeros. */
DEVICE ${g}_affine_t ${g}_to_affine(${g}_xyzz_t p) {
  ${g}_affine_t a;
  if (${g}_is_infinity(p)) {
    a.x = ${f}_zero();
    a.y = ${f}_zero();
    return a;
  }
  ${f}_t t = ${f}_inverse(${f}_mul(p.zz, p.zzz));
  a.x = ${f}_mul(p.x, ${f}_mul(t, p.zzz));
  a.y = ${f}_mul(p.y, ${f}_mul(t, p.zz));
  return a;
}

DEVICE ${g}_affine_t ${g}_affine_to_mont(${g}_affine_t a) {
  a.x = ${f}_to_mont(a.x);
  a.y = ${f}_to_mont(a.y);
  return a;
}

DEVICE ${g}_affine_t ${g}_affine_from_mont(${g}_affine_t a) {
  a.x = ${f}_from_mont(a.x);
  a.y = ${f}_from_mont(a.y);
  return a;
}
