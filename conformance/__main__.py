"""``python -m cuzk.conformance``: run backends over the vectors (``run``, the default) or write them (``generate``).

    python -m cuzk.conformance --backend reference                   # all committed vectors, both curves
    python -m cuzk.conformance run --backend all --curve bn254 --kind msm --json report.json
    python -m cuzk.conformance run --backend cuda --vectors /data/large
    python -m cuzk.conformance generate                              # rewrite conformance/vectors/
    python -m cuzk.conformance generate --large --out /data/large     # bigger sizes, fixed seeds

Backends: a backend named in --backend that cannot run here (no GPU, no driver, a package missing) is an error:
the line "backend NAME is not available: REASON" on stderr, exit status 1, nothing run; with --allow-unavailable
it is reported instead, every case of it skipped. --backend all (the default) means every available backend:
each registered one that cannot run gets that line on stderr and is reported as skipped, which is not an error.
Every backend counts the same cases per kind, whether it ran them or not (a case's variants are its checks).

Exit status: 0 when every selected case passed or was skipped, 1 on any failure, on a named backend that is not
available (without --allow-unavailable) or on any problem with the vector directory (a file missing, modified,
unlisted or unread), 2 on a usage error (unknown backend, kind or curve; no manifest). With --fail-on-skip,
skipped cases and checks (backend unavailable, capability missing, --quick) count as failures. While it runs,
a one-line progress (backend, kind, cases done/total) is drawn on stderr when stderr is a terminal.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
from pathlib import Path
from typing import TextIO

from cuzk.backends.protocol import Backend
from cuzk.conformance import KINDS
from cuzk.conformance.generate import VECTORS_DIR, generate_vectors
from cuzk.conformance.report import render_rich, render_text
from cuzk.conformance.runner import resolve_backends, run_suite
from cuzk.reference.curves import CURVES
from cuzk.reference.errors import CuzkError


def _list(value: str) -> list[str] | None:
    """``all`` → None (no filter); otherwise the comma-separated names."""
    names = [v.strip() for v in value.split(",") if v.strip()]
    return None if not names or "all" in names else names


def _parser() -> argparse.ArgumentParser:
    """``run`` is the default command: ``python -m cuzk.conformance --help`` is ``run --help``, which shows the
    run options, this module's docstring (backends, exit status) and the ``generate`` command."""
    parser = argparse.ArgumentParser(prog="python -m cuzk.conformance", description=__doc__.split("\n")[0])
    sub = parser.add_subparsers(dest="command")
    run = sub.add_parser(
        "run",
        prog="python -m cuzk.conformance [run]",
        help="run backends over the vectors (the default)",
        description=__doc__.split("\n")[0].replace("``", ""),
        epilog=__doc__.split("\n", 2)[2]
        + "\nWrite vectors: python -m cuzk.conformance generate [--large --out DIR] (see generate --help).",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    gen = sub.add_parser("generate", help="write vectors from the reference")
    for p in (run,):
        p.add_argument(
            "--backend",
            default="all",
            help="registered backend names, comma-separated, or 'all' (default): every available backend",
        )
        p.add_argument(
            "--allow-unavailable",
            action="store_true",
            help="report a named backend that cannot run here as skipped instead of failing",
        )
        p.add_argument("--json", type=Path, help="also write the report as JSON to this file")
        p.add_argument("--vectors", type=Path, default=VECTORS_DIR, help="vector directory (default: committed)")
        p.add_argument(
            "--quick", action="store_true", help="skip the largest cases and most pairing checks (reported as skipped)"
        )
        p.add_argument("--fail-on-skip", action="store_true", help="treat skipped cases as failures")
    for p in (run, gen):
        p.add_argument("--curve", default="all", help=f"{' | '.join(CURVES)} | all (comma-separated)")
        p.add_argument("--kind", default="all", help=f"{' | '.join(KINDS)} | all (comma-separated)")
    gen.add_argument("--large", action="store_true", help="the large case sets (not committed)")
    gen.add_argument("--out", type=Path, help="output directory (default: the committed vectors)")
    return parser


class LineProgress:
    """``conformance: cpu msm 37/196`` on one line of a terminal, redrawn with \\r and erased by :meth:`close`."""

    def __init__(self, stream: TextIO) -> None:
        self.stream = stream
        self._width = 0

    def __call__(self, backend: str, kind: str, done: int, total: int) -> None:
        line = f"conformance: {backend} {kind} {done}/{total}"[: shutil.get_terminal_size().columns - 1]
        self.stream.write("\r" + line.ljust(self._width))
        self.stream.flush()
        self._width = max(self._width, len(line))

    def close(self) -> None:
        if self._width:
            self.stream.write("\r" + " " * self._width + "\r")
            self.stream.flush()
            self._width = 0


def _generate(args: argparse.Namespace) -> int:
    if args.large and args.out is None:
        print("generate --large needs --out DIR: large vectors are not committed", file=sys.stderr)
        return 2
    out = args.out or VECTORS_DIR
    entries = generate_vectors(
        out,
        curves=_list(args.curve),
        kinds=_list(args.kind),
        large=args.large,
        log=lambda line: print(line, flush=True),
    )
    size = sum((out / e.path).stat().st_size for e in entries)
    print(f"{len(entries)} files, {sum(e.cases for e in entries)} cases, {size / 1e6:.2f} MB in {out}")
    return 0


def _unavailable_line(name: str, reason: str | None) -> str:
    return f"backend {name} is not available: {' '.join((reason or 'unknown reason').split())}"


def _run(args: argparse.Namespace) -> int:
    names = _list(args.backend)
    chosen: list[str | Backend] | None = None if names is None else [*names]
    unavailable = [(name, reason) for name, _, reason in resolve_backends(chosen) if reason is not None]
    for name, reason in unavailable:
        print(_unavailable_line(name, reason), file=sys.stderr)
    if unavailable and names is not None and not args.allow_unavailable:
        return 1  # a backend asked for by name must run (or be allowed not to): nothing is run
    progress = LineProgress(sys.stderr) if sys.stderr.isatty() else None
    try:
        report = run_suite(
            chosen,
            curves=_list(args.curve),
            kinds=_list(args.kind),
            vectors=args.vectors,
            quick=args.quick,
            progress=progress,
        )
    finally:
        if progress is not None:
            progress.close()
    if sys.stdout.isatty():
        from rich.console import Console

        render_rich(report, Console())
    else:
        print(render_text(report))
    if args.json is not None:
        args.json.write_text(json.dumps(report.to_json(), indent=1) + "\n")
    skipped = sum(b.checks()["skipped"] for b in report.backends)
    return 0 if report.ok and not (args.fail_on_skip and skipped) else 1


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if not argv or argv[0] not in ("run", "generate"):  # run is the default: --help is run's help
        argv = ["run", *argv]
    args = _parser().parse_args(argv)
    try:
        return _generate(args) if args.command == "generate" else _run(args)
    except CuzkError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
