"""What a GPU API offers the shared host code: :class:`DeviceContext`, and :class:`DeviceInfo` about its device.

Buffers are opaque handles of a byte size; host arrays are copied in and out as raw little-endian bytes, which is
why the OpenCL kernels (64-bit limbs) and the CUDA kernels (32-bit limbs) read the same host arrays. ``launch``
starts ``items`` threads (rounded up to whole groups of ``group`` threads, or the context's default; the kernels
check their range) on the context's one in-order queue or stream, and while ``trace`` is a list, appends a record
of each launch that ``launch_seconds`` turns into device time per launch (:func:`seconds_by_kernel`: per kernel).

A read is queued like a kernel (:meth:`DeviceContext.read_later`) and waited for by a :data:`Finish`, the function
it returns: the backend queues a call's work holding the context's lock and waits for its results after letting
go, so that another thread's call queues meanwhile and the host's copies overlap the device's work.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol, TypeVar

import numpy as np

from cuzk.backends.errors import BackendInputError
from cuzk.backends.limbs import FR_LIMBS
from cuzk.reference.curves import Curve

T = TypeVar("T")

# A context ties its device's clock to the host's again after this many seconds (kernel_intervals): the clocks drift
# apart, and CUDA's elapsed times are single-precision milliseconds.
ANCHOR_SECONDS = 30.0
CLOCK_TIES = 3  # round trips per tie of the clocks (tie_clocks); the shortest is kept

Finish = Callable[[], T]
"""What a queued call returns: it waits for the device where needed and gives the call's result."""


def tie_clocks(pass_marker: Callable[[], T]) -> tuple[T, float]:
    """A marker the device passed and the host's ``time.perf_counter`` then: ``pass_marker`` queues a marker where
    nothing else waits (a stream or queue of its own, so the device passes it at once) and waits for it; the host
    time is the middle of that round trip, the shortest of CLOCK_TIES (a wait of microseconds, longer when the
    host is busy)."""
    ties = []
    for _ in range(CLOCK_TIES):
        before = time.perf_counter()
        marker = pass_marker()
        after = time.perf_counter()
        ties.append((after - before, (before + after) / 2, marker))
    _, host, marker = min(ties, key=lambda tie: tie[0])
    return marker, host


def ready(value: T) -> Finish[T]:
    """The Finish of a result that is already there."""
    return lambda: value


@dataclass(eq=False)
class Held:
    """A device buffer that every view of some kept scalars shares, until :meth:`DeviceScalars.release` lets go."""

    buffer: Any


@dataclass(frozen=True)
class DeviceScalars:
    """``rows`` canonical Fr scalars left in a device buffer from row ``first`` on (the payload of the protocol's
    KeptScalars): the same bytes as an upload of the (rows, 4) limb array would hold, on both APIs."""

    context: Any  # the DeviceContext whose buffer it is
    held: Held
    rows: int
    first: int = 0

    @classmethod
    def of(cls, context: Any, buffer: Any, rows: int) -> DeviceScalars:
        return cls(context, Held(buffer), rows)

    @property
    def buffer(self) -> Any:
        if self.held.buffer is None:
            raise BackendInputError(
                "these kept scalars were consumed by compute_h_kept(consume=True): keep (stage) them again",
                array="scalars",
            )
        return self.held.buffer

    def release(self) -> None:
        """Let go of the buffer for every view of it (the device frees it once queued kernels are done with it)."""
        self.held.buffer = None

    def __len__(self) -> int:
        return self.rows

    def to_host(self) -> np.ndarray:
        return self.context.read_later(self.buffer, (self.rows, FR_LIMBS), offset=self.first * FR_LIMBS * 8)()


class SelectionError(Exception):
    """Why no device could be chosen (becomes the backend's unavailable_reason)."""


@dataclass(frozen=True)
class DeviceInfo:
    """The facts the planners and describe() need."""

    name: str
    platform: str
    kind: str  # "gpu" or "cpu" (accelerators count as gpu)
    compute_units: int
    global_mem: int
    max_alloc: int
    facts: dict[str, Any]
    fp64: bool = True  # doubles (OpenCL's cl_khr_fp64): field_f64.c's multiplication builds (with -DCUZK_FP64_MUL)


