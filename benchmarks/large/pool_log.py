"""Which requests make CuPy's pool grow while it still holds free blocks (issue 27: a 2^27 proof holds 15–20 GB
more than its live arrays, and trimming the pool between proofs does not close the gap).

:class:`PoolGrowthLog` puts itself in front of the allocator CuPy uses (``cupy.cuda.set_allocator``: the default
pool, with the engine's allocator of the largest arrays in front of it once a context is open) and writes one JSON
line per request that made the pool take new device memory: the request's size, what the pool grew by, the bytes
it held free just before (a request the free blocks could not serve: fragmentation) and in live arrays, the
largest arrays' bytes outside it, the device's whole use (total − free: the rest is the context and the kernels'
reserved local memory), and the Python frames that asked. Requests served from the pool's free blocks are only
counted. Requests are serialised by a lock while it logs (a diagnostic: the order of the growth is what it is
for).
"""

from __future__ import annotations

import json
import threading
import time
import traceback
from collections import Counter
from pathlib import Path
from typing import Any

from cuzk.backends.cuda import large_blocks

FRAMES = 10  # the frames kept per growth, innermost last
HELPERS = {"uploads.py", "context.py", "device.py", "pool_log.py"}  # the allocation helpers every request goes through


def device_used(cupy: Any) -> int:
    """The device memory in use (total − free): what the process holds beside what the pool and the large arrays
    account for (the context, the modules, the kernels' reserved local memory)."""
    free, total = cupy.cuda.runtime.memGetInfo()
    return int(total - free)


class PoolGrowthLog:
    """Growth events of CuPy's default pool, as JSON lines in ``path``, from construction to :meth:`close`."""

    def __init__(self, path: str | Path) -> None:
        import cupy

        self._cupy, self._pool = cupy, cupy.get_default_memory_pool()
        self._serve = cupy.cuda.get_allocator()  # what served requests before: the large arrays' allocator too
        self._out = open(path, "w")  # noqa: SIM115 (closed by close())
        self._lock, self._start = threading.Lock(), time.perf_counter()
        self.requests, self.growths, self.grown = 0, 0, 0
        self.by_frame: Counter[str] = Counter()
        cupy.cuda.set_allocator(self.malloc)

    def malloc(self, size: int) -> Any:
        with self._lock:
            total, free = self._pool.total_bytes(), self._pool.free_bytes()
            memory = self._serve(size)
            grew = self._pool.total_bytes() - total
            self.requests += 1
            if grew > 0:
                frames = [f"{Path(f.filename).name}:{f.lineno}:{f.name}" for f in traceback.extract_stack()[:-1]]
                record = {
                    "t": round(time.perf_counter() - self._start, 4),
                    "size": size,
                    "grew": grew,
                    "free_before": free,
                    "used_after": self._pool.used_bytes(),
                    "pool_after": self._pool.total_bytes(),
                    "large_live": large_blocks.live_bytes(),  # the largest arrays, outside the pool
                    "device_used": device_used(self._cupy),  # the process's whole hold: pool, large, context, local
                    "thread": threading.current_thread().name,
                    "frames": frames[-FRAMES:],
                }
                self._out.write(json.dumps(record) + "\n")
                self.growths, self.grown = self.growths + 1, self.grown + grew
                own = [frame for frame in frames if frame.split(":")[0] not in HELPERS]
                self.by_frame[own[-1] if own else "?"] += grew
            return memory

    def close(self) -> str:
        """Stop logging (the allocator from before serves CuPy again); a one-line summary, the largest growers
        first."""
        self._cupy.cuda.set_allocator(self._serve)
        self._out.close()
        top = ", ".join(f"{frame} {grown / 1e9:.2f} GB" for frame, grown in self.by_frame.most_common(4))
        return f"{self.requests} requests, {self.growths} grew the pool by {self.grown / 1e9:.2f} GB: {top}"


__all__ = ["PoolGrowthLog"]
