"""Timings at every level, the lesson of the seed engine: know where every second goes.

The seed's GPU wrapper reported 37 s where the CUDA kernels took 25.5 s; the gap (data marshalling, allocation,
serial glue) was invisible until both levels were printed side by side. cuzk records each phase at three levels:

    engine    the engine's wall clock around the phase, conversions and glue included
    backend   the wall clock around the backend call alone
    internal  the time the backend reports for its own compute (device events on a GPU, the compiled kernel on
              the CPU); absent when the backend does not measure it

A call that runs several MSMs at once (``msm_batch``: the four G1 MSMs of a proof on a GPU backend, phase
``msm_batch_g1``) may also report each one's compute time: internal spans named after the MSMs (``msm_a_g1`` …) with
``part_of`` the call's phase, shown in the table as rows of their own under it, with an internal time only.

Overhead, precisely. Per phase (a row of the table), *overhead = engine − internal* (engine − backend when the
backend reports no internal time): the wrapper's time outside the kernels. For the proof as a whole the phases
cannot simply be summed, because they run concurrently: the B_G2 MSM runs on its own thread beside H and the G1
MSMs, and on a CPU backend they share the cores, so a phase's wrapper also holds the time its kernels wait for
cores busy with another phase's kernels — compute, not overhead. The total's overhead is therefore

    overhead = T − |⋃ compute spans|       (T: the wall time of the ``prove`` spans)

the seconds of the proof in which no backend kernel ran on any thread: conversions, validation, glue, the
assembly's Python, waits. The compute spans are the internal spans (the backend spans of the calls whose backend
reports no internal time), clipped to the ``prove`` spans. For a proof whose phases run one after another on one
thread this is Σ (engine − internal) over its phases plus the time between them; with B_G2 beside the rest it is
smaller than that sum, by the waiting for cores and by the glue hidden under the other thread's kernels.
:func:`overhead_gaps` lists it as stretches between compute spans, and the table names the longest ("1.19 ms
before msm_b_g2": the time from the proof's start to B_G2's first kernel).

Spans are recorded by a :class:`Recorder` shared by every thread of a proof; :func:`chrome_trace` writes them as a
Chrome-trace JSON file (open it in Perfetto, ui.perfetto.dev, or chrome://tracing), one row per thread. Listeners
(:meth:`Recorder.listen`, e.g. the progress display) hear every engine-level span as it starts.
"""

from __future__ import annotations

import json
import os
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from cuzk.backends.intervals import union_seconds
from cuzk.formats.outputs import write_atomic

LEVELS = ("engine", "backend", "internal")
GAPS_LISTED = 4  # the --timings table names the longest stretches of overhead


@dataclass(slots=True)  # not frozen: a frozen dataclass is made 4× slower, and a backend call records hundreds
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
    """A thread-safe list of spans for one or more proofs.

    With ``limit`` it keeps about the latest ``limit`` spans (the oldest are dropped in batches, counted in
    ``dropped``), so that a long-running prover's memory stays flat; without, it keeps every span. ``mark()`` and
    ``since(mark)`` give the spans added after a point whatever was dropped meanwhile.
    """

    def __init__(self, limit: int | None = None, *, origin: float | None = None) -> None:
        """``origin``: the ``time.perf_counter()`` value spans are measured from (default: now)."""
        self._lock = threading.Lock()
        self.spans: list[Span] = []
        self.limit = limit
        self.dropped = 0
        self.origin = time.perf_counter() if origin is None else origin
        self._listeners: list[Callable[[str, dict[str, Any]], None]] = []

    def listen(self, listener: Callable[[str, dict[str, Any]], None]) -> None:
        """Call ``listener(name, args)`` whenever an engine-level span starts (on the thread that starts it)."""
        self._listeners.append(listener)

    def add(self, name: str, level: str, start: float, end: float, **args: Any) -> None:
        self.add_all([(name, level, start, end, args)])

    def add_all(self, entries: Iterable[tuple[str, str, float, float, dict[str, Any]]]) -> None:
        """Spans (name, level, start, end, args) of the calling thread, ``perf_counter`` seconds, in one go (a
        backend call's internal spans: one lock and one lookup of the thread for all)."""
        thread, origin = threading.current_thread().name, self.origin
        spans = [
            Span(name, level, start - origin, end - origin, thread, args) for name, level, start, end, args in entries
        ]
        for span in spans:
            if span.level not in LEVELS:
                raise ValueError(f"unknown timing level {span.level!r}; expected one of {LEVELS}")
        with self._lock:
            self.spans.extend(spans)
            if self.limit is not None and len(self.spans) > self.limit + self.limit // 4:
                excess = len(self.spans) - self.limit
                del self.spans[:excess]
                self.dropped += excess

    def mark(self) -> int:
        """A position in the stream of spans: how many were ever added."""
        with self._lock:
            return self.dropped + len(self.spans)

    def since(self, mark: int) -> list[Span]:
        """The spans added after ``mark`` that are still kept."""
        with self._lock:
            return self.spans[max(0, mark - self.dropped) :]

    @contextmanager
    def span(self, name: str, level: str = "engine", **args: Any) -> Iterator[None]:
        for listener in self._listeners:
            listener(name, args)
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

    def between(self, start: float, end: float) -> Recorder:
        """A recorder of the spans that lie within [start, end] (seconds since this recorder's origin), e.g. one
        proof's out of a run of several."""
        part = Recorder()
        part.origin = self.origin
        with self._lock:
            part.spans = [s for s in self.spans if s.start >= start and s.end <= end]
        return part

    def window(self, name: str, level: str = "engine") -> tuple[float, float] | None:
        """(first start, last end) of the spans called ``name``, or None."""
        spans = [s for s in self.spans if s.name == name and s.level == level]
        return (min(s.start for s in spans), max(s.end for s in spans)) if spans else None


