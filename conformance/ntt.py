"""Vector kind ``ntt``: forward, inverse, coset and inverse-coset NTTs of Fr vectors, as the reference defines them.

Each input comes with its transform in four modes: ``forward`` (evaluate on H = ⟨ω⟩, |H| = n), ``inverse``
(interpolate from H, ×1/n), ``coset`` (evaluate on g·H, g = Fr.GENERATOR) and ``inverse_coset``. Inputs: random
vectors of n = 0, 1, 2, 4, … 256 and 1024, and structured ones (zeros, one-hot at the first, second and last index,
all-equal, a ramp 0, 1, …, n − 1) whose transforms a human can predict, which expose twiddle and bit-reversal
mistakes. Invalid inputs (length not a power of two, a value ≥ r) have output null: every mode must raise.
Expected outputs up to n = 64 are checked against the O(n²) DFT oracle while generating. ``--large`` writes random
vectors of 2^11 … 2^16 instead (not committed: they would make the repository heavy).
Format: conformance/formats/ntt.md.
"""

from __future__ import annotations

import random
from functools import partial
from typing import Any

from cuzk.backends import limbs
from cuzk.conformance.codec import hex_to_limbs, ints_to_hex
from cuzk.conformance.kinds import CaseResult, CaseSet, Kind, RunContext, VectorFile, check_call, register_kind
from cuzk.reference.curves import Curve
from cuzk.reference.ntt import dft, ntt

MODES: dict[str, tuple[bool, bool]] = {  # name → (inverse, coset)
    "forward": (False, False),
    "inverse": (True, False),
    "coset": (False, True),
    "inverse_coset": (True, True),
}
RANDOM_SIZES = [1 << k for k in range(9)] + [1024]  # 1 … 256 and 1024, every mode
STRUCTURED_SIZES = [1, 2, 4, 8, 16]
LARGE_SIZES = [1 << k for k in range(11, 17)]  # 2048 … 65536
ORACLE_MAX = 64  # expected outputs up to this size are also checked against the O(n²) DFT
QUICK_MAX = 256  # in quick runs, larger inputs are skipped


def _transform(curve: Curve, values: list[int], mode: str) -> list[int]:
    inverse, coset = MODES[mode]
    elements = [curve.Fr(v) for v in values]
    out = ntt(elements, inverse=inverse, coset=coset)
    if len(values) <= ORACLE_MAX and out != dft(elements, inverse=inverse, coset=coset):
        raise AssertionError(f"reference ntt and dft disagree on {curve.name}, n = {len(values)}, {mode}")
    return [x.value for x in out]


def _case(curve: Curve, ident: str, values: list[int], modes: tuple[str, ...] = tuple(MODES)) -> dict[str, Any]:
    """One input and its transform in each of ``modes``."""
    return {
        "id": f"{ident}/n={len(values)}",
        "input": {"values": ints_to_hex(values, limbs.FR_LIMBS)},
        "output": {m: ints_to_hex(_transform(curve, values, m), limbs.FR_LIMBS) for m in modes},
    }


def structured_inputs(curve: Curve, n: int, rng: random.Random) -> list[tuple[str, list[int]]]:
    """Inputs whose transforms are predictable: zeros → zeros, one-hot at 0 → all ones, all-equal → c·n at 0."""
    c = rng.randrange(1, curve.r)
    inputs = [("zeros", [0] * n), ("all_equal", [c] * n), ("ramp", list(range(n)))]
    for position in dict.fromkeys((0, 1 % n, n - 1)):
        inputs.append((f"one_hot_{position}", [1 if i == position else 0 for i in range(n)]))
    return inputs


def generate(curve: Curve, large: bool) -> list[CaseSet]:
    r = curve.r
    if large:
        rng = random.Random(f"ntt/{curve.name}/large")
        cases = [_case(curve, "random", [rng.randrange(r) for _ in range(n)]) for n in LARGE_SIZES]
        return [CaseSet("large", f"random Fr vectors of {curve.name}, n = 2048 … 65536", cases)]
    rng = random.Random(f"ntt/{curve.name}/random")
    random_cases = [_case(curve, "random", [rng.randrange(r) for _ in range(n)]) for n in [0, *RANDOM_SIZES]]
    rng = random.Random(f"ntt/{curve.name}/structured")
    structured = [
        _case(curve, name, values) for n in STRUCTURED_SIZES for name, values in structured_inputs(curve, n, rng)
    ]
    invalid = [
        ("n=3", [1, 2, 3]),
        ("n=6", [0] * 6),
        ("value=r", [1, r, 2, 3]),
        ("value=2^256-1", [2**256 - 1]),
    ]
    return [
        CaseSet("random", f"random Fr vectors of {curve.name}, n = 0, 1 … 256 and 1024", random_cases),
        CaseSet("structured", f"zeros, one-hot, all-equal and ramp inputs of {curve.name}", structured),
        CaseSet(
            "invalid",
            "inputs a backend must reject in every mode (length not a power of two, a value ≥ r)",
            [{"id": ident, "input": {"values": ints_to_hex(v, 4)}, "output": None} for ident, v in invalid],
        ),
    ]


def run(ctx: RunContext, vf: VectorFile) -> list[CaseResult]:
    """Each mode of each case is one result, its variant the mode's name."""
    results = []
    for case in vf.cases:
        values = hex_to_limbs(case["input"]["values"], (), limbs.FR_LIMBS, what=case["id"])
        if ctx.quick and len(values) > QUICK_MAX:
            results.append(CaseResult(vf.path, case["id"], "skipped", message=f"quick run: n > {QUICK_MAX}"))
            continue
        outputs = case["output"] or dict.fromkeys(MODES)
        for mode, output in outputs.items():
            expected = None if output is None else hex_to_limbs(output, (), 4, what=f"{case['id']} {mode}")
            inverse, coset = MODES[mode]
            call = partial(ctx.backend.ntt, vf.curve, values, inverse=inverse, coset=coset)
            results.append(check_call(vf.path, case["id"], expected, call, variant=mode))
    return results


KIND = register_kind(
    Kind(
        name="ntt",
        description="forward, inverse, coset and inverse-coset NTTs over Fr",
        generate=generate,
        run=run,
    )
)
