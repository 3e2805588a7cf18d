"""Uploads that overlap the kernels: host-to-device copies on a second stream, into device memory leased from the
context.

On one stream an upload queued behind another thread's kernels waits for them, and the device idles while it then
copies (the a, b, c of a proof's H waited for the B_G2 MSM's kernels). On a stream of its own the copy runs beside
them, and the kernels that read it wait for it alone (:meth:`LeasedUploads.await_copies`, at each launch). What
makes that safe is where the copy lands: memory that no queued kernel may still touch. A block CuPy's pool hands
out may have been freed by an array whose kernels are still queued (a stream's own order protects its own reuse,
not another stream's), so the copies go into slots the context owns and lends:

- a slot is lent to one upload at a time, through an array whose memory is owned by a :class:`Lease`; when the last
  array (or view) over it dies, the lease's finalizer records an event on the main stream, after every kernel that
  could still read the slot, and the slot goes back to the free list;
- the copy stream waits for that event before writing the slot again (long done in steady state: a proof's slots
  are free again for the next proof), and for the main stream's tail before writing a slot it has just allocated;
- free slots beyond ``cache_bytes`` go back to CuPy's pool, once the main stream has waited for their last copy.
"""

from __future__ import annotations

import threading
import weakref
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

SLOT_ROUND = 1 << 20  # slots are whole MiBs, so that uploads of nearly one size share them


@dataclass(eq=False)
class Slot:
    """Device memory the context lends to one upload at a time."""

    memory: Any  # a cupy uint8 array from the pool
    nbytes: int
    released: Any = None  # main-stream event after the last lease's readers (None: never lent)
    copied: Any = None  # copy-stream event after the last copy into it


class Lease:
    """The owner of a lent slot's memory: it lives as long as any array over the slot."""

    __slots__ = ("__weakref__", "slot")

    def __init__(self, slot: Slot) -> None:
        self.slot = slot


