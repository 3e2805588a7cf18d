"""prove_many with the synthesis in a worker process (cuzk.engine.witness_process): the same proofs as on a thread, the
steps' spans recorded, Local jobs kept on the producer thread, every witness shown to on_witness, a failing job
raised in order, and a clear error when the prover has no compiled circuit."""

from __future__ import annotations

from functools import partial
from typing import Any

import pytest

from cuzk.backends import limbs
from cuzk.engine.circuit_job import synthesize
from cuzk.engine.pipeline import Local, prove_many
from cuzk.engine.prover import Assignment, Prover
from cuzk.reference.circuits import build
from cuzk.reference.curves import BN254
from cuzk.reference.errors import ParameterError, UnsatisfiedConstraintError
from cuzk.reference.groth16 import ToxicWaste, create_proof, generate_parameters_with_toxic_waste
from cuzk.reference.qap import Reduction

TARGET = 8  # constraints of the cubic circuit of every job


def compiled_prover() -> tuple[Any, Prover]:
    cs = synthesize("cubic", "bn254", TARGET, 0)
    toxic = ToxicWaste(*(BN254.Fr(v) for v in (987654321, 3, 5, 7, 11)))
    pk = generate_parameters_with_toxic_waste(cs, BN254, toxic, reduction=Reduction.LIBSNARK)
    prover = Prover(pk, "reference")
    prover.compile(cs)
    return cs, prover


def not_satisfied() -> Any:
    """A job whose witness breaks a constraint (module-level: it is pickled to the worker)."""
    cs = build("cubic", BN254.Fr, target_constraints=TARGET, seed=2, check=False)
    cs.aux_assignment[0] = cs.aux_assignment[0] + 1
    return cs


def test_process_synthesis_gives_the_thread_proofs() -> None:
    cs, prover = compiled_prover()
    seen: dict[int, Assignment] = {}
    jobs = [Local(lambda: cs)] + [partial(synthesize, "cubic", "bn254", TARGET, k) for k in (1, 2)]
    proofs = list(
        prove_many(
            prover,
            jobs,
            randomness=lambda k: (k + 1, k + 2),
            processes=True,
            on_witness=lambda k, w: seen.setdefault(k, w),
        )
    )
    for k, proof in enumerate(proofs):
        expected = create_proof(prover.pk, synthesize("cubic", "bn254", TARGET, k), r=k + 1, s=k + 2)
        assert proof.to_bytes() == expected.to_bytes()
    assert sorted(seen) == [0, 1, 2]
    publics = [limbs.limbs_to_ints(seen[k].z[1 : cs.num_inputs]) for k in range(3)]
    assert publics == [
        [v.value for v in synthesize("cubic", "bn254", TARGET, k).input_assignment[1:]] for k in range(3)
    ]
    remote = [s for s in prover.recorder.spans if s.args.get("process")]
    assert sorted({s.name for s in remote}) == ["qap_evaluations", "synthesis", "witness_to_limbs"]
    assert sorted({s.args["job"] for s in remote}) == [1, 2]  # the Local job 0 ran on the producer thread
    assert all(s.end >= s.start for s in remote)


def test_a_failing_job_in_the_worker_is_raised_in_order() -> None:
    cs, prover = compiled_prover()
    results = prove_many(prover, [Local(lambda: cs), not_satisfied], processes=True)
    next(results)
    with pytest.raises(UnsatisfiedConstraintError):
        next(results)


def test_process_synthesis_needs_the_compiled_circuit() -> None:
    cs, prover = compiled_prover()
    fresh = Prover(prover.pk, "reference")
    with pytest.raises(ParameterError, match="compile"):
        list(prove_many(fresh, [Local(lambda: cs)], processes=True))


@pytest.mark.parametrize("synthesis", ["thread", "process"])
def test_cli_proves_and_verifies_with_either_synthesis(synthesis: str, capsys: pytest.CaptureFixture[str]) -> None:
    from cuzk.cli import main

    argv = ["prove", "--circuit", "cubic", "--constraints", "8", "--backend", "reference", "--proofs", "2"]
    assert main([*argv, "--synthesis", synthesis, "--quiet"]) == 0
    assert "2 proof(s): all verify" in capsys.readouterr().out


def slow_circuit() -> Any:
    """A job that keeps the worker busy for a minute (module-level: it is pickled to the worker)."""
    import time

    time.sleep(60)
    return build("cubic", BN254.Fr, target_constraints=TARGET, seed=3)


def test_closing_ends_a_busy_worker_at_once() -> None:
    """close() does not wait for the witness being made (after a Ctrl-C it is not wanted): the worker is ended and
    the pool's manager thread is gone before close() returns, so nothing is left for the interpreter's exit."""
    import threading
    import time

    from cuzk.engine.witness_process import WitnessProcess

    _, prover = compiled_prover()
    process = WitnessProcess(prover.qap)
    busy = process.submit(slow_circuit)
    workers = list(process._pool._processes.values())  # type: ignore[union-attr]
    deadline = time.monotonic() + 30
    while not busy.running() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert busy.running(), "the worker never took the job"
    began = time.monotonic()
    process.close()
    assert time.monotonic() - began < 10
    assert workers and all(not worker.is_alive() for worker in workers)
    assert not [t for t in threading.enumerate() if "ExecutorManagerThread" in type(t).__name__]


def idle_worker(seconds: float) -> None:
    """A child that waits, as a pool's worker waits for work that never comes."""
    import time

    time.sleep(seconds)


def test_closing_ends_a_worker_the_pool_had_not_recorded() -> None:
    """A Ctrl-C between a worker's start and the pool's note of it left a child waiting for work forever, and the
    interpreter's exit joined it (a CI run's `cuzk prove` hung after printing "interrupted"). close() ends every
    process made through the pool's context, and leaves other children alone (another device's witness process)."""
    import multiprocessing
    import time

    from cuzk.engine.witness_process import WitnessProcess

    context = multiprocessing.get_context("spawn")
    _, prover = compiled_prover()
    process = WitnessProcess(prover.qap)
    other = context.Process(target=idle_worker, args=(60,))  # another's child (another device's witnesses)
    other.start()
    try:
        stray = process._context.Process(target=idle_worker, args=(60,))  # the pool's, never in its own table
        stray.start()
        began = time.monotonic()
        process.close()
        stray.join(10)
        assert time.monotonic() - began < 10 and not stray.is_alive()
        assert other.is_alive()
    finally:
        other.terminate()
        other.join()
