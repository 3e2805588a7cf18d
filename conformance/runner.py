"""Run backends over the vectors: ``python -m cuzk.conformance --backend NAME|all``.

The suite first checks the vector directory against its manifest (every listed file present and unchanged, no
unlisted file), then parses every selected file and hands it to its kind's runner, once per backend. A backend
that cannot run, or lacks a capability a kind requires, has that kind's cases counted as skipped with the reason.
Afterwards every selected file must have been read, and every case of it must have a result: a kind's runner that
drops a case, or a file whose kind nobody registered, fails the suite (consensus-specs' "clients must read every
vector file"). Only numpy and cuzk are needed: no py_ecc, no galois.

Counts are of cases, the same on every backend: a case runs as one or more checks (its variants: forward and
inverse NTTs, an MSM through a window or prepared bases — the capabilities decide which), and it failed when a
check failed, passed when a check passed and none failed, was skipped when every check was. The checks are kept
too (:meth:`BackendReport.checks`, ``checks`` in the JSON report): their number depends on the backend.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from cuzk.backends.errors import UnknownBackendError
from cuzk.backends.protocol import Backend, has_capability
from cuzk.backends.registry import discover
from cuzk.conformance.errors import VectorFormatError
from cuzk.conformance.generate import VECTORS_DIR
from cuzk.conformance.kinds import KINDS, CaseResult, RunContext, VectorFile, get_kind
from cuzk.conformance.manifest import ManifestEntry, check_files, load_manifest, parse_vector_bytes, to_vector_file
from cuzk.reference.curves import curve_by_name


@dataclass
class BackendReport:
    """Every result of one backend; ``reason`` says why it could not run at all (None when it ran)."""

    name: str
    available: bool
    reason: str | None
    results: list[tuple[VectorFile, CaseResult]] = field(default_factory=list)

    def counts(self, kind: str | None = None, curve: str | None = None) -> dict[str, int]:
        """Cases passed / failed / skipped (a case failed if any of its checks failed, passed if any passed)."""
        cases: dict[tuple[str, str], set[str]] = {}
        for vf, r in self._selected(kind, curve):
            cases.setdefault((vf.path, r.case), set()).add(r.status)
        counts = {"passed": 0, "failed": 0, "skipped": 0}
        for statuses in cases.values():
            counts[next(s for s in ("failed", "passed", "skipped") if s in statuses)] += 1
        return counts

    def checks(self, kind: str | None = None, curve: str | None = None) -> dict[str, int]:
        """Checks (a case's variants) passed / failed / skipped: how many depends on the backend's capabilities."""
        counts = {"passed": 0, "failed": 0, "skipped": 0}
        for _, r in self._selected(kind, curve):
            counts[r.status] += 1
        return counts

    def _selected(self, kind: str | None, curve: str | None) -> list[tuple[VectorFile, CaseResult]]:
        return [
            (vf, r)
            for vf, r in self.results
            if (kind is None or vf.kind == kind) and (curve is None or vf.curve.name == curve)
        ]

    def failures(self, kind: str | None = None) -> list[tuple[VectorFile, CaseResult]]:
        return [(vf, r) for vf, r in self.results if r.status == "failed" and (kind is None or vf.kind == kind)]

    def skip_reasons(self, kind: str | None = None) -> dict[str, int]:
        reasons: dict[str, int] = {}
        for vf, r in self.results:
            if r.status == "skipped" and (kind is None or vf.kind == kind):
                reasons[r.message] = reasons.get(r.message, 0) + 1
        return reasons


@dataclass
class SuiteReport:
    """The outcome of a suite run: problems with the vectors themselves, and one report per backend."""

    vectors: str
    files: list[VectorFile]
    problems: list[str]
    backends: list[BackendReport]

    @property
    def ok(self) -> bool:
        return not self.problems and all(not b.failures() for b in self.backends)

    def kinds(self) -> list[str]:
        return list(dict.fromkeys(vf.kind for vf in self.files))

    def curves(self) -> list[str]:
        return list(dict.fromkeys(vf.curve.name for vf in self.files))

    def to_json(self) -> dict[str, Any]:
        backends: dict[str, Any] = {}
        for b in self.backends:
            kinds: dict[str, Any] = {}
            for kind in self.kinds():
                kinds[kind] = {
                    **b.counts(kind),
                    "checks": b.checks(kind),
                    "by_curve": {c: b.counts(kind, c) for c in self.curves()},
                    "skip_reasons": b.skip_reasons(kind),
                    "failures": [
                        {
                            "file": vf.path,
                            "curve": vf.curve.name,
                            "case": r.case,
                            "variant": r.variant,
                            "message": r.message,
                            "first_difference": r.difference,
                        }
                        for vf, r in b.failures(kind)
                    ],
                }
            backends[b.name] = {
                "available": b.available,
                "reason": b.reason,
                **b.counts(),
                "checks": b.checks(),
                "kinds": kinds,
            }
        return {"ok": self.ok, "vectors": self.vectors, "problems": self.problems, "backends": backends}


def resolve_backends(backends: list[str | Backend] | None) -> list[tuple[str, Backend | None, str | None]]:
    """(name, backend or None, reason it cannot run: None when it can) for registry names or Backend objects;
    None or ["all"] = every registered backend. An unknown name raises :class:`UnknownBackendError`."""
    entries = discover()
    chosen: list[str | Backend] = list(entries) if backends is None or backends == ["all"] else list(backends)
    resolved: list[tuple[str, Backend | None, str | None]] = []
    for item in chosen:
        if not isinstance(item, str):
            reason = None if item.is_available() else (item.unavailable_reason() or "is_available() is False")
            resolved.append((item.name, item, reason))
            continue
        if item not in entries:
            raise UnknownBackendError(item, sorted(entries))
        entry = entries[item]
        resolved.append((item, entry.backend, entry.reason))
    return resolved


def _select(entries: list[ManifestEntry], curves: list[str] | None, kinds: list[str] | None) -> list[ManifestEntry]:
    curve_names = {curve_by_name(c).name for c in curves} if curves else None
    if kinds:
        for k in kinds:
            get_kind(k)
    return [
        e for e in entries if (curve_names is None or e.curve in curve_names) and (kinds is None or e.kind in kinds)
    ]


def load_vectors(
    directory: Path, curves: list[str] | None = None, kinds: list[str] | None = None
) -> tuple[list[VectorFile], list[str]]:
    """The selected, parsed vector files and the problems found (manifest mismatches, unreadable files)."""
    entries = load_manifest(directory)
    contents, problems = check_files(directory, entries)
    files = []
    for entry in _select(entries, curves, kinds):
        if entry.path not in contents:
            continue  # already a problem: missing or modified
        if entry.kind not in KINDS:
            problems.append(f"{entry.path}: no runner is registered for kind {entry.kind!r}; the file went unread")
            continue
        try:
            files.append(to_vector_file(entry, parse_vector_bytes(entry.path, contents[entry.path])))
        except VectorFormatError as exc:
            problems.append(str(exc))
    return files, problems


def _run_file(ctx: RunContext, vf: VectorFile) -> list[CaseResult]:
    """One file on one backend; a case left without a result is a failure, as is a runner that crashes."""
    kind = KINDS[vf.kind]
    missing = sorted(kind.requires - {c for c in kind.requires if has_capability(ctx.backend, c)})
    if missing:
        message = f"capability missing: {', '.join(missing)}"
        return [CaseResult(vf.path, c["id"], "skipped", message=message) for c in vf.cases]
    try:
        results = kind.run(ctx, vf)
    except Exception as exc:
        message = f"the {vf.kind} runner crashed: {type(exc).__name__}: {exc}"
        return [CaseResult(vf.path, c["id"], "failed", message=message) for c in vf.cases]
    seen = {r.case for r in results}
    for case in vf.cases:
        if case["id"] not in seen:
            results.append(CaseResult(vf.path, case["id"], "failed", message="no result: the case was never run"))
    return results


def run_suite(
    backends: list[str | Backend] | None = None,
    *,
    curves: list[str] | None = None,
    kinds: list[str] | None = None,
    vectors: Path = VECTORS_DIR,
    quick: bool = False,
    progress: Callable[[str, str, int, int], None] | None = None,
) -> SuiteReport:
    """Run ``backends`` (registry names or Backend objects; None or ["all"] = every registered backend) over the
    vectors of ``vectors`` selected by ``curves`` and ``kinds``. ``quick`` skips the largest cases and most pairing
    checks (reported).
    ``progress(backend, kind, cases_done, cases_total)`` is called before and after each file of each backend."""
    files, problems = load_vectors(vectors, curves, kinds)
    totals: dict[str, int] = {}
    for vf in files:
        totals[vf.kind] = totals.get(vf.kind, 0) + len(vf.cases)
    reports = []
    for name, backend, reason in resolve_backends(backends):
        report = BackendReport(name, reason is None and backend is not None, reason)
        done = dict.fromkeys(totals, 0)
        for vf in files:
            if progress is not None:
                progress(name, vf.kind, done[vf.kind], totals[vf.kind])
            if backend is None or reason is not None:
                message = f"backend unavailable: {reason}"
                report.results += [(vf, CaseResult(vf.path, c["id"], "skipped", message=message)) for c in vf.cases]
            else:
                report.results += [(vf, r) for r in _run_file(RunContext(backend, quick), vf)]
            done[vf.kind] += len(vf.cases)
            if progress is not None:
                progress(name, vf.kind, done[vf.kind], totals[vf.kind])
        reports.append(report)
    return SuiteReport(str(vectors), files, problems, reports)


__all__ = ["BackendReport", "SuiteReport", "load_vectors", "resolve_backends", "run_suite"]
