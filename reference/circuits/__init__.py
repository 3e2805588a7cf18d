"""Example circuits, each a family sized by one integer so that benchmarks can ask for about N constraints.

| family | size means                  | constraints                                   | public inputs |
|--------|-----------------------------|-----------------------------------------------|---------------|
| cubic  | steps of x ↦ x³ + x + 5     | 4·size                                        | 1 (~out)      |
| bits   | private u64 values          | 65·size + 1 (16·size + 1 on the toy field)    | 1 (their sum) |
| mimc   | chained MiMC permutations   | 3R·size + 1                                   | 1 (output)    |
| merkle | depth of the inclusion path | (3R + 2)·size + 1                             | 1 (root)      |

R is the number of MiMC rounds: 110 on BN254 and BLS12-381 (330 constraints a permutation), 7 on the toy field.
Every count is affine in size, a·size + b, and :meth:`CircuitFamily.size_for_constraints` inverts it. The witness is
computed during synthesis from a ``random.Random``, so a seed fixes the whole system.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass

from cuzk.reference.circuits.bits import WIDTH, synthesize_range_checks, width_for
from cuzk.reference.circuits.cubic import synthesize_cubic
from cuzk.reference.circuits.merkle import random_merkle_path, synthesize_merkle
from cuzk.reference.circuits.mimc import MiMC, synthesize_mimc_chain
from cuzk.reference.errors import CuzkError
from cuzk.reference.fields.prime_field import PrimeFieldElement
from cuzk.reference.r1cs import ConstraintSystem

Field = type[PrimeFieldElement]


@dataclass(frozen=True)
class CircuitFamily:
    """A circuit sized by ``size`` ≥ 1: ``synthesize(cs, size, rng)`` allocates and constrains it with its witness;
    ``num_constraints(size, field)`` is the exact count it produces."""

    name: str
    description: str
    synthesize: Callable[[ConstraintSystem, int, random.Random], object]
    num_constraints: Callable[[int, Field], int]

    def size_for_constraints(self, target: int, field: Field) -> int:
        """The size whose constraint count a·size + b is nearest to ``target`` (at least 1)."""
        b = 2 * self.num_constraints(1, field) - self.num_constraints(2, field)
        a = self.num_constraints(1, field) - b
        return max(1, round((target - b) / a))


def _cubic(cs: ConstraintSystem, size: int, rng: random.Random) -> None:
    synthesize_cubic(cs, rng.randrange(cs.field.MODULUS), steps=size)


def _bits(cs: ConstraintSystem, size: int, rng: random.Random) -> None:
    width = width_for(cs.field)
    synthesize_range_checks(cs, [rng.getrandbits(width) for _ in range(size)], width)


def _mimc(cs: ConstraintSystem, size: int, rng: random.Random) -> None:
    r = cs.field.MODULUS
    synthesize_mimc_chain(cs, MiMC.for_field(cs.field), rng.randrange(r), rng.randrange(r), size)


def _merkle(cs: ConstraintSystem, size: int, rng: random.Random) -> None:
    params = MiMC.for_field(cs.field)
    path, root = random_merkle_path(params, size, rng)
    synthesize_merkle(cs, params, path, root)


def _per_permutation(field: Field) -> int:
    return MiMC.for_field(field).constraints_per_permutation


CIRCUITS: dict[str, CircuitFamily] = {
    f.name: f
    for f in (
        CircuitFamily(
            "cubic",
            "x³ + x + 5 = ~out iterated `size` times (size 1: the QAP article's 4 constraints)",
            _cubic,
            lambda size, field: 4 * size,
        ),
        CircuitFamily(
            "bits",
            f"`size` private values, each range-checked to {WIDTH} bits (fewer on a small field), and their public sum",
            _bits,
            lambda size, field: (width_for(field) + 1) * size + 1,
        ),
        CircuitFamily(
            "mimc",
            "a chain of `size` MiMC permutations with a private input and key and a public output",
            _mimc,
            lambda size, field: _per_permutation(field) * size + 1,
        ),
        CircuitFamily(
            "merkle",
            "a MiMC Merkle inclusion proof of depth `size`: public root, private leaf and path",
            _merkle,
            lambda size, field: (_per_permutation(field) + 2) * size + 1,
        ),
    )
}


def family(name: str) -> CircuitFamily:
    """The family called ``name``; raises CuzkError listing the known ones."""
    if name not in CIRCUITS:
        raise CuzkError(f"unknown circuit {name!r}; known circuits: {', '.join(CIRCUITS)}")
    return CIRCUITS[name]


def build(
    name: str,
    field: Field,
    *,
    size: int | None = None,
    target_constraints: int | None = None,
    seed: int | str = 0,
    check: bool = True,
) -> ConstraintSystem:
    """A constraint system of the family ``name`` over ``field`` with its witness, from ``seed``.

    Give either ``size`` or ``target_constraints`` (the size is then chosen to come nearest). With ``check`` the
    witness is verified (:meth:`ConstraintSystem.check_satisfied`) before the system is returned.
    """
    circuit = family(name)
    if (size is None) == (target_constraints is None):
        raise CuzkError("give exactly one of size and target_constraints")
    if size is None:
        size = circuit.size_for_constraints(target_constraints, field)  # type: ignore[arg-type]
    if size < 1:
        raise CuzkError(f"size must be at least 1, got {size}")
    cs = ConstraintSystem(field)
    circuit.synthesize(cs, size, random.Random(seed))
    if check:
        cs.check_satisfied()
    return cs


__all__ = ["CIRCUITS", "CircuitFamily", "build", "family"]
