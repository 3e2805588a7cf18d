/* ---- Bit tricks shared by the programs that reorder data (ntt, point_ntt) ---- */

/* The low `bits` bits of i read backwards (bits ≤ 32; higher bits of i are ignored). */
DEVICE u32 bit_reverse(u32 i, u32 bits) {
  i = ((i >> 1) & 0x55555555u) | ((i & 0x55555555u) << 1);
  i = ((i >> 2) & 0x33333333u) | ((i & 0x33333333u) << 2);
  i = ((i >> 4) & 0x0f0f0f0fu) | ((i & 0x0f0f0f0fu) << 4);
  i = ((i >> 8) & 0x00ff00ffu) | ((i & 0x00ff00ffu) << 8);
  i = (i >> 16) | (i << 16);
  return bits ? i >> (32 - bits) : 0;
}
