/* ---- NTT over fr (the reference's ntt): bit-reversed load, radix-2^r passes of Cooley–Tukey butterflies ----
 * Tables are made on the device from the emitted roots: FR_ROOTS[k] = ω_(2^k) (a primitive 2^k-th root of unity,
 * the reference's domain_root), FR_ROOTS_INV[k] its inverse, FR_INV_2K[k] = 2^(−k), FR_GENERATOR g (cosets). */

#define NTT_MAX_RADIX_LOG 4
#define NTT_POWERS_BLOCK 64

DEVICE fr_t fr_pow_u32(fr_t a, u32 e) {
  fr_t r = fr_one();
  for (int bit = 31; bit >= 0; bit--) {
    r = fr_sqr(r);
    if ((e >> bit) & 1) r = fr_mul(r, a);
  }
  return r;
}

DEVICE u32 ntt_bit_reverse(u32 i, u32 bits) {
  u32 r = 0;
  for (u32 b = 0; b < bits; b++) {
    r = (r << 1) | (i & 1);
    i >>= 1;
  }
  return r;
}

/* The bases of the tables: 0 ω_n, 1 ω_n⁻¹, 2 g, 3 g⁻¹, 4 ω_2n (n = 2^log_n). */
DEVICE fr_t ntt_table_base(u32 which, u32 log_n) {
  switch (which) {
    case 0: return FR_ROOTS[log_n];
    case 1: return FR_ROOTS_INV[log_n];
    case 2: return FR_GENERATOR;
    case 3: return FR_GENERATOR_INV;
    default: return FR_ROOTS[log_n + 1];
  }
}

/* out[i] = base^i for i < count; each work-item one block (one exponentiation, then multiplications). */
KERNEL void fr_powers(GLOBAL fr_t *out, u32 count, u32 which, u32 log_n) {
  u32 start = GLOBAL_ID() * NTT_POWERS_BLOCK;
  if (start >= count) return;
  fr_t base = ntt_table_base(which, log_n);
  fr_t x = fr_pow_u32(base, start);
  u32 end = min(count, start + NTT_POWERS_BLOCK);
  for (u32 i = start; i < end; i++) {
    out[i] = x;
    x = fr_mul(x, base);
  }
}

/* out[rev(i)] = in[i] (flags & 1: converted to Montgomery form; & 2: times scale[i]). */
KERNEL void fr_ntt_load(GLOBAL const fr_t *in, GLOBAL fr_t *out, u32 log_n, u32 flags, GLOBAL const fr_t *scale) {
  u32 i = GLOBAL_ID();
  if (i >= (1u << log_n)) return;
  fr_t x = in[i];
  if (flags & 1) x = fr_to_mont(x);
  if (flags & 2) x = fr_mul(x, scale[i]);
  out[ntt_bit_reverse(i, log_n)] = x;
}

/* Stages first … first + r − 1 (butterflies of half-size 2^first … 2^(first+r−1)) over 2^r elements per item,
 * kept in registers: one read and one write of the array per r stages. tw[i] = ω_n^i, i < n/2. The loops run to
 * the constant maximum and skip what r leaves out, so that every index into x is known at compile time and x
 * lives in registers, not in local memory. */
KERNEL void fr_ntt_pass(GLOBAL fr_t *a, GLOBAL const fr_t *tw, u32 log_n, u32 first, u32 r) {
  u32 id = GLOBAL_ID();
  if (id >= (1u << (log_n - r))) return;
  u32 lo = id & ((1u << first) - 1);
  u32 base = ((id >> first) << (first + r)) | lo;
  u32 m = 1u << r;
  fr_t x[1 << NTT_MAX_RADIX_LOG];
  UNROLL for (u32 j = 0; j < (1u << NTT_MAX_RADIX_LOG); j++) {
    if (j < m) x[j] = a[base + (j << first)];
  }
  UNROLL for (u32 q = 0; q < NTT_MAX_RADIX_LOG; q++) {
    if (q < r) {
      u32 span = 1u << q, stage = first + q;
      UNROLL for (u32 j = 0; j < (1u << NTT_MAX_RADIX_LOG); j++) {
        if (j < m && !(j & span)) {
          u32 k = (base + (j << first)) & ((1u << stage) - 1);
          fr_t t = fr_mul(tw[k << (log_n - 1 - stage)], x[j + span]);
          x[j + span] = fr_sub(x[j], t);
          x[j] = fr_add(x[j], t);
        }
      }
    }
  }
  UNROLL for (u32 j = 0; j < (1u << NTT_MAX_RADIX_LOG); j++) {
    if (j < m) a[base + (j << first)] = x[j];
  }
}

/* out[i] = a[i] (flags & 1: times 2^(−log_n); & 2: times scale[i]; & 4: out of Montgomery form). */
KERNEL void fr_ntt_store(GLOBAL const fr_t *a, GLOBAL fr_t *out, u32 log_n, u32 flags, GLOBAL const fr_t *scale) {
  u32 i = GLOBAL_ID();
  if (i >= (1u << log_n)) return;
  fr_t x = a[i];
  if (flags & 1) x = fr_mul(x, FR_INV_2K[log_n]);
  if (flags & 2) x = fr_mul(x, scale[i]);
  if (flags & 4) x = fr_from_mont(x);
  out[i] = x;
}

/* out[i] = (a[i]·b[i] − c[i])·factor[0]: the pointwise step of the QAP quotient (all in Montgomery form). */
KERNEL void fr_qap_combine(GLOBAL const fr_t *a, GLOBAL const fr_t *b, GLOBAL const fr_t *c, GLOBAL fr_t *out,
                           u32 n, GLOBAL const fr_t *factor) {
  u32 i = GLOBAL_ID();
  if (i >= n) return;
  out[i] = fr_mul(fr_sub(fr_mul(a[i], b[i]), c[i]), factor[0]);
}
