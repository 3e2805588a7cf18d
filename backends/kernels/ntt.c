/* ---- NTT over fr (the reference's ntt): radix-2 Cooley–Tukey (decimation in time) in tiles of local memory ----
 * A pass does up to NTT_TILE_LOG stages on tiles of up to NTT_TILE elements, one per work-group: the stages run two
 * per round (four elements per work-item, in registers), the first round reading from the array, the last writing
 * to it, and the rounds between meeting in local memory, one barrier apart. The first pass
 * reads its input in bit-reversed order (and may scale it), the last may scale its output, so a transform is a few
 * passes over the array (the host's plan: three for 2^21 … 2^26) and nothing else (tables aside, made once).
 *
 * Values stay plain, never in Montgomery form: fr_mul(x, y) = x·y·R⁻¹, so multiplying by a constant or a table entry
 * held in Montgomery form (w·R) is the plain product x·w, and the transform is linear. Twiddles and tables are made on
 * the device from the emitted roots: FR_ROOTS[k] = ω_(2^k) (a primitive 2^k-th root of unity, the reference's
 * domain_root), FR_ROOTS_INV[k] its inverse, FR_INV_2K[k] = 2^(−k), FR_GENERATOR g (cosets). */

#define NTT_TILE_LOG 10            /* 2^10 elements of 32 bytes: 32 KB, the least local memory OpenCL promises */
#define NTT_TILE (1u << NTT_TILE_LOG)
#define NTT_GROUP 256              /* work-items per group at most: NTT_TILE / 4, four elements each */
/* Groups a multiprocessor must hold at once: CUDA caps the pass's registers to fit them (80 on a multiprocessor of
 * 64K registers). Left to itself ptxas may give the pass registers for only two groups, too few warps to hide the
 * loads' latency; four groups cost spills and slowed the transforms of a proof's sizes (2^20 and less). Three was
 * chosen by measurement (docs/performance.md). */
#ifndef NTT_MIN_GROUPS
#define NTT_MIN_GROUPS 3
#endif
#define NTT_VECS (FR_N / VEC_LIMBS) /* 16-byte vectors per element, the unit of reads and writes */
#define NTT_POWERS_BLOCK 64
#define NTT_LOAD_SCALE 1           /* first pass: x[i] × load_scale[i], i the input index */
#define NTT_STORE_SCALE 2          /* last pass: y[i] × store_scale[i], i the output index */
#define NTT_STORE_INV_N 4          /* last pass, without NTT_STORE_SCALE: y[i] × 2^(−log n) */

