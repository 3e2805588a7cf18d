/* ---- ${f}: Montgomery multiplication on the FP64 pipe (Emmart, Zheng, Weems, "Faster Modular Exponentiation Using
 * Double Precision Floating Point Arithmetic on the GPU", ARITH 2018) ----
 * Where a GPU issues FP64 FMAs to a pipe of their own, products of this function can run beside those of
 * ${f}_mul_body (integer multiply-adds). Where it was measured, it was slower than ${f}_mul_body and a mix of the
 * two no faster than ${f}_mul_body alone: the two seemed to share one pipe (docs/performance.md). So it is built only
 * under the build option CUZK_FP64_MUL (which defines HAS_F64 in the preludes, on a device with doubles), and no
 * product program sets it: its tests do, and the benchmarks that measure it on other GPUs, alone or inside the NTT
 * (NTT_F64_* in ntt.c). Same contract as ${f}_mul_body: a, b in [0, p), the result a·b·R⁻¹ mod p in [0, p).
 *
 * Operands are ${F}_DIGITS digits of 51 bits, each held exactly by a double. Two digits' product x·y < 2^102 comes
 * exactly out of two FMAs rounding to nearest:
 *   hi = fma(x, y, 2^103) = 2^103 + h·2^51, h = round(x·y / 2^51)   (x·y < 2^102: one binade, whose ulp is 2^51)
 *   lo = fma(x, y, 2^103 + 2^52 + 2^51 − hi) = 2^52 + 2^51 + (x·y − h·2^51)
 * The constant is a double (bits 103 … 51), the bracket is exact (it is 2^51·(3 − h)), and |x·y − h·2^51| ≤ 2^50
 * puts lo in [2^52, 2^53), where a double's bits read as an integer are BITS(2^52) + (lo − 2^52). So are hi's in its
 * binade: BITS(2^103) + h. Each product adds those two integers, less their biases, to the 64-bit columns c_k of
 * weight 2^(51k): the low half to column i + j, h to column i + j + 1.
 * The reduction is Montgomery's by digits (separated operand scanning): for k < D, m = c_k·(−p⁻¹) mod 2^51 and
 * c += m·p·2^(51k), which clears c_k's low 51 bits, then c_(k+1) += c_k >> 51 (arithmetic: a low half may be negative,
 * and so may a column). A column sums at most 4D halves, each at most 2^51 in size, and a carry: far inside 63 bits.
 * The radix is R' = 2^(51D) = R·2^s:
 *   s ≥ 0: a goes in as a·2^s (digits read from a's bits shifted up), and (2^s·a·b + m·p)/R' < (2^s·p·p)/R' + p < 2p;
 *   s = −1 (256-bit R: Fr, and BN254's Fq): p < R/2 fits D digits as it is, the result t = a·b·(R/2)⁻¹ < 2p is halved
 *   mod p ((t + p)/2 when t is odd, below 3p/2).
 * Then one conditional subtraction of p, as ${f}_mul_body's. */
#ifdef HAS_F64
#if ${F}_DIGIT_SHIFT < -1
#error "the FP64 multiplication halves its result at most once"
#endif
#ifndef F64_DIGIT_BITS
#define F64_DIGIT_BITS 51
#define F64_DIGIT_MASK ((((u64)1) << F64_DIGIT_BITS) - 1)
#define F64_TWO52 ((double)(((u64)1) << 52))
#define F64_TWO51 ((double)(((u64)1) << 51))
#define F64_TWO103 (F64_TWO52 * F64_TWO51)
#define F64_HI_ADDEND F64_TWO103                          /* hi = fma(x, y, 2^103) */
#define F64_LO_ADDEND (F64_TWO103 + F64_TWO52 + F64_TWO51) /* exact: bits 103 … 51 */
/* A double's bits: sign 0, exponent e + 1023 at bit 52, fraction; so BITS(2^e) = (e + 1023)·2^52. */
#define F64_BITS_POW2(e) (((u64)(1023 + (e))) << 52)
#define F64_HI_BIAS F64_BITS_POW2(103)                         /* bits of hi − h */
#define F64_LO_BIAS (F64_BITS_POW2(52) + (((u64)1) << 51))     /* bits of lo − (x·y − h·2^51) */

/* x (an integer below 2^51) as a double: 2^52 + x has x for its fraction bits. */
DEVICE double f64_from_digit(u64 x) { return bits_f64(x | F64_BITS_POW2(52)) - F64_TWO52; }

/* The exact product x·y of two digits, its halves added to the columns *lo (weight 1) and *hi (weight 2^51). */
DEVICE void f64_product(double x, double y, u64 *lo, u64 *hi) {
  double h = fma(x, y, F64_HI_ADDEND);
  double l = fma(x, y, F64_LO_ADDEND - h);
  *lo += f64_bits(l) - F64_LO_BIAS;
  *hi += f64_bits(h) - F64_HI_BIAS;
}
#endif

