"""The reference NTT against galois, against its own O(n²) oracle and against polynomial evaluation."""

from __future__ import annotations

import random

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from cuzk.reference.curves import BLS12_381, BN254, Curve
from cuzk.reference.errors import DomainTooLargeError, FieldMismatchError, SizeMismatchError
from cuzk.reference.fields import FftFieldElement, fft_field
from cuzk.reference.ntt import bit_reverse_permutation, dft, domain_root, ntt, vanishing_on_coset

galois = pytest.importorskip("galois")

GALOIS_MODE = "python-calculate"  # galois's pure-Python field arithmetic (see galois_field)
TOY = fft_field("toy.Fr", 64513, generator=5)  # bellman's toy field: 64512 = 2^10 · 63, so S = 10
FIELDS = [BLS12_381.Fr, BN254.Fr, TOY]
MODES = [(False, False), (True, False), (False, True), (True, True)]  # (inverse, coset)
field_ids = [f.NAME for f in FIELDS]
mode_ids = ["forward", "inverse", "coset-forward", "coset-inverse"]


def random_vector(field: type[FftFieldElement], n: int, rng: random.Random) -> list[FftFieldElement]:
    return [field(rng.randrange(field.MODULUS)) for _ in range(n)]


def horner(coefficients: list[FftFieldElement], x: FftFieldElement) -> FftFieldElement:
    """Σ_j c_j x^j by Horner's rule."""
    acc = type(x).zero()
    for c in reversed(coefficients):
        acc = acc * x + c
    return acc


def galois_field(field: type[FftFieldElement]) -> type:
    """GF(p) in galois with the same multiplicative generator g, so that galois's ω_n = g^((p−1)/n) is ours.

    For BLS12-381 and BN254, g (7 and 5) is the smallest primitive root, the one galois finds itself by factoring
    p − 1; that search takes minutes for a 255-bit p, so g is passed in and not verified. Its arithmetic in pure
    Python, as galois always does it for 255-bit primes: for the toy field galois would otherwise build numba
    lookup-table kernels, about 4.5 s in each test process, for vectors of at most 2^10 values.
    """
    return galois.GF(field.MODULUS, primitive_element=int(field.GENERATOR), verify=False, compile=GALOIS_MODE)


# --- against galois --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("field", FIELDS, ids=field_ids)
@pytest.mark.parametrize("log_n", range(11))
def test_ntt_matches_galois(field: type[FftFieldElement], log_n: int) -> None:
    n = 1 << log_n
    gf = galois_field(field)
    assert int(gf.primitive_root_of_unity(n)) == domain_root(field, n).value
    rng = random.Random(f"galois-{field.NAME}-{n}")
    values = random_vector(field, n, rng)
    x = gf([v.value for v in values])
    # np.fft on a galois array is galois's NTT over that field; galois.ntt(x) would rebuild GF(p) without g.
    assert [v.value for v in ntt(values)] == [int(y) for y in np.fft.fft(x)]
    assert [v.value for v in ntt(values, inverse=True)] == [int(y) for y in np.fft.ifft(x)]


# --- against the definition ------------------------------------------------------------------------------------


@pytest.mark.parametrize("field", FIELDS, ids=field_ids)
@pytest.mark.parametrize(("inverse", "coset"), MODES, ids=mode_ids)
@pytest.mark.parametrize("log_n", range(7))
def test_ntt_matches_dft(field: type[FftFieldElement], inverse: bool, coset: bool, log_n: int) -> None:
    rng = random.Random(f"dft-{field.NAME}-{log_n}-{inverse}-{coset}")
    values = random_vector(field, 1 << log_n, rng)
    assert ntt(values, inverse=inverse, coset=coset) == dft(values, inverse=inverse, coset=coset)


def test_dft_small_example_by_hand() -> None:
    """n = 2 over the toy field: ω_2 = −1, so A = (a0 + a1, a0 − a1); on the coset 5·H: (a0 + 5a1, a0 − 5a1)."""
    a = [TOY(3), TOY(10)]
    assert dft(a) == [TOY(13), TOY(-7)]
    assert dft(a, coset=True) == [TOY(53), TOY(-47)]
    assert dft(dft(a), inverse=True) == a


@pytest.mark.parametrize("field", FIELDS, ids=field_ids)
@pytest.mark.parametrize("log_n", [0, 1, 2, 3, 5, 8])
def test_inverse_undoes_forward(field: type[FftFieldElement], log_n: int) -> None:
    rng = random.Random(f"roundtrip-{field.NAME}-{log_n}")
    values = random_vector(field, 1 << log_n, rng)
    assert ntt(ntt(values), inverse=True) == values
    assert ntt(ntt(values, inverse=True)) == values
    assert ntt(ntt(values, coset=True), inverse=True, coset=True) == values
    assert ntt(ntt(values, inverse=True, coset=True), coset=True) == values


@given(data=st.data())
@pytest.mark.parametrize("field", FIELDS, ids=field_ids)
def test_forward_is_evaluation(field: type[FftFieldElement], data: st.DataObject) -> None:
    """ntt(a)_i = a(ω^i) and ntt(a, coset=True)_i = a(g·ω^i), for the polynomial a(X) = Σ_j a_j X^j."""
    n = 1 << data.draw(st.integers(0, 5), label="log_n")
    values = [field(v) for v in data.draw(st.lists(st.integers(0, field.MODULUS - 1), min_size=n, max_size=n))]
    omega, g = domain_root(field, n), field.GENERATOR
    assert ntt(values) == [horner(values, omega**i) for i in range(n)]
    assert ntt(values, coset=True) == [horner(values, g * omega**i) for i in range(n)]


