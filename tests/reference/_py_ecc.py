"""Bridges between cuzk's reference objects and py_ecc's (the independent implementation the tests compare with)."""

from __future__ import annotations

from typing import Any

import pytest

from cuzk.reference.curves import BLS12_381, Curve, Point

py_ecc = pytest.importorskip("py_ecc", reason="py_ecc (a dev extra) is needed to cross-check against it")
from py_ecc import optimized_bls12_381 as bls  # noqa: E402
from py_ecc import optimized_bn128 as bn  # noqa: E402


def module(curve: Curve) -> Any:
    return bls if curve is BLS12_381 else bn


def to_py(point: Point) -> Any:
    """A cuzk point as a py_ecc optimized (homogeneous projective) point; None-free: py_ecc's identity has z = 0."""
    m = module_of_point(point)
    g2 = point.group.name.endswith("G2")
    affine = point.to_affine()
    if affine is None:
        return m.Z2 if g2 else m.Z1
    if g2:
        x, y = (m.FQ2([c.c0.value, c.c1.value]) for c in affine)
        return (x, y, m.FQ2.one())
    return (m.FQ(affine[0].value), m.FQ(affine[1].value), m.FQ.one())


def from_py(curve: Curve, point: Any, g2: bool) -> Point:
    m = module(curve)
    group = curve.g2 if g2 else curve.g1
    if m.is_inf(point):
        return group.identity()
    x, y = m.normalize(point)
    if g2:
        return group.point(curve.Fq2(*(int(v) for v in x.coeffs)), curve.Fq2(*(int(v) for v in y.coeffs)))
    return group.point(curve.Fq(int(x)), curve.Fq(int(y)))


def module_of_point(point: Point) -> Any:
    return bls if point.group.name.startswith("bls12_381") else bn


def fq12_to_py(curve: Curve, f: Any) -> list[int]:
    """Our Fq12 = Σ g_k w^k (g_k ∈ Fq2) as py_ecc's 12 coefficients over Fq on 1, w, …, w¹¹.

    py_ecc reduces by w¹² = 2β·w⁶ − (β² + 1), i.e. (w⁶ − β)² = −1: its w is ours, with u = w⁶ − β and ξ = β + u.
    """
    beta = curve.Fq2.XI[0].value  # type: ignore[attr-defined]
    q = curve.q
    coeffs = [0] * 12
    for k, g in enumerate(f.w_coefficients()):
        coeffs[k] = (coeffs[k] + g.c0.value - beta * g.c1.value) % q
        coeffs[k + 6] = (coeffs[k + 6] + g.c1.value) % q
    return coeffs
