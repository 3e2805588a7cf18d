"""Vector kind ``groth16``: whole proofs of the example circuits, with fixed toxic waste and fixed r, s.

Each case is one circuit of :mod:`cuzk.reference.circuits` at a small size: its proving key (every query as affine
limbs), the full assignment z, the QAP evaluations a, b, c of A·z, B·z, C·z on the domain, the reduction, and r, s.
The output is the proof the reference computes — A‖B‖C as affine limbs and as compressed bytes. A backend passes
when the engine's :class:`~cuzk.engine.prover.Prover`, running every NTT and MSM of the proof on that backend, returns
exactly those bytes: one check that covers H, the five MSMs and their assembly. Format: conformance/formats/groth16.md.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from cuzk.backends import limbs
from cuzk.conformance.codec import hex_to_limbs, ints_to_hex, limbs_to_hex
from cuzk.conformance.kinds import CaseResult, CaseSet, Kind, RunContext, VectorFile, check_call, register_kind
from cuzk.reference.circuits import build
from cuzk.reference.curves import Curve
from cuzk.reference.groth16 import (
    ProvingKey,
    ToxicWaste,
    VerifyingKey,
    create_proof,
    generate_parameters_with_toxic_waste,
)
from cuzk.reference.groth16.prover import qap_evaluations
from cuzk.reference.qap import Reduction

# Fixed, public, INSECURE values: they make the vectors reproducible.
TOXIC = {"tau": 0x1234567890ABCDEF, "alpha": 3, "beta": 5, "gamma": 7, "delta": 11}
R, S = 0xC0FFEE, 0xDECAF
# (circuit, size, reduction): every example circuit, both reductions covered.
CASES = [
    ("cubic", 1, Reduction.LIBSNARK),
    ("cubic", 1, Reduction.CIRCOM),
    ("bits", 1, Reduction.CIRCOM),
    ("mimc", 1, Reduction.LIBSNARK),
    ("merkle", 1, Reduction.CIRCOM),
]
QUICK_MAX_CONSTRAINTS = 100  # the pure-Python reference proves MiMC-sized circuits in seconds: quick runs skip them
G1_QUERIES = ("a_query", "b_g1_query", "h_query", "l_query")
G1_POINTS = ("alpha_g1", "beta_g1", "delta_g1")
G2_POINTS = ("beta_g2", "gamma_g2", "delta_g2")


def _points(curve: Curve, group: str, points: list[Any]) -> Any:
    return limbs_to_hex(limbs.points_to_limbs(curve, group, points))


def proof_limbs(curve: Curve, proof: Any) -> np.ndarray:
    """A‖B‖C as one flat uint64 array (the compared output)."""
    parts = [limbs.point_to_limbs(curve, g, p).ravel() for g, p in (("g1", proof.a), ("g2", proof.b), ("g1", proof.c))]
    return np.concatenate(parts)


def _case(curve: Curve, circuit: str, size: int, reduction: Reduction) -> dict[str, Any]:
    cs = build(circuit, curve.Fr, size=size, seed=f"groth16/{curve.name}/{circuit}")
    toxic = ToxicWaste(**{k: curve.Fr(v) for k, v in TOXIC.items()})
    pk = generate_parameters_with_toxic_waste(cs, curve, toxic, reduction=reduction)
    proof = create_proof(pk, cs, r=R, s=S)
    a, b, c = qap_evaluations(cs)
    fr = lambda values: ints_to_hex([v.value for v in values], limbs.FR_LIMBS)  # noqa: E731
    key = {name: _points(curve, "g1", getattr(pk, name)) for name in G1_QUERIES}
    key["b_g2_query"] = _points(curve, "g2", pk.b_g2_query)
    key["gamma_abc_g1"] = _points(curve, "g1", pk.vk.gamma_abc_g1)
    key |= {name: _points(curve, "g1", [getattr(pk, name, None) or getattr(pk.vk, name)])[0] for name in G1_POINTS}
    key |= {name: _points(curve, "g2", [getattr(pk.vk, name)])[0] for name in G2_POINTS}
    return {
        "id": f"{circuit}_{size}_{reduction.value}",
        "input": {
            "circuit": circuit,
            "num_constraints": cs.num_constraints,
            "reduction": reduction.value,
            "proving_key": key,
            "z": fr(cs.full_assignment()),
            "a": fr(a),
            "b": fr(b),
            "c": fr(c),
            "r": ints_to_hex(R, limbs.FR_LIMBS),
            "s": ints_to_hex(S, limbs.FR_LIMBS),
        },
        "output": {
            "a": limbs_to_hex(limbs.point_to_limbs(curve, "g1", proof.a)),
            "b": limbs_to_hex(limbs.point_to_limbs(curve, "g2", proof.b)),
            "c": limbs_to_hex(limbs.point_to_limbs(curve, "g1", proof.c)),
            "proof_bytes": proof.to_bytes().hex(),
        },
    }


def generate(curve: Curve, large: bool) -> list[CaseSet]:
    if large:
        return []
    cases = [_case(curve, circuit, size, reduction) for circuit, size, reduction in CASES]
    return [CaseSet("proofs", f"Groth16 proofs of the example circuits on {curve.name}", cases)]


# --- running ------------------------------------------------------------------------------------------------------


def _read_points(curve: Curve, group: str, tree: Any, what: str) -> list[Any]:
    inner = limbs.point_shape(curve, group)[:-1]
    return limbs.limbs_to_points(curve, group, hex_to_limbs(tree, inner, limbs.fq_limbs(curve), what=what))


def _read_fr(curve: Curve, tree: Any, what: str) -> list[Any]:
    return limbs.limbs_to_fr(curve, hex_to_limbs(tree, (), limbs.FR_LIMBS, what=what))


def proving_key(curve: Curve, inp: dict[str, Any]) -> ProvingKey:
    """The :class:`ProvingKey` a case carries."""
    key = inp["proving_key"]
    g1 = {name: _read_points(curve, "g1", key[name], name) for name in (*G1_QUERIES, "gamma_abc_g1")}
    one1 = {name: _read_points(curve, "g1", [key[name]], name)[0] for name in G1_POINTS}
    one2 = {name: _read_points(curve, "g2", [key[name]], name)[0] for name in G2_POINTS}
    vk = VerifyingKey(curve, one1["alpha_g1"], one2["beta_g2"], one2["gamma_g2"], one2["delta_g2"], g1["gamma_abc_g1"])
    return ProvingKey(
        vk=vk,
        beta_g1=one1["beta_g1"],
        delta_g1=one1["delta_g1"],
        a_query=g1["a_query"],
        b_g1_query=g1["b_g1_query"],
        b_g2_query=_read_points(curve, "g2", key["b_g2_query"], "b_g2_query"),
        h_query=g1["h_query"],
        l_query=g1["l_query"],
        reduction=Reduction(inp["reduction"]),
        num_constraints=int(inp["num_constraints"]),
    )


def _prove(ctx: RunContext, curve: Curve, inp: dict[str, Any]) -> np.ndarray:
    from cuzk.engine.prover import Prover  # the engine; imported here because cuzk.engine.prover imports the registry

    pk = proving_key(curve, inp)
    z, a, b, c = (_read_fr(curve, inp[k], k) for k in ("z", "a", "b", "c"))
    r, s = (_read_fr(curve, [inp[k]], k)[0] for k in ("r", "s"))
    proof = Prover(pk, ctx.backend).prove_assignment(z, a, b, c, r=r, s=s)
    return proof_limbs(curve, proof)


def run(ctx: RunContext, vf: VectorFile) -> list[CaseResult]:
    results = []
    L = limbs.fq_limbs(vf.curve)
    for case in vf.cases:
        inp, ident = case["input"], case["id"]
        if ctx.quick and int(inp["num_constraints"]) > QUICK_MAX_CONSTRAINTS:
            message = f"quick run: {inp['num_constraints']} constraints > {QUICK_MAX_CONSTRAINTS}"
            results.append(CaseResult(vf.path, ident, "skipped", message=message))
            continue
        out = case["output"]
        expected = np.concatenate(
            [
                hex_to_limbs(out[name], limbs.point_shape(vf.curve, group)[:-1], L, what=f"{ident} {name}").ravel()
                for name, group in (("a", "g1"), ("b", "g2"), ("c", "g1"))
            ]
        )
        results.append(check_call(vf.path, ident, expected, lambda inp=inp: _prove(ctx, vf.curve, inp)))
    return results


KIND = register_kind(
    Kind(
        name="groth16", description="whole Groth16 proofs through the engine on the backend", generate=generate, run=run
    )
)
