"""Vectors carry field elements as hex strings; this module turns them into limb arrays and back.

One element is ``"0x"`` followed by exactly 16·L lower-case hex digits: the big-endian hex of its integer, zero
padded to the byte width of its limbs (L = 4 for Fr, 6 or 4 for Fq). The fixed width makes every vector readable
by eye and splittable into 64-bit limbs by slicing (the last 16 digits are limb 0). Points nest these strings as
the protocol nests limbs: G1 ``[x, y]``, G2 ``[[x.c0, x.c1], [y.c0, y.c1]]``, infinity all zeros.
Parsing needs only the standard library and numpy (no py_ecc, no galois: GPU servers lack them).
"""

from __future__ import annotations

import re
from typing import Any

import numpy as np

from cuzk.backends import limbs
from cuzk.conformance.errors import VectorFormatError


def hex_of(value: int, limb_count: int) -> str:
    """The vector form of ``value``: 0x + 16·L hex digits."""
    return f"0x{value:0{16 * limb_count}x}"


def ints_to_hex(values: Any, limb_count: int) -> Any:
    """A nested list of ints (or one int) as the same nesting of hex strings."""
    if isinstance(values, int):
        return hex_of(values, limb_count)
    return [ints_to_hex(v, limb_count) for v in values]


def limbs_to_hex(array: np.ndarray) -> Any:
    """A limb array (..., L) as nested lists of hex strings of shape ``array.shape[:-1]``."""
    L = array.shape[-1]
    flat = [hex_of(v, L) for v in limbs.limbs_to_ints(array)]
    return _nest(flat, array.shape[:-1])


def _nest(flat: list[str], shape: tuple[int, ...]) -> Any:
    if not shape:
        return flat[0]
    if len(shape) == 1:
        return list(flat)
    step = len(flat) // shape[0] if shape[0] else 0
    return [_nest(flat[i * step : (i + 1) * step], shape[1:]) for i in range(shape[0])]


def _flatten(tree: Any, out: list[str]) -> None:
    if isinstance(tree, str):
        out.append(tree)
    elif isinstance(tree, list):
        for item in tree:
            _flatten(item, out)
    else:
        raise VectorFormatError(f"expected hex strings in nested lists, found {type(tree).__name__}")


def hex_to_limbs(tree: Any, inner: tuple[int, ...], limb_count: int, *, what: str = "value") -> np.ndarray:
    """Parse nested hex strings into a uint64 array of shape (n, *inner, limb_count) (n = 1 for one element
    when ``tree`` is a bare string; use ``inner=()`` for scalars)."""
    flat: list[str] = []
    _flatten(tree, flat)
    pattern = re.compile(rf"0x[0-9a-f]{{{16 * limb_count}}}")
    for s in flat:
        if not pattern.fullmatch(s):
            raise VectorFormatError(f"{what}: {s!r} is not 0x followed by {16 * limb_count} lower-case hex digits")
    per_row = int(np.prod(inner)) if inner else 1
    if len(flat) % per_row:
        raise VectorFormatError(f"{what}: {len(flat)} elements do not make rows of shape {inner}")
    ints = [int(s, 16) for s in flat]
    return limbs.ints_to_limbs(ints, limb_count).reshape(len(flat) // per_row, *inner, limb_count)


__all__ = ["hex_of", "hex_to_limbs", "ints_to_hex", "limbs_to_hex"]
