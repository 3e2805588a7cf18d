/* ---- the optimal ate pairing check Π e(P_i, Q_i) = 1 (PAIRING), after cuzk.reference.pairing ----
 * On the tower of tower.c. The algorithms are the cpu backend's (backends/cpu/pairing.py), whose value is the
 * reference's bit for bit:
 * - the Miller loop over the NAF digits of the reference's ate_loop_count, T on the twist in homogeneous projective
 *   coordinates, the doubling and mixed addition steps of Costello, Lange, Naehrig (PKC 2010) as written in Aranha,
 *   Karabina, Longa, Gebotys, López (Eurocrypt 2011, §4; the doubling times 4), each line multiplied into f
 *   sparsely; it differs from the reference's f by factors in Fq6, which the final exponentiation sends to 1;
 * - the final exponentiation: the easy part f^((q⁶ − 1)(q² + 1)) with one inversion, the hard part
 *   (q⁴ − q² + 1)/r = m·Σ c_ij·x^j·q^i + extra (HARD_PART_DIGITS; Scott et al., Pairing 2009, for BN;
 *   Hayashida, Hayasaka, Teruya, ePrint 2020/875, for BLS12) by exponentiations with cyclotomic squarings
 *   (Granger, Scott, PKC 2010), Frobenius maps and small multi-exponentiations (Straus).
 * One work-item runs the Miller loop of one pair (pairing_miller_loop); one more multiplies the k values and runs
 * the one final exponentiation (pairing_final_exponentiation). Not constant time: the points are public. */

/* ---- the Miller loop ---- */

/* T = (X : Y : Z) on the twist E'(Fq2), and a line's three coefficients (ℓ0, ℓx, ℓy): ℓ0 + ℓx·x_P + ℓy·y_P placed
 * on the w-basis for the curve's twist (mul_by_line). */
typedef struct { fq2_t x, y, z; } twist_point_t;
typedef struct { fq2_t l0, lx, ly; } line_t;

/* 2T and the tangent at T (Aranha et al. 2011, §4, times 4): with B = Y², E = 3b'·Z², H = 2YZ,
 * 2T = (2XY(B − 3E), (B + 3E)² − 12E², 4B·H) and (ℓ0, ℓx, ℓy) = (E − B, 3X², −H). */
DEVICE_NOINLINE line_t doubling_step(twist_point_t *t) {
  fq2_t b = fq2_sqr_out(t->y), c = fq2_sqr_out(t->z);
  fq2_t e = fq2_mul_out(TWIST_B3, c);
  fq2_t e3 = fq2_add(fq2_dbl(e), e);
  fq2_t h = fq2_sub(fq2_sub(fq2_sqr_out(fq2_add(t->y, t->z)), b), c);
  fq2_t ee = fq2_sqr_out(e), xx = fq2_sqr_out(t->x);
  line_t l;
  l.l0 = fq2_sub(e, b);
  l.lx = fq2_add(fq2_dbl(xx), xx);
  l.ly = fq2_neg(h);
  fq2_t x3 = fq2_dbl(fq2_mul_out(fq2_mul_out(t->x, t->y), fq2_sub(b, e3)));
  t->y = fq2_sub(fq2_sqr_out(fq2_add(b, e3)), fq2_dbl(fq2_dbl(fq2_add(fq2_dbl(ee), ee))));
  t->z = fq2_dbl(fq2_dbl(fq2_mul_out(b, h)));
  t->x = x3;
  return l;
}

/* T + Q for affine Q and the line through them (Costello, Lange, Naehrig 2010): θ = Y − y_Q·Z, λ = X − x_Q·Z,
 * (ℓ0, ℓx, ℓy) = (θ·x_Q − λ·y_Q, −θ, λ). T = Q takes the tangent (the reference's rule); T = −Q gives λ = 0, θ times
 * a vertical line, which the final exponentiation removes as the reference's dropping it does. */
