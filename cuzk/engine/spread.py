"""A batch of proofs spread over several devices: one prover per device, each job to the first one free.

A PoRep proof's partitions go to whichever GPU is free; :func:`prove_spread` does that for any batch. Each prover
(one per device, its key resident there) runs its own pipeline (:func:`~cuzk.engine.pipeline.prove_many`: the
next witness made and staged while its proof runs) over the jobs it takes from one shared dealer, so a faster
device takes more of them. Proofs come back in the jobs' order, numbered as in one batch (``randomness(k)``, the
self-check's error), whichever device made them. A failing job stops the dealing (every device finishes the jobs
it took); its error is raised in order, after the proofs of the jobs before it. Closing the iterator early stops
every device after its current proof.

One proof split across devices is the other way to use them (:class:`~cuzk.backends.split.SplitBackend`): it
shortens one proof, this multiplies proofs per second.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any

from cuzk.engine.pipeline import prove_many
from cuzk.engine.progress import Progress
from cuzk.engine.prover import Prover
from cuzk.engine.witness import Assignment
from cuzk.reference.errors import ParameterError
from cuzk.reference.groth16 import Proof


class _Dealer:
    """The shared queue of jobs: (k, job) to whichever lane asks first, until the jobs end or :meth:`stop`."""

    def __init__(self, jobs: Iterable[Callable[[], Any]]) -> None:
        self._jobs = enumerate(jobs)
        self._lock = threading.Lock()
        self.stopped = threading.Event()  # no more jobs dealt (a job failed, or the caller closed)
        self.closing = threading.Event()  # the caller closed: every lane stops after its current proof

    def take(self) -> tuple[int, Callable[[], Any]] | None:
        with self._lock:
            if self.stopped.is_set():
                return None
            return next(self._jobs, None)

    def stop(self) -> None:
        self.stopped.set()


class _Results:
    """Proofs (or the error of a job) by job number, handed out in order."""

    def __init__(self, lanes: int) -> None:
        self._done: dict[int, Proof | BaseException] = {}
        self._lanes_left = lanes
        self._cond = threading.Condition()

    def put(self, k: int, item: Proof | BaseException) -> None:
        with self._cond:
            self._done[k] = item
            self._cond.notify_all()

    def lane_ended(self) -> None:
        with self._cond:
            self._lanes_left -= 1
            self._cond.notify_all()

    def get(self, k: int) -> Proof | BaseException | None:
        """Job k's proof or error, once there; None when every lane ended without it (no job k)."""
        with self._cond:
            while k not in self._done and self._lanes_left:
                self._cond.wait()
            return self._done.pop(k, None)


def prove_spread(
    provers: Sequence[Prover],
    jobs: Iterable[Callable[[], Any]],
    *,
    depth: int = 1,
    randomness: Callable[[int], tuple[Any, Any]] | None = None,
    progress: Progress | None = None,
    processes: bool = False,
    on_witness: Callable[[int, Assignment], None] | None = None,
) -> Iterator[Proof]:
    """Yield one proof per job (callables returning a satisfied ConstraintSystem, as for ``prove_many``), the jobs
    dealt to ``provers`` (one per device, all for the same key) as each is free; ``depth``, ``randomness``,
    ``progress``, ``processes`` (a worker process per device) and ``on_witness`` (called from the devices'
    threads, with the job's number) as for ``prove_many``."""
    if not provers:
        raise ParameterError("prove_spread needs at least one prover")
    if len({id(p) for p in provers}) != len(provers):
        raise ParameterError("prove_spread needs one prover per device, each given once")
    dealer, results = _Dealer(jobs), _Results(len(provers))
    options = {
        "depth": depth,
        "randomness": randomness,
        "progress": progress,
        "processes": processes,
        "on_witness": on_witness,
    }
    lanes = [
        threading.Thread(target=_lane, args=(p, dealer, results, options), name=f"spread-{i}")
        for i, p in enumerate(provers)
    ]
    for lane in lanes:
        lane.start()
    try:
        k = 0
        while (item := results.get(k)) is not None:
            if isinstance(item, BaseException):
                raise item
            yield item
            k += 1
        stray = results.get(-1)  # the jobs' iterable itself failed
        if isinstance(stray, BaseException):
            raise stray
    finally:
        dealer.closing.set()
        dealer.stop()
        for lane in lanes:
            lane.join()


def _lane(prover: Prover, dealer: _Dealer, results: _Results, options: dict[str, Any]) -> None:
    """One device's pipeline (``prove_many`` with ``options``) over the jobs it takes from ``dealer``."""
    taken: list[int] = []

    def its_jobs() -> Iterator[Callable[[], Any]]:
        while (dealt := dealer.take()) is not None:
            taken.append(dealt[0])
            yield dealt[1]

    proofs = prove_many(prover, its_jobs(), numbering=taken.__getitem__, **options)
    done = 0
    try:
        for proof in proofs:
            results.put(taken[done], proof)
            done += 1
            if dealer.closing.is_set():
                break
    except BaseException as error:  # the job the pipeline was on when it failed: the next one not yet proven
        dealer.stop()
        results.put(taken[done] if done < len(taken) else -1, error)
    finally:
        proofs.close()
        results.lane_ended()


__all__ = ["prove_spread"]
