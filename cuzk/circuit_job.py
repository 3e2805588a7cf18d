"""``cuzk prove``: build one of the project's circuits, set it up, prove it on a backend and verify the proof."""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from cuzk.pipeline import prove_many
from cuzk.prover import Prover
from cuzk.reference.circuits import build
from cuzk.reference.curves import curve_by_name
from cuzk.reference.groth16 import generate_random_parameters, verify
from cuzk.reference.qap import Reduction
from cuzk.timing import Recorder


@dataclass
class ProveReport:
    """What ``cuzk prove`` did: the circuit's size, the backend, seconds per step, the verifier's verdicts."""

    circuit: str
    curve: str
    backend: str
    num_constraints: int
    proofs: int
    verified: bool
    seconds: dict[str, float] = field(default_factory=dict)
    recorder: Recorder = field(default_factory=Recorder)

    def lines(self) -> list[str]:
        verdict = "all verify" if self.verified else "NOT ALL VERIFY"
        return [
            f"circuit {self.circuit} on {self.curve}: {self.num_constraints} constraints; backend {self.backend}",
            *(f"  {name:<12}{s:9.3f} s" for name, s in self.seconds.items()),
            f"{self.proofs} proof(s): {verdict}",
        ]


def prove_circuit(
    *,
    circuit: str,
    curve_name: str,
    target_constraints: int,
    backend_name: str | None,
    reduction: str = "libsnark",
    seed: int | str = 0,
    proofs: int = 1,
    window: int | None = None,
) -> ProveReport:
    """Synthesize ``circuit`` at about ``target_constraints``, run a one-party setup, prove ``proofs`` witnesses
    (different seeds, pipelined), verify each; time every step."""
    curve = curve_by_name(curve_name)
    seconds: dict[str, float] = {}

    started = time.perf_counter()
    cs = build(circuit, curve.Fr, target_constraints=target_constraints, seed=seed)
    seconds["synthesis"] = time.perf_counter() - started

    started = time.perf_counter()
    pk = generate_random_parameters(cs, curve, reduction=Reduction(reduction))
    seconds["setup"] = time.perf_counter() - started

    started = time.perf_counter()
    prover = Prover(pk, backend_name, window=window)
    seconds["prepare key"] = time.perf_counter() - started

    publics: dict[int, list[object]] = {}  # the public inputs of each job, kept for verification (not the systems)

    def job(k: int) -> object:
        system = cs if k == 0 else build(circuit, curve.Fr, target_constraints=target_constraints, seed=f"{seed}/{k}")
        publics[k] = system.input_assignment[1:]
        return system

    started = time.perf_counter()
    results = list(prove_many(prover, [lambda k=k: job(k) for k in range(proofs)]))
    seconds["prove" if proofs == 1 else f"prove ×{proofs}"] = time.perf_counter() - started

    started = time.perf_counter()
    ok = all(verify(pk.vk, publics[k], proof) for k, proof in enumerate(results))
    seconds["verify"] = time.perf_counter() - started
    return ProveReport(
        circuit, curve.name, prover.backend.name, cs.num_constraints, proofs, ok, seconds, prover.recorder
    )
