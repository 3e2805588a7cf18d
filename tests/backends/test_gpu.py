"""The GPU backends (opencl, cuda) against the reference backend, bit for bit, with one test body for both: MSM
(G1, G2; random and edge inputs; every window; prepared, batched, chunked), NTT (sizes 1 … 4096, all four modes),
the fused H, field operations. opencl runs on PoCL in CI; each backend is skipped, with the reason, where it cannot
run. Device selection and planning: test_opencl_setup.py, test_cuda_setup.py.
"""

from __future__ import annotations

import dataclasses
import random
import threading
import time
from functools import cache
from itertools import pairwise
from typing import Any

import numpy as np
import pytest

from cuzk.backends import limbs
from cuzk.backends.cuda import device as cuda_device
from cuzk.backends.cuda import staging as cuda_staging
from cuzk.backends.errors import BackendInputError, CapabilityMissingError, NonCanonicalInputError
from cuzk.backends.gpu import msm_job as msm_job_module
from cuzk.backends.gpu import ntt as ntt_device
from cuzk.backends.gpu.backend import DeviceBackend
from cuzk.backends.gpu.bases import SHIFTED_MIN_USES
from cuzk.backends.gpu.context import DeviceContext, DeviceScalars, Finish
from cuzk.backends.gpu.errors import DeviceMemoryError
from cuzk.backends.gpu.plan import Memory
from cuzk.backends.opencl import OpenCLBackend
from cuzk.backends.opencl import device as opencl_device
from cuzk.backends.protocol import Backend, KeptScalars
from cuzk.backends.reference import ReferenceBackend
from cuzk.reference.curves import BLS12_381, BN254, Curve
from cuzk.reference.errors import NotInvertibleError, UnsatisfiedConstraintError

from ._gpu import GPU_BACKENDS, available

REFERENCE = ReferenceBackend()
GROUPS = ["g1", "g2"]
CURVES = {c.name: c for c in (BLS12_381, BN254)}
DEVICE_MODULES = {"opencl": opencl_device, "cuda": cuda_device}  # their OPTIONS: build options of every program


@pytest.fixture(params=list(GPU_BACKENDS))
def backend(request: pytest.FixtureRequest) -> DeviceBackend:
    return available(request.param)


def fresh(backend: DeviceBackend, **options: int) -> DeviceBackend:
    """Another instance of the same backend (its own context), e.g. with a memory limit."""
    return type(backend)(**options)


@cache
def walk(curve_name: str, group: str, n: int) -> tuple[np.ndarray, list[int]]:
    """n points P_i of the group with known discrete logs t_i (P_i = t_i·G): a walk P_(i+1) = P_i + T_j over 8
    random multiples T_j of G, one addition per point. Σ k_i·P_i = (Σ k_i·t_i)·G is then an exact oracle."""
    curve = CURVES[curve_name]
    grp = limbs.group_of(curve, group)
    rng = random.Random(f"walk/{curve_name}/{group}")
    steps = [rng.randrange(1, curve.r) for _ in range(8)]
    pool = [grp.generator * s for s in steps]
    point, dlog, points, dlogs = pool[0], steps[0], [], []
    for _ in range(n):
        j = rng.randrange(8)
        point, dlog = point + pool[j], (dlog + steps[j]) % curve.r
        points.append(point.normalize())
        dlogs.append(dlog)
    return limbs.points_to_limbs(curve, group, points), dlogs


def oracle(curve: Curve, group: str, values: list[int], dlogs: list[int]) -> np.ndarray:
    """Σ k_i·P_i for P_i = t_i·G: (Σ k_i·t_i mod r)·G, one scalar multiplication."""
    grp = limbs.group_of(curve, group)
    return limbs.point_to_limbs(
        curve, group, grp.generator * (sum(k * t for k, t in zip(values, dlogs, strict=True)) % curve.r)
    )


def bases_of(curve: Curve, group: str, n: int) -> np.ndarray:
    """The first n points of one shared walk per group (1000 in G1, 100 in G2, more when asked)."""
    return walk(curve.name, group, max(n, 1000 if group == "g1" else 100))[0][:n]


def scalars_of(curve: Curve, values: list[int]) -> np.ndarray:
    return limbs.fr_to_limbs(curve, values)


def check_msm(
    backend: DeviceBackend, curve: Curve, group: str, bases: np.ndarray, scalars: np.ndarray, window: int | None = None
) -> None:
    got = backend.msm(curve, group, bases, scalars, window=window)
    np.testing.assert_array_equal(got, REFERENCE.msm(curve, group, bases, scalars))


# --- MSM ----------------------------------------------------------------------------------------------------------


def test_is_a_backend(backend: DeviceBackend) -> None:
    assert isinstance(backend, Backend)
    assert GPU_BACKENDS[backend.name] is type(backend)
    if isinstance(backend, OpenCLBackend):
        on_cpu = backend.describe()["device_type"] == "cpu"
        # on a CPU device (PoCL) auto must prefer the numba cpu backend (priority 100); on a GPU, opencl
        assert backend.priority == (OpenCLBackend.CPU_PRIORITY if on_cpu else OpenCLBackend.GPU_PRIORITY)
        assert (backend.priority < 100) == on_cpu
    else:  # cuda runs on GPUs only and ranks first
        assert backend.priority > OpenCLBackend.GPU_PRIORITY


@pytest.mark.parametrize(
    ("group", "n"), [("g1", n) for n in (0, 1, 2, 3, 31, 100, 257, 1000)] + [("g2", n) for n in (0, 1, 2, 5, 33, 100)]
)
def test_msm_random(backend: DeviceBackend, curve: Curve, group: str, n: int, rng: random.Random) -> None:
    check_msm(
        backend, curve, group, bases_of(curve, group, n), scalars_of(curve, [rng.randrange(curve.r) for _ in range(n)])
    )


