"""POINT_NTT on every backend that offers it (one parametrized body): the same points as the reference's
:func:`~cuzk.reference.point_ntt.point_ntt` in both directions, on both curves and groups, with points at infinity,
over ffjavascript's root and the reference's; the inputs it must refuse, with typed errors. STORED_POINT_NTT the
same on a file's stored words (the oracle: the reference's transform between the file decoder's decode and
encode), and its bad points found."""

from __future__ import annotations

import functools
import random

import numpy as np
import pytest

from cuzk.backends import limbs
from cuzk.backends.errors import BackendInputError
from cuzk.backends.protocol import POINT_NTT, STORED_POINT_NTT, has_capability
from cuzk.backends.registry import get_backend, registered_backends
from cuzk.formats.points import PointDecoder
from cuzk.reference.curves import BLS12_381, BN254, Curve
from cuzk.reference.errors import CuzkError
from cuzk.reference.ntt import domain_root
from cuzk.reference.point_ntt import ffjavascript_root, point_ntt
from tests._suite_backends import usable_or_skip

CURVES = [BN254, BLS12_381]
by_curve = pytest.mark.parametrize("curve", CURVES, ids=lambda c: c.name)
by_backend = pytest.mark.parametrize("name", registered_backends())


def backend(name: str, capability: str = POINT_NTT):
    """The backend, when it runs here and offers ``capability``; else skipped with the reason."""
    usable_or_skip(name)
    b = get_backend(name)
    if not has_capability(b, capability):
        pytest.skip(f"the {name} backend does not offer {capability}")
    return b


def points_of(curve: Curve, group: str, n: int, seed: int) -> list:
    rng, grp = random.Random(seed), limbs.group_of(curve, group)
    return [grp.identity() if i % 7 == 3 else grp.generator * rng.randrange(1, curve.r) for i in range(n)]


def as_limbs(curve: Curve, group: str, points: list) -> np.ndarray:
    return limbs.points_to_limbs(curve, group, points).reshape(len(points), *limbs.point_shape(curve, group))


@functools.cache
def reference_transforms(
    curve: Curve, group: str, n: int, seed: int, inverse: bool, roots: tuple[str, ...]
) -> tuple[np.ndarray, list[tuple[object, np.ndarray]]]:
    """``points_of(curve, group, n, seed)`` as limbs, and for each distinct root of ``roots`` ("ffjavascript",
    "domain") the root and the reference's transform of the points by it, as limbs: computed once per worker for
    every backend's test (the pure-Python transform is most of a case's time). The arrays are read-only."""
    points = points_of(curve, group, n, seed)
    source = as_limbs(curve, group, points)
    made = {"ffjavascript": ffjavascript_root, "domain": domain_root}
    omegas = list(dict.fromkeys(made[root](curve.Fr, n) for root in roots))
    results = [(omega, as_limbs(curve, group, point_ntt(points, omega, inverse=inverse))) for omega in omegas]
    for array in [source, *(expected for _, expected in results)]:
        array.flags.writeable = False
    return source, results


@by_backend
@by_curve
@pytest.mark.parametrize(("group", "n"), [("g1", 1), ("g1", 2), ("g1", 16), ("g2", 4), ("g2", 8)])
@pytest.mark.parametrize("inverse", [False, True], ids=["forward", "inverse"])
def test_matches_reference(name: str, curve: Curve, group: str, n: int, inverse: bool) -> None:
    b = backend(name)
    source, transforms = reference_transforms(curve, group, n, n, inverse, ("ffjavascript", "domain"))
    for omega, expected in transforms:
        got = b.point_ntt(curve, group, source.copy(), omega.value, inverse=inverse)  # type: ignore[attr-defined]
        assert got.dtype == np.uint64 and got.shape == expected.shape
        assert np.array_equal(got, expected)


@by_backend
def test_edge_inputs(name: str) -> None:
    """Empty in, empty out; all at infinity stays at infinity; one point at index 0 spreads to every output."""
    b, curve = backend(name), BN254
    empty = np.zeros((0, 2, 4), np.uint64)
    assert b.point_ntt(curve, "g1", empty, 1).shape == (0, 2, 4)
    omega = ffjavascript_root(curve.Fr, 8).value
    assert not b.point_ntt(curve, "g1", np.zeros((8, 2, 4), np.uint64), omega, inverse=True).any()
    one_hot = np.zeros((8, 2, 4), np.uint64)
    one_hot[0] = as_limbs(curve, "g1", [curve.g1.generator])[0]
    assert (b.point_ntt(curve, "g1", one_hot, omega) == one_hot[0]).all()


