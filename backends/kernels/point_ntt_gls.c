/* ---- The twiddles' split on ${g} by GLS (point_ntt_chain.c): w ≡ k₀ + k₁λ + k₂μ + k₃λμ (mod r), each
 * |k_j| < 2^GLS_BITS, [w]B = [k₀]B + [k₁]φ(B) + [k₂]ψ(B) + [k₃]φψ(B) with φ(X, Y, Z) = (β·X, Y, Z) and
 * ψ(X, Y, Z) = (conj(X)·γx, conj(Y)·γy, conj(Z)) (Z², Z³ conjugated too): a quarter of a plain chain's doublings,
 * half of GLV's. ---- */

#define PNTT_PARTS 4
#define PNTT_WORDS GLS_WORDS
#define PNTT_WINDOWS GLS_WINDOWS

typedef struct {
  u32 k[PNTT_PARTS][PNTT_WORDS]; /* |k_j|, little-endian words */
  u32 negative;                  /* bit j: part j < 0 */
} pntt_scalar_t;

/* The split of k (8 words, k < r) by Babai's rounding: m_i = ±⌊(k·G_i + 2^255) / 2^256⌋, v = (k, 0, 0, 0) −
 * Σ m_i·b_i in 256-bit two's complement (kernels.gls). */
DEVICE pntt_scalar_t pntt_split(const u32 *k) {
  u32 v[PNTT_PARTS][8], m[8], g[8], b[8], prod[8];
  for (int j = 0; j < PNTT_PARTS; j++) {
    for (int w = 0; w < 8; w++) v[j][w] = j == 0 ? k[w] : 0;
  }
  for (int i = 0; i < PNTT_PARTS; i++) {
    for (int w = 0; w < 8; w++) g[w] = GLS_ROUNDING[i][w]; /* private copies: see point_ntt_glv.c */
    glv_round(k, g, GLS_ROUNDING_NEGATIVE[i] != 0, m);
    for (int j = 0; j < PNTT_PARTS; j++) {
      for (int w = 0; w < 8; w++) b[w] = GLS_BASIS[i][j][w];
      glv_mul_low(m, b, prod);
      glv_sub(v[j], prod);
    }
  }
  pntt_scalar_t s;
  s.negative = 0;
  for (int j = 0; j < PNTT_PARTS; j++) {
    u32 sign = v[j][7] >> 31;
    s.negative |= sign << j;
    if (sign) glv_negate(v[j]);
    for (int w = 0; w < PNTT_WORDS; w++) s.k[j][w] = v[j][w];
  }
  return s;
}

DEVICE fq2_t gls_conjugate(fq2_t a) {
  a.c1 = fq_neg(a.c1);
  return a;
}

/* The table entry q as the point its part multiplies: q, φ(q), ψ(q) or φ(ψ(q)). */
DEVICE ${g}_cached_t ${g}_endo_image(${g}_cached_t q, int part) {
  if (part >= 2) {
    fq2_t gx = GLS_GAMMA_X, gy = GLS_GAMMA_Y;
    q.x = fq2_mul(gls_conjugate(q.x), gx);
    q.y = fq2_mul(gls_conjugate(q.y), gy);
    q.z = gls_conjugate(q.z);
    q.zz = gls_conjugate(q.zz);
    q.zzz = gls_conjugate(q.zzz);
  }
  if (part & 1) q.x = glv_times_beta(q.x);
  return q;
}
