"""The largest device arrays outside CuPy's pool: each its own allocation, given back to the device when it dies.

CuPy's pool keeps what its arrays free, to hand it out again without a ``cudaMalloc``, and splits a free block for a
smaller request. For the many small and mid-sized arrays of a proof that is what makes launches cheap. For the few
largest (at 2^27 constraints: z, a, b, c and H, the largest MSM tables) it is what makes the held memory grow past
the live: a freed block of one of them is split for a smaller request, and the next request of its size finds no
block whole, so the pool asks the device for more (docs/performance.md has the figures at 2^27).

An array of LARGE_FRACTION of the device's memory or more is therefore allocated by itself (``cudaMalloc``) and
freed by itself when its last view dies (``cudaFree``, which waits for the device's queued work: rare at these
sizes, against seconds of kernels). The device's free memory is then what the planners see as free
(``CudaContext.free_bytes``), and :func:`live_bytes` counts these arrays beside the pool's ``used_bytes``. A cap
on the pool (``CUPY_GPU_MEMORY_LIMIT``) caps the pool's blocks only, not these.
"""

from __future__ import annotations

import threading
from typing import Any

LARGE_FRACTION = 1 / 64  # of the device's memory: on an H200, a 2^26 array of 32-byte values is just below it

_lock = threading.RLock()  # re-entrant: an Apart may die (its __del__ counts) while the lock is held
_installed: list[int | None] = []  # the threshold in bytes once decided (None: left out), one decision a process
_live = [0]


def keep_large_apart(cp: Any, device_bytes: int) -> int | None:
    """Put an allocator in front of CuPy's default pool that gives requests of ``device_bytes`` · LARGE_FRACTION
    or more their own allocation; the threshold in bytes (the first context's, for every later one). Only in front
    of the default pool: where the process chose an allocator of its own before (CUDA's stream-ordered pool,
    RMM's), that one is left to serve every request, and this returns None."""
    with _lock:
        if not _installed:
            pool = cp.get_default_memory_pool()
            if cp.cuda.get_allocator() != pool.malloc:
                _installed.append(None)
            else:
                threshold = max(1, int(device_bytes * LARGE_FRACTION))
                cp.cuda.set_allocator(_allocator(cp, pool, threshold))
                _installed.append(threshold)
        return _installed[0]


def _allocator(cp: Any, pool: Any, threshold: int) -> Any:
    class Apart(cp.cuda.Memory):  # type: ignore[misc,name-defined]
        """One large array's own allocation; counted in :func:`live_bytes` until it dies."""

        def __del__(self) -> None:
            if self.ptr:  # not when its cudaMalloc failed
                _count(-int(self.size))

    def own(nbytes: int) -> Any:
        memory = Apart(nbytes)
        _count(nbytes)
        return memory

    def malloc(nbytes: int) -> Any:
        if nbytes < threshold:
            return pool.malloc(nbytes)
        try:
            memory = own(nbytes)
        except cp.cuda.runtime.CUDARuntimeError:  # the pool's free blocks may hold the device: given back, once
            pool.free_all_blocks()
            try:
                memory = own(nbytes)
            except cp.cuda.runtime.CUDARuntimeError:  # what the pool raises, which the engine's plans answer
                raise cp.cuda.memory.OutOfMemoryError(nbytes, live_bytes()) from None
        return cp.cuda.MemoryPointer(memory, 0)

    return malloc


def _count(nbytes: int) -> None:
    with _lock:
        _live[0] += nbytes


def live_bytes() -> int:
    """The bytes of the large arrays alive now (outside the pool's ``used_bytes``)."""
    with _lock:
        return _live[0]


__all__ = ["LARGE_FRACTION", "keep_large_apart", "live_bytes"]
