"""The cpu backend's point NTT (POINT_NTT) in process: seconds of one inverse transform of 2^k points, G1 and G2,
medians of ``--runs``, one thread or all (``--threads``). What ``prepare phase2`` spends its time in, without the
file's reading and writing; run it in two trees on the same machine to compare kernels.

    python benchmarks/point_ntt_cpu.py [--log 12] [--runs 3] [--threads 1] [--curve bn254]
"""

from __future__ import annotations

import argparse
import random
import statistics
import time

from cuzk.backends import limbs
from cuzk.backends.cpu import CpuBackend
from cuzk.reference.curves import BLS12_381, BN254
from cuzk.reference.point_ntt import ffjavascript_root


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--log", type=int, default=12)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--threads", type=int, default=None)
    parser.add_argument("--curve", choices=("bn254", "bls12_381"), default="bn254")
    parser.add_argument("--groups", default="g1,g2")
    args = parser.parse_args()
    curve = BN254 if args.curve == "bn254" else BLS12_381
    backend = CpuBackend(threads=args.threads)
    n, rng = 1 << args.log, random.Random(args.log)
    omega = ffjavascript_root(curve.Fr, n).value
    for group in args.groups.split(","):
        G = limbs.group_of(curve, group)
        distinct = [G.generator * rng.randrange(1, curve.r) for _ in range(64)]
        points = limbs.points_to_limbs(curve, group, [distinct[rng.randrange(64)] for _ in range(n)])
        backend.point_ntt(curve, group, points[:16], ffjavascript_root(curve.Fr, 16).value, inverse=True)  # load
        seconds = []
        for _ in range(args.runs):
            started = time.perf_counter()
            backend.point_ntt(curve, group, points, omega, inverse=True)
            seconds.append(time.perf_counter() - started)
        butterflies = (n // 2) * args.log
        median = statistics.median(seconds)
        runs = ", ".join(f"{s:.3f}" for s in seconds)
        threads = backend.runtime().threads
        print(f"{curve.name} {group} 2^{args.log}: {median:.3f} s (runs {runs}), "
              f"{median / butterflies * 1e6:.1f} µs per butterfly, threads {threads}")  # fmt: skip


if __name__ == "__main__":
    main()
