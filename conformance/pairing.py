"""Vector kind ``pairing``: pairing-product checks Π e(P_i, Q_i) = 1, the equation of a Groth16 verification.

Each case is k pairs (P_i ∈ G1, Q_i ∈ G2, valid points of the order-r subgroups: the protocol trusts them) and the
boolean :func:`cuzk.reference.pairing.pairing_check` answers. Every case is built with a designed answer (bilinearity
says what the product is), and generation fails if the reference disagrees with it. Case sets:

- ``bilinear``: e(aP, bQ)·e(−abP, Q) and its relatives (the scalar moved to G2, split, summed; nine pairs at once),
  and false twins of each: one point perturbed to another subgroup point, a pair dropped, a sign slip;
- ``edge``: k = 0 (the empty product is 1), a single pair (never 1), the generators, P with Q and −Q, −Q twice,
  the point at infinity on either side and in both (a pair with O contributes 1), among other pairs and last;
- ``groth16``: the four pairs (A, B), (−α, β), (−Σ x_i·IC_i, γ), (−C, δ) of a reference proof of the ``cubic``
  circuit (:mod:`cuzk.reference.groth16.verifier`), in order and reversed, and the proof with A, B or C moved to
  another point, a wrong public input, the δ pair dropped, A and C swapped;
- ``invalid``: a coordinate ≥ q, G1 and G2 of different lengths (output null: the backend must raise).

Backends run it through the optional capability ``pairing`` (``pairing_check(curve, g1, g2) -> bool``); a backend
without it has these cases skipped. Quick runs check seven cases per curve (:data:`QUICK_CASES`) and the invalid
ones: the pure-Python reference pays about 0.04 s per Miller loop and 0.1 s per final exponentiation, so every case
costs it a tenth of a second or more, whatever k. Format: conformance/formats/pairing.md.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from functools import partial
from typing import Any

import numpy as np

from cuzk.backends import limbs
from cuzk.backends.protocol import PAIRING
from cuzk.conformance.codec import hex_to_limbs, ints_to_hex, limbs_to_hex
from cuzk.conformance.errors import VectorFormatError
from cuzk.conformance.groth16 import TOXIC, R, S
from cuzk.conformance.kinds import CaseResult, CaseSet, Kind, RunContext, VectorFile, check_call, register_kind
from cuzk.reference.circuits import build
from cuzk.reference.curves import Curve, Point
from cuzk.reference.errors import CuzkError
from cuzk.reference.groth16 import (
    Proof,
    ToxicWaste,
    create_proof,
    generate_parameters_with_toxic_waste,
    prepare_inputs,
    verification_pairs,
    verify_proof,
)
from cuzk.reference.qap import Reduction

Pair = tuple[Point, Point]
Design = tuple[str, list[Pair], bool]  # (case id, pairs, the answer bilinearity predicts)
# Quick runs check these cases only (and every invalid one: rejected before any pairing): each check costs the
# pure-Python reference a final exponentiation, 0.1 s or more, whatever k is.
QUICK_CASES = {
    "bilinear": ("ab_moved_to_g1", "ab_perturbed_g1"),
    "edge": ("empty", "single_pair", "infinity_among_pairs"),
    "groth16": ("proof", "c_perturbed"),
}
MANY = 8  # pairs of the many-pairs products (plus one balancing pair)


# --- generation ---------------------------------------------------------------------------------------------------


def _encode(curve: Curve, pairs: list[Pair]) -> dict[str, Any]:
    return {
        "g1": limbs_to_hex(limbs.points_to_limbs(curve, "g1", [p for p, _ in pairs])),
        "g2": limbs_to_hex(limbs.points_to_limbs(curve, "g2", [q for _, q in pairs])),
    }


def _case(curve: Curve, ident: str, pairs: list[Pair], designed: bool) -> dict[str, Any]:
    """The case, its output the reference's answer, which must be the designed one."""
    answer = bool(curve.pairing_check(pairs))
    if answer is not designed:
        raise AssertionError(f"reference pairing_check says {answer} on {curve.name} case {ident}, designed {designed}")
    return {"id": ident, "input": _encode(curve, pairs), "output": answer}


def _random_points(curve: Curve, rng: random.Random) -> tuple[Point, Point]:
    """P = [s]G1, Q = [t]G2 for random s, t ≥ 2 (not the generators, which have their own cases)."""
    return curve.g1.generator * rng.randrange(2, curve.r), curve.g2.generator * rng.randrange(2, curve.r)


