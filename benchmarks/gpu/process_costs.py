"""What a one-shot CUDA process pays around its kernels, piece by piece (issue 24: a proof's process at 2^20):

- pinned host memory: one 64 MiB buffer of the upload ring (``cudaHostAlloc``), each of the first eight;
- a file's pages registered for the device in place (``cudaHostRegister``, read-only, on a memory map of FILE),
  and the upload from them, beside the same upload from pageable memory;
- the exit: a child process that opens the context, holds ``--pool-gib`` of device memory and the ring's pinned
  memory, then ends by ``os._exit``; its wall from its last line to its end, as the parent sees it.

    python3 benchmarks/gpu/process_costs.py --file KEY.zkey
"""

from __future__ import annotations

import argparse
import mmap
import subprocess
import sys
import time

CHILD = """
import os, sys, time
import cupy as cp
pool = cp.zeros({pool} << 27, dtype=cp.uint64)  # {pool} GiB
pinned = [cp.cuda.alloc_pinned_memory(64 << 20) for _ in range({buffers})]
cp.cuda.runtime.deviceSynchronize()
print(time.time(), flush=True)
os._exit(0)
"""


def pinned_allocations(cp: object, count: int) -> list[float]:
    times, kept = [], []
    for _ in range(count):
        start = time.perf_counter()
        kept.append(cp.cuda.alloc_pinned_memory(64 << 20))  # type: ignore[attr-defined]
        times.append(time.perf_counter() - start)
    return times


def registered_upload(cp: object, path: str) -> dict[str, float]:
    """Register a file's memory map read-only, upload it from there; the pageable upload of the same bytes."""
    import numpy as np

    with open(path, "rb") as file:
        mapped = mmap.mmap(file.fileno(), 0, prot=mmap.PROT_READ)
    data = np.frombuffer(mapped, dtype=np.uint8)
    data = data[: len(data) // 4096 * 4096]
    runtime = cp.cuda.runtime  # type: ignore[attr-defined]
    device = cp.empty(len(data), dtype=cp.uint8)  # type: ignore[attr-defined]
    out: dict[str, float] = {"bytes": float(len(data))}
    start = time.perf_counter()
    device.set(data)
    runtime.deviceSynchronize()
    out["pageable_upload_s"] = time.perf_counter() - start
    start = time.perf_counter()
    try:
        runtime.hostRegister(data.ctypes.data, len(data), 8)  # cudaHostRegisterReadOnly
    except Exception as exc:  # reported, not raised: a finding
        out["register_error"] = str(exc)  # type: ignore[assignment]
        return out
    out["register_s"] = time.perf_counter() - start
    start = time.perf_counter()
    runtime.memcpy(device.data.ptr, data.ctypes.data, len(data), 1)  # cudaMemcpyHostToDevice
    out["registered_upload_s"] = time.perf_counter() - start
    start = time.perf_counter()
    runtime.hostUnregister(data.ctypes.data)
    out["unregister_s"] = time.perf_counter() - start
    return out


def exit_seconds(pool_gib: int, buffers: int) -> float:
    """Wall from the child's last line to its end."""
    child = subprocess.Popen(
        [sys.executable, "-c", CHILD.format(pool=pool_gib, buffers=buffers)], stdout=subprocess.PIPE, text=True
    )
    assert child.stdout is not None
    said = float(child.stdout.readline())
    child.wait()
    return time.time() - said


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--file", help="a large file (a .zkey) to register and upload")
    parser.add_argument("--pool-gib", type=int, default=2)
    args = parser.parse_args()
    import cupy as cp

    print("multiprocessing imported by cupy:", "multiprocessing" in sys.modules)
    cp.cuda.runtime.getDeviceCount()
    times = pinned_allocations(cp, 8)
    print("pinned 64 MiB buffers, ms:", " ".join(f"{1e3 * t:.1f}" for t in times))
    if args.file:
        print("register and upload:", {k: round(v, 4) for k, v in registered_upload(cp, args.file).items()})
    for pool, buffers in ((0, 0), (args.pool_gib, 0), (args.pool_gib, 8)):
        runs = sorted(exit_seconds(pool, buffers) for _ in range(3))
        print(f"exit with {pool} GiB of device memory, {buffers} pinned buffers: median {1e3 * runs[1]:.0f} ms")


if __name__ == "__main__":
    main()
