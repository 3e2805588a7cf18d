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

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from cuzk.backends.checks import rows_within
from cuzk.backends.errors import BackendInputError, BackendOutputError
from cuzk.backends.gpu.bases import Geometry, ResidentBases, program
from cuzk.backends.gpu.context import DeviceContext, DeviceScalars, Finish, ready
from cuzk.backends.gpu.msm_job import Job, Tables, plan
from cuzk.backends.gpu.plan import SCALAR_BYTES, Memory, scan_block
from cuzk.backends.limbs import check_scalars
from cuzk.reference.curves import Curve

# The bucket entries one scatter launch writes, at random places: about half the L2 cache of the GPU it was sized on
# (50 MB), so that the rows being filled stay there (an MSM of 2^22 or more points over separate windows takes a
# launch per window).
SCATTER_BYTES = 24 << 20


def _chunks(
    chunk: int, pieces: list[tuple[Any, int, int]], lead: int | None = None
) -> Iterator[tuple[Any, int, int, int]]:
    """(bases buffer, offset in it, first point, count) for every chunk, never crossing a piece; with ``lead``, the
    first chunk has that many points (then chunks of ``chunk`` again)."""
    for buf, first, count in pieces:
        offset = 0
        if lead is not None and first == 0 and lead < count:
            yield buf, 0, 0, lead
            offset = lead
        for start in range(offset, count, chunk):
            yield buf, start, first + start, min(chunk, count - start)


# From this many points, one call's scalars from host memory are uploaded in two chunks, where the device's uploads
# run beside its kernels: the first quarter (its upload waited for), then the rest, uploaded while the first
# chunk's kernels run. The second chunk adds its bucket sums to the first's (one more pass over the buckets, and
# one more sort of a chunk), which costs more than it hides below this size (docs/performance.md).
PIPELINE_FROM = 1 << 21


