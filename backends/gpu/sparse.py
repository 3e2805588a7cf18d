"""Sparse matrices over Fr on the device (capability SPARSE of the GPU backends): A·z and B·z of a .zkey's witness
computed where the MSMs and the H computation read them, so that a proof uploads z once and nothing comes back.

A matrix is laid out on the host (:func:`plan`, no device call: beside other calls, outside the context's lock) and
uploaded once, in CSR form with its rows cut into chunks of at most :data:`CHUNK` terms
(:func:`chunk_layout`): one work-item per chunk sums its terms (``fr_sparse_chunks``), one per row adds its chunks
(``fr_sparse_rows``, which also writes the zeros of the domain's padding), so that a row of a million terms is summed
by many work-items and a row of two by one. A term names its coefficient by an index into a table of values
(:mod:`cuzk.backends.indexed`: 1 and −1, which most terms of a circuit have, then every other term's own), 4 bytes
a term where the coefficient itself takes 32: at 2^27 constraints, 8 GB less of the device's memory. The caller may
give the coefficients so (a .zkey's A and B, each with a table of its own from one classification of the key's
terms); else :func:`plan` makes the table. The table is turned into Montgomery form on the device when uploaded
(``fr_sparse_to_mont``; a .zkey's, stored c·R², by one reduction: ``fr_sparse_reduce``); see
``backends/kernels/sparse.c``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from cuzk.backends.gpu.context import DeviceContext, DeviceScalars
from cuzk.backends.gpu.errors import DeviceMemoryError
from cuzk.backends.indexed import IndexedCoefficients, palette
from cuzk.backends.limbs import FR_LIMBS
from cuzk.reference.curves import Curve

PROGRAM = "sparse"
CHUNK = 16  # terms per work-item at most: rows of many terms are spread over many work-items
MAX_INDEX = (1 << 32) - 1  # the kernels index terms, chunks and z's rows with u32
ELEMENT = 8 * FR_LIMBS  # bytes of one Fr element


@dataclass(frozen=True)
class DeviceCsr:
    """A matrix on the device: its table of coefficients (Montgomery form); per term, a u32 index into it and a u32
    column; the first term of each chunk (and the end), the first chunk of each row (and the end)."""

    context: DeviceContext
    values: Any
    coefficient: Any
    columns: Any
    chunk_start: Any
    row_chunk: Any
    rows: int
    chunks: int
    nbytes: int


def chunk_layout(indptr: np.ndarray, chunk: int = CHUNK) -> tuple[np.ndarray, np.ndarray]:
    """(chunk_start, row_chunk) of a CSR matrix's ``indptr``: row k is cut into ⌈terms/chunk⌉ chunks (none when
    empty); chunk j of the matrix holds terms chunk_start[j] … chunk_start[j + 1] − 1, and the chunks of row k are
    row_chunk[k] … row_chunk[k + 1] − 1. Both end with their total, as an indptr does; uint32."""
    lengths = np.diff(indptr)
    if len(lengths) and lengths.max() <= chunk:  # no row longer than a chunk: a chunk per row that has terms
        filled = lengths > 0
        row_chunk = np.zeros(len(lengths) + 1, dtype=np.uint32)
        np.cumsum(filled, out=row_chunk[1:])
        return np.append(indptr[:-1][filled], indptr[-1]).astype(np.uint32), row_chunk
    per_row = -(-lengths // chunk)
    row_chunk = np.zeros(len(lengths) + 1, dtype=np.int64)
    np.cumsum(per_row, out=row_chunk[1:])
    owner = np.repeat(np.arange(len(lengths)), per_row)
    within = np.arange(len(owner), dtype=np.int64) - row_chunk[owner]
    chunk_start = np.empty(len(owner) + 1, dtype=np.int64)
    chunk_start[:-1] = indptr[owner] + chunk * within
    chunk_start[-1] = indptr[-1]
    return chunk_start.astype(np.uint32), row_chunk.astype(np.uint32)


@dataclass(frozen=True)
class HostCsr:
    """A matrix laid out for the device on the host (:func:`plan`): the coefficients' table (c·R^reductions, canonical
    words), per term its u32 index into the table and its u32 column, the chunks' starts and the rows' chunks."""

    table: np.ndarray
    index: np.ndarray
    columns: np.ndarray
    chunk_start: np.ndarray
    row_chunk: np.ndarray
    reductions: int

    @property
    def rows(self) -> int:
        return len(self.row_chunk) - 1

    @property
    def chunks(self) -> int:
        return len(self.chunk_start) - 1

    @property
    def nbytes(self) -> int:
        return sum(a.nbytes for a in (self.table, self.index, self.columns, self.chunk_start, self.row_chunk))


def plan(
    curve: Curve,
    indptr: np.ndarray,
    columns: np.ndarray,
    values: np.ndarray | IndexedCoefficients,
    reductions: int = 0,
) -> HostCsr:
    """The device's layout of a CSR matrix, made on the host with no device call (so without the context's lock,
    beside other calls); its coefficients ``values`` are c·R^reductions, canonical words (c itself by default, c·R²
    as a .zkey stores them), as limbs (put in a table here) or already by index into a table.
    DeviceMemoryError when an index would not fit the kernels' u32."""
    chunk_start, row_chunk = chunk_layout(indptr)
    terms, chunks = len(columns), len(chunk_start) - 1
    if max(terms + 2, chunks, int(columns.max(initial=0)) + 1) > MAX_INDEX:  # + 2: the table's 1 and −1
        raise DeviceMemoryError(f"a sparse matrix of {terms} terms is beyond the device kernels' 32-bit indices")
    if not isinstance(values, IndexedCoefficients):
        values = palette(curve, np.asarray(values, dtype=np.uint64).reshape(terms, FR_LIMBS), reductions)
    table, index = values.table, values.index.astype(np.uint32, copy=False)
    return HostCsr(table, index, columns.astype(np.uint32), chunk_start, row_chunk, reductions)


