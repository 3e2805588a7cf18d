"""``cuzk bench``: MSM and NTT timings of one backend through the protocol, as a table of medians.

Inputs are random scalars and bases P_i = [k + i]G (consecutive multiples, computed by one affine addition each, so
a 2^18-point base set costs seconds, not the minutes of random scalar multiplications; an MSM's cost does not
depend on which points it gets). The first call of every kind is reported apart: it includes compilation (numba,
OpenCL, NVRTC) and caches being filled, which the median excludes. The header names the backend's device as its
``describe()`` does (the cpu backend's says how many threads it runs, which --threads sets).

Sizes are checked before anything runs: a malformed or descending range, an MSM above 2^28 points, an NTT above the
scalar field's two-adicity, or a size whose inputs would not fit in the memory available is one line and exit 2.
On a terminal, stderr names each operation and size as it is timed.
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import sys
import time
from collections.abc import Callable, Sequence
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

Announce = Callable[[str], None]

MAX_LOG_MSM = 28  # the largest MSM the backends are built and tested for (a 2^28-constraint circuit's)
WORKING_FACTOR = 10  # bytes held per input byte: the Python points built here (~9×, measured) outweigh the limbs
FALLBACK_MEMORY = 8 << 30  # assumed available where the system does not say


def _quiet(line: str) -> None:
    """The announcer when stderr is not a terminal: says nothing."""


def _to_stderr(line: str) -> None:
    print(f"cuzk bench: {line}", file=sys.stderr, flush=True)


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


def bench_msm(
    backend: Backend, curve: Curve, group: str, log_sizes: Sequence[int], repeat: int, announce: Announce = _quiet
) -> list[BenchRow]:
    """MSM of 2^k random scalars with bases resident when the backend can keep them (prepared once, untimed)."""
    if not log_sizes:
        return []
    announce(f"{curve.name} {group}: building 2^{max(log_sizes)} bases")
    bases_all = consecutive_bases(curve, group, 1 << max(log_sizes))
    scalars_all = random_scalars(curve, 1 << max(log_sizes))
    rows = []
    for k in log_sizes:
        n = 1 << k
        bases, scalars = bases_all[:n], scalars_all[:n]
        announce(f"{curve.name} msm {group} 2^{k}")
        if has_capability(backend, PREPARED_BASES):
            resident = cast(SupportsPreparedBases, backend)
            handle = resident.prepare_bases(curve, group, bases)
            first, median = time_call(repeat, resident.msm_prepared, handle, scalars)
        else:
            first, median = time_call(repeat, backend.msm, curve, group, bases, scalars)
        rows.append(BenchRow(curve.name, f"msm {group}", n, first, median, repeat))
    return rows


def bench_ntt(
    backend: Backend, curve: Curve, log_sizes: Sequence[int], repeat: int, announce: Announce = _quiet
) -> list[BenchRow]:
    rows = []
    for k in log_sizes:
        announce(f"{curve.name} ntt 2^{k}")
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


def log_sizes(option: str, text: str) -> range:
    """ "10-18" → 10, …, 18; "16" → 16; "" → none. A CuzkError naming ``option`` for anything else."""
    if not text:
        return range(0)
    match = re.fullmatch(r"(\d+)(?:-(\d+))?", text)
    if match is None:
        raise CuzkError(f"{option} takes log2 ranges such as 10-18 (or one size, 16), not {text!r}")
    low, high = int(match[1]), int(match[2] or match[1])
    if high < low:
        raise CuzkError(f"{option} {text}: the range is descending; write {high}-{low}")
    return range(low, high + 1)


def available_memory() -> int:
    """Bytes of memory free now (physical pages not in use), or FALLBACK_MEMORY where the system does not say."""
    try:
        return os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (AttributeError, ValueError, OSError):
        return FALLBACK_MEMORY


def check_size(option: str, sizes: range, largest: int, what: str, item_bytes: int, memory: int) -> None:
    """CuzkError unless 2^max(sizes) items of ``item_bytes`` fit under 2^``largest`` and in ``memory`` (with the
    working factor); ``what`` says whose limit ``largest`` is."""
    if not sizes:
        return
    k = sizes[-1]
    if k > largest:
        raise CuzkError(f"{option}: 2^{k} is more than {what} (at most 2^{largest}); choose smaller sizes")
    need = (1 << k) * item_bytes * WORKING_FACTOR
    if need > memory:
        raise CuzkError(
            f"{option}: 2^{k} needs about {need / 2**30:.1f} GiB of memory and {memory / 2**30:.1f} GiB is available;"
            " choose smaller sizes"
        )


def check_sizes(curve: Curve, msm_g1: range, msm_g2: range, ntt: range, memory: int) -> None:
    """Every size of ``curve`` within the backends' limits and the memory (bases and scalars; NTT values)."""
    for option, group, sizes in (("--msm", "g1", msm_g1), ("--msm-g2", "g2", msm_g2)):
        point_bytes = int(np.prod(limbs.point_shape(curve, group))) * 8
        supported = "the backends' MSMs support"
        check_size(option, sizes, MAX_LOG_MSM, supported, point_bytes + 8 * limbs.FR_LIMBS, memory)
    roots = f"{curve.name}'s scalar field has roots of unity for"
    check_size("--ntt", ntt, curve.Fr.TWO_ADICITY, roots, 8 * limbs.FR_LIMBS, memory)


def run_bench(args: argparse.Namespace) -> int:
    from cuzk.backends.registry import get_backend
    from cuzk.reference.curves import CURVES

    apply_engine_options(args)
    at_least_one("--repeat", args.repeat)
    msm_g1, msm_g2 = log_sizes("--msm", args.msm), log_sizes("--msm-g2", args.msm_g2)
    ntt = log_sizes("--ntt", args.ntt)
    curves = [CURVES[name] for name in (sorted(CURVES) if args.curve == "all" else [args.curve])]
    memory = available_memory()
    for curve in curves:
        check_sizes(curve, msm_g1, msm_g2, ntt, memory)
    announce = _to_stderr if sys.stderr.isatty() else _quiet
    backend = get_backend(args.backend)
    rows = []
    for curve in curves:
        rows += bench_msm(backend, curve, "g1", msm_g1, args.repeat, announce)
        rows += bench_msm(backend, curve, "g2", msm_g2, args.repeat, announce)
        rows += bench_ntt(backend, curve, ntt, args.repeat, announce)
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
