"""The vectorised Montgomery arithmetic against Python integers (the oracle), on random and edge-case values."""

from __future__ import annotations

import random

import numpy as np
import pytest

from cuzk.backends import limbs
from cuzk.formats.montgomery import CHUNK, MontgomeryField, from_montgomery, to_montgomery
from cuzk.reference.curves import BLS12_381, BN254

PRIMES = {"bn254.q": BN254.q, "bn254.r": BN254.r, "bls12_381.q": BLS12_381.q, "bls12_381.r": BLS12_381.r}


def _field(p: int) -> MontgomeryField:
    return MontgomeryField(p, 8 * limbs.limb_count(p))


def _values(p: int, rng: random.Random, count: int) -> list[int]:
    edges = [0, 1, 2, p - 1, p - 2, (p - 1) // 2, 1 << 64, (1 << 128) - 1]
    return edges + [rng.randrange(p) for _ in range(count - len(edges))]


def _columns(f: MontgomeryField, values: list[int]) -> np.ndarray:
    return f.from_limbs64(limbs.ints_to_limbs(values, f.n8 // 8))


def _ints(f: MontgomeryField, columns: np.ndarray) -> list[int]:
    return limbs.limbs_to_ints(f.to_limbs64(columns))


@pytest.fixture(params=sorted(PRIMES), ids=str)
def prime(request: pytest.FixtureRequest) -> int:
    return PRIMES[request.param]


def test_round_trip_and_form(prime: int) -> None:
    f, rng = _field(prime), random.Random(prime)
    values = _values(prime, rng, 3 * CHUNK // 2)  # more than one chunk
    canonical = limbs.ints_to_limbs(values, f.n8 // 8)
    stored = to_montgomery(f, canonical)
    assert [int.from_bytes(row.tobytes(), "little") for row in stored[:50]] == [v * f.R % prime for v in values[:50]]
    assert np.array_equal(from_montgomery(f, stored), canonical)


def test_redc_of_any_stored_value(prime: int) -> None:
    """Bytes ≥ p (not written by snarkjs, but possible in a damaged file) still reduce to t·R⁻¹ mod p."""
    f, rng = _field(prime), random.Random(1)
    values = [f.R - 1, prime, prime + 1, *(rng.randrange(f.R) for _ in range(100))]
    out = from_montgomery(f, limbs.ints_to_limbs(values, f.n8 // 8).view(np.uint8).reshape(len(values), f.n8))
    r_inv = pow(f.R, -1, prime)
    assert limbs.limbs_to_ints(out) == [v * r_inv % prime for v in values]


def test_mul(prime: int) -> None:
    f, rng = _field(prime), random.Random(2)
    a, b = _values(prime, rng, 300), _values(prime, rng, 300)[::-1]
    product = f.canonical(f.mul(_columns(f, a), _columns(f, b)))
    r_inv = pow(f.R, -1, prime)
    assert _ints(f, product) == [x * y * r_inv % prime for x, y in zip(a, b, strict=True)]
    by_constant = f.canonical(f.mul(_columns(f, a), f.constant(12345)))
    assert _ints(f, by_constant) == [x * 12345 * r_inv % prime for x in a]


@pytest.mark.parametrize("p", [BN254.q, BLS12_381.q], ids=["bn254.q", "bls12_381.q"])
def test_lazy_add_sub_equal(p: int) -> None:
    f, rng = _field(p), random.Random(3)
    a = _values(p, rng, 200)
    b = [rng.randrange(2 * p) for _ in a]  # inputs below 2p are allowed
    ca, cb = _columns(f, a), _columns(f, b)
    assert _ints(f, f.canonical(f.add(ca, cb))) == [(x + y) % p for x, y in zip(a, b, strict=True)]
    assert _ints(f, f.canonical(f.sub(ca, cb))) == [(x - y) % p for x, y in zip(a, b, strict=True)]
    assert f.equal(ca, _columns(f, [x + p if x < p else x for x in a])).all()
    assert f.is_canonical(ca).all()
    assert not f.is_canonical(_columns(f, [p, p + 1, 2 * p - 1])).any()


def test_lazy_operations_refused_when_r_is_too_large() -> None:
    f = _field(BLS12_381.r)  # 255 bits: sums of two values < 2r overflow 256 bits
    column = _columns(f, [1])
    with pytest.raises(ValueError, match="R/4"):
        f.add(column, column)


def test_modulus_checks() -> None:
    with pytest.raises(ValueError):
        MontgomeryField(BN254.q, 24)
    with pytest.raises(ValueError):
        MontgomeryField(1 << 255, 32)
