"""A job in memory, its outcome, and the bounded queue that the request handlers fill and the workers drain.

The queue holds at most ``capacity`` jobs: a handler first :meth:`JobQueue.reserve`s a place (refused: 429), then
journals the job and puts it; a reservation keeps two handlers from taking the last place together while one of
them writes its journal row. Jobs read back from the journal at start are put without a place (``force``): a
restart never drops an accepted job, even when more were queued than the new capacity.
"""

from __future__ import annotations

import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from cuzk.formats.wtns import Witness

QUEUED, RUNNING, DONE, FAILED, CANCELLED = "queued", "running", "done", "failed", "cancelled"
WtnsBytes = bytes | bytearray | memoryview  # a witness's .wtns bytes: a body, a journal's row, a shared slot
FINISHED = (DONE, FAILED, CANCELLED)


@dataclass(frozen=True)
class Outcome:
    """How a job ended: ``status`` DONE with ``result`` ({"proof", "public"}) or FAILED with ``error``; ``http``
    the status a synchronous request is answered with (200, 422, 503 or 504)."""

    status: str
    result: dict[str, Any] | None = None
    error: str | None = None
    http: int = 200


@dataclass(eq=False)
class Job:
    """One witness to prove with one key. ``durable``: an asynchronous job, in the journal; a synchronous one lives
    only here and its ``notify`` gets the outcome. ``witness`` is the parsed witness when the handler read it (a job
    read back from the journal is parsed again by its worker). ``in_upload_memory``: ``wtns`` was read into its
    prover's upload memory (:meth:`~cuzk.serve.service.Service.upload_memory`), which reads the values where they
    lie."""

    id: str
    key: str
    wtns: WtnsBytes
    durable: bool
    witness: Witness | None = None
    notify: Callable[[Outcome], None] | None = None
    accepted: float = field(default_factory=time.time)
    started: float | None = None
    attempts: int = 0
    in_upload_memory: bool = False


class JobQueue:
    """A FIFO of jobs with a capacity, shared by the handlers (on the event loop) and the workers (threads)."""

    def __init__(self, capacity: int) -> None:
        self.capacity = capacity
        self._jobs: deque[Job] = deque()
        self._reserved = 0
        self._closed = False
        self._ready = threading.Condition()

    def __len__(self) -> int:
        with self._ready:
            return len(self._jobs)

    @property
    def closed(self) -> bool:
        return self._closed

    def reserve(self) -> bool:
        """Take a place for a job about to be put; False when the queue is full (or closed)."""
        with self._ready:
            if self._closed or len(self._jobs) + self._reserved >= self.capacity:
                return False
            self._reserved += 1
            return True

    def release(self) -> None:
        """Give back a place taken by :meth:`reserve` for a job that will not be put."""
        with self._ready:
            self._reserved -= 1

    def put(self, job: Job, *, force: bool = False) -> None:
        """Queue ``job`` in the place reserved for it (or beyond the capacity with ``force``)."""
        with self._ready:
            if not force:
                self._reserved -= 1
            self._jobs.append(job)
            self._ready.notify()

    def get(self, timeout: float | None = None) -> Job | None:
        """The oldest job, waiting up to ``timeout`` seconds; None on a timeout or once the queue is closed."""
        with self._ready:
            self._ready.wait_for(lambda: self._jobs or self._closed, timeout)
            if self._closed or not self._jobs:
                return None
            return self._jobs.popleft()

    def remove(self, job_id: str) -> Job | None:
        """Take the queued job ``job_id`` out (a cancellation); None when it is not queued here."""
        with self._ready:
            for job in self._jobs:
                if job.id == job_id:
                    self._jobs.remove(job)
                    return job
            return None

    def close(self) -> list[Job]:
        """Stop handing out jobs (workers' :meth:`get` returns None from now on); the jobs still queued."""
        with self._ready:
            self._closed = True
            left = list(self._jobs)
            self._jobs.clear()
            self._ready.notify_all()
            return left


__all__ = ["CANCELLED", "DONE", "FAILED", "FINISHED", "QUEUED", "RUNNING", "Job", "JobQueue", "Outcome", "WtnsBytes"]
