"""The cpu backend against the reference backend, bit for bit.

One parametrized body per operation, over both curves: MSM in G1 and G2 (random inputs of several sizes, edge
cases, every window 1 … 16 and the widest ones, prepared bases, batches, concurrent calls), the NTT in its four
modes for sizes 1 … 4096, the fused H of both reductions, and the field operations. The expected values are the
reference backend's; kernels are compiled on first use (cached on disk, so only the first run pays).
"""

from __future__ import annotations

import random
import threading
from collections.abc import Callable
from functools import cache
from typing import Any

import numpy as np
import pytest

from cuzk.backends import get_backend, limbs
from cuzk.backends.cpu import CpuBackend, QuotientNotDivisibleError
from cuzk.backends.protocol import (
    BINARY_FIELD_OPS,
    CAPABILITIES,
    DEVICE,
    DEVICES,
    STORED_POINT_NTT,
    UNARY_FIELD_OPS,
)
from cuzk.backends.reference import ReferenceBackend
from cuzk.reference.curves import BLS12_381, BN254, Curve, Point
from cuzk.reference.errors import CuzkError, NotInvertibleError, UnsatisfiedConstraintError
from tests._suite_backends import usable_or_skip

CURVES = [BN254, BLS12_381]
REF = ReferenceBackend()
G1_SIZES = [0, 1, 2, 3, 17, 100, 1000]
G2_SIZES = [0, 1, 2, 3, 17, 40]
WINDOWS = [*range(1, 17), 20, 32]


@pytest.fixture(scope="module")
def cpu() -> CpuBackend:
    usable_or_skip("cpu")  # a required backend: fails, not skips, when numba is broken
    return CpuBackend()


def curve_id(curve: Curve) -> str:
    return curve.name


# --- inputs -----------------------------------------------------------------------------------------------------


@cache
def walk(curve: Curve, group: str, n: int) -> tuple[Point, ...]:
    """n pseudo-random points of the subgroup: P_(i+1) = P_i + T_j over 8 random multiples T_j of the generator."""
    grp, rng = limbs.group_of(curve, group), random.Random(f"walk/{curve.name}/{group}")
    pool = [grp.generator * rng.randrange(1, curve.r) for _ in range(8)]
    point, points = pool[0], []
    for _ in range(n):
        point = point + pool[rng.randrange(8)]
        points.append(point.normalize())
    return tuple(points)


def scalars_of(curve: Curve, values: list[int]) -> np.ndarray:
    return limbs.ints_to_limbs(values, limbs.FR_LIMBS).reshape(len(values), limbs.FR_LIMBS)


def msm_case(curve: Curve, group: str, points: list[Point], scalars: list[int]) -> tuple[np.ndarray, np.ndarray]:
    bases = limbs.points_to_limbs(curve, group, points).reshape(len(points), *limbs.point_shape(curve, group))
    return bases, scalars_of(curve, scalars)


