"""The cpu backend's "internal" time: the wall-clock seconds during which its compiled kernels ran for one call.

A backend call (an MSM, an NTT, the fused H) validates its input in Python, plans the work, runs nogil numba
kernels on the thread pool (or, when small, on the calling thread) and converts the result. The engine reports
*overhead = wrapper − internal* (:mod:`cuzk.engine.timing`), so the internal time must hold the kernels alone:
:class:`KernelClock` records the interval of every kernel run of a call (the start and the end of each task on
whichever thread ran it) and reports the measure of their union, i.e. the seconds in which at least one kernel of
the call was running. Validation, planning, allocations, result conversion and the time a task waits in the pool's
queue behind another call's kernels (the engine's B_G2 MSM shares the pool with the G1 work) are not in it.

The record is per *calling* thread (a ``threading.local``), as the protocol's ``last_internal_seconds()`` asks:
the engine's main thread and its B_G2 thread each read the time of their own last call. A call made inside another
(``msm_batch`` runs its MSMs through the single-MSM hooks) counts towards the outer one.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Executor
from contextlib import contextmanager
from typing import Any, TypeVar

from cuzk.backends.intervals import merge

T = TypeVar("T")
R = TypeVar("R")


class KernelClock:
    """Per calling thread: the kernel intervals of the current backend call, and the seconds of the last one."""

    def __init__(self) -> None:
        self._local = threading.local()

    @contextmanager
    def measure(self) -> Iterator[None]:
        """Around one backend hook on the calling thread: afterwards :meth:`last_seconds` holds its kernel time."""
        local = self._local
        if getattr(local, "intervals", None) is not None:  # nested: the outer call owns the record
            yield
            return
        local.intervals = intervals = []
        try:
            yield
        finally:
            local.intervals = None
            local.merged = merge(intervals)

    def last_seconds(self) -> float | None:
        """The kernel seconds of the calling thread's last measured call (None before its first)."""
        merged = self.last_intervals()
        return None if merged is None else sum(end - start for start, end in merged)

    def last_intervals(self) -> list[tuple[float, float]] | None:
        """The disjoint ``time.perf_counter()`` intervals in which the calling thread's last measured call had a
        kernel running (None before its first)."""
        return getattr(self._local, "merged", None)

    def current(self) -> list[tuple[float, float]] | None:
        """The interval list of the call in progress on the calling thread (None outside a measured call)."""
        return getattr(self._local, "intervals", None)


class KernelPool:
    """The thread pool of the kernels, timing every task for the backend call of the thread that submits it."""

    def __init__(self, executor: Executor, clock: KernelClock) -> None:
        self.executor, self.clock = executor, clock

    def map(self, fn: Callable[[T], R], items: Iterable[T]) -> list[R]:
        """``[fn(x) for x in items]`` on the pool's threads (each task's interval recorded for the caller)."""
        intervals = self.clock.current()
        if intervals is None:
            return list(self.executor.map(fn, items))

        def timed(item: T) -> R:
            started = time.perf_counter()
            try:
                return fn(item)
            finally:
                intervals.append((started, time.perf_counter()))  # list.append is atomic under the GIL

        return list(self.executor.map(timed, items))

    def call(self, fn: Callable[..., R], *args: Any) -> R:
        """``fn(*args)`` on the calling thread, timed like a pool task (a kernel too small to be worth a thread)."""
        intervals = self.clock.current()
        started = time.perf_counter()
        try:
            return fn(*args)
        finally:
            if intervals is not None:
                intervals.append((started, time.perf_counter()))


__all__ = ["KernelClock", "KernelPool"]
