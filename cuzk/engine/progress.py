"""The engine's progress interface: what a display of a long run is told, and the display that shows nothing.

The engine reports to a :class:`Progress`: it attaches the display to its :class:`~cuzk.engine.timing.Recorder`
(:meth:`Progress.attach`: every phase that starts, ``msm_l_g1``, ``compute_h``, …, can become the current phase),
names the steps outside the proofs (:meth:`Progress.step`) and counts the proofs (:meth:`Progress.proof_done`).
:class:`NullProgress` is the default. The live display (rich's progress bar, shown only on a terminal) belongs to
the command line, :mod:`cuzk.cli.progress`, so the engine runs with numpy and numba alone.
"""

from __future__ import annotations

from types import TracebackType

from cuzk.engine.timing import Recorder


class Progress:
    """The display's interface; this base class shows nothing."""

    enabled = False

    def __enter__(self) -> Progress:
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None, tb: TracebackType | None) -> None:
        self.close()

    def attach(self, recorder: Recorder) -> None:
        """Follow the phases the engine records (a no-op for a disabled display)."""

    def step(self, text: str) -> None:
        """Show ``text`` as the current step (setup, key preparation, …)."""

    def proof_done(self) -> None:
        """One more proof is finished."""

    def close(self) -> None:
        """Stop the display (and leave the terminal as it was)."""


class NullProgress(Progress):
    """No display: output that is not a terminal, ``--quiet``, or no rich."""


__all__ = ["NullProgress", "Progress"]
