"""CuPy's pool under a cap (``CUPY_GPU_MEMORY_LIMIT``), kept by giving back free blocks before refusing.

CuPy's pool keeps the blocks its arrays free, to hand them out again without a ``cudaMalloc``. When the device
itself runs out, the pool gives its free blocks back and tries again; but when an allocation would pass the pool's
*cap*, it refuses at once (OutOfMemoryError), with the free blocks still counted against the cap. A proof's
transients come in many sizes (z, a, b, c, H's tables, the MSMs' digits and buckets), and a freed block of one size
is split for a smaller request, so the free blocks pile up: at 2^27 a proof held 126–128 GB of device memory for
107–111 GB of live arrays. Under a cap, that pile is what makes the next large request fail.

:func:`keep_within_cap` puts an allocator in front of the pool, once per process, that answers the cap's refusal
the way the pool answers the device's: the contexts let go of the memory they cache (their idle upload slots), the
device's queued work is waited for (a released slot may still be a pending copy's target), the pool gives back its
free blocks, and the request is tried once more (counted in :func:`cap_retries`). With no cap set it installs
nothing: the pool then does this itself.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

_lock = threading.Lock()
_releases: list[Callable[[], None]] = []  # each context's release_cached, in the order they opened
_installed: list[bool] = [False]
_retries = [0]


def keep_within_cap(cp: Any, release: Callable[[], None]) -> bool:
    """With a cap on CuPy's default pool, have ``release`` (a context's cached memory) and the pool's free blocks
    given back before an allocation past the cap is refused; whether a cap is set."""
    pool = cp.get_default_memory_pool()
    if not pool.get_limit():
        return False
    with _lock:
        _releases.append(release)
        if not _installed[0]:
            cp.cuda.set_allocator(_capped_malloc(cp, pool))
            _installed[0] = True
    return True


def _capped_malloc(cp: Any, pool: Any) -> Callable[[int], Any]:
    out_of_memory = cp.cuda.memory.OutOfMemoryError

    def malloc(nbytes: int) -> Any:
        try:
            return pool.malloc(nbytes)
        except out_of_memory:
            with _lock:
                _retries[0] += 1
                releases = list(_releases)
            for release in releases:
                release()
            cp.cuda.runtime.deviceSynchronize()
            pool.free_all_blocks()
            return pool.malloc(nbytes)

    return malloc


def cap_retries() -> int:
    """How many allocations this process tried again after giving back the pool's free blocks (for benchmarks)."""
    return _retries[0]


__all__ = ["cap_retries", "keep_within_cap"]
