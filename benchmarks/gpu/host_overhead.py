"""Where the host time of the cuda backend's calls goes: a 2^k MSM over resident bases and a compute_h of 2^k, from
host arrays and from kept (device) scalars as a proof makes them, and a G2 MSM of kept scalars (a proof's B_G2), each
timed by wall clock against its device time, then profiled (cProfile, the top functions by own time)."""

from __future__ import annotations

import cProfile
import pstats
import sys
import time

import numpy as np

from cuzk.backends.cuda import CudaBackend
from cuzk.cli.bench import consecutive_bases
from cuzk.reference.curves import curve_by_name


def random_scalars(r: int, n: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    out = rng.integers(0, 1 << 64, size=(n, 4), dtype=np.uint64)
    out[:, -1] %= np.uint64(r >> 192)
    return out


def main() -> int:
    curve = curve_by_name(sys.argv[1] if len(sys.argv) > 1 else "bn254")
    log_n = int(sys.argv[2]) if len(sys.argv) > 2 else 20
    n = 1 << log_n
    backend = CudaBackend()
    bases = np.tile(consecutive_bases(curve, "g1", 1 << 12), (n >> 12, 1, 1))
    handle = backend.prepare_bases(curve, "g1", bases)
    handle_g2 = backend.prepare_bases(curve, "g2", np.tile(consecutive_bases(curve, "g2", 1 << 12), (n >> 12, 1, 1, 1)))
    z = random_scalars(curve.r, n, 1)
    a, b = random_scalars(curve.r, n, 2), random_scalars(curve.r, n, 3)
    c = np.zeros_like(a)  # a·b ≠ c: the quotient does not divide, which the reduction "circom" does not check
    z_kept, a_kept, b_kept, c_kept = (backend.keep_scalars(curve, v) for v in (z, a, b, c))
    calls = {
        "msm_prepared": lambda: backend.msm_prepared(handle, z),
        "compute_h": lambda: backend.compute_h(curve, a, b, c, reduction="circom"),
        "msm kept": lambda: backend.msm_prepared(handle, z_kept),
        "compute_h kept": lambda: backend.compute_h_kept(curve, a_kept, b_kept, c_kept, reduction="circom"),
        "msm g2 kept": lambda: backend.msm_prepared(handle_g2, z_kept),
        "upload 32 B·n": lambda: backend._call(lambda ctx: (lambda buf: lambda: ctx.read(buf, (1,)))(ctx.upload(z))),
    }
    for name, call in calls.items():
        call()
        walls, devices = [], []
        for _ in range(5):
            start = time.perf_counter()
            call()
            walls.append(time.perf_counter() - start)
            devices.append(backend.last_internal_seconds() or 0.0)
        wall, device = np.median(walls) * 1e3, np.median(devices) * 1e3
        print(f"{name:<16} wall {wall:8.2f} ms  device {device:8.2f} ms", flush=True)
    for name in ("msm_prepared", "compute_h", "compute_h kept", "msm g2 kept"):
        profile = cProfile.Profile()
        profile.enable()
        for _ in range(3):
            calls[name]()
        profile.disable()
        print(f"--- {name}, 3 calls, by own time")
        pstats.Stats(profile).sort_stats("tottime").print_stats(12)
    return 0


if __name__ == "__main__":
    sys.exit(main())
