"""Vector kind ``msm``: multi-scalar multiplications Σ kᵢ·Pᵢ in G1 and G2, as the reference defines them.

Random case sets sweep n over 0, 1, 2, 3, powers of two and their neighbours, and sizes that are not powers of two
(up to a few thousand points in G1, a few hundred in G2: pure-Python generation cost sets the bound; ``--large``
goes further). Edge case sets hold what breaks bucket methods: zero scalars, scalars 1 and r − 1, all-equal scalars,
scalars whose signed digits carry across every window, repeated bases (a bucket doubling), P and −P (a bucket
reaching infinity), the point at infinity among the bases, results that are the identity. Invalid inputs (a
scalar ≥ r, a coordinate ≥ q, lengths that differ) have output null. Expected outputs come from
:func:`cuzk.reference.msm.msm`, and for n ≤ 4 also from the double-and-add oracle :func:`msm_naive`.

A backend with optional capabilities is also run through them, each result a variant of the case: ``window=w``
(WINDOW), ``prepared`` (PREPARED_BASES), ``batch`` (MSM_BATCH: one call over all the file's cases).
Format: conformance/formats/msm.md.
"""

from __future__ import annotations

import random
from functools import partial
from typing import Any

import numpy as np

from cuzk.backends import limbs
from cuzk.backends.protocol import MSM_BATCH, PREPARED_BASES, WINDOW, has_capability
from cuzk.conformance.codec import hex_to_limbs, ints_to_hex, limbs_to_hex
from cuzk.conformance.kinds import CaseResult, CaseSet, Kind, RunContext, VectorFile, check_call, register_kind
from cuzk.reference.curves import Curve, Group, Point
from cuzk.reference.msm import msm, msm_naive

SMALL_SIZES = [0, 1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 31, 32, 33, 63, 64, 65, 100, 127, 128, 129]
G1_SIZES = [*SMALL_SIZES, 255, 256, 257, 2048]
G2_SIZES = [*SMALL_SIZES, 200]
LARGE_SIZES = {"g1": [1000, 1023, 1024, 1025, 4096, 10000, 16384], "g2": [255, 256, 257, 511, 512, 1000, 2048]}
NAIVE_MAX = 4  # outputs up to this n are also checked against double-and-add
QUICK_MAX = 40  # quick runs skip larger MSMs: every edge case is ≤ 40 ...
QUICK_RANDOM_MAX = {"g1_random": 17, "g2_random": 9}  # ... and the random sets stop early (G2 is slow in Python)
QUICK_VARIANT_MAX = 4  # and run the capability variants only up to this size
VARIANT_WINDOWS = (1, 2, 4)
WINDOW_VARIANT_MAX = 16  # window variants only on MSMs up to this size (window 1 costs ~255 additions per point)
POOL = 8


# --- generation ---------------------------------------------------------------------------------------------------


def random_points(group: Group, rng: random.Random, n: int) -> list[Point]:
    """n pseudo-random points of the subgroup: a walk P_{i+1} = P_i + T_j over a pool of 8 random multiples
    T_j = [t_j]G (one addition per point instead of a scalar multiplication)."""
    pool = [group.generator * rng.randrange(1, group.order) for _ in range(POOL)]
    point, points = pool[0], []
    for _ in range(n):
        point = point + pool[rng.randrange(POOL)]
        points.append(point.normalize())
    return points