def with_lead(
    ctx: DeviceContext, geometry: Geometry, job: Job, scalars: Scalars, memory: Memory, pipeline_from: int | None
) -> Job:
    """``job`` with a lead (its first quarter) when the upload of the scalars is to overlap the kernels: where the
    device's uploads run beside its kernels (or from an explicit ``pipeline_from``, on any device, as the tests
    use it), for scalars from host memory, from PIPELINE_FROM points, when the job is one chunk whose bucket sums
    of every row fit at once, and so does their second table. Else ``job`` as it is."""
    if pipeline_from is None and not ctx.uploads_overlap:
        return job
    least = PIPELINE_FROM if pipeline_from is None else pipeline_from
    if not isinstance(scalars, np.ndarray) or job.chunk < job.n or job.sum_rows < job.rows or job.n < max(least, 4):
        return job
    led = replace(job, lead=job.n // 4)
    sizes = led.buffer_sizes(geometry)
    if max(sizes) > memory.max_alloc or sum(sizes) + job.n * SCALAR_BYTES > memory.budget:
        return job
    return led


def accumulate(
    ctx: DeviceContext,
    curve: Curve,
    group: str,
    tables: Tables,
    job: Job,
    scalars: tuple[Any, int],
    count: int,
    bases: tuple[Any, int],
    noncanonical: Any,
    *,
    later: bool = False,
) -> None:
    """Sort ``count`` points into buckets and make their bucket sums. ``scalars`` is (buffer, first row) and
    ``bases`` (buffer, first point): the points' are ``count`` rows from there; a scalar ≥ r sets the word
    ``noncanonical``. A job with a lead (:attr:`Job.lead`) keeps every row's bucket sums in ``tables.sums`` for
    :func:`reduce_rows` after its last chunk: a ``later`` chunk's are made in ``tables.more`` and added in. Else
    each group of rows is reduced here and added into ``tables.acc``: one accumulator per window, or (a merged
    job, over shifted bases) one for all windows."""
    prog, u32 = program(group), np.uint32
    rows, nb, blocks, segments = job.rows, job.buckets, job.blocks, job.segments
    digits = (scalars[0], u32(scalars[1]), u32(count), u32(job.c), u32(job.windows), u32(job.merged))
    ctx.fill_zero(tables.counts, rows * (nb + 1) * 4)
    ctx.launch(curve, prog, "msm_histogram", count, *digits, tables.counts, noncanonical)
    args = (u32(nb), u32(scan_block(nb)), u32(blocks), u32(rows))
    ctx.launch(curve, prog, "msm_scan_blocks", rows * blocks, tables.counts, *args, tables.block_sums)
    ctx.launch(curve, prog, "msm_scan_top", rows, tables.block_sums, u32(blocks), u32(rows))
    fill = (tables.counts, tables.block_sums, *args, tables.offsets, tables.cursor)
    ctx.launch(curve, prog, "msm_scan_fill", rows * blocks, *fill)
    step = job.windows if job.merged else max(1, SCATTER_BYTES // (4 * count))
    copy = u32(job.n)  # merged: the entry of point i in window t names the shifted base t·n + i (from bases[1])
    for first in range(0, job.windows, step):
        span = (u32(first), u32(first + step), copy)
        ctx.launch(curve, prog, "msm_scatter", count, *digits, tables.cursor, tables.entries, *span)
    row_length = count * job.windows if job.merged else count
    sums_args = (bases[0], u32(bases[1]), tables.entries, tables.offsets, u32(row_length), u32(nb), u32(segments))
    xyzz_bytes = Geometry.of(curve, group).xyzz_bytes
    table = tables.more if later else tables.sums
    for first in range(0, rows, job.sum_rows):  # rows first … first + held − 1: their bucket sums
        held = min(job.sum_rows, rows - first)
        span = (u32(first), u32(held), table)
        ctx.fill_zero(table, held * nb * xyzz_bytes)  # empty buckets: infinity
        ctx.launch(curve, prog, f"{group}_msm_bucket_sums", held * segments, *sums_args, *span, tables.edges)
        edges = (tables.offsets, u32(nb), u32(segments), *span[:2], tables.edges, table, tables.partial, u32(later))
        ctx.launch(curve, prog, f"{group}_msm_bucket_edges", held * segments, *edges)
        if job.lead is None:
            _reduce(ctx, curve, group, tables, job, first, held)
    if later:
        ctx.launch(curve, prog, f"{group}_msm_add_sums", rows * nb, tables.sums, tables.more, u32(rows * nb))
    if job.lead is None:
        _fold(ctx, curve, group, tables, job)


def reduce_rows(ctx: DeviceContext, curve: Curve, group: str, tables: Tables, job: Job) -> None:
    """After the last chunk of a job with a lead (every row's bucket sums in ``tables.sums``): reduce them and add
    the rows' totals into ``tables.acc``."""
    _reduce(ctx, curve, group, tables, job, 0, job.rows)
    _fold(ctx, curve, group, tables, job)


def _reduce(ctx: DeviceContext, curve: Curve, group: str, tables: Tables, job: Job, first: int, held: int) -> None:
    """Rows first … first + held − 1 (their bucket sums in ``tables.sums``): Σ j·S_j into their partial sums."""
    u32 = np.uint32
    reduce = (tables.sums, u32(job.buckets), u32(job.segments), u32(first), u32(held), tables.partial)
    ctx.launch(curve, program(group), f"{group}_msm_bucket_reduce", held * job.segments, *reduce)


def _fold(ctx: DeviceContext, curve: Curve, group: str, tables: Tables, job: Job) -> None:
    """Every row's partial sums (the reduction's and the edges' extra ones) summed by a tree, into acc[row]."""
    u32, prog, rows = np.uint32, program(group), job.rows
    remaining = per_row = 2 * job.segments
    while remaining > 1:
        stride = -(-remaining // 2)
        fold = (tables.partial, u32(per_row), u32(remaining), u32(stride), u32(rows))
        ctx.launch(curve, prog, f"{group}_msm_fold", stride * rows, *fold)
        remaining = stride
    ctx.launch(curve, prog, f"{group}_msm_windows", rows, tables.partial, u32(per_row), u32(rows), tables.acc)


class NoncanonicalScalarsError(Exception):
    """A scalar of the MSM was ≥ r (found by its histogram kernel): the caller finds which and refuses the call."""


@contextmanager
def refused_if_noncanonical(curve: Curve, arrays: dict[str, object]) -> Iterator[None]:
    """The host's own check of ``arrays`` when the device's MSM found a scalar ≥ r: NonCanonicalInputError naming
    the array and the row, as the protocol's check before the call would have (the device backends leave that pass
    to the MSM's histogram kernel, which reads every scalar anyway)."""
    try:
        yield
    except NoncanonicalScalarsError:
        for name, scalars in arrays.items():
            if isinstance(scalars, np.ndarray):
                check_scalars(curve, scalars, name)
        raise BackendOutputError("the device found a scalar ≥ r that the host's check does not find") from None


@dataclass(frozen=True)
class Pending:
    """A queued MSM: ``finish`` gives its canonical affine result (waiting for the read queued behind its kernels),
    ``flag`` the word its histogram sets on a scalar ≥ r."""

    finish: Finish[np.ndarray]
    flag: Finish[np.ndarray] | None = None  # None: no kernel ran (an MSM of no points)

    def read(self) -> np.ndarray:
        """The result (the first read waits for the queue to reach it); NoncanonicalScalarsError for a scalar ≥ r."""
        result = self.finish()
        if self.flag is not None and self.flag()[0]:
            raise NoncanonicalScalarsError
        return result


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
    scalars from ``uploads`` (in chunks uploaded on their own, the first of ``job.lead`` points, when the upload is
    to overlap the kernels: :func:`with_lead`); chunks of a longer one are written, with their bases unless
    resident, one by one into buffers that the queue's order lets the next chunk reuse."""
    geometry = Geometry.of(curve, group)
    whole, lead = job.chunk >= job.n, job.lead
    if not whole and isinstance(scalars, DeviceScalars):  # chunks are written from the host (memory is short)
        scalars = scalars.to_host()
    if lead is None:
        scalar_buf, row = uploads.of(scalars) if whole else (ctx.buffer(job.chunk * SCALAR_BYTES), 0)
    pieces = bases.pieces if isinstance(bases, ResidentBases) else [(tables.staging, 0, job.n)]
    ctx.fill_zero(tables.acc, job.rows * geometry.xyzz_bytes)
    flag = ctx.buffer(4)
    ctx.fill_zero(flag, 4)
    for index, (buf, offset, first, count) in enumerate(_chunks(job.chunk, pieces, lead)):
        if lead is not None:  # each chunk's scalars uploaded on their own: the kernels wait for theirs alone
            rows = uploads.of(scalars[first : first + count])
        else:
            if not whole:
                assert isinstance(scalars, np.ndarray)
                ctx.write(scalar_buf, scalars[first : first + count])
            rows = (scalar_buf, row + first if whole else 0)
        if not isinstance(bases, ResidentBases):  # this chunk's bases, at the start of the staging buffer
            ctx.write(buf, bases[first : first + count])
            ctx.launch(curve, program(group), f"{group}_bases_to_mont", count, buf, np.uint32(count))
            offset = 0
        later = index > 0 and lead is not None
        accumulate(ctx, curve, group, tables, job, rows, count, (buf, offset), flag, later=later)
    if lead is not None:
        reduce_rows(ctx, curve, group, tables, job)
    out = ctx.buffer(geometry.base_bytes)
    ctx.launch(curve, program(group), f"{group}_msm_finish", 1, tables.acc, np.uint32(job.rows), np.uint32(job.c), out)
    return Pending(ctx.read_later(out, geometry.shape), ctx.read_later(flag, (1,), np.uint32))


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
    pipeline_from: int | None = None,
) -> Pending:
    """Queue Σ scalars[i]·bases[i] (canonical affine limbs once read); the bases come as an array or resident.
    ``pipeline_from``: the points from which host scalars are uploaded in two chunks (:func:`with_lead`)."""
    geometry = Geometry.of(curve, group)
    if len(scalars) == 0:
        return Pending(ready(np.zeros(geometry.shape, dtype=np.uint64)))
    kept = isinstance(scalars, DeviceScalars)
    options = {"max_chunk": max_chunk, "parallel_items": parallel_items, "kept": kept}
    job = plan(ctx, curve, group, len(scalars), bases, window, memory, **options)
    job = with_lead(ctx, geometry, job, scalars, memory, pipeline_from)
    tables = Tables.allocate(ctx, geometry, [job])
    return enqueue(ctx, curve, group, job, tables, scalars, bases, Uploads(ctx))


__all__ = [
    "NoncanonicalScalarsError",
    "Pending",
    "Scalars",
    "Uploads",
    "accumulate",
    "enqueue",
    "host_bytes",
    "memory_key",
    "queue_msm",
    "reduce_rows",
    "refused_if_noncanonical",
]
