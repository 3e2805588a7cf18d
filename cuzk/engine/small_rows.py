"""A setup's rows of a few terms (:class:`Sums`, CSR over a table of points) and where they are summed:
``row_sums`` or ``msm_batch`` on the host beside a device (:func:`sum_small_rows`).

A key's points from a ptau (:mod:`cuzk.engine.setup_ptau`), a contribution's scaled points
(:mod:`cuzk.engine.contribute`) and the circuit hash's H points (:mod:`cuzk.engine.setup_hash`) are millions of sums
of one to a few points at 2^20: such rows are one pass over their terms on the cpu backend
(``backends/cpu/row_sums.py``; by ROW_SUMS in CSR form, without an array per row), and a launch per few dozen rows
on a device.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import cast

import numpy as np

from cuzk.backends import limbs
from cuzk.backends.protocol import (
    DEVICE,
    MSM_BATCH,
    ROW_SUMS,
    WARM_UP,
    Backend,
    SupportsMsmBatch,
    SupportsRowSums,
    has_capability,
)
from cuzk.backends.registry import host_backend
from cuzk.formats.points import PointTable
from cuzk.reference.curves import Curve

BATCH_ROWS = 64  # sums handed to one msm_batch call of a device backend (a launch for a few dozen rows)
HOST_BATCH_ROWS = 1 << 14  # sums handed to one msm_batch call of a host backend
ROW_SUMS_TERMS = 1 << 21  # terms handed to one row_sums call (the cpu backend holds 128 to 384 bytes a term)


def small_rows_backend(backend: Backend) -> Backend:
    """Where the rows of a few terms are summed: beside a device, its host backend when that one compiles its
    kernels (not the reference's Python); else ``backend`` itself."""
    if not has_capability(backend, DEVICE):
        return backend
    host = host_backend(backend, MSM_BATCH)
    return host if host is not backend and has_capability(host, WARM_UP) else backend


def backend_batch(backend: Backend) -> SupportsMsmBatch:
    """``backend`` as what it declared: MSM_BATCH."""
    return cast(SupportsMsmBatch, backend)


def backend_row_sums(backend: Backend) -> SupportsRowSums:
    """``backend`` as what it declared: ROW_SUMS."""
    return cast(SupportsRowSums, backend)


@dataclass(frozen=True)
class Sums:
    """Rows as sums Σ scalar·base, in CSR form: row r's terms are ``bases[indptr[r]:indptr[r + 1]]`` (indices into a
    point table) with ``scalars`` (canonical Fr limbs)."""

    indptr: np.ndarray
    bases: np.ndarray
    scalars: np.ndarray

    @classmethod
    def of_terms(cls, rows: np.ndarray, bases: np.ndarray, scalars: np.ndarray, num_rows: int) -> Sums:
        order = np.argsort(rows, kind="stable")
        indptr = np.zeros(num_rows + 1, np.int64)
        np.cumsum(np.bincount(rows, minlength=num_rows), out=indptr[1:])
        return cls(indptr, limbs.take_rows(bases, order), limbs.take_rows(scalars, order))

    def rows_of(self, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The CSR form of ``rows`` alone: their indptr, and the positions of their terms in this one's."""
        counts = self.indptr[rows + 1] - self.indptr[rows]
        indptr = np.zeros(len(rows) + 1, np.int64)
        np.cumsum(counts, out=indptr[1:])
        shift = np.repeat(self.indptr[rows] - indptr[:-1], counts)
        return indptr, np.arange(indptr[-1], dtype=np.int64) + shift


def sum_small_rows(
    summer: Backend, curve: Curve, table: PointTable, sums: Sums, rows: np.ndarray, out: np.ndarray
) -> None:
    """out[r] ← row r's sum for each of ``rows``, on ``summer``: by its ``row_sums`` when it offers ROW_SUMS (rows of
    ROW_SUMS_TERMS terms in all a call, in CSR form over the table: no array per row; each call checks the whole
    table, so the calls are few), else by its ``msm_batch`` (an array per row: HOST_BATCH_ROWS rows a call on the
    host, whose batch of small rows is one pass over their terms, BATCH_ROWS on a device). One call at a time: a
    device's stream, the host's pool."""
    group, points = table.group, table.limbs
    if has_capability(summer, ROW_SUMS):
        ends = np.cumsum(np.diff(sums.indptr)[rows])  # terms up to each row's end
        lo = 0
        while lo < len(rows):
            before = int(ends[lo - 1]) if lo else 0
            hi = max(lo + 1, int(np.searchsorted(ends, before + ROW_SUMS_TERMS, side="right")))
            chunk, lo = rows[lo:hi], hi
            indptr, at = sums.rows_of(chunk)
            out[chunk] = backend_row_sums(summer).row_sums(
                curve, group, points, indptr, sums.bases[at], sums.scalars[at]
            )
        return
    size = BATCH_ROWS if has_capability(summer, DEVICE) else HOST_BATCH_ROWS
    for lo in range(0, len(rows), size):
        chunk = rows[lo : lo + size]
        out[chunk] = backend_batch(summer).msm_batch(curve, group, *row_terms(points, sums, chunk))


def row_terms(points: np.ndarray, sums: Sums, rows: np.ndarray) -> tuple[list[np.ndarray], list[np.ndarray]]:
    """Each of ``rows``' bases and scalars, an array each."""
    spans = [(int(sums.indptr[r]), int(sums.indptr[r + 1])) for r in rows]
    return [points[sums.bases[lo:hi]] for lo, hi in spans], [sums.scalars[lo:hi] for lo, hi in spans]


__all__ = ["Sums", "backend_batch", "backend_row_sums", "row_terms", "small_rows_backend", "sum_small_rows"]
