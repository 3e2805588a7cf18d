"""Does the point NTT's device time depend on its input? One inverse transform of n G1 points on a GPU backend, of
periodic points (2^10 distinct multiples repeated, what the transforms benchmark used to time) and of n distinct
ones, each as canonical limbs (point_ntt) and as stored words (point_ntt_stored); wall and device seconds after one
warm call. The transform of a periodic input is mostly points at infinity, which cost little.
    python benchmarks/gpu/point_ntt_inputs.py --backend cuda --log 20
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

from cuzk.backends.registry import get_backend
from cuzk.formats.points import PointDecoder
from cuzk.reference.curves import CURVES
from cuzk.reference.point_ntt import ffjavascript_root

sys.path.insert(0, str(Path(__file__).parent))
from point_ntt import sample_points


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--backend", default="cuda")
    parser.add_argument("--curve", default="bn254")
    parser.add_argument("--log", type=int, default=20)
    args = parser.parse_args()
    backend, curve, n = get_backend(args.backend), CURVES[args.curve], 1 << args.log
    omega, codec = ffjavascript_root(curve.Fr, n).value, PointDecoder(curve, "g1")
    distinct = sample_points(backend, curve, "g1", n)
    periodic = np.ascontiguousarray(np.resize(distinct[: 1 << 10], distinct.shape))
    inputs = {"periodic": periodic, "distinct": distinct}
    print("| points | form | wall s | device s |\n|---|---|---|---|")
    for name, points in inputs.items():
        stored = codec.encode(points)
        calls = {
            "limbs": lambda p=points: backend.point_ntt(curve, "g1", p, omega, inverse=True),
            "stored": lambda s=stored: backend.point_ntt_stored(curve, "g1", s, omega, inverse=True),
        }
        for form, call in calls.items():
            call()
            started = time.perf_counter()
            call()
            wall = time.perf_counter() - started
            print(f"| {name} | {form} | {wall:.3f} | {backend.last_internal_seconds() or 0.0:.3f} |", flush=True)


if __name__ == "__main__":
    main()
