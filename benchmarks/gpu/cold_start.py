"""Where a first GPU proof's start goes: the warm-up of one backend and its host, each part timed, in a process
with whatever caches the caller set (CUPY_CACHE_DIR, NUMBA_CACHE_DIR). Prints each program's seconds and whether
it was prebuilt or compiled by NVRTC, and the host warm-up's seconds."""

from __future__ import annotations

import sys
import time

from cuzk.backends.protocol import SPARSE
from cuzk.backends.registry import get_backend, host_backend
from cuzk.reference.curves import curve_by_name


def main(backend_name: str, curve_name: str) -> None:
    started = time.perf_counter()
    backend = get_backend(backend_name)
    curve = curve_by_name(curve_name)
    opened = time.perf_counter()
    device = backend.warm_up(curve, "prove")
    host = host_backend(backend, SPARSE).warm_up(curve, "host")
    device.wait()
    device_done = time.perf_counter()
    host.wait()
    host_done = time.perf_counter()
    print(
        f"{backend_name} {curve_name}: backend {opened - started:.2f} s, device programs {device_done - opened:.2f} s "
        f"(failures {device.failures}), host kernels {host_done - opened:.2f} s (started {host.started})"
    )
    context = backend.context
    for key, seconds in context.build_seconds.items():
        print(f"  {key:<22} {getattr(context, 'built_by', {}).get(key, '?'):<9} {seconds:7.2f} s")


if __name__ == "__main__":
    main(*sys.argv[1:3])
