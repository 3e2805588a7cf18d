"""Constants of the cpu backend, computed from the reference's curve objects (never pasted).

Field elements live in Montgomery form a·R mod p, R = 2^(64·N), N the limb count (4 for Fr and BN254's Fq, 6 for
BLS12-381's Fq). The kernels receive a :class:`FieldConsts` namedtuple of limb tuples: numba types it as a tuple of
``UniTuple(uint64, N)``, so N is a compile-time constant and every limb loop is unrolled.

The addition without a carry word needs p to leave a spare top bit (a + b < 2p < 2^(64·N)): true of both moduli of
both curves, checked here so that a new curve fails loudly instead of computing garbage.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from typing import NamedTuple

import numpy as np

from cuzk.backends import limbs
from cuzk.reference.curves import Curve
from cuzk.reference.errors import ParameterError


class FieldConsts(NamedTuple):
    """What the field kernels of one prime field need; every tuple holds N little-endian uint64 limbs."""

    p: tuple[np.uint64, ...]
    pinv: np.uint64  # −p⁻¹ mod 2^64
    one: tuple[np.uint64, ...]  # R mod p: 1 in Montgomery form
    r2: tuple[np.uint64, ...]  # R² mod p: mont_mul(a, r2) = a·R, into Montgomery form
    pm2: tuple[np.uint64, ...]  # p − 2: the exponent of Fermat inversion


def limb_tuple(value: int, n: int) -> tuple[np.uint64, ...]:
    """``value`` as n little-endian uint64 limbs (numpy scalars, so numba types the tuple as UniTuple(uint64, n))."""
    return tuple(np.uint64((value >> (64 * i)) & (2**64 - 1)) for i in range(n))


@dataclass(frozen=True)
class FieldParams:
    """A prime field F_p in Montgomery form with R = 2^(64·N)."""

    modulus: int
    n: int

    @property
    def R(self) -> int:
        return pow(2, 64 * self.n, self.modulus)

    def to_mont(self, value: int) -> int:
        """value·R mod p."""
        return value * self.R % self.modulus

    def mont_tuple(self, value: int) -> tuple[np.uint64, ...]:
        """The Montgomery form of ``value`` as limbs."""
        return limb_tuple(self.to_mont(value), self.n)

    def mont_limbs(self, values: list[int]) -> np.ndarray:
        """(len(values), N) limbs of the Montgomery forms of ``values``."""
        return limbs.ints_to_limbs([self.to_mont(v) for v in values], self.n)

    @property
    def consts(self) -> FieldConsts:
        p, n = self.modulus, self.n
        return FieldConsts(
            p=limb_tuple(p, n),
            pinv=np.uint64((-pow(p, -1, 2**64)) % 2**64),
            one=limb_tuple(self.R, n),
            r2=limb_tuple(self.R * self.R % p, n),
            pm2=limb_tuple(p - 2, n),
        )


def field_params(modulus: int) -> FieldParams:
    """The Montgomery parameters of F_modulus; raises ParameterError unless the modulus is odd (Montgomery form
    needs p coprime to 2^64) and leaves the spare top bit the kernels' additions rely on."""
    n = limbs.limb_count(modulus)
    if modulus % 2 == 0 or modulus >> (64 * n - 1):
        raise ParameterError(f"modulus {modulus:#x} must be odd and below 2^{64 * n - 1} for the cpu kernels")
    return FieldParams(modulus, n)


@dataclass(frozen=True)
class CurveParams:
    """Everything the cpu kernels take from one curve."""

    name: str
    fq: FieldParams
    fr: FieldParams
    two_adicity: int
    generator: int  # g = Fr.GENERATOR: the coset shift
    root_of_unity: int  # of order 2^S in Fr

    def domain_root(self, n: int) -> int:
        """ω_n = ROOT_OF_UNITY^(2^S / n), as :func:`cuzk.reference.ntt.domain_root` defines it."""
        return pow(self.root_of_unity, (1 << self.two_adicity) // n, self.fr.modulus)


@cache
def curve_params(curve: Curve) -> CurveParams:
    """The parameters of ``curve``; checks the Fq2 the kernels hard-wire (u² = −1) is the reference's."""
    u = curve.Fq2(0, 1)
    if u * u != curve.Fq2(curve.q - 1, 0):
        raise ParameterError(f"{curve.name}: the cpu backend's Fq2 kernels need Fq2 = Fq[u]/(u² + 1)")
    Fr = curve.Fr
    return CurveParams(
        name=curve.name,
        fq=field_params(curve.q),
        fr=field_params(curve.r),
        two_adicity=Fr.TWO_ADICITY,
        generator=Fr.GENERATOR.value,
        root_of_unity=Fr.ROOT_OF_UNITY.value,
    )


__all__ = ["CurveParams", "FieldConsts", "FieldParams", "curve_params", "field_params", "limb_tuple"]
