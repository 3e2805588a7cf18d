/* ---- NTT over ${g} points (the reference's point_ntt): radix-2 decimation in time, one launch per stage ----
 * Points live in the device buffer in XYZZ form, Montgomery coordinates; each butterfly's scalar multiplication is
 * point_ntt_chain.c's, its twiddle split once per transform by pntt_twiddles (point_ntt_glv.c on G1,
 * point_ntt_gls.c on G2). */

/* The split of scale·base^(first + t), base and scale in Montgomery form, for t < count (a transform's twiddles
 * ω^t with scale 1, or the inverse's n⁻¹·ω^t). */
KERNEL void pntt_twiddles(GLOBAL const fr_t *base, GLOBAL const fr_t *scale, u32 first, u32 count,
                          GLOBAL pntt_scalar_t *out) {
  u32 t = GLOBAL_ID();
  if (t >= count) return;
  u32 k[8];
  pntt_scalar_words(base[0], scale[0], first + t, k);
  out[t] = pntt_split(k);
}

/* [k]P for the split k of *s: one chain of doublings, a table lookup and addition per part and window. */
DEVICE ${g}_xyzz_t ${g}_endo_mul(${g}_xyzz_t p, GLOBAL const pntt_scalar_t *s) {
  ${g}_cached_t table[GLV_TABLE]; /* [1 … 16]P */
  ${g}_endo_table(p, table);
  u32 negative = s->negative;
  ${g}_jac_t r;
  r.x = ${f}_zero();
  r.y = ${f}_zero();
  r.z = ${f}_zero();
  for (int j = PNTT_WINDOWS - 1; j >= 0; j--) {
    if (j < PNTT_WINDOWS - 1) {
      for (int b = 0; b < GLV_WINDOW_BITS; b++) r = ${g}_jac_dbl(r);
    }
    for (int part = 0; part < PNTT_PARTS; part++) {
      int d = glv_digit(s->k[part], PNTT_WORDS, j);
      if (d == 0) continue;
      ${g}_cached_t q = ${g}_endo_image(table[(d < 0 ? -d : d) - 1], part);
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
KERNEL void ${g}_pntt_stage(GLOBAL ${g}_xyzz_t *points, GLOBAL const pntt_scalar_t *twiddles,
                            GLOBAL const pntt_scalar_t *scaled, u32 fold, u32 span, u32 stride, u32 butterflies) {
  u32 b = GLOBAL_ID();
  if (b >= butterflies) return;
  u32 k = b % span, i = (b / span) * 2 * span + k;
  ${g}_xyzz_t a = points[i], t = points[i + span];
  if (fold && b < span) {
    t = ${g}_endo_mul(t, scaled + (size_t)k * stride);
  } else if (k != 0) {
    t = ${g}_endo_mul(t, twiddles + (size_t)k * stride);
  }
  points[i] = ${g}_add(a, t);
  t.y = ${f}_neg(t.y);
  points[i + span] = ${g}_add(a, t);
}

/* points[i] ← [k]points[i] for i < n and the one split scalar *s (the inverse's n⁻¹ on point 0, before the stages
 * fold it into the rest). */
KERNEL void ${g}_pntt_scale(GLOBAL ${g}_xyzz_t *points, GLOBAL const pntt_scalar_t *s, u32 n) {
  u32 i = GLOBAL_ID();
  if (i >= n) return;
  points[i] = ${g}_endo_mul(points[i], s);
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
