"""Vector kind ``point_ntt``: the NTT over G1 and G2 points, as :func:`cuzk.reference.point_ntt.point_ntt` defines it.

Each case is n points of one group and a primitive n-th root of unity ω of Fr, with two outputs: ``forward``
(Q_i = Σ_j [ω^(ij)] P_j) and ``inverse`` ([n⁻¹] Σ_i [ω^(−ij)] P_i, the transform ``prepare phase2`` computes).
ω is ffjavascript's root (what snarkjs's ptau files use) or the reference's ``domain_root`` (they differ on
BLS12-381). Inputs: random subgroup points (with points at infinity among them), n = 0, 1, 2, 4, 8, 16 in G1 and
up to 8 in G2; structured ones (one point at index 0 or 1, all equal, all at infinity, a point and its negation),
whose transforms are predictable; powers [τ^j]G of a known τ, whose inverse is the Lagrange basis [L_i(τ)]G.
Invalid inputs (n not a power of two, ω not a primitive n-th root, a coordinate ≥ q) have output null. Outputs
up to n = 8 are checked against the O(n²) oracle while generating. Backends run it through the optional capability
``point_ntt``; those with ``stored_point_ntt`` run every case again on the inputs encoded as a .ptau stores them
(variant ``<mode>/stored``: the result decoded for the same comparison; a bad point found is a refusal). Format:
conformance/formats/point_ntt.md.
"""

from __future__ import annotations

import random
from functools import partial
from typing import Any

import numpy as np

from cuzk.backends import limbs
from cuzk.backends.errors import BackendInputError
from cuzk.backends.protocol import POINT_NTT, STORED_POINT_NTT, has_capability
from cuzk.conformance.codec import hex_of, hex_to_limbs, limbs_to_hex
from cuzk.conformance.kinds import CaseResult, CaseSet, Kind, RunContext, VectorFile, check_call, register_kind
from cuzk.conformance.msm import random_points
from cuzk.formats.points import PointDecoder
from cuzk.reference.curves import Curve, Point
from cuzk.reference.ntt import domain_root
from cuzk.reference.point_ntt import ffjavascript_root, point_dft, point_ntt

SIZES = {"g1": [0, 1, 2, 4, 8, 16], "g2": [0, 1, 2, 4, 8]}
ORACLE_MAX = 8  # outputs up to this size are also computed by the O(n²) oracle
QUICK_MAX = 4  # in quick runs, larger inputs are skipped (the pure-Python reference pays ~10 ms per G2 multiple)
MODES = {"forward": False, "inverse": True}


def _roots(curve: Curve, n: int) -> list[tuple[str, int]]:
    if n == 0:
        return [("ffjavascript", 1)]
    ffjs, ref = ffjavascript_root(curve.Fr, n), domain_root(curve.Fr, n)
    return [("ffjavascript", ffjs.value)] + ([("reference", ref.value)] if ref != ffjs else [])


def _case(curve: Curve, group: str, ident: str, points: list[Point], omega: int) -> dict[str, Any]:
    outputs = {}
    for mode, inverse in MODES.items():
        out = point_ntt(points, curve.Fr(omega), inverse=inverse) if points else []
        if 0 < len(points) <= ORACLE_MAX and out != point_dft(points, curve.Fr(omega), inverse=inverse):
            raise AssertionError(f"reference point_ntt and point_dft disagree on {curve.name} {group} {ident}")
        outputs[mode] = _hex_points(curve, group, out)
    return {"id": ident, "input": _input(curve, group, points, omega), "output": outputs}


def _hex_points(curve: Curve, group: str, points: list[Point]) -> Any:
    shape = (len(points), *limbs.point_shape(curve, group))
    array = limbs.points_to_limbs(curve, group, points) if points else np.zeros(shape, np.uint64)
    return limbs_to_hex(array.reshape(shape))


def _input(curve: Curve, group: str, points: list[Point], omega: int) -> dict[str, Any]:
    return {"group": group, "points": _hex_points(curve, group, points), "omega": hex_of(omega, limbs.FR_LIMBS)}


def _random(curve: Curve, group: str) -> list[dict[str, Any]]:
    rng = random.Random(f"point_ntt/{curve.name}/{group}/random")
    grp, cases = limbs.group_of(curve, group), []
    for n in SIZES[group]:
        points = random_points(grp, rng, n)
        if n >= 4:
            points[rng.randrange(n)] = grp.identity()
        cases += [_case(curve, group, f"random/n={n}/{name}", points, w) for name, w in _roots(curve, n)]
    return cases


