"""The service's workers as Ray actors (``cuzk serve --ray auto|ADDRESS``): one per GPU of the cluster, or
``--ray-workers N`` on the cpu backend, behind the same HTTP API and journal, which stay on the head.

Ray is the engine: it places the actors, moves the witnesses and the results, and tells us when an actor died. What
runs in an actor is the local worker's :class:`~cuzk.serve.worker.DeviceProver`, unchanged: :class:`ProverActor`
receives the registered keys' bytes through Ray's object store (put once by the head, fetched once per actor, so
no node needs the head's key folder), reads them as the local server does, compiles the kernels, and proves a
witness per call, preparing the next while the current one proves (two calls at a time: the prepare step and the
prove step each under a lock, as the local worker's two threads).

On the head, one :class:`RayWorker` per actor is a drop-in for :class:`~cuzk.serve.worker.Worker` (``start``,
``join``; the same queue and hooks): it claims jobs from the shared queue, keeps two calls in flight on its actor
and reports each outcome. When an actor dies (``RayActorError``: killed, its process or its node lost) the jobs it
held go back, ahead of the queue, to whichever actor is up first; its slot starts a new actor (the old one killed
for sure first, so a job never runs on two actors at once). A job is re-dispatched only when its call failed with
its actor, never after an outcome was recorded; after ``MAX_DISPATCHES`` lost actors it fails (a witness that kills
every prover it meets must not take down the cluster): :mod:`cuzk.serve.dispatch`, shared with the prover
processes of one machine.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import ray
from ray.exceptions import GetTimeoutError, RayActorError, RayError

from cuzk.backends.registry import get_backend
from cuzk.reference.errors import CuzkError, ParameterError
from cuzk.serve.dispatch import Dispatches
from cuzk.serve.jobs import DONE, Job, JobQueue, Outcome
from cuzk.serve.keys import KeyRegistry
from cuzk.serve.worker import POLL, DeviceProver, Hooks, failure

NAMESPACE = "cuzk"  # the Ray namespace of the actors, named prover-<head pid>-<slot>-<generation>
GPU_BACKENDS = ("cuda", "opencl")
IN_FLIGHT = 2  # calls kept on an actor: one preparing while one proves
REFILL_S = 0.01  # seconds between looks at the queue while the actor has room for another call
RESPAWN_S = 5.0  # seconds between attempts to start an actor whose start failed
START_S = 900.0  # seconds the first actors may take to start (a cold numba cache compiles for minutes)
PASSED_ENV = ("CUZK_THREADS", "CUZK_OPENCL_PLATFORM")  # the head's settings the actors get


def connect(address: str) -> None:
    """``auto``: join the Ray instance running on this machine, else start one; else ``ray.init(address=…)``. Ray's
    own log lines are kept off the server's output (the actors' logs are in Ray's session folder)."""
    quiet = {"logging_level": "WARNING", "log_to_driver": False}
    if address != "auto":
        ray.init(address=address, **quiet)
        return
    try:
        ray.init(address="auto", **quiet)
    except ConnectionError:
        ray.init(include_dashboard=False, **quiet)


class ProverActor:
    """A DeviceProver of every registered key, in a Ray worker process (``keys``: name → the .zkey's bytes as an
    object reference)."""

    def __init__(self, keys: dict[str, Any], backend: str | None) -> None:
        began = time.perf_counter()
        folder = tempfile.mkdtemp(prefix="cuzk-actor-keys-")
        try:
            for name, blob in zip(keys, ray.get(list(keys.values())), strict=True):
                Path(folder, f"{name}.zkey").write_bytes(blob)
            device = get_backend(backend)
            registry = KeyRegistry(folder, backend=device)
            registry.warm(device)
            self.device = DeviceProver(registry, device)
        finally:
            shutil.rmtree(folder, ignore_errors=True)  # a key read is mapped: its pages outlive its name
        self._staging, self._proving = threading.Lock(), threading.Lock()
        self.load_s = time.perf_counter() - began

    def ready(self) -> dict[str, Any]:
        """What the head shows of this actor: its backend, node, process and start time."""
        context = ray.get_runtime_context()
        node, pid = context.get_node_id(), os.getpid()
        return {"backend": self.device.backend_name, "node": node, "pid": pid, "load_s": self.load_s}

    def prove_wtns(self, key: str, wtns: bytes) -> tuple[Outcome, list[tuple[str, float]]]:
        """The outcome of one witness (a refused witness is a FAILED outcome, not an exception) and the phases."""
        try:
            with self._staging:
                prepared = self.device.prepare(key, wtns)
            with self._proving:
                proof = self.device.prove(prepared)
            outcome = Outcome(DONE, result=self.device.check(prepared, proof))
        except Exception as exc:  # the job's failure, reported as the local worker reports it
            outcome = failure(exc)
        return outcome, self.device.spans(key)


