/* ---- MSM in ${g}: Pippenger over the sorted buckets (the reference's msm_pippenger) ----
 * Row t (a window, or every window over shifted bases) holds its entries in bucket order: bucket j's are
 * row[j − 1] … row[j] − 1. Three kernels make Σ_j j·S_j of a row's bucket sums S_j:
 * - bucket sums: the row's entries are cut into `segments` equal ranges, one per work-item, whatever the buckets
 *   hold, so that every work-item of a warp makes the same mixed additions in step (a bucket's end costs a store);
 *   a bucket that lies in the range is stored in `sums`, one cut by the range's ends leaves its part in `edges`
 *   (slot 0: the part of a bucket begun before the range, slot 1: of one that goes on after it);
 * - edges: the work-item whose range a cut bucket begins in adds the parts of the next ranges into its own (a
 *   range far from the bucket's start weighs its part by j itself);
 * - reduce: the buckets cut into `segments` equal ranges; a work-item walks its range from the top down, adding
 *   S_j into `running` and running into `total`: with a the lowest bucket of the range, total = Σ (j − a + 1)·S_j,
 *   so its share of Σ j·S_j is total + (a − 1)·running (summation by parts).
 * The bucket kernels run over `rows` rows from `first_row` at a time (as many as `sums` holds). Chunks of the
 * points are reduced one by one; or, when the upload of the scalars is split to overlap the kernels, a later
 * chunk's bucket sums are made in a second table and added into the first (add_sums; its edges' extra parts are
 * added to the earlier ones, `accumulate`), and one reduction follows the last chunk. Fold and window kernels:
 * row t's 2·segments partial sums (the reduction's, then the edges' extra) summed by a tree into acc[t]
 * (accumulated over chunks reduced one by one). Finish: Horner over the windows, acc = 2^c·acc + acc[t] from the top
 * window down, then affine and canonical. */

KERNEL void ${g}_bases_to_mont(GLOBAL ${g}_affine_t *bases, u32 n) {
  u32 i = GLOBAL_ID();
  if (i >= n) return;
  bases[i] = ${g}_affine_to_mont(bases[i]);
}

/* Bases uploaded as a file stores them (a .zkey's sections: Montgomery form with this R, infinity all zeros),
 * checked where they land: *bad ← min(*bad, first + i) for every point i with a coordinate ≥ q or off the curve. */
