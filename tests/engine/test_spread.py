"""prove_spread: a batch dealt to several provers (one per device; here two instances of a backend, each with its own
context, stand in for two devices): every proof is the reference's for its job and its (r, s), in the jobs' order,
whichever prover made it; a failing job is raised in order after the proofs before it; closing early stops."""

from __future__ import annotations

import threading
import time
from functools import partial
from typing import Any

import pytest

from cuzk.backends.registry import get_backend
from cuzk.engine.circuit_job import synthesize
from cuzk.engine.prover import Prover
from cuzk.engine.spread import prove_spread
from cuzk.reference.circuits import build
from cuzk.reference.curves import BN254
from cuzk.reference.errors import ParameterError, UnsatisfiedConstraintError
from cuzk.reference.groth16 import ToxicWaste, create_proof, generate_parameters_with_toxic_waste
from cuzk.reference.qap import Reduction

from .._suite_backends import usable_or_skip

TARGET = 8  # constraints of the cubic circuit of every job
JOBS = 7


def provers(kind: str) -> list[Prover]:
    """Two provers of one key, on two instances of backend ``kind``."""
    usable_or_skip(kind)
    one = get_backend(kind)
    cs = synthesize("cubic", "bn254", TARGET, 0)
    toxic = ToxicWaste(*(BN254.Fr(v) for v in (987654321, 3, 5, 7, 11)))
    pk = generate_parameters_with_toxic_waste(cs, BN254, toxic, reduction=Reduction.LIBSNARK)
    return [Prover(pk, type(one)(), verify=True) for _ in range(2)]  # type: ignore[call-arg]


def job(k: int) -> Any:
    return synthesize("cubic", "bn254", TARGET, k)


def slow_job(k: int) -> Any:
    """Odd jobs take longer: the dealing must still give the jobs' order back."""
    time.sleep(0.02 * (k % 2))
    return job(k)


@pytest.mark.parametrize("kind", ["cpu", "opencl", "cuda"])
def test_spread_proofs_are_the_references_in_order(kind: str) -> None:
    lanes = provers(kind)
    pk = lanes[0].pk
    randomness = lambda k: (k + 1, k + 2)  # noqa: E731
    proofs = list(prove_spread(lanes, [partial(slow_job, k) for k in range(JOBS)], randomness=randomness))
    assert len(proofs) == JOBS
    for k, proof in enumerate(proofs):
        assert proof.to_bytes() == create_proof(pk, job(k), r=k + 1, s=k + 2).to_bytes()
    made = [sum(1 for s in p.recorder.spans if s.name == "prove" and s.level == "engine") for p in lanes]
    assert sum(made) == JOBS and all(made), f"both devices proved: {made}"


def test_a_failing_job_is_raised_after_the_proofs_before_it() -> None:
    lanes = provers("cpu")

    def broken() -> Any:
        cs = build("cubic", BN254.Fr, target_constraints=TARGET, seed=2, check=False)
        cs.aux_assignment[0] = cs.aux_assignment[0] + 1
        return cs

    jobs = [partial(job, 0), partial(job, 1), broken, partial(job, 3), partial(job, 4)]
    results = prove_spread(lanes, jobs)
    assert next(results) is not None and next(results) is not None
    with pytest.raises(UnsatisfiedConstraintError):
        next(results)


def test_closing_early_stops_every_device_and_bad_arguments_are_refused() -> None:
    lanes = provers("cpu")
    results = prove_spread(lanes, (partial(job, k) for k in range(1000)))
    next(results)
    results.close()
    assert not [t for t in threading.enumerate() if t.name.startswith("spread-")], "a lane outlived the iterator"
    with pytest.raises(ParameterError):
        list(prove_spread([], []))
    with pytest.raises(ParameterError):
        list(prove_spread([lanes[0], lanes[0]], []))


def test_cuzk_prove_spreads_a_batch_over_the_devices(monkeypatch: pytest.MonkeyPatch) -> None:
    """``cuzk prove --proofs 3`` on two devices (two PoCL contexts) gives each device a prover and every proof
    verifies; the report names the joined backend."""
    from cuzk.backends.registry import refresh
    from cuzk.engine.circuit_job import prove_circuit

    usable_or_skip("opencl")
    monkeypatch.setenv("CUZK_DEVICE", "0,0")
    refresh()
    try:
        report = prove_circuit(
            circuit="cubic", curve_name="bn254", target_constraints=TARGET, proofs=3, backend_name="opencl"
        )
    finally:
        refresh()
    assert report.verified and report.backend == "opencl[0,0]" and report.proofs == 3
    lanes = {s.thread for s in report.recorder.spans if s.name == "prove" and s.level == "engine"}
    assert len(lanes) == 2, f"the proofs ran on one device's thread only: {lanes}"
