"""A toy pairing setting small enough to check Groth16 by hand (bellman's "dummy engine").

The scalar field is F_p with p = 64513 = 63·2¹⁰ + 1, so it has NTT domains up to 2¹⁰ points. The "groups" G1 and G2
are the additive group (F_p, +) itself: the element written [x] stands for x times a generator, and is stored as x.
The "pairing" is multiplication, e([x], [y]) = x·y, into GT = (F_p, +). It is bilinear — e([a·x], [b·y]) = a·b·x·y —
which is all Groth16's algebra uses, so every intermediate value of a proof is a small number you can recompute on
paper. It is also utterly insecure: discrete logarithms are the identity map. It exists to teach and to test.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from cuzk.reference.errors import GroupMismatchError
from cuzk.reference.fields import PrimeFieldElement, fft_field

TOY_MODULUS = 64513
Fr = fft_field("toy.Fr", TOY_MODULUS, generator=5)


@dataclass(eq=False)
class ToyGroup:
    """(F_p, +) posing as an elliptic-curve group, with the interface of :class:`~cuzk.reference.curves.Group`."""

    name: str
    order: int = TOY_MODULUS
    cofactor: int = 1
    scalar_field: Any = Fr
    generator: ToyPoint = field(init=False, repr=False)

    def __post_init__(self) -> None:
        self.generator = ToyPoint(self, Fr.one())

    def identity(self) -> ToyPoint:
        return ToyPoint(self, Fr.zero())


class ToyPoint:
    """[x]: the group element x·generator, stored as x."""

    __slots__ = ("group", "value")

    def __init__(self, group: ToyGroup, value: Any) -> None:
        self.group, self.value = group, value

    def _check(self, other: ToyPoint) -> None:
        if other.group is not self.group:
            raise GroupMismatchError(f"cannot combine a point of {self.group.name} with one of {other.group.name}")

    def __add__(self, other: ToyPoint) -> ToyPoint:
        self._check(other)
        return ToyPoint(self.group, self.value + other.value)

    def __sub__(self, other: ToyPoint) -> ToyPoint:
        self._check(other)
        return ToyPoint(self.group, self.value - other.value)

    def __neg__(self) -> ToyPoint:
        return ToyPoint(self.group, -self.value)

    def __mul__(self, k: object) -> ToyPoint:
        if isinstance(k, PrimeFieldElement) and type(k) is not Fr:
            raise GroupMismatchError(f"a scalar of {k.NAME} cannot multiply a point of {self.group.name}")
        if not isinstance(k, (int, PrimeFieldElement)):
            return NotImplemented
        return ToyPoint(self.group, self.value * k)

    __rmul__ = __mul__

    def double(self) -> ToyPoint:
        return self + self

    def is_identity(self) -> bool:
        return self.value.is_zero()

    def normalize(self) -> ToyPoint:
        return self

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, ToyPoint):
            return NotImplemented
        self._check(other)
        return self.value == other.value

    def __hash__(self) -> int:
        return hash((self.group.name, self.value.value))

    def __repr__(self) -> str:
        return f"[{self.value.value}]"


@dataclass(eq=False)
class ToyCurve:
    """The toy setting, with the attributes of :class:`~cuzk.reference.curves.Curve` that Groth16 uses."""

    name: str = "toy"
    Fr: Any = Fr
    g1: ToyGroup = field(default_factory=lambda: ToyGroup("toy.G1"))
    g2: ToyGroup = field(default_factory=lambda: ToyGroup("toy.G2"))

    @property
    def r(self) -> int:
        return TOY_MODULUS

    def pairing(self, p: ToyPoint, q: ToyPoint) -> Any:
        """e([x]₁, [y]₂) = x·y ∈ GT = (F_p, +)."""
        if p.group is not self.g1 or q.group is not self.g2:
            raise GroupMismatchError("the toy pairing takes a point of toy.G1 and one of toy.G2")
        return p.value * q.value

    def pairing_check(self, pairs: list[tuple[ToyPoint, ToyPoint]]) -> bool:
        """Σ e(P_i, Q_i) = 0: GT is written additively here, so the "product" of pairings is a sum."""
        return sum((self.pairing(p, q) for p, q in pairs), Fr.zero()).is_zero()


TOY = ToyCurve()