class RayPool(Dispatches):
    """The actors' common state on the head: the keys in the object store, the actors' options, and (as
    :class:`~cuzk.serve.dispatch.Dispatches`) the jobs that lost their actor, to be sent again before any queued
    one."""

    def __init__(self, registry: KeyRegistry, backend: str | None, gpu: bool) -> None:
        super().__init__("Ray actors")
        self.keys = {name: ray.put(Path(entry.path).read_bytes()) for name, entry in registry.entries.items()}
        self.backend = backend
        env = {name: os.environ[name] for name in PASSED_ENV if name in os.environ}
        self.options: dict[str, Any] = {"num_cpus": 1, "num_gpus": 1 if gpu else 0, "max_concurrency": IN_FLIGHT}
        self.options.update(max_restarts=0, namespace=NAMESPACE, runtime_env={"env_vars": env} if env else None)
        self.remote = ray.remote(ProverActor)


class RaySlot:
    """One actor of the pool, started again when it dies; ``backend_name`` as the Service shows it."""

    def __init__(self, pool: RayPool, index: int) -> None:
        self.pool, self.index, self.generation = pool, index, -1
        self.backend_name, self.up, self.failed_at = "", False, 0.0
        self.info: dict[str, Any] = {}  # the actor's ready() answer
        self.actor: Any = None
        self._ready: Any = None
        self.spawn()

    @property
    def name(self) -> str:
        return f"prover-{os.getpid()}-{self.index}-{self.generation}"

    def spawn(self) -> None:
        if self.actor is not None:
            with contextlib.suppress(RayError):
                ray.kill(self.actor, no_restart=True)  # a call that seemed lost must not finish somewhere
        self.generation += 1
        self.up = False
        pool = self.pool
        self.actor = pool.remote.options(name=self.name, **pool.options).remote(pool.keys, pool.backend)
        self._ready = self.actor.ready.remote()

    def wait_up(self, timeout: float) -> dict[str, Any]:
        """Block until the actor has started (its ``ready`` answer); a CuzkError when it cannot."""
        try:
            info = ray.get(self._ready, timeout=timeout)
        except GetTimeoutError:
            why = f"did not start within {timeout:g} s (no room for it in the cluster?)"
            raise CuzkError(f"Ray actor {self.name} {why}") from None
        except RayError as exc:
            raise CuzkError(f"Ray actor {self.name} could not start: {last_line(exc)}") from None
        self.backend_name, self.up, self.info = info["backend"], True, info
        return info

    def usable(self) -> bool:
        """Whether the actor is up; a failed start is tried again after RESPAWN_S."""
        if self.up:
            return True
        if not ray.wait([self._ready], timeout=0)[0]:
            return False
        try:
            self.wait_up(0)
        except CuzkError as exc:
            if time.monotonic() - self.failed_at > RESPAWN_S:
                print(f"cuzk serve: {exc}; starting another", file=sys.stderr, flush=True)
                self.failed_at = time.monotonic()
                self.spawn()
        return self.up

    def lost(self, generation: int) -> None:
        """A call of actor ``generation`` failed with its actor: start the next one (once per generation)."""
        if generation == self.generation:
            print(f"cuzk serve: Ray actor {self.name} lost; its jobs go to another actor", flush=True)
            self.spawn()


def last_line(exc: BaseException) -> str:
    lines = [line for line in str(exc).strip().splitlines() if line.strip()]
    return lines[-1] if lines else type(exc).__name__


