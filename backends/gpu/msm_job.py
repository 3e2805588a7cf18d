"""How one MSM runs on a GPU device: its :class:`Job` (window, rows of buckets, chunks of points, bucket-kernel
segments; over shifted resident bases when they serve it), planned within the memory a call may use (:func:`plan`),
and the device buffers of its sort and bucket sums (:class:`Tables`), shared by the MSMs of a batch."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from cuzk.backends.gpu.bases import Geometry, ResidentBases, program
from cuzk.backends.gpu.context import DeviceContext
from cuzk.backends.gpu.plan import ROWS_APART_FROM, SCALAR_BYTES, Memory, plan_msm, scan_block
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


@dataclass(frozen=True)
class Job:
    """How one MSM of n ≥ 1 points runs: ``windows`` windows of c bits, each with a row of buckets, or (``merged``,
    over shifted resident bases) one row for all; the points in chunks of ``chunk``; ``prepared``: the bases are
    resident (else each chunk's bases are copied to a staging buffer and converted there). ``lead``: the points
    of a first chunk when the upload of the scalars is split so that the rest travels while its kernels run (every
    row's bucket sums then held at once, and a later chunk's made in a second table and added in)."""

    n: int
    c: int
    windows: int
    merged: bool
    prepared: bool
    blocks: int  # scan blocks per row
    segments: int  # bucket-kernel work-items per row
    chunk: int
    sum_rows: int = 1  # rows whose bucket sums are held at once
    lead: int | None = None

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
            0 if self.lead is None else self.rows * self.buckets * geometry.xyzz_bytes,
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
    kept: bool = False,
) -> Job:
    """The job of an MSM of n ≥ 1 points within ``memory``: over shifted resident bases when they serve ``window``,
    else Pippenger by windows (:func:`~cuzk.backends.gpu.plan.plan_msm`). ``parallel_items`` (bucket-kernel
    work-items over all windows) defaults to what keeps the device busy; ``kept``: the scalars are on the device
    (from ROWS_APART_FROM points, the bucket kernels then take one row at a time)."""
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
        rows_apart=kept and n >= ROWS_APART_FROM,
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
    more: Any  # a second table of bucket sums, for the later chunk of a job with a lead (else None)

    @staticmethod
    def sizes(geometry: Geometry, jobs: Sequence[Job]) -> list[int]:
        return [max(sizes) for sizes in zip(*(job.buffer_sizes(geometry) for job in jobs), strict=True)]

    @classmethod
    def allocate(cls, ctx: DeviceContext, geometry: Geometry, jobs: Sequence[Job]) -> Tables:
        return cls(*(ctx.buffer(size) if size else None for size in cls.sizes(geometry, jobs)))


__all__ = ["PARALLEL_ITEMS_PER_UNIT", "Job", "Tables", "default_parallel_items", "plan"]
