"""The jobs a head sends to provers outside its process (Ray actors, prover processes), and the ones to send again.

A prover that dies (an actor lost, a process killed) takes the jobs it held with it; their outcomes were never
recorded, so they are sent again, ahead of the queue, to whichever prover is up first. A job is sent again only
when its prover died with it, never after an outcome was recorded (:meth:`Dispatches.settled` forgets it), and at
most ``MAX_DISPATCHES`` times: a witness that kills every prover it meets fails with 500 instead of taking down
every prover in turn. The workers of one pool share one :class:`Dispatches`; the last one to stop answers the jobs
still waiting to be sent again (:meth:`Dispatches.leave`).

This module imports nothing of Ray: :mod:`cuzk.serve.ray_pool` and :mod:`cuzk.serve.process_pool` both use it.
"""

from __future__ import annotations

import collections
import threading

from cuzk.serve.errors import UnavailableError
from cuzk.serve.jobs import FAILED, Job, Outcome
from cuzk.serve.worker import Hooks

MAX_DISPATCHES = 3  # provers a job may lose before it fails


class Dispatches:
    """How many times each job in flight was sent, and the jobs whose prover died, to send again first.
    ``provers`` names the provers in the error of a job that lost too many ("Ray actors", "prover processes")."""

    def __init__(self, provers: str) -> None:
        self.provers = provers
        self.retry: collections.deque[Job] = collections.deque()
        self.dispatches: dict[str, int] = {}
        self.lock = threading.Lock()
        self.live = 0  # workers of the pool running

    def take_retry(self) -> Job | None:
        """The oldest job that lost its prover, if any."""
        with self.lock:
            return self.retry.popleft() if self.retry else None

    def has_retry(self) -> bool:
        with self.lock:
            return bool(self.retry)

    def put_back(self, job: Job) -> None:
        """A job taken but not sent (its prover went down meanwhile): first in line again, not counted as sent."""
        with self.lock:
            self.retry.appendleft(job)

    def sent(self, job: Job) -> None:
        with self.lock:
            self.dispatches[job.id] = self.dispatches.get(job.id, 0) + 1

    def settled(self, job: Job) -> None:
        """``job``'s outcome came back: it is never sent again."""
        with self.lock:
            self.dispatches.pop(job.id, None)

    def lost(self, job: Job, hooks: Hooks, why: str) -> None:
        """``job``'s prover died: send it again, ahead of the queue, or fail it after MAX_DISPATCHES lost provers."""
        with self.lock:
            count = self.dispatches.get(job.id, 0)
            if count < MAX_DISPATCHES:
                self.retry.append(job)
                return
            self.dispatches.pop(job.id, None)
        error = f"internal error: the job lost {count} {self.provers} (last: {why})"
        hooks.finish(job, Outcome(FAILED, error=error, http=500))

    def enter(self) -> None:
        """A worker of the pool starts."""
        with self.lock:
            self.live += 1

    def leave(self) -> None:
        """A worker of the pool stopped; the last one answers the jobs still waiting to be sent again."""
        with self.lock:
            self.live -= 1
            last = self.live == 0
        if last:
            self.abandon()

    def abandon(self) -> None:
        """At shutdown, with no worker left: the jobs waiting for a prover. A synchronous one is answered 503; an
        asynchronous one stays claimed in the journal, which queues it again at the next start."""
        with self.lock:
            left, self.retry = list(self.retry), collections.deque()
        for job in left:
            if job.notify is not None:
                job.notify(Outcome(FAILED, error="the server is shutting down", http=UnavailableError.status))


__all__ = ["MAX_DISPATCHES", "Dispatches"]
