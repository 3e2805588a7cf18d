"""Inputs for the benchmarks: random scalars, and random bases of any size without 2^18 scalar multiplications.

Bases: a pool of 64 random multiples of the generator (computed by the reference), then each
base is the sum of 8 random pool points (~2^33 unordered choices), the sums computed by the cpu
backend's batch-affine bucket-tree kernel, 2^14 at a time. The bases are cached per (curve, group, n) for the
session; benchmarks get both functions from the ``inputs`` fixture.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable, Iterator
from functools import cache
from types import SimpleNamespace
from typing import Any

import numpy as np
import pytest

from cuzk.backends import limbs
from cuzk.reference.curves import Curve

POOL, TERMS, CHUNK = 64, 8, 1 << 14


@cache
def random_scalars(curve: Curve, n: int, seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    values = rng.integers(0, 2**64, size=(n, 4), dtype=np.uint64)
    values[:, 3] %= np.uint64((curve.r >> 192) - 1)  # below r: the top limb stays under r's top limb
    return values


@cache
def random_bases(curve: Curve, group: str, n: int, seed: int = 0) -> np.ndarray:
    """n pseudo-random points of ``group`` as canonical affine limbs (n, 2, L) or (n, 2, 2, L)."""
    from cuzk.backends.cpu import CpuBackend, buckets, msm
    from cuzk.backends.cpu.params import curve_params

    grp, rng = limbs.group_of(curve, group), random.Random(f"{curve.name}/{group}/{seed}")
    pool = [(grp.generator * rng.randrange(1, curve.r)).normalize() for _ in range(POOL)]
    F = curve_params(curve).fq.consts
    like = F.one if group == "g1" else (F.one, F.one)
    prepared = msm.prepare(limbs.points_to_limbs(curve, group, pool), like, F, _Serial(), 1)
    rows = prepared.mont.shape[0] // len(pool)  # limb rows per point
    out = np.empty((n * rows, prepared.mont.shape[1]), np.uint64)
    picks = np.random.default_rng(seed).integers(0, POOL, size=(n, TERMS))
    for start in range(0, n, CHUNK):
        m = min(CHUNK, n - start)
        order = picks[start : start + m].reshape(-1).astype(np.int64)
        src = np.empty((m * TERMS * rows, out.shape[1]), np.uint64)
        buckets.gather(prepared.mont, order, m * TERMS, src, like, F)
        seg_start = np.arange(0, m * TERMS, TERMS, dtype=np.int64)
        seg_count = np.full(m, TERMS, np.int64)
        den = np.empty((m * TERMS * rows // 2, out.shape[1]), np.uint64)
        dst = np.empty_like(src)
        in_dst = buckets.bucket_trees(
            src, dst, seg_start, seg_count, m, den, np.empty_like(den), np.empty(m * TERMS, np.uint8), like, F
        )
        sums = dst if in_dst else src
        assert (seg_count == 1).all(), "a sum of pool points was the identity"
        first_rows = (np.arange(m) * TERMS * rows)[:, None] + np.arange(rows)
        out[start * rows : (start + m) * rows] = sums[first_rows.reshape(-1)]
    # out of Montgomery form: x·R mod q times R⁻¹ (a field_op mul on canonical values)
    r_inv = pow(2, -64 * limbs.fq_limbs(curve), curve.q)
    factor = np.broadcast_to(limbs.int_to_limbs(r_inv, out.shape[1]), out.shape).copy()
    canonical = CpuBackend().field_op(curve, "fq", "mul", out, factor)
    return canonical.reshape(n, *limbs.point_shape(curve, group))


class _Serial:
    """A stand-in for the thread pool: map in the calling thread."""

    def map(self, fn: Callable[..., Any], items: Iterable[Any]) -> Iterator[Any]:
        return map(fn, items)


@pytest.fixture(scope="session")
def inputs() -> SimpleNamespace:
    """``inputs.bases(curve, group, n)`` and ``inputs.scalars(curve, n, seed=0)``."""
    return SimpleNamespace(bases=random_bases, scalars=random_scalars)
