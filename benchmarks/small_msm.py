"""The cpu backend's MSMs of a few points: Straus's joint double-and-add (``cuzk.backends.cpu.straus``) against
Pippenger's windows (``cuzk.backends.cpu.msm``, the window the backend would choose), both on the calling process's
prepared bases, random scalars below r, results checked equal. Medians of 5, milliseconds, one table row per size.

    python benchmarks/small_msm.py [--sizes 1,2,4,8,16,32,64,128]
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
from cuzk.backends.cpu import CpuBackend
from cuzk.backends.cpu.msm import choose_window, msm, scalar_stats
from cuzk.backends.cpu.straus import msm_straus
from cuzk.reference.curves import BLS12_381, BN254


def median_ms(call: Callable[[], Any], repeat: int = 5) -> float:
    times = []
    for _ in range(repeat):
        started = time.perf_counter()
        call()
        times.append(time.perf_counter() - started)
    return statistics.median(times) * 1e3


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1,2,4,8,16,32,64,128")
    args = parser.parse_args(argv)
    sizes = [int(s) for s in args.sizes.split(",")]
    backend = CpuBackend()
    rt = backend.runtime()
    print("| curve | group | n | Straus ms | Pippenger ms | Pippenger / Straus |")
    print("|---|---|---|---|---|---|")
    for curve in (BN254, BLS12_381):
        for group in ("g1", "g2"):
            generator = limbs.group_of(curve, group).generator
            points, p = [], generator
            for _ in range(max(sizes)):
                points.append(p)
                p = p + generator
            rng = random.Random(f"{curve.name}/{group}")
            for n in sizes:
                handle = backend.prepare_bases(curve, group, limbs.points_to_limbs(curve, group, points[:n]))
                prepared = handle.payload
                scalars = limbs.ints_to_limbs([rng.randrange(curve.r) for _ in range(n)], limbs.FR_LIMBS)
                bits, _ = rt.pool.call(scalar_stats, scalars)
                c, w = choose_window(scalars, rt.threads, None, rt.pool)
                straus = partial(msm_straus, prepared, scalars, bits, rt.pool)
                windows = partial(msm, prepared, scalars, c, w, rt.pool, rt.threads)
                if not np.array_equal(straus(), windows()):
                    raise SystemExit(f"MISMATCH: {curve.name} {group} n = {n}")
                s, w_ms = median_ms(straus), median_ms(windows)
                print(f"| {curve.name} | {group.upper()} | {n} | {s:.3f} | {w_ms:.3f} | {w_ms / s:.2f}× |", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
