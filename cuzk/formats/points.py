"""Point sections of iden3 files in bulk: Montgomery-form affine coordinates → the backends' canonical limbs, with
every point checked to lie on its curve.

A G1 point is stored as x‖y, a G2 point as x.c0‖x.c1‖y.c0‖y.c1 (Fq2 = Fq[u]/(u² + 1) on both curves), each
coordinate n8q bytes in Montgomery form; the point at infinity is all zeros (ffjavascript's affine zero).
The curve equation y² = x³ + b is checked in Montgomery form, where it reads the same (both sides carry one R),
vectorised over a chunk of points at a time. The subgroup is checked for the few points of a header and the IC
(:meth:`PointDecoder.decode_points`: the verifying key's α, β, γ, δ and γ_abc), not in the bulk sections (it costs
a scalar multiplication per point; on BN254's G1, whose cofactor is 1, being on the curve is enough).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import overload

import numpy as np

from cuzk.backends import limbs
from cuzk.backends.protocol import Backend
from cuzk.formats.montgomery import CHUNK, MontgomeryField, to_montgomery
from cuzk.reference.curves import Curve, Point


@dataclass(frozen=True)
class BadPoint:
    """The first invalid point of an array: its index and what is wrong with it."""

    index: int
    problem: str


def coordinate_count(group: str) -> int:
    """Fq coordinates per point: 2 for G1, 4 for G2."""
    return 2 if group == "g1" else 4


def point_bytes(curve: Curve, group: str) -> int:
    """Bytes of one stored affine point."""
    return coordinate_count(group) * field_bytes(curve.q)


def field_bytes(modulus: int) -> int:
    """n8: the bytes snarkjs gives one element of Z/modulus (whole 64-bit words)."""
    return 8 * limbs.limb_count(modulus)


class PointDecoder:
    """Decodes and checks the stored points of one curve and group."""

    def __init__(self, curve: Curve, group: str) -> None:
        self.curve, self.group = curve, group
        self.fq = MontgomeryField(curve.q, field_bytes(curve.q))
        grp = limbs.group_of(curve, group)
        b = [grp.b.value] if group == "g1" else [grp.b.c0.value, grp.b.c1.value]
        self.b = [self.fq.constant(v * self.fq.R) for v in b]  # b in Montgomery form

    def decode(self, raw: np.ndarray, *, check: bool = True) -> tuple[np.ndarray, BadPoint | None]:
        """(n, point_bytes) uint8 → (canonical limbs of shape (n, 2, L) or (n, 2, 2, L), the first bad point)."""
        n, coords, n8 = raw.shape[0], coordinate_count(self.group), self.fq.n8
        out = np.empty((n, coords, n8 // 8), np.uint64)
        for lo in range(0, n, CHUNK):
            hi = min(n, lo + CHUNK)
            cols = [self.fq.columns(raw[lo:hi, i * n8 : (i + 1) * n8]) for i in range(coords)]
            if check:
                bad = self._check(cols)
                if bad is not None:
                    return out, BadPoint(lo + bad[0], bad[1])
            for i, c in enumerate(cols):
                out[lo:hi, i] = self.fq.to_limbs64(self.fq.canonical(self.fq.redc(c)))
        return out.reshape(n, *limbs.point_shape(self.curve, self.group)), None

    def decode_points(self, raw: np.ndarray) -> tuple[list[Point], BadPoint | None]:
        """Few points (a header's, the IC) as reference points, checked with the reference's arithmetic (on the curve
        and in the order-r subgroup): numpy's per-call overhead would cost more than the work for a handful of
        points."""
        fq, coords, n8 = self.fq, coordinate_count(self.group), self.fq.n8
        r_inv = pow(fq.R, -1, fq.p)
        grp = limbs.group_of(self.curve, self.group)
        points = []
        for i, row in enumerate(raw):
            stored = [int.from_bytes(row[j * n8 : (j + 1) * n8].tobytes(), "little") for j in range(coords)]
            if any(v >= fq.p for v in stored):
                return points, BadPoint(i, f"a coordinate is not reduced modulo q of {self.curve.name}")
            if not any(stored):
                points.append(grp.identity())
                continue
            c = [v * r_inv % fq.p for v in stored]
            x, y = (
                (self.curve.Fq(c[0]), self.curve.Fq(c[1]))
                if coords == 2
                else (self.curve.Fq2(c[0], c[1]), self.curve.Fq2(c[2], c[3]))
            )
            point = grp.point_unchecked(x, y)
            if not point.is_on_curve():
                return points, BadPoint(i, f"the point is not on {grp.name}")
            if grp.cofactor != 1 and not in_subgroup(self.curve, self.group, point):
                return points, BadPoint(i, f"the point is on {grp.name} but not in its subgroup of order r")
            points.append(point)
        return points, None

    def _check(self, cols: list[np.ndarray]) -> tuple[int, str] | None:
        fq = self.fq
        stored_canonical = np.all([fq.is_canonical(c) for c in cols], axis=0)
        if not stored_canonical.all():
            return int(np.argmin(stored_canonical)), f"a coordinate is not reduced modulo q of {self.curve.name}"
        finite = np.flatnonzero(np.any([np.any(c != 0, axis=0) for c in cols], axis=0))
        if len(finite) < cols[0].shape[1]:  # keys have many points at infinity (a third of B2 in circom's)
            cols = [c[:, finite] for c in cols]
        on_curve = self._on_curve(cols)
        if not on_curve.all():
            index = int(finite[np.argmin(on_curve)])
            return index, f"the point is not on {limbs.group_of(self.curve, self.group).name}"
        return None

    def _on_curve(self, cols: list[np.ndarray]) -> np.ndarray:
        """y² = x³ + b, per point, all in Montgomery form."""
        fq = self.fq
        if self.group == "g1":
            x, y = cols
            rhs = fq.add(fq.mul(fq.mul(x, x), x), np.broadcast_to(self.b[0], x.shape))
            return fq.equal(fq.mul(y, y), rhs)
        x, y = (cols[0], cols[1]), (cols[2], cols[3])
        x3 = self._fq2_mul(self._fq2_square(x), x)
        rhs = (
            fq.add(x3[0], np.broadcast_to(self.b[0], x3[0].shape)),
            fq.add(x3[1], np.broadcast_to(self.b[1], x3[1].shape)),
        )
        lhs = self._fq2_square(y)
        return fq.equal(lhs[0], rhs[0]) & fq.equal(lhs[1], rhs[1])

    def _fq2_mul(self, a: tuple[np.ndarray, np.ndarray], b: tuple[np.ndarray, np.ndarray]) -> tuple[np.ndarray, ...]:
        """(a0 + a1·u)(b0 + b1·u) with u² = −1, by Karatsuba: three products."""
        fq = self.fq
        t0, t1 = fq.mul(a[0], b[0]), fq.mul(a[1], b[1])
        cross = fq.mul(fq.add(a[0], a[1]), fq.add(b[0], b[1]))
        return fq.sub(t0, t1), fq.sub(fq.sub(cross, t0), t1)

    def _fq2_square(self, a: tuple[np.ndarray, np.ndarray]) -> tuple[np.ndarray, ...]:
        """(a0 + a1·u)² = (a0 + a1)(a0 − a1) + 2·a0·a1·u."""
        fq = self.fq
        t = fq.mul(a[0], a[1])
        return fq.mul(fq.add(a[0], a[1]), fq.sub(a[0], a[1])), fq.add(t, t)

    def problem(self, raw: np.ndarray) -> str:
        """What is wrong with the one stored point ``raw`` ((1, point_bytes) uint8), found bad elsewhere (by a
        backend's check on a device): the decoder's reason, told again for the error."""
        _, bad = self.decode(raw)
        return bad.problem if bad is not None else "rejected by the backend's check"

    def encode(self, array: np.ndarray, *, host: Backend | None = None) -> np.ndarray:
        """Canonical limbs (n, 2, L) / (n, 2, 2, L) → (n, point_bytes) uint8 in Montgomery form (infinity: zeros):
        on ``host``, a backend with MONTGOMERY_FORM, when given; else by numpy (the oracle)."""
        n, coords = array.shape[0], coordinate_count(self.group)
        flat = np.ascontiguousarray(array, dtype=np.uint64).reshape(n * coords, self.fq.n8 // 8)
        if host is None:
            return to_montgomery(self.fq, flat).reshape(n, coords * self.fq.n8)
        words = host.field_to_montgomery(self.curve, "fq", flat)  # type: ignore[attr-defined]
        return words.astype("<u8", copy=False).view(np.uint8).reshape(n, coords * self.fq.n8)


def in_subgroup(curve: Curve, group: str, point: Point) -> bool:
    """Whether ``point`` (on the curve) is in the order-r subgroup: by the tests in plain integers of
    :mod:`cuzk.formats.membership` (G2; G1 of BLS12), the reference's ``is_in_subgroup`` otherwise."""
    from cuzk.formats import membership

    if group == "g2":
        return membership.g2_in_subgroup(curve, point)
    if curve.family == "bls12":
        return membership.g1_in_subgroup(curve, point)
    return point.is_in_subgroup()


def decode_table(
    decoder: PointDecoder, raw: np.ndarray, *, check: bool = True, host: Backend | None = None
) -> tuple[np.ndarray, BadPoint | None]:
    """A section's points, (n, point_bytes) as stored → (canonical limbs, the first bad point): on ``host``, a
    backend with MONTGOMERY_FORM (the cpu backend's kernels, on every core), when given; else numpy's
    :meth:`PointDecoder.decode`, the oracle."""
    if host is None:
        return decoder.decode(raw, check=check)
    out, bad, problem = host.points_from_montgomery(decoder.curve, decoder.group, raw, check=check)
    return out, BadPoint(bad, problem) if bad >= 0 else None


class PointTable(Sequence[Point]):
    """Points of one group held as the backends' canonical limbs; indexing decodes a reference :class:`Point`.

    A proving key built from a .zkey holds these instead of lists of points: the engine hands ``limbs`` to the
    backend as they are, while the reference (which only iterates) still sees a sequence of points.
    """

    def __init__(self, curve: Curve, group: str, array: np.ndarray) -> None:
        if array.shape[1:] != limbs.point_shape(curve, group):
            raise ValueError(f"a {group} table of {curve.name} needs shape (n, {limbs.point_shape(curve, group)})")
        self.curve, self.group, self.limbs = curve, group, array

    def __len__(self) -> int:
        return int(self.limbs.shape[0])

    @overload
    def __getitem__(self, index: int) -> Point: ...
    @overload
    def __getitem__(self, index: slice) -> PointTable: ...
    def __getitem__(self, index: int | slice) -> Point | PointTable:
        if isinstance(index, slice):
            return PointTable(self.curve, self.group, self.limbs[index])
        return limbs.limbs_to_point(self.curve, self.group, self.limbs[index])

    def scattered(self, positions: np.ndarray) -> PointTable:
        """The table with point i moved to index positions[i] (a permutation)."""
        return PointTable(self.curve, self.group, limbs.scatter_rows(self.limbs, positions))

    def infinity_mask(self) -> np.ndarray:
        """Per point, whether it is the point at infinity (all-zero limbs)."""
        return ~limbs.nonzero_rows(self.limbs.reshape(len(self), -1))

    def __repr__(self) -> str:
        return f"PointTable({self.curve.name} {self.group}, {len(self)} points)"


__all__ = [
    "BadPoint",
    "PointDecoder",
    "PointTable",
    "coordinate_count",
    "decode_table",
    "field_bytes",
    "in_subgroup",
    "point_bytes",
]
