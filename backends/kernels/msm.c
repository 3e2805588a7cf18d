/* ---- MSM in ${g}: Pippenger over the sorted buckets (the reference's msm_pippenger) ----
 * Bucket kernel: work-item (t, s) walks the buckets hi … lo of segment s of window t from the top down, adding
 * each bucket's points into `running` (mixed affine additions, so running = Σ_{i ≥ j} B_i) and running into
 * `total` after each bucket: total = Σ_j (j − lo + 1)·B_j. The segment's share of Σ_j j·B_j is then
 * total + (lo − 1)·running (summation by parts, split over segments so that all cores get work). Fold and window
 * kernels: the segments of window t summed by a tree into acc[t] (accumulated over chunks of the points). Finish:
 * Horner over the windows, acc = 2^c·acc + acc[t] from the top window down, then affine and canonical. */

KERNEL void ${g}_bases_to_mont(GLOBAL ${g}_affine_t *bases, u32 n) {
  u32 i = GLOBAL_ID();
  if (i >= n) return;
  bases[i] = ${g}_affine_to_mont(bases[i]);
}

/* 1 per point on the curve (infinity included), else 0: a check of the emitted b and of the Montgomery forms. */
KERNEL void ${g}_on_curve(GLOBAL const ${g}_affine_t *points, u32 n, GLOBAL u32 *ok) {
  u32 i = GLOBAL_ID();
  if (i >= n) return;
  ok[i] = ${g}_affine_on_curve(${g}_affine_to_mont(points[i])) ? 1u : 0u;
}

KERNEL void ${g}_msm_buckets(GLOBAL const ${g}_affine_t *bases, u32 base_offset, GLOBAL const u32 *entries,
                             GLOBAL const u32 *offsets, u32 n, u32 nb, u32 segment, u32 segments, u32 windows,
                             GLOBAL ${g}_xyzz_t *partial) {
  u32 id = GLOBAL_ID();
  if (id >= segments * windows) return;
  u32 t = id / segments, s = id % segments;
  u32 lo = s * segment + 1, hi = min(nb, lo + segment - 1);
  ${g}_xyzz_t running = ${g}_infinity(), total = ${g}_infinity();
  GLOBAL const u32 *row = offsets + (size_t)t * (nb + 1);
  GLOBAL const u32 *list = entries + (size_t)t * n;
  for (u32 j = hi; j >= lo; j--) {
    for (u32 e = row[j - 1]; e < row[j]; e++) {
      u32 entry = list[e];
      ${g}_affine_t a = bases[base_offset + (entry & 0x7fffffffu)];
      if (${g}_affine_is_infinity(a)) continue;
      if (entry >> 31) a.y = ${f}_neg(a.y);
      running = ${g}_madd(running, a);
    }
    total = ${g}_add(total, running);
  }
  partial[id] = ${g}_add(total, ${g}_mul_small(running, lo - 1));
}

/* One level of a tree sum over the segments of every window: partial[t][s] += partial[t][s + stride]. */
KERNEL void ${g}_msm_fold(GLOBAL ${g}_xyzz_t *partial, u32 segments, u32 stride, u32 windows) {
  u32 id = GLOBAL_ID();
  if (id >= stride * windows) return;
  u32 t = id / stride, s = id % stride;
  if (s + stride >= segments) return;
  size_t i = (size_t)t * segments + s;
  partial[i] = ${g}_add(partial[i], partial[i + stride]);
}

/* acc[t] += partial[t][0], the sum of window t's segments after the folds. */
KERNEL void ${g}_msm_windows(GLOBAL const ${g}_xyzz_t *partial, u32 segments, u32 windows, GLOBAL ${g}_xyzz_t *acc) {
  u32 t = GLOBAL_ID();
  if (t >= windows) return;
  acc[t] = ${g}_add(acc[t], partial[(size_t)t * segments]);
}

KERNEL void ${g}_msm_finish(GLOBAL const ${g}_xyzz_t *acc, u32 windows, u32 c, GLOBAL ${g}_affine_t *out) {
  if (GLOBAL_ID() != 0) return;
  ${g}_xyzz_t r = ${g}_infinity();
  for (int t = (int)windows - 1; t >= 0; t--) {
    if (!${g}_is_infinity(r)) {
      for (u32 i = 0; i < c; i++) r = ${g}_dbl(r);
    }
    r = ${g}_add(r, acc[t]);
  }
  out[0] = ${g}_affine_from_mont(${g}_to_affine(r));
}
