"""``python -m cuzk.conformance``: run backends over the vectors (``run``, the default) or write them (``generate``).

    python -m cuzk.conformance --backend reference                   # all committed vectors, both curves
    python -m cuzk.conformance run --backend all --curve bn254 --kind msm --json report.json
    python -m cuzk.conformance run --backend cuda --vectors /data/large
    python -m cuzk.conformance generate                              # rewrite conformance/vectors/
    python -m cuzk.conformance generate --large --out /data/large     # bigger sizes, fixed seeds

Exit status: 0 when every selected case passed or was skipped, 1 on any failure or any problem with the vector
directory (a file missing, modified, unlisted or unread), 2 on a usage error (unknown backend, kind or curve; no
manifest). With --fail-on-skip, skipped cases (backend unavailable, capability missing) count as failures.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from cuzk.conformance import KINDS
from cuzk.conformance.generate import VECTORS_DIR, generate_vectors
from cuzk.conformance.report import render_rich, render_text
from cuzk.conformance.runner import run_suite
from cuzk.reference.curves import CURVES
from cuzk.reference.errors import CuzkError


def _list(value: str) -> list[str] | None:
    """``all`` → None (no filter); otherwise the comma-separated names."""
    names = [v.strip() for v in value.split(",") if v.strip()]
    return None if not names or "all" in names else names


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m cuzk.conformance", description=__doc__.split("\n")[0])
    sub = parser.add_subparsers(dest="command")
    run = sub.add_parser("run", help="run backends over the vectors (the default)")
    gen = sub.add_parser("generate", help="write vectors from the reference")
    for p in (run,):
        p.add_argument("--backend", default="all", help="a registered backend name, or 'all' (default)")
        p.add_argument("--json", type=Path, help="also write the report as JSON to this file")
        p.add_argument("--vectors", type=Path, default=VECTORS_DIR, help="vector directory (default: committed)")
        p.add_argument("--quick", action="store_true", help="skip the largest cases (reported as skipped)")
        p.add_argument("--fail-on-skip", action="store_true", help="treat skipped cases as failures")
    for p in (run, gen):
        p.add_argument("--curve", default="all", help=f"{' | '.join(CURVES)} | all (comma-separated)")
        p.add_argument("--kind", default="all", help=f"{' | '.join(KINDS)} | all (comma-separated)")
    gen.add_argument("--large", action="store_true", help="the large case sets (not committed)")
    gen.add_argument("--out", type=Path, help="output directory (default: the committed vectors)")
    return parser


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


def _run(args: argparse.Namespace) -> int:
    backends = None if args.backend == "all" else [b.strip() for b in args.backend.split(",")]
    report = run_suite(
        backends,  # type: ignore[arg-type]
        curves=_list(args.curve),
        kinds=_list(args.kind),
        vectors=args.vectors,
        quick=args.quick,
    )
    if sys.stdout.isatty():
        from rich.console import Console

        render_rich(report, Console())
    else:
        print(render_text(report))
    if args.json is not None:
        args.json.write_text(json.dumps(report.to_json(), indent=1) + "\n")
    skipped = sum(b.counts()["skipped"] for b in report.backends)
    return 0 if report.ok and not (args.fail_on_skip and skipped) else 1


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if not argv or argv[0] not in ("run", "generate", "-h", "--help"):
        argv = ["run", *argv]
    args = _parser().parse_args(argv)
    try:
        return _generate(args) if args.command == "generate" else _run(args)
    except CuzkError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