def edge_cases(curve: Curve, group: str) -> dict[str, tuple[list[Point], list[int]]]:
    """Inputs that break careless bucket arithmetic: doublings, cancellations, identities, carries."""
    r, grp, rng = curve.r, limbs.group_of(curve, group), random.Random(f"edge/{curve.name}/{group}")
    pts = list(walk(curve, group, 24))
    O = grp.identity()
    k = rng.randrange(1, r)
    rand = [rng.randrange(r) for _ in range(24)]
    carries = [(2**j - 1) % r for j in (8, 13, 64, 128, 200, 254)] + [r - 1, r - 2, (r + 1) // 2, 2**253]
    return {
        "zero_scalars": (pts[:6], [0] * 6),
        "one_scalars": (pts[:6], [1] * 6),
        "r_minus_1": (pts[:6], [r - 1] * 6),
        "carry_scalars": (pts[: len(carries)], carries),
        "repeated_base": ([pts[0]] * 12, rand[:12]),
        "repeated_base_equal_scalars": ([pts[1]] * 12, [k] * 12),
        "p_and_p": ([pts[2], pts[2]], [k, k]),
        "p_and_minus_p": ([pts[3], -pts[3]], [k, k]),
        "pairs_cancel": ([p for q in pts[:6] for p in (q, -q)], [s for s in rand[:6] for _ in range(2)]),
        "scalar_and_its_negation": ([pts[4], pts[4]], [k, r - k]),
        "infinity_base": ([O], [k]),
        "infinity_among_bases": ([O, *pts[:4], O, *pts[4:8], O], rand[:11]),
        "all_infinity": ([O] * 4, rand[:4]),
        "zero_scalar_with_infinity": ([O, pts[5]], [0, 0]),
        "small_scalars": (pts, [rng.randrange(16) for _ in pts]),  # one busy window, split across threads
        "sparse_scalars": (pts, [x if x % 8 == 0 else 0 for x in rand]),
    }


@cache
def expected_msm(curve: Curve, group: str, key: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(bases, scalars, the reference's result) for a case named ``random/<n>``, ``edge/<name>`` or ``window``."""
    kind, _, arg = key.partition("/")
    if kind == "random":
        n = int(arg)
        rng = random.Random(f"scalars/{curve.name}/{group}/{n}")
        points, scalars = list(walk(curve, group, n)), [rng.randrange(curve.r) for _ in range(n)]
    elif kind == "window":
        rng = random.Random(f"window/{curve.name}/{group}")
        pts = list(walk(curve, group, 20))
        points = [*pts, pts[0], -pts[1], limbs.group_of(curve, group).identity()]
        scalars = [rng.randrange(curve.r) for _ in points]
        scalars[:3] = [curve.r - 1, 2**200 - 1, 0]
    else:
        points, scalars = edge_cases(curve, group)[arg]
    bases, ks = msm_case(curve, group, points, scalars)
    return bases, ks, REF.msm(curve, group, bases, ks)


# --- MSM --------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("curve", CURVES, ids=curve_id)
@pytest.mark.parametrize("n", G1_SIZES)
def test_msm_g1_random(cpu: CpuBackend, curve: Curve, n: int) -> None:
    bases, scalars, expected = expected_msm(curve, "g1", f"random/{n}")
    assert np.array_equal(cpu.msm(curve, "g1", bases, scalars), expected)


@pytest.mark.parametrize("curve", CURVES, ids=curve_id)
@pytest.mark.parametrize("n", G2_SIZES)
def test_msm_g2_random(cpu: CpuBackend, curve: Curve, n: int) -> None:
    bases, scalars, expected = expected_msm(curve, "g2", f"random/{n}")
    assert np.array_equal(cpu.msm(curve, "g2", bases, scalars), expected)


EDGE_NAMES = list(edge_cases(BN254, "g1"))


@pytest.mark.parametrize("curve", CURVES, ids=curve_id)
@pytest.mark.parametrize("group", ["g1", "g2"])
@pytest.mark.parametrize("name", EDGE_NAMES)
def test_msm_edge_cases(cpu: CpuBackend, curve: Curve, group: str, name: str) -> None:
    bases, scalars, expected = expected_msm(curve, group, f"edge/{name}")
    assert np.array_equal(cpu.msm(curve, group, bases, scalars), expected)
    assert np.array_equal(cpu.msm(curve, group, bases, scalars, window=3), expected)


@pytest.mark.parametrize("curve", CURVES, ids=curve_id)
@pytest.mark.parametrize("group", ["g1", "g2"])
def test_msm_every_window(cpu: CpuBackend, curve: Curve, group: str) -> None:
    """The window is honoured exactly (WINDOW) and never changes the result: 1 … 16 and the widest ones."""
    bases, scalars, expected = expected_msm(curve, group, "window")
    for window in WINDOWS:
        assert np.array_equal(cpu.msm(curve, group, bases, scalars, window=window), expected), window


@pytest.mark.parametrize("curve", CURVES, ids=curve_id)
@pytest.mark.parametrize("group", ["g1", "g2"])
def test_prepared_bases_and_batch(cpu: CpuBackend, curve: Curve, group: str) -> None:
    """Bases prepared once serve many scalar vectors; a batch mixes prepared and plain bases."""
    bases, scalars, expected = expected_msm(curve, group, "random/17")
    handle = cpu.prepare_bases(curve, group, bases)
    assert len(handle) == 17
    assert np.array_equal(cpu.msm_prepared(handle, scalars), expected)
    others = scalars[::-1].copy()
    expected_others = REF.msm(curve, group, bases, others)
    assert np.array_equal(cpu.msm_prepared(handle, others, window=5), expected_others)
    empty = np.zeros((0, *limbs.point_shape(curve, group)), np.uint64)
    out = cpu.msm_batch(curve, group, [handle, bases, empty], [others, scalars, scalars[:0]], windows=[None, 2, None])
    assert np.array_equal(out, np.stack([expected_others, expected, np.zeros_like(expected)]))


@pytest.mark.parametrize("curve", CURVES, ids=curve_id)
@pytest.mark.parametrize("group", ["g1", "g2"])
def test_a_batch_of_small_rows_is_summed_in_one_pass(cpu: CpuBackend, curve: Curve, group: str) -> None:
    """A setup's sums (:mod:`cuzk.backends.cpu.row_sums`): rows of 0 … SMALL_ROWS raw points with scalars 1, −1, 0,
    small, large and random, the identity among the points, each the reference's MSM of its row; a batch with one
    longer row goes an MSM a row, to the same values."""
    from cuzk.backends.cpu.row_sums import SMALL_ROWS

    rng = random.Random(11)
    generator = limbs.group_of(curve, group).generator
    table = limbs.points_to_limbs(
        curve, group, [generator * rng.randrange(1, curve.r) for _ in range(9)] + [generator * 0]
    )
    choices = [1, curve.r - 1, 0, 2, 7, curve.r - 3, 1 << 130, rng.randrange(curve.r)]
    sizes = [0, 1, 1, 2, 3, 5, SMALL_ROWS] + [rng.randrange(1, 6) for _ in range(13)]
    bases = [table[[rng.randrange(len(table)) for _ in range(k)]] for k in sizes]
    scalars = [limbs.ints_to_limbs([rng.choice(choices) for _ in range(k)], limbs.FR_LIMBS) for k in sizes]
    expected = np.stack([REF.msm(curve, group, b, k) for b, k in zip(bases, scalars, strict=True)])
    assert np.array_equal(cpu.msm_batch(curve, group, bases, scalars), expected)
    longer = np.concatenate([bases[-1]] * (SMALL_ROWS // len(bases[-1]) + 1))
    longer_scalars = np.concatenate([scalars[-1]] * (SMALL_ROWS // len(bases[-1]) + 1))
    mixed = cpu.msm_batch(curve, group, [*bases[:3], longer], [*scalars[:3], longer_scalars])
    assert np.array_equal(mixed, np.stack([*expected[:3], REF.msm(curve, group, longer, longer_scalars)]))


@pytest.mark.parametrize("curve", CURVES, ids=curve_id)
@pytest.mark.parametrize("group", ["g1", "g2"])
def test_windows_split_into_point_ranges(
    cpu: CpuBackend, curve: Curve, group: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A window cut into many point ranges (as for n > 2^18) sums its partial results to the same S_t."""
    monkeypatch.setattr(cpu.runtime().msm, "MAX_TASK_POINTS", 7)
    bases, scalars, expected = expected_msm(curve, group, "random/40" if group == "g2" else "random/100")
    assert np.array_equal(cpu.msm(curve, group, bases, scalars), expected)


@pytest.mark.parametrize("curve", CURVES, ids=curve_id)
def test_concurrent_calls(cpu: CpuBackend, curve: Curve) -> None:
    """G1 and G2 MSMs and an NTT from several Python threads at once (the engine's B_G2 tail MSM)."""
    jobs: list[tuple[Callable[[], np.ndarray], np.ndarray]] = []
    for group in ("g1", "g2"):
        bases, scalars, expected = expected_msm(curve, group, "random/17")
        jobs.append((lambda b=bases, s=scalars, g=group: cpu.msm(curve, g, b, s), expected))
    values = scalars_of(curve, [random.Random(3).randrange(curve.r) for _ in range(64)])
    jobs.append((lambda: cpu.ntt(curve, values), REF.ntt(curve, values)))
    results: dict[int, Any] = {}

    def work(j: int) -> None:
        for _ in range(3):
            results[j] = jobs[j % len(jobs)][0]()

    threads = [threading.Thread(target=work, args=(j,)) for j in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for j in range(6):
        assert np.array_equal(results[j], jobs[j % len(jobs)][1])


# --- NTT --------------------------------------------------------------------------------------------------------

MODES = [(False, False), (True, False), (False, True), (True, True)]
MODE_IDS = ["forward", "inverse", "coset", "inverse_coset"]


@pytest.mark.parametrize("curve", CURVES, ids=curve_id)
@pytest.mark.parametrize("log_n", range(13))
def test_ntt_all_modes(cpu: CpuBackend, curve: Curve, log_n: int) -> None:
    n = 1 << log_n
    rng = random.Random(f"ntt/{curve.name}/{n}")
    values = scalars_of(curve, [rng.randrange(curve.r) for _ in range(n)])
    values[0] = limbs.int_to_limbs(curve.r - 1, 4)
    for (inverse, coset), mode in zip(MODES, MODE_IDS, strict=True):
        got = cpu.ntt(curve, values, inverse=inverse, coset=coset)
        assert np.array_equal(got, REF.ntt(curve, values, inverse=inverse, coset=coset)), mode


@pytest.mark.parametrize("curve", CURVES, ids=curve_id)
def test_ntt_edge_inputs(cpu: CpuBackend, curve: Curve) -> None:
    """Empty input, a zero vector, a delta, a non-contiguous view; twiddles grown for a large n serve small ones."""
    empty = np.zeros((0, 4), np.uint64)
    assert cpu.ntt(curve, empty).shape == (0, 4)
    delta = np.zeros((16, 4), np.uint64)
    delta[0, 0] = 1
    view = scalars_of(curve, list(range(64)))[::2]
    for values in (np.zeros((8, 4), np.uint64), delta, view, scalars_of(curve, [7, 8])):
        for inverse, coset in MODES:
            assert np.array_equal(
                cpu.ntt(curve, values, inverse=inverse, coset=coset),
                REF.ntt(curve, values, inverse=inverse, coset=coset),
            )


# --- the fused H ------------------------------------------------------------------------------------------------


def qap_inputs(curve: Curve, n: int, satisfied: bool) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    rng = random.Random(f"h/{curve.name}/{n}/{satisfied}")
    a = [rng.randrange(curve.r) for _ in range(n)]
    b = [rng.randrange(curve.r) for _ in range(n)]
    c = [x * y % curve.r for x, y in zip(a, b, strict=True)] if satisfied else [rng.randrange(curve.r) for _ in a]
    return scalars_of(curve, a), scalars_of(curve, b), scalars_of(curve, c)


@pytest.mark.parametrize("curve", CURVES, ids=curve_id)
@pytest.mark.parametrize("n", [1, 2, 4, 16, 256, 1024])
@pytest.mark.parametrize("reduction", ["libsnark", "circom"])
def test_compute_h(cpu: CpuBackend, curve: Curve, n: int, reduction: str) -> None:
    a, b, c = qap_inputs(curve, n, satisfied=True)
    expected = REF.compute_h(curve, a, b, c, reduction=reduction)
    assert np.array_equal(cpu.compute_h(curve, a, b, c, reduction=reduction), expected)
    if reduction == "circom":
        a, b, c = qap_inputs(curve, n, satisfied=False)
        expected = REF.compute_h(curve, a, b, c, reduction=reduction)
        assert np.array_equal(cpu.compute_h(curve, a, b, c, reduction=reduction), expected)


@pytest.mark.parametrize("curve", CURVES, ids=curve_id)
@pytest.mark.parametrize("n", [1, 8])
def test_compute_h_unsatisfied_raises(cpu: CpuBackend, curve: Curve, n: int) -> None:
    """libsnark: a witness that violates the constraints leaves a remainder; both backends raise
    UnsatisfiedConstraintError (the cpu backend's subclass is also a ValueError)."""
    a, b, c = qap_inputs(curve, n, satisfied=False)
    with pytest.raises(UnsatisfiedConstraintError, match="not divisible"):
        REF.compute_h(curve, a, b, c, reduction="libsnark")
    with pytest.raises(QuotientNotDivisibleError, match="not divisible") as info:
        cpu.compute_h(curve, a, b, c, reduction="libsnark")
    assert isinstance(info.value, UnsatisfiedConstraintError) and isinstance(info.value, ValueError)


# --- field operations -------------------------------------------------------------------------------------------


def field_values(p: int, seed: str) -> list[int]:
    R = pow(2, 64 * limbs.limb_count(p), p)
    edges = [0, 1, 2, p - 1, p - 2, (p - 1) // 2, (p + 1) // 2, 2**64 - 1, 2**64, R, R * R % p, pow(R, -1, p)]
    rng = random.Random(seed)
    return [v % p for v in edges] + [rng.randrange(p) for _ in range(20)]


@pytest.mark.parametrize("curve", CURVES, ids=curve_id)
@pytest.mark.parametrize("field", ["fr", "fq"])
def test_field_ops(cpu: CpuBackend, curve: Curve, field: str) -> None:
    p = curve.r if field == "fr" else curve.q
    L = limbs.limb_count(p)
    xs = field_values(p, f"{curve.name}/{field}/a")
    a = limbs.ints_to_limbs([x for x in xs for _ in xs], L)
    b = limbs.ints_to_limbs([y for _ in xs for y in xs], L)
    for op in BINARY_FIELD_OPS:
        assert np.array_equal(cpu.field_op(curve, field, op, a, b), REF.field_op(curve, field, op, a, b)), op
    single = limbs.ints_to_limbs(xs, L)
    for op in UNARY_FIELD_OPS:
        values = single[1:] if op == "inverse" else single  # row 0 is zero
        assert np.array_equal(cpu.field_op(curve, field, op, values), REF.field_op(curve, field, op, values)), op
    with pytest.raises(NotInvertibleError):
        cpu.field_op(curve, field, "inverse", single[:3])


# --- the backend as a whole -------------------------------------------------------------------------------------


def test_registered_and_described(cpu: CpuBackend) -> None:
    backend = get_backend("cpu")
    assert isinstance(backend, CpuBackend) and backend.priority == 100
    # every capability but a device's: it computes on the host; a file's stored words are its own Montgomery form,
    # which it decodes (MONTGOMERY_FORM) or keeps as they are for its MSMs (STORED_BASES); the point NTT of stored
    # words is a device's (STORED_POINT_NTT): on the host, prepare phase2 decodes around point_ntt; DEVICES is a
    # backend's over several devices (backends/split.py)
    assert backend.capabilities == CAPABILITIES - {DEVICE, STORED_POINT_NTT, DEVICES}
    info = backend.describe()
    assert "threads" in info["device"] and info["threads"] >= 1
    assert {"numba", "llvmlite", "numpy"} <= set(info["versions"])


def test_invalid_input_is_rejected_before_the_kernels(cpu: CpuBackend) -> None:
    """BackendBase validates: a non-canonical scalar is a typed error, never a wrong answer."""
    bases, scalars, _ = expected_msm(BN254, "g1", "random/2")
    bad = scalars.copy()
    bad[1] = limbs.int_to_limbs(BN254.r, 4)
    with pytest.raises(CuzkError, match="not canonical"):
        cpu.msm(BN254, "g1", bases, bad)


# --- larger cases -----------------------------------------------------------------------------------------------


@pytest.mark.slow
@pytest.mark.parametrize("curve", CURVES, ids=curve_id)
@pytest.mark.parametrize(("group", "n"), [("g1", 4096), ("g2", 256)])
def test_msm_large(cpu: CpuBackend, curve: Curve, group: str, n: int) -> None:
    bases, scalars, expected = expected_msm(curve, group, f"random/{n}")
    assert np.array_equal(cpu.msm(curve, group, bases, scalars), expected)


@pytest.mark.slow
@pytest.mark.parametrize("curve", CURVES, ids=curve_id)
def test_ntt_large(cpu: CpuBackend, curve: Curve) -> None:
    n = 1 << 15
    rng = random.Random(f"ntt-large/{curve.name}")
    values = scalars_of(curve, [rng.randrange(curve.r) for _ in range(n)])
    for inverse, coset in MODES:
        got = cpu.ntt(curve, values, inverse=inverse, coset=coset)
        assert np.array_equal(got, REF.ntt(curve, values, inverse=inverse, coset=coset))
