"""The CUDA context's copies, against a fake cupy whose queued operations run only when something waits for them
(cupy itself needs an NVIDIA GPU): the pinned upload ring (asynchronous uploads, reads, the ring that grows, a host
without pinned memory), and the copy stream: a large upload runs beside the kernels queued before it, into leased
memory that it rewrites only after every earlier reader, and the main stream's readers and writers wait for it.
"""

from __future__ import annotations

import gc
import weakref
from types import SimpleNamespace
from typing import Any

import numpy as np
import pytest

from cuzk.backends.cuda import device as cuda_device
from cuzk.backends.cuda import staging
from cuzk.backends.cuda.uploads import allocation_retries
from cuzk.backends.gpu.context import DeviceInfo

ALLOCATIONS: list[weakref.ref[np.ndarray]] = []  # the fake device's allocations, for UnownedMemory's pointer lookup


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

    def synchronize(self) -> None:
        self.run()

    def wait_event(self, event: FakeEvent) -> None:
        self.queue.append(event.synchronize)


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


class FakeDevice:
    id = 0

    def __enter__(self) -> FakeDevice:
        return self

    def __exit__(self, *exc: object) -> None:
        return None


class FakeUnownedMemory:
    def __init__(self, ptr: int, size: int, owner: object, device_id: int = -1) -> None:
        self.ptr, self.size, self.owner = ptr, size, owner


class FakeMemoryPointer:
    def __init__(self, mem: FakeUnownedMemory, offset: int) -> None:
        self.mem, self.ptr = mem, mem.ptr + offset


def live_allocations() -> list[np.ndarray]:
    return [base for ref in ALLOCATIONS if (base := ref()) is not None]


def _memory_at(ptr: int, size: int) -> np.ndarray:
    for base in live_allocations():
        start = base.ctypes.data
        if start <= ptr and ptr + size <= start + base.nbytes:
            return base[ptr - start : ptr - start + size]
    raise AssertionError(f"no fake allocation holds {size} bytes at {ptr:#x}")


class FakeDeviceArray:
    """A device byte array: its bytes in host memory; over UnownedMemory, it keeps that memory's owner alive, as
    cupy's arrays (and their views) do. A queued copy holds the bytes, not the array, as the device does."""

    def __init__(self, shape: Any, dtype: Any = np.uint8, memptr: Any = None, *, host: Any = None) -> None:
        self.host = host if host is not None else _memory_at(memptr.ptr, int(np.prod(shape)))
        self.memptr = memptr
        self.data = SimpleNamespace(ptr=self.host.ctypes.data)
        self.nbytes = self.host.nbytes

    def __getitem__(self, key: slice) -> FakeDeviceArray:
        return FakeDeviceArray(None, memptr=self.memptr, host=self.host[key])

    def set(self, host: np.ndarray, stream: FakeStream) -> None:
        assert host.shape == self.host.shape
        pinned = any(np.shares_memory(host, p) for p in FAKE_PINNED)
        source, target = (host if pinned else host.copy()), self.host
        stream.queue.append(lambda: target.__setitem__(slice(None), source))

    def get(self, stream: FakeStream, out: np.ndarray, blocking: bool = True) -> None:
        source = self.host
        if blocking:
            stream.run()
            out[...] = source
            return
        assert any(np.shares_memory(out, p) for p in FAKE_PINNED), "an asynchronous copy needs pinned memory"
        stream.queue.append(lambda: out.__setitem__(Ellipsis, source))


FAKE_PINNED: list[np.ndarray] = []


def _holds(array: np.ndarray, ptr: int) -> bool:
    return array.ctypes.data <= ptr < array.ctypes.data + array.nbytes


