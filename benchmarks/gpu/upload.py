"""How fast a large array reaches the device (issue 27: z's upload at 2^27 ran at about 9 GB/s).

    python benchmarks/gpu/upload.py --gib 4 --repeat 3

One source array of ``--gib`` GiB (pageable host memory, touched), uploaded by:

- ``ring S/T``: the cuda context's own path (:meth:`CudaContext.upload`: host copies into a ring of pinned buffers
  of S MiB on T threads, each buffer's DMA on the copy stream), for several S and T — a new context for each;
- ``pageable``: CuPy's plain ``set`` from the pageable array (the driver's own staging);
- ``pinned``: ``set`` from a pinned copy of the array (the DMA alone: the ceiling);
- ``host copy``: the ring's host side alone (the array copied into pinned buffers on T threads, no DMA);
- ``host_array``: the context's upload of an array already in pinned memory (``CudaContext.host_array``), beside
  the cost of getting that memory the first time (pinning) and again (CuPy's pinned pool).

Each line: the median wall of ``--repeat`` uploads (after one not counted) and its rate in GB/s.
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from cuzk.backends.cuda import staging
from cuzk.backends.cuda.device import CudaContext


def timed(run: Callable[[], object], repeat: int) -> float:
    """The median wall of ``repeat`` runs of ``run`` after one not counted."""
    run()
    walls = []
    for _ in range(repeat):
        start = time.perf_counter()
        run()
        walls.append(time.perf_counter() - start)
    return statistics.median(walls)


def ring(cp, raw: np.ndarray, staging_mib: int, threads: int, repeat: int) -> float:  # type: ignore[no-untyped-def]
    """The median wall of the context's upload of ``raw`` with the ring's buffers of ``staging_mib`` and ``threads``
    copy threads (a new context, its leased memory given back after)."""
    staging.STAGING_BYTES = staging_mib << 20
    staging.STAGING_BUFFERS = max(2, (512 << 20) // (staging_mib << 20))
    staging.COPY_THREADS = threads
    ctx = CudaContext(cp.cuda.Device(0))

    def run() -> None:
        buf = ctx.upload(raw)
        ctx.leases.copy_stream.synchronize()
        del buf

    seconds = timed(run, repeat)
    ctx.release_cached()
    return seconds


def host_copy(cp, raw: np.ndarray, staging_mib: int, threads: int):  # type: ignore[no-untyped-def]
    """The ring's host side alone: ``raw`` copied piece by piece into two pinned buffers on ``threads`` threads."""
    step = staging_mib << 20
    buffers = [np.frombuffer(cp.cuda.alloc_pinned_memory(step), dtype=np.uint8, count=step) for _ in range(2)]
    pool = ThreadPoolExecutor(threads)

    def run() -> None:
        for k, start in enumerate(range(0, raw.size, step)):
            part, dst = raw[start : start + step], buffers[k % 2]
            share = -(-part.size // threads)
            pieces = [slice(s, s + share) for s in range(0, part.size, share)]
            for done in [pool.submit(dst.__setitem__, p, part[p]) for p in pieces]:
                done.result()

    return run


def from_host_array(cp, raw: np.ndarray, repeat: int) -> list[tuple[str, float]]:  # type: ignore[no-untyped-def]
    """The upload of an array in the context's pinned memory, and what getting that memory costs."""
    ctx = CudaContext(cp.cuda.Device(0))
    start = time.perf_counter()
    pinned = ctx.host_array(raw.shape, raw.dtype)
    first = time.perf_counter() - start
    pinned[...] = raw

    def run() -> None:
        buf = ctx.upload(pinned)
        del buf

    rows = [("host_array upload", timed(run, repeat)), ("host_array: pin (first)", first)]
    pinned = None  # back to CuPy's pinned pool
    start = time.perf_counter()
    again = ctx.host_array(raw.shape, raw.dtype)
    rows.append(("host_array: again (pinned pool)", time.perf_counter() - start))
    del again
    ctx.release_cached()
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--gib", type=float, default=4.0)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--staging", default="16,64,128", help="ring buffer sizes in MiB")
    parser.add_argument("--threads", default="4,8,16", help="copy threads")
    args = parser.parse_args()

    import cupy as cp

    nbytes = int(args.gib * (1 << 30)) // 8 * 8
    raw = np.full(nbytes // 8, 7, dtype=np.uint64).view(np.uint8)
    device = cp.empty(nbytes, dtype=np.uint8)
    stream = cp.cuda.Stream(non_blocking=True)
    pinned = np.frombuffer(cp.cuda.alloc_pinned_memory(nbytes), dtype=np.uint8, count=nbytes)
    pinned[...] = raw

    def from_pinned() -> None:
        device.set(pinned, stream=stream)
        stream.synchronize()

    rows: list[tuple[str, float]] = [
        ("pinned (DMA alone)", timed(from_pinned, args.repeat)),
        ("pageable (cupy set)", timed(lambda: device.set(raw), args.repeat)),
    ]
    device = None  # its memory back to the pool before the contexts' uploads
    rows += from_host_array(cp, raw, args.repeat)
    sizes = [int(s) for s in args.staging.split(",")]
    counts = [int(t) for t in args.threads.split(",")]
    for mib in sizes:
        for threads in counts:
            copy = timed(host_copy(cp, raw, mib, threads), args.repeat)
            rows.append((f"host copy {mib} MiB / {threads} threads", copy))
            rows.append((f"ring {mib} MiB / {threads} threads", ring(cp, raw, mib, threads, args.repeat)))
    print(f"\nupload of {nbytes / 1e9:.2f} GB, median of {args.repeat}")
    print(f"{'path':40} {'ms':>9} {'GB/s':>7}")
    for name, seconds in rows:
        print(f"{name:40} {seconds * 1e3:9.1f} {nbytes / seconds / 1e9:7.1f}")


if __name__ == "__main__":
    main()