@by_backend
def test_rejects_bad_input(name: str) -> None:
    b, curve = backend(name), BN254
    points = as_limbs(curve, "g1", points_of(curve, "g1", 4, seed=9))
    omega = ffjavascript_root(curve.Fr, 4).value
    for bad_omega in (curve.r - 1, 5, curve.r, -1, True, 2.0):  # not primitive, not a root, ≥ r, < 0, not an int
        with pytest.raises(CuzkError, match="omega"):
            b.point_ntt(curve, "g1", points, bad_omega)
    with pytest.raises(CuzkError, match="power of two"):
        b.point_ntt(curve, "g1", points[:3], omega)
    noncanonical = points.copy()
    noncanonical[1, 0] = limbs.int_to_limbs(curve.q, 4)
    with pytest.raises(BackendInputError):
        b.point_ntt(curve, "g1", noncanonical, omega)
    with pytest.raises(CuzkError):
        b.point_ntt(curve, "g3", points, omega)


@by_backend
@by_curve
@pytest.mark.parametrize(("group", "n"), [("g1", 1), ("g1", 16), ("g2", 8)])
@pytest.mark.parametrize("inverse", [False, True], ids=["forward", "inverse"])
def test_stored_form_matches_reference(name: str, curve: Curve, group: str, n: int, inverse: bool) -> None:
    b, codec = backend(name, STORED_POINT_NTT), PointDecoder(curve, group)
    source, [(omega, transformed)] = reference_transforms(curve, group, n, n + 1, inverse, ("ffjavascript",))
    expected = codec.encode(transformed)
    got, bad = b.point_ntt_stored(curve, group, codec.encode(source), omega.value, inverse=inverse)  # type: ignore[attr-defined]
    assert bad == -1 and got is not None
    assert got.dtype == np.uint8 and np.array_equal(got, expected)


@by_backend
@pytest.mark.parametrize("group", ["g1", "g2"])
def test_stored_form_finds_the_first_bad_point(name: str, group: str) -> None:
    """A coordinate not below q (at index 5) and a point off the curve (at 2): the first bad index, no result."""
    b, curve, codec = backend(name, STORED_POINT_NTT), BLS12_381, PointDecoder(BLS12_381, group)
    stored = codec.encode(as_limbs(curve, group, points_of(curve, group, 8, seed=3)))
    omega = ffjavascript_root(curve.Fr, 8).value
    n8 = codec.fq.n8
    unreduced = stored.copy()
    unreduced[5, :n8] = np.frombuffer(curve.q.to_bytes(n8, "little"), np.uint8)
    assert b.point_ntt_stored(curve, group, unreduced, omega) == (None, 5)
    off_curve = unreduced.copy()
    off_curve[2, 0] ^= 1
    assert b.point_ntt_stored(curve, group, off_curve, omega) == (None, 2)
    with pytest.raises(BackendInputError):
        b.point_ntt_stored(curve, group, stored.view(np.uint64), omega)