class RayWorker:
    """The head's side of one actor, a drop-in for the local Worker: a thread that claims jobs from ``jobs`` (the
    jobs that lost their actor first), keeps IN_FLIGHT calls on the actor and reports each outcome."""

    def __init__(self, name: str, slot: RaySlot, jobs: JobQueue, hooks: Hooks) -> None:
        self.name, self.slot, self.jobs, self.hooks, self.pool = name, slot, jobs, hooks, slot.pool
        self._thread = threading.Thread(target=self._run, name=f"{name}-ray", daemon=True)
        self._calls: dict[Any, tuple[Job, int]] = {}  # object ref → (job, the actor generation it went to)

    def start(self) -> None:
        self.pool.enter()
        self._thread.start()

    def join(self, timeout: float | None = None) -> None:
        self._thread.join(timeout)

    def describe(self) -> dict[str, Any]:
        """The worker as ``GET /health`` lists it: its name, its actor's backend, node and process, and how many
        times the actor was replaced."""
        info = {name: self.slot.info.get(name) for name in ("backend", "node", "pid")}
        return {"name": self.name, **info, "restarts": self.slot.generation}

    def _run(self) -> None:
        try:
            while self._fill() or self._calls or not self.jobs.closed or (self.slot.up and self.pool.has_retry()):
                if self._calls:
                    full = len(self._calls) >= IN_FLIGHT  # else look at the queue again soon
                    done = ray.wait(list(self._calls), num_returns=1, timeout=POLL if full else REFILL_S)[0]
                    for ref in done:
                        self._settle(ref)
                elif not self.slot.up:
                    time.sleep(POLL)
        finally:
            self.pool.leave()

    def _fill(self) -> bool:
        """Send jobs until IN_FLIGHT are on the actor (none while it is down); whether one was sent."""
        sent = False
        while len(self._calls) < IN_FLIGHT and self.slot.usable():
            job = self._next(wait=not self._calls)
            if job is None:
                break
            self.pool.sent(job)
            ref = self.slot.actor.prove_wtns.remote(job.key, job.wtns)
            self._calls[ref] = (job, self.slot.generation)
            sent = True
        return sent

    def _next(self, *, wait: bool) -> Job | None:
        """A job that lost its actor, else a claimed job of the queue (waiting up to POLL when ``wait``)."""
        job = self.pool.take_retry()
        if job is not None:
            return job
        job = self.jobs.get(POLL if wait else 0)
        if job is None or not self.hooks.claim(job):
            return None
        return job

    def _settle(self, ref: Any) -> None:
        job, generation = self._calls.pop(ref)
        try:
            outcome, spans = ray.get(ref)
        except RayActorError as exc:
            self.slot.lost(generation)
            self.pool.lost(job, self.hooks, last_line(exc))
            return
        except RayError as exc:  # not the actor's death (an object lost, …): the job fails alone
            outcome, spans = failure(exc), []
        self.pool.settled(job)
        if spans:  # before the reply, as the local worker does
            self.hooks.observe(job.key, spans)
        self.hooks.finish(job, outcome)


def start_pool(registry: KeyRegistry, backend: str | None, workers: int | None) -> list[RaySlot]:
    """Start the actors (connected to Ray already) and wait until every one has loaded the keys: one per GPU of the
    cluster for a GPU backend (or ``workers``), else ``workers`` or one per node; their slots."""
    resources = ray.cluster_resources()
    gpus, cpus = int(resources.get("GPU", 0)), int(resources.get("CPU", 0))
    backend = None if backend == "auto" else backend
    gpu = backend in GPU_BACKENDS or (backend is None and gpus > 0)
    nodes = sum(1 for node in ray.nodes() if node.get("Alive"))
    count = workers if workers is not None else (gpus if gpu else nodes)
    if gpu and count > gpus:
        raise ParameterError(f"--ray: {count} GPU actor(s) asked, the Ray cluster has {gpus} GPU(s)")
    if count > cpus:
        raise ParameterError(f"--ray: {count} actor(s) of 1 CPU each asked, the Ray cluster has {cpus} CPU(s)")
    pool = RayPool(registry, backend, gpu)
    slots = [RaySlot(pool, index) for index in range(count)]
    deadline = time.monotonic() + START_S
    for slot in slots:
        slot.wait_up(max(deadline - time.monotonic(), 1.0))
    return slots


__all__ = ["NAMESPACE", "ProverActor", "RayPool", "RaySlot", "RayWorker", "connect", "start_pool"]