def test_coset_interpolation_recovers_a_polynomial() -> None:
    """Values of p(X) = 1 + 2X + 3X² on g·H (n = 4) interpolate back to (1, 2, 3, 0)."""
    field = BN254.Fr
    coefficients = [field(1), field(2), field(3), field(0)]
    omega, g = domain_root(field, 4), field.GENERATOR
    values = [horner(coefficients, g * omega**i) for i in range(4)]
    assert ntt(values, inverse=True, coset=True) == coefficients


def test_linearity() -> None:
    rng = random.Random("linearity")
    field = BLS12_381.Fr
    a, b = random_vector(field, 16, rng), random_vector(field, 16, rng)
    s = field(rng.randrange(field.MODULUS))
    for inverse, coset in MODES:
        lhs = ntt([x + s * y for x, y in zip(a, b, strict=True)], inverse=inverse, coset=coset)
        fa, fb = ntt(a, inverse=inverse, coset=coset), ntt(b, inverse=inverse, coset=coset)
        assert lhs == [x + s * y for x, y in zip(fa, fb, strict=True)]


# --- domains ---------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("field", FIELDS, ids=field_ids)
def test_domain_roots_are_primitive(field: type[FftFieldElement]) -> None:
    s = field.TWO_ADICITY
    for log_n in [0, 1, 2, s - 1, s]:
        n = 1 << log_n
        omega = domain_root(field, n)
        assert omega**n == 1
        assert n == 1 or omega ** (n // 2) == -1  # so no smaller power is 1: the order is exactly n
    assert domain_root(field, 1 << s) == field.ROOT_OF_UNITY


def test_two_adicities() -> None:
    assert (BLS12_381.Fr.TWO_ADICITY, BN254.Fr.TWO_ADICITY, TOY.TWO_ADICITY) == (32, 28, 10)


def test_toy_field_full_domain() -> None:
    """The largest domain of the toy field, 2^10 points, against galois (the toy field's g = 5 is verified there)."""
    n = 1 << TOY.TWO_ADICITY
    rng = random.Random("toy-full")
    values = random_vector(TOY, n, rng)
    gf = galois.GF(TOY.MODULUS, compile=GALOIS_MODE)
    assert int(gf.primitive_element) == TOY.GENERATOR.value
    x = gf([v.value for v in values])
    assert [v.value for v in ntt(values)] == [int(y) for y in galois.ntt(x)]
    assert ntt(ntt(values, coset=True), inverse=True, coset=True) == values
    assert ntt(values)[1] == horner(values, domain_root(TOY, n))


@pytest.mark.parametrize("field", FIELDS, ids=field_ids)
def test_vanishing_polynomial_on_domain_and_coset(field: type[FftFieldElement]) -> None:
    n = 8
    omega, g = domain_root(field, n), field.GENERATOR
    assert all((omega**i) ** n - 1 == 0 for i in range(n))
    z = vanishing_on_coset(field, n)
    assert z == g**n - 1 and not z.is_zero()
    assert all((g * omega**i) ** n - 1 == z for i in range(n))


def test_bit_reverse_permutation() -> None:
    assert bit_reverse_permutation([]) == []
    assert bit_reverse_permutation(["a"]) == ["a"]
    assert bit_reverse_permutation(list(range(8))) == [0, 4, 2, 6, 1, 5, 3, 7]
    values = list(range(64))
    assert bit_reverse_permutation(bit_reverse_permutation(values)) == values
    with pytest.raises(SizeMismatchError):
        bit_reverse_permutation([1, 2, 3])


# --- edge cases and errors -------------------------------------------------------------------------------------


@pytest.mark.parametrize(("inverse", "coset"), MODES, ids=mode_ids)
def test_empty_and_single(inverse: bool, coset: bool, curve: Curve) -> None:
    assert ntt([], inverse=inverse, coset=coset) == []
    assert dft([], inverse=inverse, coset=coset) == []
    x = curve.Fr(12345)  # n = 1: ω = 1, n⁻¹ = 1 and g^0 = 1, so every mode is the identity
    assert ntt([x], inverse=inverse, coset=coset) == [x] == dft([x], inverse=inverse, coset=coset)


def test_input_not_modified(curve: Curve) -> None:
    values = [curve.Fr(i) for i in range(8)]
    copy = list(values)
    ntt(values, coset=True)
    ntt(values, inverse=True, coset=True)
    assert values == copy


@pytest.mark.parametrize("n", [0, 3, 5, 6, 12, 100])
def test_not_a_power_of_two(n: int) -> None:
    with pytest.raises(SizeMismatchError, match="power-of-two"):
        domain_root(BN254.Fr, n)
    if n:
        with pytest.raises(SizeMismatchError):
            ntt([BN254.Fr(1)] * n)
        with pytest.raises(SizeMismatchError):
            dft([BN254.Fr(1)] * n)


def test_domain_too_large() -> None:
    for field in FIELDS:
        with pytest.raises(DomainTooLargeError, match=str(field.TWO_ADICITY)):
            domain_root(field, 1 << (field.TWO_ADICITY + 1))
    with pytest.raises(DomainTooLargeError):
        vanishing_on_coset(BN254.Fr, 1 << 29)
    too_many = [TOY(1)] * (1 << 11)
    with pytest.raises(DomainTooLargeError):
        ntt(too_many)
    with pytest.raises(DomainTooLargeError):
        ntt(too_many, inverse=True, coset=True)


def test_values_must_share_one_fft_field() -> None:
    with pytest.raises(FieldMismatchError):
        ntt([BN254.Fr(1), BLS12_381.Fr(1)])
    with pytest.raises(FieldMismatchError):
        ntt([1, 2])
    with pytest.raises(FieldMismatchError):
        dft([BN254.Fq(1), BN254.Fq(2)])
