"""The cpu backend's pieces against their naive oracles: constants, limb arithmetic (Fp for every modulus, Fq2),
the XYZZ group law's exceptional cases, the signed digits, the disk cache's locator, a cheap import."""

from __future__ import annotations

import random
import subprocess
import sys

import numba  # a required dependency: missing, this module is a collection error, not a skip
import numpy as np
import pytest

from cuzk.backends import limbs
from cuzk.backends.cpu import curve as ec
from cuzk.backends.cpu import digits as signed
from cuzk.backends.cpu import field as fd
from cuzk.backends.cpu import jit
from cuzk.backends.cpu import msm as pippenger
from cuzk.backends.cpu.params import curve_params, field_params
from cuzk.reference.curves import BLS12_381, BN254, Curve
from cuzk.reference.msm import signed_digits, window_count

CURVES = [BN254, BLS12_381]
MODULI = {f"{c.name}.{f}": m for c in CURVES for f, m in (("fq", c.q), ("fr", c.r))}


@numba.njit
def _fp_ops(a: np.ndarray, b: np.ndarray, out: np.ndarray, F: object) -> None:
    """Rows of out: a·b, a², a + b, a − b, −a, 2a, a⁻¹ (all in Montgomery form), a = b, a = 0."""
    like = F.one
    for i in range(a.shape[0]):
        x, y = fd.load(a, i, like), fd.load(b, i, like)
        fd.store(out, 9 * i, fd.mul(x, y, F))
        fd.store(out, 9 * i + 1, fd.sqr(x, F))
        fd.store(out, 9 * i + 2, fd.add(x, y, F))
        fd.store(out, 9 * i + 3, fd.sub(x, y, F))
        fd.store(out, 9 * i + 4, fd.neg(x, F))
        fd.store(out, 9 * i + 5, fd.dbl(x, F))
        fd.store(out, 9 * i + 6, fd.inv(x, F))
        out[9 * i + 7, 0] = fd.is_eq(x, y)
        out[9 * i + 8, 0] = fd.is_zero(x)


@pytest.mark.parametrize("name", list(MODULI))
def test_montgomery_constants(name: str) -> None:
    fp = field_params(MODULI[name])
    F, p, R = fp.consts, fp.modulus, 2 ** (64 * fp.n)
    assert limbs.limbs_to_int(np.array(F.p)) == p
    assert (int(F.pinv) * p) % 2**64 == 2**64 - 1
    assert limbs.limbs_to_int(np.array(F.one)) == R % p
    assert limbs.limbs_to_int(np.array(F.r2)) == R * R % p


