"""Vector kind ``field``: element-wise Fr and Fq arithmetic, spot checks for the first thing a kernel gets wrong.

Edge values are those that break carry chains and reductions: 0, 1, 2, p − 1, p − 2, (p ± 1)/2, 2^64 − 1 and 2^64
(a limb boundary), and R, R², R⁻¹ mod p (R = 2^(64·L), the Montgomery radix: a backend that forgets to convert in or
out of Montgomery form fails on them first). Binary operations run over every pair of edge values and over random
pairs; unary ones over every edge value and random values. The inverse of 0 is an invalid input (output null).
Format: conformance/formats/field.md. Needs the backend capability ``field_ops``.
"""

from __future__ import annotations

import random
from functools import partial
from typing import Any

from cuzk.backends import limbs
from cuzk.backends.protocol import BINARY_FIELD_OPS, FIELD_OPS, UNARY_FIELD_OPS
from cuzk.conformance.codec import hex_to_limbs, ints_to_hex
from cuzk.conformance.kinds import CaseResult, CaseSet, Kind, RunContext, VectorFile, check_call, register_kind
from cuzk.reference.curves import Curve

RANDOM_ROWS = 32


def edge_values(p: int) -> list[int]:
    """The edge values of F_p listed in the module docstring, reduced mod p, without repeats."""
    R = pow(2, 64 * limbs.limb_count(p), p)
    candidates = [0, 1, 2, p - 1, p - 2, (p - 1) // 2, (p + 1) // 2, 2**64 - 1, 2**64, R, R * R % p, pow(R, -1, p)]
    return list(dict.fromkeys(v % p for v in candidates))


def _apply(field: Any, op: str, a: int, b: int | None) -> int:
    x = field(a)
    if op == "add":
        return (x + field(b)).value
    if op == "sub":
        return (x - field(b)).value
    if op == "mul":
        return (x * field(b)).value
    if op == "neg":
        return (-x).value
    if op == "square":
        return x.square().value
    return x.inverse().value


def _case(field: Any, name: str, op: str, ident: str, a: list[int], b: list[int] | None) -> dict[str, Any]:
    L = limbs.limb_count(field.MODULUS)
    output = [_apply(field, op, x, None if b is None else y) for x, y in zip(a, b or a, strict=True)]
    inp: dict[str, Any] = {"field": name, "op": op, "a": ints_to_hex(a, L)}
    if b is not None:
        inp["b"] = ints_to_hex(b, L)
    return {"id": f"{op}/{ident}", "input": inp, "output": ints_to_hex(output, L)}


def field_cases(field: Any, name: str, rng: random.Random) -> list[dict[str, Any]]:
    """The cases of one field: per operation, the edge values (all pairs for binary ops), then random rows."""
    p, edges = field.MODULUS, edge_values(field.MODULUS)
    cases = []
    for op in BINARY_FIELD_OPS:
        pairs = [(x, y) for x in edges for y in edges]
        cases.append(_case(field, name, op, "edge", [x for x, _ in pairs], [y for _, y in pairs]))
        a = [rng.randrange(p) for _ in range(RANDOM_ROWS)]
        b = [rng.randrange(p) for _ in range(RANDOM_ROWS)]
        cases.append(_case(field, name, op, "random", a, b))
    for op in UNARY_FIELD_OPS:
        values = [v for v in edges if op != "inverse" or v != 0]
        cases.append(_case(field, name, op, "edge", values, None))
        cases.append(_case(field, name, op, "random", [rng.randrange(1, p) for _ in range(RANDOM_ROWS)], None))
    L = limbs.limb_count(p)
    cases.append(
        {"id": "inverse/zero", "input": {"field": name, "op": "inverse", "a": ints_to_hex([0], L)}, "output": None}
    )
    return cases


def generate(curve: Curve, large: bool) -> list[CaseSet]:
    if large:
        return []
    sets = []
    for name, field in (("fr", curve.Fr), ("fq", curve.Fq)):
        rng = random.Random(f"field/{curve.name}/{name}")
        description = f"{name.capitalize()} of {curve.name}: {', '.join(BINARY_FIELD_OPS + UNARY_FIELD_OPS)}"
        sets.append(CaseSet(name, description, field_cases(field, name, rng)))
    return sets


def run(ctx: RunContext, vf: VectorFile) -> list[CaseResult]:
    results = []
    for case in vf.cases:
        inp = case["input"]
        field_name, op = inp["field"], inp["op"]
        L = limbs.limb_count(vf.curve.r if field_name == "fr" else vf.curve.q)
        a = hex_to_limbs(inp["a"], (), L, what=f"{case['id']} a")
        b = hex_to_limbs(inp["b"], (), L, what=f"{case['id']} b") if "b" in inp else None
        expected = None if case["output"] is None else hex_to_limbs(case["output"], (), L, what=case["id"])
        call = partial(ctx.backend.field_op, vf.curve, field_name, op, a, b)  # type: ignore[attr-defined]
        results.append(check_call(vf.path, case["id"], expected, call))
    return results


KIND = register_kind(
    Kind(
        name="field",
        description="Fr and Fq add/sub/mul/neg/square/inverse on edge and random values",
        generate=generate,
        run=run,
        requires=frozenset({FIELD_OPS}),
    )
)
