"""Several proofs in a pipeline, as the seed engine proves a sector's partitions: the witness of proof k + 1 is
synthesized, and its A·z, B·z, C·z evaluated, on a producer thread while the backend works on proof k.

The synthesis is the circuit's Python and holds the GIL while it runs; the witness (:meth:`Prover.witness`: z to
limbs once, then the host backend's sparse products, whose kernels release the GIL) hands the consumer limbs, so
the proof itself runs no Python loop over the witness that the producer's Python could slow down. On a backend that
keeps scalars the
producer also stages the witness (:meth:`Prover.stage`): z is checked and uploaded while proof k runs, not at the
start of proof k + 1.

At most ``depth`` synthesized witnesses wait in the queue (memory stays bounded however many proofs are asked
for), and proofs come back in the order of the jobs. A failing job stops the pipeline and its error is raised
in order, after the proofs of the jobs before it.

With ``processes``, the jobs run in a worker process (:mod:`cuzk.engine.witness_process`) and the producer thread
only waits for their witnesses, so no synthesis competes with the proof for the GIL; a job wrapped in :class:`Local`
runs on the producer thread even then (the circuit the caller already holds, say).
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Callable, Iterable, Iterator
from typing import Any

from cuzk.engine.progress import Progress
from cuzk.engine.prover import Prover
from cuzk.engine.witness import Assignment
from cuzk.engine.witness_process import WitnessProcess
from cuzk.reference.errors import ParameterError
from cuzk.reference.groth16 import Proof

_DONE = object()


class Local:
    """A job that runs on the producer thread even when the others go to a worker process."""

    def __init__(self, job: Callable[[], Any]) -> None:
        self.job = job

    def __call__(self) -> Any:
        return self.job()


class _Producer:
    """The producer thread: makes each job's witness (on this thread, or in a worker process) and queues it,
    staged on the prover's backend, for the consumer; an error is queued in its place and ends the thread."""

    def __init__(
        self,
        prover: Prover,
        jobs: Iterable[Callable[[], Any]],
        depth: int,
        processes: bool,
        on_witness: Callable[[int, Assignment], None] | None,
    ) -> None:
        self.prover, self.jobs, self.processes, self.on_witness = prover, jobs, processes, on_witness
        self.ready: queue.Queue[Any] = queue.Queue(maxsize=depth)
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._run, name="synthesis", daemon=True)

    def _in_thread(self, k: int, job: Callable[[], Any]) -> Assignment:
        with self.prover.recorder.span("synthesis", job=k):
            cs = job()
        witness = self.prover.witness(cs)
        # Free the circuit's objects (millions for a 2^20 circuit, a long stretch holding the GIL) before the
        # witness is handed over, not while its proof runs.
        del cs
        return witness

    def _in_process(self, k: int, job: Callable[[], Any], worker: WitnessProcess) -> Assignment:
        witness, steps = worker.submit(job).result()  # the wait releases the GIL
        for name, start, end in steps:
            self.prover.recorder.add(name, "engine", start, end, job=k, process=True)
        return witness

    def _run(self) -> None:
        qap = self.prover.qap
        worker = WitnessProcess(qap) if self.processes and qap is not None else None
        try:
            for k, job in enumerate(self.jobs):
                if self.stop.is_set():
                    return
                remote = worker is not None and not isinstance(job, Local)
                witness = self._in_process(k, job, worker) if remote else self._in_thread(k, job)  # type: ignore[arg-type]
                if self.on_witness is not None:
                    self.on_witness(k, witness)
                self.ready.put((k, self.prover.stage(witness)))  # uploads while the proof before it runs
        except BaseException as error:  # handed to the consumer, re-raised in order
            self.ready.put((None, error))
            return
        finally:
            if worker is not None:
                worker.close()
        self.ready.put((None, _DONE))

    def close(self) -> None:
        """Stop making witnesses: unblock a producer waiting on a full queue, then let it see ``stop``."""
        self.stop.set()
        while self.thread.is_alive():
            try:
                self.ready.get_nowait()
            except queue.Empty:
                self.thread.join(timeout=0.05)


def prove_many(
    prover: Prover,
    jobs: Iterable[Callable[[], Any]],
    *,
    depth: int = 1,
    randomness: Any = None,
    progress: Progress | None = None,
    processes: bool = False,
    on_witness: Callable[[int, Assignment], None] | None = None,
    numbering: Callable[[int], int] | None = None,
) -> Iterator[Proof]:
    """Yield one proof per job; each job is a callable that synthesizes and returns a satisfied ConstraintSystem.

    ``randomness``, if given, is a callable k → (r, s) for job k (tests and vectors); otherwise r, s are drawn
    from ``secrets`` per proof. ``progress`` hears of each finished proof. With the prover's self-check on, a
    proof that does not verify raises ProofSelfCheckError naming job k. ``processes`` synthesizes in a worker
    process (the jobs must pickle, except :class:`Local` ones; the prover must have compiled the circuit).
    ``on_witness(k, witness)`` sees each witness before its proof (its public inputs are z[1 : num_inputs]).
    ``numbering(k)``: job k's number in a larger batch (:func:`~cuzk.engine.spread.prove_spread` deals one batch
    to several provers), which ``randomness``, ``on_witness`` and the errors then use instead of k.
    """
    number = numbering if numbering is not None else (lambda k: k)
    if depth < 1:
        raise ParameterError(f"the pipeline depth must be at least 1, got {depth}")
    if processes and prover.qap is None:
        raise ParameterError("synthesis in a process needs the circuit's matrices: call prover.compile(cs) first")
    seen = None if on_witness is None else (lambda k, witness: on_witness(number(k), witness))
    producer = _Producer(prover, jobs, depth, processes, seen)
    producer.thread.start()
    try:
        while True:
            k, item = producer.ready.get()
            if k is None:
                if item is _DONE:
                    return
                raise item
            r, s = randomness(number(k)) if randomness is not None else (None, None)
            proof = prover.prove_assignment(
                item.z, item.a, item.b, item.c, r=r, s=s, index=number(k), z_kept=item.z_kept, abc_kept=item.abc_kept
            )
            if progress is not None:
                progress.proof_done()
            yield proof
    finally:
        producer.close()
