"""The GPU backends' msm_batch (opencl, cuda; one test body for both, against the reference backend, bit for bit):
every MSM queued before any result is read, each distinct scalar array uploaded once, one set of tables for MSMs
of different shapes (shifted and per-window, prepared and not, empty), one MSM after another when the batch does
not fit at once, and the device time of each MSM; a call waits for its results outside the context's lock. (The
CUDA context's copies, against a fake cupy, are in test_cuda_copies.py.)
"""

from __future__ import annotations

import random
import threading
from functools import cache
from typing import Any

import numpy as np
import pytest

from cuzk.backends import limbs
from cuzk.backends.gpu import msm_batch, msm_job
from cuzk.backends.gpu.backend import DeviceBackend
from cuzk.backends.gpu.bases import Geometry
from cuzk.backends.gpu.plan import Memory
from cuzk.backends.reference import ReferenceBackend
from cuzk.reference.curves import Curve

from ._gpu import GPU_BACKENDS, available, shared

REFERENCE = ReferenceBackend()


@pytest.fixture(params=list(GPU_BACKENDS))
def backend(request: pytest.FixtureRequest) -> DeviceBackend:
    """Shifted prepared bases on every device (not only GPUs), so that a batch mixes both MSM paths."""
    return available(request.param, shifted_bases=True)


@cache
def points(curve: Curve, group: str, n: int) -> np.ndarray:
    """n distinct points [k + i·d]G of the group, one of them the identity."""
    grp, rng = limbs.group_of(curve, group), random.Random(f"{curve.name}/{group}")
    step = grp.generator * rng.randrange(1, curve.r)
    point, out = grp.generator * rng.randrange(1, curve.r), []
    for i in range(n):
        out.append(grp.identity() if i == 5 else point)
        point = (point + step).normalize()
    return limbs.points_to_limbs(curve, group, out)


def scalars(curve: Curve, n: int, rng: random.Random) -> np.ndarray:
    values = [rng.randrange(curve.r) for _ in range(n)]
    values[:4] = [0, 1, curve.r - 1, 2]
    return limbs.fr_to_limbs(curve, values)


class Spy:
    """What a context is asked to do, in order: ("write", host address), ("launch", kernel), ("read", None) when a
    read is waited for (a read queued by read_later counts when its Finish runs)."""

    def __init__(self, ctx: Any, monkeypatch: pytest.MonkeyPatch) -> None:
        self.calls: list[tuple[str, Any]] = []
        write, launch, read, read_later = ctx.write, ctx.launch, ctx.read, ctx.read_later

        def spy_write(buf: Any, array: np.ndarray) -> None:
            self.calls.append(("write", array.__array_interface__["data"][0]))
            write(buf, array)

        def spy_launch(curve: Curve, program: str, name: str, *args: Any, **options: Any) -> Any:
            self.calls.append(("launch", name))
            return launch(curve, program, name, *args, **options)

        def spy_read(*args: Any) -> np.ndarray:
            self.calls.append(("read", None))
            return read(*args)

        def spy_read_later(*args: Any) -> Any:
            finish = read_later(*args)

            def spy_finish() -> np.ndarray:
                self.calls.append(("read", None))
                return finish()

            return spy_finish

        monkeypatch.setattr(ctx, "read_later", spy_read_later)
        monkeypatch.setattr(ctx, "write", spy_write)
        monkeypatch.setattr(ctx, "launch", spy_launch)
        monkeypatch.setattr(ctx, "read", spy_read)

    def index(self, kind: str, last: bool = False) -> int:
        found = [i for i, (k, _) in enumerate(self.calls) if k == kind]
        return found[-1] if last else found[0]

    def writes_of(self, array: np.ndarray) -> int:
        return self.calls.count(("write", array.__array_interface__["data"][0]))


