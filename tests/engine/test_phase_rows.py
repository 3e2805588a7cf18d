"""The timings table's rows (:func:`cuzk.engine.timing.phase_rows`): a phase's internal time is what its backend
reported — the sum of its kernels' spans, none at all when a call that reports its kernels ran none (an upload:
all of it overhead) — and the backend's own time stands in only for a backend that reports nothing."""

from __future__ import annotations

import pytest

from cuzk.engine.timing import Recorder, phase_rows


def recorded(reports: bool, kernels: list[tuple[float, float]]) -> Recorder:
    recorder = Recorder()
    o = recorder.origin
    recorder.add("phase", "engine", o, o + 1.0)
    recorder.add("phase", "backend", o + 0.1, o + 0.9, internal=reports)
    for start, end in kernels:
        recorder.add("phase", "internal", o + start, o + end)
    return recorder


@pytest.mark.parametrize(
    ("reports", "kernels", "internal", "overhead"),
    [
        (True, [(0.2, 0.5), (0.5, 0.6)], 0.4, 0.6),  # kernels: the rest of the phase is overhead
        (True, [], 0.0, 1.0),  # a call that reports its kernels ran none: all of the phase is overhead
        (False, [], None, 0.2),  # a backend that reports nothing: its call's time is taken as compute
    ],
)
def test_a_phase_counts_the_kernels_its_backend_reported(
    reports: bool, kernels: list[tuple[float, float]], internal: float | None, overhead: float
) -> None:
    (row,) = phase_rows(recorded(reports, kernels))
    assert row.phase == "phase" and row.engine == pytest.approx(1.0) and row.backend == pytest.approx(0.8)
    assert row.internal == (None if internal is None else pytest.approx(internal))
    assert row.overhead == pytest.approx(overhead)
