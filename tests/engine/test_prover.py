"""The engine's prover: bit-identical to the reference for fixed r, s on every available backend; B_G2 overlaps
the G1 work; prove_many overlaps synthesis with proving; the trace and the timings table say so."""

from __future__ import annotations

import json
import time
from typing import Any

import pytest

from cuzk.backends.reference import ReferenceBackend
from cuzk.backends.registry import discover, registered_backends
from cuzk.pipeline import prove_many
from cuzk.prover import Prover
from cuzk.reference.circuits import build
from cuzk.reference.curves import BLS12_381, BN254, Curve
from cuzk.reference.errors import UnsatisfiedConstraintError
from cuzk.reference.groth16 import ToxicWaste, create_proof, generate_parameters_with_toxic_waste, verify
from cuzk.reference.qap import Reduction
from cuzk.timing import chrome_trace, overlap_seconds, timings_table

TOXIC = {"tau": 987654321, "alpha": 3, "beta": 5, "gamma": 7, "delta": 11}


def keys(curve: Curve, reduction: Reduction, circuit: str = "cubic", size: int = 3) -> tuple[Any, Any]:
    cs = build(circuit, curve.Fr, size=size, seed=1)
    toxic = ToxicWaste(**{k: curve.Fr(v) for k, v in TOXIC.items()})
    return cs, generate_parameters_with_toxic_waste(cs, curve, toxic, reduction=reduction)


@pytest.mark.parametrize("backend_name", registered_backends())
@pytest.mark.parametrize("reduction", list(Reduction), ids=lambda r: r.value)
def test_engine_proof_equals_reference(backend_name: str, reduction: Reduction, curve: Curve) -> None:
    entry = discover()[backend_name]
    if not entry.available:
        pytest.skip(f"backend {backend_name} is not available here: {entry.reason}")
    cs, pk = keys(curve, reduction)
    expected = create_proof(pk, cs, r=13, s=17)
    got = Prover(pk, backend_name).prove(cs, r=13, s=17)
    assert got.to_bytes() == expected.to_bytes()
    assert verify(pk.vk, cs.input_assignment[1:], got)


def test_sequential_g2_gives_the_same_proof() -> None:
    cs, pk = keys(BN254, Reduction.LIBSNARK)
    parallel = Prover(pk, "reference").prove(cs, r=5, s=6)
    sequential = Prover(pk, "reference", g2_in_parallel=False).prove(cs, r=5, s=6)
    assert parallel.to_bytes() == sequential.to_bytes()


def test_unsatisfied_witness_is_refused() -> None:
    cs, pk = keys(BN254, Reduction.LIBSNARK)
    cs.aux_assignment[0] = cs.aux_assignment[0] + 1
    with pytest.raises(UnsatisfiedConstraintError, match="constraint 0"):
        Prover(pk, "reference").prove(cs)


class SlowReference(ReferenceBackend):
    """The reference backend with fixed extra latency per call, so that overlap can be asserted reliably."""

    name = "slow-reference"

    def __init__(self, g1_seconds: float, g2_seconds: float, ntt_seconds: float = 0.0) -> None:
        super().__init__()
        self.delays = {"g1": g1_seconds, "g2": g2_seconds}
        self.ntt_seconds = ntt_seconds

    def _msm(self, curve, group, bases, scalars, window):
        time.sleep(self.delays[group])
        return super()._msm(curve, group, bases, scalars, window)

    def _msm_prepared(self, handle, scalars, window):
        time.sleep(self.delays[handle.group])
        return super()._msm_prepared(handle, scalars, window)


