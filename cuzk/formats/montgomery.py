"""Montgomery arithmetic vectorised with numpy: how iden3 files (.zkey, .ptau) store field elements, and the bulk
checks a proving key gets when it is loaded.

An element v of F_p is stored as the n8 little-endian bytes of v·R mod p, R = 2^(8·n8) (n8 = 32 for BN254's q and
both curves' r, 48 for BLS12-381's q). Converting back is one Montgomery reduction, REDC(t) = t·R⁻¹ mod p, and a
Montgomery product a·b·R⁻¹ is the multiplication that stays in that form.

numpy has no 64×64 → 128-bit product, so elements are cut into k = n8/4 limbs of 32 bits, each held in a uint64:
a 32×32-bit product plus two 32-bit carries is at most 2⁶⁴ − 1, so no step overflows. Arrays are "columns",
shape (k, n): limb j of every element in one contiguous row, so each step of the schoolbook/CIOS loops is one
numpy operation over n elements. The callers work in chunks of :data:`CHUNK` elements, small enough for the
temporaries to stay in the CPU cache (several times faster than whole-array passes), one thread per core.
Every prime here is < R/2, so the product of canonical inputs is < 2p; the base fields q are even < R/4, so
there sums and products of inputs < 2p stay < 2p (lazy reduction: :meth:`add`, :meth:`sub` need it);
:meth:`canonical` brings a value < 2p into [0, p).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor

import numpy as np

CHUNK = 16384
_MASK = np.uint64(0xFFFFFFFF)
_SHIFT = np.uint64(32)


class MontgomeryField:
    """F_p with R = 2^(8·n8), on (k, n) uint64 columns of 32-bit limbs (k = n8/4)."""

    def __init__(self, modulus: int, n8: int) -> None:
        if modulus % 2 == 0 or n8 % 8 or modulus >= 1 << (8 * n8 - 1):
            raise ValueError(f"Montgomery form needs an odd modulus below R/2 = 2^{8 * n8 - 1} and n8 a multiple of 8")
        self.p, self.n8, self.k = modulus, n8, n8 // 4
        self.R = 1 << (8 * n8)
        self.p_limbs = _limbs32(modulus, self.k)
        self.p_inv = np.uint64(-pow(modulus, -1, 1 << 32) % (1 << 32))  # −p⁻¹ mod 2³²
        self.r2 = self.constant(self.R * self.R % modulus)  # the product a·R²·R⁻¹ = a·R enters Montgomery form

    # --- layout ---------------------------------------------------------------------------------------------------

    def constant(self, value: int) -> np.ndarray:
        """One value as a (k, 1) column that broadcasts against (k, n)."""
        return np.array(_limbs32(value % self.p, self.k), dtype=np.uint64).reshape(self.k, 1)

    def columns(self, raw: np.ndarray) -> np.ndarray:
        """(n, n8) bytes (little-endian elements) → (k, n) columns."""
        n = raw.shape[0]
        return np.ascontiguousarray(raw).view("<u4").reshape(n, self.k).T.astype(np.uint64)

    def to_limbs64(self, cols: np.ndarray) -> np.ndarray:
        """(k, n) columns of canonical values → (n, n8/8) uint64 little-endian limbs (the backend layout)."""
        n = cols.shape[1]
        return np.ascontiguousarray(cols.T.astype("<u4")).view("<u8").reshape(n, self.n8 // 8).astype(np.uint64)

    def from_limbs64(self, array: np.ndarray) -> np.ndarray:
        """(n, n8/8) uint64 limbs → (k, n) columns."""
        n = array.shape[0]
        return np.ascontiguousarray(array, dtype="<u8").view("<u4").reshape(n, self.k).T.astype(np.uint64)

    # --- arithmetic -----------------------------------------------------------------------------------------------

    def redc(self, t: np.ndarray) -> np.ndarray:
        """t·R⁻¹ mod p, < 2p, for t < p·R given as (k, n) columns (t < R): leaving Montgomery form."""
        k, n = self.k, t.shape[1]
        acc = np.zeros((k + 1, n), np.uint64)
        acc[:k] = t
        m, s, carry = (np.empty(n, np.uint64) for _ in range(3))
        for _ in range(k):
            self._reduce_step(acc, m, s, carry)
        return acc[:k]

    def mul(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        """The Montgomery product a·b·R⁻¹ mod p, < 2p for a, b < 2p when p < R/4 and for a, b < p otherwise
        (CIOS: one reduction round per limb of b); b may be a (k, 1) constant."""
        k, n = self.k, a.shape[1]
        acc = np.zeros((k + 2, n), np.uint64)
        m, s, carry = (np.empty(n, np.uint64) for _ in range(3))
        for i in range(k):
            b_i = b[i]
            carry.fill(0)
            for j in range(k):  # acc += a·b_i
                np.multiply(a[j], b_i, out=s)
                s += acc[j]
                s += carry
                np.bitwise_and(s, _MASK, out=acc[j])
                np.right_shift(s, _SHIFT, out=carry)
            np.add(acc[k], carry, out=s)
            np.bitwise_and(s, _MASK, out=acc[k])
            np.right_shift(s, _SHIFT, out=acc[k + 1])
            self._reduce_step(acc, m, s, carry)
        return acc[:k]

    def _reduce_step(self, acc: np.ndarray, m: np.ndarray, s: np.ndarray, carry: np.ndarray) -> None:
        """acc ← (acc + m·p) / 2³² with m = acc₀·(−p⁻¹) mod 2³², so the division is exact (one REDC round)."""
        k, p = self.k, self.p_limbs
        np.multiply(acc[0], self.p_inv, out=m)
        m &= _MASK
        np.multiply(m, p[0], out=s)
        s += acc[0]
        np.right_shift(s, _SHIFT, out=carry)
        for j in range(1, k):
            np.multiply(m, p[j], out=s)
            s += acc[j]
            s += carry
            np.bitwise_and(s, _MASK, out=acc[j - 1])
            np.right_shift(s, _SHIFT, out=carry)
        np.add(acc[k], carry, out=s)
        np.bitwise_and(s, _MASK, out=acc[k - 1])
        np.right_shift(s, _SHIFT, out=carry)
        if acc.shape[0] > k + 1:
            np.add(acc[k + 1], carry, out=acc[k])
        else:
            acc[k] = carry

    def add(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        """a + b, reduced to < 2p for a, b < 2p (the sum is < 4p < R: no limb is lost)."""
        self._check_lazy()
        out = np.empty_like(a)
        carry = np.zeros(a.shape[1], np.uint64)
        for j in range(self.k):
            s = a[j] + b[j] + carry
            out[j] = s & _MASK
            carry = s >> _SHIFT
        return self._subtract_if_at_least(out, 2 * self.p)

    def sub(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        """a − b + 2p (< 4p, then reduced to < 2p) for a, b < 2p."""
        self._check_lazy()
        two_p = _limbs32(2 * self.p, self.k)
        out = np.empty_like(a)
        borrow = np.zeros(a.shape[1], np.uint64)
        carry = np.zeros(a.shape[1], np.uint64)
        for j in range(self.k):
            s = a[j] + two_p[j] + carry  # a + 2p, then − b, limb by limb
            carry = s >> _SHIFT
            d = (s & _MASK) + np.uint64(1 << 32) - b[j] - borrow
            out[j] = d & _MASK
            borrow = np.uint64(1) - (d >> _SHIFT)
        return self._subtract_if_at_least(out, 2 * self.p)

    def _check_lazy(self) -> None:
        if self.p >= self.R >> 2:
            raise ValueError("lazy additions need p < R/4")

    def canonical(self, a: np.ndarray) -> np.ndarray:
        """a mod p for a < 2p."""
        return self._subtract_if_at_least(a, self.p)

    def _subtract_if_at_least(self, a: np.ndarray, bound: int) -> np.ndarray:
        """a − bound where a ≥ bound, else a (one conditional subtraction, vectorised)."""
        m = _limbs32(bound, self.k)
        diff = np.empty_like(a)
        borrow = np.zeros(a.shape[1], np.uint64)
        for j in range(self.k):
            d = a[j] + np.uint64(1 << 32) - m[j] - borrow
            diff[j] = d & _MASK
            borrow = np.uint64(1) - (d >> _SHIFT)
        return np.where(borrow.astype(bool), a, diff)

    def equal(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        """Per element: a ≡ b (mod p), for a, b < 2p."""
        return np.all(self.canonical(a) == self.canonical(b), axis=0)

    def is_canonical(self, a: np.ndarray) -> np.ndarray:
        """Per element: a < p."""
        return np.all(self.canonical(a) == a, axis=0)


def _limbs32(value: int, k: int) -> list[np.uint64]:
    return [np.uint64((value >> (32 * j)) & 0xFFFFFFFF) for j in range(k)]


def _chunked(n: int, convert: Callable[[int, int], None]) -> None:
    """``convert(lo, hi)`` for every chunk of :data:`CHUNK` rows of n: on a thread per core when there are several
    chunks (the chunks are independent, and numpy lets go of the GIL inside its loops), else here."""
    bounds = [(lo, min(n, lo + CHUNK)) for lo in range(0, n, CHUNK)]
    workers = min(len(bounds), os.cpu_count() or 1)
    if workers <= 1:
        for lo, hi in bounds:
            convert(lo, hi)
        return
    with ThreadPoolExecutor(max_workers=workers) as pool:
        list(pool.map(lambda span: convert(*span), bounds))


def from_montgomery(field: MontgomeryField, raw: np.ndarray) -> np.ndarray:
    """(n, n8) bytes of Montgomery-form elements → (n, n8/8) uint64 canonical limbs (values need not be < p:
    REDC of any t < R gives t·R⁻¹ mod p)."""
    out = np.empty((raw.shape[0], field.n8 // 8), np.uint64)

    def convert(lo: int, hi: int) -> None:
        out[lo:hi] = field.to_limbs64(field.canonical(field.redc(field.columns(raw[lo:hi]))))

    _chunked(raw.shape[0], convert)
    return out


def to_montgomery(field: MontgomeryField, canonical: np.ndarray) -> np.ndarray:
    """(n, n8/8) uint64 canonical limbs → (n, n8) bytes of v·R mod p (REDC(v·R²) = v·R)."""
    out = np.empty((canonical.shape[0], field.n8 // 8), np.uint64)

    def convert(lo: int, hi: int) -> None:
        out[lo:hi] = field.to_limbs64(field.canonical(field.mul(field.from_limbs64(canonical[lo:hi]), field.r2)))

    _chunked(canonical.shape[0], convert)
    return out.astype("<u8").view(np.uint8).reshape(canonical.shape[0], field.n8)


__all__ = ["CHUNK", "MontgomeryField", "from_montgomery", "to_montgomery"]