def process_start() -> float | None:
    """When this process started, as a ``time.perf_counter()`` value (from /proc, to 10 ms); None where unknown."""
    try:
        with open("/proc/self/stat", encoding="ascii") as stat:
            fields = stat.read().rsplit(")", 1)[1].split()
        with open("/proc/uptime", encoding="ascii") as uptime:
            now = float(uptime.read().split()[0])
        age = now - int(fields[19]) / os.sysconf("SC_CLK_TCK")  # field 22 of stat: the start, in ticks after boot
    except (OSError, ValueError, IndexError):
        return None
    return time.perf_counter() - age if age >= 0 else None


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
    write_atomic(out, json.dumps({"traceEvents": events, "displayTimeUnit": "ms"}, indent=1))
    return out


@dataclass(frozen=True)
class PhaseRow:
    """One line of the timings table: a phase, or (``part_of`` set) one part of a phase's batch call, which has an
    internal time only."""

    phase: str
    engine: float | None
    backend: float | None
    internal: float | None
    part_of: str | None = None

    @property
    def overhead(self) -> float | None:
        if self.engine is None:
            return None
        inner = self.internal if self.internal is not None else self.backend
        return self.engine - inner if inner is not None else 0.0


def phase_rows(recorder: Recorder) -> list[PhaseRow]:
    """One row per engine-level phase, with the backend and internal seconds recorded under the same name, each
    followed by the rows of its parts (internal spans ``part_of`` it), in the order they started."""
    rows = []
    for name in recorder.names("engine"):
        backend = [s for s in recorder.spans if s.name == name and s.level == "backend"]
        internal = [s for s in recorder.spans if s.name == name and s.level == "internal" and "part_of" not in s.args]
        reported = internal or any(s.args.get("internal") for s in backend)  # a call without kernels reports none
        rows.append(
            PhaseRow(
                name,
                recorder.seconds(name),
                sum(s.seconds for s in backend) if backend else None,
                sum(s.seconds for s in internal) if reported else None,
            )
        )
        parts: dict[str, float] = {}
        for s in sorted(recorder.spans, key=lambda s: s.start):
            if s.level == "internal" and s.args.get("part_of") == name:
                parts[s.name] = parts.get(s.name, 0.0) + s.seconds
        rows.extend(PhaseRow(part, None, None, seconds, part_of=name) for part, seconds in parts.items())
    return rows


def overlap_seconds(recorder: Recorder, a: str, b_names: list[str]) -> float:
    """How long the span(s) ``a`` ran at the same time as any of ``b_names`` (engine level; the ``b_names`` spans
    are taken not to overlap each other, as the phases of one thread do)."""
    total = 0.0
    for sa in recorder.spans:
        if sa.level == "engine" and sa.name == a:
            for s in recorder.spans:
                if s.level == "engine" and s.name in b_names:
                    total += max(0.0, min(sa.end, s.end) - max(sa.start, s.start))
    return total


def compute_spans(recorder: Recorder) -> list[Span]:
    """The spans in which a backend computed: every internal span, and the backend span of each call whose
    backend reported no internal time (recorded with ``internal=False``)."""
    return [
        s
        for s in recorder.spans
        if s.level == "internal" or (s.level == "backend" and not s.args.get("internal", False))
    ]


@dataclass(frozen=True)
class Overhead:
    """The total of the ``prove`` spans split into backend compute and engine overhead (see the module doc)."""

    total: float
    compute: float

    @property
    def overhead(self) -> float:
        return max(0.0, self.total - self.compute)

    @property
    def fraction(self) -> float:
        return self.overhead / self.total if self.total > 0 else 0.0


def overhead(recorder: Recorder, *, total: str = "prove") -> Overhead | None:
    """T (the wall time of the ``total`` spans) and the seconds within them in which some backend kernel ran on
    some thread; None when no ``total`` span was recorded."""
    outer = [s for s in recorder.spans if s.name == total and s.level == "engine"]
    if not outer:
        return None
    compute = compute_spans(recorder)
    clipped = [(start, end) for o in outer for start, end, _ in _clipped(compute, o)]
    return Overhead(sum(o.seconds for o in outer), union_seconds(clipped))