class FakeCupy:
    """What CudaContext's buffers use of cupy. A copy from pinned memory reads the host bytes when the stream runs
    it; a copy from pageable memory takes them at once, as CUDA stages it before returning."""

    uint8 = np.uint8
    ndarray = FakeDeviceArray

    def __init__(self) -> None:
        FAKE_PINNED.clear()
        self.pinned = FAKE_PINNED
        self.registered = {}
        self.cuda = SimpleNamespace(
            Stream=FakeStream,
            Event=FakeEvent,
            UnownedMemory=FakeUnownedMemory,
            MemoryPointer=FakeMemoryPointer,
            alloc_pinned_memory=self.alloc_pinned_memory,
            memory=SimpleNamespace(OutOfMemoryError=MemoryError),
            runtime=SimpleNamespace(
                memGetInfo=lambda: (self.capacity - self.live_bytes, self.capacity),
                pointerGetAttributes=lambda ptr: SimpleNamespace(type=int(any(_holds(p, ptr) for p in FAKE_PINNED))),
                hostRegister=self.host_register,
                hostUnregister=self.host_unregister,
            ),
        )
        self.pool = SimpleNamespace(  # it frees at once, as the driver does
            free_all_blocks=gc.collect, free_bytes=lambda: 0, get_limit=lambda: 0, total_bytes=lambda: self.live_bytes
        )

    capacity = 1 << 20  # the device's bytes: an allocation beyond what live ones leave raises OutOfMemoryError

    @property
    def live_bytes(self) -> int:
        return sum(base.nbytes for base in live_allocations())

    def get_default_memory_pool(self) -> SimpleNamespace:
        return self.pool

    pinned_limit: int | None = None  # how many pinned buffers the host grants (None: any number)

    def alloc_pinned_memory(self, nbytes: int) -> bytearray:
        if self.pinned_limit is not None and len(self.pinned) >= self.pinned_limit:
            raise MemoryError("cudaErrorMemoryAllocation: out of memory")
        memory = bytearray(nbytes)
        self.pinned.append(np.frombuffer(memory, dtype=np.uint8))
        return memory

    registering = False  # whether the host pins pageable pages in place (else hostRegister fails, as it may)
    registered: dict[int, np.ndarray]  # start address → the pages pinned in place (also in FAKE_PINNED meanwhile)

    def host_register(self, start: int, size: int, flags: int) -> None:
        if not self.registering:
            raise RuntimeError("cudaErrorNotSupported")
        assert start % staging.PAGE == 0 and size % staging.PAGE == 0, "whole pages are registered"
        pages = np.ctypeslib.as_array((np.ctypeslib.ctypes.c_uint8 * size).from_address(start))
        self.registered[start] = pages
        FAKE_PINNED.append(pages)

    def host_unregister(self, start: int) -> None:
        pages = self.registered.pop(start)
        FAKE_PINNED[:] = [p for p in FAKE_PINNED if p is not pages]

    def empty(self, nbytes: int, dtype: Any) -> FakeDeviceArray:
        if self.live_bytes + nbytes > self.capacity:
            raise MemoryError(f"out of memory allocating {nbytes} bytes")
        host = np.zeros(nbytes, dtype=np.uint8)
        ALLOCATIONS.append(weakref.ref(host))
        return FakeDeviceArray(None, host=host)


def fake_context(monkeypatch: pytest.MonkeyPatch, fake: FakeCupy, lease_min: int = 1 << 30) -> Any:
    """A CudaContext over ``fake`` with a 2-buffer ring of 64 bytes; arrays below 32 bytes skip the ring, copies of
    48 bytes or more into and out of pinned memory go in pieces on the context's threads; uploads of ``lease_min``
    bytes or more go on the copy stream (by default none: the ring's tests watch the main stream)."""
    info = DeviceInfo("fake", "CUDA", "gpu", 1, 1 << 20, 1 << 20, {})
    monkeypatch.setattr(cuda_device, "import_cupy", lambda: fake)
    monkeypatch.setattr(cuda_device, "device_info", lambda cp, device: info)
    monkeypatch.setattr(staging, "STAGING_BUFFERS", 2)
    monkeypatch.setattr(staging, "STAGING_BYTES", 64)
    monkeypatch.setattr(staging, "STAGING_MIN_BYTES", 32)
    monkeypatch.setattr(staging, "COPY_SPLIT_BYTES", 48)  # full parts and the reads take the threaded copy
    monkeypatch.setattr(cuda_device, "LEASE_MIN_BYTES", lease_min)
    monkeypatch.setattr(staging, "REGISTER_MIN_BYTES", 100)
    monkeypatch.setattr(cuda_device, "LEASE_CACHE_FRACTION", 0.5)  # of the fake's 1 MiB
    monkeypatch.setattr(cuda_device, "keep_large_apart", lambda cp, device_bytes: device_bytes)  # the fake's own pool
    return cuda_device.CudaContext(FakeDevice())


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
    monkeypatch.setattr(ctx.host, "_ring_size", 8)
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