@pytest.mark.parametrize("name", list(MODULI))
def test_fp_arithmetic(name: str) -> None:
    """Montgomery-form results decoded with R⁻¹ equal Python's integers, on edge values and random ones."""
    fp = field_params(MODULI[name])
    p, n, R = fp.modulus, fp.n, 2 ** (64 * fp.n)
    rng = random.Random(name)
    edges = [0, 1, 2, p - 1, p - 2, (p + 1) // 2, 2**64 - 1, R % p, R * R % p]
    xs = edges + [rng.randrange(p) for _ in range(30)]
    ys = edges[::-1] + [rng.randrange(p) for _ in range(30)]
    xs[1], ys[1] = xs[0], ys[0]  # one equal pair for is_eq
    a, b = limbs.ints_to_limbs(xs, n), limbs.ints_to_limbs(ys, n)
    out = np.zeros((9 * len(xs), n), np.uint64)
    _fp_ops(a, b, out, fp.consts)
    got = limbs.limbs_to_ints(out)
    rinv = pow(R, -1, p)
    for i, (x, y) in enumerate(zip(xs, ys, strict=True)):
        row = got[9 * i : 9 * i + 9]
        # Montgomery inputs x = X·R: mul(x, y) = X·Y·R = x·y·R⁻¹; inv(x) = X⁻¹·R = R²/x.
        assert row[0] == x * y * rinv % p
        assert row[1] == x * x * rinv % p
        assert row[2] == (x + y) % p and row[3] == (x - y) % p and row[4] == -x % p and row[5] == 2 * x % p
        assert row[6] == (pow(x, -1, p) * R * R % p if x else 0)
        assert row[7] == (x == y) and row[8] == (x == 0)


@numba.njit
def _fq2_ops(a: np.ndarray, b: np.ndarray, out: np.ndarray, F: object) -> None:
    like = (F.one, F.one)
    for i in range(a.shape[0] // 2):
        x, y = fd.load(a, i, like), fd.load(b, i, like)
        fd.store(out, 4 * i, fd.mul(x, y, F))
        fd.store(out, 4 * i + 1, fd.sqr(x, F))
        fd.store(out, 4 * i + 2, fd.inv(x, F))
        fd.store(out, 4 * i + 3, fd.from_mont(fd.to_mont(x, F), F))


@pytest.mark.parametrize("curve", CURVES, ids=lambda c: c.name)
def test_fq2_against_the_reference_tower(curve: Curve) -> None:
    fq = curve_params(curve).fq
    rng = random.Random(curve.name)
    pairs = [(rng.randrange(curve.q), rng.randrange(curve.q)) for _ in range(12)] + [(1, 0), (0, 1), (0, 0)]
    others = [(rng.randrange(curve.q), rng.randrange(curve.q)) for _ in pairs]
    mont = [fq.to_mont(c) for pair in pairs for c in pair]
    a = limbs.ints_to_limbs(mont, fq.n)
    b = limbs.ints_to_limbs([fq.to_mont(c) for pair in others for c in pair], fq.n)
    out = np.zeros((4 * len(pairs) * 2, fq.n), np.uint64)
    _fq2_ops(a, b, out, fq.consts)
    got = limbs.limbs_to_ints(out)
    rinv = pow(fq.R, -1, curve.q)

    def element(k: int) -> object:
        return curve.Fq2(got[2 * k] * rinv, got[2 * k + 1] * rinv)

    for i, (x, y) in enumerate(zip(pairs, others, strict=True)):
        X, Y = curve.Fq2(*x), curve.Fq2(*y)
        assert element(4 * i) == X * Y
        assert element(4 * i + 1) == X.square()
        assert element(4 * i + 2) == (X.inverse() if x != (0, 0) else curve.Fq2.zero())
        assert got[8 * i + 6 : 8 * i + 8] == [fq.to_mont(x[0]), fq.to_mont(x[1])]


@numba.njit
def _group_law(pts: np.ndarray, out: np.ndarray, F: object) -> None:
    """From affine P, Q (elements 0–3): P + P, P + (−P), O + P, P + Q (XYZZ), 2P, 3P, to affine."""
    like = F.one
    x1, y1, x2, y2 = fd.load(pts, 0, like), fd.load(pts, 1, like), fd.load(pts, 2, like), fd.load(pts, 3, like)
    P, Q = ec.from_affine(x1, y1, F), ec.from_affine(x2, y2, F)
    minus_P = ec.from_affine(x1, fd.neg(y1, F), F)
    results = (
        ec.add_affine(P, x1, y1, F),
        ec.add_xyzz(P, minus_P, F),
        ec.add_affine(ec.identity(like), x1, y1, F),
        ec.add_xyzz(P, Q, F),
        ec.add_xyzz(P, P, F),
        ec.times(P, 3, F),
        ec.double(ec.identity(like), F),
    )
    for k in range(len(results)):
        x, y = ec.to_affine(results[k], F)
        fd.store(out, 2 * k, fd.from_mont(x, F))
        fd.store(out, 2 * k + 1, fd.from_mont(y, F))


@pytest.mark.parametrize("curve", CURVES, ids=lambda c: c.name)
def test_xyzz_exceptional_cases(curve: Curve) -> None:
    fq, G = curve_params(curve).fq, curve.g1.generator
    P, Q = G * 5, G * 11
    coords = [c.value for pt in (P, Q) for c in pt.to_affine()]
    pts = limbs.ints_to_limbs([fq.to_mont(v) for v in coords], fq.n)
    out = np.zeros((14, fq.n), np.uint64)
    _group_law(pts, out, fq.consts)
    got = [limbs.limbs_to_point(curve, "g1", out[2 * k : 2 * k + 2]) for k in range(7)]
    O = curve.g1.identity()
    assert got == [P.double(), O, P, P + Q, P.double(), P * 3, O]


@pytest.mark.parametrize("window", [1, 2, 3, 5, 8, 13, 16, 17, 31, 32])
def test_signed_digits_are_the_references(window: int) -> None:
    """window_bits + signed_carries + digit reproduce reference.msm.signed_digits for every window."""
    rng = random.Random(window)
    r = BLS12_381.r
    ks = [0, 1, r - 1, r - 2, 2**254] + [rng.randrange(r) for _ in range(40)]
    ks += [(2**window - 1) * sum(2 ** (window * t) for t in range(256 // window)) % r]  # all-ones windows
    scalars = limbs.ints_to_limbs(ks, 4)
    w = window_count(r.bit_length(), window)
    carries = np.zeros((len(ks), w + 1), np.uint8)
    nonzero = np.zeros(w, np.int64)
    signed.signed_carries(scalars, window, w, 0, len(ks), carries, nonzero)
    expected_nonzero = np.zeros(w, np.int64)
    for i, k in enumerate(ks):
        digits = signed_digits(k, window, w)
        assert [signed.digit(scalars, carries, i, t, window) for t in range(w)] == digits, k
        expected_nonzero += np.array(digits) != 0
    assert np.array_equal(nonzero, expected_nonzero)


@pytest.mark.parametrize("threads", [1, 2, 3, 8])
def test_plan_covers_every_busy_window_once(threads: int) -> None:
    """Tasks cover each window with digits exactly once over all points, skip empty windows, split a window that
    holds most of the work (small scalars) so every thread gets some, and are numbered window by window."""
    n = 1000
    for nonzero in ([n] * 20, [n, 0, 0, 3, 0], [0, 0, 0], [7 * n, 5, 0, 1]):
        tasks, deals = pippenger.plan(np.array(nonzero, np.int64), n, threads)
        assert sorted(int(k) for d in deals for k in d[:, 0]) == list(range(len(tasks)))
        assert list(tasks[:, 0]) == list(range(len(tasks))) and list(tasks[:, 1]) == sorted(tasks[:, 1])
        for t, work in enumerate(nonzero):
            mine = tasks[tasks[:, 1] == t]
            if not work:
                assert len(mine) == 0
                continue
            assert mine[0, 2] == 0 and mine[-1, 3] == n and all(mine[1:, 2] == mine[:-1, 3])
        if nonzero[0] > sum(nonzero) / 2 and threads > 1:
            assert len(deals) == threads


def test_plan_bounds_the_points_per_task(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(pippenger, "MAX_TASK_POINTS", 100)
    tasks, _ = pippenger.plan(np.array([1000, 1000], np.int64), 1000, 2)
    assert (tasks[:, 3] - tasks[:, 2]).max() <= 100 and len(tasks) == 20


def test_window_for_threads_grows_with_n() -> None:
    windows = [pippenger.window_for_threads(1 << k) for k in range(0, 25)]
    assert windows == sorted(windows) and windows[0] >= 1 and windows[-1] <= 20


def test_cache_stamp_covers_the_whole_package() -> None:
    """Any edit to any kernel source invalidates every cached kernel of the package (field.py is inlined IR)."""
    stamp = jit.source_fingerprint()
    assert isinstance(stamp, bytes) and len(stamp) == 32
    locator = jit._InTree.from_function(pippenger.window_sums.py_func, pippenger.__file__)
    assert locator is not None and locator.get_source_stamp() == stamp
    assert jit._InTree.from_function(random.random, random.__file__) is None


def test_import_is_cheap() -> None:
    """Importing the package (what the registry does) neither imports numba nor compiles anything."""
    code = "import sys, cuzk.backends.cpu; print('numba' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], text=True, capture_output=True, check=True)
    assert out.stdout.strip() == "False"
