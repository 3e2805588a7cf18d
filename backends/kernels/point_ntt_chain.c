/* ---- The scalar multiplications of the point NTT's butterflies (point_ntt.c), over ${g} ----
 * A butterfly (A, B) → (A + [w]B, A − [w]B) costs one scalar multiplication by a twiddle w = ω^t. The group's
 * endomorphisms make it shorter: w ≡ Σ_j k_j·λ_j (mod r) with short parts k_j (the split of each twiddle made once
 * per transform, pntt_twiddles: GLV's two halves on G1, point_ntt_glv.c; GLS's four quarters on G2,
 * point_ntt_gls.c), and [w]B = Σ_j [k_j]·endo_j(B) in one chain of doublings. The parts are read in signed windows
 * of GLV_WINDOW_BITS bits (Booth recoding: digits in [−16, 16], each from the window's bits and the bit below it),
 * not in wNAF: a window's digit is nonzero but for one in 32, so every work-item of a warp adds at the same steps
 * whatever its twiddle (a wNAF's sparse digits would sit at different places in each lane, and a warp would wait
 * for the union of them). The table [1 … 16]B is made per butterfly; an endomorphism of an entry costs a few
 * products. Scalar arithmetic (the split) runs on u32 words with u64 products, the same on both APIs. */

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

/* The canonical words of scale·base^e (base and scale in Montgomery form): the scalar a twiddle's split takes. */
DEVICE void pntt_scalar_words(fr_t b, fr_t scale, u32 e, u32 *k) {
  fr_t w = fr_one();
  for (int bit = 31; bit >= 0; bit--) {
    w = fr_sqr(w);
    if ((e >> bit) & 1) w = fr_mul(w, b);
  }
  w = fr_from_mont(fr_mul(w, scale));
  for (int i = 0; i < FR_N; i++) {
    for (int h = 0; h < LIMB_BITS / 32; h++) k[i * (LIMB_BITS / 32) + h] = (u32)((u64)w.l[i] >> (32 * h));
  }
}

/* Signed digit j of a half (Booth): bits 5j − 1 … 5j + 4 of the magnitude m, d = low + Σ_{i<4} 2^i·b_(5j+i) −
 * 16·b_(5j+4) with low = b_(5j−1) (0 for j = 0); Σ_j d_j·2^(5j) = m while the top window's top bit is clear. */
DEVICE int glv_digit(GLOBAL const u32 *m, int words, int j) {
  int lo = GLV_WINDOW_BITS * j - 1;
  u32 bits; /* bits lo … lo + GLV_WINDOW_BITS of m, bit lo at position 0 */
  if (lo < 0) {
    bits = m[0] << 1;
  } else {
    int word = lo / 32, shift = lo % 32;
    u64 pair = (u64)m[word] | (word + 1 < words ? (u64)m[word + 1] << 32 : 0);
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

/* (X, Y, Z², Z³): the cached form's coordinates. */
DEVICE ${g}_xyzz_t ${g}_xyzz_from_jac(${g}_jac_t p) {
  ${g}_cached_t c = ${g}_cache(p);
  ${g}_xyzz_t r;
  r.x = c.x;
  r.y = c.y;
  r.zz = c.zz;
  r.zzz = c.zzz;
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

/* table[m − 1] ← [m]P for m = 1 … GLV_TABLE, cached Jacobian. */
DEVICE void ${g}_endo_table(${g}_xyzz_t p, ${g}_cached_t *table) {
  ${g}_jac_t base = ${g}_jac_from_xyzz(p), acc = ${g}_jac_dbl(base);
  table[0] = ${g}_cache(base);
  table[1] = ${g}_cache(acc);
  for (int m = 2; m < GLV_TABLE; m++) {
    acc = ${g}_jac_add(acc, table[0]);
    table[m] = ${g}_cache(acc);
  }
}