def upload(ctx: DeviceContext, curve: Curve, host: HostCsr) -> DeviceCsr:
    """The matrix laid out by :func:`plan` uploaded to ``ctx`` (queued; the caller holds the context's lock), its
    table turned into Montgomery form c·R there."""
    device_values = ctx.upload(host.table)
    count = np.uint32(len(host.table))
    if host.reductions == 0:
        ctx.launch(curve, PROGRAM, "fr_sparse_to_mont", len(host.table), device_values, count)
    elif host.reductions > 1:
        reduce_by = np.uint32(host.reductions - 1)
        ctx.launch(curve, PROGRAM, "fr_sparse_reduce", len(host.table), device_values, count, reduce_by)
    arrays = (host.index, host.columns, host.chunk_start, host.row_chunk)
    device_index, device_columns, device_starts, device_rows = (ctx.upload(a) for a in arrays)
    csr = (device_values, device_index, device_columns, device_starts, device_rows)
    return DeviceCsr(ctx, *csr, host.rows, host.chunks, host.nbytes)


def queue_product(ctx: DeviceContext, curve: Curve, matrix: DeviceCsr, z: DeviceScalars, out_rows: int) -> Any:
    """Queue ⟨row k, z⟩ for every row into a new buffer of ``out_rows`` canonical elements (zeros after the
    matrix's rows); returns the buffer."""
    out = ctx.buffer(max(1, out_rows) * ELEMENT)
    partial = ctx.buffer(max(1, matrix.chunks) * ELEMENT)
    if matrix.chunks:
        ctx.launch(
            curve,
            PROGRAM,
            "fr_sparse_chunks",
            matrix.chunks,
            matrix.values,
            matrix.coefficient,
            matrix.columns,
            matrix.chunk_start,
            z.buffer,
            partial,
            np.uint32(matrix.chunks),
            np.uint32(z.first),
        )
    if out_rows:
        rows = np.uint32(matrix.rows)
        ctx.launch(
            curve, PROGRAM, "fr_sparse_rows", out_rows, partial, matrix.row_chunk, out, rows, np.uint32(out_rows)
        )
    return out


__all__ = ["CHUNK", "PROGRAM", "DeviceCsr", "HostCsr", "chunk_layout", "plan", "queue_product", "upload"]
