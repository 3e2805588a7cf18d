"""Multi-scalar multiplication (MSM): Σ k_i·P_i over a group, the bulk of a Groth16 prover's work.

Two ways, one answer. :func:`msm_naive` multiplies each base by double-and-add and sums (bellman's
``naive_multiexp``): obviously right, about 1.5·b group operations per term for b-bit scalars. :func:`msm_pippenger`
is the bucket method the fast backends implement, with signed digits: per window of c bits it costs one addition
per term plus about 2^c for the bucket sums, so the whole MSM costs about (b/c)·(n + 2^c) instead of 1.5·b·n.

The spec the backends follow exactly:

- scalars are reduced to 0 ≤ k < r (ints modulo r, as ``Point.__mul__`` reads them; Fr elements by their value);
- with b = r.bit_length() and a window of c bits, k is cut into W = ceil((b + 1) / c) signed digits
  (:func:`signed_digits`): k = Σ_t d_t·2^(c·t) with −2^(c−1) < d_t ≤ 2^(c−1);
- the window c is :func:`default_window` (n) unless the caller gives one; the result does not depend on it.

Only the group's interface is used (``identity()``, ``order``, ``name``, ``scalar_field``; points with ``group``,
``+``, unary ``-``, ``double()``), so the same code runs on G1, G2 and the toy group of the walkthrough
(:mod:`cuzk.reference.toy`); the hints say Group and Point for those.
"""

from __future__ import annotations

from collections.abc import Sequence

from cuzk.reference.curves.group import Group, Point
from cuzk.reference.errors import GroupMismatchError, ParameterError, SizeMismatchError
from cuzk.reference.fields.prime_field import PrimeFieldElement

Scalar = int | PrimeFieldElement


# --- scalars ---------------------------------------------------------------------------------------------------


def scalar_to_int(group: Group, k: Scalar) -> int:
    """k as an integer in [0, r): an int is read modulo r, an element of the group's Fr by its value."""
    if isinstance(k, PrimeFieldElement):
        if type(k) is not group.scalar_field:
            raise GroupMismatchError(f"a scalar of {k.NAME} cannot multiply a point of {group.name}")
        return k.value
    if isinstance(k, int):
        return k % group.order
    raise GroupMismatchError(f"a scalar must be an int or an element of {group.name}'s Fr, not {type(k).__name__}")


def _checked(group: Group, bases: Sequence[Point], scalars: Sequence[Scalar]) -> list[int]:
    """The scalars as integers in [0, r), after checking the lengths agree and every base is a point of ``group``."""
    if len(bases) != len(scalars):
        raise SizeMismatchError(f"an MSM needs one scalar per base: got {len(bases)} bases and {len(scalars)} scalars")
    for i, p in enumerate(bases):
        p_group = getattr(p, "group", None)
        if p_group is not group:
            what = f"a point of {p_group.name}" if p_group is not None else f"of type {type(p).__name__}"
            raise GroupMismatchError(f"base {i} is {what}, not a point of {group.name}")
    return [scalar_to_int(group, k) for k in scalars]


# --- the oracle ------------------------------------------------------------------------------------------------


def double_and_add(point: Point, k: int) -> Point:
    """[k]P for k ≥ 0: from the most significant bit of k down, double, and add P where the bit is 1."""
    result = point.group.identity()
    for bit in bin(k)[2:]:
        result = result.double()
        if bit == "1":
            result = result + point
    return result


def msm_naive(group: Group, bases: Sequence[Point], scalars: Sequence[Scalar]) -> Point:
    """Σ [k_i]P_i, one double-and-add per term: the oracle :func:`msm` is tested against. Same inputs as msm."""
    result = group.identity()
    for p, k in zip(bases, _checked(group, bases, scalars), strict=True):
        result = result + double_and_add(p, k)
    return result


# --- signed digits ---------------------------------------------------------------------------------------------


