"""``cuzk prove``: build one of the project's circuits, set it up, prove it on a backend and verify the proof."""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from cuzk.prover import Prover
from cuzk.reference.circuits import build
from cuzk.reference.curves import curve_by_name
from cuzk.reference.groth16 import generate_random_parameters, verify
from cuzk.reference.qap import Reduction
from cuzk.timing import phase_rows


@dataclass
class ProveReport:
    """What ``cuzk prove`` did: the circuit's size, the backend, seconds per step, and the verifier's verdict."""

    circuit: str
    curve: str
    backend: str
    num_constraints: int
    verified: bool = False
    seconds: dict[str, float] = field(default_factory=dict)
    prover_phases: dict[str, float] = field(default_factory=dict)

    def lines(self) -> list[str]:
        out = [
            f"circuit {self.circuit} on {self.curve}: {self.num_constraints} constraints; backend {self.backend}",
            *(f"  {name:<14} {s:8.3f} s" for name, s in self.seconds.items()),
            "  prover phases:",
            *(f"    {name:<12} {s:8.3f} s" for name, s in self.prover_phases.items()),
            f"proof {'verifies' if self.verified else 'DOES NOT VERIFY'}",
        ]
        return out


def prove_circuit(
    *,
    circuit: str,
    curve_name: str,
    target_constraints: int,
    backend_name: str | None,
    reduction: str = "libsnark",
    seed: int | str = 0,
) -> ProveReport:
    """Synthesize ``circuit`` at about ``target_constraints``, run a one-party setup, prove, verify; time each."""
    curve = curve_by_name(curve_name)
    seconds: dict[str, float] = {}

    started = time.perf_counter()
    cs = build(circuit, curve.Fr, target_constraints=target_constraints, seed=seed)
    seconds["synthesis"] = time.perf_counter() - started

    started = time.perf_counter()
    pk = generate_random_parameters(cs, curve, reduction=Reduction(reduction))
    seconds["setup"] = time.perf_counter() - started

    started = time.perf_counter()
    prover = Prover(pk, backend_name)
    seconds["prepare_key"] = time.perf_counter() - started

    started = time.perf_counter()
    proof = prover.prove(cs)
    seconds["prove"] = time.perf_counter() - started

    started = time.perf_counter()
    ok = verify(pk.vk, cs.input_assignment[1:], proof)
    seconds["verify"] = time.perf_counter() - started
    return ProveReport(
        circuit=circuit,
        curve=curve.name,
        backend=prover.backend.name,
        num_constraints=cs.num_constraints,
        verified=ok,
        seconds=seconds,
        prover_phases={row.phase: row.engine for row in phase_rows(prover.recorder)},
    )
