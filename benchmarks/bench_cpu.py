"""Benchmarks of the cpu backend (pytest-benchmark): MSM G1/G2 and NTT by size, the fused H, and compilation.

    python -m pytest benchmarks/bench_cpu.py --benchmark-only                  # everything (a few minutes)
    python -m pytest benchmarks/bench_cpu.py --benchmark-only -k "msm and bn254"
    python benchmarks/bench_cpu.py [--threads 2]     # a Markdown table: median, min and CPU time per size

MSMs run on prepared bases (the engine's path: bases converted to Montgomery form once per proving key); the
conversion is timed separately. Every benchmark warms up once, so the kernels are compiled (or loaded from the disk
cache) before timing; ``test_compile_cold`` measures that compilation once, in a fresh process with an empty cache.
Anchors (docs/performance.md, same 2-core box): a whole BN254 Groth16 proof at 2^16 takes arkworks 0.37 s, snarkjs
1.41 s.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from types import SimpleNamespace
from typing import Any

import pytest

from cuzk.backends import limbs
from cuzk.backends.cpu import CpuBackend
from cuzk.reference.curves import BLS12_381, BN254, Curve

CURVES = [BN254, BLS12_381]
MSM_SIZES = {"g1": [10, 12, 14, 16, 18], "g2": [10, 12, 14, 16]}
NTT_SIZES = list(range(10, 21, 2))


@pytest.fixture(scope="module")
def cpu() -> CpuBackend:
    backend = CpuBackend()
    if not backend.is_available():
        pytest.skip(f"cpu backend unavailable: {backend.unavailable_reason()}")
    return backend


def _rounds(seconds_per_call: float) -> int:
    return 3 if seconds_per_call > 1 else 7


@pytest.mark.parametrize("curve", CURVES, ids=lambda c: c.name)
@pytest.mark.parametrize(("group", "log_n"), [(g, k) for g, sizes in MSM_SIZES.items() for k in sizes])
def test_msm(benchmark: Any, cpu: CpuBackend, inputs: SimpleNamespace, curve: Curve, group: str, log_n: int) -> None:
    n = 1 << log_n
    bases, scalars = inputs.bases(curve, group, n), inputs.scalars(curve, n)
    handle = cpu.prepare_bases(curve, group, bases)
    start = time.perf_counter()
    cpu.msm_prepared(handle, scalars)
    once = time.perf_counter() - start
    benchmark.extra_info.update(n=n, threads=cpu.runtime().threads, window=cpu.runtime().msm.window_for_threads(n))
    benchmark.pedantic(cpu.msm_prepared, args=(handle, scalars), rounds=_rounds(once), iterations=1)


@pytest.mark.parametrize("curve", CURVES, ids=lambda c: c.name)
@pytest.mark.parametrize("group", ["g1", "g2"])
def test_prepare_bases(benchmark: Any, cpu: CpuBackend, inputs: SimpleNamespace, curve: Curve, group: str) -> None:
    bases = inputs.bases(curve, group, 1 << 16)
    cpu.prepare_bases(curve, group, bases[:2])
    benchmark.pedantic(cpu.prepare_bases, args=(curve, group, bases), rounds=5, iterations=1)


@pytest.mark.parametrize("curve", CURVES, ids=lambda c: c.name)
@pytest.mark.parametrize("log_n", NTT_SIZES)
@pytest.mark.parametrize(("inverse", "coset"), [(False, False), (True, True)], ids=["forward", "inverse_coset"])
def test_ntt(
    benchmark: Any, cpu: CpuBackend, inputs: SimpleNamespace, curve: Curve, log_n: int, inverse: bool, coset: bool
) -> None:
    values = inputs.scalars(curve, 1 << log_n)
    cpu.ntt(curve, values, inverse=inverse, coset=coset)
    benchmark.extra_info.update(n=1 << log_n, threads=cpu.runtime().threads)
    benchmark.pedantic(cpu.ntt, args=(curve, values), kwargs={"inverse": inverse, "coset": coset}, rounds=7)


@pytest.mark.parametrize("reduction", ["libsnark", "circom"])
def test_compute_h(benchmark: Any, cpu: CpuBackend, inputs: SimpleNamespace, reduction: str) -> None:
    """The fused H at 2^16 (BN254): 7 NTTs of 2^16 (libsnark; circom: 6) and the pointwise products of one proof."""
    n = 1 << 16
    a, b = inputs.scalars(BN254, n, 1), inputs.scalars(BN254, n, 2)
    products = [x * y % BN254.r for x, y in zip(limbs.limbs_to_ints(a), limbs.limbs_to_ints(b), strict=True)]
    c = limbs.ints_to_limbs(products, 4)
    cpu.compute_h(BN254, a, b, c, reduction=reduction)
    benchmark.pedantic(cpu.compute_h, args=(BN254, a, b, c), kwargs={"reduction": reduction}, rounds=5)


COLD = """
import time
import numpy as np
from cuzk.backends.cpu import CpuBackend
from cuzk.backends import limbs
from cuzk.reference.curves import BLS12_381, BN254
cpu = CpuBackend()
start = time.perf_counter()
for curve in (BN254, BLS12_381):
    v = limbs.fr_to_limbs(curve, list(range(8)))
    cpu.ntt(curve, v)
    cpu.ntt(curve, v, inverse=True, coset=True)
    cpu.compute_h(curve, v, v, v, reduction="circom")
    for group in ("g1", "g2"):
        g = limbs.group_of(curve, group).generator
        cpu.msm(curve, group, limbs.points_to_limbs(curve, group, [g, g.double()]), v[:2])
    for field, L in (("fr", 4), ("fq", limbs.fq_limbs(curve))):
        cpu.field_op(curve, field, "mul", np.ones((2, L), np.uint64), np.ones((2, L), np.uint64))