def _structured(curve: Curve, group: str) -> list[dict[str, Any]]:
    grp, n = limbs.group_of(curve, group), 4
    P, O = grp.generator * 12345, grp.identity()
    tau = 0xC0FFEE  # a known τ: the inverse of [τ^j]G is [L_i(τ)]G
    inputs = {
        "one_hot_0": [P, O, O, O],
        "one_hot_1": [O, P, O, O],
        "all_equal": [P] * n,
        "all_infinity": [O] * n,
        "point_and_negation": [P, -P, P, -P],
        "tau_powers": [grp.generator * pow(tau, j, curve.r) for j in range(n)],
    }
    omega = ffjavascript_root(curve.Fr, n).value
    return [_case(curve, group, f"{name}/n={n}", points, omega) for name, points in inputs.items()]


def _invalid(curve: Curve) -> list[dict[str, Any]]:
    grp = limbs.group_of(curve, "g1")
    points = random_points(grp, random.Random(f"point_ntt/{curve.name}/invalid"), 4)
    omega4 = ffjavascript_root(curve.Fr, 4).value
    bad = _input(curve, "g1", points, omega4)
    bad["points"][2][0] = hex_of(curve.q, limbs.fq_limbs(curve))
    cases = [
        ("n=3", _input(curve, "g1", points[:3], omega4)),
        ("omega_not_primitive", _input(curve, "g1", points, curve.r - 1)),
        ("omega_not_a_root", _input(curve, "g1", points, 5)),
        ("omega=r", _input(curve, "g1", points, 0) | {"omega": hex_of(curve.r, limbs.FR_LIMBS)}),
        ("coordinate=q", bad),
    ]
    return [{"id": ident, "input": inp, "output": None} for ident, inp in cases]


def generate(curve: Curve, large: bool) -> list[CaseSet]:
    return [
        CaseSet("g1_random", f"random G1 points of {curve.name}, n = 0 … 16", _random(curve, "g1")),
        CaseSet("g2_random", f"random G2 points of {curve.name}, n = 0 … 8", _random(curve, "g2")),
        CaseSet(
            "structured",
            f"predictable G1 and G2 inputs of {curve.name} (n = 4)",
            [{**c, "id": f"{group}/{c['id']}"} for group in ("g1", "g2") for c in _structured(curve, group)],
        ),
        CaseSet("invalid", "inputs a backend must reject in both modes", _invalid(curve)),
    ]


def _arrays(curve: Curve, case: dict[str, Any]) -> tuple[str, np.ndarray, int]:
    inp, ident = case["input"], case["id"]
    group = inp["group"]
    inner = limbs.point_shape(curve, group)[:-1]
    points = hex_to_limbs(inp["points"], inner, limbs.fq_limbs(curve), what=f"{ident} points")
    omega = limbs.limbs_to_int(hex_to_limbs([inp["omega"]], (), limbs.FR_LIMBS, what=f"{ident} omega")[0])
    return group, points.reshape(len(points), *limbs.point_shape(curve, group)), omega


def run(ctx: RunContext, vf: VectorFile) -> list[CaseResult]:
    """Each mode of each case is one result, its variant the mode's name."""
    results = []
    for case in vf.cases:
        group, points, omega = _arrays(vf.curve, case)
        if ctx.quick and len(points) > QUICK_MAX:
            results.append(CaseResult(vf.path, case["id"], "skipped", message=f"quick run: n > {QUICK_MAX}"))
            continue
        inner = limbs.point_shape(vf.curve, group)[:-1]
        for mode, inverse in MODES.items():
            output = None if case["output"] is None else case["output"][mode]
            expected = None
            if output is not None:
                expected = hex_to_limbs(output, inner, limbs.fq_limbs(vf.curve), what=f"{case['id']} {mode}")
                expected = expected.reshape(points.shape)
            ntt = ctx.backend.point_ntt  # type: ignore[attr-defined]
            call = partial(ntt, vf.curve, group, points, omega, inverse=inverse)
            results.append(check_call(vf.path, case["id"], expected, call, variant=mode))
            if has_capability(ctx.backend, STORED_POINT_NTT):
                call = partial(_stored, ctx.backend, vf.curve, group, points, omega, inverse)
                results.append(check_call(vf.path, case["id"], expected, call, variant=f"{mode}/stored"))
    return results


def _stored(backend: Any, curve: Curve, group: str, points: np.ndarray, omega: int, inverse: bool) -> np.ndarray:
    """point_ntt_stored between the file codec's encode and decode (the invalid case's coordinate q is encoded as
    0·R: the point is then off the curve, which the backend must find)."""
    codec = PointDecoder(curve, group)
    out, bad = backend.point_ntt_stored(curve, group, codec.encode(points), omega, inverse=inverse)
    if out is None:
        raise BackendInputError(f"point_ntt_stored found point {bad} bad", array="stored")
    decoded, _ = codec.decode(out, check=False)
    return decoded


KIND = register_kind(
    Kind(
        name="point_ntt",
        description="forward and inverse NTTs over G1 and G2 points (a ptau's Lagrange bases)",
        generate=generate,
        run=run,
        requires=frozenset({POINT_NTT}),
    )
)
