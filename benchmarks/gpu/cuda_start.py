"""Where a CUDA process's start goes, step by step (wall ms): importing CuPy, the driver's initialisation (the
device count), the device's properties, the primary context (a stream), one prebuilt program loaded, and the same
steps with the context opened on a thread while the main thread reads a file (what the warm-up does).

    python benchmarks/gpu/cuda_start.py [curve]        (run in a fresh process: every step is a first time)
"""

from __future__ import annotations

import sys
import time

T0 = time.perf_counter()


def lap(label: str, since: list[float]) -> None:
    now = time.perf_counter()
    print(f"{label:<34} {1e3 * (now - since[0]):8.1f} ms", flush=True)
    since[0] = now


def main() -> None:
    clock = [T0]
    import numpy  # noqa: F401

    lap("import numpy", clock)
    import cupy as cp

    lap("import cupy", clock)
    cp.cuda.runtime.getDeviceCount()
    lap("getDeviceCount (cuInit)", clock)
    cp.cuda.runtime.getDeviceProperties(0)
    lap("getDeviceProperties", clock)
    with cp.cuda.Device(0):
        cp.cuda.Stream(non_blocking=True)
    lap("a stream (the primary context)", clock)
    from cuzk.backends.cuda.backend import CudaBackend

    lap("import the cuda backend", clock)
    from cuzk.reference.curves import curve_by_name

    backend = CudaBackend()
    curve = curve_by_name(sys.argv[1] if len(sys.argv) > 1 else "bn254")
    ctx = backend.context
    lap("CudaContext", clock)
    for program in ("msm_g1", "msm_g2", "ntt", "sparse", "field_ops", "pairing"):
        ctx.prepare_program(curve, program)
        lap(f"program {program} ({ctx.built_by.get(f'{curve.name}/{program}', '?')})", clock)
    print(f"{'whole':<34} {1e3 * (time.perf_counter() - T0):8.1f} ms")


if __name__ == "__main__":
    main()
