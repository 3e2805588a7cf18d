"""The GPU backends' msm_batch (opencl, cuda; one test body for both, against the reference backend, bit for bit):
every MSM queued before any result is read, each distinct scalar array uploaded once, one set of tables for MSMs
of different shapes (shifted and per-window, prepared and not, empty), one MSM after another when the batch does
not fit at once, and the device time of each MSM. Also the CUDA context's pinned upload ring, against a fake cupy
whose copies from pinned memory run only when something waits for them (cupy itself needs an NVIDIA GPU).
"""

from __future__ import annotations

import random
import threading
from contextlib import nullcontext
from functools import cache
from types import SimpleNamespace
from typing import Any

import numpy as np
import pytest

from cuzk.backends import limbs
from cuzk.backends.cuda import device as cuda_device
from cuzk.backends.gpu import msm as msm_device
from cuzk.backends.gpu import msm_batch
from cuzk.backends.gpu.backend import DeviceBackend
from cuzk.backends.gpu.bases import Geometry
from cuzk.backends.gpu.context import DeviceInfo
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
    tables = msm_device.Tables.sizes(geometry, [job for job in jobs if job is not None])
    assert tables == [max(job.buffer_sizes(geometry)[i] for job in jobs if job is not None) for i in range(8)]
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


# --- the CUDA upload ring, against a fake cupy ----------------------------------------------------------------------


class FakeStream:
    """A stream whose queued operations run, in order, only when something waits for them."""

    def __init__(self, non_blocking: bool = False) -> None:
        self.queue: list[Any] = []

    def __enter__(self) -> FakeStream:
        return self

    def __exit__(self, *exc: object) -> None:
        return None

    def run(self, until: Any = None) -> None:
        while self.queue:
            op = self.queue.pop(0)
            op()
            if op is until:
                return


class FakeEvent:
    def __init__(self, disable_timing: bool = False) -> None:
        self.stream: FakeStream | None = None
        self.marker: Any = None

    def record(self, stream: FakeStream) -> None:
        self.stream, self.marker = stream, lambda: None
        stream.queue.append(self.marker)

    @property
    def done(self) -> bool:
        return self.stream is None or self.marker not in self.stream.queue

    def synchronize(self) -> None:
        if not self.done:
            assert self.stream is not None
            self.stream.run(until=self.marker)


class FakeCupy:
    """What CudaContext's buffers use of cupy. A copy from pinned memory reads the host bytes when the stream runs
    it; a copy from pageable memory takes them at once, as CUDA stages it before returning."""

    uint8 = np.uint8

    def __init__(self) -> None:
        self.pinned: list[np.ndarray] = []
        self.cuda = SimpleNamespace(
            Stream=FakeStream,
            Event=FakeEvent,
            alloc_pinned_memory=self.alloc_pinned_memory,
            memory=SimpleNamespace(OutOfMemoryError=MemoryError),
        )

    pinned_limit: int | None = None  # how many pinned buffers the host grants (None: any number)

    def alloc_pinned_memory(self, nbytes: int) -> bytearray:
        if self.pinned_limit is not None and len(self.pinned) >= self.pinned_limit:
            raise MemoryError("cudaErrorMemoryAllocation: out of memory")
        memory = bytearray(nbytes)
        self.pinned.append(np.frombuffer(memory, dtype=np.uint8))
        return memory

    def empty(self, nbytes: int, dtype: Any) -> FakeDeviceArray:
        return FakeDeviceArray(np.zeros(nbytes, dtype=np.uint8), self)


class FakeDeviceArray:
    def __init__(self, data: np.ndarray, cp: FakeCupy) -> None:
        self.data, self.cp = data, cp

    def __getitem__(self, key: slice) -> FakeDeviceArray:
        return FakeDeviceArray(self.data[key], self.cp)

    def set(self, host: np.ndarray, stream: FakeStream) -> None:
        assert host.shape == self.data.shape
        pinned = any(np.shares_memory(host, p) for p in self.cp.pinned)
        source = host if pinned else host.copy()
        stream.queue.append(lambda: self.data.__setitem__(slice(None), source))

    def get(self, stream: FakeStream, out: np.ndarray, blocking: bool = True) -> None:
        if blocking:
            stream.run()
            out[...] = self.data
            return
        assert any(np.shares_memory(out, p) for p in self.cp.pinned), "an asynchronous copy needs pinned memory"
        stream.queue.append(lambda: out.__setitem__(Ellipsis, self.data))