DEVICE_NOINLINE line_t addition_step(twist_point_t *t, fq2_t xq, fq2_t yq) {
  fq2_t theta = fq2_sub(t->y, fq2_mul_out(yq, t->z)), lambda = fq2_sub(t->x, fq2_mul_out(xq, t->z));
  if (fq2_is_zero(theta) && fq2_is_zero(lambda)) return doubling_step(t);
  fq2_t d = fq2_sqr_out(lambda);
  fq2_t e = fq2_mul_out(lambda, d), g = fq2_mul_out(t->x, d);
  fq2_t h = fq2_sub(fq2_add(e, fq2_mul_out(t->z, fq2_sqr_out(theta))), fq2_dbl(g));
  line_t l;
  l.l0 = fq2_sub(fq2_mul_out(theta, xq), fq2_mul_out(lambda, yq));
  l.lx = fq2_neg(theta);
  l.ly = lambda;
  fq2_t y3 = fq2_sub(fq2_mul_out(theta, fq2_sub(g, h)), fq2_mul_out(t->y, e));
  t->x = fq2_mul_out(lambda, h);
  t->y = y3;
  t->z = fq2_mul_out(t->z, e);
  return l;
}

/* f·ℓ(P), Karatsuba over Fq6 with the line's sparse halves (13 Fq2 products).
 * D-type: ℓ = ℓy·y_P + ℓx·x_P·w + ℓ0·w³, i.e. (ℓy·y_P, 0, 0) + (ℓx·x_P, ℓ0, 0)·w;
 * M-type: ℓ = ℓ0 + ℓx·x_P·w² + ℓy·y_P·w³, i.e. (ℓ0, ℓx·x_P, 0) + (0, ℓy·y_P, 0)·w. */
DEVICE_NOINLINE fq12_t mul_by_line(fq12_t f, line_t l, fq_t xp, fq_t yp) {
  fq6_t t0, t1, s;
#if PAIRING_D_TYPE
  fq2_t a = fq2_scale(l.ly, yp), c = fq2_scale(l.lx, xp);
  t0 = fq6_mul_fq2(f.c0, a);
  t1 = fq6_mul_by_01(f.c1, c, l.l0);
  s = fq6_mul_by_01(fq6_add(f.c0, f.c1), fq2_add(a, c), l.l0);
#else
  fq2_t b = fq2_scale(l.lx, xp), c = fq2_scale(l.ly, yp);
  t0 = fq6_mul_by_01(f.c0, l.l0, b);
  t1 = fq6_mul_v(fq6_mul_fq2(f.c1, c)); /* f1·(c·v) */
  s = fq6_mul_by_01(fq6_add(f.c0, f.c1), l.l0, fq2_add(b, c));
#endif
  fq12_t r;
  r.c0 = fq6_add(t0, fq6_mul_v(t1));
  r.c1 = fq6_sub(fq6_sub(s, t0), t1);
  return r;
}

/* π(x, y) = (conj(x)·c_x, conj(y)·c_y): the reference's twist_frobenius. */
DEVICE void twist_frobenius(fq2_t *x, fq2_t *y) {
  *x = fq2_mul_out(fq2_conj(*x), TWIST_FROBENIUS_X);
  *y = fq2_mul_out(fq2_conj(*y), TWIST_FROBENIUS_Y);
}

/* f_{T,Q}(P) up to factors the final exponentiation removes (P, Q affine, Montgomery form, neither infinity). */
DEVICE fq12_t miller_loop(fq_t xp, fq_t yp, fq2_t xq, fq2_t yq) {
  twist_point_t t;
  t.x = xq;
  t.y = yq;
  t.z = fq2_one();
  fq2_t minus_yq = fq2_neg(yq);
  fq12_t f = fq12_one();
  for (int n = 1; n < ATE_LOOP_LENGTH; n++) {
    if (n > 1) f = fq12_sqr(f);
    f = mul_by_line(f, doubling_step(&t), xp, yp);
    i32 digit = ATE_LOOP_DIGITS[n];
    if (digit != 0) f = mul_by_line(f, addition_step(&t, xq, digit > 0 ? yq : minus_yq), xp, yp);
  }
#if PAIRING_CONJUGATE
  f = fq12_conj(f);
#endif
#if PAIRING_BN
  fq2_t x1 = xq, y1 = yq;
  twist_frobenius(&x1, &y1);
  fq2_t x2 = x1, y2 = y1;
  twist_frobenius(&x2, &y2);
  f = mul_by_line(f, addition_step(&t, x1, y1), xp, yp);
  f = mul_by_line(f, addition_step(&t, x2, fq2_neg(y2)), xp, yp);
#endif
  return f;
}

/* ---- the final exponentiation ---- */

