"""The engine's timed calls place a backend's kernel intervals inside the call that ran them: a device's clock is
tied to the host's with an error (a marker's round trip, long on a loaded machine), so intervals that overhang the
call are moved into it, whole, rather than dropped; intervals inside it stay where they are."""

from __future__ import annotations

import time

import pytest

from cuzk.backends.protocol import TIMINGS
from cuzk.engine.calls import TimedCalls
from cuzk.engine.timing import Recorder


class SkewedClock:
    """A backend whose last call's kernels are reported ``skew`` seconds off the host's clock."""

    name = "skewed"
    capabilities = frozenset({TIMINGS})

    def __init__(self, skew: float) -> None:
        self.skew = skew
        self.intervals: list[tuple[float, float]] = []

    def run(self) -> None:
        """Two kernels of 2 ms each, one after the other, in a call of about 8 ms."""
        time.sleep(0.002)
        start = time.perf_counter()
        time.sleep(0.004)
        middle = time.perf_counter()
        kernels = [(start, start + 0.001), (middle, middle + 0.002)]
        self.intervals = [(a + self.skew, b + self.skew) for a, b in kernels]
        time.sleep(0.004)

    def last_internal_intervals(self) -> list[tuple[float, float]]:
        return self.intervals


@pytest.mark.parametrize("skew", [0.0, 0.5, -0.5, 0.003, -0.003])
def test_kernel_intervals_lie_inside_their_call(skew: float) -> None:
    recorder = Recorder()
    backend = SkewedClock(skew)
    with TimedCalls(recorder).timed(backend, "qap_evaluations"):  # type: ignore[arg-type]
        backend.run()
    (call,) = [s for s in recorder.spans if s.level == "backend"]
    internal = [s for s in recorder.spans if s.level == "internal"]
    assert len(internal) == 2, "both kernels are in the call's timings"
    assert all(call.start <= s.start <= s.end <= call.end for s in internal)
    assert [s.end - s.start for s in internal] == pytest.approx([0.001, 0.002], abs=1e-9)
    gap = internal[1].start - internal[0].start
    assert gap == pytest.approx(backend.intervals[1][0] - backend.intervals[0][0], abs=1e-9), "moved whole"
    if skew == 0.0:
        placed = [t + recorder.origin for s in internal for t in (s.start, s.end)]
        reported = [t for interval in backend.intervals for t in interval]
        assert placed == pytest.approx(reported, abs=1e-9), "intervals inside the call stay put"
