"""``cuzk info``'s table of the registered backends (:func:`backend_table`), as rich renders it and as plain text."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from cuzk.backends.errors import BackendError
from cuzk.backends.registry import discover, ranked, selection

COLUMNS = ("backend", "priority", "available", "device", "capabilities", "notes")


@dataclass(frozen=True)
class BackendRow:
    """A row of ``cuzk info``: what :func:`backend_table` reports for one backend."""

    name: str
    available: bool
    reason: str | None
    priority: int
    description: dict[str, Any]
    capabilities: tuple[str, ...]
    target: str


def backend_table() -> list[BackendRow]:
    """One row per registered backend, fastest first: name, availability, reason, priority, describe()."""
    rows = []
    for e in ranked(discover()):
        description: dict[str, Any] = {}
        if e.backend is not None:
            try:
                description = dict(e.backend.describe())
            except Exception as exc:
                description = {"error": f"describe() failed: {type(exc).__name__}: {exc}"}
        rows.append(
            BackendRow(e.name, e.available, e.reason, e.priority, description, tuple(sorted(e.capabilities)), e.target)
        )
    return rows


def backend_cells(rows: list[BackendRow] | None = None) -> list[tuple[str, ...]]:
    """The cells of ``cuzk info``'s table as plain text, one tuple per backend in the order of :data:`COLUMNS`; the
    notes of the backend :func:`get_backend` would select say so and why (by CUZK_BACKEND or by auto). When that
    selection fails (an unknown CUZK_BACKEND, …) no row is marked: ``cuzk info`` prints the error below the table."""
    rows = backend_table() if rows is None else rows
    try:
        chosen, why = selection()
    except BackendError:
        chosen, why = None, ""
    cells = []
    for row in rows:
        notes = row.reason or ""
        if chosen is not None and row.name == chosen.name:
            notes = f"selected by {why}" + (f"; {notes}" if notes else "")
        device = str(row.description.get("device") or "")
        cells.append(
            (row.name, str(row.priority), "yes" if row.available else "no", device, ", ".join(row.capabilities), notes)
        )
    return cells


def format_backend_table(rows: list[BackendRow] | None = None) -> Any:
    """A :class:`rich.table.Table` of the backends for ``cuzk info`` (print it with a rich Console). Cells are
    escaped (an install hint ``pip install 'cuzk[cuda]'`` is not markup). The table fills the console and fits 80
    columns: capabilities wrap in a column as wide as the longest, device and notes share the rest, folding a word
    too long for them onto the next line rather than cutting it."""
    from rich.markup import escape
    from rich.table import Table

    cells = backend_cells(rows)
    longest = max((len(name) + 1 for row in cells for name in row[4].split(", ")), default=len("capabilities"))
    table = Table(title="cuzk backends (entry-point group cuzk.backends)", expand=True)
    for column in COLUMNS:
        if column == "capabilities":
            table.add_column(column, width=max(longest, len(column)))
        elif column in ("device", "notes"):
            table.add_column(column, overflow="fold", ratio=2 if column == "device" else 3)
        else:
            table.add_column(column, no_wrap=True, justify="right" if column == "priority" else "left")
    for row in cells:
        table.add_row(*(escape(cell) for cell in row))
    return table


def format_backend_text(rows: list[BackendRow] | None = None) -> str:
    """The same table as plain text, for machines without rich (GPU servers with numpy, numba and CuPy alone)."""
    lines = ["cuzk backends (entry-point group cuzk.backends)"]
    for cells in backend_cells(rows):
        lines.append("  " + " | ".join(f"{name}: {value}" for name, value in zip(COLUMNS, cells, strict=True) if value))
    return "\n".join(lines)


__all__ = ["COLUMNS", "BackendRow", "backend_cells", "backend_table", "format_backend_table", "format_backend_text"]
