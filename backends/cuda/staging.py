"""The host side of the CUDA context's copies: pinned memory, the ring of pinned buffers that uploads go through,
and the host copies into and out of them on threads.

A copy from pageable memory waits for the stream to drain (CUDA synchronises it), so an upload queued behind
kernels would hold the host until they finish and leave the device idle while it copies; from pinned memory the
copy is queued like a kernel, and the host returns as soon as the data are in the ring. The ring grows (up to
STAGING_BUFFERS) rather than wait while every buffer still has a copy queued: a call queued behind another thread's
kernels does not wait for them. One thread copies host memory slower than the bus, so large host copies run in
pieces on several threads, and those copies still bound the ring (benchmarks/gpu/upload.py); an array already in
pinned memory (``host_array``) needs no host copy at all.

A large upload of pageable memory (the heap, or a key's sections in its file's memory map) has its pages pinned
where they are instead (:meth:`PinnedStaging.register`, read-only), for as long as its copy runs: that costs a
few milliseconds per hundred megabytes, where the ring's own pinned buffers cost a one-shot process tens of
milliseconds each to make and again to free at its exit (benchmarks/gpu/process_costs.py).
"""

from __future__ import annotations

import mmap
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import numpy as np

from cuzk.backends.env import host_helpers

STAGING_BUFFERS = 8  # pinned host buffers in the upload ring, at most …
STAGING_BYTES = 64 << 20  # … of 64 MiB each: 512 MiB of uploads (2^24 scalars) can run ahead of the stream
STAGING_MIN_BYTES = 1 << 16  # smaller uploads copy straight from the caller's memory (the ring would only add a copy)
COPY_THREADS = host_helpers()  # host copies into and out of pinned memory of COPY_SPLIT_BYTES or more run in pieces …
COPY_SPLIT_BYTES = 4 << 20  # … on half the cores at once (numpy lets go of the GIL): one core copies slower than PCIe
HOST_MEMORY = 1  # cudaMemoryTypeHost: host memory the driver pinned (cudaHostAlloc, cudaHostRegister)
REGISTER_MIN_BYTES = 4 << 20  # uploads of pageable memory from this size pin its pages in place …
REGISTER_FLAGS = (8, 0)  # … read-only (cudaHostRegisterReadOnly: a file's read-only map), else with the defaults
PAGE = mmap.PAGESIZE