def _clipped(compute: list[Span], outer: Span) -> list[tuple[float, float, str]]:
    """The compute spans that overlap ``outer``, cut to it, as (start, end, name) in order."""
    return sorted(
        (max(c.start, outer.start), min(c.end, outer.end), c.name)
        for c in compute
        if c.start < outer.end and outer.start < c.end
    )


@dataclass(frozen=True)
class Gap:
    """A stretch of a proof in which no backend computed (seconds on the recorder's clock, as its spans), between
    the compute spans ``before`` and ``after`` (None at the proof's start or end)."""

    start: float
    end: float
    before: str | None
    after: str | None

    @property
    def seconds(self) -> float:
        return self.end - self.start

    def label(self) -> str:
        if self.before is None:
            return f"before {self.after}" if self.after is not None else "the whole proof"
        return f"after {self.before}" if self.after is None else f"{self.before} → {self.after}"


def overhead_gaps(recorder: Recorder, *, total: str = "prove") -> list[Gap]:
    """Where :func:`overhead` lies: the stretches of the ``total`` spans outside every compute span, in order, each
    named by the compute spans on either side. Their lengths sum to the overhead."""
    gaps: list[Gap] = []
    compute = compute_spans(recorder)
    for outer in (s for s in recorder.spans if s.name == total and s.level == "engine"):
        covered_to, last = outer.start, None
        for start, end, name in _clipped(compute, outer):
            if start > covered_to:
                gaps.append(Gap(covered_to, start, last, name))
            if end > covered_to:
                covered_to, last = end, name
        if outer.end > covered_to:
            gaps.append(Gap(covered_to, outer.end, last, None))
    return gaps


def _inside(recorder: Recorder, name: str, total: str) -> bool:
    """Whether every engine span ``name`` lies within some ``total`` span (a phase of the proof)."""
    outer = [(s.start, s.end) for s in recorder.spans if s.name == total and s.level == "engine"]
    spans = [s for s in recorder.spans if s.name == name and s.level == "engine"]
    return bool(outer) and all(any(a <= s.start and s.end <= b for a, b in outer) for s in spans)


def timings_table(recorder: Recorder, *, total: str = "prove") -> list[str]:
    """The ``--timings`` table: each phase at the three levels with its overhead (engine − internal), the B_G2
    overlap, and the total split into backend compute and engine overhead (the definition in the module doc).

    Phases of the proof (inside the ``total`` spans) are indented under it, the parts of a batch call under its
    phase; nested phases (``h`` holds ``compute_h``) are listed as recorded. Phases outside the total (preparing
    the key, synthesis, the witness's evaluation, the self-check) are listed unindented and count in neither side
    of the summary.
    """

    def cell(x: float | None) -> str:
        return f"{x * 1e3:10.2f}" if x is not None else f"{'-':>10}"

    lines = [f"{'phase':<20}{'engine ms':>10}{'backend ms':>11}{'internal ms':>12}{'overhead ms':>12}"]
    for row in phase_rows(recorder):
        phase = row.part_of or row.phase
        indent = 1 if phase != total and _inside(recorder, phase, total) else 0
        label = "  " * (indent + (row.part_of is not None)) + row.phase
        lines.append(f"{label:<20}{cell(row.engine)}{cell(row.backend)} {cell(row.internal)} {cell(row.overhead)}")
    g1 = [n for n in recorder.names() if n.startswith("msm_") and n.endswith("_g1")]
    g2_window = recorder.window("msm_b_g2")
    if g2_window is not None:
        g2 = recorder.seconds("msm_b_g2")
        lines.append(
            f"B_G2 ran {g2 * 1e3:.2f} ms, of which {overlap_seconds(recorder, 'msm_b_g2', [*g1, 'h']) * 1e3:.2f} ms "
            "overlapped H and the G1 MSMs"
        )
    split = overhead(recorder, total=total)
    if split is not None:
        lines.append(
            f"{total}: {split.total * 1e3:.2f} ms = backend compute {split.compute * 1e3:.2f} ms + engine overhead "
            f"{split.overhead * 1e3:.2f} ms ({split.fraction:.1%})"
        )
        lines.append(
            "  overhead: the time of the proof in which no backend kernel ran on any thread (T − |∪ internal "
            "spans|); a row's overhead is its engine − internal, which also counts waiting for cores that "
            "another phase's kernels hold"
        )
        largest = sorted(overhead_gaps(recorder, total=total), key=lambda gap: -gap.seconds)[:GAPS_LISTED]
        if largest:
            listed = "; ".join(f"{gap.seconds * 1e3:.2f} ms {gap.label()}" for gap in largest)
            lines.append(f"  largest gaps: {listed}")
    return lines
