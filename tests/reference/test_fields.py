"""Field laws (hypothesis), square roots, the Frobenius, and the refusal to mix fields."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from cuzk.reference.curves import BLS12_381, BN254, Curve
from cuzk.reference.errors import FieldMismatchError, NotASquareError, NotInvertibleError
from cuzk.reference.fields import fft_field, prime_field

CURVES = [BLS12_381, BN254]
ints = st.integers(min_value=0, max_value=2**400)


def base_fields(curve: Curve) -> list[type]:
    return [curve.Fq, curve.Fr]


@pytest.mark.parametrize("curve", CURVES, ids=lambda c: c.name)
@given(a=ints, b=ints, c=ints)
def test_prime_field_laws(curve: Curve, a: int, b: int, c: int) -> None:
    for field in base_fields(curve):
        x, y, z = field(a), field(b), field(c)
        assert x + y == y + x and x * y == y * x
        assert (x + y) + z == x + (y + z) and (x * y) * z == x * (y * z)
        assert x * (y + z) == x * y + x * z
        assert x - x == field.zero() and x + (-x) == 0
        assert x * field.one() == x and x.square() == x * x
        if x:
            assert x * x.inverse() == 1 and (y / x) * x == y
        assert (x**5).value == pow(a, 5, field.MODULUS)


def _fq2(curve: Curve, a: int, b: int):
    return curve.Fq2(a, b)


@pytest.mark.parametrize("curve", CURVES, ids=lambda c: c.name)
@given(a=ints, b=ints, c=ints, d=ints)
def test_fq2_laws_and_sqrt(curve: Curve, a: int, b: int, c: int, d: int) -> None:
    x, y = curve.Fq2(a, b), curve.Fq2(c, d)
    assert x * y == y * x and x.square() == x * x
    if x:
        assert x * x.inverse() == curve.Fq2.one()
    s = x.square()
    root = s.sqrt()
    assert root.square() == s
    assert x.frobenius() == x**curve.q


def _random_fq12(curve: Curve, rng) -> object:
    fq2 = [curve.Fq2(rng.randrange(curve.q), rng.randrange(curve.q)) for _ in range(6)]
    return curve.Fq12.from_w_coefficients(fq2)


def test_fq12_inverse_square_frobenius(curve: Curve, rng) -> None:
    a, b = _random_fq12(curve, rng), _random_fq12(curve, rng)
    one = curve.Fq12.one()
    assert a * a.inverse() == one
    assert a.square() == a * a
    assert (a * b).frobenius() == a.frobenius() * b.frobenius()
    assert a.frobenius(1) == a**curve.q  # the Frobenius constants computed from ξ are right
    assert a.frobenius(6) == a.conjugate()
    assert a.frobenius(12) == a
    six = curve.Fq6(*[curve.Fq2(rng.randrange(curve.q), 1) for _ in range(3)])
    assert six * six.inverse() == curve.Fq6.one()


def test_sqrt_and_legendre(curve: Curve, rng) -> None:
    for field in base_fields(curve):
        for _ in range(20):
            x = field(rng.randrange(field.MODULUS))
            s = x.square()
            assert s.legendre() in (0, 1) and s.sqrt().square() == s
            assert s.sqrt().value <= (field.MODULUS - 1) // 2
        nonresidue = next(field(v) for v in range(2, 100) if field(v).legendre() == -1)
        with pytest.raises(NotASquareError):
            nonresidue.sqrt()
    nonsquare = next(curve.Fq2(v, 1) for v in range(100) if curve.Fq2(v, 1).legendre() == -1)
    with pytest.raises(NotASquareError):
        nonsquare.sqrt()


def test_fields_refuse_to_mix() -> None:
    with pytest.raises(FieldMismatchError, match=r"bls12_381\.Fr.*bls12_381\.Fq"):
        BLS12_381.Fr(1) + BLS12_381.Fq(1)
    with pytest.raises(FieldMismatchError):
        BN254.Fq(1) * BLS12_381.Fq(1)
    with pytest.raises(FieldMismatchError):
        _ = BN254.Fr(1) == BN254.Fq(1)
    with pytest.raises(FieldMismatchError):
        BN254.Fq2(1, 2) + BLS12_381.Fq2(1, 2)
    with pytest.raises(FieldMismatchError):
        BN254.Fq2(1, 2) * BLS12_381.Fq(3)
    toy_a, toy_b = prime_field("a", 7), prime_field("b", 7)
    with pytest.raises(FieldMismatchError):
        toy_a(1) + toy_b(1)  # same modulus, different fields: still refused


def test_zero_is_not_invertible(curve: Curve) -> None:
    for zero in (curve.Fq.zero(), curve.Fr.zero(), curve.Fq2.zero(), curve.Fq6.zero(), curve.Fq12.zero()):
        with pytest.raises(NotInvertibleError):
            zero.inverse()


def test_fft_field_constants(curve: Curve) -> None:
    fr = curve.Fr
    s = fr.TWO_ADICITY
    assert (fr.MODULUS - 1) % 2**s == 0 and ((fr.MODULUS - 1) >> s) % 2 == 1
    omega = fr.ROOT_OF_UNITY
    assert omega ** (2**s) == 1 and omega ** (2 ** (s - 1)) == fr.MODULUS - 1  # order exactly 2^S
    assert fr.GENERATOR.legendre() == -1
    assert {BLS12_381.Fr.TWO_ADICITY, BN254.Fr.TWO_ADICITY} == {32, 28}


def test_fft_field_rejects_a_square_generator() -> None:
    with pytest.raises(ValueError, match="square"):
        fft_field("toy", 64513, generator=4)
