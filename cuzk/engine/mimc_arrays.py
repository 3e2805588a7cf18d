"""The reference's MiMC-chain circuit written straight to .r1cs and .wtns, with no Python object per constraint.

``build("mimc", Fr, target_constraints=T, seed=s)`` makes one Python object per constraint, term and value, and
``write_constraint_system`` packs every term on its own: at 2^22 constraints that took about three minutes. The
chain's constraints are regular, so :class:`MimcChain` writes the same bytes from arrays:

- one permutation's constraint section is encoded once, as little-endian u32 words (counts, wires, coefficients:
  n8 is a multiple of 4, so every field is a whole word), and tiled once per permutation; the wires that move from
  one permutation to the next (each constraint allocates one variable) get the permutation's offset added as a
  column; the first permutation's one difference (k enters its first round once, where the others get the previous
  output x_R + k plus k, so 2·k) is patched in; the final output constraint is appended;
- the witness is the chain computed with Python integers, one value per square-and-multiply step, as the gadget
  allocates them.

The layout follows :func:`~cuzk.reference.circuits.mimc.synthesize_mimc_chain` and :meth:`ConstraintSystem.matrices
<cuzk.reference.r1cs.ConstraintSystem.matrices>`: z = (1, y, k, x, then every round's steps in order); in each
combination equal wires merged, zero coefficients dropped and the terms sorted by wire. The tests compare the files
with the reference's byte for byte.
"""

from __future__ import annotations

import os
import random
from dataclasses import dataclass, field
from functools import cached_property

import numpy as np

from cuzk.backends import limbs
from cuzk.formats.r1cs import write_r1cs_body
from cuzk.formats.wtns import write_wtns
from cuzk.reference.circuits import family
from cuzk.reference.circuits.mimc import MiMC
from cuzk.reference.curves import Curve
from cuzk.reference.errors import ParameterError

ONE_WIRE, Y_WIRE, K_WIRE, X_WIRE = 0, 1, 2, 3  # the constant, then y, k and x in synthesize_mimc_chain's order
NUM_INPUTS = 2  # the constant and the public y
FIRST_STEP_WIRE = 4  # the variable of the first permutation's first step

Term = tuple[int, bool, int]  # (wire, whether it moves with the permutation, coefficient)


def round_steps(exponent: int) -> tuple[bool, ...]:
    """The steps of t ↦ t^e by left-to-right square-and-multiply, as pow_gadget takes them: False a squaring, True a
    product by the base; one constraint and one variable each."""
    steps: list[bool] = []
    for bit in bin(exponent)[3:]:
        steps.append(False)
        if bit == "1":
            steps.append(True)
    return tuple(steps)


@dataclass
class _Block:
    """One permutation's constraints as u32 words, with where its moving wires and its first round's k
    coefficients are (word indices)."""

    n8: int
    words: list[int] = field(default_factory=list)
    moving: list[int] = field(default_factory=list)
    first_k: list[int] = field(default_factory=list)

    def add(self, terms: list[Term], first_round: bool = False) -> None:
        """Append one combination: its term count, then each (wire, coefficient), sorted by wire."""
        self.words.append(len(terms))
        for wire, moves, coeff in sorted(terms):
            if moves:
                self.moving.append(len(self.words))
            self.words.append(wire)
            if first_round and wire == K_WIRE:
                self.first_k.append(len(self.words))
            self.words += np.frombuffer(coeff.to_bytes(self.n8, "little"), "<u4").tolist()


