"""The engine's backend calls, each timed at the backend and internal levels (:mod:`cuzk.engine.timing`).

:class:`TimedCalls` is the one object through which the prover reaches a backend: a method per protocol operation,
each a plain call of the backend's method inside :meth:`TimedCalls.timed`, which records the wall clock around it
(the backend level) and the compute the backend reports for it (the internal level, capability TIMINGS): at the
``perf_counter`` intervals of ``last_internal_intervals()`` when the backend knows them (moved inside the call where
a device's clock, tied to the host's, puts them past its bounds), else as
one span of ``last_internal_seconds()`` ending with the call (a GPU backend's kernels run after validation and
queueing). A batch call names its MSMs (``parts``): each one's device time (``last_batch_seconds()``) becomes an
internal span of that name, ``part_of`` the call.
"""

from __future__ import annotations

import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

import numpy as np

from cuzk.backends.protocol import TIMINGS, Backend, KeptScalars, PreparedBases, has_capability
from cuzk.engine.timing import Recorder
from cuzk.reference.curves import Curve

Scalars = np.ndarray | KeptScalars
Bases = np.ndarray | PreparedBases


class TimedCalls:
    """The backend calls of one prover, recorded in ``recorder``."""

    def __init__(self, recorder: Recorder) -> None:
        self.recorder = recorder

    @contextmanager
    def timed(self, backend: Backend, name: str, parts: Sequence[str] = ()) -> Iterator[None]:
        """Around one call of ``backend``: its backend span and, with TIMINGS, its internal spans."""
        started = time.perf_counter()
        yield
        ended = time.perf_counter()
        timings = has_capability(backend, TIMINGS)
        intervals = _internal_intervals(backend, started, ended) if timings else None
        spans = [(name, "backend", started, ended, {"internal": intervals is not None})]
        spans += [(name, "internal", start, end, {}) for start, end in intervals or ()]
        batch = _batch_parts(backend, list(parts), started, ended) if timings and parts else ()
        spans += [(part, "internal", start, end, {"part_of": name}) for part, start, end in batch]
        self.recorder.add_all(spans)

    def msm(
        self, backend: Backend, name: str, curve: Curve, group: str, bases: Bases, scalars: Scalars, window: int | None
    ) -> np.ndarray:
        """Σ scalars[i]·bases[i]: ``msm_prepared`` over bases the backend prepared, else ``msm`` over limbs."""
        with self.timed(backend, name):
            if isinstance(bases, PreparedBases):
                return backend.msm_prepared(bases, scalars, window=window)  # type: ignore[attr-defined]
            return backend.msm(curve, group, bases, scalars, window=window)  # type: ignore[arg-type]

    def msm_batch(
        self,
        backend: Backend,
        name: str,
        curve: Curve,
        group: str,
        bases: list[Bases],
        scalars: list[Scalars],
        windows: list[int | None],
        parts: Sequence[str] = (),
    ) -> np.ndarray:
        """Several MSMs in one call (capability MSM_BATCH); ``parts`` names them in the timings."""
        with self.timed(backend, name, parts):
            return backend.msm_batch(curve, group, bases, scalars, windows=windows)  # type: ignore[attr-defined]

    def prepare_bases(
        self, backend: Backend, curve: Curve, group: str, bases: np.ndarray, uses: int | None = None
    ) -> PreparedBases:
        hint = {} if uses is None else {"uses": uses}  # a backend written before the hint is still called as it was
        with self.timed(backend, "prepare_bases"):
            return backend.prepare_bases(curve, group, bases, **hint)  # type: ignore[attr-defined]

    def prepare_stored_bases(
        self, backend: Backend, curve: Curve, group: str, stored: np.ndarray, check: bool, uses: int | None
    ) -> tuple[PreparedBases | None, int]:
        with self.timed(backend, "prepare_bases"):
            return backend.prepare_stored_bases(curve, group, stored, check=check, uses=uses)  # type: ignore[attr-defined]

    def keep_scalars(
        self, backend: Backend, name: str, curve: Curve, arrays: Sequence[np.ndarray]
    ) -> list[KeptScalars]:
        """Each array checked once and kept by ``backend`` (capability KEPT_SCALARS), in one timed call."""
        with self.timed(backend, name):
            return [backend.keep_scalars(curve, array) for array in arrays]  # type: ignore[attr-defined]

    def compute_h(
        self, backend: Backend, curve: Curve, abc: Sequence[Scalars], reduction: str, *, keep: bool
    ) -> Scalars:
        """The h_query scalars from A·z, B·z, C·z (capability COMPUTE_H); with ``keep``, left on the backend, which
        may transform kept a, b, c in place when short of memory (they serve one proof)."""
        with self.timed(backend, "compute_h"):
            if keep:
                return backend.compute_h_kept(curve, *abc, reduction=reduction, consume=True)  # type: ignore[attr-defined]
            return backend.compute_h(curve, *abc, reduction=reduction)  # type: ignore[attr-defined]

    def ntt(self, backend: Backend, name: str, curve: Curve, values: np.ndarray, *, inverse: bool, coset: bool) -> Any:
        with self.timed(backend, name):
            return backend.ntt(curve, values, inverse=inverse, coset=coset)


def _internal_intervals(backend: Backend, started: float, ended: float) -> list[tuple[float, float]] | None:
    """The intervals of the backend's own compute in the call that ran from ``started`` to ``ended`` on this
    thread, clipped to the call; None when the backend does not report it."""
    intervals = backend.last_internal_intervals()  # type: ignore[attr-defined]
    if intervals is not None:
        shift = _into_call(intervals, started, ended)
        placed = [(a + shift, b + shift) for a, b in intervals]
        return [(max(a, started), min(b, ended)) for a, b in placed if a < ended and started < b]
    seconds = backend.last_internal_seconds()  # type: ignore[attr-defined]
    if seconds is None:
        return None
    return [(ended - min(seconds, ended - started), ended)]


def _into_call(intervals: list[tuple[float, float]], started: float, ended: float) -> float:
    """The shift that moves a synchronous call's kernel intervals inside the call when they overhang it: a device's
    clock is tied to the host's with an error (the round trip of a marker, long on a loaded host), but the call's
    kernels ran within it, so its bounds correct that error; 0 where they lie inside already."""
    if not intervals:
        return 0.0
    first, last = min(a for a, _ in intervals), max(b for _, b in intervals)
    if last > ended:
        return max(ended - last, started - first)
    if first < started:
        return min(started - first, ended - last)
    return 0.0


def _batch_parts(backend: Backend, names: list[str], started: float, ended: float) -> list[tuple[str, float, float]]:
    """Each MSM of the batch call that ran from ``started`` to ``ended`` as (name, start, end), from the device time
    the backend reports for each: laid end to end in their order, the last ending with the call, as one device queue
    runs them; empty when the backend does not report them."""
    seconds = backend.last_batch_seconds()  # type: ignore[attr-defined]
    if seconds is None or len(seconds) != len(names):
        return []
    parts, end = [], ended
    for name, length in reversed(list(zip(names, seconds, strict=True))):
        start = max(started, end - length)
        parts.append((name, start, end))
        end = start
    return parts[::-1]


__all__ = ["Bases", "Scalars", "TimedCalls"]
