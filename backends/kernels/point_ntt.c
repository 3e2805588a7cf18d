/* ---- NTT over ${g} points (the reference's point_ntt): radix-2 decimation in time, one launch per stage ----
 * Points live in the device buffer in XYZZ form, Montgomery coordinates. A butterfly (A, B) → (A + [w]B, A − [w]B)
 * costs one scalar multiplication by a twiddle w = ω^t, which GLV makes half as long: w ≡ k₁ + k₂·λ (mod r) with
 * |k₁|, |k₂| < 2^GLV_BITS (the split of each twiddle made once per transform, pntt_twiddles), and
 * [w]B = [k₁]B + [k₂]φ(B), φ(X, Y, ZZ, ZZZ) = (β·X, Y, ZZ, ZZZ), in one chain of doublings. The halves are read in
 * signed windows of GLV_WINDOW_BITS bits (Booth recoding: digits in [−16, 16], each from the window's bits and the
 * bit below it), not in wNAF: a window's digit is nonzero but for one in 32, so every work-item of a warp adds at
 * the same steps whatever its twiddle (a wNAF's sparse digits would sit at different places in each lane, and a
 * warp would wait for the union of them). The table [1 … 16]B is made per butterfly; φ of an entry is one product.
 * Scalar arithmetic (the split) runs on u32 words with u64 products, the same on both APIs. */

typedef struct {
  u32 k[2][GLV_WORDS]; /* |k₁|, |k₂|, little-endian words */
  u32 negative;        /* bit 0: k₁ < 0, bit 1: k₂ < 0 */
} glv_scalar_t;

/* out = a·b mod 2^256 (8 words each): two's complement products are the products of the signed values. */
DEVICE void glv_mul_low(const u32 *a, const u32 *b, u32 *out) {
  u32 r[8] = {0, 0, 0, 0, 0, 0, 0, 0};
  for (int i = 0; i < 8; i++) {
    u64 carry = 0;
    for (int j = 0; i + j < 8; j++) {
      u64 t = (u64)a[i] * b[j] + r[i + j] + carry;
      r[i + j] = (u32)t;
      carry = t >> 32;
    }
  }
  for (int i = 0; i < 8; i++) out[i] = r[i];
}

/* out −= x (mod 2^256). */
DEVICE void glv_sub(u32 *out, const u32 *x) {
  u64 borrow = 0;
  for (int i = 0; i < 8; i++) {
    u64 t = (u64)out[i] - x[i] - borrow;
    out[i] = (u32)t;
    borrow = (t >> 32) & 1;
  }
}

/* −x (mod 2^256), in place. */
DEVICE void glv_negate(u32 *x) {
  u64 carry = 1;
  for (int i = 0; i < 8; i++) {
    u64 t = (u64)(~x[i]) + carry;
    x[i] = (u32)t;
    carry = t >> 32;
  }
}

/* c = ±⌊(k·g + 2^255) / 2^256⌋ as 256-bit two's complement (k < 2^255, g < 2^256). */
DEVICE void glv_round(const u32 *k, const u32 *g, bool negative, u32 *c) {
  u32 p[16];
  for (int i = 0; i < 16; i++) p[i] = 0;
  for (int i = 0; i < 8; i++) {
    u64 carry = 0;
    for (int j = 0; j < 8; j++) {
      u64 t = (u64)k[i] * g[j] + p[i + j] + carry;
      p[i + j] = (u32)t;
      carry = t >> 32;
    }
    p[i + 8] = (u32)carry;
  }
  u64 carry = ((u64)p[7] + 0x80000000u) >> 32;
  for (int i = 8; i < 16; i++) {
    u64 t = (u64)p[i] + carry;
    c[i - 8] = (u32)t;
    carry = t >> 32;
  }
  if (negative) glv_negate(c);
}

/* The split of scale·base^(first + t), base and scale in Montgomery form, for t < count (a transform's twiddles
 * ω^t with scale 1, or the inverse's n⁻¹·ω^t): k₁ = k − c₁a₁ − c₂a₂, k₂ = −c₁b₁ − c₂b₂ (kernels.glv). */