/* Π_j b_j^(e_j) over the bases b_j of the cyclotomic subgroup, e_j the signed digits of row j of hard-part program
 * `program` (most significant first): one shared square-and-multiply (Straus), cyclotomic squarings, conj(b) = b⁻¹
 * for a digit −1; the squarings start at the first non-zero digit. */
DEVICE_NOINLINE fq12_t power_product(const fq12_t *bases, int program) {
  fq12_t acc = fq12_one();
  bool started = false;
  for (int col = 0; col < HARD_PART_WIDTH; col++) {
    if (started) acc = fq12_cyclotomic_sqr(acc);
    for (int j = 0; j < 4; j++) {
      i32 digit = HARD_PART_DIGITS[program][j][col];
      if (digit == 0) continue;
      fq12_t b = digit > 0 ? bases[j] : fq12_conj(bases[j]);
      acc = started ? fq12_mul(acc, b) : b;
      started = true;
    }
  }
  return acc;
}

/* g^e for e = (q⁴ − q² + 1)/r = m·Σ_{i,j} c_ij·x^j·q^i + extra: h = g^m, the bases h^(x^j), j = 0 … 3, then
 * Π_i (Π_j (h^(x^j))^(c_ij))^(q^i) by Horner's rule with the Frobenius map, times g^extra. */
DEVICE fq12_t hard_part(fq12_t g) {
  fq12_t bases[4];
  for (int j = 0; j < 4; j++) bases[j] = g;
  for (int m = 0; m < HARD_PART_PRE; m++) {
    fq12_t h = power_product(bases, m);
    for (int j = 0; j < 4; j++) bases[j] = h;
  }
  fq12_t powers[4];
  powers[0] = bases[0];
  for (int j = 1; j < 4; j++) {
    fq12_t h = power_product(bases, HARD_PART_PRE);
    powers[j] = h;
    for (int i = 0; i < 4; i++) bases[i] = h;
  }
  fq12_t result = power_product(powers, HARD_PART_PRE + 4);
  for (int i = 2; i >= 0; i--) result = fq12_mul(fq12_frobenius(result), power_product(powers, HARD_PART_PRE + 1 + i));
#if HARD_PART_EXTRA
  result = fq12_mul(result, g);
#endif
  return result;
}

/* f^((q¹² − 1)/r): the easy part f^((q⁶ − 1)(q² + 1)) = (conj(f)/f)^(q² + 1), then the hard part. */
DEVICE fq12_t final_exponentiation(fq12_t f) {
  fq12_t g = fq12_mul(fq12_conj(f), fq12_inverse(f));
  g = fq12_mul(fq12_frobenius(fq12_frobenius(g)), g);
  return hard_part(g);
}

/* ---- kernels ---- */

/* values[i] = f_i(P_i), Montgomery form, from canonical affine g1[i] = (x, y) and g2[i] = (x, y) (Fq2 each); 1 when
 * either point is infinity (all zeros): such a pair contributes 1, as in the reference. */
KERNEL void pairing_miller_loop(GLOBAL const fq_t *g1, GLOBAL const fq2_t *g2, GLOBAL fq12_t *values, u32 k) {
  u32 i = GLOBAL_ID();
  if (i >= k) return;
  fq_t xp = g1[2 * i], yp = g1[2 * i + 1];
  fq2_t xq = g2[2 * i], yq = g2[2 * i + 1];
  bool infinity = (fq_is_zero(xp) && fq_is_zero(yp)) || (fq2_is_zero(xq) && fq2_is_zero(yq));
  values[i] = infinity ? fq12_one()
                       : miller_loop(fq_to_mont(xp), fq_to_mont(yp), fq2_to_mont(xq), fq2_to_mont(yq));
}

/* One work-item: out = (Π_i values[i])^((q¹² − 1)/r), canonical, in the reference's coefficient order;
 * is_one[0] = whether it is 1. */
KERNEL void pairing_final_exponentiation(GLOBAL const fq12_t *values, u32 k, GLOBAL fq12_t *out, GLOBAL u32 *is_one) {
  if (GLOBAL_ID() != 0) return;
  fq12_t f = fq12_one();
  for (u32 i = 0; i < k; i++) f = fq12_mul(f, values[i]);
  fq12_t e = final_exponentiation(f);
  is_one[0] = fq12_is_one(e) ? 1u : 0u;
  out[0] = fq12_from_mont(e);
}
