"""The tiled NTT of the GPU backends (opencl, cuda) against the reference, bit for bit, one test body for both: sizes
around the tile of 2^10 elements (a single short tile, one tile, a short second pass, uneven passes), several passes
on small inputs (fewer stages per pass than the tile holds); slow: 2^17 (8 + 9 stages) and 2^21 (5 + 8 + 8 stages,
checked on sparse inputs against the NTT's definition). test_gpu.py covers 1 … 4096, and the fused H up to 2^11.
"""

from __future__ import annotations

import random

import numpy as np
import pytest

from cuzk.backends import limbs
from cuzk.backends.gpu import ntt as ntt_device
from cuzk.backends.gpu.backend import DeviceBackend
from cuzk.backends.reference import ReferenceBackend
from cuzk.reference.curves import Curve
from cuzk.reference.ntt import domain_root

from ._gpu import GPU_BACKENDS, available

REFERENCE = ReferenceBackend()
MODES = [(False, False), (False, True), (True, False), (True, True)]  # (inverse, coset)


@pytest.fixture(params=list(GPU_BACKENDS))
def backend(request: pytest.FixtureRequest) -> DeviceBackend:
    return available(request.param)


def random_values(curve: Curve, n: int, rng: random.Random) -> np.ndarray:
    return limbs.fr_to_limbs(curve, [rng.randrange(curve.r) for _ in range(n)])


def transform(
    backend: DeviceBackend,
    curve: Curve,
    values: np.ndarray,
    inverse: bool,
    coset: bool,
    max_stages: int,
    stages: list[int] | None = None,
) -> np.ndarray:
    """ntt(values, inverse, coset) through ntt_device.transform in passes of at most max_stages stages (``stages``
    a pass, when given)."""
    ctx = backend.context
    tables = ntt_device.Tables(1 << 30)
    log_n = len(values).bit_length() - 1
    src, dst = ctx.upload(values), ctx.buffer(len(values) * ntt_device.FR_BYTES)
    load = (ntt_device.COSET, False) if coset and not inverse else None
    store = (ntt_device.COSET_INV, True) if coset and inverse else None
    inv_n = inverse and not coset
    with ctx.lock:
        ntt_device.transform(
            ctx,
            curve,
            tables,
            src,
            dst,
            log_n,
            inverse=inverse,
            load=load,
            store=store,
            inv_n=inv_n,
            max_stages=max_stages,
            stages=stages,
        )
        return ctx.read(dst, values.shape)


@pytest.mark.parametrize("log_n", [9, 10, 11, 13, 14])
def test_ntt_around_the_tile(backend: DeviceBackend, curve: Curve, log_n: int, rng: random.Random) -> None:
    """2^9 (one short tile), 2^10 (one tile), 2^11 (10 + 1 stages), 2^13, 2^14 (10 + 3, 10 + 4)."""
    values = random_values(curve, 1 << log_n, rng)
    for inverse, coset in MODES:
        got = backend.ntt(curve, values, inverse=inverse, coset=coset)
        np.testing.assert_array_equal(got, REFERENCE.ntt(curve, values, inverse=inverse, coset=coset))


