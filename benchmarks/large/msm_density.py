"""Where an MSM over a PoRep-like witness spends its time, beside a dense one (issue 27: the zeros-and-ones split).

    python benchmarks/large/msm_density.py --curve bls12_381 --log 24 --groups g1,g2

For each group: bases made on the device (generator_bases of random scalars), then msm_prepared over kept scalars
of three kinds — dense (uniform), porep (the synthetic circuit's mix: about 70 % zeros, 27 % ones, 3 % dense) and
ones-only-dense-rest-zero ablations — after a warm-up call; per kind the median wall of REPEAT calls and the device
time of each kernel of the last call (``last_kernel_seconds``), largest first. Each kind runs twice: with the
bucket kernels one window at a time over kept scalars (``apart``, the default from ROWS_APART_FROM points) and
with every window at once (``together``, as before), in the same process.
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np

from cuzk.backends import limbs
from cuzk.backends.gpu import msm_job
from cuzk.backends.gpu.plan import ROWS_APART_FROM
from cuzk.backends.registry import get_backend
from cuzk.engine.synthetic import DENSE_SHARE_POREP, random_elements
from cuzk.reference.curves import curve_by_name


def scalars_of(curve, kind: str, n: int, rng: np.random.Generator) -> np.ndarray:  # type: ignore[no-untyped-def]
    """n scalars of ``kind``: dense, porep (bits, evenly 0/1 squared by a gate's product, one in 32 dense), ones
    (only the porep mix's ones, the rest 0) or sparse (only its dense ones)."""
    if kind == "dense":
        return random_elements(curve, n, rng)
    out = np.zeros((n, limbs.FR_LIMBS), dtype=np.uint64)
    draw = rng.random(n)
    dense = draw < 1 / DENSE_SHARE_POREP
    ones = (draw >= 1 / DENSE_SHARE_POREP) & (draw < 0.3)
    if kind in ("porep", "ones"):
        out[ones, 0] = 1
    if kind in ("porep", "sparse"):
        out[dense] = random_elements(curve, int(dense.sum()), rng)
    return out


def timed(backend, bases, kept, repeat: int) -> tuple[float, float, str]:  # type: ignore[no-untyped-def]
    """The median wall of ``repeat`` calls after a warm-up, the last call's device time and its largest kernels."""
    backend.msm_prepared(bases, kept)
    walls = []
    for _ in range(repeat):
        start = time.perf_counter()
        backend.msm_prepared(bases, kept)
        walls.append(time.perf_counter() - start)
    kernels = sorted(backend.last_kernel_seconds.items(), key=lambda kv: -kv[1])
    top = ", ".join(f"{name} {seconds * 1000:.1f}" for name, seconds in kernels[:5])
    return statistics.median(walls), sum(backend.last_kernel_seconds.values()), top


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--curve", default="bls12_381")
    parser.add_argument("--log", type=int, default=24)
    parser.add_argument("--groups", default="g1,g2")
    parser.add_argument("--kinds", default="dense,porep,ones,sparse")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--backend", default="cuda")
    args = parser.parse_args()
    curve, backend, n = curve_by_name(args.curve), get_backend(args.backend), 1 << args.log
    rng = np.random.default_rng(1)
    rows = []
    for group in args.groups.split(","):
        bases = backend.generator_bases(curve, group, random_elements(curve, n, rng), uses=1)
        for kind in args.kinds.split(","):
            kept = backend.keep_scalars(curve, scalars_of(curve, kind, n, rng))
            for mode, rows_from in (("apart", ROWS_APART_FROM), ("together", 1 << 40)):
                msm_job.ROWS_APART_FROM = rows_from
                wall, device, top = timed(backend, bases, kept, args.repeat)
                rows.append((group, f"{kind} {mode}", wall, device))
                print(f"{group} {kind:<7} {mode:<9} wall {wall * 1000:8.1f} ms, device {device * 1000:8.1f} ms: {top}")
            msm_job.ROWS_APART_FROM = ROWS_APART_FROM
            del kept
        del bases
    print(f"{'group':<6}{'kind':<16}{'wall ms':>10}{'device ms':>11}   ({curve.name}, 2^{args.log} points)")
    for group, kind, wall, device in rows:
        print(f"{group:<6}{kind:<16}{wall * 1000:>10.1f}{device * 1000:>11.1f}")


if __name__ == "__main__":
    main()
