"""Many multiples [k_i]G of one fixed point G (the generator of G1 or G2): what a Groth16 setup computes.

The method of :mod:`cuzk.reference.fixed_base`, compiled: write k in base 2^w, k = Σ_t d_t·2^(w·t), precompute
T[t][d] = [d·2^(w·t)]G (affine, Montgomery form) once per group, then [k]G = Σ_t T[t][d_t]: ⌈bits/w⌉ mixed
additions (8M + 2S each) and no doubling. The results leave XYZZ form together, a chunk at a time, through one
field inversion (Montgomery's batch inversion: 3 products per point instead of an inversion each).

Compiled, it is a couple of hundred times faster than the reference's pure-Python table, which makes a
2^16-constraint setup (~250 000 G1 and ~62 000 G2 points) a matter of seconds instead of half an hour
(docs/performance.md). Not part of the backend protocol: :meth:`cuzk.backends.cpu.CpuBackend.generator_multiples`
offers it, for the engine's setup.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import njit

from cuzk.backends.cpu.curve import add_affine, add_xyzz, from_affine, identity
from cuzk.backends.cpu.digits import window_bits
from cuzk.backends.cpu.field import from_mont, inv, is_zero, load, mul, one, store, to_mont
from cuzk.backends.cpu.jit import JIT

WINDOW = 8  # T has ⌈255/8⌉ = 32 rows of 255 points (BN254 G1: 0.5 MiB)
CHUNK = 1024  # points brought to affine form by one inversion


@njit(**JIT)
def build_table(generator: np.ndarray, window: int, windows: int, table: np.ndarray, like: Any, F: Any) -> None:
    """table element pairs 2k, 2k + 1 (k = t·2^w + d, 1 ≤ d < 2^w) ← [d·2^(w·t)]G in affine Montgomery form;
    ``generator`` holds G's affine coordinates (Montgomery form) as elements 0 and 1. A window's 2^w − 1 points
    leave XYZZ form through one inversion (none of them is the identity: d·2^(w·t) < r is not a multiple of r)."""
    size, degree = 1 << window, generator.shape[0] // 2
    xyzz = np.empty((4 * size * degree, table.shape[1]), np.uint64)
    prefix = np.empty((size * degree, table.shape[1]), np.uint64)
    unit = one(like, F)
    S = from_affine(load(generator, 0, like), load(generator, 1, like), F)  # [2^(w·t)]G
    for t in range(windows):
        acc, running = S, unit
        for d in range(1, size):
            for c in range(4):
                store(xyzz, 4 * d + c, acc[c])
            store(prefix, d - 1, running)  # Π over the points before d of ZZ·ZZZ
            running = mul(running, mul(acc[2], acc[3], F), F)
            acc = add_xyzz(acc, S, F)
        inverse = inv(running, F)  # 1/Π(ZZ·ZZZ) over the window
        for d in range(size - 1, 0, -1):
            X, Y = load(xyzz, 4 * d, like), load(xyzz, 4 * d + 1, like)
            ZZ, ZZZ = load(xyzz, 4 * d + 2, like), load(xyzz, 4 * d + 3, like)
            own = mul(inverse, load(prefix, d - 1, like), F)  # 1/(ZZ·ZZZ) of point d
            inverse = mul(inverse, mul(ZZ, ZZZ, F), F)
            store(table, 2 * (t * size + d), mul(X, mul(own, ZZZ, F), F))
            store(table, 2 * (t * size + d) + 1, mul(Y, mul(own, ZZ, F), F))
        S = acc  # [2^w]·S


@njit(**JIT)
def multiples(
    table: np.ndarray,
    scalars: np.ndarray,
    window: int,
    windows: int,
    degree: int,
    start: int,
    stop: int,
    out: np.ndarray,
    like: Any,
    F: Any,
) -> None:
    """out element pairs 2i, 2i + 1 ← [k_i]G in canonical affine form (the identity as zeros), i = start … stop − 1;
    ``degree`` is the limb rows of one coordinate (1: Fq, 2: Fq2)."""
    size = 1 << window
    unit = one(like, F)
    points = np.empty((4 * CHUNK * degree, out.shape[1]), np.uint64)  # XYZZ of the chunk's points
    prefix = np.empty((CHUNK * degree, out.shape[1]), np.uint64)  # running products of their ZZ·ZZZ
    for lo in range(start, stop, CHUNK):
        hi = min(stop, lo + CHUNK)
        running = unit
        for i in range(lo, hi):
            P = identity(like)
            for t in range(windows):
                d = window_bits(scalars, i, t, window)
                if d != 0:
                    k = t * size + d
                    P = add_affine(P, load(table, 2 * k, like), load(table, 2 * k + 1, like), F)
            j = i - lo
            store(points, 4 * j, P[0])
            store(points, 4 * j + 1, P[1])
            store(points, 4 * j + 2, P[2])
            store(points, 4 * j + 3, P[3])
            if not is_zero(P[2]):
                running = mul(running, mul(P[2], P[3], F), F)
            store(prefix, j, running)
        inverse = inv(running, F)  # 1/Π(ZZ·ZZZ) over the chunk's finite points
        for i in range(hi - 1, lo - 1, -1):
            j = i - lo
            ZZ, ZZZ = load(points, 4 * j + 2, like), load(points, 4 * j + 3, like)
            if is_zero(ZZ):  # the identity: (0, 0)
                store(out, 2 * i, ZZ)
                store(out, 2 * i + 1, ZZ)
                continue
            before = load(prefix, j - 1, like) if j > 0 else unit
            t_inv = mul(inverse, before, F)  # 1/(ZZ·ZZZ) of point j alone
            inverse = mul(inverse, mul(ZZ, ZZZ, F), F)
            x = mul(load(points, 4 * j, like), mul(t_inv, ZZZ, F), F)
            y = mul(load(points, 4 * j + 1, like), mul(t_inv, ZZ, F), F)
            store(out, 2 * i, from_mont(x, F))
            store(out, 2 * i + 1, from_mont(y, F))


class FixedBase:
    """The table of one generator and the driver of :func:`multiples` on the pool (``pool.map`` runs the spans)."""

    def __init__(self, generator: np.ndarray, degree: int, like: Any, F: Any, pool: Any, threads: int) -> None:
        """``generator``: G's canonical affine limbs, shape (2, L) or (2, 2, L)."""
        self.degree, self.like, self.F, self.pool, self.threads = degree, like, F, pool, threads
        self.windows = -(-256 // WINDOW)  # every 4-limb scalar, whatever the curve
        flat = np.ascontiguousarray(generator, np.uint64).reshape(2 * degree, -1)
        mont = np.empty_like(flat)
        pool.call(_to_mont_pair, flat, mont, like, F)
        self.table = np.zeros((2 * degree * self.windows << WINDOW, flat.shape[1]), np.uint64)
        pool.call(build_table, mont, WINDOW, self.windows, self.table, like, F)

    def __call__(self, scalars: np.ndarray) -> np.ndarray:
        """[k_i]G for (n, 4) canonical scalars: (n·2·degree, L) canonical affine limbs, point i in rows of i."""
        n = len(scalars)
        scalars = np.ascontiguousarray(scalars, np.uint64)
        out = np.empty((2 * self.degree * n, self.table.shape[1]), np.uint64)
        bounds = [n * k // self.threads for k in range(self.threads + 1)]
        spans = [(bounds[k], bounds[k + 1]) for k in range(self.threads) if bounds[k] < bounds[k + 1]]
        args = (self.table, scalars, WINDOW, self.windows, self.degree)
        self.pool.map(lambda ab: multiples(*args, ab[0], ab[1], out, self.like, self.F), spans)
        return out


@njit(**JIT)
def _to_mont_pair(canonical: np.ndarray, out: np.ndarray, like: Any, F: Any) -> None:
    store(out, 0, to_mont(load(canonical, 0, like), F))
    store(out, 1, to_mont(load(canonical, 1, like), F))


__all__ = ["CHUNK", "WINDOW", "FixedBase", "build_table", "multiples"]