# --- the copy stream and its leased memory ---------------------------------------------------------------------


@pytest.fixture
def copying(monkeypatch: pytest.MonkeyPatch) -> Any:
    """A fake context whose uploads of 128 bytes or more take the copy stream, into slots of 64-byte steps."""
    from cuzk.backends.cuda import uploads

    monkeypatch.setattr(uploads, "SLOT_ROUND", 64)
    return fake_context(monkeypatch, FakeCupy(), lease_min=128)


def kernel_on(ctx: Any) -> list[str]:
    """Queue a stand-in for a kernel on the main stream; the list it returns says when it ran."""
    ran: list[str] = []
    ctx.stream.queue.append(lambda: ran.append("kernel"))
    return ran


def test_a_large_upload_copies_beside_the_kernels_queued_before_it(copying: Any) -> None:
    """Once a free slot's readers are done (the steady state: an earlier proof's slots), the copy is queued on the
    copy stream, not behind the main stream's kernel: running the copy stream alone fills the buffer while that
    kernel still waits; a read of it on the main stream waits for the copy."""
    ctx, rng = copying, np.random.default_rng(5)
    ctx.read(ctx.upload(np.zeros(200, dtype=np.uint8)), (1,), np.uint8)  # a slot, used and given back
    gc.collect()
    ctx.stream.run()
    ran = kernel_on(ctx)
    data = rng.integers(0, 256, 200, dtype=np.uint8)
    buf = ctx.upload(data)
    ctx.leases.copy_stream.run()
    assert ran == [], "the copy must not wait for the kernel queued before it"
    np.testing.assert_array_equal(buf.host, data)
    np.testing.assert_array_equal(ctx.read(buf, (200,), np.uint8), data)
    assert ran == ["kernel"]


def test_a_read_of_an_upload_waits_for_its_copy(copying: Any) -> None:
    """The main stream's read of a fresh upload runs after the copy (on the other stream) even when only the main
    stream is run."""
    ctx, data = copying, np.arange(256, dtype=np.uint8)
    buf = ctx.upload(data)
    finish = ctx.read_later(buf, (256,), np.uint8)
    ctx.stream.run()
    np.testing.assert_array_equal(finish(), data)


def test_a_write_into_an_upload_comes_after_its_copy(copying: Any) -> None:
    """A main-stream write into a buffer whose copy is pending lands after it: the buffer holds the write."""
    ctx = copying
    buf = ctx.upload(np.full(128, 7, dtype=np.uint8))
    ctx.write(buf, np.zeros(16, dtype=np.uint8))  # small: straight onto the main stream
    expected = np.r_[np.zeros(16, dtype=np.uint8), np.full(112, 7, dtype=np.uint8)]
    np.testing.assert_array_equal(ctx.read(buf, (128,), np.uint8), expected)


def test_a_slot_is_rewritten_only_after_its_earlier_readers(copying: Any) -> None:
    """Upload A, queue a read of it behind a kernel, drop A: the next upload of that size reuses A's slot, and its
    copy (run first, on the copy stream) waits for the read, which still sees A."""
    ctx, rng = copying, np.random.default_rng(6)
    a = rng.integers(0, 256, 256, dtype=np.uint8)
    buf = ctx.upload(a)
    address = buf.data.ptr
    kernel_on(ctx)
    read_a = ctx.read_later(buf, (256,), np.uint8)
    del buf
    gc.collect()
    b = rng.integers(0, 256, 256, dtype=np.uint8)
    buf_b = ctx.upload(b)
    assert buf_b.data.ptr == address, "the free slot must be reused"
    ctx.leases.copy_stream.run()
    np.testing.assert_array_equal(read_a(), a)
    np.testing.assert_array_equal(ctx.read(buf_b, (256,), np.uint8), b)


