"""Booleans, bit decomposition and range checks: the gadgets behind every comparison in a circuit.

- boolean: b · (1 − b) = 0 holds exactly for b ∈ {0, 1} (a field has no other roots of b − b²);
- decomposition of v into n bits: n boolean constraints and one packing constraint (Σ 2^i b_i) · 1 = v;
- range check v < 2^n: an n-bit decomposition exists. Sound only while 2^n < r, so that Σ 2^i b_i ≤ 2^n − 1 cannot
  wrap around the modulus (n < bit length of r); the gadget refuses larger n.

A decomposition costs n + 1 constraints and n aux variables. The witness bits are the low n bits of v's integer:
for v ≥ 2^n they do not sum to v, and the packing constraint is the one that fails.
"""

from __future__ import annotations

from cuzk.reference.errors import SynthesisError
from cuzk.reference.fields.prime_field import PrimeFieldElement
from cuzk.reference.r1cs import ConstraintSystem, LinearCombination, Variable


def to_bits(value: int, n: int) -> list[int]:
    """The n low bits of ``value``, least significant first (the plain-Python decomposition)."""
    return [(value >> i) & 1 for i in range(n)]


def enforce_boolean(cs: ConstraintSystem, b: Variable, name: str = "boolean") -> None:
    """b · (1 − b) = 0."""
    cs.enforce(b, cs.lc(1).sub_term(b), 0, name)


def alloc_bit(cs: ConstraintSystem, bit: int, name: str = "bit") -> Variable:
    """A new aux variable holding ``bit``, constrained to be 0 or 1 (one constraint)."""
    b = cs.alloc(bit, name)
    enforce_boolean(cs, b, f"{name} boolean")
    return b


def decompose(cs: ConstraintSystem, value: Variable | LinearCombination, n: int) -> list[Variable]:
    """Bits b_0 … b_{n−1} (least significant first) with Σ 2^i b_i = value: n + 1 constraints."""
    if not 0 < n < cs.field.bit_length():
        raise SynthesisError(
            f"cannot decompose into {n} bits over {cs.field.NAME}: need 0 < n < {cs.field.bit_length()} "
            "so that the sum of the bits cannot wrap around r"
        )
    bits = [alloc_bit(cs, b, f"b{i}") for i, b in enumerate(to_bits(cs.evaluate(value).value, n))]
    packed = cs.lc()
    for i, b in enumerate(bits):
        packed.add_term(b, 1 << i)
    cs.enforce(packed, cs.one, value, "packing")
    return bits


def range_check(cs: ConstraintSystem, value: Variable | LinearCombination, n: int) -> list[Variable]:
    """Enforce 0 ≤ value < 2^n (as integers in [0, r)) by an n-bit decomposition; returns the bits."""
    with cs.namespace(f"range<2^{n}"):
        return decompose(cs, value, n)


WIDTH = 64
"""Bits per value in the ``bits`` family (a u64 range check), less on a field too small for it."""


def width_for(field: type[PrimeFieldElement]) -> int:
    """WIDTH, or the widest sound range check of ``field`` when that is narrower (15 bits on the toy field)."""
    return min(WIDTH, field.bit_length() - 1)


def synthesize_range_checks(cs: ConstraintSystem, values: list[int], width: int) -> Variable:
    """Private values, each range-checked to ``width`` bits, and their public sum: len·(width + 1) + 1 constraints."""
    total = cs.alloc_input(sum(values), "sum")
    acc = cs.lc()
    for j, v in enumerate(values):
        with cs.namespace(f"value {j}"):
            var = cs.alloc(v, "v")
            range_check(cs, var, width)
        acc.add_term(var)
    cs.enforce(acc, cs.one, total, "sum")
    return total
