"""CuPy's pool under a cap (:mod:`cuzk.backends.cuda.pool_cap`): over a stand-in pool that behaves as CuPy's does
(freed blocks kept, a request past the cap refused with the free blocks still counted), and on a real GPU in a
process of its own (the allocator is process-wide), where CUPY_GPU_MEMORY_LIMIT sets the cap."""

from __future__ import annotations

import os
import subprocess
import sys
from types import SimpleNamespace
from typing import Any

import pytest

from cuzk.backends.cuda import pool_cap

from ._gpu import available


class OutOfMemory(MemoryError):
    pass


class CappedPool:
    """CuPy's pool as the cap sees it: a freed block stays counted until free_all_blocks, and a request that no free
    block fits and that would pass ``limit`` is refused."""

    def __init__(self, limit: int) -> None:
        self.limit, self.total = limit, 0
        self.free: list[int] = []

    def get_limit(self) -> int:
        return self.limit

    def malloc(self, nbytes: int) -> SimpleNamespace:
        fits = [size for size in self.free if size >= nbytes]
        if fits:
            self.free.remove(min(fits))
            return SimpleNamespace(nbytes=min(fits), pool=self)
        if self.limit and self.total + nbytes > self.limit:
            raise OutOfMemory(f"{nbytes} bytes past the cap of {self.limit}")
        self.total += nbytes
        return SimpleNamespace(nbytes=nbytes, pool=self)

    def release(self, block: SimpleNamespace) -> None:
        self.free.append(block.nbytes)

    def free_all_blocks(self) -> None:
        self.total -= sum(self.free)
        self.free.clear()


def fake_cupy(pool: CappedPool, synced: list[bool]) -> Any:
    installed: list[Any] = []
    cuda = SimpleNamespace(
        set_allocator=installed.append,
        memory=SimpleNamespace(OutOfMemoryError=OutOfMemory),
        runtime=SimpleNamespace(deviceSynchronize=lambda: synced.append(True)),
    )
    return SimpleNamespace(get_default_memory_pool=lambda: pool, cuda=cuda, installed=installed)


@pytest.fixture
def fresh(monkeypatch: pytest.MonkeyPatch) -> None:
    """The module's process-wide state as in a new process."""
    monkeypatch.setattr(pool_cap, "_releases", [])
    monkeypatch.setattr(pool_cap, "_installed", [False])
    monkeypatch.setattr(pool_cap, "_retries", [0])


def test_without_a_cap_nothing_is_installed(fresh: None) -> None:
    cp = fake_cupy(CappedPool(limit=0), [])
    assert pool_cap.keep_within_cap(cp, lambda: None) is False
    assert cp.installed == []


def test_a_request_past_the_cap_gets_the_free_blocks_back_and_succeeds(fresh: None) -> None:
    """60 of a 100-byte cap freed but held by the pool: 70 more fail in the pool alone, and succeed through the
    installed allocator once the contexts' caches and the pool's free blocks are given back."""
    pool, synced, released = CappedPool(limit=100), [], []
    cp = fake_cupy(pool, synced)
    assert pool_cap.keep_within_cap(cp, lambda: released.append("first"))
    assert pool_cap.keep_within_cap(cp, lambda: released.append("second"))
    assert len(cp.installed) == 1  # one allocator for the process, every context's cache behind it
    malloc = cp.installed[0]
    pool.release(malloc(60))
    with pytest.raises(OutOfMemory):
        pool.malloc(70)
    block = malloc(70)
    assert block.nbytes == 70 and pool.total == 70 and pool.free == []
    assert released == ["first", "second"] and synced == [True] and pool_cap.cap_retries() == 1
    assert malloc(30).nbytes == 30 and pool_cap.cap_retries() == 1  # within the cap: no retry
    with pytest.raises(OutOfMemory):
        malloc(1)  # 100 live bytes: nothing to give back, the refusal stands
    assert pool_cap.cap_retries() == 2


CHILD = """
import cupy as cp
from cuzk.backends.cuda.pool_cap import cap_retries
from cuzk.backends.registry import get_backend

backend = get_backend("cuda")
backend.context  # opens the context, which installs the capped allocator
first = cp.empty(40 << 20, dtype=cp.uint8)
del first  # 40 MiB freed, still held by CuPy's pool
second = cp.empty(48 << 20, dtype=cp.uint8)  # 88 MiB past the 64 MiB cap without the allocator
print(cap_retries(), cp.get_default_memory_pool().total_bytes() >> 20)
"""


def test_cuda_a_capped_pool_gives_back_its_free_blocks_on_a_device() -> None:
    available("cuda")
    env = {**os.environ, "CUPY_GPU_MEMORY_LIMIT": str(64 << 20), "CUZK_BACKEND": "cuda"}
    done = subprocess.run([sys.executable, "-c", CHILD], capture_output=True, text=True, env=env, timeout=300)
    assert done.returncode == 0, done.stderr
    retries, held_mib = (int(word) for word in done.stdout.split()[-2:])
    assert retries == 1 and held_mib <= 64
