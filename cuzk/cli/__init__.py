"""The ``cuzk`` command line: one module per command group, put together by :func:`build_parser`.

    cuzk info                                   every registered backend: available or not and why   (info)
    cuzk walkthrough [--curve toy|bn254|…]      Groth16 on x³ + x + 5 = 35, every intermediate      (walkthrough)
    cuzk prove [--circuit mimc] [--constraints N] [--curve bn254] [--backend NAME] [--proofs K]
               [--timings] [--trace FILE] [--verify] [--quiet] [--device I] [--threads T] [--window C]
                                                setup, prove and verify a circuit of the project     (prove)
    cuzk bench [--backend NAME] [--msm 10-18] [--msm-g2 10-16] [--ntt 10-20] [--threads T]
                                                MSM/NTT medians of a backend                          (bench)
    cuzk groth16 prove|verify|setup …           snarkjs's Groth16 commands, on any backend            (groth16)
    cuzk zkey export verificationkey|bellman …  the verifying key of a .zkey                          (zkey)
    cuzk zkey contribute|beacon|verify …        phase-2 contributions, as snarkjs's                   (zkey)
    cuzk wtns check …                           a witness against its .r1cs                           (wtns)
    cuzk powersoftau prepare phase2 IN OUT      a ptau's Lagrange sections, as snarkjs                (powersoftau)
    cuzk serve --keys DIR [--port 8080] …       a long-lived proving service over HTTP               (serve)

The snarkjs-compatible commands (groth16, zkey, wtns) are described in docs/interop.md; the options several
commands share are in :mod:`.options`, the progress display of ``cuzk prove`` in :mod:`.progress`. Errors that a
user can cause (a bad option or file, an unavailable backend, a bad ``CUZK_*`` or ``NUMBA_NUM_THREADS`` value: every
one is read before the command starts, :mod:`cuzk.backends.env`) print one line and exit with status 2; they never
print a traceback. Ctrl-C and SIGTERM unwind the command (its ``finally`` blocks run) and end it with one line,
``cuzk prove: interrupted``, and status 130 or 143. When ``auto`` had to skip a faster backend (no GPU here), the
command prints one line on stderr, ``cuzk: using the cpu backend (cuda: cupy is not installed)``, not the warning's
file and source line; ``--backend`` or ``CUZK_BACKEND`` silences it. ``python -m cuzk.cli …`` runs the same
command line. The process ends as soon as the command returns (:func:`run`): its files are written and closed by
then, and the interpreter's own teardown (the device's memory pools and context, idle worker threads) is left to
the operating system.
"""

from __future__ import annotations

import _thread
import argparse
import os
import signal
import sys
import threading
import warnings
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager, suppress
from types import FrameType
from typing import Any, NoReturn, TextIO

from cuzk.backends.env import check_environment
from cuzk.backends.errors import BackendFallbackWarning
from cuzk.cli import bench, groth16, info, powersoftau, prove, serve, walkthrough, wtns, zkey
from cuzk.reference.errors import CuzkError

COMMAND_GROUPS = (info, walkthrough, prove, bench, groth16, zkey, wtns, powersoftau, serve)


def build_parser() -> argparse.ArgumentParser:
    """The parser of every command; each parsed command carries its function as ``args.run``."""
    parser = argparse.ArgumentParser(prog="cuzk", description="A Groth16 proving engine with a readable reference.")
    subparsers = parser.add_subparsers(dest="command", required=True)
    for group in COMMAND_GROUPS:
        group.add_parser(subparsers)
    return parser


class Terminated(BaseException):
    """SIGTERM arrived: raised in the main thread by the handler :func:`main` installs, so that it unwinds the
    command like Ctrl-C's KeyboardInterrupt does (``finally`` blocks and context managers run; no output file is
    left half written) and ends with one line and status 143. A BaseException, as KeyboardInterrupt: no
    ``except Exception`` of the engine swallows it."""


EXIT_INTERRUPTED, EXIT_TERMINATED = 128 + signal.SIGINT, 128 + signal.SIGTERM  # 130, 143: the shells' convention
REDELIVERY = 0.05  # seconds after which an interrupt that Python had to drop is delivered again


def main(argv: Sequence[str] | None = None) -> int:
    """Run one command; its exit status: 0 success, 1 a failed check, 2 a user's error (a bad option, file or
    environment variable: every CUZK_* variable is read first), 130 after Ctrl-C, 143 after SIGTERM. Each failure
    is one line on stderr, never a traceback."""
    with _signals(), warnings.catch_warnings():
        warnings.showwarning = _one_line_fallback(warnings.showwarning)
        who = "cuzk"  # the start of each line of this command on stderr
        try:
            args = build_parser().parse_args(argv)
            who = f"cuzk {args.command}"
            check_environment()
            return int(args.run(args))
        except CuzkError as error:
            print(f"{who}: {error}", file=sys.stderr)
            return 2
        except KeyboardInterrupt:
            return _stopped(who, "interrupted", EXIT_INTERRUPTED)
        except Terminated:
            return _stopped(who, "terminated (SIGTERM)", EXIT_TERMINATED)


