"""The cuda backend's NTT under several pass plans (stages a pass), device time per pass, with and without a held
stream. Run from the repository root on the GPU machine, after ``cuda_h200.sh`` has installed the package.

A plan is the stages of each pass (``ntt.passes(stages=…)``), and optionally a smaller tile: every pass reads runs
of 2^(m − r) elements (tiles of 2^m, m = 10 unless given), the first in bit-reversed order. "held": a spin kernel
holds the stream while the passes are queued, so that each pass's CUDA events time the kernel alone and not the
host's launch (which the plain figure includes: events are recorded on an idle stream, then the launch follows from
Python). Medians of ``--repeat``, and the best held figure (the anchors quote sppark's best of 5); every result is
checked against the default plan's.

    python benchmarks/gpu/ntt_plans.py [--curves bn254,bls12_381] [--sizes 16-24] [--repeat 5] [--nvrtc=-DX=1 …]
"""

from __future__ import annotations

import argparse
import statistics
import sys
from typing import Any

import numpy as np

from cuzk.backends.cuda import CudaBackend
from cuzk.backends.cuda import device as cuda_device
from cuzk.backends.gpu import ntt as ntt_device
from cuzk.reference.curves import Curve, curve_by_name

sys.path.insert(0, __file__.rsplit("/", 1)[0])
from cuda_bench import log_range, random_scalars

# Plans as "r+r+…" (stages a pass) or "r+r+…/m" (tiles of 2^m elements, work-groups of 2^(m−2) work-items: more
# groups for a small transform); "default" is ntt.passes's own.
PLANS: dict[int, list[str]] = {
    12: ["default", "6+6", "10+2"],
    14: ["default", "7+7", "10+4"],
    15: ["default", "7+8", "10+5"],
    16: ["default", "8+8", "10+6", "8+8/8", "6+5+5/6"],
    17: ["default", "8+9", "9+8/9", "8+9/9"],
    18: ["default", "9+9", "9+9/9"],
    19: ["default", "9+10"],
    20: ["default", "6+7+7", "7+7+6"],
    21: ["default", "5+8+8", "7+7+7"],
    22: ["default", "6+8+8", "7+7+8"],
    23: ["default", "8+8+7"],
    24: ["default", "7+8+9", "9+8+7", "10+7+7"],
    25: ["default", "6+6+6+7", "1+8+8+8"],
}
HOLD_CYCLES = 60_000_000  # about 30 ms at 2 GHz: longer than queuing a transform's passes from Python

HOLD_SOURCE = r"""
extern "C" __global__ void hold(long long cycles) {
  long long start = clock64();
  while (clock64() - start < cycles) {
  }
}
"""


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--curves", default="bn254,bls12_381")
    parser.add_argument("--sizes", default="16-24")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--nvrtc", action="append", default=[], help="an NVRTC option, e.g. --nvrtc=-DNTT_MIN_GROUPS=2")
    return parser.parse_args(argv)


def record_passes(ctx: Any) -> list[list[float]]:
    """Make the context append the device ms of each fr_ntt_pass launch of a call to the list returned, one entry a
    call (read when the call's kernel times are)."""
    launches: list[list[float]] = []
    launch_seconds = ctx.launch_seconds

    def per_launch(trace: list[Any]) -> list[float]:
        seconds = launch_seconds(trace)  # waits for the last event
        launches.append([1e3 * t for (name, *_), t in zip(trace, seconds, strict=True) if name == "fr_ntt_pass"])
        return seconds

    ctx.launch_seconds = per_launch
    return launches


def install_plans() -> list[str]:
    """Make ntt.passes follow the plan in the one-element list returned ("default": its own)."""
    default_passes = ntt_device.passes
    plan = ["default"]

    def planned(log_n: int, max_stages: int = ntt_device.TILE_LOG, stages: Any = None) -> Any:
        if stages is not None or plan[0] == "default":
            return default_passes(log_n, max_stages, stages)
        counts, _, tile = plan[0].partition("/")
        return default_passes(log_n, int(tile or max_stages), [int(r) for r in counts.split("+")])

    ntt_device.passes = planned
    return plan


def time_plan(
    backend: CudaBackend, curve: Curve, values: np.ndarray, launches: list[list[float]], hold: Any, repeat: int
) -> tuple[dict[bool, list[float]], list[list[float]], list[np.ndarray]]:
    """The transform of ``values`` under the installed plan, ``repeat`` times plain and held: the ms of each run
    (plain: False, held: True), the passes' ms of each held run, and the results."""
    figures: dict[bool, list[float]] = {False: [], True: []}
    splits: list[list[float]] = []
    results = []
    for held in (False, True):
        backend.ntt(curve, values)  # tables made
        for _ in range(repeat):
            if held:
                with backend.context.stream:
                    hold((1,), (1,), (np.int64(HOLD_CYCLES),))
            results.append(backend.ntt(curve, values))
            figures[held].append(sum(launches[-1]))
            if held:
                splits.append(launches[-1])
    return figures, splits, results


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    cuda_device.OPTIONS = (*cuda_device.OPTIONS, *args.nvrtc)
    backend = CudaBackend()
    if not backend.is_available():
        print(f"cuda backend unavailable: {backend.unavailable_reason()}", file=sys.stderr)
        return 2
    hold = backend.context.cp.RawKernel(HOLD_SOURCE, "hold")
    launches = record_passes(backend.context)
    plan = install_plans()
    print(f"# {backend.describe()['device']}")
    print(f"{'curve':<10}{'n':<6}{'plan':<14}{'plain ms':>10}{'held ms':>10}{'best held':>10}  passes held (ms)")
    for name in args.curves.split(","):
        curve = curve_by_name(name)
        for k in log_range(args.sizes):
            values = random_scalars(curve.r, 1 << k, seed=k)
            expected = None
            for label in PLANS.get(k, ["default"]):
                plan[0] = label
                figures, splits, results = time_plan(backend, curve, values, launches, hold, args.repeat)
                expected = results[0] if expected is None else expected
                if any(not np.array_equal(result, expected) for result in results):
                    print(f"MISMATCH {name} 2^{k} plan {label}", flush=True)
                    return 1
                split = " / ".join(f"{statistics.median(s):.3f}" for s in zip(*splits, strict=True))
                print(
                    f"{name:<10}2^{k:<4}{label:<14}{statistics.median(figures[False]):10.3f}"
                    f"{statistics.median(figures[True]):10.3f}{min(figures[True]):10.3f}  {split}",
                    flush=True,
                )
    return 0


if __name__ == "__main__":
    sys.exit(main())
