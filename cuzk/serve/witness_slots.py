"""The witnesses a prover process holds, passed through shared memory instead of its pipe.

A 2^20-constraint witness is 32 MiB of .wtns bytes. Sent down the child's pipe (``send_bytes``, ``recv_bytes``) it
costs tens of milliseconds of both processes' time, the child's while its prove thread launches kernels
(benchmarks/serve/body_read.py measures both ways). Instead the head copies the bytes into a free slot of one
mapping both processes share and sends the slot's number; the child parses the witness from there in place.

The mapping is an anonymous file (``memfd_create`` on Linux, else an unlinked temporary file) with ``count`` slots
of ``size`` bytes. It has no name, so nothing outlives the processes (a ``kill -9`` leaks nothing). A child receives
it at its start: pickling a :class:`WitnessSlots` while multiprocessing spawns the child passes a duplicate of the
file's descriptor along (``multiprocessing.reduction.DupFd``), and the child maps the same file.

Only the head gives out and takes back slots (:meth:`take`, :meth:`give_back`); it gives one back once the child
has answered for the job in it, or died. A witness that does not fit a slot (a .wtns with sections of its own) goes
down the pipe as before.
"""

from __future__ import annotations

import mmap
import os
import tempfile
import threading
from multiprocessing import reduction
from typing import Any

AVAILABLE = hasattr(reduction, "DupFd") and hasattr(os, "ftruncate")  # POSIX: a descriptor can follow a spawn


def anonymous_file(size: int) -> int:
    """A descriptor of a new file of ``size`` zero bytes with no name (it ends with its last descriptor)."""
    if hasattr(os, "memfd_create"):
        fd = os.memfd_create("cuzk-witnesses", os.MFD_CLOEXEC)
    else:
        with tempfile.TemporaryFile() as file:  # unlinked already; the duplicate below keeps it
            fd = os.dup(file.fileno())
    os.ftruncate(fd, size)
    return fd


class WitnessSlots:
    """``count`` slots of ``size`` bytes in one shared mapping (in the head: made new; in a child: attached)."""

    def __init__(self, count: int, size: int, fd: int | None = None) -> None:
        if count < 1 or size < 1:
            raise ValueError(f"witness slots need a count and a size of at least 1, not {count} and {size}")
        self.count, self.size = count, size
        self.fd = anonymous_file(count * size) if fd is None else fd
        self.map = mmap.mmap(self.fd, count * size)
        self._free = list(range(count))
        self._lock = threading.Lock()  # the head's sender takes slots, its receiver gives them back

    def __reduce__(self) -> tuple[Any, ...]:
        return (_attach, (reduction.DupFd(self.fd), self.count, self.size))

    def take(self, data: bytes | bytearray | memoryview) -> int | None:
        """A free slot holding a copy of ``data``; None when ``data`` is larger than a slot or no slot is free."""
        if len(data) > self.size:
            return None
        with self._lock:
            if not self._free:
                return None
            index = self._free.pop()
        start = index * self.size
        self.map[start : start + len(data)] = data
        return index

    def give_back(self, index: int) -> None:
        """Free slot ``index`` (its job answered for, or lost with its child)."""
        with self._lock:
            if index in self._free or not 0 <= index < self.count:
                raise ValueError(f"witness slot {index} was not taken")
            self._free.append(index)

    def view(self, index: int, length: int) -> memoryview:
        """The first ``length`` bytes of slot ``index``, in place (the child's side)."""
        if not (0 <= index < self.count and 0 <= length <= self.size):
            raise ValueError(f"no witness of {length} bytes in slot {index} of {self.count} × {self.size} bytes")
        start = index * self.size
        return memoryview(self.map)[start : start + length]


def _attach(fd: Any, count: int, size: int) -> WitnessSlots:
    """The child's WitnessSlots: the head's file, by the descriptor that came with the spawn."""
    return WitnessSlots(count, size, fd.detach())


__all__ = ["AVAILABLE", "WitnessSlots", "anonymous_file"]