def bilinear_designs(curve: Curve, rng: random.Random) -> list[Design]:
    """e(aP, bQ)·e(−abP, Q) = 1 and relatives, each with false twins."""
    r, G = curve.r, curve.g1.generator
    P, Q = _random_points(curve, rng)
    a, b = rng.randrange(2, r), rng.randrange(2, r)
    ab, a_plus_b = a * b % r, (a + b) % r
    scalars = [(rng.randrange(1, r), rng.randrange(1, r)) for _ in range(MANY)]
    many = [(P * x, Q * y) for x, y in scalars]
    balance = (-(P * (sum(x * y for x, y in scalars) % r)), Q)
    aPbQ = (P * a, Q * b)
    return [
        ("ab_moved_to_g1", [aPbQ, (-(P * ab), Q)], True),
        ("ab_moved_to_g2", [aPbQ, (P, -(Q * ab))], True),
        ("ab_swapped", [aPbQ, (P * b, -(Q * a))], True),
        ("sum_in_g1", [(P * a, Q), (P * b, Q), (-(P * a_plus_b), Q)], True),
        ("sum_in_g2", [(P, Q * a), (P, Q * b), (P, -(Q * a_plus_b))], True),
        ("many_pairs", [*many, balance], True),
        ("ab_perturbed_g1", [aPbQ, (-(P * ((ab + 1) % r)), Q)], False),
        ("ab_perturbed_g2", [aPbQ, (-(P * ab), Q + Q)], False),
        ("ab_pair_dropped", [aPbQ], False),
        ("ab_sign_slip", [aPbQ, (P * ab, Q)], False),
        ("sum_in_g1_perturbed", [(P * a, Q), (P * b + G, Q), (-(P * a_plus_b), Q)], False),
        ("many_pairs_perturbed", [*many[:-1], (many[-1][0] + G, many[-1][1]), balance], False),
        ("many_pairs_first_dropped", [*many[1:], balance], False),
    ]


def edge_designs(curve: Curve, rng: random.Random) -> list[Design]:
    """The empty product, single pairs, generators, ±Q, repeated pairs and the point at infinity."""
    G, H = curve.g1.generator, curve.g2.generator
    O1, O2 = curve.g1.identity(), curve.g2.identity()
    P, Q = _random_points(curve, rng)
    return [
        ("empty", [], True),
        ("single_pair", [(P, Q)], False),
        ("generators", [(G, H)], False),
        ("generators_cancel", [(G, H), (-G, H)], True),
        ("p_and_minus_p", [(P, Q), (-P, Q)], True),
        ("q_and_minus_q", [(P, Q), (P, -Q)], True),
        ("same_pair_twice", [(P, Q), (P, Q)], False),
        ("minus_q_twice", [(P, -Q), (P, -Q)], False),
        ("minus_q_twice_and_2p", [(P, -Q), (P, -Q), (P + P, Q)], True),
        ("infinity_g1", [(O1, Q)], True),
        ("infinity_g2", [(P, O2)], True),
        ("infinity_both", [(O1, O2)], True),
        ("infinities_only", [(O1, Q), (P, O2), (O1, O2)], True),
        ("infinity_among_pairs", [(O1, Q), (P, Q), (P, O2), (-P, Q)], True),
        ("infinity_last", [(P, Q), (-P, Q), (O1, H)], True),
        ("infinity_beside_single_pair", [(O1, Q), (P, Q), (G, O2)], False),
    ]


def groth16_designs(curve: Curve) -> list[Design]:
    """The verification equation of a reference proof of ``cubic`` (fixed toxic waste, r, s), and broken proofs."""
    cs = build("cubic", curve.Fr, size=1, seed=f"pairing/{curve.name}/groth16")
    toxic = ToxicWaste(**{k: curve.Fr(v) for k, v in TOXIC.items()})
    pk = generate_parameters_with_toxic_waste(cs, curve, toxic, reduction=Reduction.LIBSNARK)
    proof, vk = create_proof(pk, cs, r=R, s=S), pk.vk
    inputs = cs.input_assignment[1:]
    if not verify_proof(vk, inputs, proof):
        raise AssertionError(f"the reference proof of cubic on {curve.name} does not verify")
    G, H = curve.g1.generator, curve.g2.generator

    def equation(a: Point = proof.a, b: Point = proof.b, c: Point = proof.c, acc: Point | None = None) -> list[Pair]:
        acc = prepare_inputs(vk, inputs) if acc is None else acc
        return verification_pairs(vk, acc, Proof(a, b, c))

    return [
        ("proof", equation(), True),
        ("proof_pairs_reversed", equation()[::-1], True),
        ("a_perturbed", equation(a=proof.a + G), False),
        ("b_perturbed", equation(b=proof.b + H), False),
        ("c_perturbed", equation(c=proof.c + G), False),
        ("wrong_public_input", equation(acc=prepare_inputs(vk, [x + 1 for x in inputs])), False),
        ("delta_pair_dropped", equation()[:3], False),
        ("a_and_c_swapped", equation(a=proof.c, c=proof.a), False),
    ]


