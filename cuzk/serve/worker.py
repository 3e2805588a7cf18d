"""One worker per device: a prover per key, prepared once, and a three-stage pipeline over the shared queue.

:class:`DeviceProver` is the device's part, with no queue and no HTTP: a :class:`~cuzk.engine.zkey.ZkeyProver` per
registered key (the bases resident on the device, or in memory on the cpu backend, for every proof), and
:meth:`~DeviceProver.prepare` / :meth:`~DeviceProver.prove` / :meth:`~DeviceProver.check`, or all three in
:meth:`~DeviceProver.prove_wtns`. It is what a remote actor (a Ray actor, one per GPU) wraps: plain arguments in, a
JSON-ready result out.

:class:`Worker` runs a DeviceProver on three threads, as the engine's pipeline does (:mod:`cuzk.engine.pipeline`):
the *stage* thread takes the next job, claims it, parses and checks its witness and makes A·z, B·z, C·z (on a
device from z uploaded once, on the device) while the *prove* thread runs the current proof (B_G2 on its own
thread, as the engine does) and the *check* thread checks the previous one (its pairings on the host). A job that
fails (a bad witness, a witness that does not satisfy the circuit) fails alone: the worker goes on.
"""

from __future__ import annotations

import os
import queue
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from cuzk.backends import limbs
from cuzk.backends.protocol import KEPT_SCALARS, Backend, has_capability
from cuzk.engine.timing import Recorder
from cuzk.engine.witness import Assignment
from cuzk.engine.zkey import ZkeyProver
from cuzk.formats import snarkjs_json
from cuzk.formats.wtns import Witness
from cuzk.reference.errors import CuzkError
from cuzk.reference.groth16 import Proof
from cuzk.serve.errors import ServeError, UnprocessableError
from cuzk.serve.jobs import DONE, FAILED, Job, JobQueue, Outcome, WtnsBytes
from cuzk.serve.keys import KeyRegistry
from cuzk.serve.witness import read_wtns_bytes

SPANS_KEPT = 4096  # spans each prover's recorder keeps (its memory stays flat over days)
POLL = 0.2  # seconds a stage thread waits on the queue before looking whether it was closed


@dataclass
class Prepared:
    """A witness ready to prove: its key, A·z, B·z, C·z (staged) and its public signals."""

    key: str
    assignment: Assignment
    public: list[int]


class DeviceProver:
    """The provers of one device (``backend``, an object or a name), one per key of ``registry``. Every proof is
    checked against the key's verifying key before it is returned (the engine's self-check, made by :meth:`check`
    outside the prover's lock, so that a worker checks proof k while the device makes proof k + 1)."""

    def __init__(self, registry: KeyRegistry, backend: Backend | str | None) -> None:
        self.registry = registry
        self.provers: dict[str, ZkeyProver] = {}
        self._cursors: dict[str, int] = {}
        self._spans_lock = threading.Lock()
        for name, entry in registry.entries.items():
            prover = ZkeyProver(entry.zkey, backend, verify=False, recorder=Recorder(limit=SPANS_KEPT))
            self.provers[name], self._cursors[name] = prover, prover.recorder.mark()
        self.backend_name = next(iter(self.provers.values())).backend.name

    def upload_memory(self, key: str) -> Callable[..., np.ndarray] | None:
        """The memory ``key``'s prover uploads z from fastest (its backend's ``host_array``: pinned on a GPU), where
        a request's .wtns body is best read (:meth:`prepare` ``in_place``); None where it keeps no scalars."""
        backend = self.provers[key].backend
        return backend.host_array if has_capability(backend, KEPT_SCALARS) else None

    def prepare(self, key: str, wtns: WtnsBytes, witness: Witness | None = None, *, in_place: bool = False) -> Prepared:
        """Parse and check the witness (``witness`` when the caller already did), then A·z, B·z, C·z, staged.
        ``in_place``: ``wtns`` lies in :meth:`upload_memory`, whose values are z as they are (no copy)."""
        entry, prover = self.registry.get(key), self.provers[key]
        if witness is None:  # read where the backend uploads from fastest (pinned memory on a GPU, reused)
            empty = self.upload_memory(key) or np.empty
            witness = read_wtns_bytes(wtns, entry.prime, entry.count, key, empty=empty, in_place=in_place)
        assignment = prover.stage(prover.assign(witness.values, prover.key_qap))
        public = limbs.limbs_to_ints(assignment.z[1 : entry.zkey.num_public + 1])
        return Prepared(key, assignment, public)

    def prove(self, prepared: Prepared) -> Proof:
        """The proof of a prepared witness, not checked yet (:meth:`check`)."""
        w = prepared.assignment
        return self.provers[prepared.key].prove_assignment(w.z, w.a, w.b, w.c, z_kept=w.z_kept, abc_kept=w.abc_kept)

    def check(self, prepared: Prepared, proof: Proof) -> dict[str, Any]:
        """The proof checked against the key's verifying key (the engine's self-check, phase ``self_check``), as
        ``{"proof": proof.json, "public": public.json}``; UnprocessableError when it does not verify: the witness
        does not satisfy the circuit (a .zkey cannot tell before)."""
        prover = self.provers[prepared.key]
        with prover.recorder.span("self_check"):
            verified = prover.check_proof(prepared.public, proof)  # off the device: see Prover.check_proof
        if not verified:
            raise UnprocessableError(
                f"the witness does not satisfy the circuit of key {prepared.key!r}: the proof made with it does "
                "not verify"
            )
        return {"proof": snarkjs_json.proof_to_json(proof), "public": [str(v) for v in prepared.public]}

    def prove_wtns(self, key: str, wtns: WtnsBytes) -> dict[str, Any]:
        """The three steps for one witness given as .wtns bytes: the call a remote actor makes."""
        prepared = self.prepare(key, wtns)
        return self.check(prepared, self.prove(prepared))

    def spans(self, key: str) -> list[tuple[str, float]]:
        """The engine-level (phase, seconds) recorded for ``key`` since the last call (each span once)."""
        with self._spans_lock:
            recorder = self.provers[key].recorder
            found = recorder.since(self._cursors[key])
            self._cursors[key] = recorder.mark()
        return [(span.name, span.seconds) for span in found if span.level == "engine"]


