"""Curves as data (BLS12-381, BN254) and the group law written once for both groups of both curves."""

from cuzk.reference.curves.bls12_381 import BLS12_381
from cuzk.reference.curves.bn254 import BN254
from cuzk.reference.curves.curve import Curve
from cuzk.reference.curves.group import Group, Point

CURVES: dict[str, Curve] = {c.name: c for c in (BLS12_381, BN254)}


def curve_by_name(name: str) -> Curve:
    """The curve called ``name`` (``bls12_381`` or ``bn254``; ``bn128`` and ``alt_bn128`` are BN254's other names)."""
    from cuzk.reference.errors import CuzkError

    key = {"bn128": "bn254", "alt_bn128": "bn254", "bls12381": "bls12_381", "bls12-381": "bls12_381"}.get(
        name.lower(), name.lower()
    )
    if key not in CURVES:
        raise CuzkError(f"unknown curve {name!r}; known curves: {', '.join(sorted(CURVES))}")
    return CURVES[key]


__all__ = ["BLS12_381", "BN254", "CURVES", "Curve", "Group", "Point", "curve_by_name"]
