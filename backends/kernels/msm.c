/* ---- MSM in ${g}: Pippenger over the sorted buckets (the reference's msm_pippenger) ----
 * Bucket kernel: window t's entries (in bucket order) and one step per bucket are W_t = n_t + NB units of work,
 * cut into `segments` equal ranges, one per work-item, whatever the buckets hold: a window whose buckets are
 * few and full (the top one) costs no more than the others. A work-item walks its range from the top down,
 * adding each entry into `running` (mixed affine additions) and, at each bucket step, running into `total`; with
 * S_j its share of bucket j and e the lowest bucket whose step it owns, total = Σ_(j ≥ e) (j − e + 1)·S_j, so its
 * share of Σ_j j·S_j is total + (e − 1)·running (summation by parts). Fold and window kernels: the segments of
 * window t summed by a tree into acc[t] (accumulated over chunks of the points). Finish: Horner over the windows,
 * acc = 2^c·acc + acc[t] from the top window down, then affine and canonical. */

KERNEL void ${g}_bases_to_mont(GLOBAL ${g}_affine_t *bases, u32 n) {
  u32 i = GLOBAL_ID();
  if (i >= n) return;
  bases[i] = ${g}_affine_to_mont(bases[i]);
}

/* Shifted bases: bases[t·n + i] ← 2^(c·t)·bases[i] for t = 1 … windows − 1 (bases[i], Montgomery form, already
 * there). With them an MSM needs one set of buckets for all windows (the entry of point i in window t names base
 * t·n + i) and no doublings between windows; a prover's SRS is fixed, so they are made once, when prepared. */
KERNEL void ${g}_shift_bases(GLOBAL ${g}_affine_t *bases, u32 n, u32 c, u32 windows) {
  u32 i = GLOBAL_ID();
  if (i >= n) return;
  ${g}_affine_t a = bases[i];
  ${g}_xyzz_t p = ${g}_from_affine(a);
  for (u32 t = 1; t < windows; t++) {
    for (u32 k = 0; k < c; k++) p = ${g}_dbl(p);
    bases[(size_t)t * n + i] = ${g}_to_affine(p);
  }
}

/* 1 per point on the curve (infinity included), else 0: a check of the emitted b and of the Montgomery forms. */
KERNEL void ${g}_on_curve(GLOBAL const ${g}_affine_t *points, u32 n, GLOBAL u32 *ok) {
  u32 i = GLOBAL_ID();
  if (i >= n) return;
  ok[i] = ${g}_affine_on_curve(${g}_affine_to_mont(points[i])) ? 1u : 0u;
}

KERNEL void ${g}_msm_buckets(GLOBAL const ${g}_affine_t *bases, u32 base_offset, GLOBAL const u32 *entries,
                             GLOBAL const u32 *offsets, u32 n, u32 nb, u32 segments, u32 windows,
                             GLOBAL ${g}_xyzz_t *partial) {
  u32 id = GLOBAL_ID();
  if (id >= segments * windows) return;
  u32 t = id / segments, s = id % segments;
  GLOBAL const u32 *row = offsets + (size_t)t * (nb + 1);
  GLOBAL const u32 *list = entries + (size_t)t * n;
  u32 units = row[nb] + nb, per = (units + segments - 1) / segments;
  u32 first = min(units, s * per), end = min(units, first + per);
#ifdef CUZK_PAIRED_MUL /* the total in the work-item's own output slot, its registers left to the paired products */
#define ${G}_TOTAL partial[id]
#else
  ${g}_xyzz_t total;
#define ${G}_TOTAL total
#endif
  ${g}_xyzz_t running = ${g}_infinity();
  ${G}_TOTAL = ${g}_infinity();
  u32 e = 1;
  if (first < end) {
    u32 j = msm_bucket_at(row, nb, end - 1);
    for (;;) {
      u32 start = msm_bucket_start(row, j), lo = row[j - 1];
      u32 k = first > start + 1 ? first - start - 1 : 0;
      u32 k_end = min(row[j] - lo, end - start - 1);
      for (; k < k_end; k++) {
        u32 entry = list[lo + k];
#ifndef CUZK_NO_PREFETCH /* the next point's lines on their way to L2 while this addition runs */
        if (k + 1 < k_end) PREFETCH(bases + base_offset + (list[lo + k + 1] & 0x7fffffffu), sizeof(${g}_affine_t));
#endif
        ${g}_affine_t a = bases[base_offset + (entry & 0x7fffffffu)];
        if (${g}_affine_is_infinity(a)) continue;
        if (entry >> 31) a.y = ${f}_neg(a.y);
        running = ${g}_madd(running, a);
      }
      if (start >= first) ${G}_TOTAL = ${g}_add(${G}_TOTAL, running);
      if (start <= first) {
        e = start >= first ? j : j + 1;
        break;
      }
      j--;
    }
  }
  partial[id] = ${g}_add(${G}_TOTAL, ${g}_mul_small(running, e - 1));
#undef ${G}_TOTAL
}

/* One level of a tree sum over the first `count` segments of every window: partial[t][s] += partial[t][s + stride]
 * for s + stride < count (the segments at and beyond count were folded by the levels before). */
KERNEL void ${g}_msm_fold(GLOBAL ${g}_xyzz_t *partial, u32 segments, u32 count, u32 stride, u32 windows) {
  u32 id = GLOBAL_ID();
  if (id >= stride * windows) return;
  u32 t = id / stride, s = id % stride;
  if (s + stride >= count) return;
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

/* ---- [k_i]G for the generator G of ${g} (a Groth16 setup's points; the reference's FixedBaseTable) ----
 * table[t·256 + d] = [d·2^(8t)]G, affine, Montgomery form (d = 0 unused); k_i is read a byte at a time:
 * [k]G = Σ_t table[t][byte t of k], FIXED_BASE_WINDOWS mixed additions and no doubling, then one inversion. */

#define FIXED_BASE_WINDOWS ((FR_BITS + 7) / 8)

KERNEL void ${g}_generator_multiples(GLOBAL const ${g}_affine_t *table, GLOBAL const limb_t *scalars, u32 n,
                                     GLOBAL ${g}_affine_t *out) {
  u32 i = GLOBAL_ID();
  if (i >= n) return;
  GLOBAL const limb_t *k = scalars + (size_t)i * FR_N;
  ${g}_xyzz_t acc = ${g}_infinity();
  for (u32 t = 0; t < FIXED_BASE_WINDOWS; t++) {
    u32 d = msm_window_bits(k, 8 * t, 8);
    if (d) acc = ${g}_madd(acc, table[t * 256 + d]);
  }
  out[i] = ${g}_affine_from_mont(${g}_to_affine(acc));
}
