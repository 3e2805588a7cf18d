"""The non-adjacent form of an integer: the signed binary digits a double-and-add walks (fewest additions).

Kept apart from :mod:`.subgroup`, whose import builds and proves sound the subgroup tests of every curve, so that
code needing only the digits (:mod:`cuzk.formats.membership`) does not pay for that.
"""

from __future__ import annotations


def non_adjacent_form(k: int) -> list[int]:
    """The digits d_i ∈ {−1, 0, 1} of k = Σ d_i·2^i (k ≥ 0), least significant first, no two adjacent ones non-zero
    (Hankerson, Menezes, Vanstone, "Guide to Elliptic Curve Cryptography", Algorithm 3.30)."""
    digits: list[int] = []
    while k:
        digit = 2 - k % 4 if k % 2 else 0  # the odd k is rounded to a multiple of 4, so the next digit is 0
        digits.append(digit)
        k = (k - digit) // 2
    return digits


__all__ = ["non_adjacent_form"]