KERNEL void pntt_twiddles(GLOBAL const fr_t *base, GLOBAL const fr_t *scale, u32 first, u32 count,
                          GLOBAL glv_scalar_t *out) {
  u32 t = GLOBAL_ID();
  if (t >= count) return;
  fr_t w = fr_one(), b = base[0];
  u32 e = first + t;
  for (int bit = 31; bit >= 0; bit--) {
    w = fr_sqr(w);
    if ((e >> bit) & 1) w = fr_mul(w, b);
  }
  w = fr_from_mont(fr_mul(w, scale[0]));
  u32 k[8], c1[8], c2[8], k1[8], k2[8], prod[8];
  for (int i = 0; i < FR_N; i++) {
    for (int h = 0; h < LIMB_BITS / 32; h++) k[i * (LIMB_BITS / 32) + h] = (u32)((u64)w.l[i] >> (32 * h));
  }
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
  glv_scalar_t s;
  s.negative = (k1[7] >> 31) | ((k2[7] >> 31) << 1);
  if (k1[7] >> 31) glv_negate(k1);
  if (k2[7] >> 31) glv_negate(k2);
  for (int i = 0; i < GLV_WORDS; i++) s.k[0][i] = k1[i], s.k[1][i] = k2[i];
  out[t] = s;
}

/* Signed digit j of a half (Booth): bits 5j − 1 … 5j + 4 of the magnitude m, d = low + Σ_{i<4} 2^i·b_(5j+i) −
 * 16·b_(5j+4) with low = b_(5j−1) (0 for j = 0); Σ_j d_j·2^(5j) = m while the top window's top bit is clear. */
DEVICE int glv_digit(GLOBAL const u32 *m, int j) {
  int lo = GLV_WINDOW_BITS * j - 1;
  u32 bits; /* bits lo … lo + GLV_WINDOW_BITS of m, bit lo at position 0 */
  if (lo < 0) {
    bits = m[0] << 1;
  } else {
    int word = lo / 32, shift = lo % 32;
    u64 pair = (u64)m[word] | (word + 1 < GLV_WORDS ? (u64)m[word + 1] << 32 : 0);
    bits = (u32)(pair >> shift);
  }
  bits &= (1u << (GLV_WINDOW_BITS + 1)) - 1;
  int top = (int)(bits >> GLV_WINDOW_BITS) & 1;
  return (int)(bits & 1) + (int)((bits >> 1) & ((1u << (GLV_WINDOW_BITS - 1)) - 1)) - (top << (GLV_WINDOW_BITS - 1));
}

#define GLV_TABLE (1 << (GLV_WINDOW_BITS - 1))

/* The chain runs in Jacobian coordinates (X, Y, Z) for (X/Z², Y/Z³), infinity when Z = 0: a doubling costs 2M + 5S
 * there against XYZZ's 6M + 3S (on G2, where a square is two products of Fq and a product three, 16 against 24 of
 * Fq's). Its table keeps each point's Z² and Z³ ("cached"), so that an addition costs 11M + 3S, as XYZZ's 12M + 2S;
 * the point comes in XYZZ form and goes back to it. */
typedef struct { ${f}_t x, y, z, zz, zzz; } ${g}_cached_t;
typedef struct { ${f}_t x, y, z; } ${g}_jac_t;

DEVICE ${g}_cached_t ${g}_cache(${g}_jac_t p) {
  ${g}_cached_t r;
  r.x = p.x;
  r.y = p.y;
  r.z = p.z;
  r.zz = ${f}_sqr(p.z);
  r.zzz = ${f}_mul(r.zz, p.z);
  return r;
}

/* (X·ZZ², Y·ZZ³, ZZZ): the same point, since ZZ³ = ZZZ². */
DEVICE ${g}_jac_t ${g}_jac_from_xyzz(${g}_xyzz_t p) {
  ${f}_t zz2 = ${f}_sqr(p.zz);
  ${g}_jac_t r;
  r.x = ${f}_mul(p.x, zz2);
  r.y = ${f}_mul(p.y, ${f}_mul(zz2, p.zz));
  r.z = p.zzz;
  return r;
}

