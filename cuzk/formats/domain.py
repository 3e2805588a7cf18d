"""snarkjs's evaluation domain against the reference's: same points, possibly in another order.

Both put row i of the QAP at ωⁱ and the H scalars at ω₂ₙ^(2i+1), but each takes ω from its own primitive 2^S-th
root of unity: the reference from the field's multiplicative generator (5 for BN254, 7 for BLS12-381, as arkworks),
ffjavascript (hence snarkjs and every .zkey) from the smallest quadratic non-residue g, as ω_(2^S) = g^t with
r − 1 = 2^S·t. On BN254 both are 5^t; on BLS12-381 ffjavascript's is 5^t and the reference's 7^t.

Two primitive 2^S-th roots are odd powers of one another: ω_snarkjs = ω_ref^k. On a domain of n points that makes
snarkjs's row i the reference's row k·i mod n, and snarkjs's H point i (at ω₂ₙ^(k(2i+1)) in reference terms) the
reference's odd index (k(2i+1) mod 2n − 1)/2. These permutations turn a .zkey into a proving key in the reference's
order (so the engine's NTTs apply unchanged) and back; on BN254 k = 1 and both are the identity.
"""

from __future__ import annotations

from functools import cache
from typing import Any

import numpy as np


def smallest_non_residue(p: int) -> int:
    """The smallest g ≥ 2 with g^((p−1)/2) = −1 mod p (ffjavascript's ``nqr``)."""
    g = 2
    while pow(g, (p - 1) // 2, p) != p - 1:
        g += 1
    return g


@cache
def snarkjs_root_exponent(field: Any) -> int:
    """k, odd, with ffjavascript's primitive 2^S-th root equal to the reference's to the power k.

    Found bit by bit (Pohlig–Hellman in the cyclic group of order 2^S): bit i of k is decided by whether
    (target·ω^(−k))^(2^(S−1−i)) is still 1.
    """
    p, s = field.MODULUS, field.TWO_ADICITY
    omega = field.ROOT_OF_UNITY.value
    target = pow(smallest_non_residue(p), (p - 1) >> s, p)
    k = 0
    for i in range(s):
        rest = target * pow(omega, -k, p) % p
        if pow(rest, 1 << (s - 1 - i), p) != 1:
            k |= 1 << i
    if pow(omega, k, p) != target:
        raise ArithmeticError(f"no power of the reference root of unity of {field.NAME} is ffjavascript's")
    return k


def row_positions(field: Any, n: int) -> np.ndarray:
    """For each snarkjs row i < n, its index in the reference's order: k·i mod n."""
    return (snarkjs_root_exponent(field) % n) * np.arange(n, dtype=np.int64) % n


def h_positions(field: Any, n: int) -> np.ndarray:
    """For each snarkjs H point i < n (at the odd 2n-th root of index 2i+1), the reference's odd index j."""
    k = snarkjs_root_exponent(field) % (2 * n)
    return (k * (2 * np.arange(n, dtype=np.int64) + 1) % (2 * n) - 1) // 2


def is_identity(field: Any) -> bool:
    """Whether snarkjs's order is the reference's (k = 1: BN254)."""
    return snarkjs_root_exponent(field) == 1


__all__ = ["h_positions", "is_identity", "row_positions", "smallest_non_residue", "snarkjs_root_exponent"]
