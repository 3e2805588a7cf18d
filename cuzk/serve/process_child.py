"""A device's prover in a process of its own (``cuzk serve --workers processes``): what runs in the child.

The head (the server's process: HTTP, journal, queue) starts one child per device with multiprocessing's *spawn*
(never fork: a CUDA context does not survive a fork) and talks to it over a pipe; :mod:`cuzk.serve.process_pool` is
its side. The child reads the keys from the same folder (paths, not bytes: keys are large), compiles its kernels,
and runs the local worker unchanged (:class:`~cuzk.serve.worker.Worker`: its stage, prove and check threads over a
:class:`~cuzk.serve.worker.DeviceProver`) on a queue of its own that the pipe fills. The head claimed every job
before sending it, so the child's claim always accepts; its finish and observe send the outcome and the phases back.

The messages, each a tuple sent with ``Connection.send`` (small) unless said otherwise:

    child → head   (READY, {"backend", "pid", "load_s"}) once started, or (START_FAILED, "why") and the end
    head → child   (JOB, tag, key, slot, length): the witness's .wtns bytes are in that slot of the shared
                   witness slots (:mod:`cuzk.serve.witness_slots`); with slot None they follow with
                   ``send_bytes`` (no pickled copy of a 32 MiB body); (STOP,) once the head has the outcome of
                   every job it sent
    child → head   (OUTCOME, tag, Outcome) for each job; (SPANS, key, [(phase, seconds)]) after each proof

The child ignores SIGINT and SIGTERM (a Ctrl-C or a service manager signals the whole process group): the head
alone decides when it stops, once the jobs it sent are finished. A head that dies closes the pipe; the child then
finishes what it holds and exits.
"""

from __future__ import annotations

import contextlib
import os
import signal
import threading
import time
from dataclasses import dataclass
from multiprocessing.connection import Connection

from cuzk.serve.jobs import Job, JobQueue, Outcome, WtnsBytes
from cuzk.serve.keys import KeyRegistry
from cuzk.serve.witness_slots import WitnessSlots
from cuzk.serve.worker import DeviceProver, Hooks, Worker

READY, START_FAILED, JOB, STOP, OUTCOME, SPANS = "ready", "start-failed", "job", "stop", "outcome", "spans"


@dataclass(frozen=True)
class ChildSpec:
    """What a child needs to start: the key folder, the backend's name (None: CUZK_BACKEND or auto), the device
    index (None: the backend's default device) and the witness slots it shares with the head (None: every witness
    comes down the pipe)."""

    keys: str
    backend: str | None
    device: int | None
    witnesses: WitnessSlots | None = None


def load(spec: ChildSpec) -> DeviceProver:
    """The device's backend (CUZK_DEVICE set to its index, as the threads mode's device_backends does), the keys
    read and checked for it, its kernels compiled: the prover of every key."""
    from cuzk.backends.registry import get_backend

    if spec.device is not None:
        os.environ["CUZK_DEVICE"] = str(spec.device)
    backend = get_backend(spec.backend)
    registry = KeyRegistry(spec.keys, backend=backend)
    registry.warm(backend)
    return DeviceProver(registry, backend)


class Reporter:
    """The child's hooks for the Worker: every job accepted (the head claimed it), each outcome and each proof's
    phases sent to the head. The stage thread (a refused witness) and the check thread both report: one lock."""

    def __init__(self, conn: Connection) -> None:
        self.conn = conn
        self._lock = threading.Lock()

    def hooks(self) -> Hooks:
        return Hooks(claim=lambda job: True, finish=self.finish, observe=self.observe)

    def finish(self, job: Job, outcome: Outcome) -> None:
        self._send((OUTCOME, int(job.id), outcome))

    def observe(self, key: str, spans: list[tuple[str, float]]) -> None:
        self._send((SPANS, key, spans))

    def _send(self, message: tuple[object, ...]) -> None:
        with self._lock:
            tell(self.conn, message)


def tell(conn: Connection, message: tuple[object, ...]) -> None:
    """Send ``message`` to the head, if it is still there (else nobody is to be told: the child ends once the
    jobs it holds are done)."""
    with contextlib.suppress(OSError):
        conn.send(message)


def receive(conn: Connection, jobs: JobQueue, witnesses: WitnessSlots | None) -> None:
    """Queue the jobs the head sends until it says STOP or goes away (the end of the pipe): each witness read in
    place from its slot (the head reuses the slot once this job's outcome reached it), or from the pipe."""
    while True:
        try:
            message = conn.recv()
            if message[0] == STOP:
                return
            _, tag, key, slot, length = message
            if slot is None:
                wtns: WtnsBytes = conn.recv_bytes()
            else:  # the head sends a slot only to a child it spawned with its witness slots
                assert witnesses is not None, "a witness slot named to a child that shares none"
                wtns = witnesses.view(slot, length)
        except (EOFError, OSError):
            return
        jobs.put(Job(str(tag), key, wtns, durable=False), force=True)


def main(conn: Connection, spec: ChildSpec) -> None:
    """The child's life: start (READY or START_FAILED), prove what comes until STOP or the head's end, drain."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    began = time.perf_counter()
    try:
        device = load(spec)
    except Exception as exc:  # reported to the head, which stops the server's start with it
        tell(conn, (START_FAILED, f"{type(exc).__name__}: {exc}"))
        conn.close()
        return
    load_s = time.perf_counter() - began
    tell(conn, (READY, {"backend": device.backend_name, "pid": os.getpid(), "load_s": load_s}))
    jobs = JobQueue(capacity=1)  # filled with force: the head bounds what it sends
    worker = Worker(f"prover-{os.getpid()}", device, jobs, Reporter(conn).hooks())
    worker.start()
    receive(conn, jobs, spec.witnesses)
    jobs.close()
    worker.join()
    conn.close()


__all__ = ["JOB", "OUTCOME", "READY", "SPANS", "START_FAILED", "STOP", "ChildSpec", "load", "main"]
