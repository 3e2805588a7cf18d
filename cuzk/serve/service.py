"""The proving service without HTTP: the queue, the journal, the workers and the metrics, held together.

A handler calls :meth:`Service.accept` (a blocking call: run it on a thread) with a job whose witness it checked;
the job is journaled first when it is asynchronous, then queued. The workers call back :meth:`claim`,
:meth:`finish` and :meth:`observe`. :meth:`expire_overdue` (called every second or so) fails the jobs that ran
past the per-job timeout: a proof already on a device cannot be stopped, so its worker finishes it, and its result
is dropped. :meth:`stop` is the graceful shutdown: no new job, the claimed ones finished, the queued asynchronous
ones left in the journal for the next start.
"""

from __future__ import annotations

import hashlib
import math
import threading
import time
from collections.abc import Callable, Sequence
from typing import Any

from cuzk.serve.errors import (
    ConflictError,
    JobNotFoundError,
    JobTimeoutError,
    QueueFullError,
    UnavailableError,
)
from cuzk.serve.jobs import DONE, FAILED, QUEUED, RUNNING, Job, JobQueue, Outcome, WtnsBytes
from cuzk.serve.journal import Journal
from cuzk.serve.keys import KeyRegistry
from cuzk.serve.metrics import Metrics
from cuzk.serve.worker import DeviceProver, Hooks, Worker

PACE_WEIGHT = 0.2  # weight of the latest proof in the running mean of the proof time


def digest(key: str, wtns: WtnsBytes) -> str:
    """What an id stands for: the key and the witness (the same id with another witness is a conflict). Hashed
    in two updates: a body of tens of MiB is not copied to be hashed."""
    hashed = hashlib.sha256(key.encode() + b"\0")
    hashed.update(wtns)
    return hashed.hexdigest()


UPLOAD_MEMORY_QUEUE = 2  # a request's body goes to its prover's upload memory while fewer jobs than this wait


