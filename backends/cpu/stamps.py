"""The warm-up's stamps: which tasks' kernels numba's cache already holds for this CPU and these sources, and the
lock a task's process holds while it compiles them (:mod:`.warm`)."""

from __future__ import annotations

import functools
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from cuzk.reference.curves import Curve


def stamp(curve: Curve, task: str) -> Path:
    """The file that says ``task``'s kernels for ``curve`` are in the cache, for these sources and this CPU."""
    folder, cpu, fingerprint = _stamp_parts()
    return folder / f"warm-{curve.name}-{task}-{cpu}-{fingerprint}.done"


@functools.cache
def _stamp_parts() -> tuple[Path, str, str]:
    """A stamp's folder, CPU and sources, fixed in a process: asked once (a server's check asks readiness for every
    proof; numba's cache locator and llvmlite's CPU query took 0.7 ms a question)."""
    import llvmlite.binding

    from cuzk.backends.cpu.jit import package_cache_path, source_fingerprint

    cpu = "".join(ch if ch.isalnum() else "_" for ch in llvmlite.binding.get_host_cpu_name())
    return package_cache_path(), cpu, source_fingerprint().hex()[:16]


def done(curve: Curve, task: str) -> bool:
    """Whether ``task``'s kernels for ``curve`` load without compiling: stamped in the cache, or shipped
    (:mod:`.prebuilt`, built for a generic x86-64 CPU)."""
    from cuzk.backends.cpu import prebuilt

    return stamp(curve, task).exists() or prebuilt.covers(curve.name, task)


@contextmanager
def task_lock(curve: Curve, task: str, *, wait: bool = True) -> Iterator[bool]:
    """An exclusive lock on ``task``'s lock file for the block; yields whether it was taken (``wait`` False: not
    when another process holds it). Always taken where fcntl is missing."""
    try:
        import fcntl
    except ImportError:
        yield True
        return
    path = stamp(curve, task).with_suffix(".lock")
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "a+b") as handle:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | (0 if wait else fcntl.LOCK_NB))
        except BlockingIOError:
            yield False
            return
        try:
            yield True
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def in_flight(curve: Curve, task: str) -> bool:
    """Whether another process is running ``task`` now (holds its lock)."""
    with task_lock(curve, task, wait=False) as taken:
        return not taken


__all__ = ["done", "in_flight", "stamp", "task_lock"]