KERNEL void ${g}_check_bases(GLOBAL const ${g}_affine_t *bases, u32 n, u32 first, GLOBAL u32 *bad) {
  u32 i = GLOBAL_ID();
  if (i >= n) return;
  ${g}_affine_t a = bases[i];
  bool reduced = ${f}_is_reduced(a.x) && ${f}_is_reduced(a.y);
  if (!reduced || !${g}_affine_on_curve(a)) ATOMIC_MIN(bad, first + i);
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

/* Where the sum of bucket j (its entries row[j − 1] … row[j] − 1) goes from a work-item of entries first … end − 1:
 * `sums` when the bucket lies in that range, else the work-item's edge slot 0 (begun before it) or 1 (goes on).
 * (A store, never an addition to what is there: one lane's addition would hold its whole warp.) */
DEVICE void ${g}_msm_store_bucket(GLOBAL const u32 *row, u32 j, u32 first, u32 end, ${g}_xyzz_t sum,
                                  GLOBAL ${g}_xyzz_t *bucket, GLOBAL ${g}_xyzz_t *edge) {
  if (row[j - 1] < first) {
    edge[0] = sum;
  } else if (row[j] > end) {
    edge[1] = sum;
  } else {
    bucket[0] = sum;
  }
}

KERNEL void ${g}_msm_bucket_sums(GLOBAL const ${g}_affine_t *bases, u32 base_offset, GLOBAL const u32 *entries,
                                 GLOBAL const u32 *offsets, u32 n, u32 nb, u32 segments, u32 first_row, u32 rows,
                                 GLOBAL ${g}_xyzz_t *sums, GLOBAL ${g}_xyzz_t *edges) {
  u32 id = GLOBAL_ID();
  if (id >= segments * rows) return;
  u32 t = first_row + id / segments, s = id % segments;
  GLOBAL const u32 *row = offsets + (size_t)t * (nb + 1);
  GLOBAL const u32 *list = entries + (size_t)t * n;
  GLOBAL ${g}_xyzz_t *sum = sums + (size_t)(id / segments) * nb; /* sum[j − 1]: bucket j's */
  u32 m = row[nb], per = (m + segments - 1) / segments;
  u32 first = min(m, s * per), end = min(m, first + per);
  if (first >= end) return;
  u32 j = msm_entry_bucket(row, nb, first), bucket_end = row[j];
  ${g}_xyzz_t running = ${g}_infinity();
  for (u32 k = first; k < end; k++) {
    if (k == bucket_end) { /* bucket j is complete: store it, and go on to the next bucket with entries */
      ${g}_msm_store_bucket(row, j, first, end, running, sum + j - 1, edges + 2 * (size_t)id);
      running = ${g}_infinity();
      do {
        j++;
      } while (row[j] <= k);
      bucket_end = row[j];
    }
    u32 entry = list[k];
#ifndef CUZK_NO_PREFETCH /* the next point's lines on their way to L2 while this addition runs */
    if (k + 1 < end) PREFETCH(bases + base_offset + (list[k + 1] & 0x7fffffffu), sizeof(${g}_affine_t));
#endif
    ${g}_affine_t a = bases[base_offset + (entry & 0x7fffffffu)];
    if (${g}_affine_is_infinity(a)) continue;
    if (entry >> 31) a.y = ${f}_neg(a.y);
    running = ${g}_madd(running, a);
  }
  ${g}_msm_store_bucket(row, j, first, end, running, sum + j - 1, edges + 2 * (size_t)id);
}

/* Cut buckets. The work-item whose range a bucket begins in and goes on past (its slot 1) adds the parts of the
 * next MSM_EDGE_CHAIN ranges (their slot 0) and stores the bucket's sum. A range further on in a bucket (the
 * buckets of a top window with few bits, or of many equal scalars, span hundreds of ranges) puts j·part into its
 * extra slot instead, partial[t][segments + s], which the fold adds in: a bucket's parts are added in parallel,
 * not by one work-item. */
#define MSM_EDGE_CHAIN 8

KERNEL void ${g}_msm_bucket_edges(GLOBAL const u32 *offsets, u32 nb, u32 segments, u32 first_row, u32 rows,
                                  GLOBAL const ${g}_xyzz_t *edges, GLOBAL ${g}_xyzz_t *sums,
                                  GLOBAL ${g}_xyzz_t *partial, u32 accumulate) {
  u32 id = GLOBAL_ID();
  if (id >= segments * rows) return;
  u32 t = first_row + id / segments, s = id % segments;
  GLOBAL const u32 *row = offsets + (size_t)t * (nb + 1);
  u32 m = row[nb], per = (m + segments - 1) / segments;
  u32 first = min(m, s * per), end = min(m, first + per);
  ${g}_xyzz_t extra = ${g}_infinity();
  if (first < end) {
    u32 h = msm_entry_bucket(row, nb, first);
    if (row[h - 1] < first && s - row[h - 1] / per > MSM_EDGE_CHAIN) { /* in bucket h, far from its start */
      extra = ${g}_mul_small(edges[2 * (size_t)id], h);
    }
    u32 j = msm_entry_bucket(row, nb, end - 1);
    if (row[j - 1] >= first && row[j] > end) {
      ${g}_xyzz_t acc = edges[2 * (size_t)id + 1];
      for (u32 next = s + 1; next <= s + MSM_EDGE_CHAIN && next < segments; next++) {
        acc = ${g}_add(acc, edges[2 * (size_t)(id + next - s)]);
        if (row[j] <= min(m, (next + 1) * per)) break;
      }
      sums[(size_t)(id / segments) * nb + j - 1] = acc;
    }
  }
  GLOBAL ${g}_xyzz_t *slot = partial + (size_t)t * 2 * segments + segments + s;
  *slot = accumulate ? ${g}_add(*slot, extra) : extra;
}

/* sums[i] += more[i] for i < count: a later chunk's bucket sums (made in a table of their own) added to the
 * earlier chunks', every work-item one bucket. */
KERNEL void ${g}_msm_add_sums(GLOBAL ${g}_xyzz_t *sums, GLOBAL const ${g}_xyzz_t *more, u32 count) {
  u32 i = GLOBAL_ID();
  if (i >= count) return;
  sums[i] = ${g}_add(sums[i], more[i]);
}

KERNEL void ${g}_msm_bucket_reduce(GLOBAL const ${g}_xyzz_t *sums, u32 nb, u32 segments, u32 first_row, u32 rows,
                                   GLOBAL ${g}_xyzz_t *partial) {
  u32 id = GLOBAL_ID();
  if (id >= segments * rows) return;
  u32 s = id % segments;
  GLOBAL const ${g}_xyzz_t *sum = sums + (size_t)(id / segments) * nb; /* sum[j − 1]: bucket j's */
  u32 per = (nb + segments - 1) / segments, low = s * per + 1, high = min(nb, low + per - 1);
  ${g}_xyzz_t running = ${g}_infinity(), total = ${g}_infinity();
  for (u32 j = high; j >= low; j--) {
    running = ${g}_add(running, sum[j - 1]);
    total = ${g}_add(total, running);
  }
  size_t at = (size_t)(first_row + id / segments) * 2 * segments + s; /* partial[t][s] */
  partial[at] = low > high ? ${g}_infinity() : ${g}_add(total, ${g}_mul_small(running, low - 1));
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