class Service:
    """Jobs for the keys of ``registry`` proved by one worker per DeviceProver of ``devices``."""

    def __init__(
        self,
        registry: KeyRegistry,
        journal: Journal,
        devices: Sequence[Any],
        *,
        capacity: int,
        job_timeout: float | None = None,
        make_worker: Callable[[str, Any, JobQueue, Hooks], Any] = Worker,
    ) -> None:
        """``devices``: DeviceProvers, or what ``make_worker`` makes a worker of (cuzk.serve.ray_pool: a Ray actor's
        slot, given to a RayWorker); each has a ``backend_name``."""
        self.registry, self.journal, self.devices = registry, journal, devices
        self.queue = JobQueue(capacity)
        self.job_timeout = job_timeout
        self.draining = False
        self._running: dict[str, Job] = {}
        self._lock = threading.Lock()
        self._pace = 1.0  # seconds a proof takes on a worker (a running mean): the Retry-After estimate
        self.metrics = Metrics(lambda: len(self.queue), lambda: len(self._running))
        hooks = Hooks(self.claim, self.finish, self.observe)
        self.workers = [make_worker(f"worker{i}", device, self.queue, hooks) for i, device in enumerate(devices)]

    @property
    def backend(self) -> str:
        return self.devices[0].backend_name

    def start(self) -> int:
        """Queue the journal's unfinished jobs (a crash's too) and start the workers; how many were recovered."""
        self.journal.purge()
        pending = self.journal.pending()
        for job in pending:
            self.queue.put(job, force=True)
        for worker in self.workers:
            worker.start()
        return len(pending)

    # --- requests -----------------------------------------------------------------------------------------------

    def accept(self, job: Job) -> dict[str, Any] | None:
        """Queue ``job``: journaled first (committed) when durable. None when it was queued; the journaled job's
        row when a durable job of this id exists already (the same job: not queued again). QueueFullError when the
        queue is full, UnavailableError while shutting down, ConflictError for an id used with another witness."""
        if self.draining:
            raise UnavailableError("the server is shutting down")
        # a synchronous job has no id to keep: nothing to hash (tens of ms for a 2^20 witness) or journal
        signature = digest(job.key, job.wtns) if job.durable else None
        if signature is not None and (row := self.journal.get(job.id)) is not None:
            return self._same(row, signature)
        if not self.queue.reserve():
            raise QueueFullError(f"the queue is full ({self.queue.capacity} jobs): retry later")
        if signature is not None and (row := self.journal.add(job, signature)) is not None:
            self.queue.release()
            return self._same(row, signature)
        self.queue.put(job)
        return None

    def _same(self, row: dict[str, Any], signature: str) -> dict[str, Any]:
        if row["digest"] != signature:
            raise ConflictError(f"job id {row['id']!r} was used for another key or witness")
        return row

    def status(self, job_id: str) -> dict[str, Any]:
        row = self.journal.get(job_id)
        if row is None:
            raise JobNotFoundError(f"no job {job_id!r} (never accepted, deleted, or its result expired)")
        return row

    def cancel(self, job_id: str) -> str:
        """Cancel a queued job ("cancelled") or forget a finished one ("deleted"); a running job is a conflict."""
        row = self.status(job_id)
        if row["status"] == QUEUED:
            self.queue.remove(job_id)
            if self.journal.cancel(job_id):
                self.metrics.proofs.labels(key=row["key"], outcome="cancelled").inc()
                return "cancelled"
            row = self.status(job_id)
        if row["status"] == RUNNING:
            raise ConflictError(f"job {job_id!r} is running: a running proof cannot be cancelled")
        self.journal.delete(job_id)
        return "deleted"

    # --- the workers' hooks -------------------------------------------------------------------------------------

    def claim(self, job: Job) -> bool:
        job.started = time.time()
        if job.durable:
            attempt = self.journal.claim(job.id, job.started)
            if attempt is None:
                return False
            job.attempts = attempt
        with self._lock:
            self._running[job.id] = job
        return True

    def finish(self, job: Job, outcome: Outcome) -> None:
        """Record how ``job`` ended, unless it ended already (timed out): the journal, the waiting request, the
        metrics."""
        with self._lock:
            if self._running.pop(job.id, None) is None:
                return
        self._record(job, outcome)

    def _record(self, job: Job, outcome: Outcome) -> None:
        """The journal and the metrics first, then the waiting request: a client that has its reply finds its
        proof counted in ``/metrics``."""
        if job.durable:
            self.journal.finish(job.id, outcome)
        kind = {200: "done", 504: "timeout", 500: "error"}.get(outcome.http, "failed")
        self.metrics.proofs.labels(key=job.key, outcome=kind).inc()
        if outcome.status == DONE:
            if job.started is not None:
                self._pace += PACE_WEIGHT * (time.time() - job.started - self._pace)
            self.metrics.job_seconds.labels(key=job.key).observe(time.time() - job.accepted)
        if job.notify is not None:
            job.notify(outcome)

    def observe(self, key: str, spans: list[tuple[str, float]]) -> None:
        self.metrics.observe_phases(spans)

    # --- time and shutdown --------------------------------------------------------------------------------------

    def expire_overdue(self, now: float | None = None) -> int:
        """Fail the running jobs older than the job timeout (their workers' results will be dropped)."""
        if self.job_timeout is None:
            return 0
        now = time.time() if now is None else now
        with self._lock:
            late = [j for j in self._running.values() if j.started is not None and now - j.started > self.job_timeout]
            for job in late:
                del self._running[job.id]
        for job in late:
            error = JobTimeoutError(f"the job ran past the timeout of {self.job_timeout:g} s")
            self._record(job, Outcome(FAILED, error=str(error), http=error.status))
        return len(late)

    def retry_after(self) -> int:
        """Seconds a client refused for a full queue should wait: the queue's proofs at the mean pace (≥ 1)."""
        return max(1, math.ceil(len(self.queue) * self._pace / max(len(self.workers), 1)))

    def upload_memory(self, key: str) -> Callable[..., Any] | None:
        """Where a synchronous request's .wtns for ``key`` is best read: its prover's upload memory when one prover
        in this process serves every job (:meth:`DeviceProver.upload_memory`) and fewer than UPLOAD_MEMORY_QUEUE
        jobs wait (pinned memory is bounded to the few witnesses proven next), else None (a plain buffer: the body
        goes on to a prover process or a Ray actor, or to whichever of several devices takes it, or waits)."""
        if (
            len(self.devices) == 1
            and isinstance(self.devices[0], DeviceProver)
            and len(self.queue) < UPLOAD_MEMORY_QUEUE
        ):
            return self.devices[0].upload_memory(key)
        return None

    def running(self) -> int:
        return len(self._running)

    def provers(self) -> list[dict[str, Any]]:
        """Each worker as it describes itself: name, backend, the process that proves (``pid``), and where the
        provers are replaceable (a prover process, a Ray actor) how many times it was replaced."""
        return [worker.describe() for worker in self.workers]

    def stop(self) -> None:
        """Graceful shutdown: refuse new jobs, let the workers finish the jobs they claimed, answer the waiting
        synchronous requests 503; the queued asynchronous jobs stay queued in the journal."""
        self.draining = True
        for job in self.queue.close():
            if job.notify is not None:
                job.notify(Outcome(FAILED, error="the server is shutting down", http=UnavailableError.status))
        for worker in self.workers:
            worker.join()


__all__ = ["Service", "digest"]