def edge_cases(curve: Curve, group: str, rng: random.Random) -> dict[str, tuple[np.ndarray, list[int]]]:
    """What breaks bucket methods (the conformance suite's msm edge cases, in arrays)."""
    r = curve.r
    pts = bases_of(curve, group, 40)
    inf = np.zeros_like(pts[:1])
    neg = pts.copy()  # −P = (x, −y), coordinate by coordinate of y
    y = [(curve.q - v) % curve.q for v in limbs.limbs_to_ints(pts[:, 1])]
    neg[:, 1] = limbs.ints_to_limbs(y, pts.shape[-1]).reshape(neg[:, 1].shape)
    k = rng.randrange(1, r)
    rand = [rng.randrange(r) for _ in range(40)]
    ones = [(1 << b) - 1 for b in (2, 5, 8, 13, 16, 64, 128, 254)]
    return {
        "zero_scalars": (pts[:8], [0] * 8),
        "one_scalars": (pts[:8], [1] * 8),
        "r_minus_1": (pts[:8], [r - 1] * 8),
        "all_ones_windows": (pts[: len(ones)], ones),
        "equal_scalars": (pts[:33], [k] * 33),
        "repeated_base": (np.repeat(pts[:1], 16, axis=0), rand[:16]),
        "repeated_base_equal_scalars": (np.repeat(pts[1:2], 16, axis=0), [k] * 16),
        "p_and_minus_p": (np.concatenate([pts[3:4], neg[3:4]]), [k, k]),
        "p_and_minus_p_distinct": (np.concatenate([pts[3:4], neg[3:4]]), rand[:2]),
        "scalar_and_negation": (np.repeat(pts[4:5], 2, axis=0), [k, r - k]),
        "pairs_cancel": (np.concatenate([pts[:10], neg[:10]]), rand[:10] * 2),
        "infinity_base": (inf, [k]),
        "infinity_among_bases": (np.concatenate([inf, pts[:4], inf, pts[4:8], inf]), rand[:11]),
        "all_infinity": (np.repeat(inf, 5, axis=0), rand[:5]),
        "small_scalars": (pts[:40], [rng.randrange(16) for _ in range(40)]),
    }


EDGE_NAMES = list(edge_cases(BN254, "g1", random.Random(0)))


@pytest.mark.parametrize("case", EDGE_NAMES)
@pytest.mark.parametrize("group", GROUPS)
def test_msm_edge_cases(backend: DeviceBackend, curve: Curve, group: str, case: str, rng: random.Random) -> None:
    bases, values = edge_cases(curve, group, rng)[case]
    check_msm(backend, curve, group, bases, scalars_of(curve, values))


@pytest.mark.parametrize("window", [1, 2, 5, 9, 16])
def test_msm_every_window_gives_the_same_result(
    backend: DeviceBackend, curve: Curve, window: int, rng: random.Random
) -> None:
    bases, values = bases_of(curve, "g1", 40), [rng.randrange(curve.r) for _ in range(40)]
    check_msm(backend, curve, "g1", bases, scalars_of(curve, values), window=window)


