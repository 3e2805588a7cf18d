"""A CUDA call's kernels on the host's clock: when each ran, not only how long.

CUDA events time the device: the elapsed time between two events, never the host time at which an event was
passed. An anchor event recorded on a stream of its own (which runs nothing else, so the device passes the event as
soon as it is recorded) and waited for ties the two clocks: its host time is the middle of its record and the end of
the wait (the shortest of a few tries), and any later event's host time is that plus their elapsed time. The
engine's overhead (the time of a proof in which no kernel ran) needs these intervals: with only each call's device
seconds, laid at the end of the call, a call whose kernels ran early and whose result was read late shows a gap
that the device never had.

A trace is measured from the anchor that was current at its first launch (a new one is taken after ANCHOR_SECONDS:
elapsed times are single-precision milliseconds, and the clocks drift apart), so that the anchor always precedes
every event measured from it, whichever thread takes a newer one meanwhile.
"""

from __future__ import annotations

import threading
import time
from typing import Any

from cuzk.backends.gpu.context import ANCHOR_SECONDS, tie_clocks

OPEN_TRACES = 64  # traces whose anchor is remembered until their intervals are read (older ones are forgotten)


class EventClock:
    """Host times (``time.perf_counter`` seconds) of CUDA events of ``device``."""

    def __init__(self, cp: Any, device: Any) -> None:
        self.cp, self.device = cp, device
        with device:
            self._stream = cp.cuda.Stream(non_blocking=True)
        self._anchor: tuple[Any, float] | None = None
        self._traces: dict[int, tuple[Any, float]] = {}  # id of a trace's first start event → its anchor
        self._lock = threading.Lock()  # _traces: opened under the context's lock, read after it by any thread

    def opened(self, first: Any) -> None:
        """A trace starts with the start event ``first`` (before it is recorded): its anchor is the current one,
        taken anew when there is none or it is older than ANCHOR_SECONDS (waits of microseconds: the anchor's
        stream is idle). The caller holds the context's lock."""
        if self._anchor is None or time.perf_counter() - self._anchor[1] >= ANCHOR_SECONDS:
            with self.device:
                self._anchor = tie_clocks(self._passed_event)
        with self._lock:
            if len(self._traces) >= OPEN_TRACES:
                self._traces.pop(next(iter(self._traces)))
            self._traces[id(first)] = self._anchor

    def _passed_event(self) -> Any:
        """An event recorded on the clock's idle stream, waited for."""
        event = self.cp.cuda.Event()
        event.record(self._stream)
        event.synchronize()
        return event

    def intervals(
        self, trace: list[tuple[str, Any, Any]], seconds: list[float] | None = None
    ) -> list[tuple[float, float]] | None:
        """(start, end) on the host's clock of each launch of ``trace`` (kernel, start event, end event), all done;
        None for a trace this clock did not see open. The first launch is placed from the trace's anchor, the
        others from the first (short spans, precise in single precision); each lasts its ``seconds`` where the
        caller has them (the device time of each launch), else its events are read for it."""
        if not trace:
            return []
        first = trace[0][1]
        with self._lock:
            anchor = self._traces.pop(id(first), None)
        if anchor is None:
            return None
        elapsed = self.cp.cuda.get_elapsed_time
        if seconds is None:
            seconds = [elapsed(start, end) * 1e-3 for _, start, end in trace]
        base = anchor[1] + elapsed(anchor[0], first) * 1e-3
        out = []
        for (_, start, _), length in zip(trace, seconds, strict=True):
            begin = base + elapsed(first, start) * 1e-3
            out.append((begin, begin + length))
        return out


__all__ = ["EventClock"]
