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
    cuzk wtns check …                           a witness against its .r1cs                           (wtns)

The snarkjs-compatible commands (groth16, zkey, wtns) are described in docs/interop.md; the options several
commands share are in :mod:`.options`, the progress display of ``cuzk prove`` in :mod:`.progress`. Errors that a
user can cause (a bad option or file, an unavailable backend) print one line and exit with status 2; they never
print a traceback. When ``auto`` had to skip a faster backend (no GPU here), the command prints one line on stderr,
``cuzk: using the cpu backend (cuda: cupy is not installed)``, not the warning's file and source line; ``--backend``
or ``CUZK_BACKEND`` silences it. ``python -m cuzk.cli …`` runs the same command line.
"""

from __future__ import annotations

import argparse
import sys
import warnings
from collections.abc import Sequence
from typing import Any, TextIO

from cuzk.backends.errors import BackendFallbackWarning
from cuzk.cli import bench, groth16, info, prove, walkthrough, wtns, zkey
from cuzk.reference.errors import CuzkError

COMMAND_GROUPS = (info, walkthrough, prove, bench, groth16, zkey, wtns)


def build_parser() -> argparse.ArgumentParser:
    """The parser of every command; each parsed command carries its function as ``args.run``."""
    parser = argparse.ArgumentParser(prog="cuzk", description="A Groth16 proving engine with a readable reference.")
    subparsers = parser.add_subparsers(dest="command", required=True)
    for group in COMMAND_GROUPS:
        group.add_parser(subparsers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run one command; its exit status (0 success, 1 a failed check, 2 a user's error, printed as one line)."""
    args = build_parser().parse_args(argv)
    with warnings.catch_warnings():
        warnings.showwarning = _one_line_fallback(warnings.showwarning)
        try:
            return int(args.run(args))
        except CuzkError as error:
            print(f"cuzk {args.command}: {error}", file=sys.stderr)
            return 2


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


__all__ = ["build_parser", "main"]