def run(argv: Sequence[str] | None = None) -> NoReturn:
    """The ``cuzk`` console script and ``python -m cuzk.cli``: :func:`main`, then the process ends at once with its
    status, stdout and stderr flushed. When main returns, the command's outputs are written (atomically) and closed
    and its threads idle; what the interpreter would still do — free each of CuPy's device and pinned buffers, tear
    down the device's context, collect every object, join idle worker threads — the operating system does in one go
    when the process ends, and faster (docs/performance.md: the exit of a GPU proof's process). A background
    warm-up started for later processes is a process of its own and goes on. The process exits as usual under a
    profiler or a tracer (cProfile, coverage: they write their reports at the exit) and after a command that used
    multiprocessing (``cuzk prove``'s witness process: its finalizers release named semaphores and join helper
    processes); after Ctrl-C or SIGTERM a finalizer's failure on the way out is not printed (the command's one line
    is the last). Library callers use :func:`main`."""
    status = main(argv)
    if status in (EXIT_INTERRUPTED, EXIT_TERMINATED):
        # the signal may have stopped a library half-way through building an object (llvmlite's PassBuilder in a
        # compile); its finalizer fails at the exit, after the command's one line: nothing more is said
        sys.unraisablehook = lambda unraisable: None
    if _observed() or "multiprocessing" in sys.modules:  # their work at the exit is needed: see the docstring
        sys.exit(status)
    for stream in (sys.stdout, sys.stderr):
        with suppress(OSError, ValueError):  # a closed pipe or stream: nothing more can reach it
            stream.flush()
    os._exit(status)


def _observed() -> bool:
    """Whether a profiler or tracer watches this process: sys.setprofile/settrace, or (Python 3.12+) a tool
    registered with sys.monitoring, as cProfile is there."""
    if sys.getprofile() is not None or sys.gettrace() is not None:
        return True
    monitoring = getattr(sys, "monitoring", None)
    return monitoring is not None and any(monitoring.get_tool(tool) is not None for tool in range(6))


def _stopped(who: str, how: str, status: int) -> int:
    """After Ctrl-C or SIGTERM, the command unwound: say so in one line and return ``status``. A second signal
    from now on ends the process at once, by the system's default action (no traceback from the threads Python
    joins on its way out)."""
    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGINT, signal.SIG_DFL)
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
    print(f"{who}: {how}", file=sys.stderr, flush=True)
    # CPython marks a KeyboardInterrupt that ends an exec() of a string (dataclasses make their methods so, in a
    # module imported lazily) as never handled and then kills the process by SIGINT, whatever main returned (status
    # -2, not 130); an exec() of a string that completes clears that mark.
    exec("None", {})
    return status


@contextmanager
def _signals() -> Iterator[None]:
    """SIGTERM raises :class:`Terminated` in the main thread while a command runs (Python's default kills the
    process without unwinding it); the previous handler comes back after, unless :func:`_stopped` set the system
    default. Outside the main thread (main() called from another thread) signals cannot be handled: nothing is
    installed."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous, previous_hook = signal.signal(signal.SIGTERM, _raise_terminated), sys.unraisablehook
    sys.unraisablehook = _redelivering(previous_hook)
    try:
        yield
    finally:
        sys.unraisablehook = previous_hook
        if signal.getsignal(signal.SIGTERM) is _raise_terminated and previous is not None:
            signal.signal(signal.SIGTERM, previous)


def _redelivering(previous: Callable[[Any], object]) -> Callable[[Any], object]:
    """A ``sys.unraisablehook`` that hands an interrupt Python could not raise back to the main thread.

    An exception raised in a callback called from C (numba compiles through llvmlite, whose object cache calls
    back into Python through ctypes) or in a finalizer cannot propagate: Python prints "Exception ignored …" with
    a traceback and goes on, so a Ctrl-C during a compilation was lost and the command ran to its end. This hook
    prints nothing for KeyboardInterrupt and Terminated and delivers the signal again REDELIVERY seconds later,
    from another thread (delivered at once, it would be raised in this hook, itself such a callback), to be
    raised at the main thread's Python line of that moment (again, if that one is in a callback too); every other
    exception goes to ``previous``."""

    def hook(unraisable: Any) -> None:
        kinds = {KeyboardInterrupt: signal.SIGINT, Terminated: signal.SIGTERM}
        signum = next((kinds[kind] for kind in kinds if issubclass(unraisable.exc_type, kind)), None)
        if signum is None:
            previous(unraisable)
            return
        timer = threading.Timer(REDELIVERY, _thread.interrupt_main, args=(signum,))
        timer.daemon = True
        timer.start()

    return hook


def _raise_terminated(signum: int, frame: FrameType | None) -> None:
    raise Terminated


def _one_line_fallback(show: Any) -> Any:
    """A ``warnings.showwarning`` that prints a BackendFallbackWarning as ``cuzk: <message>`` on stderr (the stderr
    of the moment: above a live progress display, which redirects it) and hands every other warning to ``show``."""

    def showwarning(
        message: Warning | str,
        category: type[Warning],
        filename: str,
        lineno: int,
        file: TextIO | None = None,
        line: str | None = None,
    ) -> None:
        if issubclass(category, BackendFallbackWarning):
            print(f"cuzk: {message}", file=sys.stderr)
        else:
            show(message, category, filename, lineno, file, line)

    return showwarning


__all__ = ["EXIT_INTERRUPTED", "EXIT_TERMINATED", "Terminated", "build_parser", "main", "run"]
