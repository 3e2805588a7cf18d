"""Several MSMs of one group on a GPU device, queued together and read at the end (the protocol's ``msm_batch``).

A proof's G1 MSMs go to the device as one batch: every distinct scalar array is uploaded once, just before the first
MSM that needs it, so that its copy overlaps the kernels queued before it; all kernels run over one set of bucket
tables (the queue's order makes reuse safe), and the results are read after the last launch, one wait for all.
When that does not fit the memory, the MSMs run one after another, each read before the next
(:func:`~cuzk.backends.gpu.msm.queue_msm`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from cuzk.backends.checks import rows_within
from cuzk.backends.gpu.bases import Geometry, ResidentBases
from cuzk.backends.gpu.context import DeviceContext, DeviceScalars, Finish, ready
from cuzk.backends.gpu.errors import DeviceMemoryError
from cuzk.backends.gpu.msm import Pending, Scalars, Uploads, enqueue, host_bytes, memory_key, queue_msm
from cuzk.backends.gpu.msm_job import Job, Tables, plan
from cuzk.backends.gpu.plan import Memory
from cuzk.reference.curves import Curve

BatchItem = tuple[Scalars, ResidentBases | np.ndarray, int | None]  # scalars, bases, window


def plan_batch(
    ctx: DeviceContext,
    curve: Curve,
    group: str,
    items: Sequence[BatchItem],
    memory: Memory,
    *,
    max_chunk: int | None = None,
    parallel_items: int | None = None,
) -> list[Job | None] | None:
    """The jobs of MSMs to be queued together and read at the end (None for an MSM of no points): each in one
    chunk, all over one set of :class:`Tables`, with every distinct scalar array and every result on the device at
    once. None when that does not fit ``memory``: the MSMs then run one after another, each with all of it."""
    geometry = Geometry.of(curve, group)
    distinct: dict[object, int] = {}  # what Uploads will copy: each array once, nothing for a slice of one's rows
    for j, (scalars, _, _) in enumerate(items):
        if not any(rows_within(scalars, earlier) for earlier, _, _ in items[:j]):
            distinct[memory_key(scalars)] = host_bytes(scalars)
    held = sum(distinct.values()) + len(items) * geometry.base_bytes
    if held >= memory.budget or max(distinct.values(), default=0) > memory.max_alloc:
        return None
    rest = Memory(memory.budget - held, memory.max_alloc)
    jobs: list[Job | None] = []
    for scalars, bases, window in items:
        if len(scalars) == 0:
            jobs.append(None)
            continue
        try:
            options = {
                "max_chunk": max_chunk,
                "parallel_items": parallel_items,
                "kept": isinstance(scalars, DeviceScalars),
            }
            job = plan(ctx, curve, group, len(scalars), bases, window, rest, **options)
        except DeviceMemoryError:
            return None
        if job.chunk < job.n:
            return None
        jobs.append(job)
    queued = [job for job in jobs if job is not None]
    if queued and sum(Tables.sizes(geometry, queued)) > rest.budget:
        return None
    return jobs


def queue_batch(
    ctx: DeviceContext,
    curve: Curve,
    group: str,
    items: Sequence[BatchItem],
    memory: Memory,
    *,
    max_chunk: int | None = None,
    parallel_items: int | None = None,
    queued: Callable[[], None] = lambda: None,
) -> Finish[list[np.ndarray]]:
    """Queue the MSMs of ``items``, all before the first result is read (one wait for the batch, in the Finish),
    over one set of tables, each distinct scalar array uploaded once, just before the first MSM that needs it (so
    that the copy overlaps the kernels queued before it); when that does not fit ``memory`` (:func:`plan_batch`),
    one MSM after another, each read before the next. ``queued`` is called after each MSM's launches (the backend
    marks its trace there)."""
    options = {"max_chunk": max_chunk, "parallel_items": parallel_items}
    jobs = plan_batch(ctx, curve, group, items, memory, **options)
    if jobs is None:
        results = []
        for scalars, bases, window in items:
            results.append(queue_msm(ctx, curve, group, scalars, bases, window, memory, **options).read())
            queued()
        return ready(results)
    geometry = Geometry.of(curve, group)
    planned = [job for job in jobs if job is not None]
    tables = Tables.allocate(ctx, geometry, planned) if planned else None
    uploads = Uploads(ctx)
    pending = []
    for job, (scalars, bases, _) in zip(jobs, items, strict=True):
        if job is None:
            pending.append(Pending(ready(np.zeros(geometry.shape, dtype=np.uint64))))
        else:
            assert tables is not None
            pending.append(enqueue(ctx, curve, group, job, tables, scalars, bases, uploads))
        queued()
    return lambda: [p.read() for p in pending]


__all__ = ["BatchItem", "plan_batch", "queue_batch"]