def fake_context(monkeypatch: pytest.MonkeyPatch, fake: FakeCupy) -> Any:
    """A CudaContext over ``fake`` with a 2-buffer ring of 64 bytes; arrays below 32 bytes skip the ring, copies of
    48 bytes or more into and out of pinned memory go in pieces on the context's threads."""
    info = DeviceInfo("fake", "CUDA", "gpu", 1, 1 << 20, 1 << 20, {})
    monkeypatch.setattr(cuda_device, "import_cupy", lambda: fake)
    monkeypatch.setattr(cuda_device, "device_info", lambda cp, device: info)
    monkeypatch.setattr(cuda_device, "STAGING_BUFFERS", 2)
    monkeypatch.setattr(cuda_device, "STAGING_BYTES", 64)
    monkeypatch.setattr(cuda_device, "STAGING_MIN_BYTES", 32)
    monkeypatch.setattr(cuda_device, "COPY_SPLIT_BYTES", 48)  # full parts and the reads take the threaded copy
    return cuda_device.CudaContext(nullcontext())


def upload_and_overwrite(ctx: Any, sizes: tuple[int, ...], seed: int) -> list[tuple[Any, np.ndarray]]:
    """Upload random arrays of ``sizes`` bytes, then zero the caller's arrays: (device buffer, original bytes)."""
    rng = np.random.default_rng(seed)
    arrays = [rng.integers(0, 256, size, dtype=np.uint8) for size in sizes]
    uploaded = [(ctx.upload(a), a.copy()) for a in arrays]
    for a in arrays:
        a[...] = 0
    return uploaded


def assert_intact(ctx: Any, uploaded: list[tuple[Any, np.ndarray]]) -> None:
    for buf, original in uploaded:
        np.testing.assert_array_equal(ctx.read(buf, original.shape, np.uint8), original)


def test_cuda_uploads_run_ahead_through_the_pinned_ring(monkeypatch: pytest.MonkeyPatch) -> None:
    """Uploads return before the stream copies them (asynchronous), the caller may overwrite its arrays at once,
    and a pinned buffer is refilled only after the copy out of it ran: a 2-buffer ring of 64 bytes carries arrays
    of 300 and 100 bytes intact; a small array is copied straight from the caller's memory."""
    fake = FakeCupy()
    ctx = fake_context(monkeypatch, fake)
    uploaded = upload_and_overwrite(ctx, (300, 8, 100, 64), seed=1)
    assert ctx.stream.queue, "the last uploads must still be queued"
    assert len(fake.pinned) == 2
    assert_intact(ctx, uploaded)


def test_cuda_reads_are_queued_and_finished_later(monkeypatch: pytest.MonkeyPatch) -> None:
    """read_later queues the copy behind the uploads without running the stream; its Finish waits for the copy and
    returns the bytes; a later upload into the same buffer does not change what was read."""
    fake = FakeCupy()
    ctx = fake_context(monkeypatch, fake)
    [(buf, original)] = upload_and_overwrite(ctx, (200,), seed=3)
    finish = ctx.read_later(buf, (200,), np.uint8)
    assert ctx.stream.queue, "queueing a read must not wait for the stream"
    ctx.write(buf, np.zeros(200, dtype=np.uint8))
    np.testing.assert_array_equal(finish(), original)
    np.testing.assert_array_equal(ctx.read(buf, (200,), np.uint8), np.zeros(200, dtype=np.uint8))


def test_cuda_upload_ring_grows_instead_of_waiting(monkeypatch: pytest.MonkeyPatch) -> None:
    """While every pinned buffer still has a copy queued, the ring takes a new one (up to STAGING_BUFFERS) rather
    than wait for the stream: 6 parts of 64 bytes leave all 6 copies queued with a ring of up to 8."""
    fake = FakeCupy()
    ctx = fake_context(monkeypatch, fake)
    monkeypatch.setattr(ctx, "_ring_size", 8)
    uploaded = upload_and_overwrite(ctx, (6 * 64,), seed=4)
    assert len(fake.pinned) == 6
    assert len(ctx.stream.queue) == 12, "six copies and their events must still be queued"
    assert_intact(ctx, uploaded)


@pytest.mark.parametrize("granted", [0, 1])
def test_cuda_uploads_survive_a_host_without_pinned_memory(monkeypatch: pytest.MonkeyPatch, granted: int) -> None:
    """When the host grants fewer pinned buffers than the ring wants (or none), uploads go through those it has
    (or straight from the caller's memory) and arrive intact."""
    fake = FakeCupy()
    fake.pinned_limit = granted
    ctx = fake_context(monkeypatch, fake)
    uploaded = upload_and_overwrite(ctx, (300, 100, 64), seed=2)
    assert len(fake.pinned) == granted
    assert_intact(ctx, uploaded)
