"""The cpu backend's handling of what the witness makes free (zeros dropped, ones summed by plain additions, the
window and the windows sized by the scalars) gives the reference's MSM bit for bit; and its per-thread clock
(the engine's internal level) measures kernels only, for the calling thread only."""

from __future__ import annotations

import random
import threading
from functools import cache

import numpy as np
import pytest

from cuzk.backends import limbs
from cuzk.backends.reference import ReferenceBackend
from cuzk.backends.registry import get_backend
from cuzk.reference.curves import BLS12_381, BN254, Curve
from tests._suite_backends import usable_or_skip

REF = ReferenceBackend()


@pytest.fixture(scope="module")
def cpu():
    usable_or_skip("cpu")
    return get_backend("cpu")


@cache
def bases(curve: Curve, group: str, n: int) -> np.ndarray:
    """n distinct points ([k + i]G), every 9th replaced by the identity."""
    grp, k = limbs.group_of(curve, group), random.Random(f"{curve.name}{group}").randrange(1, curve.r)
    start = grp.generator * k
    points, p = [], start
    for i in range(n):
        points.append(grp.identity() if i % 9 == 4 else p)
        p = p + grp.generator
    return limbs.points_to_limbs(curve, group, points)


def witness_like(curve: Curve, n: int, kind: str) -> list[int]:
    """Scalars as witnesses have them: ``bits`` (mostly 0 and 1, some 64-bit values), ``zeros``, ``ones``, …"""
    rng = random.Random(kind)
    if kind == "bits":
        return [rng.getrandbits(64) if i % 13 == 0 else rng.getrandbits(1) for i in range(n)]
    if kind == "zeros":
        return [0] * n
    if kind == "ones":
        return [1] * n
    if kind == "ones_and_zeros":
        return [rng.getrandbits(1) for _ in range(n)]
    if kind == "zeros_and_random":
        return [rng.randrange(curve.r) if rng.random() < 0.3 else 0 for _ in range(n)]
    return [rng.randrange(curve.r) for _ in range(n)]  # "random": nothing to split


@pytest.mark.parametrize("curve", [BN254, BLS12_381], ids=lambda c: c.name)
@pytest.mark.parametrize("group", ["g1", "g2"])
@pytest.mark.parametrize("kind", ["bits", "zeros", "ones", "ones_and_zeros", "zeros_and_random", "random"])
def test_split_msm_equals_the_reference(cpu, monkeypatch, curve: Curve, group: str, kind: str) -> None:
    monkeypatch.setattr(
        cpu.runtime().free_scalars, "SPLIT_MIN", 8
    )  # the split path on a size the reference computes quickly
    n = 60 if group == "g1" else 30
    points, scalars = bases(curve, group, n), limbs.ints_to_limbs(witness_like(curve, n, kind), 4)
    expected = REF.msm(curve, group, points, scalars)
    handle = cpu.prepare_bases(curve, group, points)
    assert np.array_equal(cpu.msm_prepared(handle, scalars), expected)
    assert np.array_equal(cpu.msm(curve, group, points, scalars), expected)
    assert np.array_equal(cpu.msm(curve, group, points, scalars, window=4), expected)  # explicit: one piece


def test_scalar_statistics(cpu) -> None:
    msm = cpu.runtime().msm
    values = [0, 1, 5, 2**64, 2**130 + 3, 0]
    assert msm.scalar_stats(limbs.ints_to_limbs(values, 4)) == (131, 4)
    assert msm.scalar_stats(limbs.ints_to_limbs([0, 0], 4)) == (0, 0)
    ones, others = np.empty(6, np.int64), np.empty(6, np.int64)
    n1, n2 = cpu.runtime().free_scalars.classify(limbs.ints_to_limbs(values, 4), ones, others)
    assert list(ones[:n1]) == [1] and list(others[:n2]) == [2, 3, 4]


def test_clock_merges_intervals() -> None:
    from cuzk.backends.intervals import merge, union_seconds

    assert merge([(3.0, 4.0), (0.0, 1.0), (0.5, 2.0), (2.0, 2.5)]) == [(0.0, 2.5), (3.0, 4.0)]
    assert union_seconds([(0.0, 1.0), (0.25, 0.5), (2.0, 3.0)]) == pytest.approx(2.0)
    assert union_seconds([]) == 0


def test_internal_time_is_per_calling_thread(cpu) -> None:
    """Two threads calling at once each read the kernel time of their own last call; a thread that made none
    reads None; the time lies within the call and its intervals inside the call's wall clock."""
    import time

    curve = BN254
    big, small = bases(curve, "g1", 400), bases(curve, "g1", 40)
    seen: dict[str, tuple[float | None, list, float, float]] = {}

    def call(name: str, points: np.ndarray) -> None:
        scalars = limbs.ints_to_limbs(witness_like(curve, len(points), "random"), 4)
        started = time.perf_counter()
        cpu.msm(curve, "g1", points, scalars)
        ended = time.perf_counter()
        seen[name] = (cpu.last_internal_seconds(), cpu.last_internal_intervals(), started, ended)

    threads = [threading.Thread(target=call, args=(name, pts)) for name, pts in (("big", big), ("small", small))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for seconds, intervals, started, ended in seen.values():
        assert seconds is not None and 0 < seconds <= ended - started
        assert intervals and all(started <= a < b <= ended for a, b in intervals)
        assert sum(b - a for a, b in intervals) == pytest.approx(seconds)
    assert seen["big"][1] != seen["small"][1]
    fresh: list[float | None] = []
    idle = threading.Thread(target=lambda: fresh.append(cpu.last_internal_seconds()))
    idle.start()
    idle.join()
    assert fresh == [None]


@pytest.mark.parametrize("curve", [BN254, BLS12_381], ids=lambda c: c.name)
@pytest.mark.parametrize("group", ["g1", "g2"])
def test_fewer_points_than_the_crossover_go_by_straus(cpu, monkeypatch, curve: Curve, group: str) -> None:
    """Without a window, an MSM of fewer than STRAUS_BELOW points runs Straus's joint double-and-add and one of
    STRAUS_BELOW points Pippenger's windows; Straus gives what a window gives, identities among the bases (every
    9th) and scalars from 0 to r − 1 among the scalars. (The reference checks Straus in test_cpu.py's edge cases,
    which are all below the crossover, and in its random sizes below it.)"""
    free = cpu.runtime().free_scalars
    below, calls = free.STRAUS_BELOW, []
    straus = free.msm_straus
    monkeypatch.setattr(free, "msm_straus", lambda points, *rest: calls.append(len(points)) or straus(points, *rest))
    for n in (below - 1, below):
        values = witness_like(curve, n, "random")
        values[:3] = [0, 1, curve.r - 1]
        points, scalars = bases(curve, group, n), limbs.ints_to_limbs(values, 4)
        assert np.array_equal(cpu.msm(curve, group, points, scalars), cpu.msm(curve, group, points, scalars, window=5))
    assert calls == [below - 1]
