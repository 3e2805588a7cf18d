"""The CUDA clock (:mod:`cuzk.backends.cuda.clock`) over a stand-in for CuPy's events whose device time is the host's
own shifted by an unknown constant, as a GPU's timer is: a trace's intervals come back on the host's clock, each
trace measured from the anchor current at its first launch, also when a newer anchor is taken before it is read."""

from __future__ import annotations

import time
from contextlib import nullcontext
from types import SimpleNamespace

import pytest

from cuzk.backends.cuda import clock as clock_module
from cuzk.backends.cuda.clock import EventClock

SHIFT = 1234.5  # seconds between the stand-in device's timer and time.perf_counter


class Event:
    """Passed when recorded (an idle stream), stamped with the device's timer."""

    def __init__(self) -> None:
        self.at: float | None = None

    def record(self, stream: object = None) -> None:
        self.at = time.perf_counter() + SHIFT

    def synchronize(self) -> None:
        assert self.at is not None


def elapsed_ms(a: Event, b: Event) -> float:
    assert a.at is not None and b.at is not None
    return (b.at - a.at) * 1e3


FAKE_CP = SimpleNamespace(cuda=SimpleNamespace(Event=Event, Stream=lambda **_: None, get_elapsed_time=elapsed_ms))


def launch(clock: EventClock, trace: list[tuple[str, Event, Event]], seconds: float) -> tuple[float, float]:
    """A kernel of ``seconds`` appended to ``trace``; its true host interval."""
    start, end = Event(), Event()
    if not trace:
        clock.opened(start)
    start.record()
    begin = time.perf_counter()
    time.sleep(seconds)
    end.record()
    trace.append(("kernel", start, end))
    return begin, time.perf_counter()


def test_intervals_are_the_kernels_host_times() -> None:
    clock = EventClock(FAKE_CP, nullcontext())
    trace: list[tuple[str, Event, Event]] = []
    truth = [launch(clock, trace, 0.002) for _ in range(3)]
    got = clock.intervals(trace)
    assert got is not None and len(got) == 3
    for (start, end), (true_start, true_end) in zip(got, truth, strict=True):
        assert start == pytest.approx(true_start, abs=5e-3) and end == pytest.approx(true_end, abs=5e-3)
    assert clock.intervals([]) == []
    assert clock.intervals(trace) is None  # read once: its anchor is forgotten


def test_a_trace_keeps_its_anchor_when_a_newer_one_is_taken(monkeypatch: pytest.MonkeyPatch) -> None:
    clock = EventClock(FAKE_CP, nullcontext())
    first: list[tuple[str, Event, Event]] = []
    truth = launch(clock, first, 0.001)
    old = clock._anchor
    monkeypatch.setattr(clock_module, "ANCHOR_SECONDS", 0.0)  # the next trace ties the clocks again
    second: list[tuple[str, Event, Event]] = []
    launch(clock, second, 0.001)
    assert clock._anchor is not old
    got = clock.intervals(first)
    assert got is not None and got[0][0] == pytest.approx(truth[0], abs=5e-3)
    assert clock._traces == {id(second[0][1]): clock._anchor}
