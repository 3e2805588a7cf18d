"""Timings at every level, the lesson of the seed engine: know where every second goes.

The seed's GPU wrapper reported 37 s where the CUDA kernels took 25.5 s; the gap (data marshalling, allocation,
serial glue) was invisible until both levels were printed side by side. cuzk records each phase at three levels:

    engine    the engine's wall clock around the phase, conversions and glue included
    backend   the wall clock around the backend call alone
    internal  the time the backend reports for its own compute (device events on a GPU, the compiled kernel on
              the CPU); absent when the backend does not measure it

and reports *overhead = engine − internal* (or engine − backend when no internal time exists).

Spans are recorded by a :class:`Recorder` shared by every thread of a proof; :func:`chrome_trace` writes them as a
Chrome-trace JSON file (open it in Perfetto, ui.perfetto.dev, or chrome://tracing), one row per thread.
"""

from __future__ import annotations

import json
import os
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

LEVELS = ("engine", "backend", "internal")


@dataclass(frozen=True)
class Span:
    """One timed interval: ``name`` (e.g. ``msm_b_g2``) at ``level``, on thread ``thread``; seconds since the epoch
    of the recorder (``perf_counter`` based)."""

    name: str
    level: str
    start: float
    end: float
    thread: str
    args: dict[str, Any] = field(default_factory=dict)

    @property
    def seconds(self) -> float:
        return self.end - self.start


class Recorder:
    """A thread-safe list of spans for one or more proofs."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.spans: list[Span] = []
        self.origin = time.perf_counter()

    def add(self, name: str, level: str, start: float, end: float, **args: Any) -> None:
        if level not in LEVELS:
            raise ValueError(f"unknown timing level {level!r}; expected one of {LEVELS}")
        span = Span(name, level, start - self.origin, end - self.origin, threading.current_thread().name, args)
        with self._lock:
            self.spans.append(span)

    @contextmanager
    def span(self, name: str, level: str = "engine", **args: Any) -> Iterator[None]:
        started = time.perf_counter()
        try:
            yield
        finally:
            self.add(name, level, started, time.perf_counter(), **args)

    def seconds(self, name: str, level: str = "engine") -> float:
        """Total seconds of the spans called ``name`` at ``level``."""
        return sum(s.seconds for s in self.spans if s.name == name and s.level == level)

    def names(self, level: str = "engine") -> list[str]:
        """The span names at ``level`` in the order they first started."""
        seen: dict[str, float] = {}
        for s in self.spans:
            if s.level == level and s.name not in seen:
                seen[s.name] = s.start
        return sorted(seen, key=seen.__getitem__)

    def window(self, name: str, level: str = "engine") -> tuple[float, float] | None:
        """(first start, last end) of the spans called ``name``, or None."""
        spans = [s for s in self.spans if s.name == name and s.level == level]
        return (min(s.start for s in spans), max(s.end for s in spans)) if spans else None


def chrome_trace(recorder: Recorder, path: str | Path) -> Path:
    """Write the spans as Chrome-trace "complete" events (ph = X, microseconds); one track per thread and level."""
    pid = os.getpid()
    tracks: dict[tuple[str, str], int] = {}
    events: list[dict[str, Any]] = []
    for s in sorted(recorder.spans, key=lambda s: s.start):
        tid = tracks.setdefault((s.thread, s.level), len(tracks) + 1)
        events.append(
            {
                "name": s.name,
                "cat": s.level,
                "ph": "X",
                "ts": round(s.start * 1e6, 3),
                "dur": round(s.seconds * 1e6, 3),
                "pid": pid,
                "tid": tid,
                "args": {k: str(v) for k, v in s.args.items()},
            }
        )
    for (thread, level), tid in tracks.items():
        events.append(
            {"name": "thread_name", "ph": "M", "pid": pid, "tid": tid, "args": {"name": f"{thread} ({level})"}}
        )
    out = Path(path)
    out.write_text(json.dumps({"traceEvents": events, "displayTimeUnit": "ms"}, indent=1), encoding="utf-8")
    return out


@dataclass(frozen=True)
class PhaseRow:
    """One line of the timings table."""

    phase: str
    engine: float
    backend: float | None
    internal: float | None

    @property
    def overhead(self) -> float:
        inner = self.internal if self.internal is not None else self.backend
        return self.engine - inner if inner is not None else 0.0


def phase_rows(recorder: Recorder) -> list[PhaseRow]:
    """One row per engine-level phase, with the backend and internal seconds recorded under the same name."""
    rows = []
    for name in recorder.names("engine"):
        backend = [s for s in recorder.spans if s.name == name and s.level == "backend"]
        internal = [s for s in recorder.spans if s.name == name and s.level == "internal"]
        rows.append(
            PhaseRow(
                name,
                recorder.seconds(name),
                sum(s.seconds for s in backend) if backend else None,
                sum(s.seconds for s in internal) if internal else None,
            )
        )
    return rows


def overlap_seconds(recorder: Recorder, a: str, b_names: list[str]) -> float:
    """How long the span(s) ``a`` ran at the same time as any of ``b_names`` (engine level)."""
    wa = recorder.window(a)
    if wa is None:
        return 0.0
    total = 0.0
    for s in recorder.spans:
        if s.level == "engine" and s.name in b_names:
            total += max(0.0, min(wa[1], s.end) - max(wa[0], s.start))
    return total


def timings_table(recorder: Recorder, *, total: str = "prove") -> list[str]:
    """The ``--timings`` table: each phase at the three levels, its overhead, and the B_G2 overlap.

    Nested phases (``h`` contains the NTTs; ``prove`` contains everything) are listed as recorded; the summary line
    relates the backend's internal seconds to the engine's total of ``total``.
    """

    def cell(x: float | None) -> str:
        return f"{x * 1e3:10.2f}" if x is not None else f"{'-':>10}"

    lines = [f"{'phase':<18}{'engine ms':>10}{'backend ms':>11}{'internal ms':>12}{'overhead ms':>12}"]
    for row in phase_rows(recorder):
        lines.append(f"{row.phase:<18}{cell(row.engine)}{cell(row.backend)} {cell(row.internal)} {cell(row.overhead)}")
    g1 = [n for n in recorder.names() if n.startswith("msm_") and n.endswith("_g1")]
    g2_window = recorder.window("msm_b_g2")
    if g2_window is not None:
        g2 = g2_window[1] - g2_window[0]
        lines.append(
            f"B_G2 ran {g2 * 1e3:.2f} ms, of which {overlap_seconds(recorder, 'msm_b_g2', [*g1, 'h']) * 1e3:.2f} ms "
            "overlapped H and the G1 MSMs"
        )
    prove_spans = [sp for sp in recorder.spans if sp.name == total and sp.level == "engine"]
    if prove_spans:
        whole = sum(sp.seconds for sp in prove_spans)
        main = {sp.thread for sp in prove_spans}
        compute = 0.0
        for name in recorder.names("backend"):
            level = "internal" if recorder.seconds(name, "internal") else "backend"
            compute += sum(
                sp.seconds for sp in recorder.spans if sp.name == name and sp.level == level and sp.thread in main
            )
        waiting = recorder.seconds("wait_b_g2")
        overhead = max(0.0, whole - compute - waiting)
        lines.append(
            f"{total}: {whole * 1e3:.2f} ms = backend compute {compute * 1e3:.2f} ms + waiting for B_G2 "
            f"{waiting * 1e3:.2f} ms + engine overhead {overhead * 1e3:.2f} ms ({overhead / whole:.0%})"
        )
    return lines
