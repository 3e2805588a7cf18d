"""The service's provers in processes of their own (``cuzk serve --workers processes``): the head's side.

In the threads mode the HTTP front (aiohttp reading witness bodies, JSON, the journal) and each device's three
prover threads share one interpreter lock; here each device's prover runs in a child process
(:mod:`cuzk.serve.process_child`, started with multiprocessing's *spawn*), and the head keeps the HTTP API, the
journal and the queue. The head starts no backend: no CUDA context in it.

One :class:`ProcessWorker` per child is a drop-in for :class:`~cuzk.serve.worker.Worker` (``start``, ``join``; the
same queue and hooks). Its *sender* thread claims jobs from the service's queue and sends them, at most IN_FLIGHT at
a time (one staging while one proves: the queue's backpressure and cancellation stay on the head); its *receiver*
thread reports each outcome and each proof's phases. When the child dies (killed, a crash: the end of its pipe) the
receiver starts a new one; the jobs the dead child held go back ahead of the queue, to this child or another's,
through the pool's :class:`~cuzk.serve.dispatch.Dispatches` (the Ray actors' rules: a job is sent again only when
its prover died with it, at most MAX_DISPATCHES times). At shutdown the sender waits for the outcome of every job
it sent, then tells the child to stop.
"""

from __future__ import annotations

import itertools
import multiprocessing
import os
import signal
import sys
import threading
import time
from typing import Any

from cuzk.serve import process_child, witness_slots
from cuzk.serve.dispatch import Dispatches
from cuzk.serve.errors import ProverStartError
from cuzk.serve.jobs import Job, JobQueue, Outcome
from cuzk.serve.process_child import JOB, OUTCOME, READY, SPANS, START_FAILED, STOP, ChildSpec
from cuzk.serve.witness_slots import WitnessSlots
from cuzk.serve.worker import POLL, Hooks

IN_FLIGHT = 2  # jobs on a child at once: one staging while one proves
START_S = 900.0  # seconds a child may take to start (a cold numba cache compiles for minutes on 2 cores)
STOP_S = 60.0  # seconds a child may take to exit once told to stop, before it is terminated
END_S = 5.0  # seconds a child that failed, or was terminated, gets to end
RESPAWN_S = 5.0  # seconds between attempts to start a child whose start failed
STALL_S = 600.0  # seconds a child holding jobs may stay silent before it is taken for hung (without a job timeout)


