"""A CUDA call's kernels on the host's clock: when each ran, not only how long.

CUDA events time the device: the elapsed time between two events, never the host time at which an event was
passed. An anchor event recorded on a stream of its own (which runs nothing else, so the device passes the event as
soon as it is recorded) and waited for ties the two clocks: its host time is the middle of its record and the end of
the wait, and any later event's host time is that plus their elapsed time. The engine's overhead (the time of a
proof in which no kernel ran) needs these intervals: with only each call's device seconds, laid at the end of the
call, a call whose kernels ran early and whose result was read late shows a gap that the device never had.

An anchor is taken again after ANCHOR_SECONDS (elapsed times are single-precision milliseconds, and the two clocks
drift apart), always before the first launch of a trace, so that it precedes every event measured from it.
"""

from __future__ import annotations

import time
from typing import Any

from cuzk.backends.gpu.context import ANCHOR_SECONDS


class EventClock:
    """Host times (``time.perf_counter`` seconds) of CUDA events of ``device``."""

    def __init__(self, cp: Any, device: Any) -> None:
        self.cp, self.device = cp, device
        with device:
            self._stream = cp.cuda.Stream(non_blocking=True)
        self._anchor: tuple[Any, float] | None = None

    def anchor(self) -> None:
        """A new anchor when there is none or it is older than ANCHOR_SECONDS (a wait of microseconds: the anchor's
        stream is idle); called before a trace's first launch."""
        if self._anchor is not None and time.perf_counter() - self._anchor[1] < ANCHOR_SECONDS:
            return
        with self.device:
            event = self.cp.cuda.Event()
            before = time.perf_counter()
            event.record(self._stream)
            event.synchronize()
            self._anchor = (event, (before + time.perf_counter()) / 2)

    def intervals(self, trace: list[tuple[str, Any, Any]]) -> list[tuple[float, float]] | None:
        """(start, end) on the host's clock of each launch of ``trace`` (kernel, start event, end event), all done;
        None without an anchor. The first launch is placed from the anchor, the others from the first (short
        spans, precise in single precision)."""
        if not trace or self._anchor is None:
            return None if self._anchor is None else []
        elapsed = self.cp.cuda.get_elapsed_time
        first = trace[0][1]
        base = self._anchor[1] + elapsed(self._anchor[0], first) * 1e-3
        out = []
        for _, start, end in trace:
            begin = base + elapsed(first, start) * 1e-3
            out.append((begin, begin + elapsed(start, end) * 1e-3))
        return out


__all__ = ["EventClock"]
