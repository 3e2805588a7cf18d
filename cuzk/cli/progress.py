"""The live progress display of ``cuzk prove``: proofs done out of the total, the phase being computed, the time.

:func:`progress_display` gives a :class:`RichProgress` when the output is a terminal (or when forced) and rich can
be imported, else the engine's :class:`~cuzk.engine.progress.NullProgress`, which does nothing: redirected output
(logs, CI, pipes) and ``--quiet`` stay free of control sequences, and rich is imported only here, and only when a
display is wanted.

A display follows the engine through its :class:`~cuzk.engine.timing.Recorder` (:meth:`RichProgress.attach`): every
phase that starts (``msm_l_g1``, ``compute_h``, …) becomes the current phase; the engine counts the proofs.
"""

from __future__ import annotations

import sys
import threading
from typing import Any, TextIO

from cuzk.engine.progress import NullProgress, Progress
from cuzk.engine.timing import Recorder

QUIET_PHASES = frozenset({"witness_to_limbs", "wait_b_g2", "h"})  # too short or too generic to be worth a line


class RichProgress(Progress):
    """A rich progress bar: ``proofs ━━━━━━━╸━━━ 3/8 0:00:12 msm_l_g1 (n=62043)``; transient (erased when done)."""

    enabled = True

    def __init__(self, total: int, *, stream: TextIO, force_terminal: bool = False) -> None:
        from rich.console import Console
        from rich.progress import (
            BarColumn,
            MofNCompleteColumn,
            SpinnerColumn,
            TextColumn,
            TimeElapsedColumn,
        )
        from rich.progress import Progress as RichBar

        console = Console(file=stream, force_terminal=True if force_terminal else None)
        self._bar = RichBar(
            SpinnerColumn(),
            TextColumn("[bold]proofs"),
            BarColumn(),
            MofNCompleteColumn(),
            TimeElapsedColumn(),
            TextColumn("{task.fields[phase]}"),
            console=console,
            transient=True,
            refresh_per_second=8,
        )
        self._task = self._bar.add_task("proofs", total=total, phase="")
        self._lock = threading.Lock()
        self._closed = False
        self._bar.start()

    def attach(self, recorder: Recorder) -> None:
        recorder.listen(self._on_span)

    def _on_span(self, name: str, args: dict[str, Any]) -> None:
        if name in QUIET_PHASES or self._closed:
            return
        detail = f" (n={args['n']})" if "n" in args else ""
        self.step(name + detail)

    def step(self, text: str) -> None:
        with self._lock:
            if not self._closed:
                self._bar.update(self._task, phase=text)

    def proof_done(self) -> None:
        with self._lock:
            if not self._closed:
                self._bar.advance(self._task)

    def close(self) -> None:
        with self._lock:
            if not self._closed:
                self._closed = True
                self._bar.stop()


def progress_display(total: int, *, quiet: bool = False, stream: TextIO | None = None, force: bool = False) -> Progress:
    """A display of ``total`` proofs on ``stream`` (default stdout): rich's when ``stream`` is a terminal or
    ``force`` is set, and not ``quiet``; otherwise (or when rich cannot be imported) a :class:`NullProgress`."""
    out = sys.stdout if stream is None else stream
    if quiet:
        return NullProgress()
    if not force:
        isatty = getattr(out, "isatty", None)
        if not (callable(isatty) and isatty()):
            return NullProgress()
    try:
        return RichProgress(total, stream=out, force_terminal=force)
    except ImportError:
        return NullProgress()


__all__ = ["QUIET_PHASES", "RichProgress", "progress_display"]
