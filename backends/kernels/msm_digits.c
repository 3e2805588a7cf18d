/* ---- MSM, the scalar side (shared by G1 and G2): signed digits and the sort of (point, bucket) pairs ----
 * Scalars are canonical Fr limbs (not Montgomery). With a window of c bits, digit t of k is the reference's
 * signed_digits(k, c, W)[t]: v = (bits c·t … c·t + c − 1 of k) + carry; v > 2^(c−1) gives the digit v − 2^c and
 * a carry of 1. A digit d ≠ 0 puts the point into bucket |d| of window t (negated when d < 0): a counting sort
 * by bucket (histogram, exclusive scan, scatter) lists the points of every bucket contiguously. Window t's
 * counts and offsets live at t·(NB + 1) … with NB = 2^(c−1) buckets; entry j − 1 is bucket j, entry NB the total. */

DEVICE u32 msm_window_bits(GLOBAL const limb_t *k, u32 offset, u32 c) {
  u32 li = offset / LIMB_BITS, sh = offset % LIMB_BITS;
  if (li >= FR_N) return 0;
  u64 v = (u64)(k[li] >> sh);
  if (sh + c > LIMB_BITS && li + 1 < FR_N) v |= (u64)k[li + 1] << (LIMB_BITS - sh);
  return (u32)(v & (((u64)1 << c) - 1));
}

/* |digit t| (0: no bucket), its sign in *negative; *carry goes from window t to t + 1. */
DEVICE u32 msm_digit(GLOBAL const limb_t *k, u32 t, u32 c, u32 *carry, bool *negative) {
  u64 v = (u64)msm_window_bits(k, t * c, c) + *carry;
  u64 mid = (u64)1 << (c - 1);
  *negative = v > mid;
  *carry = *negative ? 1 : 0;
  return (u32)(*negative ? ((u64)1 << c) - v : v);
}

/* Whether k ≥ r (not a canonical scalar): the borrow out of k − r is 0. */
DEVICE bool msm_noncanonical(GLOBAL const limb_t *k) {
  const limb_t r[FR_N] = FR_P;
  limb_t borrow = 0;
  UNROLL for (u32 i = 0; i < FR_N; i++) {
    limb_t d = k[i] - r[i];
    borrow = (limb_t)(k[i] < r[i]) | (limb_t)(d < borrow);
  }
  return borrow == 0;
}

/* The n points' scalars are rows row … row + n − 1 of `scalars` (a slice of an array uploaded once, or the rows of
 * one piece of the bases). The histogram also checks them against r, so that the host need not make a pass of its
 * own over the scalars before the upload.
 * merged = 0: window t's counts and entries are its own (row t, entries t·n …); merged = 1 (shifted bases, see
 * msm.c): every window's pairs go to one row of buckets, and the entry of point i in window t is t·copy + i, the
 * index of its base 2^(c·t)·P_i past the chunk's first point (copy: the points of every window's copy). */
KERNEL void msm_histogram(GLOBAL const limb_t *scalars, u32 row, u32 n, u32 c, u32 windows, u32 merged,
                          GLOBAL u32 *counts, GLOBAL u32 *noncanonical) {
  u32 i = GLOBAL_ID();
  if (i >= n) return;
  GLOBAL const limb_t *k = scalars + ((size_t)row + i) * FR_N;
  if (msm_noncanonical(k)) *noncanonical = 1; /* the host then finds the row and refuses the call */
  u32 stride = (1u << (c - 1)) + 1, carry = 0;
  bool negative;
  for (u32 t = 0; t < windows; t++) {
    u32 bucket = msm_digit(k, t, c, &carry, &negative);
    if (bucket) ATOMIC_INC(&counts[(size_t)(merged ? 0 : t) * stride + bucket - 1]);
  }
}

/* Entry: the base's index, with bit 31 set when the point enters its bucket negated. Only windows first … last − 1
 * are written (the carries of the ones below are recomputed): one launch per few rows keeps the rows being filled,
 * which take random writes, in the device's cache. */
KERNEL void msm_scatter(GLOBAL const limb_t *scalars, u32 row, u32 n, u32 c, u32 windows, u32 merged,
                        GLOBAL u32 *cursor, GLOBAL u32 *entries, u32 first, u32 last, u32 copy) {
  u32 i = GLOBAL_ID();
  if (i >= n) return;
  GLOBAL const limb_t *k = scalars + ((size_t)row + i) * FR_N;
  u32 stride = (1u << (c - 1)) + 1, carry = 0;
  bool negative;
  for (u32 t = 0; t < min(windows, last); t++) {
    u32 bucket = msm_digit(k, t, c, &carry, &negative);
    if (bucket && t >= first) {
      u32 row = merged ? 0 : t;
      u32 slot = ATOMIC_INC(&cursor[(size_t)row * stride + bucket - 1]);
      u32 index = merged ? t * copy + i : i;
      entries[(size_t)row * n + slot] = index | (negative ? 0x80000000u : 0u);
    }
  }
}

/* The exclusive scan of the counts, in three parallel steps over blocks of `block` buckets. */
KERNEL void msm_scan_blocks(GLOBAL const u32 *counts, u32 nb, u32 block, u32 blocks, u32 windows,
                            GLOBAL u32 *block_sums) {
  u32 id = GLOBAL_ID();
  if (id >= blocks * windows) return;
  u32 t = id / blocks, b = id % blocks;
  u32 end = min(nb, (b + 1) * block), sum = 0;
  for (u32 j = b * block; j < end; j++) sum += counts[(size_t)t * (nb + 1) + j];
  block_sums[id] = sum;
}

KERNEL void msm_scan_top(GLOBAL u32 *block_sums, u32 blocks, u32 windows) {
  u32 t = GLOBAL_ID();
  if (t >= windows) return;
  u32 running = 0;
  for (u32 b = 0; b < blocks; b++) {
    u32 s = block_sums[t * blocks + b];
    block_sums[t * blocks + b] = running;
    running += s;
  }
}

KERNEL void msm_scan_fill(GLOBAL const u32 *counts, GLOBAL const u32 *block_sums, u32 nb, u32 block, u32 blocks,
                          u32 windows, GLOBAL u32 *offsets, GLOBAL u32 *cursor) {
  u32 id = GLOBAL_ID();
  if (id >= blocks * windows) return;
  u32 t = id / blocks, b = id % blocks;
  u32 end = min(nb, (b + 1) * block), running = block_sums[id];
  size_t row = (size_t)t * (nb + 1);
  for (u32 j = b * block; j < end; j++) {
    offsets[row + j] = running;
    cursor[row + j] = running;
    running += counts[row + j];
  }
  if (b == blocks - 1) offsets[row + nb] = running;
}

/* The bucket holding entry k < row[nb] of a row: the largest j in 1 … nb with row[j − 1] ≤ k (a binary search;
 * bucket j's entries are row[j − 1] … row[j] − 1). */
DEVICE u32 msm_entry_bucket(GLOBAL const u32 *row, u32 nb, u32 k) {
  u32 lo = 1, hi = nb;
  while (lo < hi) {
    u32 mid = lo + (hi - lo + 1) / 2;
    if (row[mid - 1] <= k) {
      lo = mid;
    } else {
      hi = mid - 1;
    }
  }
  return lo;
}