@pytest.mark.parametrize("group", ["g1", "g2"])
def test_batch_queues_everything_then_reads(
    backend: DeviceBackend, curve: Curve, group: str, rng: random.Random, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A batch as the engine's (one scalar array for two MSMs, a view of it for a third) plus bases that are not
    prepared, explicit windows and an empty MSM: the reference's sums; every kernel queued before the first read;
    z and k uploaded once each (z[3:] read from z's copy); each MSM's device time reported, summing to the call's."""
    n = 24 if group == "g1" else 10
    bases = points(curve, group, n)
    handle, tail = backend.prepare_bases(curve, group, bases), backend.prepare_bases(curve, group, bases[3:])
    assert handle.payload.shift is not None  # shifted bases: a merged job beside per-window ones
    z, k = scalars(curve, n, rng), scalars(curve, n, rng)
    batch = [(handle, z, None), (handle, z, 3), (tail, z[3:], None), (bases, k, None), (bases[:0], k[:0], None)]
    batch.append((handle, k, None))
    spy = Spy(backend.context, monkeypatch)
    got = backend.msm_batch(
        curve, group, [b for b, _, _ in batch], [s for _, s, _ in batch], windows=[w for *_, w in batch]
    )
    expected = [
        REFERENCE.msm(curve, group, bases if b is handle else b if isinstance(b, np.ndarray) else bases[3:], s)
        for b, s, _ in batch
    ]
    np.testing.assert_array_equal(got, np.stack(expected))
    assert spy.index("read") > spy.index("launch", last=True), "a result was read before every MSM was queued"
    assert spy.writes_of(z) == 1 and spy.writes_of(k) == 1
    assert spy.writes_of(z[3:]) == 0, "z[3:] must be read from z's copy"
    seconds = backend.last_batch_seconds()
    assert seconds is not None and len(seconds) == len(batch)
    assert seconds[4] == 0.0 and all(s > 0 for i, s in enumerate(seconds) if i != 4)
    assert sum(seconds) == pytest.approx(backend.last_internal_seconds())
    backend.msm(curve, group, bases, k)
    assert backend.last_batch_seconds() is None  # the last call was not a batch


def test_batch_too_large_at_once_runs_one_msm_after_another(
    backend: DeviceBackend, curve: Curve, rng: random.Random, monkeypatch: pytest.MonkeyPatch
) -> None:
    """When the MSMs need chunks (here max_chunk) the batch cannot hold them all: each runs with the whole memory
    and is read before the next is queued; the results are the same."""
    chunked = shared(backend.name, max_chunk=7)
    bases = points(curve, "g1", 24)
    z, k = scalars(curve, 24, rng), scalars(curve, 24, rng)
    handle = chunked.prepare_bases(curve, "g1", bases)
    spy = Spy(chunked.context, monkeypatch)
    got = chunked.msm_batch(curve, "g1", [handle, bases], [z, k])
    np.testing.assert_array_equal(got, np.stack([REFERENCE.msm(curve, "g1", bases, s) for s in (z, k)]))
    assert spy.index("read") < spy.index("launch", last=True)
    assert len(chunked.last_batch_seconds() or []) == 2


def test_batch_plan_fits_the_memory(backend: DeviceBackend, curve: Curve, rng: random.Random) -> None:
    """plan_batch holds every distinct scalar array (z[3:] is read from z's copy: no bytes of its own), the results
    and one set of tables (the largest of each buffer) within the budget, every MSM in one chunk; one byte less and
    the batch runs one MSM at a time."""
    ctx, bases = backend.context, points(curve, "g1", 24)
    z = scalars(curve, 24, rng)
    items: list[msm_batch.BatchItem] = [(z, bases, None), (z[3:], bases[3:], 2), (z, bases, 9)]
    jobs = msm_batch.plan_batch(ctx, curve, "g1", items, Memory(1 << 30, 1 << 30))
    assert jobs is not None and all(job is not None and job.chunk == job.n for job in jobs)
    geometry = Geometry.of(curve, "g1")
    tables = msm_job.Tables.sizes(geometry, [job for job in jobs if job is not None])
    assert tables == [max(job.buffer_sizes(geometry)[i] for job in jobs if job is not None) for i in range(len(tables))]
    needed = z.nbytes + 3 * geometry.base_bytes + sum(tables)
    assert msm_batch.plan_batch(ctx, curve, "g1", items, Memory(needed, 1 << 30)) == jobs
    assert msm_batch.plan_batch(ctx, curve, "g1", items, Memory(needed - 1, 1 << 30)) is None


def test_a_call_waits_for_its_results_outside_the_lock(backend: DeviceBackend) -> None:
    """A call queues holding the context's lock and finishes (waits for the device, reads) without it, so another
    thread's call can queue meanwhile: from inside the Finish, a second thread takes the lock at once."""
    taken: list[bool] = []

    def other_thread(ctx: Any) -> None:
        if ctx.lock.acquire(blocking=False):
            ctx.lock.release()
            taken.append(True)
        else:
            taken.append(False)

    def queue(ctx: Any) -> Any:
        held = threading.Thread(target=other_thread, args=(ctx,))
        held.start()
        held.join()

        def finish() -> int:
            free = threading.Thread(target=other_thread, args=(ctx,))
            free.start()
            free.join()
            return 7

        return finish

    assert backend._call(queue) == 7
    assert taken == [False, True]
