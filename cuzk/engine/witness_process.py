"""Witnesses made in a worker process, so that a circuit's pure-Python synthesis does not hold the prover's GIL.

A synthesis thread beside the prover shares its interpreter: every kernel launch of a GPU proof waits for that
thread to give up the GIL (docs/performance.md has the figures: a GPU proof many times slower beside one). The
worker here is a separate process, started with "spawn" (never "fork": the parent may hold a GPU context and
thread pools). It gets the circuit's QAP matrices once (prepared on the prover's host backend, which must pickle:
the cpu and reference backends do); for each job it synthesizes the constraint system and evaluates z and A·z, B·z,
C·z, and sends back the four arrays and the times of the three steps
(``time.perf_counter``, the system's monotonic clock, which the processes share).
"""

from __future__ import annotations

import multiprocessing
import signal
import time
from collections.abc import Callable
from concurrent.futures import Future, ProcessPoolExecutor
from typing import Any

from cuzk.engine.witness import Assignment, SparseQap, witness_limbs

Steps = list[tuple[str, float, float]]  # (step, start, end) in perf_counter seconds

_QAP: SparseQap | None = None  # the worker's copy of the circuit's matrices
JOIN_S = 10.0  # seconds close() waits for the pool's manager thread once the worker was ended


def _start(qap: SparseQap) -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # a terminal's Ctrl-C reaches the whole group: the parent decides
    global _QAP
    _QAP = qap


def make_witness(job: Callable[[], Any]) -> tuple[Assignment, Steps]:
    """In the worker: synthesize ``job()``'s constraint system and evaluate its witness, as Prover.witness does."""
    assert _QAP is not None, "the worker was started without the circuit's matrices"
    t0 = time.perf_counter()
    cs = job()
    t1 = time.perf_counter()
    z = witness_limbs([v.value for v in cs.full_assignment()])
    del cs
    t2 = time.perf_counter()
    a, b, c = _QAP.evaluate(z)
    t3 = time.perf_counter()
    return Assignment(z, a, b, c), [("synthesis", t0, t1), ("witness_to_limbs", t1, t2), ("qap_evaluations", t2, t3)]


class _Recording:
    """A multiprocessing context that notes every process made through it (in ``made``), started or not."""

    def __init__(self, context: Any) -> None:
        self._context = context
        self.made: list[Any] = []

    def Process(self, *args: Any, **kwargs: Any) -> Any:  # multiprocessing's name
        process = self._context.Process(*args, **kwargs)
        self.made.append(process)
        return process

    def __getattr__(self, name: str) -> Any:
        return getattr(self._context, name)


class WitnessProcess:
    """One worker process making witnesses of one circuit; jobs must pickle (module-level functions,
    ``functools.partial`` of them). Close it (or use it as a context manager) to end the process."""

    def __init__(self, qap: SparseQap) -> None:
        self._context = _Recording(multiprocessing.get_context("spawn"))
        self._pool = ProcessPoolExecutor(1, mp_context=self._context, initializer=_start, initargs=(qap,))  # type: ignore[arg-type]

    def submit(self, job: Callable[[], Any]) -> Future[tuple[Assignment, Steps]]:
        return self._pool.submit(make_witness, job)

    def close(self) -> None:
        """End the worker now: the jobs not started are cancelled, and one being made is not waited for (after a
        Ctrl-C its witness is not wanted, and the worker, which ignores SIGINT, would finish it first). The pool's
        manager thread ends here, before the interpreter's exit: Python 3.11's exit hook wakes every such thread
        still alive through its wake-up pipe, and one that had closed that pipe already made it print a traceback
        (the pipe is guarded from 3.12 on). The pool's own attributes are read where they exist (3.10–3.13).

        A worker the pool started but had not yet recorded (a Ctrl-C between its start and the pool's note of it)
        is ended too: it would wait for work forever, and the interpreter's exit joins every child still alive.
        The pool makes its processes through this object's context, which notes each one."""
        processes = set((getattr(self._pool, "_processes", None) or {}).values()) | set(self._context.made)
        manager = getattr(self._pool, "_executor_manager_thread", None)
        self._pool.shutdown(wait=False, cancel_futures=True)
        for process in processes:
            if process.is_alive():
                process.terminate()
        if manager is not None:
            manager.join(JOIN_S)

    def __enter__(self) -> WitnessProcess:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


__all__ = ["Steps", "WitnessProcess", "make_witness"]
