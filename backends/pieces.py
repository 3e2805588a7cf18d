"""Passes over a large array's rows in pieces, on threads: numpy lets go of the GIL inside its loops, so a pass over
a key's sections or records (hundreds of megabytes) runs at the memory's speed rather than one core's."""

from __future__ import annotations

import os
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor

PIECE_THREADS = 8  # threads of one pass, at most: beyond, such passes are bound by the memory's bandwidth


def over_pieces(n: int, piece: int, work: Callable[[int, int], None]) -> None:
    """``work(start, stop)`` for each piece of ``piece`` rows of n rows (the pieces are disjoint, so ``work`` may
    write its rows of a shared output): on up to PIECE_THREADS threads when there are several, else here."""
    starts = range(0, n, piece)
    workers = min(os.cpu_count() or 1, PIECE_THREADS, len(starts))
    if workers <= 1:
        for start in starts:
            work(start, min(n, start + piece))
        return
    with ThreadPoolExecutor(max_workers=workers, thread_name_prefix="cuzk-pieces") as pool:
        list(pool.map(lambda start: work(start, min(n, start + piece)), starts))


__all__ = ["PIECE_THREADS", "over_pieces"]