def window_count(bits: int, window: int) -> int:
    """W = ceil((bits + 1) / c): the windows of c bits that hold every scalar of ``bits`` bits in signed digits.

    One bit more than the scalars, so the carry out of the top window is absorbed: for k < 2^bits the top window
    (bits c·(W−1) …) holds a value < 2^(c−1) (since c·W ≥ bits + 1), which plus a carry of 1 is ≤ 2^(c−1) and
    needs no further carry.
    """
    return -(-(bits + 1) // window)


def signed_digits(k: int, window: int, num_windows: int) -> list[int]:
    """The signed (Booth) digits d_0 … d_(W−1) of k ≥ 0 in base 2^c: k = Σ_t d_t·2^(c·t), −2^(c−1) < d_t ≤ 2^(c−1).

    From the least significant window up: v = (the c bits of window t) + carry; if v > 2^(c−1) the digit is
    v − 2^c (negative, or 0 when v = 2^c) and a carry of 1 goes to the next window, else the digit is v and the
    carry is 0. Digits in [−2^(c−1) + 1, 2^(c−1)] mean only 2^(c−1) buckets per window, half of unsigned digits.
    For c = 1 this is plain binary. Raises ParameterError when k < 0, c < 1, or k does not fit in W windows.
    """
    if window < 1:
        raise ParameterError(f"the window size must be at least 1 bit, not {window}")
    if k < 0:
        raise ParameterError(f"signed digits are defined here for k ≥ 0, not {k}")
    half, full, mask = 1 << (window - 1), 1 << window, (1 << window) - 1
    digits, carry = [], 0
    for t in range(num_windows):
        v = ((k >> (window * t)) & mask) + carry
        carry = 1 if v > half else 0
        digits.append(v - full if carry else v)
    if carry or k >> (window * num_windows):
        raise ParameterError(f"{k} does not fit in {num_windows} signed digits of {window} bits")
    return digits


# --- Pippenger -------------------------------------------------------------------------------------------------


def default_window(n: int) -> int:
    """The window size c for n terms: max(1, ⌊log2 n⌋ − 2), i.e. max(1, n.bit_length() − 3); 1 for n ≤ 15.

    The cost (b/c)·(n + 2^c) is lowest near c ≈ log2 n − 2 for the sizes the reference is run on (larger MSMs
    favour slightly smaller windows; backends pick their own, since the result does not depend on c).
    """
    return max(1, n.bit_length() - 3)


def bucket_sum(group: Group, buckets: Sequence[Point]) -> Point:
    """Σ_j j·B_j over buckets B_1 … B_m (``buckets[0]`` is unused) by running sums, 2m additions:

    Σ_j j·B_j = Σ_j (Σ_{i≥j} B_i): walking j from m down to 1, ``running`` = Σ_{i≥j} B_i is added to the total once
    per j.
    """
    running, total = group.identity(), group.identity()
    for j in range(len(buckets) - 1, 0, -1):
        running = running + buckets[j]
        total = total + running
    return total


def msm_pippenger(group: Group, bases: Sequence[Point], scalars: Sequence[int], *, window: int | None = None) -> Point:
    """Σ k_i·P_i by Pippenger's bucket method with signed digits (inputs unchecked: use :func:`msm`).

    Scalars are ints 0 ≤ k < 2^b, b = r.bit_length(). With c = ``window`` and W = :func:`window_count` (b, c),
    from the most significant window t = W−1 down to 0:

        acc ← [2^c]·acc                                       (c doublings)
        B_j ← Σ {P_i : d_t(k_i) = j} − Σ {P_i : d_t(k_i) = −j}   for j = 1 … 2^(c−1)
        acc ← acc + Σ_j j·B_j                                  (:func:`bucket_sum`)

    so that acc = Σ_t 2^(c·t) Σ_i d_t(k_i)·P_i = Σ_i k_i·P_i.
    """
    c = default_window(len(bases)) if window is None else window
    w = window_count(group.order.bit_length(), c)
    digits = [signed_digits(k, c, w) for k in scalars]
    acc = group.identity()
    for t in reversed(range(w)):
        for _ in range(c):
            acc = acc.double()
        buckets = [group.identity()] * ((1 << (c - 1)) + 1)
        for p, d in zip(bases, digits, strict=True):
            if d[t] > 0:
                buckets[d[t]] = buckets[d[t]] + p
            elif d[t] < 0:
                buckets[-d[t]] = buckets[-d[t]] + (-p)
        acc = acc + bucket_sum(group, buckets)
    return acc


MAX_WINDOW = 32  # 2^31 buckets per window already exceed any memory; larger windows are surely a mistake


def msm(group: Group, bases: Sequence[Point], scalars: Sequence[Scalar], *, window: int | None = None) -> Point:
    """Σ k_i·P_i: the public entry. Checks its inputs, reduces the scalars to [0, r), runs :func:`msm_pippenger`.

    ``scalars`` are ints (read modulo r) or elements of ``group.scalar_field``; n = 0 gives the identity.
    Raises SizeMismatchError when the lengths differ, GroupMismatchError for a base of another group or a scalar
    of another field, ParameterError for a window outside 1 … MAX_WINDOW.
    """
    ks = _checked(group, bases, scalars)
    if window is not None and not 1 <= window <= MAX_WINDOW:
        raise ParameterError(f"the window size must lie in 1 … {MAX_WINDOW} bits, not {window}")
    return msm_pippenger(group, bases, ks, window=window)


__all__ = [
    "bucket_sum",
    "default_window",
    "double_and_add",
    "msm",
    "msm_naive",
    "msm_pippenger",
    "scalar_to_int",
    "signed_digits",
    "window_count",
]