def test_a_new_slot_is_written_after_the_main_streams_queued_work(copying: Any) -> None:
    """A slot just taken from the pool may be memory that a queued kernel still reads (freed by its array): its
    first copy waits for the main stream's tail."""
    ctx = copying
    ran = kernel_on(ctx)
    ctx.upload(np.ones(300, dtype=np.uint8))
    ctx.leases.copy_stream.run()
    assert ran == ["kernel"]


def test_free_slots_are_cached_up_to_the_limit_and_released_on_demand(copying: Any) -> None:
    """Free slots stay for reuse up to the cache's bytes (half the fake's 1 MiB here), count as the context's
    cached memory, and release_cached gives them all back."""
    ctx = copying
    bufs = [ctx.upload(np.ones(n, dtype=np.uint8)) for n in (1 << 18, 1 << 18, 1 << 18)]
    assert ctx.cached_bytes == 0
    del bufs
    gc.collect()
    kept = ctx.upload(np.ones(128, dtype=np.uint8))  # a lease takes the returned slots in
    assert ctx.cached_bytes == 2 * (1 << 18), "three free slots of 256 KiB, kept up to 512 KiB"
    del kept
    ctx.release_cached()
    assert ctx.cached_bytes == 0


@pytest.mark.parametrize("path", ["buffer", "upload"])
def test_an_allocation_the_cached_slots_block_gives_them_back_and_succeeds(copying: Any, path: str) -> None:
    """With the fake's 1 MiB full of free cached slots and one live buffer, a new buffer (or a new slot of an upload)
    that does not fit is allocated after the slots go back to the device, instead of failing; the device's free
    memory as the planners see it counts the allocations that live between calls."""
    ctx = copying
    bufs = [ctx.upload(np.ones(1 << 18, dtype=np.uint8)) for _ in range(2)]
    del bufs
    gc.collect()
    live = ctx.buffer(1 << 18)
    ctx.upload(np.ones(64, dtype=np.uint8))  # takes the returned slots in
    assert ctx.cached_bytes == 2 * (1 << 18)
    assert ctx.free_bytes < (1 << 20) - 3 * (1 << 18) + 4096
    size = 3 * (1 << 18) - 4096
    retries = allocation_retries()
    new = ctx.buffer(size) if path == "buffer" else ctx.upload(np.full(size, 7, dtype=np.uint8))
    assert new.nbytes == size and ctx.cached_bytes == 0 and allocation_retries() == retries + 1
    if path == "upload":
        ctx.stream.synchronize()
        ctx.leases.copy_stream.run()
        assert (new.host == 7).all()
    with pytest.raises(MemoryError):
        ctx.buffer(1 << 19)  # nothing cached is left to give back: the error stands
    del live


def test_an_upload_from_pinned_memory_is_copied_in_place_before_it_returns(copying: Any) -> None:
    """An array in pinned memory (``host_array``) goes to the device without the ring: no ring buffer is made, the
    copy runs on the copy stream beside the main stream's queued kernel, and upload returns once it ran, so that
    the caller may overwrite its array at once; a plain array is not taken for pinned."""
    ctx, rng = copying, np.random.default_rng(8)
    ctx.read(ctx.upload(np.zeros(200, dtype=np.uint8)), (1,), np.uint8)  # a slot, used and given back
    gc.collect()
    ctx.stream.run()
    data = ctx.host_array((50,), np.uint32)
    pinned = len(FAKE_PINNED)
    assert any(np.shares_memory(data, p) for p in FAKE_PINNED)
    data[...] = rng.integers(0, 1 << 32, 50, dtype=np.uint32)
    original = data.copy()
    ran = kernel_on(ctx)
    buf = ctx.upload(data)
    data[...] = 0
    assert len(FAKE_PINNED) == pinned, "a pinned array needs no ring buffer"
    assert ran == [], "the copy must not wait for the kernel queued before it"
    np.testing.assert_array_equal(ctx.read(buf, (50,), np.uint32), original)
    assert not ctx.host.is_pinned(np.concatenate([data, data]).view(np.uint8))
    assert not ctx.host.is_pinned(np.zeros(8, dtype=np.uint8))