def test_b_g2_runs_inside_the_g1_work(tmp_path) -> None:
    cs, pk = keys(BN254, Reduction.LIBSNARK, size=1)
    prover = Prover(pk, SlowReference(g1_seconds=0.15, g2_seconds=0.2))
    prover.prove(cs)
    rec = prover.recorder
    g2 = rec.window("msm_b_g2")
    first_g1, last_g1 = rec.window("h"), rec.window("msm_h_g1")
    assert g2 is not None and first_g1 is not None and last_g1 is not None
    assert first_g1[0] - 0.05 <= g2[0] and g2[1] <= last_g1[1], "B_G2 must lie inside the span of H + the G1 MSMs"
    g2_thread = {s.thread for s in rec.spans if s.name == "msm_b_g2"}
    g1_thread = {s.thread for s in rec.spans if s.name == "msm_a_g1"}
    assert g2_thread.isdisjoint(g1_thread)
    trace = json.loads(chrome_trace(rec, tmp_path / "trace.json").read_text())
    names = {e["name"] for e in trace["traceEvents"] if e["ph"] == "X"}
    assert {"msm_a_g1", "msm_b_g1", "msm_l_g1", "msm_h_g1", "msm_b_g2", "h", "prove"} <= names
    table = "\n".join(timings_table(rec))
    assert "msm_b_g2" in table and "overlapped" in table
    assert overlap_seconds(rec, "msm_b_g2", ["msm_a_g1", "msm_b_g1", "msm_l_g1", "msm_h_g1", "h"]) > 0.15


def test_prove_many_overlaps_synthesis_with_proving() -> None:
    _cs, pk = keys(BN254, Reduction.LIBSNARK, size=1)
    prover = Prover(pk, SlowReference(g1_seconds=0.05, g2_seconds=0.05))

    def job(k: int) -> Any:
        time.sleep(0.15)  # a synthesis that takes a while (releases the GIL, as a real witness generator would)
        return build("cubic", BN254.Fr, size=1, seed=k)

    proofs = list(prove_many(prover, [lambda k=k: job(k) for k in range(3)], randomness=lambda k: (k + 1, k + 2)))
    assert len(proofs) == 3
    for k, proof in enumerate(proofs):  # in order: proof k is the one of job k
        assert (
            proof.to_bytes() == create_proof(pk, build("cubic", BN254.Fr, size=1, seed=k), r=k + 1, s=k + 2).to_bytes()
        )
    rec = prover.recorder
    syntheses = sorted((s for s in rec.spans if s.name == "synthesis"), key=lambda s: s.start)
    proves = sorted((s for s in rec.spans if s.name == "prove"), key=lambda s: s.start)
    overlap = max(0.0, min(syntheses[1].end, proves[0].end) - max(syntheses[1].start, proves[0].start))
    assert overlap > 0.1, "synthesis of proof 2 must run while proof 1 is being proved"


def test_prove_many_raises_a_failing_job_in_order() -> None:
    _cs, pk = keys(BN254, Reduction.LIBSNARK, size=1)
    prover = Prover(pk, "reference")

    def bad() -> Any:
        raise UnsatisfiedConstraintError("job 1 is broken", 0)

    jobs = [lambda: build("cubic", BN254.Fr, size=1, seed=0), bad, lambda: build("cubic", BN254.Fr, size=1)]
    results = prove_many(prover, jobs)
    assert verify(pk.vk, build("cubic", BN254.Fr, size=1, seed=0).input_assignment[1:], next(results))
    with pytest.raises(UnsatisfiedConstraintError, match="job 1"):
        next(results)


@pytest.mark.slow
def test_engine_on_bls12_381_mimc() -> None:
    cs, pk = keys(BLS12_381, Reduction.CIRCOM, circuit="mimc", size=1)
    assert Prover(pk).prove(cs, r=1, s=2).to_bytes() == create_proof(pk, cs, r=1, s=2).to_bytes()


def test_internal_level_is_recorded_when_the_backend_reports_it() -> None:
    """A backend that reports its own compute time (here OpenCL's profiling events) fills the internal column."""
    entry = discover().get("opencl")
    if entry is None or not entry.available:
        pytest.skip(f"the opencl backend is not available here: {entry.reason if entry else 'not registered'}")
    cs, pk = keys(BN254, Reduction.LIBSNARK, size=2)
    prover = Prover(pk, "opencl")
    assert prover.prove(cs, r=3, s=4).to_bytes() == create_proof(pk, cs, r=3, s=4).to_bytes()
    internal = {s.name for s in prover.recorder.spans if s.level == "internal"}
    assert {"msm_a_g1", "msm_b_g2", "compute_h"} <= internal
    for name in internal:  # device time never exceeds the wall time around the call
        assert prover.recorder.seconds(name, "internal") <= prover.recorder.seconds(name, "backend") + 1e-6