class ChildProcess:
    """One started child (a generation of a slot): its process and the head's end of its pipe. Only the worker's
    sender writes to the pipe; only its receiver reads it, and closes it once it ended."""

    def __init__(self, spec: ChildSpec, name: str) -> None:
        context = multiprocessing.get_context("spawn")
        self.conn, theirs = context.Pipe()
        self.process = context.Process(target=process_child.main, args=(theirs, spec), name=name, daemon=True)
        self.process.start()
        theirs.close()  # the child's end lives in the child alone: its death is the end of our pipe
        self.name = name
        self._lock = threading.Lock()  # a send, or the close that must not cut one in half

    @property
    def pid(self) -> int | None:
        return self.process.pid

    def wait_ready(self, timeout: float) -> dict[str, Any]:
        """The child's READY answer; ProverStartError (the child ended) when it failed, died or stayed silent for
        ``timeout`` seconds."""
        try:
            return self._ready(timeout)
        except ProverStartError:
            self.discard()
            raise

    def _ready(self, timeout: float) -> dict[str, Any]:
        try:
            if not self.conn.poll(timeout):
                raise ProverStartError(f"{self.name} did not start within {timeout:g} s")
            message = self.conn.recv()
        except (EOFError, OSError):
            raise ProverStartError(f"{self.name} {self.exit_reason()} before it was ready") from None
        if message[0] == START_FAILED:
            raise ProverStartError(f"{self.name} could not start: {message[1]}")
        if message[0] != READY:
            raise ProverStartError(f"{self.name} said {message[0]!r} instead of {READY!r}")
        return message[1]

    def send_job(self, tag: int, job: Job, slot: int | None) -> bool:
        """Send ``job`` as ``tag``: its witness in the shared witness slot ``slot``, or (None) its bytes as they are
        after the header; False when the child is gone."""
        try:
            with self._lock:
                self.conn.send((JOB, tag, job.key, slot, len(job.wtns)))
                if slot is None:
                    self.conn.send_bytes(job.wtns)
        except (OSError, ValueError):  # the child died (a broken pipe) or its pipe was closed
            return False
        return True

    def receive(self) -> tuple[Any, ...] | None:
        """The child's next message; None at the end of its pipe (it exited or died)."""
        try:
            return self.conn.recv()
        except (EOFError, OSError):
            return None

    def stop(self) -> None:
        """Tell the child to stop (it holds no job) and wait for it to exit, terminated after STOP_S; its end is the
        end of the pipe, for the receiver."""
        try:
            with self._lock:
                self.conn.send((STOP,))
        except (OSError, ValueError):  # it is gone already
            pass
        self.end(STOP_S)

    def end(self, timeout: float) -> None:
        """Wait up to ``timeout`` seconds for the process to exit, else terminate it (then kill it)."""
        self.process.join(timeout)
        for end in (self.process.terminate, self.process.kill):
            if not self.process.is_alive():
                break
            end()
            self.process.join(END_S)

    def close(self) -> None:
        """Close the head's end of the pipe (once read to its end, or never to be read again)."""
        with self._lock:
            self.conn.close()

    def discard(self) -> None:
        """A child that will not be used: ended at once, its pipe closed."""
        self.end(0)
        self.close()

    def exit_reason(self) -> str:
        """How the process ended, in words (once it has ended, or a moment after its pipe did)."""
        self.process.join(END_S)
        code = self.process.exitcode
        if code is None:
            return "closed its pipe"
        if code < 0:
            return f"was killed by signal {code_name(-code)}"
        return f"exited with status {code}"


def code_name(signum: int) -> str:
    try:
        return signal.Signals(signum).name
    except ValueError:
        return str(signum)


class ProverSlot:
    """A device's prover process, started again when it dies; ``backend_name`` and :meth:`describe` as the
    Service shows them."""

    def __init__(self, pool: Dispatches, spec: ChildSpec, index: int, stall_s: float = STALL_S) -> None:
        self.pool, self.spec, self.index, self.stall_s = pool, spec, index, stall_s
        self.generation = -1
        self.backend_name = ""
        self.child: ChildProcess = self.spawn()

    def spawn(self) -> ChildProcess:
        self.generation += 1
        device = "" if self.spec.device is None else f" of device {self.spec.device}"
        self.child = ChildProcess(self.spec, f"prover process {self.index}.{self.generation}{device}")
        return self.child

    def wait_up(self, timeout: float) -> dict[str, Any]:
        info = self.child.wait_ready(timeout)
        self.backend_name = info["backend"]
        return info

    def describe(self) -> dict[str, Any]:
        return {"backend": self.backend_name, "pid": self.child.pid, "restarts": self.generation}


def start_provers(
    keys: str, backend: str | None, devices: list[int | None], stall_s: float = STALL_S, witness_size: int = 0
) -> list[ProverSlot]:
    """A child per device, started together and waited for until every one has read its keys and compiled its
    kernels; ProverStartError (every child stopped) when one cannot. A child that holds jobs and says nothing for
    ``stall_s`` seconds is taken for hung: killed, and replaced as a dead one is. ``witness_size``: the bytes of
    the largest witness a key takes, each child's IN_FLIGHT shared witness slots' size (0: none, the pipe)."""
    pool = Dispatches("prover processes")
    slots: list[ProverSlot] = []
    try:
        for index, device in enumerate(devices):
            shared = WitnessSlots(IN_FLIGHT, witness_size) if witness_size > 0 and witness_slots.AVAILABLE else None
            spec = ChildSpec(os.path.abspath(keys), backend, device, shared)
            slots.append(ProverSlot(pool, spec, index, stall_s))
        deadline = time.monotonic() + START_S
        for slot in slots:
            slot.wait_up(max(deadline - time.monotonic(), 1.0))
    except BaseException:
        for slot in slots:
            slot.child.discard()
        raise
    return slots