@dataclass(frozen=True)
class MimcChain:
    """y = E_k^permutations(x) over ``curve``'s scalar field: the circuit ``build("mimc", …)`` makes."""

    curve: Curve
    permutations: int
    x: int
    k: int

    @classmethod
    def from_seed(cls, curve: Curve, target_constraints: int, seed: int | str = 0) -> MimcChain:
        """The chain of ``build("mimc", curve.Fr, target_constraints=…, seed=…)``: the same size, and x and k drawn
        from the same ``random.Random(seed)`` in the same order."""
        permutations = family("mimc").size_for_constraints(target_constraints, curve.Fr)
        rng = random.Random(seed)
        x = rng.randrange(curve.r)
        return cls(curve, permutations, x, rng.randrange(curve.r))

    def __post_init__(self) -> None:
        if self.permutations < 1:
            raise ParameterError(f"permutations must be at least 1, got {self.permutations}")
        if self.num_wires >= 1 << 32:
            raise ParameterError(f"{self.num_wires} wires do not fit the .r1cs format's u32 wire numbers")

    @cached_property
    def params(self) -> MiMC:
        return MiMC.for_field(self.curve.Fr)

    @property
    def steps_per_permutation(self) -> int:
        """Constraints (and variables) of one permutation."""
        return self.params.constraints_per_permutation

    @property
    def num_constraints(self) -> int:
        return self.permutations * self.steps_per_permutation + 1

    @property
    def num_inputs(self) -> int:
        """Public variables, the constant included."""
        return NUM_INPUTS

    @property
    def num_wires(self) -> int:
        return FIRST_STEP_WIRE + self.permutations * self.steps_per_permutation

    @property
    def n8(self) -> int:
        return 8 * limbs.limb_count(self.curve.r)

    def witness(self) -> list[int]:
        """z = (1, y, k, x, every step's value), canonical: the chain computed as pow_gadget allocates it."""
        p, k = self.curve.r, self.k
        constants = [c.value for c in self.params.constants]
        steps = round_steps(self.params.exponent)
        z = [1, 0, k, self.x]
        append = z.append
        current = self.x
        for _ in range(self.permutations):
            for c in constants:
                base = value = (current + k + c) % p
                for multiply in steps:
                    value = value * (base if multiply else value) % p
                    append(value)
                current = value
            current = (current + k) % p  # E_k(x) = x_R + k, the next permutation's input
        z[Y_WIRE] = current
        return z

    def _block(self) -> _Block:
        """The constraints of one permutation: the wires the first permutation's, the coefficients the later
        permutations' (their first round adds k to x_R + k)."""
        block = _Block(self.n8)
        wire = FIRST_STEP_WIRE  # the next variable allocated; wire − 1 holds the round's input x_i
        for i, c in enumerate(self.params.constants):
            first = i == 0
            # the round's base x_i + k + c_i; in round 0, x_i is the previous output x_R + k, so k comes twice
            base: list[Term] = [(K_WIRE, False, 2 if first else 1), (wire - 1, True, 1)]
            if c.value:
                base.append((ONE_WIRE, False, c.value))
            acc: list[Term] = base
            for multiply in round_steps(self.params.exponent):
                block.add(acc, first)
                block.add(base if multiply else acc, first)
                block.add([(wire, True, 1)])
                acc, wire = [(wire, True, 1)], wire + 1
        return block

    def _output_words(self) -> list[int]:
        """The last constraint, (x_R + k) · 1 = y, as words."""
        block = _Block(self.n8)
        block.add([(K_WIRE, False, 1), (self.num_wires - 1, False, 1)])
        block.add([(ONE_WIRE, False, 1)])
        block.add([(Y_WIRE, False, 1)])
        return block.words

    def constraint_words(self) -> np.ndarray:
        """The .r1cs constraint section as little-endian u32 words: the block tiled, its wires moved, the first
        permutation's k patched, the output constraint appended."""
        block, output = self._block(), self._output_words()
        words = np.array(block.words, dtype="<u4")
        tiled_size = self.permutations * len(words)
        body = np.empty(tiled_size + len(output), dtype="<u4")
        tiled = body[:tiled_size].reshape(self.permutations, len(words))
        tiled[:] = words
        moving = np.array(block.moving, dtype=np.int64)
        offsets = np.arange(self.permutations, dtype="<u4") * np.uint32(self.steps_per_permutation)
        tiled[:, moving] = words[moving] + offsets[:, None]  # num_wires < 2^32 (checked): no wrap-around
        one = np.frombuffer((1).to_bytes(self.n8, "little"), "<u4")
        for at in block.first_k:  # the first permutation adds k to its input x once
            tiled[0, at : at + len(one)] = one
        body[tiled_size:] = output
        return body

    def write(self, r1cs_path: str | os.PathLike[str], wtns_path: str | os.PathLike[str]) -> None:
        """Write the circuit's .r1cs and its witness's .wtns, each atomically."""
        write_r1cs_body(
            r1cs_path,
            self.curve.r,
            self.constraint_words().view(np.uint8),
            num_wires=self.num_wires,
            num_outputs=0,
            num_public_inputs=self.num_inputs - 1,
            num_private_inputs=0,
            num_constraints=self.num_constraints,
        )
        write_wtns(wtns_path, self.curve.r, self.witness())


__all__ = ["MimcChain", "round_steps"]