def test_msm_over_bases_in_several_allocations_reads_each_pieces_scalars(
    backend: DeviceBackend, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Resident bases split over allocations (a device whose largest buffer holds 256 G2 points of BN254) under one
    MSM whose scalars fit one buffer: each piece's points take their own rows of the scalars (they once all read
    the first rows)."""
    small = fresh(backend, shifted_bases=False, parallel_items=29)
    monkeypatch.setattr(small.context, "info", dataclasses.replace(small.context.info, max_alloc=32768))
    bases, logs = walk(BN254.name, "g2", 280)
    rng = random.Random(11)
    values = [rng.randrange(BN254.r) for _ in range(len(bases))]
    handle = small.prepare_bases(BN254, "g2", bases)
    assert [count for _, _, count in handle.payload.pieces] == [256, 24]
    got = small.msm_prepared(handle, scalars_of(BN254, values), window=7)
    expected = BN254.g2.generator * (sum(k * t for k, t in zip(values, logs, strict=True)) % BN254.r)
    np.testing.assert_array_equal(got, limbs.point_to_limbs(BN254, "g2", expected))


# 20 (MAX_DEFAULT_WINDOW, 2^19 buckets a row: half a minute on PoCL) runs with -m slow: its plan has the shape of 13's
# and 17's (one chunk, every row's bucket sums held at once, no lead, 77 or 1 segments a row), which run by default.
@pytest.mark.parametrize("window", [13, 17, pytest.param(20, marks=pytest.mark.slow)])
def test_msm_uneven_segments_and_full_top_window(
    backend: DeviceBackend, curve: Curve, window: int, rng: random.Random
) -> None:
    """Many bucket work-items over few points and buckets (ranges that start and end inside buckets, ragged
    segment counts for the fold tree: 50 and 63 or 67 a row, and 1), repeated bases, and wide windows whose top
    window holds a few full buckets (17 on BLS12-381: the top window holds only the carry, so bucket 1 spans 26 of
    its 63 ranges: the edges' far branch). The widest default window (20) adds no other branch: it runs with -m slow."""
    wide = fresh(backend, parallel_items=997)
    bases = np.tile(bases_of(curve, "g1", 50), (6, 1, 1))
    values = [rng.randrange(curve.r) for _ in range(len(bases))]
    values[:20] = [curve.r - 1, 1, 2, 0] * 5  # the most negative digits, repeats of small ones, zeros
    scalars = scalars_of(curve, values)
    expected = REFERENCE.msm(curve, "g1", bases, scalars)
    np.testing.assert_array_equal(wide.msm(curve, "g1", bases, scalars, window=window), expected)
    np.testing.assert_array_equal(
        fresh(backend, parallel_items=3).msm(curve, "g1", bases, scalars, window=window), expected
    )


@pytest.mark.parametrize("group", GROUPS)
def test_msm_over_shifted_bases(backend: DeviceBackend, curve: Curve, group: str, rng: random.Random) -> None:
    """Prepared with shifted copies 2^(c·t)·P_i: one bucket row for all windows, the same sums as the reference;
    another window than the shifted one, chunking, and an empty or zero input fall back to or agree with the
    per-window path; the infinity among the bases stays infinity in every copy."""
    shifted = fresh(backend, shifted_bases=True, parallel_items=333)
    n = 120 if group == "g1" else 40
    bases = bases_of(curve, group, n).copy()
    bases[7] = 0  # the point at infinity
    values = [rng.randrange(curve.r) for _ in range(n)]
    values[:4] = [0, 1, curve.r - 1, 2]
    scalars = scalars_of(curve, values)
    expected = REFERENCE.msm(curve, group, bases, scalars)
    handle = shifted.prepare_bases(curve, group, bases)
    assert handle.payload.shift is not None and handle.payload.windows > 1
    np.testing.assert_array_equal(shifted.msm_prepared(handle, scalars), expected)
    np.testing.assert_array_equal(shifted.msm_prepared(handle, scalars, window=3), expected)
    zero = scalars_of(curve, [0] * n)
    np.testing.assert_array_equal(shifted.msm_prepared(handle, zero), np.zeros_like(expected))
    plain = fresh(backend, shifted_bases=False).prepare_bases(curve, group, bases)
    assert plain.payload.shift is None
    few = shifted.prepare_bases(curve, group, bases, uses=1)  # one MSM does not pay for the copies
    assert few.payload.shift is None
    np.testing.assert_array_equal(shifted.msm_prepared(few, scalars), expected)
    assert shifted.prepare_bases(curve, group, bases, uses=SHIFTED_MIN_USES).payload.shift is not None


@pytest.mark.parametrize("group", GROUPS)
def test_generator_bases_get_shifted_copies_as_prepare_bases_would(
    backend: DeviceBackend, curve: Curve, group: str, rng: random.Random
) -> None:
    """generator_bases writes the fixed-base kernel's points where they stay and, where prepare_bases would make
    shifted copies (shifted_bases, enough uses), makes them from those points on the device: the same sums as the
    reference's MSM over generator_multiples' points, with and without copies."""
    shifted = fresh(backend, shifted_bases=True)
    n = 40 if group == "g1" else 12
    k = scalars_of(curve, [rng.randrange(curve.r) for _ in range(n - 2)] + [0, 1])
    scalars = scalars_of(curve, [rng.randrange(curve.r) for _ in range(n)])
    expected = REFERENCE.msm(curve, group, shifted.generator_multiples(curve, group, k), scalars)
    made = shifted.generator_bases(curve, group, k)
    assert made.payload.shift is not None and made.payload.windows > 1
    np.testing.assert_array_equal(shifted.msm_prepared(made, scalars), expected)
    few = shifted.generator_bases(curve, group, k, uses=1)
    assert few.payload.shift is None
    np.testing.assert_array_equal(shifted.msm_prepared(few, scalars), expected)


@pytest.mark.parametrize("group", GROUPS)
@pytest.mark.parametrize("shifted", [False, True])
def test_msm_buckets_far_longer_than_a_range(
    backend: DeviceBackend, curve: Curve, group: str, shifted: bool, rng: random.Random
) -> None:
    """Buckets that span dozens of bucket-sum ranges, as a witness's many bits and small values make (and the few
    buckets of a top window with few bits, over shifted bases): the first ranges after a bucket's start join its
    sum, and ranges further on weigh their parts themselves (MSM_EDGE_CHAIN in msm.c)."""
    many = fresh(backend, shifted_bases=shifted, parallel_items=4096)
    n = 300 if group == "g1" else 120
    bases = bases_of(curve, group, n)
    values = [1] * (n // 3) + [2] * (n // 4) + [curve.r - 1] * (n // 6)
    values += [rng.randrange(curve.r) for _ in range(n - len(values))]
    scalars = scalars_of(curve, values)
    expected = REFERENCE.msm(curve, group, bases, scalars)
    handle = many.prepare_bases(curve, group, bases)
    assert (handle.payload.shift is not None) == shifted
    np.testing.assert_array_equal(many.msm_prepared(handle, scalars, window=None if shifted else 8), expected)


def test_msm_known_discrete_logs(backend: DeviceBackend, curve: Curve, rng: random.Random) -> None:
    """The oracle behind the slow large tests, on a size the reference also checks."""
    bases, dlogs = walk(curve.name, "g1", 1000)
    values = [rng.randrange(curve.r) for _ in range(len(bases))]
    got = backend.msm(curve, "g1", bases, scalars_of(curve, values))
    np.testing.assert_array_equal(got, oracle(curve, "g1", values, dlogs))


@pytest.mark.parametrize("group", GROUPS)
def test_msm_in_chunks_and_prepared_pieces(
    backend: DeviceBackend, curve: Curve, group: str, rng: random.Random
) -> None:
    chunked = fresh(backend, max_chunk=7)
    bases = bases_of(curve, group, 40)
    scalars = scalars_of(curve, [rng.randrange(curve.r) for _ in range(40)])
    expected = REFERENCE.msm(curve, group, bases, scalars)
    np.testing.assert_array_equal(chunked.msm(curve, group, bases, scalars), expected)
    handle = chunked.prepare_bases(curve, group, bases)
    assert len(handle.payload.pieces) == 6  # 40 bases in pieces of at most 7
    np.testing.assert_array_equal(chunked.msm_prepared(handle, scalars), expected)
    np.testing.assert_array_equal(chunked.msm_prepared(handle, scalars, window=3), expected)


def test_msm_chunks_from_the_memory_limit(backend: DeviceBackend, curve: Curve, rng: random.Random) -> None:
    """A device too small for the whole MSM: the planner cuts the points into chunks that fit."""
    small = fresh(backend, memory_limit=60_000)
    bases = bases_of(curve, "g1", 300)
    scalars = scalars_of(curve, [rng.randrange(curve.r) for _ in range(300)])
    np.testing.assert_array_equal(
        small.msm(curve, "g1", bases, scalars, window=4), REFERENCE.msm(curve, "g1", bases, scalars)
    )


def test_msm_chunks_from_the_free_memory(
    backend: DeviceBackend, curve: Curve, rng: random.Random, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A device whose free memory (other processes, arrays kept between calls) is below the call's share: the plan
    takes the free memory less FREE_HEADROOM, and the MSM runs in chunks that fit, with the same sum."""
    from cuzk.backends.gpu import backend as gpu_backend

    small = fresh(backend)
    headroom = int(small.context.info.global_mem * gpu_backend.FREE_HEADROOM)
    monkeypatch.setattr(type(small.context), "free_bytes", property(lambda ctx: headroom + 60_000))
    assert small._memory().budget == 60_000
    bases = bases_of(curve, "g1", 300)
    scalars = scalars_of(curve, [rng.randrange(curve.r) for _ in range(300)])
    np.testing.assert_array_equal(
        small.msm(curve, "g1", bases, scalars, window=4), REFERENCE.msm(curve, "g1", bases, scalars)
    )
    monkeypatch.setattr(type(small.context), "free_bytes", property(lambda ctx: None))  # the API does not tell
    assert small._memory().budget > 60_000


def test_prepared_bases_and_batches(backend: DeviceBackend, curve: Curve, rng: random.Random) -> None:
    bases = bases_of(curve, "g1", 50)
    handle = backend.prepare_bases(curve, "g1", bases)
    batch = [scalars_of(curve, [rng.randrange(curve.r) for _ in range(50)]) for _ in range(3)]
    expected = np.stack([REFERENCE.msm(curve, "g1", bases, s) for s in batch])
    for s, e in zip(batch, expected, strict=True):
        np.testing.assert_array_equal(backend.msm_prepared(handle, s), e)
    got = backend.msm_batch(curve, "g1", [handle, bases, handle], batch, windows=[None, 3, 7])
    np.testing.assert_array_equal(got, expected)
    assert "g1_msm_bucket_sums" in backend.last_kernel_seconds
    with pytest.raises(BackendInputError, match="another device context"):
        fresh(backend).msm_prepared(handle, batch[0])


def test_kernel_intervals_lie_within_the_call_on_the_host_clock(
    backend: DeviceBackend, curve: Curve, rng: random.Random
) -> None:
    """last_internal_intervals(): when each kernel of the thread's last call ran, on time.perf_counter's clock (the
    device's events tied to it): one interval per launch, inside the call, in the queue's order, as long as the
    device time the call reports; a thread that made no call has none."""
    bases = bases_of(curve, "g1", 40)
    scalars = scalars_of(curve, [rng.randrange(curve.r) for _ in range(40)])
    for _ in range(2):  # the second call measures from the clock the first one tied
        before = time.perf_counter()
        backend.msm(curve, "g1", bases, scalars)
        after = time.perf_counter()
        intervals = backend.last_internal_intervals()
        assert intervals is not None and len(intervals) >= 5  # histogram, scans, scatter, bucket kernels, finish
        slack = 0.05  # the tie between the clocks (a wait of microseconds, longer on a loaded machine)
        assert all(before - slack <= start <= end <= after + slack for start, end in intervals)
        assert all(b[0] >= a[0] - 1e-6 for a, b in pairwise(intervals))
        assert sum(end - start for start, end in intervals) == pytest.approx(backend.last_internal_seconds(), rel=1e-3)
    other: list[object] = []
    thread = threading.Thread(target=lambda: other.append(backend.last_internal_intervals()))
    thread.start()
    thread.join()
    assert other == [None]


def test_msm_memory_errors(backend: DeviceBackend, curve: Curve) -> None:
    bases, scalars = bases_of(curve, "g1", 4), scalars_of(curve, [1, 2, 3, 4])
    with pytest.raises(DeviceMemoryError, match="smaller window"):
        backend.msm(curve, "g1", bases, scalars, window=32)
    with pytest.raises(DeviceMemoryError):
        fresh(backend, memory_limit=2_000).msm(curve, "g1", bases, scalars)
    with pytest.raises(DeviceMemoryError, match="prepared bases"):
        fresh(backend, memory_limit=100).prepare_bases(curve, "g1", bases)


def test_device_out_of_memory_is_a_typed_error_and_loses_nothing(
    backend: DeviceBackend, curve: Curve, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An allocation the device refuses (its memory taken by another process, say) raises DeviceMemoryError
    naming the remedy, never a wrong result; the same backend then works again."""
    own = fresh(backend)
    ctx = own.context
    bases, scalars = bases_of(curve, "g1", 30), scalars_of(curve, list(range(1, 31)))
    error = ctx.memory_errors[0]
    allocate = ctx.buffer

    def refuse(nbytes: int) -> object:
        if nbytes > 1000:
            try:
                exc = error("out of memory (simulated)")
            except TypeError:  # cupy's OutOfMemoryError(size, total)
                exc = error(nbytes, 1 << 30)
            raise exc
        return allocate(nbytes)

    monkeypatch.setattr(ctx, "buffer", refuse)
    with pytest.raises(DeviceMemoryError, match=r"ran out of memory.*memory_limit"):
        own.msm(curve, "g1", bases, scalars)
    monkeypatch.setattr(ctx, "buffer", allocate)
    np.testing.assert_array_equal(own.msm(curve, "g1", bases, scalars), REFERENCE.msm(curve, "g1", bases, scalars))


@pytest.mark.parametrize("group", GROUPS)
def test_on_curve_kernel_reads_the_emitted_b(backend: DeviceBackend, curve: Curve, group: str) -> None:
    """The emitted b (b' for G2) and the Montgomery conversions: y² = x³ + b holds on the device for every point,
    the point at infinity included, and fails once y is changed."""
    points = np.concatenate([bases_of(curve, group, 20), np.zeros_like(bases_of(curve, group, 1))])
    bad = points[:5].copy()
    bad[:, 1, ..., 0] ^= np.uint64(1)
    ctx = backend.context
    for array, expected in ((points, 1), (bad, 0)):
        buf, ok = ctx.upload(array), ctx.buffer(4 * len(array))
        ctx.launch(curve, f"msm_{group}", f"{group}_on_curve", len(array), buf, np.uint32(len(array)), ok)
        assert (ctx.read(ok, (len(array),), np.uint32) == expected).all()


@pytest.mark.parametrize("group", GROUPS)
def test_generator_multiples(backend: DeviceBackend, curve: Curve, group: str, rng: random.Random) -> None:
    """[k]G for the setup, against the reference's scalar multiplication: 0, 1, 255, 256 (a byte boundary), r − 1,
    random scalars; in chunks when the memory allows only a few points at a time."""
    values = [0, 1, 255, 256, curve.r - 1] + [rng.randrange(curve.r) for _ in range(11)]
    generator = limbs.group_of(curve, group).generator
    expected = limbs.points_to_limbs(curve, group, [generator * k for k in values])
    got = backend.generator_multiples(curve, group, scalars_of(curve, values))
    np.testing.assert_array_equal(got, expected)
    point_bytes = int(np.prod(limbs.point_shape(curve, group))) * 8
    small = fresh(backend, memory_limit=5 * (32 + point_bytes))  # 5 points per chunk
    np.testing.assert_array_equal(small.generator_multiples(curve, group, scalars_of(curve, values)), expected)
    assert backend.generator_multiples(curve, group, scalars_of(curve, [])).shape == (0, *expected.shape[1:])


# --- NTT, H, field operations -------------------------------------------------------------------------------------


@pytest.mark.parametrize("log_n", range(13))
def test_ntt_all_modes(backend: DeviceBackend, curve: Curve, log_n: int, rng: random.Random) -> None:
    values = limbs.fr_to_limbs(curve, [rng.randrange(curve.r) for _ in range(1 << log_n)])
    for inverse in (False, True):
        for coset in (False, True):
            got = backend.ntt(curve, values, inverse=inverse, coset=coset)
            np.testing.assert_array_equal(got, REFERENCE.ntt(curve, values, inverse=inverse, coset=coset))


def test_ntt_empty_and_round_trip(backend: DeviceBackend, curve: Curve, rng: random.Random) -> None:
    empty = np.zeros((0, 4), dtype=np.uint64)
    assert backend.ntt(curve, empty).shape == (0, 4)
    values = limbs.fr_to_limbs(curve, [rng.randrange(curve.r) for _ in range(64)])
    for coset in (False, True):
        back = backend.ntt(curve, backend.ntt(curve, values, coset=coset), inverse=True, coset=coset)
        np.testing.assert_array_equal(back, values)


@pytest.mark.parametrize("reduction", ["libsnark", "circom"])
@pytest.mark.parametrize("n", [1, 2, 16, 256, 1024, 2048])  # 1024, 2048: one NTT tile, and two passes
def test_compute_h(backend: DeviceBackend, curve: Curve, reduction: str, n: int, rng: random.Random) -> None:
    """On evaluations with c = a·b on H (a satisfied QAP), and for circom also on arbitrary ones."""
    a = [rng.randrange(curve.r) for _ in range(n)]
    b = [rng.randrange(curve.r) for _ in range(n)]
    c = [x * y % curve.r for x, y in zip(a, b, strict=True)]
    arrays = [limbs.fr_to_limbs(curve, v) for v in (a, b, c)]
    got = backend.compute_h(curve, *arrays, reduction=reduction)
    np.testing.assert_array_equal(got, REFERENCE.compute_h(curve, *arrays, reduction=reduction))
    if reduction == "circom":
        arrays[2] = limbs.fr_to_limbs(curve, [rng.randrange(curve.r) for _ in range(n)])
        got = backend.compute_h(curve, *arrays, reduction="circom")
        np.testing.assert_array_equal(got, REFERENCE.compute_h(curve, *arrays, reduction="circom"))


def test_compute_h_rejects_an_unsatisfied_qap(backend: DeviceBackend, curve: Curve) -> None:
    a, b, c = (limbs.fr_to_limbs(curve, v) for v in ([1, 2, 3, 4], [5, 6, 7, 8], [5, 12, 21, 33]))
    with pytest.raises(UnsatisfiedConstraintError, match="not divisible"):
        REFERENCE.compute_h(curve, a, b, c, reduction="libsnark")
    with pytest.raises(UnsatisfiedConstraintError, match="not divisible"):
        backend.compute_h(curve, a, b, c, reduction="libsnark")
    with pytest.raises(UnsatisfiedConstraintError, match="not divisible"):
        backend.compute_h_kept(curve, a, b, c, reduction="libsnark")


@pytest.mark.parametrize("reduction", ["libsnark", "circom"])
def test_kept_h_is_the_msms_scalars(
    backend: DeviceBackend, curve: Curve, reduction: str, rng: random.Random, monkeypatch: pytest.MonkeyPatch
) -> None:
    """compute_h_kept leaves H on the device: msm_prepared and msm_batch (beside a host array) over it give the
    MSMs of compute_h's array, so does a chunked MSM (which reads it back); another backend, or an MSM of another
    curve, refuses it; a backend without kept_h does not offer compute_h_kept."""
    n = 64
    a = [rng.randrange(curve.r) for _ in range(n)]
    b = [rng.randrange(curve.r) for _ in range(n)]
    arrays = [limbs.fr_to_limbs(curve, v) for v in (a, b, [x * y % curve.r for x, y in zip(a, b, strict=True)])]
    h = backend.compute_h(curve, *arrays, reduction=reduction)
    kept = backend.compute_h_kept(curve, *arrays, reduction=reduction)
    assert len(kept) == len(h)
    bases = bases_of(curve, "g1", len(h))
    z = scalars_of(curve, [rng.randrange(curve.r) for _ in range(len(h))])
    expected = [REFERENCE.msm(curve, "g1", bases, s) for s in (z, h)]
    handle = backend.prepare_bases(curve, "g1", bases)
    np.testing.assert_array_equal(backend.msm_prepared(handle, kept), expected[1])
    np.testing.assert_array_equal(backend.msm_batch(curve, "g1", [handle, bases], [z, kept]), np.stack(expected))
    monkeypatch.setattr(backend, "max_chunk", 16)
    np.testing.assert_array_equal(backend.msm_prepared(backend.prepare_bases(curve, "g1", bases), kept), expected[1])
    with pytest.raises(BackendInputError, match=r"^scalars\[0\]: kept by backend"):
        REFERENCE.msm_batch(curve, "g1", [bases], [kept])
    other = BN254 if curve is BLS12_381 else BLS12_381
    with pytest.raises(BackendInputError, match=rf"^scalars\[0\]: kept for {curve.name}, not {other.name}"):
        backend.msm_batch(other, "g1", [bases_of(other, "g1", len(h))], [kept])
    with pytest.raises(CapabilityMissingError):
        REFERENCE.compute_h_kept(curve, *arrays, reduction=reduction)


@pytest.mark.parametrize("reduction", ["libsnark", "circom"])
def test_compute_h_kept_reads_kept_inputs(
    backend: DeviceBackend, curve: Curve, reduction: str, rng: random.Random
) -> None:
    """compute_h_kept over a, b, c kept by keep_scalars (as a pipeline stages them), beside an array, or a slice of
    a longer kept array (read through the host): the H of the arrays, with the kept inputs left as they were; kept
    inputs of another backend or curve are refused, naming the array."""
    n = 32
    a = [rng.randrange(curve.r) for _ in range(n)]
    b = [rng.randrange(curve.r) for _ in range(n)]
    arrays = [limbs.fr_to_limbs(curve, v) for v in (a, b, [x * y % curve.r for x, y in zip(a, b, strict=True)])]
    expected = REFERENCE.compute_h(curve, *arrays, reduction=reduction)
    kept = [backend.keep_scalars(curve, v) for v in arrays]
    np.testing.assert_array_equal(_to_host(backend.compute_h_kept(curve, *kept, reduction=reduction)), expected)
    longer = backend.keep_scalars(curve, np.concatenate([arrays[1][:3], arrays[1]]))
    mixed = (kept[0], longer[3:], arrays[2])
    np.testing.assert_array_equal(_to_host(backend.compute_h_kept(curve, *mixed, reduction=reduction)), expected)
    for held, array in zip(kept, arrays, strict=True):
        np.testing.assert_array_equal(_to_host(held), array)
    stranger = dataclasses.replace(kept[1], backend="reference")
    with pytest.raises(BackendInputError, match=r"^b: kept by backend 'reference'"):
        backend.compute_h_kept(curve, kept[0], stranger, kept[2], reduction=reduction)
    foreign = fresh(backend).keep_scalars(curve, arrays[0])  # another context's buffer
    with pytest.raises(BackendInputError, match=r"^a: kept by another device context"):
        backend.compute_h_kept(curve, foreign, kept[1], kept[2], reduction=reduction)
    other = BN254 if curve is BLS12_381 else BLS12_381
    with pytest.raises(BackendInputError, match=rf"^c: kept for {curve.name}, not {other.name}"):
        backend.compute_h_kept(other, *[limbs.fr_to_limbs(other, [1] * n)] * 2, kept[2], reduction=reduction)


def test_compute_h_kept_consumes_its_inputs(backend: DeviceBackend, curve: Curve, rng: random.Random) -> None:
    """With consume=True the H is the reference's whether copies of kept a, b, c fit the memory or not (eight arrays
    of n values do not, five do: then they are transformed in place), and the kept a, b, c are let go of: using them
    again is refused with a clear error. Without consume, the call that does not fit is refused, and an H that fits
    leaves its inputs as they were."""
    n = 32
    a = [rng.randrange(curve.r) for _ in range(n)]
    b = [rng.randrange(curve.r) for _ in range(n)]
    arrays = [limbs.fr_to_limbs(curve, v) for v in (a, b, [x * y % curve.r for x, y in zip(a, b, strict=True)])]
    expected = REFERENCE.compute_h(curve, *arrays, reduction="libsnark")
    kept = [backend.keep_scalars(curve, v) for v in arrays]
    np.testing.assert_array_equal(_to_host(backend.compute_h_kept(curve, *kept, reduction="libsnark")), expected)
    for held, array in zip(kept, arrays, strict=True):
        np.testing.assert_array_equal(_to_host(held), array)
    small = fresh(backend, memory_limit=6 * n * 32)
    for maker in (backend, small):
        kept = [maker.keep_scalars(curve, v) for v in arrays]
        if maker is small:
            with pytest.raises(DeviceMemoryError, match="needs 8 buffers"):
                small.compute_h_kept(curve, *kept, reduction="libsnark")
        got = maker.compute_h_kept(curve, *kept, reduction="libsnark", consume=True)
        np.testing.assert_array_equal(_to_host(got), expected)
        with pytest.raises(BackendInputError, match="consumed by compute_h_kept"):
            _to_host(kept[1])


def test_the_quotient_in_place_empties_the_table_cache_when_short(
    backend: DeviceBackend, curve: Curve, rng: random.Random
) -> None:
    """When even the in-place quotient (tmp and two tables of n values) does not fit the memory it was given, the
    NTT tables cached by earlier calls are dropped and the memory asked again: the H is the reference's; without a
    way to ask again the call is refused before any kernel runs."""
    n = 32
    a = [rng.randrange(curve.r) for _ in range(n)]
    b = [rng.randrange(curve.r) for _ in range(n)]
    arrays = [limbs.fr_to_limbs(curve, v) for v in (a, b, [x * y % curve.r for x, y in zip(a, b, strict=True)])]
    expected = REFERENCE.compute_h(curve, *arrays, reduction="libsnark")
    short, enough = Memory(3 * n * 32 - 1, 1 << 30), Memory(3 * n * 32, 1 << 30)
    maker, tables = fresh(backend), ntt_device.Tables(2 * n * 32)  # room for two tables of n: tmp and two needed
    asked: list[Memory] = []

    def remeasure() -> Memory:
        asked.append(enough)
        return enough

    def quotient(ctx: DeviceContext, again: object) -> Finish[np.ndarray]:
        kept = [DeviceScalars.of(ctx, ctx.upload(v), n) for v in arrays]
        tables.powers(ctx, curve, ntt_device.COSET, 5, n)  # a table of an earlier call
        return ntt_device.queue_compute_h(
            ctx, curve, tables, *kept, "libsnark", short, keep=True, consume=True, remeasure=again
        )

    with pytest.raises(DeviceMemoryError, match="in place"):
        maker._call(lambda ctx: quotient(ctx, None))
    got = maker._call(lambda ctx: quotient(ctx, remeasure))
    assert asked == [enough] and tables.limit == 0
    np.testing.assert_array_equal(got.to_host(), expected)


@pytest.mark.parametrize("group", ["g1", "g2"])
def test_rows_apart_over_kept_scalars_give_the_same_sums(
    backend: DeviceBackend, curve: Curve, group: str, rng: random.Random, monkeypatch: pytest.MonkeyPatch
) -> None:
    """From ROWS_APART_FROM points, an MSM over kept scalars runs its bucket kernels one window at a time with all
    the work-items: the same sums as the reference's, for scalars mostly 0 and 1 (window 0 holding most entries)
    and for dense ones, alone and in a batch beside a host array (which keeps the rows together)."""
    monkeypatch.setattr(msm_job_module, "ROWS_APART_FROM", 0)
    n = 96
    bases = bases_of(curve, group, n)
    bits = [rng.choice([0, 0, 1, 1, 1, rng.randrange(curve.r)]) for _ in range(n)]
    dense = [rng.randrange(curve.r) for _ in range(n)]
    handle = backend.prepare_bases(curve, group, bases)
    for values in (bits, dense):
        scalars = scalars_of(curve, values)
        expected = REFERENCE.msm(curve, group, bases, scalars)
        kept = backend.keep_scalars(curve, scalars)
        np.testing.assert_array_equal(backend.msm_prepared(handle, kept), expected)
        batch = backend.msm_batch(curve, group, [handle, bases], [kept, scalars])
        np.testing.assert_array_equal(batch, np.stack([expected, expected]))


def test_scalars_kept_from_the_backends_host_array(
    backend: DeviceBackend, curve: Curve, rng: random.Random, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Scalars made in the backend's host_array (pinned memory on CUDA, uploaded in place) are kept and summed as
    from a plain array, also when the caller overwrites the array as soon as keep_scalars returns."""
    monkeypatch.setattr(cuda_device, "LEASE_MIN_BYTES", 64)  # the copy stream's path, where pinned arrays go
    n = 40
    bases = bases_of(curve, "g1", n)
    scalars = scalars_of(curve, [rng.randrange(curve.r) for _ in range(n)])
    host = backend.host_array(scalars.shape)
    assert host.shape == scalars.shape and host.dtype == np.uint64
    host[...] = scalars
    kept = backend.keep_scalars(curve, host)
    host[...] = 0
    handle = backend.prepare_bases(curve, "g1", bases)
    np.testing.assert_array_equal(backend.msm_prepared(handle, kept), REFERENCE.msm(curve, "g1", bases, scalars))


def test_bases_uploaded_from_a_files_read_only_map(
    backend: DeviceBackend, curve: Curve, rng: random.Random, monkeypatch: pytest.MonkeyPatch, tmp_path: Any
) -> None:
    """Bases read-only in a file's memory map, as a key's sections are read, reach the device from the map's pages
    (pinned where they are on CUDA) and are summed as from a plain array."""
    monkeypatch.setattr(cuda_device, "LEASE_MIN_BYTES", 64)  # the copy stream's path …
    monkeypatch.setattr(cuda_staging, "REGISTER_MIN_BYTES", 64)  # … from the pages pinned in place
    bases = bases_of(curve, "g1", 40)
    path = tmp_path / "bases.bin"
    path.write_bytes(b"\0" * 24 + bases.tobytes())  # not at the map's first page boundary
    mapped = np.memmap(path, dtype=bases.dtype, mode="r", offset=24, shape=bases.shape)
    scalars = scalars_of(curve, [rng.randrange(curve.r) for _ in range(40)])
    handle = backend.prepare_bases(curve, "g1", mapped)
    np.testing.assert_array_equal(backend.msm_prepared(handle, scalars), REFERENCE.msm(curve, "g1", bases, scalars))


@pytest.mark.parametrize("group", ["g1", "g2"])
def test_generator_bases_get_shifted_copies_as_prepared_bases_do(
    backend: DeviceBackend, curve: Curve, group: str, rng: random.Random
) -> None:
    """generator_bases decides on shifted copies as prepare_bases does (from SHIFTED_MIN_USES MSMs, where the
    backend makes them): made on the device, the MSMs over them are the reference's over generator_multiples'."""
    shifting = fresh(backend, shifted_bases=True)
    k = scalars_of(curve, [rng.randrange(curve.r) for _ in range(40)])
    points = shifting.generator_multiples(curve, group, k)
    z = scalars_of(curve, [rng.randrange(curve.r) for _ in range(40)])
    expected = REFERENCE.msm(curve, group, points, z)
    for uses, shifted in ((None, True), (SHIFTED_MIN_USES, True), (1, False)):
        made = shifting.generator_bases(curve, group, k, uses=uses)
        assert (made.payload.shift is not None) is shifted
        assert (shifting.prepare_bases(curve, group, points, uses=uses).payload.shift is not None) is shifted
        np.testing.assert_array_equal(shifting.msm_prepared(made, z), expected)


def _to_host(kept: KeptScalars) -> np.ndarray:
    """The rows a GPU backend's KeptScalars stand for, read back."""
    payload = kept.payload
    if isinstance(payload, np.ndarray):
        return payload[kept.first : kept.first + len(kept)]
    return dataclasses.replace(payload, rows=len(kept), first=payload.first + kept.first).to_host()


def test_kept_scalars_and_their_slices_are_the_msms_scalars(
    backend: DeviceBackend, curve: Curve, rng: random.Random, monkeypatch: pytest.MonkeyPatch
) -> None:
    """keep_scalars uploads z once: msm_prepared over it, over its slices z[k:] and z[k:m] (as the L query reads z),
    and msm_batch of z beside z[k:] give the MSMs of the host arrays, as does a chunked MSM (which reads them back);
    the same checks as an array's refuse a non-canonical one, naming the row; a step slice is refused."""
    n, k = 48, 5
    z = scalars_of(curve, [rng.randrange(curve.r) for _ in range(n)])
    kept = backend.keep_scalars(curve, z)
    assert len(kept) == n and len(kept[k:]) == n - k and len(kept[k:20][3:]) == 12
    bases = bases_of(curve, "g1", n)
    whole, tail, middle = (
        backend.prepare_bases(curve, "g1", bases[s]) for s in (slice(None), slice(k, None), slice(k + 3, 20))
    )
    expected = [REFERENCE.msm(curve, "g1", bases[s], z[s]) for s in (slice(None), slice(k, None), slice(k + 3, 20))]
    np.testing.assert_array_equal(backend.msm_prepared(whole, kept), expected[0])
    np.testing.assert_array_equal(backend.msm_prepared(tail, kept[k:]), expected[1])
    np.testing.assert_array_equal(backend.msm_prepared(middle, kept[k:20][3:]), expected[2])
    batch = backend.msm_batch(curve, "g1", [whole, bases[k:]], [kept, kept[k:]])
    np.testing.assert_array_equal(batch, np.stack(expected[:2]))
    monkeypatch.setattr(backend, "max_chunk", 16)
    np.testing.assert_array_equal(
        backend.msm_prepared(backend.prepare_bases(curve, "g1", bases[k:]), kept[k:]), expected[1]
    )
    bad = z.copy()
    bad[7] = limbs.int_to_limbs(curve.r, 4)
    with pytest.raises(NonCanonicalInputError, match=r"^scalars\[7\]"):
        backend.keep_scalars(curve, bad)
    with pytest.raises(TypeError, match="contiguous"):
        kept[::2]


def test_kept_scalars_too_large_for_the_device_stay_on_the_host(
    backend: DeviceBackend, curve: Curve, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Scalars larger than the device's largest allocation (32 KiB here) are kept on the host, and the MSMs over
    them and their slices take them as arrays (written chunk by chunk): Σ k_i·P_i against the discrete logs."""
    n, k = 1100, 3
    small = fresh(backend)
    monkeypatch.setattr(small.context, "info", dataclasses.replace(small.context.info, max_alloc=32768))
    bases, logs = walk(curve.name, "g1", n)
    rng = random.Random(12)
    values = [rng.randrange(curve.r) for _ in range(n)]
    kept = small.keep_scalars(curve, scalars_of(curve, values))
    assert isinstance(kept.payload, np.ndarray)
    got = small.msm_batch(curve, "g1", [bases, bases[k:]], [kept, kept[k:]])
    for row, first in zip(got, (0, k), strict=True):
        log = sum(v * t for v, t in zip(values[first:], logs[first:], strict=True)) % curve.r
        np.testing.assert_array_equal(row, limbs.point_to_limbs(curve, "g1", curve.g1.generator * log))


@pytest.mark.parametrize("field", ["fr", "fq"])
def test_field_ops(backend: DeviceBackend, curve: Curve, field: str, rng: random.Random) -> None:
    p = curve.r if field == "fr" else curve.q
    L = limbs.limb_count(p)
    R = 1 << (64 * L)
    edges = list(
        dict.fromkeys(v % p for v in [0, 1, 2, p - 1, p - 2, p // 2, 2**64 - 1, 2**64, R, R * R, pow(R, -1, p)])
    )
    a = edges + [rng.randrange(p) for _ in range(30)]
    b = [rng.randrange(p) for _ in range(len(edges))] + [rng.randrange(p) for _ in range(30)]
    pairs = [(x, y) for x in edges for y in edges]
    for op in ("add", "sub", "mul", "neg", "square", "inverse"):
        binary = op in ("add", "sub", "mul")
        xs = [x for x, _ in pairs] + a if binary else [x for x in a if x or op != "inverse"]
        ys = [y for _, y in pairs] + b if binary else None
        x_arr = limbs.ints_to_limbs(xs, L)
        y_arr = limbs.ints_to_limbs(ys, L) if ys is not None else None
        got = backend.field_op(curve, field, op, x_arr, y_arr)
        np.testing.assert_array_equal(got, REFERENCE.field_op(curve, field, op, x_arr, y_arr))
    with pytest.raises(NotInvertibleError, match=r"a\[1\]"):
        backend.field_op(curve, field, "inverse", limbs.ints_to_limbs([3, 0], L))
    empty = np.zeros((0, L), dtype=np.uint64)
    assert backend.field_op(curve, field, "mul", empty, empty).shape == (0, L)


@pytest.mark.parametrize("field", ["fr", "fq"])
def test_mul_f64(
    backend: DeviceBackend, curve: Curve, field: str, rng: random.Random, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The multiplication on the FP64 pipe (field_f64.c) gives the integer one's a·b·R⁻¹ mod p: every pair of edge
    operands (0, 1, p − 1, values whose 51-bit digits are all ones: the largest halves and columns) and 2,000 random
    pairs (results odd and even before the halving of a 256-bit R). No product program builds it: a backend of its
    own builds the programs with -DCUZK_FP64_MUL."""
    if not backend.context.info.fp64:
        pytest.skip(f"{backend.name}: the device has no doubles (cl_khr_fp64), so no FP64 multiplication")
    device = DEVICE_MODULES[backend.name]
    monkeypatch.setattr(device, "OPTIONS", (*device.OPTIONS, "-DCUZK_FP64_MUL"))
    backend = fresh(backend)
    p = curve.r if field == "fr" else curve.q
    L = limbs.limb_count(p)
    R = 1 << (64 * L)
    digits = [(1 << (51 * k)) - 1 for k in range(1, 8)]
    edges = list(dict.fromkeys(v % p for v in [0, 1, 2, 3, p - 1, p - 2, p // 2, 2**64 - 1, R, *digits]))
    pairs = [(x, y) for x in edges for y in edges]
    pairs += [(rng.randrange(p), rng.randrange(p)) for _ in range(2000)]
    a = limbs.ints_to_limbs([x for x, _ in pairs], L)
    b = limbs.ints_to_limbs([y for _, y in pairs], L)
    r_inv = pow(R, -1, p)

    def queue(ctx: DeviceContext) -> Finish[np.ndarray]:
        out = ctx.buffer(a.nbytes)
        n = np.uint32(len(a))
        ctx.launch(curve, "field_ops", f"{field}_mul_f64_pairs", len(a), ctx.upload(a), ctx.upload(b), out, n)
        return ctx.read_later(out, a.shape)

    got = backend._call(queue)
    expected = limbs.ints_to_limbs([x * y * r_inv % p for x, y in pairs], L)
    np.testing.assert_array_equal(got, expected)


# --- large, slow --------------------------------------------------------------------------------------------------


@pytest.mark.slow
@pytest.mark.parametrize(("group", "n"), [("g1", 1 << 14), ("g2", 1000)])
def test_msm_large_against_discrete_logs(
    backend: DeviceBackend, curve: Curve, group: str, n: int, rng: random.Random
) -> None:
    bases, dlogs = walk(curve.name, group, n)
    values = [rng.randrange(curve.r) for _ in range(n)]
    expected = oracle(curve, group, values, dlogs)
    scalars = scalars_of(curve, values)
    np.testing.assert_array_equal(backend.msm(curve, group, bases, scalars), expected)
    np.testing.assert_array_equal(fresh(backend, max_chunk=n // 3).msm(curve, group, bases, scalars), expected)


@pytest.mark.slow
def test_ntt_large(backend: DeviceBackend, curve: Curve, rng: random.Random) -> None:
    values = limbs.fr_to_limbs(curve, [rng.randrange(curve.r) for _ in range(1 << 15)])
    for inverse, coset in ((False, False), (True, True)):
        got = backend.ntt(curve, values, inverse=inverse, coset=coset)
        np.testing.assert_array_equal(got, REFERENCE.ntt(curve, values, inverse=inverse, coset=coset))