@dataclass(eq=False)
class LeasedUploads:
    """The copy stream, the slots and the copies the main stream has not yet waited for."""

    cp: Any
    device: Any
    stream: Any  # the main stream: kernels and reads
    cache_bytes: int  # free slots kept for reuse, at most
    copy_stream: Any = None
    _free: list[Slot] = field(default_factory=list)
    _returned: deque[tuple[Slot, Any]] = field(default_factory=deque)  # filled by finalizers, drained under _lock
    _pending: list[tuple[int, int, Any]] = field(default_factory=list)  # (first byte, end, copy event)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def __post_init__(self) -> None:
        with self.device:
            self.copy_stream = self.cp.cuda.Stream(non_blocking=True)

    @property
    def idle_bytes(self) -> int:
        """Device memory held in free slots."""
        with self._lock:
            self._drain()
            return sum(slot.nbytes for slot in self._free)

    def lease(self, nbytes: int) -> tuple[Any, Slot]:
        """A uint8 device array of ``nbytes`` in a slot that the copy stream may write once this returns (its
        earlier readers are behind the events the copy stream now waits for), and the slot."""
        with self._lock:
            self._drain()
            slot = self._take(nbytes)
            if slot is None:
                size = -(-nbytes // SLOT_ROUND) * SLOT_ROUND
                slot = Slot(self._allocate(size), size)
                self.copy_stream.wait_event(self._mark(self.stream))  # what the pool's block may still serve
            elif slot.released is not None and not slot.released.done:
                self.copy_stream.wait_event(slot.released)
        lease = Lease(slot)
        finalizer = weakref.finalize(lease, self._give_back, slot)
        finalizer.atexit = False
        memory = self.cp.cuda.UnownedMemory(slot.memory.data.ptr, nbytes, lease, self.device.id)
        array = self.cp.ndarray((nbytes,), dtype=self.cp.uint8, memptr=self.cp.cuda.MemoryPointer(memory, 0))
        return array, slot

    def copied(self, buf: Any, slot: Slot) -> None:
        """Mark the end of the copy stream's copy into ``buf`` (leased from ``slot``): the main stream waits for it
        before ``buf`` is read (:meth:`await_copies`)."""
        slot.copied = event = self._mark(self.copy_stream)
        start = buf.data.ptr
        self._pending.append((start, start + buf.nbytes, event))

    def await_copies(self, args: tuple[Any, ...]) -> None:
        """Make the main stream wait for the pending copies into any device array among ``args``."""
        if not self._pending:
            return
        spans = [(a.data.ptr, a.data.ptr + a.nbytes) for a in args if isinstance(a, self.cp.ndarray)]
        keep = []
        for start, end, event in self._pending:
            if event.done:
                continue
            if any(lo < end and start < hi for lo, hi in spans):
                self.stream.wait_event(event)
            else:
                keep.append((start, end, event))
        self._pending[:] = keep

    def trim(self, keep_bytes: int) -> None:
        """Give free slots back to CuPy's pool until at most ``keep_bytes`` stay free (oldest first)."""
        with self._lock:
            self._drain()
            self._trim(keep_bytes)

    # --- inside ------------------------------------------------------------------------------------------------

    def _allocate(self, nbytes: int) -> Any:
        """A new slot's memory (the free slots given back first when the device has none left: :func:`allocate`)."""
        with self.device, self.stream:
            return allocate(self.cp, self.stream, nbytes, lambda: self._trim(0))  # _lock is held: _trim, not trim

    def _mark(self, stream: Any) -> Any:
        event = self.cp.cuda.Event(disable_timing=True)
        with self.device:
            event.record(stream)
        return event

    def _give_back(self, slot: Slot) -> None:
        """The lease's finalizer: every kernel that reads the slot is queued by now, so an event recorded on the main
        stream now follows them. Only a deque append (atomic): finalizers run at arbitrary points. A slot whose event
        cannot be recorded (the interpreter is shutting down) is dropped, never lent again."""
        try:
            released = self._mark(self.stream)
        except Exception:
            return
        self._returned.append((slot, released))

    def _drain(self) -> None:
        while self._returned:
            slot, released = self._returned.popleft()
            slot.released = released
            self._free.append(slot)
        self._trim(self.cache_bytes)

    def _trim(self, keep_bytes: int) -> None:
        while self._free and sum(slot.nbytes for slot in self._free) > keep_bytes:
            slot = self._free.pop(0)
            if slot.copied is not None:  # the pool's next user, on the main stream, comes after the copy
                self.stream.wait_event(slot.copied)

    def _take(self, nbytes: int) -> Slot | None:
        """The smallest free slot of nbytes to 2·nbytes, those whose readers are done first."""
        fits = [s for s in self._free if nbytes <= s.nbytes <= 2 * max(nbytes, SLOT_ROUND)]
        if not fits:
            return None
        slot = min(fits, key=lambda s: (s.released is not None and not s.released.done, s.nbytes))
        self._free.remove(slot)
        return slot


_retries = [0]  # allocations tried a second time, in this process (a costly path: a wait and the pool emptied)


def allocation_retries() -> int:
    """How many allocations this process has tried a second time (:func:`allocate`), for the benchmarks."""
    return _retries[0]


def allocate(cp: Any, stream: Any, nbytes: int, release: Callable[[], None]) -> Any:
    """A uint8 device array of ``nbytes`` (the caller makes the device and ``stream`` current). When the device has
    no memory left: ``release()`` lets go of what the context caches, the stream's queued work (the last copies into
    what was released) is waited for, the pool's free blocks go back to the device, and the allocation is tried once
    more (counted: :func:`allocation_retries`); its error then stands."""
    try:
        return cp.empty(nbytes, dtype=cp.uint8)
    except cp.cuda.memory.OutOfMemoryError:
        _retries[0] += 1
        release()
        stream.synchronize()
        cp.get_default_memory_pool().free_all_blocks()
        return cp.empty(nbytes, dtype=cp.uint8)


__all__ = ["Lease", "LeasedUploads", "Slot", "allocate", "allocation_retries"]