class PinnedStaging:
    """Pinned memory for one context: the upload ring, the buffers of reads, and the threads that fill them."""

    def __init__(self, cp: Any, memory_errors: tuple[type[BaseException], ...]) -> None:
        self.cp = cp
        self.memory_errors = memory_errors
        self._ring: list[tuple[np.ndarray, Any]] = []  # (pinned host buffer, event of the last copy out of it)
        self._next = 0
        self._ring_size = STAGING_BUFFERS  # fewer when the host refuses pinned memory
        self._copiers: ThreadPoolExecutor | None = None

    def stage(self, buf: Any, raw: np.ndarray, stream: Any) -> None:
        """Queue the copy of the bytes ``raw`` into ``buf`` on ``stream`` (the caller has made the device current),
        through the ring when large; the caller may change ``raw`` once this returns."""
        if raw.size < STAGING_MIN_BYTES:
            buf[: raw.size].set(raw, stream=stream)
            return
        for start in range(0, raw.size, STAGING_BYTES):
            part = raw[start : start + STAGING_BYTES]
            staging = self._ring_buffer()
            if staging is None:  # no pinned memory to be had: the plain (synchronous) copy
                buf[start : start + part.size].set(part, stream=stream)
                continue
            host, copied = staging
            self.copy(host[: part.size], part)
            buf[start : start + part.size].set(host[: part.size], stream=stream)
            copied.record(stream)

    def _ring_buffer(self) -> tuple[np.ndarray, Any] | None:
        """A pinned buffer of the ring whose last copy out has run; while there is none, a new one (up to
        STAGING_BUFFERS), or when no more can be had, the next in turn once its copy has run. Pinned memory is a
        limited resource of the host: when a buffer cannot be made the ring stays at the buffers it has, and with
        none, None (the caller copies directly)."""
        for _ in range(len(self._ring)):
            slot = self._next % len(self._ring)
            self._next = slot + 1
            if self._ring[slot][1].done:
                return self._ring[slot]
        if len(self._ring) < self._ring_size:
            memory = self.pinned(STAGING_BYTES)
            if memory is not None:
                self._ring.append((memory, self.cp.cuda.Event(disable_timing=True)))
                return self._ring[-1]
            self._ring_size = len(self._ring)
        if not self._ring:
            return None
        slot = self._next % len(self._ring)
        self._next = slot + 1
        self._ring[slot][1].synchronize()
        return self._ring[slot]

    def copy(self, dst: np.ndarray, src: np.ndarray) -> None:
        """dst[...] = src for byte arrays of one size; large ones in COPY_THREADS pieces on the context's threads."""
        if src.size < COPY_SPLIT_BYTES:
            dst[...] = src
            return
        if self._copiers is None:
            self._copiers = ThreadPoolExecutor(COPY_THREADS, thread_name_prefix="cuzk-copy")
        step = -(-src.size // COPY_THREADS)
        pieces = [slice(start, start + step) for start in range(0, src.size, step)]
        for done in [self._copiers.submit(dst.__setitem__, piece, src[piece]) for piece in pieces]:
            done.result()

    def pinned(self, nbytes: int) -> np.ndarray | None:
        """``nbytes`` of pinned host memory as a byte array (from CuPy's pinned pool, so that a size freed before
        is not pinned again), or None when the host refuses."""
        runtime_error = getattr(getattr(self.cp.cuda, "runtime", None), "CUDARuntimeError", MemoryError)
        try:
            memory = self.cp.cuda.alloc_pinned_memory(nbytes)
        except (MemoryError, runtime_error, *self.memory_errors):
            return None
        return np.ndarray((nbytes,), dtype=np.uint8, buffer=memory)

    def host_array(self, shape: tuple[int, ...], dtype: Any = np.uint64) -> np.ndarray:
        """An empty array in pinned memory (a plain one when the host refuses)."""
        nbytes = int(np.prod(shape, dtype=np.int64)) * np.dtype(dtype).itemsize
        memory = self.pinned(nbytes) if nbytes else None
        return np.empty(shape, dtype) if memory is None else memory.view(dtype).reshape(shape)

    def register(self, raw: np.ndarray) -> int | None:
        """Pin the pages that hold the bytes ``raw`` where they are, for DMA (cudaHostRegister; whole pages, which
        lie in the same allocation or map as ``raw``); the address to give :meth:`unregister` once the copies from
        them have run, or None when the host refuses (too small to pay off, pages already registered, a driver
        without read-only registration for a read-only map): the caller stages through the ring instead."""
        if raw.size < REGISTER_MIN_BYTES:
            return None
        runtime = self.cp.cuda.runtime
        failure = getattr(runtime, "CUDARuntimeError", RuntimeError)
        start = raw.ctypes.data // PAGE * PAGE
        end = -(-(raw.ctypes.data + raw.size) // PAGE) * PAGE
        for flags in REGISTER_FLAGS:
            try:
                runtime.hostRegister(start, end - start, flags)
            except failure:
                continue
            return start
        return None

    def unregister(self, start: int) -> None:
        """Unpin pages :meth:`register` pinned (every copy from them has run)."""
        self.cp.cuda.runtime.hostUnregister(start)

    def is_pinned(self, raw: np.ndarray) -> bool:
        """Whether the bytes ``raw`` lie in pinned host memory (both ends asked: one allocation holds an array)."""
        runtime = self.cp.cuda.runtime
        failure = getattr(runtime, "CUDARuntimeError", RuntimeError)
        ends = (raw.ctypes.data, raw.ctypes.data + raw.size - 1)
        try:
            return all(int(runtime.pointerGetAttributes(end).type) == HOST_MEMORY for end in ends)
        except failure:
            return False


__all__ = ["PinnedStaging"]
