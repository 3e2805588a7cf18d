"""``cuzk bench``: MSM and NTT timings of one backend through the protocol, as a table of medians.

Inputs are random scalars and bases P_i = [k + i]G (consecutive multiples, computed by one affine addition each, so
a 2^18-point base set costs seconds, not the minutes of random scalar multiplications; an MSM's cost does not
depend on which points it gets). The first call of every kind is reported apart: it includes compilation (numba,
OpenCL, NVRTC) and caches being filled, which the median excludes. The header names the backend's device as its
``describe()`` does (the cpu backend's says how many threads it runs, which --threads sets).
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass
from random import Random
from typing import Any, cast

import numpy as np

from cuzk.backends import limbs
from cuzk.backends.protocol import PREPARED_BASES, Backend, SupportsPreparedBases, has_capability
from cuzk.cli.options import (
    Subparsers,
    add_backend_option,
    add_engine_options,
    apply_engine_options,
    at_least_one,
)
from cuzk.reference.curves import Curve
from cuzk.reference.errors import CuzkError


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


def time_call(repeat: int, call: Callable[..., Any], *args: Any) -> tuple[float, float]:
    """Seconds of the first ``call(*args)`` and the median of ``repeat`` more."""
    started = time.perf_counter()
    call(*args)
    first = time.perf_counter() - started
    runs = []
    for _ in range(repeat):
        started = time.perf_counter()
        call(*args)
        runs.append(time.perf_counter() - started)
    return first, statistics.median(runs)


def bench_msm(backend: Backend, curve: Curve, group: str, log_sizes: list[int], repeat: int) -> list[BenchRow]:
    """MSM of 2^k random scalars with bases resident when the backend can keep them (prepared once, untimed)."""
    if not log_sizes:
        return []
    bases_all = consecutive_bases(curve, group, 1 << max(log_sizes))
    scalars_all = random_scalars(curve, 1 << max(log_sizes))
    rows = []
    for k in log_sizes:
        n = 1 << k
        bases, scalars = bases_all[:n], scalars_all[:n]
        if has_capability(backend, PREPARED_BASES):
            resident = cast(SupportsPreparedBases, backend)
            handle = resident.prepare_bases(curve, group, bases)
            first, median = time_call(repeat, resident.msm_prepared, handle, scalars)
        else:
            first, median = time_call(repeat, backend.msm, curve, group, bases, scalars)
        rows.append(BenchRow(curve.name, f"msm {group}", n, first, median, repeat))
    return rows


def bench_ntt(backend: Backend, curve: Curve, log_sizes: list[int], repeat: int) -> list[BenchRow]:
    rows = []
    for k in log_sizes:
        values = random_scalars(curve, 1 << k, seed=k)
        first, median = time_call(repeat, backend.ntt, curve, values)
        rows.append(BenchRow(curve.name, "ntt", 1 << k, first, median, repeat))
    return rows


def format_rows(rows: list[BenchRow], backend: str, device: str | None) -> list[str]:
    """The table: a header naming the backend and its device, then one line per row."""
    lines = [f"backend {backend}: {device or 'no device reported'}"]
    lines.append(f"{'curve':<10}{'op':<8}{'n':>10}{'first call':>13}{'median':>12}{'runs':>6}")
    for r in rows:
        lines.append(
            f"{r.curve:<10}{r.what:<8}{'2^' + str(r.n.bit_length() - 1):>10}"
            f"{r.first * 1e3:>10.2f} ms{r.median * 1e3:>9.2f} ms{r.runs:>6}"
        )
    return lines


def log_sizes(text: str) -> list[int]:
    """ "10-18" → [10, …, 18]; "16" → [16]; "" → []."""
    if not text:
        return []
    low, _, high = text.partition("-")
    try:
        return list(range(int(low), int(high or low) + 1))
    except ValueError:
        raise CuzkError(f"sizes are log2 ranges such as 10-18, not {text!r}") from None


def run_bench(args: argparse.Namespace) -> int:
    from cuzk.backends.registry import get_backend
    from cuzk.reference.curves import CURVES

    apply_engine_options(args)
    at_least_one("--repeat", args.repeat)
    msm_g1, msm_g2, ntt = log_sizes(args.msm), log_sizes(args.msm_g2), log_sizes(args.ntt)
    backend = get_backend(args.backend)
    rows = []
    for name in sorted(CURVES) if args.curve == "all" else [args.curve]:
        curve = CURVES[name]
        rows += bench_msm(backend, curve, "g1", msm_g1, args.repeat)
        rows += bench_msm(backend, curve, "g2", msm_g2, args.repeat)
        rows += bench_ntt(backend, curve, ntt, args.repeat)
    print("\n".join(format_rows(rows, backend.name, backend.describe()["device"])))
    return 0


def add_parser(subparsers: Subparsers) -> None:
    bench = subparsers.add_parser("bench", help="MSM and NTT timings of a backend (medians; first call apart)")
    add_backend_option(bench)
    bench.add_argument("--curve", default="all", choices=["bn254", "bls12_381", "all"])
    bench.add_argument("--msm", default="10-14", help="log2 sizes of the G1 MSMs (default 10-14)")
    bench.add_argument("--msm-g2", default="10-12", help="log2 sizes of the G2 MSMs (default 10-12)")
    bench.add_argument("--ntt", default="10-16", help="log2 sizes of the NTTs (default 10-16)")
    bench.add_argument("--repeat", type=int, default=3, help="timed runs per size after the first (default 3)")
    add_engine_options(bench, window=False)
    bench.set_defaults(run=run_bench)