DEVICE ${g}_xyzz_t ${g}_xyzz_from_jac(${g}_jac_t p) {
  ${g}_xyzz_t r;
  r.x = p.x;
  r.y = p.y;
  r.zz = ${f}_sqr(p.z);
  r.zzz = ${f}_mul(r.zz, p.z);
  return r;
}

/* 2P, dbl-2009-l with a = 0. Infinity stays infinity (Z3 = 2·Y·Z). */
DEVICE ${g}_jac_t ${g}_jac_dbl(${g}_jac_t p) {
  ${f}_t a = ${f}_sqr(p.x), b = ${f}_sqr(p.y);
  ${f}_t c = ${f}_sqr(b);
  ${f}_t d = ${f}_dbl(${f}_sub(${f}_sub(${f}_sqr(${f}_add(p.x, b)), a), c));
  ${f}_t e = ${f}_add(${f}_dbl(a), a);
  ${g}_jac_t r;
  r.x = ${f}_sub(${f}_sqr(e), ${f}_dbl(d));
  r.y = ${f}_sub(${f}_mul(e, ${f}_sub(d, r.x)), ${f}_dbl(${f}_dbl(${f}_dbl(c))));
  r.z = ${f}_dbl(${f}_mul(p.y, p.z));
  return r;
}

/* P + Q for a cached Q, add-2007-bl with Q's Z² and Z³ kept; P = Q doubles, P = −Q gives infinity. */
DEVICE ${g}_jac_t ${g}_jac_add(${g}_jac_t p, ${g}_cached_t q) {
  if (${f}_is_zero(q.z)) return p;
  if (${f}_is_zero(p.z)) {
    p.x = q.x;
    p.y = q.y;
    p.z = q.z;
    return p;
  }
  ${f}_t z1z1 = ${f}_sqr(p.z);
  ${f}_t u1 = ${f}_mul(p.x, q.zz);
  ${f}_t s1 = ${f}_mul(p.y, q.zzz);
  ${f}_t h = ${f}_sub(${f}_mul(q.x, z1z1), u1);
  ${f}_t rr = ${f}_sub(${f}_mul(q.y, ${f}_mul(p.z, z1z1)), s1);
  if (${f}_is_zero(h)) {
    if (${f}_is_zero(rr)) return ${g}_jac_dbl(p);
    p.z = ${f}_zero(); /* P = −Q */
    return p;
  }
  ${f}_t hh = ${f}_sqr(h);
  ${f}_t hhh = ${f}_mul(h, hh);
  ${f}_t v = ${f}_mul(u1, hh);
  ${g}_jac_t r;
  r.x = ${f}_sub(${f}_sub(${f}_sqr(rr), hhh), ${f}_dbl(v));
  r.y = ${f}_sub(${f}_mul(rr, ${f}_sub(v, r.x)), ${f}_mul(s1, hhh));
  r.z = ${f}_mul(${f}_mul(p.z, q.z), h);
  return r;
}

/* [k]P for the split k of *s: one chain of doublings, a table lookup and addition per half and window. */
DEVICE ${g}_xyzz_t ${g}_glv_mul(${g}_xyzz_t p, GLOBAL const glv_scalar_t *s) {
  ${g}_cached_t table[GLV_TABLE]; /* [1 … 16]P */
  ${g}_jac_t base = ${g}_jac_from_xyzz(p), acc = ${g}_jac_dbl(base);
  table[0] = ${g}_cache(base);
  table[1] = ${g}_cache(acc);
  for (int m = 2; m < GLV_TABLE; m++) {
    acc = ${g}_jac_add(acc, table[0]);
    table[m] = ${g}_cache(acc);
  }
  u32 negative = s->negative;
  ${g}_jac_t r;
  r.x = ${f}_zero();
  r.y = ${f}_zero();
  r.z = ${f}_zero();
  for (int j = GLV_WINDOWS - 1; j >= 0; j--) {
    if (j < GLV_WINDOWS - 1) {
      for (int b = 0; b < GLV_WINDOW_BITS; b++) r = ${g}_jac_dbl(r);
    }
    for (int part = 0; part < 2; part++) { /* k₁ on P, k₂ on φ(P) */
      int d = glv_digit(s->k[part], j);
      if (d == 0) continue;
      ${g}_cached_t q = table[(d < 0 ? -d : d) - 1];
      if (part) q.x = glv_times_beta(q.x);
      if ((d < 0) != (((negative >> part) & 1) != 0)) q.y = ${f}_neg(q.y);
      r = ${g}_jac_add(r, q);
    }
  }
  return ${g}_xyzz_from_jac(r);
}

