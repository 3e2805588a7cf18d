"""Intervals of ``time.perf_counter()`` seconds, as the TIMINGS capability reports a call's compute: their union."""

from __future__ import annotations

from collections.abc import Iterable


def merge(intervals: Iterable[tuple[float, float]]) -> list[tuple[float, float]]:
    """The union of the intervals (start, end) as disjoint intervals, in order."""
    merged: list[tuple[float, float]] = []
    for start, end in sorted(intervals):
        if merged and start <= merged[-1][1]:
            if end > merged[-1][1]:
                merged[-1] = (merged[-1][0], end)
        else:
            merged.append((start, end))
    return merged


def union_seconds(intervals: Iterable[tuple[float, float]]) -> float:
    """The total length of the union of the intervals (start, end)."""
    return sum(end - start for start, end in merge(intervals))


__all__ = ["merge", "union_seconds"]
