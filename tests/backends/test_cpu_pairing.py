"""The cpu backend's pairing (cuzk.backends.cpu.pairing) inside: the Miller steps against the reference's line,
every constant recomputed from the curve independently, the module's shape checks. Values and checks against the
reference, on every backend with PAIRING: tests/backends/test_pairing.py."""

from __future__ import annotations

import itertools
import math
from typing import Any

import numba
import numpy as np
import pytest

from cuzk.backends import limbs
from cuzk.backends.cpu import pairing as cp
from cuzk.backends.cpu.params import curve_params
from cuzk.backends.cpu.tower import fq2_mont, tower_consts
from cuzk.backends.errors import InputShapeError
from cuzk.reference import pairing as rp
from cuzk.reference.curves import BLS12_381, BN254, Curve

CURVES = [BN254, BLS12_381]
by_name = pytest.mark.parametrize("curve", CURVES, ids=lambda c: c.name)


def decode(curve: Curve, element: Any) -> Any:
    """A Montgomery-form Fq2 tuple of limbs as a reference Fq2 element."""
    fq = curve_params(curve).fq
    r_inv = pow(fq.R, -1, curve.q)
    c0, c1 = (limbs.limbs_to_int(np.array(part, dtype=np.uint64)) * r_inv % curve.q for part in element)
    return curve.Fq2(c0, c1)


# --- constants, recomputed here -------------------------------------------------------------------------------


@by_name
def test_constants_are_the_curves(curve: Curve) -> None:
    """Frobenius γ's, π's constants, 3b', the loop's digits and the hard part's programs, each recomputed."""
    consts = cp.pairing_consts(curve)
    assert [decode(curve, g) for g in tower_consts(curve).frob] == curve.Fq12.FROBENIUS_GAMMAS
    assert decode(curve, consts.b3) == curve.g2.b + curve.g2.b + curve.g2.b
    x, y = (curve.g2.generator * 5).to_affine()
    pi = (x.conjugate() * decode(curve, consts.pi_x), y.conjugate() * decode(curve, consts.pi_y))
    assert pi == rp.twist_frobenius(curve, x, y)
    digits = [int(d) for d in consts.loop]
    assert sum(d << i for i, d in enumerate(reversed(digits))) == rp.ate_loop_count(curve)
    assert all(a == 0 or b == 0 for a, b in itertools.pairwise(digits))  # non-adjacent form

    def value(row: np.ndarray) -> int:
        return sum(int(d) << i for i, d in enumerate(reversed(row.tolist())))

    programs, n = consts.powers, consts.n_pre
    m = math.prod(value(programs[k][0]) for k in range(n))
    assert value(programs[n][0]) == curve.x
    c = [[value(programs[n + 1 + i][j]) for j in range(4)] for i in range(4)]
    q = curve.q
    total = m * sum(c[i][j] * curve.x**j * q**i for i in range(4) for j in range(4)) + consts.extra
    assert total == (q**4 - q**2 + 1) // curve.r


@numba.njit
def _steps(t: Any, C: Any) -> Any:
    """2T, T + Q with Q = T (the tangent's fallback), and 2T + Q, each with its line."""
    s = cp.doubling_step(t, C)
    return s, cp.addition_step(t, t[0], t[1], C), cp.addition_step((s[0], s[1], s[2]), t[0], t[1], C)


@by_name
def test_steps_follow_the_reference(curve: Curve) -> None:
    """The projective steps land on 2Q and 3Q, and their lines are the reference's line_at up to a factor."""
    consts = cp.pairing_consts(curve)
    fq = curve_params(curve).fq
    q_point = curve.g2.generator * 11
    x, y = q_point.to_affine()
    t = (fq2_mont(fq, x), fq2_mont(fq, y), fq2_mont(fq, curve.Fq2.one()))
    doubled, same, added = _steps(t, consts)
    assert same == doubled
    for s, multiple, (x_t, y_t), slope in (
        (doubled, 2, (x, y), (x.square() * 3) / y.double()),
        (added, 3, (q_point * 2).to_affine(), None),
    ):
        X, Y, Z, l0, lx, ly = (decode(curve, e) for e in s)
        assert (q_point * multiple).to_affine() == (X / Z, Y / Z)
        slope = slope if slope is not None else (y - y_t) / (x - x_t)
        assert (lx / ly, l0 / ly) == (-slope, slope * x_t - y_t)  # line_at's coefficients, divided by ℓy's


def test_shapes_are_checked() -> None:
    with pytest.raises(InputShapeError):
        cp.pairing_check(BN254, np.zeros((2, 2, 4), np.uint64), np.zeros((1, 2, 2, 4), np.uint64))
    with pytest.raises(InputShapeError):
        cp.pairing_check(BN254, np.zeros((1, 2, 6), np.uint64), np.zeros((1, 2, 2, 6), np.uint64))