@pytest.mark.parametrize(("log_n", "max_stages"), [(1, 1), (5, 1), (7, 2), (9, 3), (11, 4), (12, 5), (12, 9)])
def test_ntt_in_several_passes(
    backend: DeviceBackend, curve: Curve, log_n: int, max_stages: int, rng: random.Random
) -> None:
    """Small tiles give small inputs the structure of large ones: three to five passes, tiles of 2 … 512 elements
    holding 1 … 64 groups, odd stage counts (a lone last stage), the twiddles between passes."""
    assert len(ntt_device.passes(log_n, max_stages)) == -(-log_n // max_stages)
    values = random_values(curve, 1 << log_n, rng)
    for inverse, coset in MODES:
        got = transform(backend, curve, values, inverse, coset, max_stages)
        np.testing.assert_array_equal(got, REFERENCE.ntt(curve, values, inverse=inverse, coset=coset))


@pytest.mark.parametrize(
    ("log_n", "max_stages", "stages"),
    [
        (12, 10, [8, 4]),  # first pass (0, 8, 2)
        (12, 10, [4, 8]),  # later pass (4, 8, 2): a later pass of 8 stages in runs of 4
        pytest.param(16, 10, [8, 8], marks=pytest.mark.slow),  # (0, 8, 2) and (·, 8, 2): the two cases above
        pytest.param(16, 8, [8, 8], marks=pytest.mark.slow),  # the same two runs of 8 as the case above
        (12, 9, [3, 9]),  # later pass (3, 9, 0): a whole tile of stages, runs of 1
        pytest.param(15, 9, [6, 9], marks=pytest.mark.slow),  # (·, 9, 0) above, (0, 6, 3) in several_passes[12-9]
        (11, 5, [3, 4, 4]),
        (9, 4, [1, 4, 4]),
    ],
)
def test_ntt_first_pass_in_runs(
    backend: DeviceBackend, curve: Curve, log_n: int, max_stages: int, stages: list[int], rng: random.Random
) -> None:
    """A first pass of fewer stages than the tile holds reads its input in runs of 2^c elements (c = max_stages − r,
    2^c groups a tile) and writes 2^c runs: against the reference in every mode, the coset's load table included.
    Tiles smaller than 2^10 run in smaller work-groups (a work-item per four elements). The 2^15 and 2^16 cases run
    with -m slow (their reference NTTs take seconds each): each of their passes' (r, c), as a first or a later and
    last pass, runs by default at 2^12 (here, and (0, 6, 3) in test_ntt_in_several_passes[12-9]). The kernel
    branches on r, c and on whether a pass is the first or the last; n and a later pass's first stage enter only
    its index arithmetic (masks and shifts), the same at any size."""
    plan = ntt_device.passes(log_n, max_stages, stages)
    assert plan[0] == (0, stages[0], max_stages - stages[0]) and [r for _, r, _ in plan] == stages
    values = random_values(curve, 1 << log_n, rng)
    for inverse, coset in MODES:
        got = transform(backend, curve, values, inverse, coset, max_stages, stages)
        np.testing.assert_array_equal(got, REFERENCE.ntt(curve, values, inverse=inverse, coset=coset))


def test_plan_rejects_bad_stage_counts() -> None:
    with pytest.raises(ValueError, match=r"passes of \[8, 8\] stages for a transform of 2\^17"):
        ntt_device.passes(17, stages=[8, 8])
    with pytest.raises(ValueError, match="11"):
        ntt_device.passes(12, stages=[11, 1])
    with pytest.raises(ValueError, match="0"):
        ntt_device.passes(12, stages=[0, 10, 2])


def test_plan_of_a_large_transform() -> None:
    """3 passes for 2^21 … 2^26 (sppark needs 3 for 2^24, plus a bit reversal): from 2^23 later passes of 8 stages
    (runs of 4 elements), the first the rest; at 2^21 and 2^22 a first pass of 10 stages and the rest in two, the
    longer first; below 2^21 two passes, the first of 10 stages, and up to 2^16 two passes in tiles of 2^9 (twice
    the groups), split evenly; up to 2^10 one pass."""
    assert ntt_device.passes(24) == [(0, 8, 2), (8, 8, 2), (16, 8, 2)]
    assert ntt_device.passes(23) == [(0, 7, 3), (7, 8, 2), (15, 8, 2)]
    assert ntt_device.passes(22) == [(0, 10, 0), (10, 6, 4), (16, 6, 4)]
    assert ntt_device.passes(21) == [(0, 10, 0), (10, 6, 4), (16, 5, 5)]
    assert ntt_device.passes(25) == [(0, 9, 1), (9, 8, 2), (17, 8, 2)]
    assert ntt_device.passes(20) == [(0, 10, 0), (10, 10, 0)]
    assert ntt_device.passes(19) == [(0, 10, 0), (10, 9, 1)]
    assert ntt_device.passes(17) == [(0, 10, 0), (10, 7, 3)]
    assert ntt_device.passes(16) == [(0, 8, 1), (8, 8, 1)]
    assert ntt_device.passes(11) == [(0, 5, 4), (5, 6, 3)]
    assert ntt_device.passes(10) == [(0, 10, 0)]
    assert ntt_device.passes(0) == [(0, 0, 0)]
    for log_n in range(31):
        plan = ntt_device.passes(log_n)
        count = 1 + -(-(log_n - 10) // 8) if log_n >= ntt_device.RUNS_FROM_LOG else max(1, -(-log_n // 10))
        assert sum(r for _, r, _ in plan) == log_n and len(plan) == count
        later = [r for _, r, _ in plan[1:]]
        assert all(r + c <= 10 for _, r, c in plan) and later == sorted(later, reverse=True)


# --- large, slow --------------------------------------------------------------------------------------------------


@pytest.mark.slow
def test_ntt_two_passes_large(backend: DeviceBackend, curve: Curve, rng: random.Random) -> None:
    values = random_values(curve, 1 << 17, rng)
    for inverse, coset in MODES:
        got = backend.ntt(curve, values, inverse=inverse, coset=coset)
        np.testing.assert_array_equal(got, REFERENCE.ntt(curve, values, inverse=inverse, coset=coset))


def sparse_ntt(curve: Curve, n: int, entries: dict[int, int], inverse: bool, coset: bool) -> list[int]:
    """The reference's definitions (cuzk.reference.ntt) summed over the few non-zero inputs: A_i = Σ_j a_j (g^j)
    ω^(ij); inverse a_j = n⁻¹ (g^(−j)) Σ_i A_i ω^(−ij)."""
    p = curve.r
    omega = domain_root(curve.Fr, n).value
    g = curve.Fr.GENERATOR.value
    if inverse:
        omega = pow(omega, -1, p)
    out = [0] * n
    for j, value in entries.items():
        if coset and not inverse:
            value = value * pow(g, j, p) % p
        step, x = pow(omega, j, p), value
        for i in range(n):
            out[i] += x
            x = x * step % p
    if not inverse:
        return [v % p for v in out]
    n_inv, g_inv = pow(n, -1, p), pow(g, -1, p) if coset else 1
    scale = n_inv
    result = []
    for v in out:
        result.append(v * scale % p)
        scale = scale * g_inv % p
    return result


@pytest.mark.slow
def test_ntt_three_passes_sparse(backend: DeviceBackend, curve: Curve, rng: random.Random) -> None:
    n = 1 << 21
    for inverse, coset in MODES:
        entries = {rng.randrange(n): rng.randrange(curve.r) for _ in range(4)}
        values = np.zeros((n, limbs.FR_LIMBS), dtype=np.uint64)
        for j, v in entries.items():
            values[j] = limbs.int_to_limbs(v, limbs.FR_LIMBS)
        got = backend.ntt(curve, values, inverse=inverse, coset=coset)
        np.testing.assert_array_equal(got, limbs.fr_to_limbs(curve, sparse_ntt(curve, n, entries, inverse, coset)))


def test_ntt_tables_keep_to_the_limit_each_call_sets(backend: DeviceBackend, curve: Curve) -> None:
    """The cached tables stay within the limit a call sets (the least recently used dropped first, the one just
    made always kept), and a table dropped is made again, the same, when a later transform needs it."""
    ctx = backend.context
    tables = ntt_device.Tables(1 << 30)
    with ctx.lock:
        first = ctx.read(tables.powers(ctx, curve, 0, 8, 256), (256, 4))
        tables.powers(ctx, curve, 0, 6, 64)
        assert tables.nbytes == (256 + 64) * ntt_device.FR_BYTES
        tables.fit(100 * ntt_device.FR_BYTES)
        assert tables.nbytes == 64 * ntt_device.FR_BYTES, "the older, larger table is dropped"
        again = ctx.read(tables.powers(ctx, curve, 0, 8, 256), (256, 4))
        assert tables.nbytes == 256 * ntt_device.FR_BYTES, "a table beyond the limit is kept alone while in use"
        tables.fit(0)
        assert tables.nbytes == 0
    assert np.array_equal(first, again) and len(np.unique(first, axis=0)) == 256, "256 distinct powers, made alike"
