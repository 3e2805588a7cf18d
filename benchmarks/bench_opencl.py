"""Benchmark the OpenCL backend beside a baseline backend (default ``cpu``, the numba one; ``reference`` if asked):
G1 MSMs and forward NTTs over a range of sizes, medians of a few runs after a warm-up call, as a Markdown table.

    python benchmarks/bench_opencl.py                       # MSM 2^12…2^18, NTT 2^12…2^20, both curves
    python benchmarks/bench_opencl.py --msm 12,14 --ntt 12 --repeat 5 --baseline reference

The first call of each (backend, curve, operation), on a tiny input, is reported apart as its setup time: for opencl
it builds the kernel programs (from PoCL's or the driver's cache when warm), for cpu numba compiles. Every size then
gets one untimed call before the timed ones. MSM bases are 1024 distinct
points repeated (making 2^18 distinct points in pure Python would take longer than the benchmark); scalars are
uniform in [0, r). Set CUZK_OPENCL_PLATFORM / CUZK_DEVICE to pick the OpenCL device.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from collections.abc import Callable
from functools import partial
from typing import Any

import numpy as np

from cuzk.backends import limbs
from cuzk.backends.opencl import OpenCLBackend
from cuzk.backends.registry import device_index, get_backend
from cuzk.reference.curves import Curve, curve_by_name

DISTINCT_BASES = 1024


def sizes(text: str) -> list[int]:
    return [int(k) for k in text.split(",") if k]


def msm_inputs(curve: Curve, log_n: int, rng: random.Random) -> tuple[np.ndarray, np.ndarray]:
    n = 1 << log_n
    point, step, points = curve.g1.generator, curve.g1.generator * rng.randrange(1, curve.r), []
    for _ in range(min(n, DISTINCT_BASES)):
        point = point + step
        points.append(point.normalize())
    distinct = limbs.points_to_limbs(curve, "g1", points)
    bases = np.ascontiguousarray(distinct[np.arange(n) % len(distinct)])
    return bases, limbs.fr_to_limbs(curve, [rng.randrange(curve.r) for _ in range(n)])


def seconds(call: Callable[[], Any]) -> float:
    start = time.perf_counter()
    call()
    return time.perf_counter() - start


def median_seconds(call: Callable[[], Any], repeat: int) -> float:
    """The median of ``repeat`` calls, after one untimed call."""
    call()
    return statistics.median(seconds(call) for _ in range(repeat))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--curves", default="bls12_381,bn254")
    parser.add_argument("--msm", type=sizes, default=sizes("12,14,16,18"), help="log2 of the MSM sizes")
    parser.add_argument("--ntt", type=sizes, default=sizes("12,14,16,18,20"), help="log2 of the NTT sizes")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--baseline", default="cpu", help="a registered backend name, or 'none'")
    args = parser.parse_args()

    opencl = OpenCLBackend(device=device_index())
    if not opencl.is_available():
        raise SystemExit(f"the opencl backend cannot run here: {opencl.unavailable_reason()}")
    backends: dict[str, Any] = {"opencl": opencl}
    if args.baseline != "none":
        backends[args.baseline] = get_backend(args.baseline)
    print(f"opencl device: {opencl.describe()['device']}; baseline: {args.baseline}")
    rng = random.Random(2026)
    setup: list[str] = []
    rows: list[list[str]] = []
    for curve in (curve_by_name(name) for name in args.curves.split(",")):
        tiny_bases, tiny_scalars = msm_inputs(curve, 3, rng)
        tiny_values = tiny_scalars.copy()
        for name, b in backends.items():
            msm_setup = seconds(partial(b.msm, curve, "g1", tiny_bases, tiny_scalars))
            ntt_setup = seconds(partial(b.ntt, curve, tiny_values))
            setup.append(f"| {name} | {curve.name} | {msm_setup:.1f} s | {ntt_setup:.1f} s |")
        for log_n in args.msm:
            bases, scalars = msm_inputs(curve, log_n, rng)
            times = [
                median_seconds(partial(b.msm, curve, "g1", bases, scalars), args.repeat) for b in backends.values()
            ]
            rows.append([curve.name, "MSM G1", f"2^{log_n}", *(f"{t * 1e3:.1f} ms" for t in times)])
            print(rows[-1], flush=True)
        for log_n in args.ntt:
            values = limbs.fr_to_limbs(curve, [rng.randrange(curve.r) for _ in range(1 << log_n)])
            times = [median_seconds(partial(b.ntt, curve, values), args.repeat) for b in backends.values()]
            rows.append([curve.name, "NTT", f"2^{log_n}", *(f"{t * 1e3:.1f} ms" for t in times)])
            print(rows[-1], flush=True)
    print("\n| backend | curve | first MSM (setup) | first NTT (setup) |\n|---|---|---|---|")
    print("\n".join(setup))
    header = ["curve", "operation", "n", *(f"{name} (median of {args.repeat})" for name in backends)]
    print("\n| " + " | ".join(header) + " |\n|" + "---|" * len(header))
    for row in rows:
        print("| " + " | ".join(row) + " |")


if __name__ == "__main__":
    main()
