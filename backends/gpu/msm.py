"""The MSM on a GPU device (OpenCL or CUDA): the host side of the kernels in ``backends/kernels/msm*.c``.

Per chunk of points: upload the scalars (and the bases, converted to Montgomery form on the device, unless they
are prepared); count the points per (window, bucket); scan the counts into offsets; scatter the point indices into
bucket order; walk every window's entries and buckets in equal segments (running sums); sum the segments by a tree
into one accumulator per window. After the last chunk, one work-item combines the windows and writes the canonical
affine result. Over shifted resident bases (2^(c·t)·P_i made once when the bases are prepared) every window's
pairs share one row of buckets: one accumulator, no doublings between windows.

An MSM is planned (:func:`plan`: a :class:`Job`), queued (:func:`enqueue`: a :class:`Pending` result, its read
queued too) and read (:meth:`Pending.read`, which waits for the queue). :func:`queue_msm` plans and queues one MSM;
``msm_batch.py`` queues several before reading any.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from cuzk.backends.checks import rows_within
from cuzk.backends.errors import BackendInputError
from cuzk.backends.gpu.bases import Geometry, ResidentBases, program
from cuzk.backends.gpu.context import DeviceContext, DeviceScalars, Finish, ready
from cuzk.backends.gpu.plan import SCALAR_BYTES, Memory, plan_msm, scan_block
from cuzk.reference.curves import Curve

# Bucket work-items per compute unit where the API does not tell how many threads of the bucket-sum kernel a unit
# runs at once.
PARALLEL_ITEMS_PER_UNIT = {"cpu": 16, "gpu": 256}


def default_parallel_items(ctx: DeviceContext, curve: Curve, group: str) -> int:
    """Bucket work-items over all rows: per compute unit, the threads of the bucket-sum kernel it runs at once,
    rounded down to a power of two, where the API tells (else PARALLEL_ITEMS_PER_UNIT). More items than a unit
    holds at once gained nothing, and a count that is not a power of two was slower (docs/performance.md)."""
    resident = ctx.resident_threads(curve, program(group), f"{group}_msm_bucket_sums")
    per_unit = 1 << (resident.bit_length() - 1) if resident else PARALLEL_ITEMS_PER_UNIT[ctx.info.kind]
    return per_unit * ctx.info.compute_units


# The bucket entries one scatter launch writes, at random places: about half the L2 cache of the GPU it was sized on
# (50 MB), so that the rows being filled stay there (an MSM of 2^22 or more points over separate windows takes a
# launch per window).
SCATTER_BYTES = 24 << 20


def _chunks(chunk: int, pieces: list[tuple[Any, int, int]]) -> Iterator[tuple[Any, int, int, int]]:
    """(bases buffer, offset in it, first point, count) for every chunk, never crossing a piece."""
    for buf, first, count in pieces:
        for offset in range(0, count, chunk):
            yield buf, offset, first + offset, min(chunk, count - offset)


@dataclass(frozen=True)
class Job:
    """How one MSM of n ≥ 1 points runs: ``windows`` windows of c bits, each with a row of buckets, or (``merged``,
    over shifted resident bases) one row for all; the points in chunks of ``chunk``; ``prepared``: the bases are
    resident (else each chunk's bases are copied to a staging buffer and converted there)."""

    n: int
    c: int
    windows: int
    merged: bool
    prepared: bool
    blocks: int  # scan blocks per row
    segments: int  # bucket-kernel work-items per row
    chunk: int
    sum_rows: int = 1  # rows whose bucket sums are held at once

    @property
    def rows(self) -> int:
        return 1 if self.merged else self.windows

    @property
    def buckets(self) -> int:
        return 1 << (self.c - 1)

    def buffer_sizes(self, geometry: Geometry) -> tuple[int, ...]:
        """Bytes of each buffer of :class:`Tables`, in the order of its fields."""
        table = self.rows * (self.buckets + 1) * 4
        return (
            table,
            table,
            table,
            self.rows * self.blocks * 4,
            2 * self.rows * self.segments * geometry.xyzz_bytes,
            self.rows * geometry.xyzz_bytes,
            self.sum_rows * self.buckets * geometry.xyzz_bytes,
            2 * self.sum_rows * self.segments * geometry.xyzz_bytes,
            self.windows * self.chunk * 4,
            0 if self.prepared else self.chunk * geometry.base_bytes,
        )


def _shifted_job(
    n: int, resident: ResidentBases, geometry: Geometry, memory: Memory, parallel_items: int
) -> Job | None:
    """The job over shifted resident bases (one bucket row for all windows, no Horner), or None when its tables do
    not fit the memory (the MSM then takes the per-window path over the unshifted bases)."""
    assert resident.shift is not None
    c, w = resident.shift, resident.windows
    nb = 1 << (c - 1)
    blocks = -(-nb // scan_block(nb))
    segments = max(1, min(w * n + nb, parallel_items))
    points = (4 * segments + 1 + nb) * geometry.xyzz_bytes  # partial, edges, acc, sums
    needed = 3 * (nb + 1) * 4 + blocks * 4 + points + n * SCALAR_BYTES + w * n * 4
    largest = max(w * n * 4, nb * geometry.xyzz_bytes, 2 * segments * geometry.xyzz_bytes, n * SCALAR_BYTES)
    if w * n >= 1 << 31 or needed > memory.budget or largest > memory.max_alloc:
        return None
    return Job(n, c, w, merged=True, prepared=True, blocks=blocks, segments=segments, chunk=n)


def plan(
    ctx: DeviceContext,
    curve: Curve,
    group: str,
    n: int,
    bases: ResidentBases | np.ndarray,
    window: int | None,
    memory: Memory,
    *,
    max_chunk: int | None = None,
    parallel_items: int | None = None,
) -> Job:
    """The job of an MSM of n ≥ 1 points within ``memory``: over shifted resident bases when they serve ``window``,
    else Pippenger by windows (:func:`~cuzk.backends.gpu.plan.plan_msm`). ``parallel_items`` (bucket-kernel
    work-items over all windows) defaults to what keeps the device busy."""
    geometry = Geometry.of(curve, group)
    resident = bases if isinstance(bases, ResidentBases) else None
    items = parallel_items or default_parallel_items(ctx, curve, group)
    if resident is not None and resident.shift is not None and window in (None, resident.shift) and not max_chunk:
        job = _shifted_job(n, resident, geometry, memory, items)
        if job is not None:
            return job
    p = plan_msm(
        n,
        window,
        scalar_bits=curve.r.bit_length(),
        base_bytes=geometry.base_bytes,
        xyzz_bytes=geometry.xyzz_bytes,
        prepared=resident is not None,
        memory=memory,
        parallel_items=items,
        max_chunk=max_chunk,
    )
    return Job(n, p.window, p.windows, False, resident is not None, p.blocks, p.segments, p.chunk, p.sum_rows)


@dataclass
class Tables:
    """The device buffers of the sort and the bucket sums, and the staging buffer of bases that are not resident:
    sized for the largest of some jobs, so that the MSMs of a batch use one set in turn (the queue runs in order)."""

    counts: Any
    offsets: Any
    cursor: Any
    block_sums: Any
    partial: Any
    acc: Any
    sums: Any  # a bucket sum per bucket of the rows held at once (Job.sum_rows)
    edges: Any  # two per bucket-sum work-item: its parts of the buckets its range cuts
    entries: Any
    staging: Any  # None when every job's bases are resident

    @staticmethod
    def sizes(geometry: Geometry, jobs: Sequence[Job]) -> list[int]:
        return [max(sizes) for sizes in zip(*(job.buffer_sizes(geometry) for job in jobs), strict=True)]

    @classmethod
    def allocate(cls, ctx: DeviceContext, geometry: Geometry, jobs: Sequence[Job]) -> Tables:
        return cls(*(ctx.buffer(size) if size else None for size in cls.sizes(geometry, jobs)))


def accumulate(
    ctx: DeviceContext,
    curve: Curve,
    group: str,
    tables: Tables,
    job: Job,
    scalars: tuple[Any, int],
    count: int,
    bases_buf: Any,
    offset: int,
) -> None:
    """Sort ``count`` points into buckets and add their bucket sums into ``tables.acc``: one accumulator per
    window, or (a merged job, over shifted bases) one for all windows. ``scalars`` is (buffer, first row): the
    points' scalars are ``count`` rows from there."""
    prog, u32 = program(group), np.uint32
    rows, nb, blocks, segments = job.rows, job.buckets, job.blocks, job.segments
    digits = (scalars[0], u32(scalars[1]), u32(count), u32(job.c), u32(job.windows), u32(job.merged))
    ctx.fill_zero(tables.counts, rows * (nb + 1) * 4)
    ctx.launch(curve, prog, "msm_histogram", count, *digits, tables.counts)
    args = (u32(nb), u32(scan_block(nb)), u32(blocks), u32(rows))
    ctx.launch(curve, prog, "msm_scan_blocks", rows * blocks, tables.counts, *args, tables.block_sums)
    ctx.launch(curve, prog, "msm_scan_top", rows, tables.block_sums, u32(blocks), u32(rows))
    fill = (tables.counts, tables.block_sums, *args, tables.offsets, tables.cursor)
    ctx.launch(curve, prog, "msm_scan_fill", rows * blocks, *fill)
    step = job.windows if job.merged else max(1, SCATTER_BYTES // (4 * count))
    for first in range(0, job.windows, step):
        span = (u32(first), u32(first + step))
        ctx.launch(curve, prog, "msm_scatter", count, *digits, tables.cursor, tables.entries, *span)
    row_length = count * job.windows if job.merged else count
    sums_args = (bases_buf, u32(offset), tables.entries, tables.offsets, u32(row_length), u32(nb), u32(segments))
    xyzz_bytes = Geometry.of(curve, group).xyzz_bytes
    for first in range(0, rows, job.sum_rows):  # rows first … first + held − 1: their bucket sums, then reduced
        held = min(job.sum_rows, rows - first)
        span = (u32(first), u32(held), tables.sums)
        ctx.fill_zero(tables.sums, held * nb * xyzz_bytes)  # empty buckets: infinity
        ctx.launch(curve, prog, f"{group}_msm_bucket_sums", held * segments, *sums_args, *span, tables.edges)
        edges = (tables.offsets, u32(nb), u32(segments), *span[:2], tables.edges, tables.sums, tables.partial)
        ctx.launch(curve, prog, f"{group}_msm_bucket_edges", held * segments, *edges)
        reduce = (tables.sums, u32(nb), u32(segments), u32(first), u32(held), tables.partial)
        ctx.launch(curve, prog, f"{group}_msm_bucket_reduce", held * segments, *reduce)
    remaining = per_row = 2 * segments  # the reduction's partial sums, then the edges' extra ones
    while remaining > 1:
        stride = -(-remaining // 2)
        fold = (tables.partial, u32(per_row), u32(remaining), u32(stride), u32(rows))
        ctx.launch(curve, prog, f"{group}_msm_fold", stride * rows, *fold)
        remaining = stride
    ctx.launch(curve, prog, f"{group}_msm_windows", rows, tables.partial, u32(per_row), u32(rows), tables.acc)


@dataclass(frozen=True)
class Pending:
    """A queued MSM: ``finish`` gives its canonical affine result (waiting for the read queued behind its kernels)."""

    finish: Finish[np.ndarray]

    def read(self) -> np.ndarray:
        """The result (the first read waits for the queue to reach it)."""
        return self.finish()


Scalars = np.ndarray | DeviceScalars  # limbs on the host, or left on the device by an earlier call


def memory_key(array: Scalars) -> tuple[int, tuple[int, ...], tuple[int, ...]]:
    """What makes two scalar arrays the same on the device: their memory (address, shape, strides)."""
    if isinstance(array, DeviceScalars):
        return id(array.buffer), (array.first, array.rows), ()
    return array.__array_interface__["data"][0], array.shape, array.strides


def host_bytes(scalars: Scalars) -> int:
    """Device bytes an upload of ``scalars`` takes (none for scalars already there)."""
    return 0 if isinstance(scalars, DeviceScalars) else int(scalars.nbytes)


class Uploads:
    """The device copies of the scalar arrays of one call: the same memory (one array passed for two MSMs) is
    uploaded once, and a slice of the rows of an array already uploaded (z[k:] after z) is read from that copy.
    The arrays are kept, so that no other array can take an address while its copy is in use."""

    def __init__(self, ctx: DeviceContext) -> None:
        self.ctx = ctx
        self._copies: dict[tuple[int, tuple[int, ...], tuple[int, ...]], tuple[np.ndarray, Any]] = {}  # host arrays

    def of(self, scalars: Scalars) -> tuple[Any, int]:
        """(device buffer, first row) of ``scalars``."""
        if isinstance(scalars, DeviceScalars):
            if scalars.context is not self.ctx:
                raise BackendInputError(
                    "kept by another device context: use the backend that made them", array="scalars"
                )
            return scalars.buffer, scalars.first
        key = memory_key(scalars)
        if key in self._copies:
            return self._copies[key][1], 0
        for array, buf in self._copies.values():
            if rows_within(scalars, array):
                start = scalars.__array_interface__["data"][0] - array.__array_interface__["data"][0]
                return buf, start // array.strides[0]
        self._copies[key] = (scalars, self.ctx.upload(scalars))
        return self._copies[key][1], 0


def enqueue(
    ctx: DeviceContext,
    curve: Curve,
    group: str,
    job: Job,
    tables: Tables,
    scalars: Scalars,
    bases: ResidentBases | np.ndarray,
    uploads: Uploads,
) -> Pending:
    """Queue the kernels of ``job`` (Σ scalars[i]·bases[i]) without waiting for them. A job of one chunk reads its
    scalars from ``uploads``; chunks of a longer one are written, with their bases unless resident, one by one
    into buffers that the queue's order lets the next chunk reuse."""
    geometry = Geometry.of(curve, group)
    whole = job.chunk >= job.n
    if not whole and isinstance(scalars, DeviceScalars):  # chunks are written from the host (memory is short)
        scalars = scalars.to_host()
    scalar_buf, row = uploads.of(scalars) if whole else (ctx.buffer(job.chunk * SCALAR_BYTES), 0)
    pieces = bases.pieces if isinstance(bases, ResidentBases) else [(tables.staging, 0, job.n)]
    ctx.fill_zero(tables.acc, job.rows * geometry.xyzz_bytes)
    for buf, offset, first, count in _chunks(job.chunk, pieces):
        if not whole:
            assert isinstance(scalars, np.ndarray)
            ctx.write(scalar_buf, scalars[first : first + count])
        if not isinstance(bases, ResidentBases):  # this chunk's bases, at the start of the staging buffer
            ctx.write(buf, bases[first : first + count])
            ctx.launch(curve, program(group), f"{group}_bases_to_mont", count, buf, np.uint32(count))
            offset = 0
        accumulate(ctx, curve, group, tables, job, (scalar_buf, row + first if whole else 0), count, buf, offset)
    out = ctx.buffer(geometry.base_bytes)
    ctx.launch(curve, program(group), f"{group}_msm_finish", 1, tables.acc, np.uint32(job.rows), np.uint32(job.c), out)
    return Pending(ctx.read_later(out, geometry.shape))


def queue_msm(
    ctx: DeviceContext,
    curve: Curve,
    group: str,
    scalars: Scalars,
    bases: ResidentBases | np.ndarray,
    window: int | None,
    memory: Memory,
    *,
    max_chunk: int | None = None,
    parallel_items: int | None = None,
) -> Pending:
    """Queue Σ scalars[i]·bases[i] (canonical affine limbs once read); the bases come as an array or resident."""
    geometry = Geometry.of(curve, group)
    if len(scalars) == 0:
        return Pending(ready(np.zeros(geometry.shape, dtype=np.uint64)))
    job = plan(
        ctx, curve, group, len(scalars), bases, window, memory, max_chunk=max_chunk, parallel_items=parallel_items
    )
    tables = Tables.allocate(ctx, geometry, [job])
    return enqueue(ctx, curve, group, job, tables, scalars, bases, Uploads(ctx))


__all__ = [
    "Job",
    "Pending",
    "Scalars",
    "Tables",
    "Uploads",
    "accumulate",
    "enqueue",
    "host_bytes",
    "memory_key",
    "plan",
    "queue_msm",
]