DEVICE fr_t fr_pow_u32(fr_t a, u32 e) {
  fr_t r = fr_one();
  for (int bit = 31; bit >= 0; bit--) {
    r = fr_sqr(r);
    if ((e >> bit) & 1) r = fr_mul(r, a);
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

/* out[i] = base^i (times 2^(−log_n) when scaled) for i < count; each work-item one block (one exponentiation, then
 * multiplications). All in Montgomery form, as multipliers of plain values. */
KERNEL void fr_powers(GLOBAL fr_t *out, u32 count, u32 which, u32 log_n, u32 scaled) {
  u32 start = GLOBAL_ID() * NTT_POWERS_BLOCK;
  if (start >= count) return;
  fr_t base = ntt_table_base(which, log_n);
  fr_t x = fr_pow_u32(base, start);
  if (scaled) x = fr_mul(x, FR_INV_2K[log_n]);
  u32 end = min(count, start + NTT_POWERS_BLOCK);
  for (u32 i = start; i < end; i++) {
    out[i] = x;
    x = fr_mul(x, base);
  }
}

/* The tile is one plane of NTT_TILE limbs per limb index, so that work-items reading limb l of their elements read
 * one plane. The element index is swizzled (bits 5 and 6 XORed into bits 0…4) and the limb index XORed into its low
 * bits, so that 32 work-items of a round hit 32 different banks of 4 bytes (elements with two adjacent index bits
 * fixed, whichever two). */
DEVICE u32 ntt_swizzle(u32 e) { return e ^ (((e >> 5) & 1) * 0x0au) ^ (((e >> 6) & 1) * 0x15u); }
#define NTT_SLOT(e, l) ((l) * NTT_TILE + (ntt_swizzle(e) ^ ((l) * (32 / FR_N))))
/* Macros on the kernel's array `tile`: OpenCL wants local arrays at kernel scope, and a pointer to local memory has
 * no spelling common to both APIs for a function parameter. */
#define NTT_TILE_GET(x, e) UNROLL for (int l_ = 0; l_ < FR_N; l_++) (x).l[l_] = tile[NTT_SLOT(e, l_)]
#define NTT_TILE_PUT(x, e) UNROLL for (int l_ = 0; l_ < FR_N; l_++) tile[NTT_SLOT(e, l_)] = (x).l[l_]

/* A pass over stages first … first + r − 1 works on groups of 2^r elements hi·2^(first+r) + lo + j·2^first (lo <
 * 2^first, j < 2^r); a tile holds the groups of 2^c consecutive lo, element j of the group of lo at e = lo mod 2^c +
 * j·2^c, so that runs of 2^c tile elements are consecutive in the array. The array index of tile element e: */
DEVICE u32 ntt_index(u32 tile_id, u32 e, u32 first, u32 r, u32 c) {
  u32 lo = ((tile_id & ((1u << (first - c)) - 1)) << c) | (e & ((1u << c) - 1));
  return ((tile_id >> (first - c)) << (first + r)) | lo | ((e >> c) << first);
}

/* The first pass (first = 0) of a transform works on the input x bit-reversed, y[i] = x[rev(i)], whose groups of 2^r
 * are consecutive: y[hi·2^r + j]. Its tile `group` holds the 2^c groups hi = k'·2^(log n − r − c) + rev(group) (k' <
 * 2^c, hi's top bits), whose inputs lie in runs of 2^c consecutive elements of x: tile element e = k + j·2^c is
 * x[rev_r(j)·2^(log n − r) + group·2^c + k] (k < 2^c), and goes to y[rev_c(k)·2^(log n − c) + rev(group)·2^r + j]
 * (so the runs written are 2^r long). With c = 0 the tile is one group read at stride 2^(log n − r). */
DEVICE u32 ntt_head_source(u32 group, u32 e, u32 log_n, u32 r, u32 c) {
  return (bit_reverse(e >> c, r) << (log_n - r)) | (group << c) | (e & ((1u << c) - 1));
}

DEVICE u32 ntt_head_target(u32 group, u32 e, u32 log_n, u32 r, u32 c) {
  u32 k = e & ((1u << c) - 1);
  return (c ? bit_reverse(k, c) << (log_n - c) : 0) | (bit_reverse(group, log_n - r - c) << r) | (e >> c);
}

/* Where tile element e of pass (first, r, c) is written to. */
DEVICE u32 ntt_target(u32 group, u32 e, u32 log_n, u32 first, u32 r, u32 c) {
  return first == 0 ? ntt_head_target(group, e, log_n, r, c) : ntt_index(group, e, first, r, c);
}

/* The pass's products are fr_mul_body inlined, not calls of fr_mul: a call passes its operands and result in fixed
 * registers, and the moves (IMAD.MOV on CUDA) run on the multiplier's own pipe, which bounds the pass
 * (docs/performance.md). Tables are read in 16-byte vectors, as the tile is. */
DEVICE fr_t ntt_read(GLOBAL const fr_t *table, u32 i) {
  fr_t x;
  UNROLL for (u32 v = 0; v < NTT_VECS; v++) load_vec(table[i].l + v * VEC_LIMBS, x.l + v * VEC_LIMBS);
  return x;
}

/* Which products go to the FP64 pipe's multiplication (field_f64.c, built with CUZK_FP64_MUL) instead of the
 * integer one: bit k of NTT_F64_TWIDDLES for a round's k-th butterfly with a twiddle (0 … 3 in a radix-4 round, 0
 * and 1 in an odd last stage), bit k of NTT_F64_FACTORS for element k's twiddle between passes. Benchmarks only:
 * the default, 0, sends none. */
#ifndef NTT_F64_TWIDDLES
#define NTT_F64_TWIDDLES 0
#endif
#ifndef NTT_F64_FACTORS
#define NTT_F64_FACTORS 0
#endif
#if (NTT_F64_TWIDDLES || NTT_F64_FACTORS) && !defined(HAS_F64)
#error "NTT_F64_TWIDDLES and NTT_F64_FACTORS need the FP64 multiplication: build with -DCUZK_FP64_MUL (and doubles)"
#endif
DEVICE fr_t ntt_product(fr_t x, fr_t w, u32 mask, u32 k) {
#ifdef HAS_F64
  if ((mask >> k) & 1) return fr_mul_f64_body(x, w);
#endif
  return fr_mul_body(x, w);
}

/* The butterfly of a unit's k-th product (k < 4). */
DEVICE void ntt_butterfly(fr_t *a, fr_t *b, fr_t w, u32 k) {
  fr_t t = ntt_product(*b, w, NTT_F64_TWIDDLES, k);
  *b = fr_sub(*a, t);
  *a = fr_add(*a, t);
}

DEVICE void ntt_butterfly_1(fr_t *a, fr_t *b) {
  fr_t t = *b;
  *b = fr_sub(*a, t);
  *a = fr_add(*a, t);
}

/* The twiddles between passes (as in the four-step FFT): stage first + q multiplies by
 * ω_(2^(first+q+1))^(lo + j'·2^first), j' = j mod 2^q; the factor ω_(2^(q+1))^j' is a stage twiddle of the tile, and
 * the factor of lo, taken out of all r stages, is one multiplication of element j of the group of lo by
 * ω_(2^(first+r))^(lo·rev_r(j)) before them. out[i], i < 2^(first+r), is that factor for element e = i mod 2^(r+c)
 * of the tiles of the lo-run i >> (r+c), in the order of the tile (one read per element, no multiplication);
 * ω_n^k = roots_lo[k mod 2^roots_log]·roots_hi[k >> roots_log] (k < n = 2^log_n). */
KERNEL void fr_ntt_factors(GLOBAL fr_t *out, GLOBAL const fr_t *roots_lo, GLOBAL const fr_t *roots_hi, u32 log_n,
                           u32 roots_log, u32 first, u32 r, u32 c) {
  u32 i = GLOBAL_ID(), t = r + c;
  if (i >= (1u << (first + r))) return;
  u32 e = i & ((1u << t) - 1);
  u32 lo = ((i >> t) << c) | (e & ((1u << c) - 1));
  u32 power = (lo * bit_reverse(e >> c, r)) << (log_n - first - r);
  out[i] = fr_mul(roots_lo[power & ((1u << roots_log) - 1)], roots_hi[power >> roots_log]);
}

/* Element e of the pass's tile as read from the array: the first pass's input (bit-reversed), a later pass's element
 * times its twiddle between passes (k: the element's place in its unit). */
DEVICE fr_t ntt_load(GLOBAL const fr_t *src, GLOBAL const fr_t *factors, u32 group, u32 e, u32 log_n, u32 first,
                     u32 r, u32 c, u32 k) {
  if (first == 0) return ntt_read(src, ntt_head_source(group, e, log_n, r, c));
  u32 chunk = group & ((1u << (first - c)) - 1);
  return ntt_product(ntt_read(src, ntt_index(group, e, first, r, c)), ntt_read(factors, (chunk << (r + c)) | e),
                     NTT_F64_FACTORS, k);
}

/* Stages first … first + r − 1 of the transform of src into dst (n = 2^log_n), one tile of 2^(r+c) elements per
 * group of at least 2^(r+c−2) work-items, one per unit of four elements (any beyond are idle), and at most
 * NTT_GROUP; tw[i] = ω_1024^i (i < 512) the stage twiddles, factors those of fr_ntt_factors (unused in the first
 * pass, first = 0). The first pass reads the input bit-reversed (ntt_head_source: runs of 2^c elements, consecutive
 * groups reading neighbouring runs); it must not work in place (src ≠ dst), the others do (src = dst): a group reads
 * its tile's elements before it writes any, and no other group touches them.
 * The work-items run the stages two at a time on the four elements of a unit (the elements with the same tile index
 * but for two adjacent bits), an odd last stage on two pairs. */
KERNEL void LAUNCH_BOUNDS(NTT_GROUP, NTT_MIN_GROUPS)
    fr_ntt_pass(GLOBAL const fr_t *src, GLOBAL fr_t *dst, GLOBAL const fr_t *tw, GLOBAL const fr_t *factors,
                GLOBAL const fr_t *load_scale, GLOBAL const fr_t *store_scale, u32 log_n, u32 first, u32 r, u32 c,
                u32 flags) {
  LOCAL limb_t tile[FR_N * NTT_TILE];
  u32 t = r + c, id = LOCAL_ID(), group = GROUP_ID();
  bool head = first == 0, tail = first + r == log_n;
  /* No copies in or out: the first round reads its elements from the array (a later pass's times their twiddles
   * between passes, each load beside its element's), the last writes them, and the rounds between meet in the tile.
   * Copying the tile in and out in sweeps of their own cost two more sweeps through local memory and two more
   * barriers a pass, and made the transforms slower (docs/performance.md). */
  u32 rounds = r > 2 ? (r + 1) / 2 : 1;
  u32 units = t > 2 ? 1u << (t - 2) : 1; /* n < 4: one unit, its missing elements unused */
  for (u32 round = 0; round < rounds; round++) {
    u32 q = 2 * round, s = c + q;
    bool radix4 = q + 1 < r, last = round == rounds - 1;
    u32 low = radix4 || s == 0 ? s : s - 1; /* the unit's bits: low, low + 1 */
    if (id < units) {
      u32 e0 = ((id >> low) << (low + 2)) | (id & ((1u << low) - 1));
      fr_t x[4];
      if (round == 0) {
        UNROLL for (u32 k = 0; k < 4; k++) {
          u32 e = e0 + (k << low);
          x[k] = e < (1u << t) ? ntt_load(src, factors, group, e, log_n, first, r, c, k) : fr_zero();
        }
      } else {
        UNROLL for (u32 k = 0; k < 4; k++) NTT_TILE_GET(x[k], e0 + (k << low));
      }
      /* The first pass's load scale, in a loop of its own: multiplied inside the loop of loads (or in ntt_load),
       * it made ptxas spill. Multipliers are read where they are used: read ahead of the products (to overlap their
       * latencies), they made ptxas keep about twice the registers, too many for NTT_MIN_GROUPS groups. */
      if (round == 0) {
        UNROLL for (u32 k = 0; k < 4; k++) {
          u32 e = e0 + (k << low);
          if (head && (flags & NTT_LOAD_SCALE) && e < (1u << t))
            x[k] = fr_mul(x[k], ntt_read(load_scale, ntt_head_source(group, e, log_n, r, c)));
        }
      }
      u32 j0 = (e0 >> c) & ((1u << q) - 1);
      if (radix4 && q == 0) { /* stage twiddles 1, and ω_4 */
        ntt_butterfly_1(&x[0], &x[1]);
        ntt_butterfly_1(&x[2], &x[3]);
        ntt_butterfly_1(&x[0], &x[2]);
        ntt_butterfly(&x[1], &x[3], ntt_read(tw, 1u << (NTT_TILE_LOG - 2)), 3);
      } else if (radix4) {
        fr_t w = ntt_read(tw, j0 << (NTT_TILE_LOG - 1 - q));
        ntt_butterfly(&x[0], &x[1], w, 0);
        ntt_butterfly(&x[2], &x[3], w, 1);
        ntt_butterfly(&x[0], &x[2], ntt_read(tw, j0 << (NTT_TILE_LOG - 2 - q)), 2);
        ntt_butterfly(&x[1], &x[3], ntt_read(tw, (j0 + (1u << q)) << (NTT_TILE_LOG - 2 - q)), 3);
      } else if (r > 0 && q == 0) { /* one stage of twiddle 1: on bit 0 (pairs 0–1, 2–3) or on bit 1 (0–2, 1–3) */
        if (low == s) {
          ntt_butterfly_1(&x[0], &x[1]);
          ntt_butterfly_1(&x[2], &x[3]);
        } else {
          ntt_butterfly_1(&x[0], &x[2]);
          ntt_butterfly_1(&x[1], &x[3]);
        }
      } else if (r > 0) { /* the odd last stage, on bit low + 1 */
        u32 j1 = ((e0 + (1u << low)) >> c) & ((1u << q) - 1);
        ntt_butterfly(&x[0], &x[2], ntt_read(tw, j0 << (NTT_TILE_LOG - 1 - q)), 0);
        ntt_butterfly(&x[1], &x[3], ntt_read(tw, j1 << (NTT_TILE_LOG - 1 - q)), 1);
      }
      if (last) {
        UNROLL for (u32 k = 0; k < 4; k++) {
          u32 e = e0 + (k << low);
          if (e < (1u << t)) {
            u32 i = ntt_target(group, e, log_n, first, r, c);
            if (tail && (flags & NTT_STORE_SCALE)) x[k] = fr_mul(x[k], ntt_read(store_scale, i));
            else if (tail && (flags & NTT_STORE_INV_N)) x[k] = fr_mul(x[k], FR_INV_2K[log_n]);
            UNROLL for (u32 v = 0; v < NTT_VECS; v++) store_vec(dst[i].l + v * VEC_LIMBS, x[k].l + v * VEC_LIMBS);
          }
        }
      } else {
        UNROLL for (u32 k = 0; k < 4; k++) NTT_TILE_PUT(x[k], e0 + (k << low));
      }
    }
    if (!last) BARRIER();
  }
}

/* out[i] = (a[i]·b[i] − c[i])·f, the pointwise step of the QAP quotient, on plain values: fr_mul(a, b) = a·b·R⁻¹ and
 * fr_mul(c, 1) = c·R⁻¹ (1 plain), and factor[0] = f·R² (f·R in Montgomery form) puts R back. */
KERNEL void fr_qap_combine(GLOBAL const fr_t *a, GLOBAL const fr_t *b, GLOBAL const fr_t *c, GLOBAL fr_t *out,
                           u32 n, GLOBAL const fr_t *factor) {
  u32 i = GLOBAL_ID();
  if (i >= n) return;
  fr_t one = fr_zero();
  one.l[0] = 1;
  out[i] = fr_mul(fr_sub(fr_mul(a[i], b[i]), fr_mul(c[i], one)), factor[0]);
}
