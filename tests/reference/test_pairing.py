"""The optimal ate pairing: equal to py_ecc's, bilinear, non-degenerate, and the fast final exponentiation equal
to its definition."""

from __future__ import annotations

import pytest

from cuzk.reference.curves import BLS12_381, Curve
from cuzk.reference.errors import GroupMismatchError
from cuzk.reference.pairing import final_exponentiation, final_exponentiation_naive, miller_loop, pairing

from ._py_ecc import fq12_to_py, module, to_py


def test_pairing_equals_py_ecc(curve: Curve, rng) -> None:
    """On random inputs. py_ecc's BLS12-381 Miller loop runs over |x| and skips the inversion that x < 0 calls for
    (arkworks and blst do it), so there py_ecc's value is the inverse of the standard one, ours."""
    m = module(curve)
    for _ in range(2):
        p = curve.g1.generator * rng.randrange(1, curve.r)
        q = curve.g2.generator * rng.randrange(1, curve.r)
        ours = pairing(curve, p, q)
        expected = ours.inverse() if curve is BLS12_381 else ours
        theirs = m.pairing(to_py(q), to_py(p))
        assert fq12_to_py(curve, expected) == [int(c) for c in theirs.coeffs]


def test_bilinear_and_non_degenerate(curve: Curve, rng) -> None:
    p, q = curve.g1.generator, curve.g2.generator
    a, b = rng.randrange(1, curve.r), rng.randrange(1, curve.r)
    e = pairing(curve, p, q)
    one = curve.Fq12.one()
    assert e != one and e**curve.r == one
    assert pairing(curve, p * a, q * b) == e ** (a * b % curve.r)
    assert pairing(curve, p * a, q) == pairing(curve, p, q * a)
    assert pairing(curve, p + p * a, q) == e * pairing(curve, p * a, q)
    assert pairing(curve, curve.g1.identity(), q) == one and pairing(curve, p, curve.g2.identity()) == one


def test_pairing_check(curve: Curve, rng) -> None:
    p, q = curve.g1.generator, curve.g2.generator
    a, b = rng.randrange(1, curve.r), rng.randrange(1, curve.r)
    assert curve.pairing_check([(p * a, q * b), (-(p * (a * b)), q)])
    assert not curve.pairing_check([(p * a, q * b), (-(p * (a * b + 1)), q)])
    assert curve.pairing_check([])


def test_final_exponentiation_equals_definition(curve: Curve, rng) -> None:
    p = curve.g1.generator * rng.randrange(1, curve.r)
    f = miller_loop(curve, p, curve.g2.generator)
    assert final_exponentiation(curve, f) == final_exponentiation_naive(curve, f)


def test_pairing_refuses_wrong_groups(curve: Curve) -> None:
    with pytest.raises(GroupMismatchError):
        pairing(curve, curve.g2.generator, curve.g1.generator)
