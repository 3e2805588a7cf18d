"""Merkle inclusion: the leaf is in the tree of public root ``root`` at the position the path describes.

A path of depth d lists, from the leaf up, the sibling s_j of the current node and a direction bit d_j (1 when the
current node is the right child). With node hash f(left, right) = MiMC Miyaguchi–Preneel (see :mod:`.mimc`):

    cur_0 = leaf,    (left_j, right_j) = (s_j, cur_j) if d_j else (cur_j, s_j),    cur_{j+1} = f(left_j, right_j)

and the circuit enforces cur_d = root. The swap is one constraint, with left_j allocated and right_j linear:

    d_j · (s_j − cur_j) = left_j − cur_j,      right_j = cur_j + s_j − left_j

plus d_j · (1 − d_j) = 0, so a level costs 2 + R·constraints_per_round constraints, and the path d·that + 1
(the last binds the computed root to the public one).
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from cuzk.reference.circuits.bits import enforce_boolean
from cuzk.reference.circuits.mimc import MiMC, Wire, mimc_compress, mimc_compress_gadget
from cuzk.reference.fields.prime_field import PrimeFieldElement
from cuzk.reference.r1cs import ConstraintSystem, LinearCombination, Variable


@dataclass(frozen=True)
class MerklePath:
    """A leaf and its authentication path, leaf level first."""

    leaf: PrimeFieldElement
    siblings: tuple[PrimeFieldElement, ...]
    directions: tuple[int, ...]  # 1: the current node is the right child

    @property
    def depth(self) -> int:
        return len(self.siblings)


def merkle_root(params: MiMC, path: MerklePath) -> PrimeFieldElement:
    """The root the path leads to (plain Python)."""
    cur = path.leaf
    for sibling, direction in zip(path.siblings, path.directions, strict=True):
        cur = mimc_compress(params, sibling, cur) if direction else mimc_compress(params, cur, sibling)
    return cur


def random_merkle_path(params: MiMC, depth: int, rng: random.Random) -> tuple[MerklePath, PrimeFieldElement]:
    """A random leaf with random siblings and directions, and the root of the tree they describe."""
    F, r = params.field, params.field.MODULUS
    path = MerklePath(
        F(rng.randrange(r)),
        tuple(F(rng.randrange(r)) for _ in range(depth)),
        tuple(rng.randrange(2) for _ in range(depth)),
    )
    return path, merkle_root(params, path)


def merkle_root_gadget(
    cs: ConstraintSystem, params: MiMC, leaf: Wire, siblings: list[Variable], directions: list[Variable]
) -> LinearCombination:
    """The root computed from allocated leaf, siblings and direction bits (booleans enforced here)."""
    cur: Wire = leaf
    for j, (sibling, direction) in enumerate(zip(siblings, directions, strict=True)):
        with cs.namespace(f"level {j}"):
            enforce_boolean(cs, direction, "direction boolean")
            cur_value, sibling_value = cs.evaluate(cur), cs.value(sibling)
            left = cs.alloc(sibling_value if cs.value(direction).value else cur_value, "left")
            cs.enforce(direction, cs.lc(sibling).sub(cur), cs.lc(left).sub(cur), "swap")
            right = cs.lc(cur, sibling).sub_term(left)
            cur = mimc_compress_gadget(cs, params, left, right)
    return cur if isinstance(cur, LinearCombination) else cs.lc(cur)


def synthesize_merkle(
    cs: ConstraintSystem, params: MiMC, path: MerklePath, root: PrimeFieldElement | None = None
) -> Variable:
    """Public root, private leaf and path; ``root`` defaults to the path's true root (a wrong one is unsatisfied)."""
    public_root = cs.alloc_input(merkle_root(params, path) if root is None else root, "root")
    leaf = cs.alloc(path.leaf, "leaf")
    siblings = [cs.alloc(s, f"sibling {j}") for j, s in enumerate(path.siblings)]
    directions = [cs.alloc(d, f"direction {j}") for j, d in enumerate(path.directions)]
    computed = merkle_root_gadget(cs, params, leaf, siblings, directions)
    cs.enforce(computed, cs.one, public_root, "root")
    return public_root