def test_a_check_beside_a_pinned_upload_runs_while_the_copy_is_queued(copying: Any) -> None:
    """``meanwhile`` (the kept scalars' canonical check) runs while the DMA from pinned memory is queued, and its
    error propagates only once the copy has run (the leased slot is not rewritten under a running copy)."""
    ctx = copying
    ctx.read(ctx.upload(np.zeros(200, dtype=np.uint8)), (1,), np.uint8)  # a slot, used and given back
    gc.collect()
    ctx.stream.run()
    data = ctx.host_array((200,), np.uint8)
    data[...] = 7
    queued: list[bool] = []

    def check() -> None:
        queued.append(bool(ctx.leases.copy_stream.queue))
        raise ValueError("a scalar is not canonical")

    with pytest.raises(ValueError, match="not canonical"):
        ctx.upload(data, check)
    assert queued == [True], "the check must run beside the queued copy"
    left = [op.__qualname__ for op in ctx.leases.copy_stream.queue]
    assert all(name.startswith("FakeEvent.") for name in left), f"the copy must have run before the error: {left}"


def test_a_large_pageable_upload_pins_its_pages_in_place_for_the_copy(copying: Any) -> None:
    """Where the host pins pageable pages in place (cudaHostRegister), a large upload of a plain array, or of a
    file's read-only memory map, is copied from them without the ring: whole pages registered, the copy queued
    beside the main stream's kernel, run before upload returns (the caller may overwrite its array at once), the
    pages unpinned after; a small one, or one the host refuses to pin, goes through the ring."""
    ctx, fake = copying, copying.cp
    fake.registering = True
    rng = np.random.default_rng(9)
    ctx.read(ctx.upload(np.zeros(300, dtype=np.uint8)), (1,), np.uint8)  # a slot, used and given back
    gc.collect()
    ctx.stream.run()
    pinned = len(FAKE_PINNED)
    data = rng.integers(0, 256, 300, dtype=np.uint8)
    original = data.copy()
    ran = kernel_on(ctx)
    buf = ctx.upload(data)
    data[...] = 0
    assert ran == [], "the copy must not wait for the kernel queued before it"
    assert len(FAKE_PINNED) == pinned and not fake.registered, "no ring buffer made, the pages unpinned after"
    np.testing.assert_array_equal(ctx.read(buf, (300,), np.uint8), original)
    assert ctx.host.register(np.zeros(99, dtype=np.uint8)) is None, "below REGISTER_MIN_BYTES: the ring"
    fake.registering = False
    refused = ctx.upload(original)
    assert len(FAKE_PINNED) > pinned, "refused: through the ring"
    np.testing.assert_array_equal(ctx.read(refused, (300,), np.uint8), original)


def test_an_upload_of_a_files_read_only_map_is_copied_from_its_pages(copying: Any, tmp_path: Any) -> None:
    """A key's section, read-only in its file's memory map, reaches the device intact through its pinned pages."""
    ctx, fake = copying, copying.cp
    fake.registering = True
    path = tmp_path / "section.bin"
    data = np.random.default_rng(10).integers(0, 256, 5000, dtype=np.uint8)
    path.write_bytes(data.tobytes())
    mapped = np.memmap(path, dtype=np.uint8, mode="r")[1000:1400]
    buf = ctx.upload(mapped)
    assert not fake.registered
    np.testing.assert_array_equal(ctx.read(buf, (400,), np.uint8), data[1000:1400])