/* points[rev(i)] ← input point i, Montgomery XYZZ (the input in bit-reversed order, n = 2^log_n). `stored`: the
 * input is a file's words, already in Montgomery form and untrusted: *bad ← min(*bad, i) for a point with a
 * coordinate not below q or off the curve (as msm's check_bases). */
KERNEL void ${g}_pntt_load(GLOBAL const ${g}_affine_t *in, GLOBAL ${g}_xyzz_t *points, u32 log_n, u32 stored,
                           GLOBAL u32 *bad) {
  u32 i = GLOBAL_ID();
  if (i >= (1u << log_n)) return;
  ${g}_affine_t a = in[i];
  if (stored && !(${f}_is_reduced(a.x) && ${f}_is_reduced(a.y) && ${g}_affine_on_curve(a))) ATOMIC_MIN(bad, i);
  points[bit_reverse(i, log_n)] = ${g}_from_affine(stored ? a : ${g}_affine_to_mont(a));
}

/* One stage: butterfly b pairs i = (b / span)·2·span + k and i + span, k = b mod span, twiddle ω^(k·stride).
 * `fold` (the inverse): the transform's scale s = n⁻¹ is folded into the butterflies of the block holding point 0,
 * whose first half is scaled already (s·DFT(x) = s·DFT(x_even) ± (s·ω^k)·DFT(x_odd)): they take their twiddle from
 * `scaled` (s·ω^t), k = 0 too; so log₂ n + 1 multiplications scale the transform instead of a pass over n points. */
KERNEL void ${g}_pntt_stage(GLOBAL ${g}_xyzz_t *points, GLOBAL const glv_scalar_t *twiddles,
                            GLOBAL const glv_scalar_t *scaled, u32 fold, u32 span, u32 stride, u32 butterflies) {
  u32 b = GLOBAL_ID();
  if (b >= butterflies) return;
  u32 k = b % span, i = (b / span) * 2 * span + k;
  ${g}_xyzz_t a = points[i], t = points[i + span];
  if (fold && b < span) {
    t = ${g}_glv_mul(t, scaled + (size_t)k * stride);
  } else if (k != 0) {
    t = ${g}_glv_mul(t, twiddles + (size_t)k * stride);
  }
  points[i] = ${g}_add(a, t);
  t.y = ${f}_neg(t.y);
  points[i + span] = ${g}_add(a, t);
}

/* points[i] ← [k]points[i] for i < n and the one split scalar *s (the inverse's n⁻¹ on point 0, before the stages
 * fold it into the rest). */
KERNEL void ${g}_pntt_scale(GLOBAL ${g}_xyzz_t *points, GLOBAL const glv_scalar_t *s, u32 n) {
  u32 i = GLOBAL_ID();
  if (i >= n) return;
  points[i] = ${g}_glv_mul(points[i], s);
}

/* out[m] ← affine point m, or point (n − m) mod n when `reverse` (the inverse's order): canonical, or left in
 * Montgomery form when `stored` (as a .ptau stores it). */
KERNEL void ${g}_pntt_store(GLOBAL const ${g}_xyzz_t *points, GLOBAL ${g}_affine_t *out, u32 n, u32 reverse,
                            u32 stored) {
  u32 m = GLOBAL_ID();
  if (m >= n) return;
  ${g}_affine_t a = ${g}_to_affine(points[reverse ? (n - m) & (n - 1) : m]);
  out[m] = stored ? a : ${g}_affine_from_mont(a);
}
