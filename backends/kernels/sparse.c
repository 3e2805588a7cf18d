/* ---- a sparse matrix over fr times a vector (SPARSE): A·z and B·z of a proof's witness, on the device ----
 * The matrix is kept in CSR form with its rows cut into chunks of at most SPARSE_CHUNK terms (the host's layout,
 * backends/gpu/sparse.py), so that a row of many terms (a circuit's long linear combinations) is summed by many
 * work-items: fr_sparse_chunks sums each chunk, fr_sparse_rows adds up the chunks of each row. A term names its
 * coefficient by a u32 index into a table of values (a circuit's coefficients are mostly 1 and −1: a table of a few
 * values and 4 bytes a term in place of 32). The values are held in Montgomery form c·R and z stays canonical, so
 * one product is the canonical term:
 * fr_mul(c·R, z) = c·z·R·R⁻¹ = c·z. Sums of canonical values are canonical, and additions in Fr are exact, so the
 * rows are the integers Σ c_j·z_j mod r whatever the order of the terms. */

/* values[i] ← values[i]·R (Montgomery form), once, when the matrix is made ready. */
KERNEL void fr_sparse_to_mont(GLOBAL fr_t *values, u32 n) {
  u32 i = GLOBAL_ID();
  if (i >= n) return;
  values[i] = fr_to_mont(values[i]);
}

/* values[i] ← values[i]·R^(−times): coefficients uploaded as a file stores them, c·R^(times + 1), made c·R (a .zkey's
 * are c·R², times = 1: one Montgomery reduction instead of a decode on the host). */
KERNEL void fr_sparse_reduce(GLOBAL fr_t *values, u32 n, u32 times) {
  u32 i = GLOBAL_ID();
  if (i >= n) return;
  fr_t v = values[i];
  for (u32 t = 0; t < times; t++) v = fr_from_mont(v);
  values[i] = v;
}

/* partial[k] = Σ values[coefficient[j]]·z[first + columns[j]] over the terms j of chunk k:
 * chunk_start[k] ≤ j < chunk_start[k + 1]. */
KERNEL void fr_sparse_chunks(GLOBAL const fr_t *values, GLOBAL const u32 *coefficient, GLOBAL const u32 *columns,
                             GLOBAL const u32 *chunk_start, GLOBAL const fr_t *z, GLOBAL fr_t *partial, u32 chunks,
                             u32 first) {
  u32 k = GLOBAL_ID();
  if (k >= chunks) return;
  fr_t sum = fr_zero();
  u32 stop = chunk_start[k + 1];
  for (u32 j = chunk_start[k]; j < stop; j++) {
    sum = fr_add(sum, fr_mul(values[coefficient[j]], z[first + columns[j]]));
  }
  partial[k] = sum;
}

/* out[i] = Σ partial[k] over the chunks k of row i (row_chunk[i] ≤ k < row_chunk[i + 1]) for i < rows, and 0 for
 * rows ≤ i < out_rows (the domain's padding). */
KERNEL void fr_sparse_rows(GLOBAL const fr_t *partial, GLOBAL const u32 *row_chunk, GLOBAL fr_t *out, u32 rows,
                           u32 out_rows) {
  u32 i = GLOBAL_ID();
  if (i >= out_rows) return;
  fr_t sum = fr_zero();
  if (i < rows) {
    u32 stop = row_chunk[i + 1];
    for (u32 k = row_chunk[i]; k < stop; k++) sum = fr_add(sum, partial[k]);
  }
  out[i] = sum;
}
