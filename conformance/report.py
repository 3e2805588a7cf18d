"""Printing a :class:`~cuzk.conformance.runner.SuiteReport`: a rich table on a terminal, plain text otherwise.

One table per backend, one row per kind × curve (passed / failed / skipped and the reasons for skips), then each
failure with its file, case id and first differing limb, then the problems with the vector directory itself.
"""

from __future__ import annotations

from typing import Any

from cuzk.conformance.runner import BackendReport, SuiteReport

MAX_FAILURES_SHOWN = 20


def _rows(report: SuiteReport, backend: BackendReport) -> list[list[str]]:
    rows = []
    for kind in report.kinds():
        for curve in report.curves():
            counts = backend.counts(kind, curve)
            if not any(counts.values()):
                continue
            reasons = {
                r.message
                for vf, r in backend.results
                if r.status == "skipped" and vf.kind == kind and vf.curve.name == curve
            }
            rows.append(
                [
                    kind,
                    curve,
                    str(counts["passed"]),
                    str(counts["failed"]),
                    str(counts["skipped"]),
                    "; ".join(sorted(reasons)),
                ]
            )
    return rows


def failure_lines(backend: BackendReport, limit: int = MAX_FAILURES_SHOWN) -> list[str]:
    """One line per failure: ``FAIL <file> <case> [variant]: <message>`` (the first ``limit``, then a count)."""
    failures = backend.failures()
    lines = [f"FAIL {vf.path} {r.label}: {r.message}" for vf, r in failures[:limit]]
    if len(failures) > limit:
        lines.append(f"… and {len(failures) - limit} more failures (write them all with --json)")
    return lines


def _verdict(report: SuiteReport) -> str:
    failed = sum(b.counts()["failed"] for b in report.backends)
    if report.ok:
        skipped = sum(b.counts()["skipped"] for b in report.backends)
        unavailable = [b.name for b in report.backends if not b.available]
        notes = [f"{skipped} cases skipped"] if skipped else []
        notes += [f"not available: {', '.join(unavailable)}"] if unavailable else []
        return "conformance: OK" + (f" ({'; '.join(notes)})" if notes else "")
    return f"conformance: FAILED ({failed} failed cases, {len(report.problems)} problems with the vectors)"


HEADERS = ["kind", "curve", "passed", "failed", "skipped", "notes"]


def render_text(report: SuiteReport) -> str:
    out: list[str] = [f"vectors: {report.vectors}"]
    for backend in report.backends:
        state = "available" if backend.available else f"unavailable: {backend.reason}"
        out.append("")
        out.append(f"backend {backend.name} ({state})")
        rows = [HEADERS, *_rows(report, backend)]
        widths = [max(len(row[i]) for row in rows) for i in range(len(HEADERS) - 1)]
        for row in rows:
            cells = [c.ljust(w) if i < 2 else c.rjust(w) for i, (c, w) in enumerate(zip(row, widths, strict=False))]
            out.append("  " + "  ".join(cells) + ("  " + row[-1] if row[-1] else ""))
        out += ["  " + line for line in failure_lines(backend)]
    if report.problems:
        out.append("")
        out.append("problems with the vectors:")
        out += [f"  {p}" for p in report.problems]
    out.append("")
    out.append(_verdict(report))
    return "\n".join(out)


def render_rich(report: SuiteReport, console: Any) -> None:
    from rich.table import Table

    console.print(f"vectors: {report.vectors}")
    for backend in report.backends:
        state = "[green]available[/]" if backend.available else f"[yellow]unavailable: {backend.reason}[/]"
        table = Table(title=f"backend {backend.name} ({state})", title_justify="left")
        for i, header in enumerate(HEADERS):
            table.add_column(header, justify="right" if 2 <= i <= 4 else "left")
        for row in _rows(report, backend):
            failed = row[3] != "0"
            table.add_row(*row[:3], f"[red]{row[3]}[/]" if failed else row[3], *row[4:])
        console.print(table)
        for line in failure_lines(backend):
            console.print(f"  [red]{line}[/]", highlight=False)
    for problem in report.problems:
        console.print(f"[red]problem:[/] {problem}", highlight=False)
    console.print(f"[bold {'green' if report.ok else 'red'}]{_verdict(report)}[/]")


__all__ = ["failure_lines", "render_rich", "render_text"]