/* 64-bit word k of a (0 past the top). */
DEVICE u64 ${f}_word(${f}_t a, int k) {
#if LIMB_BITS == 64
  return k < ${F}_N ? a.l[k] : 0;
#else
  return 2 * k + 1 < ${F}_N ? ((u64)a.l[2 * k + 1] << 32) | a.l[2 * k] : 0;
#endif
}

/* The digits of a·2^shift (shift ≥ 0): digit k is bits 51k − shift … 51k − shift + 50 of a. */
DEVICE void ${f}_to_digits(${f}_t a, int shift, double *x) {
  UNROLL for (int k = 0; k < ${F}_DIGITS; k++) {
    int pos = F64_DIGIT_BITS * k - shift;
    u64 v;
    if (pos < 0) {
      v = ${f}_word(a, 0) << -pos;
    } else {
      int w = pos / 64, off = pos % 64;
      v = ${f}_word(a, w) >> off;
      if (off + F64_DIGIT_BITS > 64) v |= ${f}_word(a, w + 1) << (64 - off);
    }
    x[k] = f64_from_digit(v & F64_DIGIT_MASK);
  }
}

DEVICE ${f}_t ${f}_mul_f64_body(${f}_t a, ${f}_t b) {
  const u64 p_digits[${F}_DIGITS] = ${F}_P_DIGITS;
  double p[${F}_DIGITS], x[${F}_DIGITS], y[${F}_DIGITS];
  UNROLL for (int j = 0; j < ${F}_DIGITS; j++) p[j] = (double)p_digits[j];
  ${f}_to_digits(a, ${F}_DIGIT_SHIFT > 0 ? ${F}_DIGIT_SHIFT : 0, x);
  ${f}_to_digits(b, 0, y);
  u64 c[2 * ${F}_DIGITS];
  UNROLL for (int k = 0; k < 2 * ${F}_DIGITS; k++) c[k] = 0;
  UNROLL for (int i = 0; i < ${F}_DIGITS; i++) {
    UNROLL for (int j = 0; j < ${F}_DIGITS; j++) f64_product(x[i], y[j], &c[i + j], &c[i + j + 1]);
  }
  UNROLL for (int k = 0; k < ${F}_DIGITS; k++) {
    double m = f64_from_digit((c[k] * ${F}_INV_DIGIT) & F64_DIGIT_MASK);
    UNROLL for (int j = 0; j < ${F}_DIGITS; j++) f64_product(m, p[j], &c[k + j], &c[k + j + 1]);
    c[k + 1] += (u64)((i64)c[k] >> F64_DIGIT_BITS);
  }
  /* t = Σ c_(D+k)·2^(51k), below 2p; c_D's low bit is final (carries only go up) */
  u64 *t = c + ${F}_DIGITS;
#if ${F}_DIGIT_SHIFT < 0
  u64 odd = (u64)0 - (t[0] & 1);
  UNROLL for (int k = 0; k < ${F}_DIGITS; k++) t[k] += p_digits[k] & odd;
#endif
  UNROLL for (int k = 0; k + 1 < ${F}_DIGITS; k++) {
    t[k + 1] += (u64)((i64)t[k] >> F64_DIGIT_BITS);
    t[k] &= F64_DIGIT_MASK;
  }
  /* the digits as 64-bit words, shifted down one bit when halving (t + p is even then) */
  const int down = ${F}_DIGIT_SHIFT < 0 ? 1 : 0;
  u64 words[${F}_N * LIMB_BITS / 64];
  UNROLL for (int w = 0; w < ${F}_N * LIMB_BITS / 64; w++) words[w] = 0;
  UNROLL for (int k = 0; k < ${F}_DIGITS; k++) {
    int pos = F64_DIGIT_BITS * k - down;
    if (pos < 0) {
      words[0] |= t[k] >> -pos;
    } else {
      int w = pos / 64, off = pos % 64;
      if (w < ${F}_N * LIMB_BITS / 64) words[w] |= t[k] << off;
      if (off && w + 1 < ${F}_N * LIMB_BITS / 64) words[w + 1] |= t[k] >> (64 - off);
    }
  }
  ${f}_t r;
#if LIMB_BITS == 64
  UNROLL for (int i = 0; i < ${F}_N; i++) r.l[i] = words[i];
#else
  UNROLL for (int i = 0; i < ${F}_N; i++) r.l[i] = (limb_t)(words[i / 2] >> (32 * (i % 2)));
#endif
  return ${f}_reduce(r);
}
#endif