@by_curve
@pytest.mark.parametrize("group", ["g1", "g2"])
def test_cpu_glv_split(curve: Curve, group: str) -> None:
    """The cpu kernel's GLV constants: φ(x, y) = (β·x, y) is [λ] on the group, and every split k = k₁ + k₂·λ has
    halves below 2^128, on random scalars and at the edges (0, 1, r − 1, (r ± 1)/2, the twiddles of a domain)."""
    from cuzk.backends.cpu.glv import glv

    split = glv(curve, group)
    grp = limbs.group_of(curve, group)
    x, y = grp.generator.to_affine()
    beta = grp.field(split.beta) if group == "g1" else grp.field(split.beta, 0)
    assert grp.point(x * beta, y) == grp.generator * split.lam
    rng = random.Random(7)
    omega = ffjavascript_root(curve.Fr, 1 << 10).value
    scalars = [0, 1, curve.r - 1, (curve.r - 1) // 2, (curve.r + 1) // 2] + [rng.randrange(curve.r) for _ in range(500)]
    scalars += [pow(omega, t, curve.r) for t in range(512)]
    for k in scalars:
        k1, k2 = split.decompose(k)
        assert (k1 + k2 * split.lam - k) % curve.r == 0
        assert abs(k1) < 1 << 128 and abs(k2) < 1 << 128


@by_backend
@pytest.mark.parametrize("group", ["g1", "g2"])
def test_round_trip_spanning_threads(name: str, group: str) -> None:
    """inverse(forward(P)) = P at a size whose passes are split among the pool's threads (the reference's size
    is too small for that): a wrong twiddle, a wrong n⁻¹ folded into the first group's butterflies or a span's
    edge would not come back to P. The reference backend is skipped: its pure-Python transform takes minutes."""
    if name == "reference":
        pytest.skip("the reference backend's transform of 2^8 points takes minutes; test_matches_reference checks it")
    b = backend(name)
    n = 1 << 8
    source = as_limbs(BN254, group, points_of(BN254, group, n, 11))
    omega = ffjavascript_root(BN254.Fr, n).value
    forward = b.point_ntt(BN254, group, source.copy(), omega, inverse=False)  # type: ignore[attr-defined]
    assert not np.array_equal(forward, source)
    back = b.point_ntt(BN254, group, forward, omega, inverse=True)  # type: ignore[attr-defined]
    assert np.array_equal(back, source)


@by_curve
def test_cpu_gls_split(curve: Curve) -> None:
    """The cpu kernel's four-dimensional split on G2: ψ with its constants is [μ] on random points of G2 and commutes
    with φ, and every k ≡ k₀ + k₁λ + k₂μ + k₃λμ (mod r) with quarters below the split's bound, about r^(1/4)."""
    from cuzk.backends.cpu.gls import gls, lll

    split = gls(curve)
    assert split.bound.bit_length() <= (curve.r.bit_length() + 3) // 4 + 2
    fq2 = curve.g2.field
    gx, gy = fq2(*split.gamma_x), fq2(*split.gamma_y)
    rng = random.Random(5)
    for _ in range(3):
        P = curve.g2.generator * rng.randrange(1, curve.r)
        x, y = P.to_affine()
        image = curve.g2.point(x.conjugate() * gx, y.conjugate() * gy)
        assert image == P * split.mu
        phi_image = curve.g2.point(x.conjugate() * fq2(split.beta, 0) * gx, y.conjugate() * gy)
        assert phi_image == P * (split.mu * split.lam)
    omega = ffjavascript_root(curve.Fr, 1 << 10).value
    scalars = [0, 1, curve.r - 1, (curve.r - 1) // 2] + [rng.randrange(curve.r) for _ in range(300)]
    scalars += [pow(omega, t, curve.r) for t in range(256)]
    for k in scalars:
        k0, k1, k2, k3 = split.decompose(k)
        assert (k0 + k1 * split.lam + (k2 + k3 * split.lam) * split.mu - k) % curve.r == 0
        assert max(abs(k0), abs(k1), abs(k2), abs(k3)) < split.bound
    assert lll([[1, 0], [3, 1]]) == [[1, 0], [0, 1]]  # the textbook reduction of a sheared basis


def _device_round(k: int, rounding: int, negative: bool) -> int:
    """The kernels' Babai coefficient: ±⌊(k·G + 2^255) / 2^256⌋ (glv_round in point_ntt_chain.c)."""
    c = (k * rounding + (1 << 255)) >> 256
    return -c if negative else c


@by_curve
@pytest.mark.parametrize("group", ["g1", "g2"])
def test_device_split_layouts(curve: Curve, group: str) -> None:
    """The GPU kernels' twiddle splits, their rounding emulated on Python ints: GLV's halves on G1 (and the G2
    layout kept beside it), GLS's quarters on G2 — each part below 2^bits, the windows covering one bit more within
    the stored words, and the parts a decomposition of k (mod r), on the edges, random scalars and a domain's
    twiddles."""
    from cuzk.backends.cpu.glv import glv
    from cuzk.backends.kernels.gls import gls_layout
    from cuzk.backends.kernels.glv import WINDOW_BITS, glv_layout

    r = curve.r
    omega = ffjavascript_root(curve.Fr, 1 << 9).value
    rng = random.Random(3)
    scalars = [0, 1, r - 1, (r - 1) // 2, (r + 1) // 2] + [rng.randrange(r) for _ in range(300)]
    scalars += [pow(omega, t, r) for t in range(256)]
    if group == "g1":
        layout, lam = glv_layout(curve, group), glv(curve, group).lam
        a1, b1, a2, b2 = layout.basis
        basis = ((a1, b1), (a2, b2))
        weights = [1, lam]
    else:
        from cuzk.backends.cpu.gls import gls

        layout, split = gls_layout(curve), gls(curve)
        basis = layout.basis
        weights = [1, split.lam, split.mu, split.lam * split.mu]
    assert layout.bits + 1 <= WINDOW_BITS * layout.windows < 32 * layout.words
    for k in scalars:
        parts = [k] + [0] * (len(weights) - 1)
        for i, row in enumerate(basis):
            m = _device_round(k, layout.rounding[i], layout.rounding_negative[i])
            parts = [v - m * b for v, b in zip(parts, row, strict=True)]
        assert sum(v * w for v, w in zip(parts, weights, strict=True)) % r == k % r
        assert all(abs(v) < 1 << layout.bits for v in parts), (k, parts)