def special_scalars(r: int) -> list[int]:
    """Scalars at the edges of windows and of r: small values, 2^k and 2^k − 1 (all-ones windows carry through
    every signed digit), and r − 1, r − 2, (r ± 1)/2, r − 2^k."""
    values = [0, 1, 2, 3, r - 1, r - 2, (r - 1) // 2, (r + 1) // 2]
    values += [2**k for k in (1, 7, 8, 15, 16, 63, 64, 127, 128, 200, 253)]
    values += [2**k - 1 for k in (2, 5, 8, 13, 16, 64, 128, 254)]
    values += [r - 2**k for k in (1, 16, 64, 128)]
    return list(dict.fromkeys(v % r for v in values))


def _case(group_name: str, curve: Curve, ident: str, bases: list[Point], scalars: list[int]) -> dict[str, Any]:
    group = limbs.group_of(curve, group_name)
    result = msm(group, bases, scalars)
    if len(bases) <= NAIVE_MAX and result != msm_naive(group, bases, scalars):
        raise AssertionError(f"reference msm and msm_naive disagree on {curve.name} {group_name}, case {ident}")
    return {
        "id": ident,
        "input": {
            "group": group_name,
            "bases": limbs_to_hex(limbs.points_to_limbs(curve, group_name, bases)),
            "scalars": ints_to_hex(scalars, limbs.FR_LIMBS),
        },
        "output": limbs_to_hex(limbs.point_to_limbs(curve, group_name, result)),
    }


def random_cases(curve: Curve, group_name: str, sizes: list[int], seed: str) -> list[dict[str, Any]]:
    group, rng = limbs.group_of(curve, group_name), random.Random(seed)
    points = random_points(group, rng, max(sizes))
    cases = []
    for n in sizes:
        bases = rng.sample(points, n)
        cases.append(_case(group_name, curve, f"n={n}", bases, [rng.randrange(curve.r) for _ in range(n)]))
    return cases


def edge_cases(curve: Curve, group_name: str, seed: str) -> list[dict[str, Any]]:
    group, rng, r = limbs.group_of(curve, group_name), random.Random(seed), curve.r
    pts = random_points(group, rng, 40)
    O, G = group.identity(), group.generator
    k = rng.randrange(1, r)
    special = special_scalars(r)
    rand = [rng.randrange(r) for _ in range(40)]
    cases = [
        ("generator_times_one", [G], [1]),
        ("generator_times_r_minus_1", [G], [r - 1]),
        ("zero_scalars", pts[:8], [0] * 8),
        ("one_scalars", pts[:8], [1] * 8),
        ("r_minus_1_scalars", pts[:8], [r - 1] * 8),
        ("equal_scalars", pts[:33], [k] * 33),
        ("special_scalars", pts[: len(special)], special),
        ("small_scalars", pts[:40], [rng.randrange(16) for _ in range(40)]),
        ("sparse_scalars", pts[:40], [x if rng.random() < 0.1 else 0 for x in rand]),
        ("repeated_base", [pts[0]] * 16, rand[:16]),
        ("repeated_base_equal_scalars", [pts[1]] * 16, [k] * 16),
        ("p_and_p", [pts[2], pts[2]], [k, k]),
        ("p_and_minus_p", [pts[3], -pts[3]], [k, k]),
        ("p_and_minus_p_distinct_scalars", [pts[3], -pts[3]], rand[:2]),
        ("pairs_cancel", [p for q in pts[:10] for p in (q, -q)], [s for s in rand[:10] for _ in range(2)]),
        ("cancel_among_random", [*pts[:30], -pts[5], -pts[17]], [*rand[:30], rand[5], rand[17]]),
        ("scalar_and_its_negation", [pts[4], pts[4]], [k, r - k]),
        ("infinity_base", [O], [k]),
        ("infinity_among_bases", [O, *pts[:4], O, *pts[4:8], O], [rand[i] for i in range(11)]),
        ("all_infinity", [O] * 5, rand[:5]),
        ("zero_scalar_with_infinity", [O, pts[5]], [0, 0]),
    ]
    return [_case(group_name, curve, ident, bases, scalars) for ident, bases, scalars in cases]


def invalid_cases(curve: Curve) -> list[dict[str, Any]]:
    """Inputs a backend must reject; built from the valid form by replacing one value."""
    r, q, L = curve.r, curve.q, limbs.fq_limbs(curve)
    g1 = limbs.limbs_to_ints(limbs.point_to_limbs(curve, "g1", curve.g1.generator))
    g2 = limbs.limbs_to_ints(limbs.point_to_limbs(curve, "g2", curve.g2.generator))
    rows = [
        ("scalar_equal_to_r", "g1", [g1], [r]),
        ("scalar_all_ones", "g1", [g1], [2**256 - 1]),
        ("g1_x_equal_to_q", "g1", [[q, g1[1]]], [1]),
        ("g1_y_above_q", "g1", [[g1[0], q + 1]], [1]),
        ("g2_x_c1_equal_to_q", "g2", [[[g2[0], q], g2[2:4]]], [1]),
        ("more_scalars_than_bases", "g1", [g1, g1], [1, 2, 3]),
        ("more_bases_than_scalars", "g2", [[g2[0:2], g2[2:4]]] * 2, [1]),
    ]
    cases = []
    for ident, group_name, bases, scalars in rows:
        inp = {"group": group_name, "bases": ints_to_hex(bases, L), "scalars": ints_to_hex(scalars, limbs.FR_LIMBS)}
        cases.append({"id": ident, "input": inp, "output": None})
    return cases


def generate(curve: Curve, large: bool) -> list[CaseSet]:
    name = curve.name
    if large:
        return [
            CaseSet(
                f"{g}_large",
                f"random {g.upper()} MSMs of {name}, n = {LARGE_SIZES[g]}",
                random_cases(curve, g, LARGE_SIZES[g], f"msm/{name}/{g}_large"),
            )
            for g in ("g1", "g2")
        ]
    return [
        CaseSet("g1_random", f"random G1 MSMs of {name}", random_cases(curve, "g1", G1_SIZES, f"msm/{name}/g1_random")),
        CaseSet("g1_edge", f"G1 edge cases of {name}", edge_cases(curve, "g1", f"msm/{name}/g1_edge")),
        CaseSet("g2_random", f"random G2 MSMs of {name}", random_cases(curve, "g2", G2_SIZES, f"msm/{name}/g2_random")),
        CaseSet("g2_edge", f"G2 edge cases of {name}", edge_cases(curve, "g2", f"msm/{name}/g2_edge")),
        CaseSet(
            "invalid", "inputs a backend must reject (scalar ≥ r, coordinate ≥ q, lengths differ)", invalid_cases(curve)
        ),
    ]


# --- running ------------------------------------------------------------------------------------------------------


def _arrays(curve: Curve, case: dict[str, Any]) -> tuple[str, np.ndarray, np.ndarray, np.ndarray | None]:
    inp, ident = case["input"], case["id"]
    group = inp["group"]
    inner = limbs.point_shape(curve, group)[:-1]
    L = limbs.fq_limbs(curve)
    bases = hex_to_limbs(inp["bases"], inner, L, what=f"{ident} bases")
    scalars = hex_to_limbs(inp["scalars"], (), limbs.FR_LIMBS, what=f"{ident} scalars")
    expected = None if case["output"] is None else hex_to_limbs(case["output"], inner, L, what=ident)[0]
    return group, bases, scalars, expected


def run(ctx: RunContext, vf: VectorFile) -> list[CaseResult]:
    backend, curve, results = ctx.backend, vf.curve, []
    batch: dict[str, list[tuple[str, np.ndarray, np.ndarray, np.ndarray]]] = {}
    for case in vf.cases:
        ident = case["id"]
        group, bases, scalars, expected = _arrays(curve, case)
        n = len(bases)
        limit = QUICK_RANDOM_MAX.get(vf.case_set, QUICK_MAX)
        if ctx.quick and n > limit:
            results.append(CaseResult(vf.path, ident, "skipped", message=f"quick run: n > {limit}"))
            continue
        results.append(check_call(vf.path, ident, expected, partial(backend.msm, curve, group, bases, scalars)))
        if expected is None or (ctx.quick and n > QUICK_VARIANT_MAX):
            continue
        if has_capability(backend, WINDOW) and n <= WINDOW_VARIANT_MAX:
            for w in VARIANT_WINDOWS:
                call = partial(backend.msm, curve, group, bases, scalars, window=w)
                results.append(check_call(vf.path, ident, expected, call, variant=f"window={w}"))
        if has_capability(backend, PREPARED_BASES):
            call = partial(_prepared, backend, curve, group, bases, scalars)
            results.append(check_call(vf.path, ident, expected, call, variant="prepared"))
        batch.setdefault(group, []).append((ident, bases, scalars, expected))
    if has_capability(backend, MSM_BATCH):
        for group, items in batch.items():
            results += _run_batch(ctx, vf, group, items)
    return results


def _prepared(backend: Any, curve: Curve, group: str, bases: np.ndarray, scalars: np.ndarray) -> np.ndarray:
    handle = backend.prepare_bases(curve, group, bases)
    return backend.msm_prepared(handle, scalars)


def _run_batch(
    ctx: RunContext, vf: VectorFile, group: str, items: list[tuple[str, np.ndarray, np.ndarray, np.ndarray]]
) -> list[CaseResult]:
    """All the file's MSMs of one group in one msm_batch call; each case gets its own ``batch`` result."""
    try:
        out = ctx.backend.msm_batch(vf.curve, group, [b for _, b, _, _ in items], [s for _, _, s, _ in items])  # type: ignore[attr-defined]
    except Exception as exc:
        message = f"msm_batch raised {type(exc).__name__}: {exc}"
        return [CaseResult(vf.path, ident, "failed", "batch", message) for ident, _, _, _ in items]
    if not isinstance(out, np.ndarray) or len(out) != len(items):
        message = f"msm_batch returned {getattr(out, 'shape', type(out).__name__)} for {len(items)} MSMs"
        return [CaseResult(vf.path, ident, "failed", "batch", message) for ident, _, _, _ in items]
    return [
        check_call(vf.path, ident, expected, out[j].copy, variant="batch")
        for j, (ident, _, _, expected) in enumerate(items)
    ]


KIND = register_kind(
    Kind(
        name="msm",
        description="multi-scalar multiplication in G1 and G2",
        generate=generate,
        run=run,
    )
)
