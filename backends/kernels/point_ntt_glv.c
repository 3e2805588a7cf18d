/* ---- The twiddles' split on ${g} by GLV (point_ntt_chain.c): w ≡ k₁ + k₂·λ (mod r), |k₁|, |k₂| < 2^GLV_BITS,
 * [w]B = [k₁]B + [k₂]φ(B), φ(X, Y, Z) = (β·X, Y, Z). ---- */

#define PNTT_PARTS 2
#define PNTT_WORDS GLV_WORDS
#define PNTT_WINDOWS GLV_WINDOWS

typedef struct {
  u32 k[PNTT_PARTS][PNTT_WORDS]; /* |k₁|, |k₂|, little-endian words */
  u32 negative;                  /* bit j: part j < 0 */
} pntt_scalar_t;

/* The split of k (8 words, k < r): k₁ = k − c₁a₁ − c₂a₂, k₂ = −c₁b₁ − c₂b₂ (kernels.glv). */
DEVICE pntt_scalar_t pntt_split(const u32 *k) {
  u32 c1[8], c2[8], k1[8], k2[8], prod[8];
  u32 g1[8], g2[8], a1[8], b1[8], a2[8], b2[8]; /* private copies: CUDA has no pointer to constant memory */
  for (int i = 0; i < 8; i++) {
    g1[i] = GLV_G1[i], g2[i] = GLV_G2[i], a1[i] = GLV_A1[i], b1[i] = GLV_B1[i], a2[i] = GLV_A2[i], b2[i] = GLV_B2[i];
    k1[i] = k[i], k2[i] = 0;
  }
  glv_round(k, g1, GLV_C1_NEGATIVE, c1);
  glv_round(k, g2, GLV_C2_NEGATIVE, c2);
  glv_mul_low(c1, a1, prod);
  glv_sub(k1, prod);
  glv_mul_low(c2, a2, prod);
  glv_sub(k1, prod);
  glv_mul_low(c1, b1, prod);
  glv_sub(k2, prod);
  glv_mul_low(c2, b2, prod);
  glv_sub(k2, prod);
  pntt_scalar_t s;
  s.negative = (k1[7] >> 31) | ((k2[7] >> 31) << 1);
  if (k1[7] >> 31) glv_negate(k1);
  if (k2[7] >> 31) glv_negate(k2);
  for (int i = 0; i < PNTT_WORDS; i++) s.k[0][i] = k1[i], s.k[1][i] = k2[i];
  return s;
}

/* The table entry q as the point its part multiplies: q itself, or φ(q). */
DEVICE ${g}_cached_t ${g}_endo_image(${g}_cached_t q, int part) {
  if (part) q.x = glv_times_beta(q.x);
  return q;
}
