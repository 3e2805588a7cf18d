"""MiMC (Albrecht, Grassi, Rechberger, Roy, Tiessen, "MiMC: Efficient Encryption and Cryptographic Hashing with
Minimal Multiplicative Complexity", ASIACRYPT 2016) over the scalar field F_r, as a keyed permutation and a hash.

The permutation E_k with R rounds (MiMC-n/n, written for a prime field):

    x_0 = x,    x_{i+1} = (x_i + k + c_i)^e  (i = 0 … R−1),    E_k(x) = x_R + k

- e is the smallest odd e ≥ 3 with gcd(e, r − 1) = 1, so that t ↦ t^e is a bijection of F_r. For BN254 and
  BLS12-381, 3 divides r − 1 and e = 5; :func:`mimc_exponent` computes it from the field.
- R = ⌈log_e r⌉ (the paper's round count: after R rounds the degree e^R of the polynomial reaches r), so R = 110
  on both curves, 7 on the toy field of order 64513.
- c_0 = 0 and c_i = SHA-256("cuzk/mimc/constant" ‖ i as 4 bytes big-endian) mod r for i ≥ 1: derived, never typed.
  (These are cuzk's constants: the circuit is not the circomlib/ethsnarks MiMC and gives different digests.)

t^e costs (bits of e − 1) squarings and (ones in e − 1) multiplications, one constraint each, so a round is 3
constraints for e = 5 and a permutation 3R; x + k + c_i is linear and costs nothing, and neither does the final + k.

The hash is Miyaguchi–Preneel over E: the compression f(h, m) = E_h(m) + h + m, and H(m_1 … m_n) = f(…f(f(0, m_1),
m_2)…, m_n). A Merkle node is f(left, right): one permutation per 2-to-1 hash.

Each gadget stands beside its plain-Python twin (mimc_permutation, mimc_compress, mimc_hash); tests compare them.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from math import gcd

from cuzk.reference.errors import ParameterError
from cuzk.reference.fields.prime_field import PrimeFieldElement
from cuzk.reference.r1cs import ConstraintSystem, LinearCombination, Variable

DOMAIN = b"cuzk/mimc/constant"


def mimc_exponent(field: type[PrimeFieldElement]) -> int:
    """The smallest odd e ≥ 3 with gcd(e, r − 1) = 1 (x ↦ x^e then permutes F_r)."""
    e = 3
    while gcd(e, field.MODULUS - 1) != 1:
        e += 2
    return e


def mimc_rounds(field: type[PrimeFieldElement], e: int) -> int:
    """R = ⌈log_e r⌉: the least R with e^R ≥ r."""
    rounds, power = 0, 1
    while power < field.MODULUS:
        rounds, power = rounds + 1, power * e
    return rounds


def round_constant(field: type[PrimeFieldElement], i: int) -> PrimeFieldElement:
    """c_0 = 0; c_i = SHA-256(DOMAIN ‖ i) mod r."""
    if i == 0:
        return field.zero()
    return field(int.from_bytes(hashlib.sha256(DOMAIN + i.to_bytes(4, "big")).digest(), "big"))


@dataclass(frozen=True)
class MiMC:
    """The parameters of MiMC over one field."""

    field: type[PrimeFieldElement]
    exponent: int
    constants: tuple[PrimeFieldElement, ...]

    @classmethod
    def for_field(cls, field: type[PrimeFieldElement]) -> MiMC:
        e = mimc_exponent(field)
        return cls(field, e, tuple(round_constant(field, i) for i in range(mimc_rounds(field, e))))

    @property
    def rounds(self) -> int:
        return len(self.constants)

    @property
    def constraints_per_round(self) -> int:
        """Constraints of t ↦ t^e by square-and-multiply: (bit length − 1) squarings + (popcount − 1) products."""
        return self.exponent.bit_length() - 1 + bin(self.exponent).count("1") - 1

    @property
    def constraints_per_permutation(self) -> int:
        return self.rounds * self.constraints_per_round


# --- plain Python -------------------------------------------------------------------------------------------------


def mimc_permutation(params: MiMC, x: object, k: object) -> PrimeFieldElement:
    """E_k(x) = x_R + k with x_{i+1} = (x_i + k + c_i)^e."""
    F = params.field
    x = F(x) if isinstance(x, int) else x
    k = F(k) if isinstance(k, int) else k
    for c in params.constants:
        x = (x + k + c) ** params.exponent
    return x + k


def mimc_compress(params: MiMC, h: object, m: object) -> PrimeFieldElement:
    """Miyaguchi–Preneel: f(h, m) = E_h(m) + h + m."""
    return mimc_permutation(params, m, h) + h + m


def mimc_hash(params: MiMC, messages: list[object]) -> PrimeFieldElement:
    """H(m_1 … m_n) = f(…f(f(0, m_1), m_2)…, m_n)."""
    h = params.field.zero()
    for m in messages:
        h = mimc_compress(params, h, m)
    return h


# --- gadgets ------------------------------------------------------------------------------------------------------

Wire = Variable | LinearCombination


def pow_gadget(cs: ConstraintSystem, base: LinearCombination, e: int) -> Variable:
    """base^e by left-to-right square-and-multiply, one allocated variable and one constraint per step."""
    b = cs.evaluate(base)
    acc: Wire = base
    value = b
    for bit in bin(e)[3:]:
        value = value * value
        squared = cs.alloc(value, "sq")
        cs.enforce(acc, acc, squared, "square")
        acc = squared
        if bit == "1":
            value = value * b
            product = cs.alloc(value, "mul")
            cs.enforce(acc, base, product, "multiply")
            acc = product
    return acc  # type: ignore[return-value]


def mimc_permutation_gadget(cs: ConstraintSystem, params: MiMC, x: Wire, k: Wire) -> LinearCombination:
    """E_k(x) in constraints: R · constraints_per_round of them; returns x_R + k as a combination."""
    x_i: Wire = x
    for i, c in enumerate(params.constants):
        with cs.namespace(f"round {i}"):
            x_i = pow_gadget(cs, cs.lc(x_i, k, c), params.exponent)
    return cs.lc(x_i, k)


def mimc_compress_gadget(cs: ConstraintSystem, params: MiMC, h: Wire, m: Wire) -> LinearCombination:
    """f(h, m) = E_h(m) + h + m: one permutation, no further constraint."""
    return mimc_permutation_gadget(cs, params, m, h).add(h).add(m)


def mimc_hash_gadget(cs: ConstraintSystem, params: MiMC, messages: list[Wire]) -> LinearCombination:
    """H(m_1 … m_n): n permutations."""
    h = cs.lc()
    for j, m in enumerate(messages):
        with cs.namespace(f"absorb {j}"):
            h = mimc_compress_gadget(cs, params, h, m)
    return h


def synthesize_mimc_chain(cs: ConstraintSystem, params: MiMC, x: int, k: int, permutations: int) -> Variable:
    """Public y = E_k^permutations(x) (E applied ``permutations`` times), private x and k.

    Constraints: permutations · R · constraints_per_round + 1 (the last binds the chain to the public y).
    """
    if permutations < 1:
        raise ParameterError(f"permutations must be at least 1, got {permutations}")
    y_value = params.field(x)
    for _ in range(permutations):
        y_value = mimc_permutation(params, y_value, k)
    y = cs.alloc_input(y_value, "y")
    key = cs.alloc(k, "k")
    current: Wire = cs.alloc(x, "x")
    for j in range(permutations):
        with cs.namespace(f"permutation {j}"):
            current = mimc_permutation_gadget(cs, params, current, key)
    cs.enforce(current, cs.one, y, "output")
    return y