print(time.perf_counter() - start)
"""


def test_compile_cold(benchmark: Any) -> None:
    """Compiling every kernel once (both curves, G1 and G2, NTT, H, field ops) into an empty disk cache, then
    loading them all from that cache in a second fresh process."""
    seconds: dict[str, float] = {}

    def run() -> None:
        with tempfile.TemporaryDirectory() as cache_dir:
            env = {**os.environ, "NUMBA_CACHE_DIR": cache_dir}
            for label in ("compile", "load_from_cache"):
                out = subprocess.run([sys.executable, "-c", COLD], env=env, capture_output=True, text=True, check=True)
                seconds[label] = float(out.stdout.split()[-1])

    benchmark.pedantic(run, rounds=1, iterations=1)
    benchmark.extra_info.update(seconds)


# --- a table without pytest: python benchmarks/bench_cpu.py [--threads 2] ------------------------------------------


def _timings_ms(call: Any, repeat: int) -> str:
    """'median wall | min wall | median CPU' of ``call`` in ms (CPU: the process, all threads), after a warm-up.

    The minimum is shown beside the median because a shared machine slows some runs down: on the 2-core box
    other jobs come and go, and the medians of one table spread by up to 1.8× between runs.
    """
    call()
    wall, cpu = [], []
    for _ in range(repeat):
        start, start_cpu = time.perf_counter(), time.process_time()
        call()
        wall.append(time.perf_counter() - start)
        cpu.append(time.process_time() - start_cpu)
    wall.sort()
    cpu.sort()
    return f"{1e3 * wall[len(wall) // 2]:.2f} | {1e3 * wall[0]:.2f} | {1e3 * cpu[len(cpu) // 2]:.2f}"


def main() -> None:
    """Print a Markdown table of medians: MSM (prepared bases) and forward NTT by size, and the cold compile time."""
    import argparse

    from conftest import random_bases, random_scalars  # run as a script: benchmarks/ is on sys.path

    parser = argparse.ArgumentParser(description=main.__doc__)
    parser.add_argument("--threads", type=int, default=None, help="worker threads (default: all cores)")
    parser.add_argument("--g1", default="10,12,14,16,18", help="log2 sizes of the G1 MSMs")
    parser.add_argument("--g2", default="10,12,14,16", help="log2 sizes of the G2 MSMs")
    parser.add_argument("--ntt", default="10,12,14,16,18,20", help="log2 sizes of the NTTs")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--no-compile", action="store_true", help="skip the cold-compile measurement")
    args = parser.parse_args()
    cpu = CpuBackend(threads=args.threads)
    print(f"cpu backend: {cpu.describe()['device']}")
    if not args.no_compile:
        with tempfile.TemporaryDirectory() as cache_dir:
            env = {**os.environ, "NUMBA_CACHE_DIR": cache_dir}
            for label in ("cold compile, every kernel", "load from the disk cache"):
                out = subprocess.run([sys.executable, "-c", COLD], env=env, capture_output=True, text=True, check=True)
                print(f"{label}: {float(out.stdout.split()[-1]):.1f} s")
    print("\n| operation | curve | n | median ms | min ms | median CPU ms (all threads) |\n|---|---|---|---|---|---|")
    for group, text in (("g1", args.g1), ("g2", args.g2)):
        for curve in CURVES:
            for log_n in (int(k) for k in text.split(",") if k):
                n = 1 << log_n
                handle = cpu.prepare_bases(curve, group, random_bases(curve, group, n))
                scalars = random_scalars(curve, n)
                timings = _timings_ms(lambda h=handle, s=scalars: cpu.msm_prepared(h, s), args.repeat)
                print(f"| MSM {group.upper()} | {curve.name} | 2^{log_n} | {timings} |", flush=True)
    for log_n in (int(k) for k in args.ntt.split(",") if k):
        values = random_scalars(BN254, 1 << log_n)
        timings = _timings_ms(lambda v=values: cpu.ntt(BN254, v), args.repeat)
        print(f"| NTT (Fr, forward) | bn254 | 2^{log_n} | {timings} |", flush=True)


if __name__ == "__main__":
    main()