def invalid_cases(curve: Curve) -> list[dict[str, Any]]:
    """Inputs a backend must reject: a non-canonical coordinate, lengths that differ."""
    q, L = curve.q, limbs.fq_limbs(curve)
    x1, y1 = limbs.limbs_to_ints(limbs.point_to_limbs(curve, "g1", curve.g1.generator))
    g2 = limbs.limbs_to_ints(limbs.point_to_limbs(curve, "g2", curve.g2.generator))
    G2 = [g2[0:2], g2[2:4]]
    rows = [
        ("g1_x_equal_to_q", [[q, y1]], [G2]),
        ("g1_y_above_q", [[x1, q + 1]], [G2]),
        ("g2_y_c1_equal_to_q", [[x1, y1]], [[g2[0:2], [g2[2], q]]]),
        ("more_g1_than_g2", [[x1, y1], [x1, y1]], [G2]),
        ("more_g2_than_g1", [[x1, y1]], [G2, G2]),
    ]
    return [
        {"id": ident, "input": {"g1": ints_to_hex(g1, L), "g2": ints_to_hex(g2s, L)}, "output": None}
        for ident, g1, g2s in rows
    ]


def generate(curve: Curve, large: bool) -> list[CaseSet]:
    if large:
        return []
    name = curve.name
    bilinear = bilinear_designs(curve, random.Random(f"pairing/{name}/bilinear"))
    edge = edge_designs(curve, random.Random(f"pairing/{name}/edge"))
    return [
        CaseSet(
            "bilinear",
            f"e(aP, bQ)·e(−abP, Q) = 1 and relatives on {name}, with perturbed and dropped pairs",
            [_case(curve, *design) for design in bilinear],
        ),
        CaseSet(
            "edge",
            f"k = 0, single pairs, ±P and ±Q, repeated pairs and the point at infinity on {name}",
            [_case(curve, *design) for design in edge],
        ),
        CaseSet(
            "groth16",
            f"the four-pair verification equation of a reference Groth16 proof on {name}, and broken proofs",
            [_case(curve, *design) for design in groth16_designs(curve)],
        ),
        CaseSet("invalid", "inputs a backend must reject (coordinate ≥ q, lengths differ)", invalid_cases(curve)),
    ]


# --- running ------------------------------------------------------------------------------------------------------


def _meaning(answer: bool) -> str:
    return "Π e(P_i, Q_i) = 1" if answer else "Π e(P_i, Q_i) ≠ 1"


def check_answer(file: str, case: str, expected: bool, call: Callable[[], Any]) -> CaseResult:
    """Run ``call`` and judge its boolean against ``expected``: anything raised, or any answer that is not a bool
    (Python's or numpy's), is a failure too."""
    try:
        got = call()
    except CuzkError as exc:
        return CaseResult(file, case, "failed", message=f"raised {type(exc).__name__}: {exc}")
    except Exception as exc:
        return CaseResult(file, case, "failed", message=f"raised {type(exc).__name__}: {exc} (expected a result)")
    if not isinstance(got, bool | np.bool_):
        return CaseResult(file, case, "failed", message=f"returned {type(got).__name__} {got!r}, expected a bool")
    if bool(got) != expected:
        message = f"expected {expected} ({_meaning(expected)}), got {bool(got)}"
        return CaseResult(file, case, "failed", message=message)
    return CaseResult(file, case, "passed", message=_meaning(expected))


def _arrays(curve: Curve, case: dict[str, Any]) -> tuple[np.ndarray, np.ndarray, bool | None]:
    inp, ident, L = case["input"], case["id"], limbs.fq_limbs(curve)
    g1 = hex_to_limbs(inp["g1"], (2,), L, what=f"{ident} g1")
    g2 = hex_to_limbs(inp["g2"], (2, 2), L, what=f"{ident} g2")
    expected = case["output"]
    if expected is not None and not isinstance(expected, bool):
        raise VectorFormatError(f"{ident}: output must be true, false or null, not {expected!r}")
    return g1, g2, expected


def run(ctx: RunContext, vf: VectorFile) -> list[CaseResult]:
    results = []
    for case in vf.cases:
        ident = case["id"]
        g1, g2, expected = _arrays(vf.curve, case)
        if ctx.quick and expected is not None and ident not in QUICK_CASES.get(vf.case_set, ()):
            results.append(CaseResult(vf.path, ident, "skipped", message="quick run: not in the pairing quick subset"))
            continue
        call = partial(ctx.backend.pairing_check, vf.curve, g1, g2)  # type: ignore[attr-defined]
        if expected is None:
            results.append(check_call(vf.path, ident, None, call))
        else:
            results.append(check_answer(vf.path, ident, expected, call))
    return results


KIND = register_kind(
    Kind(
        name="pairing",
        description="pairing-product checks Π e(P_i, Q_i) = 1 (true, false, edge and Groth16-shaped products)",
        generate=generate,
        run=run,
        requires=frozenset({PAIRING}),
    )
)
