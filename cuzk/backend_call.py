"""One backend call of the engine, recorded at the backend level (the wall clock around the call) and at the internal
level (the compute the backend reports for it), see :mod:`cuzk.timing`. Backends report through optional methods:
``last_internal_seconds()`` (the calling thread's last call), ``last_internal_intervals()`` (its compute as
``perf_counter`` intervals, the cpu backend) and ``last_batch_seconds()`` (each MSM of an ``msm_batch``)."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from cuzk.backends.protocol import Backend
from cuzk.timing import Recorder


def _internal_intervals(backend: Backend, started: float, ended: float) -> list[tuple[float, float]] | None:
    """The intervals of the backend's own compute in the call that ran from ``started`` to ``ended`` on this
    thread, clipped to the call; None when the backend does not report it."""
    reported = getattr(backend, "last_internal_intervals", None)
    intervals = reported() if callable(reported) else None
    if intervals is not None:
        return [(max(a, started), min(b, ended)) for a, b in intervals if a < ended and started < b]
    seconds_of = getattr(backend, "last_internal_seconds", None)
    seconds = seconds_of() if callable(seconds_of) else None
    if seconds is None:
        return None
    return [(ended - min(seconds, ended - started), ended)]


def _batch_parts(backend: Backend, names: list[str], started: float, ended: float) -> list[tuple[str, float, float]]:
    """Each MSM of the batch call that ran from ``started`` to ``ended`` as (name, start, end), from the device time
    the backend reports for each (``last_batch_seconds()``): laid end to end in their order, the last ending with
    the call, as one device queue runs them; empty when the backend does not report them."""
    reported = getattr(backend, "last_batch_seconds", None)
    seconds = reported() if callable(reported) else None
    if seconds is None or len(seconds) != len(names):
        return []
    parts, end = [], ended
    for name, length in reversed(list(zip(names, seconds, strict=True))):
        start = max(started, end - length)
        parts.append((name, start, end))
        end = start
    return parts[::-1]


def timed_call(
    recorder: Recorder, backend: Backend, name: str, call: Callable[[], Any], parts: list[str] | None = None
) -> Any:
    """Run one backend call; record it at the backend level, and at the internal level when the backend
    reports the compute time of the calling thread's last call (``last_internal_seconds()``): at the
    ``perf_counter`` intervals of ``last_internal_intervals()`` when the backend offers them (the cpu backend),
    else as one span of that length ending with the call (its kernels run after validation and queueing).
    For a batch call, ``parts`` names its MSMs: each one's device time becomes an internal span of that name
    (``part_of`` the call) where the backend reports it."""
    started = time.perf_counter()
    result = call()
    ended = time.perf_counter()
    intervals = _internal_intervals(backend, started, ended)
    recorder.add(name, "backend", started, ended, internal=intervals is not None)
    for start, end in intervals or ():
        recorder.add(name, "internal", start, end)
    for part, start, end in _batch_parts(backend, parts, started, ended) if parts else ():
        recorder.add(part, "internal", start, end, part_of=name)
    return result


__all__ = ["timed_call"]
