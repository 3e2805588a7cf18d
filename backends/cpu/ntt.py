"""The NTT over Fr exactly as :mod:`cuzk.reference.ntt` defines it, and the fused QAP quotient H, on all cores.

Forward: the reference's algorithm, a bit-reversal permutation and radix-2 Cooley–Tukey (DIT) butterflies
(u, t) → (u + ω_m^k·t, u − ω_m^k·t). The first log2(B) stages run block by block (B = 2^12 values = 128 KiB, so a
block stays in the core's L2 through all its stages), the blocks dealt to the threads; each later stage is split
across the threads by butterfly index.

Data stay canonical: every multiplication has one operand in Montgomery form (a twiddle, a power of g), and
mont_mul(x, c·R) = x·c, so no pass converts into or out of Montgomery form. The twiddles tw[m/2 + k] = ω_m^k·R,
for all m ≤ n (one table of n values, since ω_m = ROOT^(2^S/m) does not depend on n), are kept per curve, grown
to the largest n asked.

Inverse: a_j = n⁻¹·A'_(−j mod n) with A' the forward transform (the sums Σ_i A_i ω^(−ij) are the forward sums at
index −j), then the scaling. Coset: the forward transform of a_j·g^j; the inverse coset scales by n⁻¹·g^(−j).
Scalings multiply by running powers c·base^j, each thread starting its span at a power computed in Python.

Most of a butterfly's time is its Montgomery product (docs/performance.md).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

import numpy as np
from numba import njit

from cuzk.backends.cpu.clock import KernelPool
from cuzk.backends.cpu.field import add as fadd
from cuzk.backends.cpu.field import from_mont, load, mul, store, sub
from cuzk.backends.cpu.jit import JIT
from cuzk.backends.cpu.params import CurveParams

BLOCK_LOG = 12  # stages 1 … 12 run block by block
SERIAL_BELOW = 1 << 12  # smaller transforms stay on the calling thread


# --- kernels ----------------------------------------------------------------------------------------------------


@njit(**JIT)
def bit_reverse(a: np.ndarray, logn: int, start: int, stop: int) -> None:
    """Swap a[i] and a[rev(i)] for i in start … stop − 1 with i < rev(i) (disjoint spans never conflict)."""
    for i in range(start, stop):
        j, x = 0, i
        for _ in range(logn):
            j = (j << 1) | (x & 1)
            x >>= 1
        if i < j:
            for k in range(a.shape[1]):
                a[i, k], a[j, k] = a[j, k], a[i, k]


@njit(**JIT)
def butterfly(a: np.ndarray, tw: np.ndarray, lo: int, half: int, k: int, F: Any) -> None:
    """(a[lo], a[lo + half]) ← (u + ω·t, u − ω·t), u = a[lo], t = a[lo + half], ω = tw[half + k] (Montgomery)."""
    like = F.one
    t = mul(load(a, lo + half, like), load(tw, half + k, like), F)
    u = load(a, lo, like)
    store(a, lo, fadd(u, t, F))
    store(a, lo + half, sub(u, t, F))


@njit(**JIT)
def stages_in_blocks(a: np.ndarray, tw: np.ndarray, block: int, start: int, stop: int, F: Any) -> None:
    """Every stage m = 2 … block, on the blocks of ``block`` values starting at start, …, < stop."""
    for base in range(start, stop, block):
        m = 2
        while m <= block:
            half = m >> 1
            for s in range(base, base + block, m):
                for k in range(half):
                    butterfly(a, tw, s + k, half, k, F)
            m <<= 1


@njit(**JIT)
def stage_span(a: np.ndarray, tw: np.ndarray, m: int, start: int, stop: int, F: Any) -> None:
    """Butterflies start … stop − 1 (of n/2) of stage m: butterfly b is k = b mod m/2 in group b div m/2."""
    half = m >> 1
    g, k = divmod(start, half)
    for _ in range(start, stop):
        butterfly(a, tw, g * m + k, half, k, F)
        k += 1
        if k == half:
            k, g = 0, g + 1


@njit(**JIT)
def reverse_tail(a: np.ndarray, start: int, stop: int) -> None:
    """Swap a[i] and a[n − i] for i in start … stop − 1 (1 ≤ i < n/2): index j ↦ −j mod n."""
    n = a.shape[0]
    for i in range(start, stop):
        for k in range(a.shape[1]):
            a[i, k], a[n - i, k] = a[n - i, k], a[i, k]


@njit(**JIT)
def scale_powers(a: np.ndarray, first: Any, base: Any, start: int, stop: int, F: Any) -> None:
    """a[j] ← a[j]·c·base^j for j in start … stop − 1, ``first`` = c·base^start·R and ``base`` = base·R."""
    acc = first
    for j in range(start, stop):
        store(a, j, mul(load(a, j, first), acc, F))
        acc = mul(acc, base, F)


@njit(**JIT)
def fill_twiddles(tw: np.ndarray, start: int, stop: int, first: Any, omega: Any, F: Any) -> None:
    """tw[j] = first·ω^(j − start) for j in start … stop − 1 (all in Montgomery form)."""
    acc = first
    for j in range(start, stop):
        store(tw, j, acc)
        acc = mul(acc, omega, F)


@njit(**JIT)
def decimate_twiddles(tw: np.ndarray, m: int, F: Any) -> None:
    """tw[m/2 + k] = ω_m^k from the level above: ω_m^k = ω_(2m)^(2k) = tw[m + 2k]."""
    for k in range(m >> 1):
        store(tw, (m >> 1) + k, load(tw, m + 2 * k, F.one))


@njit(**JIT)
def quotient_terms(a: np.ndarray, b: np.ndarray, c: np.ndarray, factor: Any, start: int, stop: int, F: Any) -> None:
    """a[i] ← (a[i]·b[i] − c[i])·K for canonical inputs, ``factor`` = K·R² mod p: mont_mul(a, b) − mont_mul(c, 1)
    is (ab − c)·R⁻¹, and one more Montgomery product by K·R² leaves (ab − c)·K."""
    like = F.one
    for i in range(start, stop):
        x = mul(load(a, i, like), load(b, i, like), F)
        store(a, i, mul(sub(x, from_mont(load(c, i, like), F), F), factor, F))


# --- the driver -------------------------------------------------------------------------------------------------


class Ntt:
    """The transforms of one curve's Fr, sharing a thread pool; thread-safe."""

    def __init__(self, params: CurveParams, pool: KernelPool, threads: int) -> None:
        self.params, self.fr, self.F = params, params.fr, params.fr.consts
        self.pool, self.threads = pool, threads
        self.twiddles = np.zeros((1, 4), np.uint64)
        self.lock = threading.Lock()

    # --- helpers ------------------------------------------------------------------------------------------------

    def _spans(self, start: int, stop: int, parallel: bool) -> list[tuple[int, int]]:
        parts = self.threads if parallel else 1
        bounds = [start + (stop - start) * k // parts for k in range(parts + 1)]
        return [(bounds[k], bounds[k + 1]) for k in range(parts) if bounds[k] < bounds[k + 1]]

    def _run(self, kernel: Callable[[int, int], None], start: int, stop: int, parallel: bool) -> None:
        spans = self._spans(start, stop, parallel)
        if len(spans) <= 1:
            for a, b in spans:
                self.pool.call(kernel, a, b)
        else:
            self.pool.map(lambda ab: kernel(*ab), spans)

    def _mont(self, value: int) -> tuple[np.uint64, ...]:
        return self.fr.mont_tuple(value)

    def table(self, n: int) -> np.ndarray:
        """The twiddles for every m ≤ n (grown under a lock; a larger table serves smaller n)."""
        with self.lock:
            if len(self.twiddles) < n:
                self.twiddles = self._build_twiddles(n)
            return self.twiddles

    def _build_twiddles(self, n: int) -> np.ndarray:
        p, F = self.fr.modulus, self.F
        tw = np.zeros((n, 4), np.uint64)
        omega = self.params.domain_root(n)
        half = n // 2
        parallel = n >= SERIAL_BELOW

        def top(start: int, stop: int) -> None:
            first = self._mont(pow(omega, start - half, p))
            fill_twiddles(tw, start, stop, first, self._mont(omega), F)

        self._run(top, half, n, parallel)
        m = half
        while m >= 2:
            decimate_twiddles(tw, m, F)
            m //= 2
        return tw

    def _scale(self, a: np.ndarray, const: int, base: int, parallel: bool) -> None:
        """a[j] ← a[j]·const·base^j."""
        p, F, base_m = self.fr.modulus, self.F, self._mont(base)

        def kernel(start: int, stop: int) -> None:
            scale_powers(a, self._mont(const * pow(base, start, p) % p), base_m, start, stop, F)

        self._run(kernel, 0, len(a), parallel)

    # --- transforms ---------------------------------------------------------------------------------------------

    def forward_in_place(self, a: np.ndarray) -> None:
        """A_i = Σ_j a_j ω^(ij) on a (n, 4) contiguous canonical array."""
        n = len(a)
        if n <= 1:
            return
        logn, F, tw = n.bit_length() - 1, self.F, self.table(n)
        parallel = n >= SERIAL_BELOW
        self._run(lambda s, e: bit_reverse(a, logn, s, e), 0, n, parallel)
        block = min(n, 1 << BLOCK_LOG)
        blocks = n // block
        self._run(lambda s, e: stages_in_blocks(a, tw, block, s * block, e * block, F), 0, blocks, parallel)
        m = 2 * block
        while m <= n:
            self._run(lambda s, e, m=m: stage_span(a, tw, m, s, e, F), 0, n // 2, parallel)
            m *= 2

    def transform_in_place(self, a: np.ndarray, inverse: bool, coset: bool) -> None:
        """The reference's ntt(values, inverse=…, coset=…), in place on canonical limbs."""
        n, p = len(a), self.fr.modulus
        if n == 0:
            return
        parallel = n >= SERIAL_BELOW
        g = self.params.generator
        if not inverse:
            if coset:
                self._scale(a, 1, g, parallel)
            self.forward_in_place(a)
            return
        self.forward_in_place(a)
        self._run(lambda s, e: reverse_tail(a, s, e), 1, (n + 1) // 2, parallel)
        n_inv = pow(n, -1, p)
        self._scale(a, n_inv, pow(g, -1, p) if coset else 1, parallel)

    def transform(self, values: np.ndarray, inverse: bool, coset: bool) -> np.ndarray:
        a = np.array(values, dtype=np.uint64, order="C", copy=True)
        self.transform_in_place(a, inverse, coset)
        return a

    # --- the QAP quotient ---------------------------------------------------------------------------------------

    def compute_h(self, a: np.ndarray, b: np.ndarray, c: np.ndarray, reduction: str) -> np.ndarray:
        """:func:`cuzk.reference.qap.witness_map` on canonical limbs (see the protocol's compute_h), except that the
        libsnark reduction returns all n coefficients: the caller checks that h_(n−1) is zero and drops it."""
        n, p = len(a), self.fr.modulus
        parallel = n >= SERIAL_BELOW
        vs = [np.array(v, dtype=np.uint64, order="C", copy=True) for v in (a, b, c)]
        g = self.params.generator
        if reduction == "libsnark":
            for v in vs:
                self.transform_in_place(v, inverse=True, coset=False)
                self._scale(v, 1, g, parallel)
                self.forward_in_place(v)
            z_inv = pow(pow(g, n, p) - 1, -1, p)
            self._quotient(vs, z_inv, parallel)
            self.transform_in_place(vs[0], inverse=True, coset=True)
            return vs[0]
        shift = self.params.domain_root(2 * n)
        for v in vs:
            self.transform_in_place(v, inverse=True, coset=False)
            self._scale(v, 1, shift, parallel)
            self.forward_in_place(v)
        self._quotient(vs, 1, parallel)
        return vs[0]

    def _quotient(self, vs: list[np.ndarray], k: int, parallel: bool) -> None:
        factor = self.fr.mont_tuple(k * self.fr.R % self.fr.modulus)
        a, b, c = vs
        self._run(lambda s, e: quotient_terms(a, b, c, factor, s, e, self.F), 0, len(a), parallel)


__all__ = ["Ntt"]
