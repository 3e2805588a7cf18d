"""Witnesses made in a worker process, so that a circuit's pure-Python synthesis does not hold the prover's GIL.

A synthesis thread beside the prover shares its interpreter: every kernel launch of a GPU proof waits for that
thread to give up the GIL (a 2^20 BN254 proof on an H200 took 161 ms alone and 12.6 s beside a synthesis). The
worker here is a separate process, started with "spawn" (never "fork": the parent may hold a GPU context and
thread pools). It gets the circuit's compiled matrices once; for each job it synthesizes the constraint system
and evaluates z and A·z, B·z, C·z, and sends back the four arrays and the times of the three steps
(``time.perf_counter``, the system's monotonic clock, which the processes share).
"""

from __future__ import annotations

import multiprocessing
import time
from collections.abc import Callable
from concurrent.futures import Future, ProcessPoolExecutor
from typing import Any

from cuzk.prover import Assignment
from cuzk.witness import CompiledR1CS

Steps = list[tuple[str, float, float]]  # (step, start, end) in perf_counter seconds

_COMPILED: CompiledR1CS | None = None  # the worker's copy of the circuit's matrices


def _start(compiled: CompiledR1CS) -> None:
    global _COMPILED
    _COMPILED = compiled


def make_witness(job: Callable[[], Any]) -> tuple[Assignment, Steps]:
    """In the worker: synthesize ``job()``'s constraint system and evaluate its witness, as Prover.evaluate does."""
    assert _COMPILED is not None, "the worker was started without the circuit's matrices"
    t0 = time.perf_counter()
    cs = job()
    t1 = time.perf_counter()
    z = _COMPILED.witness([v.value for v in cs.full_assignment()])
    del cs
    t2 = time.perf_counter()
    a, b, c = _COMPILED.evaluate(z)
    t3 = time.perf_counter()
    return Assignment(z, a, b, c), [("synthesis", t0, t1), ("witness_to_limbs", t1, t2), ("qap_evaluations", t2, t3)]


class WitnessProcess:
    """One worker process making witnesses of one compiled circuit; jobs must pickle (module-level functions,
    ``functools.partial`` of them). Close it (or use it as a context manager) to end the process."""

    def __init__(self, compiled: CompiledR1CS) -> None:
        context = multiprocessing.get_context("spawn")
        self._pool = ProcessPoolExecutor(1, mp_context=context, initializer=_start, initargs=(compiled,))

    def submit(self, job: Callable[[], Any]) -> Future[tuple[Assignment, Steps]]:
        return self._pool.submit(make_witness, job)

    def close(self) -> None:
        self._pool.shutdown(wait=False, cancel_futures=True)

    def __enter__(self) -> WitnessProcess:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


__all__ = ["Steps", "WitnessProcess", "make_witness"]