@dataclass
class Hooks:
    """What a worker tells the service: ``claim`` (False: skip the job, it was cancelled), ``finish`` with the
    outcome, ``observe`` the phases of a key's latest work."""

    claim: Callable[[Job], bool]
    finish: Callable[[Job, Outcome], None]
    observe: Callable[[str, list[tuple[str, float]]], None]


class Worker:
    """A DeviceProver on a stage thread and a prove thread, pulling from ``jobs`` until it is closed; the jobs it
    claimed are finished before :meth:`join` returns."""

    def __init__(self, name: str, device: DeviceProver, jobs: JobQueue, hooks: Hooks) -> None:
        self.name, self.device, self.jobs, self.hooks = name, device, jobs, hooks
        self._handoff: queue.Queue[tuple[Job, Prepared] | None] = queue.Queue(maxsize=1)
        self._proven: queue.Queue[tuple[Job, Prepared, Proof | Outcome] | None] = queue.Queue(maxsize=1)
        self._threads = [
            threading.Thread(target=self._stage, name=f"{name}-stage", daemon=True),
            threading.Thread(target=self._prove, name=f"{name}-prove", daemon=True),
            threading.Thread(target=self._check, name=f"{name}-check", daemon=True),
        ]

    def start(self) -> None:
        for thread in self._threads:
            thread.start()

    def join(self, timeout: float | None = None) -> None:
        for thread in self._threads:
            thread.join(timeout)

    def describe(self) -> dict[str, Any]:
        """The worker as ``GET /health`` lists it: its name, backend and process (the server's)."""
        return {"name": self.name, "backend": self.device.backend_name, "pid": os.getpid()}

    def _stage(self) -> None:
        while not self.jobs.closed:
            job = self.jobs.get(POLL)
            if job is None or not self.hooks.claim(job):
                continue
            try:
                prepared = self.device.prepare(job.key, job.wtns, job.witness, in_place=job.in_upload_memory)
            except Exception as exc:  # a bad witness fails its job alone
                self.hooks.finish(job, failure(exc))
                continue
            job.witness = None  # the limbs live on in the assignment; the queue's copy is not needed
            self._handoff.put((job, prepared))
        self._handoff.put(None)

    def _prove(self) -> None:
        while (item := self._handoff.get()) is not None:
            job, prepared = item
            made: Proof | Outcome
            try:
                made = self.device.prove(prepared)
            except Exception as exc:
                made = failure(exc)
            self._proven.put((job, prepared, made))
        self._proven.put(None)

    def _check(self) -> None:
        while (item := self._proven.get()) is not None:
            job, prepared, made = item
            if isinstance(made, Proof):
                try:
                    made = Outcome(DONE, result=self.device.check(prepared, made))
                except Exception as exc:
                    made = failure(exc)
            self.hooks.observe(job.key, self.device.spans(job.key))  # before the reply: its phases are in /metrics
            self.hooks.finish(job, made)


def failure(exc: BaseException) -> Outcome:
    """The outcome of a job that raised ``exc``: its message and status for a refusal (422 for the engine's), else
    an internal error (500)."""
    if isinstance(exc, ServeError):
        return Outcome(FAILED, error=str(exc), http=exc.status)
    if isinstance(exc, CuzkError):  # the engine's refusal of this witness
        return Outcome(FAILED, error=str(exc), http=UnprocessableError.status)
    return Outcome(FAILED, error=f"internal error: {type(exc).__name__}: {exc}", http=500)


__all__ = ["POLL", "DeviceProver", "Hooks", "Prepared", "Worker", "failure"]
