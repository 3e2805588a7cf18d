"""``cuzk bench``: MSM and NTT timings of one backend through the protocol, as a table of medians.

Inputs are random scalars and bases P_i = [k + i]G (consecutive multiples, computed by one affine addition each, so
a 2^18-point base set costs seconds, not the minutes of random scalar multiplications; an MSM's cost does not
depend on which points it gets). The first call of every kind is reported apart: it includes compilation (numba,
OpenCL, NVRTC) and caches being filled, which the median excludes.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass
from random import Random
from typing import Any

import numpy as np

from cuzk.backends import limbs
from cuzk.backends.protocol import Backend
from cuzk.reference.curves import Curve


@dataclass(frozen=True)
class BenchRow:
    """One measured operation: ``what`` (e.g. "msm g1"), size n, first-call seconds, median seconds of ``runs``."""

    curve: str
    what: str
    n: int
    first: float
    median: float
    runs: int


def consecutive_bases(curve: Curve, group: str, n: int, seed: int = 1) -> np.ndarray:
    """Affine limbs of [k]G, [k+1]G, …, [k+n−1]G for a random k (one affine addition per point)."""
    grp = limbs.group_of(curve, group)
    start = grp.generator * Random(seed).randrange(1, curve.r)
    x, y = start.to_affine()  # type: ignore[misc]
    gx, gy = grp.generator.to_affine()  # type: ignore[misc]
    points = []
    for _ in range(n):
        points.append(grp.point_unchecked(x, y))
        slope = (gy - y) / (gx - x)  # the chance of hitting ±G among n ≪ r points is nil
        next_x = slope.square() - x - gx
        x, y = next_x, slope * (x - next_x) - y
    return limbs.points_to_limbs(curve, group, points)


def random_scalars(curve: Curve, n: int, seed: int = 2) -> np.ndarray:
    rng = Random(seed)
    return limbs.ints_to_limbs([rng.randrange(curve.r) for _ in range(n)], limbs.FR_LIMBS)


def _time(call: Callable[[], Any], repeat: int) -> tuple[float, float]:
    started = time.perf_counter()
    call()
    first = time.perf_counter() - started
    runs = []
    for _ in range(repeat):
        started = time.perf_counter()
        call()
        runs.append(time.perf_counter() - started)
    return first, statistics.median(runs)


def bench_msm(backend: Backend, curve: Curve, group: str, log_sizes: list[int], repeat: int) -> list[BenchRow]:
    """MSM of 2^k random scalars with bases resident when the backend can keep them (prepared once, untimed)."""
    rows = []
    if not log_sizes:
        return rows
    bases_all = consecutive_bases(curve, group, 1 << max(log_sizes))
    scalars_all = random_scalars(curve, 1 << max(log_sizes))
    for k in log_sizes:
        n = 1 << k
        bases, scalars = bases_all[:n], scalars_all[:n]
        prepare = getattr(backend, "prepare_bases", None)
        if callable(prepare) and "prepared_bases" in getattr(backend, "capabilities", ()):
            handle = prepare(curve, group, bases)
            first, median = _time(lambda h=handle, s=scalars: backend.msm_prepared(h, s), repeat)  # type: ignore[attr-defined]
        else:
            first, median = _time(lambda b=bases, s=scalars: backend.msm(curve, group, b, s), repeat)
        rows.append(BenchRow(curve.name, f"msm {group}", n, first, median, repeat))
    return rows


def bench_ntt(backend: Backend, curve: Curve, log_sizes: list[int], repeat: int) -> list[BenchRow]:
    rows = []
    for k in log_sizes:
        values = random_scalars(curve, 1 << k, seed=k)
        first, median = _time(lambda v=values: backend.ntt(curve, v), repeat)
        rows.append(BenchRow(curve.name, "ntt", 1 << k, first, median, repeat))
    return rows


def format_rows(rows: list[BenchRow], backend: str) -> list[str]:
    lines = [f"backend {backend}", f"{'curve':<10}{'op':<8}{'n':>10}{'first call':>13}{'median':>12}{'runs':>6}"]
    for r in rows:
        lines.append(
            f"{r.curve:<10}{r.what:<8}{'2^' + str(r.n.bit_length() - 1):>10}"
            f"{r.first * 1e3:>10.2f} ms{r.median * 1e3:>9.2f} ms{r.runs:>6}"
        )
    return lines