class ProcessWorker:
    """The head's side of one prover process, a drop-in for the local Worker: a sender thread that claims jobs
    from ``jobs`` (the jobs that lost their prover first) and keeps IN_FLIGHT on the child, and a receiver thread
    that reports each outcome and replaces the child when it dies."""

    def __init__(self, name: str, slot: ProverSlot, jobs: JobQueue, hooks: Hooks) -> None:
        self.name, self.slot, self.jobs, self.hooks, self.pool = name, slot, jobs, hooks, slot.pool
        self._flight: dict[int, tuple[Job, int | None]] = {}  # tag → the job the child holds, its witness slot
        self._tags = itertools.count()
        self._changed = threading.Condition()  # guards the fields below and _flight
        self._up = True  # the child is ready (start_provers waited for it)
        self._restarting = False  # a new child is starting after the death of the last one
        self._closing = False  # the sender is done: the end of the pipe is the child's stop, not a death
        self._heard = time.monotonic()  # the child's last word, or the send that gave an idle child a job
        self._sender = threading.Thread(target=self._send_all, name=f"{name}-send", daemon=True)
        self._receiver = threading.Thread(target=self._receive_all, name=f"{name}-receive", daemon=True)

    def start(self) -> None:
        self.pool.enter()
        self._sender.start()
        self._receiver.start()

    def join(self, timeout: float | None = None) -> None:
        """Wait for the sender (every job sent has its outcome, the child told to stop), then the receiver (the
        child's end)."""
        self._sender.join(timeout)
        self._receiver.join(timeout)

    def describe(self) -> dict[str, Any]:
        """The worker as ``GET /health`` lists it: its name, backend, the child's pid and how many times it was
        replaced."""
        return {"name": self.name, **self.slot.describe()}

    # --- the sender ---------------------------------------------------------------------------------------------

    def _send_all(self) -> None:
        try:
            while (job := self._next()) is not None:
                self._send(job)
        finally:
            with self._changed:
                self._closing = True
            self.slot.child.stop()
            self.pool.leave()

    def _next(self) -> Job | None:
        """The next job for the child, once it is up and has room: one that lost its prover, else a claimed job of
        the queue; None once the queue is closed and every job sent has its outcome."""
        while True:
            with self._changed:
                self._changed.wait_for(lambda: self._can_send() or self._finished(), POLL)
                self._kill_if_stalled()
                if self._finished():
                    self._closing = True
                    return None
                if not self._can_send():
                    continue
            job = self.pool.take_retry() or self._claimed()
            if job is not None:
                return job

    def _kill_if_stalled(self) -> None:
        """(Under the lock.) Kill the child when it has held jobs for the slot's stall_s without a word: a hung
        prover (a deadlock, a stopped process) is then replaced, and its jobs sent again, as a dead one's are."""
        silent = time.monotonic() - self._heard
        if not (self._up and self._flight and silent > self.slot.stall_s):
            return
        child = self.slot.child
        print(
            f"cuzk serve: {child.name} (pid {child.pid}) said nothing for {silent:.0f} s with {len(self._flight)} "
            "job(s) in flight: killed as hung",
            flush=True,
        )
        child.process.kill()
        self._heard = time.monotonic()  # once: its end of the pipe comes next

    def _can_send(self) -> bool:
        """(Under the lock.) The child is up with room for a job, and a job may come."""
        room = self._up and len(self._flight) < IN_FLIGHT
        return room and (not self.jobs.closed or self.pool.has_retry())

    def _finished(self) -> bool:
        """(Under the lock.) The queue is closed, the child holds no job, none is starting, and no job lost by a
        prover waits for this one."""
        if not self.jobs.closed or self._flight or self._restarting:
            return False
        return not (self._up and self.pool.has_retry())

    def _claimed(self) -> Job | None:
        job = self.jobs.get(POLL)
        if job is None or not self.hooks.claim(job):
            return None
        return job

    def _send(self, job: Job) -> None:
        """Send ``job`` to the child, in flight until its outcome comes back; first in line again when the child
        went down after the job was taken. Its witness is copied into a shared slot first, outside the lock (one
        is free: only this thread adds to the IN_FLIGHT jobs in flight, which hold a slot each)."""
        witnesses = self.slot.spec.witnesses
        slot = None if witnesses is None else witnesses.take(job.wtns)
        with self._changed:
            if not self._up:
                self._give_back(slot)
                self.pool.put_back(job)
                return
            tag, child = next(self._tags), self.slot.child
            if not self._flight:
                self._heard = time.monotonic()  # an idle child's silence was not a stall
            self._flight[tag] = (job, slot)
            self.pool.sent(job)
        job.witness = None  # the child parses the bytes again: the head's parsed copy is not needed
        child.send_job(tag, job, slot)  # a child that died meanwhile: the receiver finds the job in flight

    # --- the receiver -------------------------------------------------------------------------------------------

    def _receive_all(self) -> None:
        while True:
            child = self.slot.child
            message = child.receive()
            with self._changed:
                self._heard = time.monotonic()
            if message is None:
                if not self._replace(child):
                    return
            elif message[0] == OUTCOME:
                self._settle(message[1], message[2])
            elif message[0] == SPANS:
                self.hooks.observe(message[1], message[2])

    def _settle(self, tag: int, outcome: Outcome) -> None:
        with self._changed:
            held = self._flight.pop(tag, None)
            if held is not None:
                self._give_back(held[1])
            self._changed.notify_all()
        if held is not None:
            self.pool.settled(held[0])
            self.hooks.finish(held[0], outcome)

    def _give_back(self, slot: int | None) -> None:
        """(Under the lock.) The witness slot of a job the child answered for, or lost, free again."""
        if slot is not None and self.slot.spec.witnesses is not None:
            self.slot.spec.witnesses.give_back(slot)

    def _replace(self, child: ChildProcess) -> bool:
        """The child's pipe ended: its stop, or its death. After a death its jobs go back ahead of the queue (or
        fail after MAX_DISPATCHES) and a new child starts. Whether the receiver goes on."""
        child.close()
        with self._changed:
            if self._closing:
                return False
            self._up, self._restarting = False, True
            for _, slot in self._flight.values():
                self._give_back(slot)
            lost, self._flight = [job for job, _ in self._flight.values()], {}
        why = f"{child.name} (pid {child.pid}) {child.exit_reason()}"
        print(f"cuzk serve: {why}; its {len(lost)} job(s) go to a new one", flush=True)
        for job in lost:
            self.pool.lost(job, self.hooks, why)
        up = self._respawn()
        with self._changed:
            self._up, self._restarting = up, False
            self._changed.notify_all()
        return up

    def _respawn(self) -> bool:
        """Start a new child, again every RESPAWN_S while its start fails; False when the queue closed meanwhile
        (nothing left to prove)."""
        while True:
            self.slot.spawn()
            try:
                info = self.slot.wait_up(START_S)
            except ProverStartError as exc:
                print(f"cuzk serve: {exc}", file=sys.stderr, flush=True)
                if self.jobs.closed:
                    return False
                time.sleep(RESPAWN_S)  # a backoff, not a wait for an event: nothing tells when a start would work
                continue
            print(f"cuzk serve: {self.slot.child.name} (pid {info['pid']}) up in {info['load_s']:.1f} s", flush=True)
            return True


__all__ = [
    "IN_FLIGHT",
    "RESPAWN_S",
    "STALL_S",
    "START_S",
    "ChildProcess",
    "ProcessWorker",
    "ProverSlot",
    "start_provers",
]
