"""The largest device arrays outside CuPy's pool (:mod:`cuzk.backends.cuda.large_blocks`): over a stand-in CuPy,
which requests go where and what is counted live; on a real GPU, in a process of its own (the allocator is
process-wide), that a freed large array's memory goes back to the device while a small one's stays in the pool."""

from __future__ import annotations

import gc
import os
import subprocess
import sys
import weakref
from types import SimpleNamespace
from typing import Any

import pytest

from cuzk.backends.cuda import large_blocks

from ._gpu import available


class FakeRuntimeError(Exception):
    pass


class FakeOutOfMemoryError(MemoryError):
    def __init__(self, size: int, total: int, limit: int = 0) -> None:
        super().__init__(f"{size} bytes ({total} allocated)")


def fake_cupy(device_free: list[int], pooled: list[int]) -> Any:
    """A device of ``device_free[0]`` bytes whose Memory is a cudaMalloc, and a pool that records its requests
    and holds ``pooled`` bytes of free blocks until free_all_blocks."""

    class Memory:
        def __init__(self, size: int) -> None:
            self.size, self.ptr = size, 0
            if size > device_free[0]:
                raise FakeRuntimeError("cudaErrorMemoryAllocation")
            device_free[0] -= size
            self.ptr = 1
            weakref.finalize(self, release, size)  # as CuPy's __dealloc__: runs whatever a subclass's __del__ does

    def release(size: int) -> None:
        device_free[0] += size

    def free_all_blocks() -> None:
        device_free[0] += pooled[0]
        pooled[0] = 0

    installed: list[Any] = []
    pool = SimpleNamespace(malloc=lambda n: ("pool", n), free_all_blocks=free_all_blocks)
    cuda = SimpleNamespace(
        Memory=Memory,
        MemoryPointer=lambda memory, offset: SimpleNamespace(mem=memory, offset=offset),
        set_allocator=installed.append,
        get_allocator=lambda: installed[-1] if installed else pool.malloc,
        runtime=SimpleNamespace(CUDARuntimeError=FakeRuntimeError),
        memory=SimpleNamespace(OutOfMemoryError=FakeOutOfMemoryError),
    )
    return SimpleNamespace(cuda=cuda, get_default_memory_pool=lambda: pool, installed=installed)


@pytest.fixture
def fresh(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(large_blocks, "_installed", [])
    monkeypatch.setattr(large_blocks, "_live", [0])


def test_large_requests_get_their_own_memory_and_small_ones_the_pool(fresh: None) -> None:
    device_free, pooled = [6400], [1000]
    cp = fake_cupy(device_free, pooled)
    threshold = large_blocks.keep_large_apart(cp, 6400)
    assert threshold == 100 and large_blocks.keep_large_apart(cp, 1 << 40) == 100 and len(cp.installed) == 1
    malloc = cp.installed[0]
    assert malloc(99) == ("pool", 99)
    big = malloc(3000)
    assert big.mem.size == 3000 and device_free[0] == 3400 and large_blocks.live_bytes() == 3000
    second = malloc(4000)  # the device has 3400: the pool's free blocks go back first, then it fits
    assert pooled[0] == 0 and device_free[0] == 400 and large_blocks.live_bytes() == 7000
    del big
    gc.collect()
    assert device_free[0] == 3400 and large_blocks.live_bytes() == 4000
    with pytest.raises(FakeOutOfMemoryError):
        malloc(5000)  # nothing left to give back: the pool's error, which the engine's plans answer
    assert large_blocks.live_bytes() == 4000
    del second


def test_an_allocator_the_process_chose_is_left_alone(fresh: None) -> None:
    """A stream-ordered pool (or RMM's allocator) set before the context: nothing goes in front of it."""
    cp = fake_cupy([6400], [0])
    chosen = lambda n: ("async pool", n)  # noqa: E731
    cp.cuda.set_allocator(chosen)
    assert large_blocks.keep_large_apart(cp, 6400) is None and large_blocks.keep_large_apart(cp, 6400) is None
    assert cp.installed == [chosen] and cp.cuda.get_allocator()(5000) == ("async pool", 5000)


CHILD = """
import cupy as cp
from cuzk.backends.cuda import large_blocks
from cuzk.backends.registry import get_backend

backend = get_backend("cuda")
backend.context  # opens the context, which installs the allocator
threshold, pool = large_blocks.keep_large_apart(cp, 0), cp.get_default_memory_pool()
small, large = cp.zeros(threshold // 4, dtype=cp.uint8), cp.ones(threshold, dtype=cp.uint8)
live, kept = large_blocks.live_bytes(), int(large.sum())
held = cp.cuda.runtime.memGetInfo()[0]
del small, large
print(threshold, live, kept, cp.cuda.runtime.memGetInfo()[0] - held, pool.free_bytes(), large_blocks.live_bytes())
"""


def test_cuda_a_large_array_goes_back_to_the_device_when_it_dies() -> None:
    available("cuda")
    done = subprocess.run([sys.executable, "-c", CHILD], capture_output=True, text=True, env=dict(os.environ))
    assert done.returncode == 0, done.stderr
    threshold, live, kept, returned, pool_free, left = (int(w) for w in done.stdout.split()[-6:])
    assert live == threshold and kept == threshold, "the large array lives outside the pool and holds its values"
    assert returned >= threshold and pool_free >= threshold // 4 and left == 0