class DeviceContext(Protocol):
    """A device, its queue (in order), the programs built for it and its buffers."""

    info: DeviceInfo
    lock: threading.RLock
    trace: list[Any] | None
    build_seconds: dict[str, float]
    memory_errors: tuple[type[BaseException], ...]  # what the API raises when the device has no memory left
    uploads_overlap: bool  # whether an upload runs beside the kernels queued before it (a copy stream of its own)

    def launch(
        self, curve: Curve, program: str, name: str, items: int, *args: Any, group: int | None = None
    ) -> Any: ...

    def launch_seconds(self, trace: list[Any]) -> list[float]:
        """The device time of each launch of ``trace``, in order, once all are done (one wait, for the last)."""
        ...

    def kernel_intervals(self, trace: list[Any], seconds: list[float]) -> list[tuple[float, float]] | None:
        """When each launch of ``trace`` ran, as (start, end) on the host's ``time.perf_counter`` clock, given
        their ``seconds`` (:meth:`launch_seconds`, which waited for them); None where the API cannot tell."""
        ...

    def prepare_program(self, curve: Curve, program: str) -> None:
        """Build (or load) ``program`` now, so that its first launch does not wait for it."""
        ...

    def buffer(self, nbytes: int) -> Any: ...

    def upload(self, array: np.ndarray, meanwhile: Callable[[], None] | None = None) -> Any:
        """A new buffer holding ``array`` (queued; the caller may change ``array`` once this returns).
        ``meanwhile`` runs on the host while the copy runs where the context can overlap them (else before it):
        e.g. a check of ``array``, whose error then propagates, the copy done."""
        ...

    def host_array(self, shape: tuple[int, ...], dtype: Any = np.uint64) -> np.ndarray:
        """An empty host array that ``upload`` reads fastest (pinned memory on CUDA)."""
        ...

    def write(self, buf: Any, array: np.ndarray) -> None: ...

    def zeros(self, nbytes: int) -> Any: ...

    def fill_zero(self, buf: Any, nbytes: int) -> None: ...

    def read_later(
        self, buf: Any, shape: tuple[int, ...], dtype: Any = np.uint64, offset: int = 0
    ) -> Finish[np.ndarray]:
        """Queue the copy of the buffer's bytes from ``offset`` into a new host array of ``shape``; the Finish waits
        for it."""
        ...

    def read(self, buf: Any, shape: tuple[int, ...], dtype: Any = np.uint64) -> np.ndarray: ...

    @property
    def dummy(self) -> Any: ...

    @property
    def cached_bytes(self) -> int:
        """Device memory the context keeps for reuse (free leased upload slots), outside any call's plan."""
        ...

    def release_cached(self) -> None:
        """Give the memory of ``cached_bytes`` back (after an out-of-memory error)."""
        ...

    @property
    def free_bytes(self) -> int | None:
        """Device memory new buffers can still get now (None where the API does not tell, as OpenCL's)."""
        ...

    def resident_threads(self, curve: Curve, program: str, name: str) -> int | None:
        """How many threads of kernel ``name`` one compute unit runs at once, where the API tells (else None)."""
        ...


def seconds_by_kernel(trace: list[Any], seconds: list[float]) -> dict[str, float]:
    """The device time per kernel name of ``trace``'s launches (each record starts with the kernel's name), from
    their ``seconds`` (:meth:`DeviceContext.launch_seconds`)."""
    by_name: dict[str, float] = {}
    for record, time_ in zip(trace, seconds, strict=True):
        by_name[record[0]] = by_name.get(record[0], 0.0) + time_
    return by_name


class BufferHelpers:
    """What every context derives from its ``buffer``, ``write``, ``fill_zero`` and ``read_later``: uploads, zeroed
    buffers, blocking reads and a shared dummy argument. OpenCL's and CUDA's contexts inherit it."""

    _dummy: Any = None
    uploads_overlap = False

    def buffer(self, nbytes: int) -> Any:
        raise NotImplementedError

    def write(self, buf: Any, array: np.ndarray) -> None:
        raise NotImplementedError

    def fill_zero(self, buf: Any, nbytes: int) -> None:
        raise NotImplementedError

    def read_later(
        self, buf: Any, shape: tuple[int, ...], dtype: Any = np.uint64, offset: int = 0
    ) -> Finish[np.ndarray]:
        raise NotImplementedError

    def read(self, buf: Any, shape: tuple[int, ...], dtype: Any = np.uint64) -> np.ndarray:
        """The buffer's first bytes as an array of ``shape`` (waits for the queue to reach the copy)."""
        return self.read_later(buf, shape, dtype)()

    def upload(self, array: np.ndarray, meanwhile: Callable[[], None] | None = None) -> Any:
        if meanwhile is not None:
            meanwhile()
        data = np.ascontiguousarray(array)
        buf = self.buffer(data.nbytes)
        if data.nbytes:
            self.write(buf, data)
        return buf

    def host_array(self, shape: tuple[int, ...], dtype: Any = np.uint64) -> np.ndarray:
        return np.empty(shape, dtype)

    def zeros(self, nbytes: int) -> Any:
        buf = self.buffer(nbytes)
        self.fill_zero(buf, nbytes)
        return buf

    @property
    def cached_bytes(self) -> int:
        return 0

    def release_cached(self) -> None:
        return None

    @property
    def free_bytes(self) -> int | None:
        return None

    def resident_threads(self, curve: Curve, program: str, name: str) -> int | None:
        return None

    @property
    def dummy(self) -> Any:
        """A small buffer for kernel arguments that a flag leaves unused."""
        if self._dummy is None:
            self._dummy = self.zeros(256)
        return self._dummy


__all__ = [
    "BufferHelpers",
    "DeviceContext",
    "DeviceInfo",
    "DeviceScalars",
    "Finish",
    "SelectionError",
    "ready",
    "seconds_by_kernel",
]
