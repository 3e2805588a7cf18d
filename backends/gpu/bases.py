"""The MSM's bases on a GPU device: their byte sizes (:class:`Geometry`), and bases kept there across calls
(:class:`ResidentBases`), uploaded and converted to Montgomery form on the device (:func:`upload_bases`), with the
shifted copies 2^(c·t)·P_i when they pay (:func:`prepare`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from cuzk.backends import limbs
from cuzk.backends.gpu.context import DeviceContext, Finish
from cuzk.backends.gpu.plan import Memory, piece_sizes, shifted_window
from cuzk.reference.curves import Curve
from cuzk.reference.msm import window_count

# Shifted bases paid at every size measured, up to 2^24 points, the largest (docs/performance.md): one bucket row
# for all windows and no doubling between them saves more than reading the copies at random costs. Above that size
# nothing is measured, so the copies stop there. Other curves: the same bound.
SHIFTED_MAX_POINTS = {"bls12_381": 1 << 24, "bn254": 1 << 24}
SHIFTED_MAX_POINTS_DEFAULT = 1 << 24
# Fewer MSMs than this over a set of bases do not pay for its shifted copies: on an H200 making them took about
# 0.1–0.2 s per 2^20-point set (docs/performance.md), against a few milliseconds saved per MSM (one-shot commands)
SHIFTED_MIN_USES = 32
NONE_BAD = 0xFFFFFFFF  # the check's answer before any bad point lowers it


@dataclass(frozen=True)
class Geometry:
    """Byte sizes of one group's points on the device."""

    base_bytes: int  # an affine point: 2 (G1) or 4 (G2) field elements
    xyzz_bytes: int  # an XYZZ point: twice that
    shape: tuple[int, ...]  # the protocol's shape of one affine point

    @classmethod
    def of(cls, curve: Curve, group: str) -> Geometry:
        shape = limbs.point_shape(curve, group)
        base = int(np.prod(shape)) * 8
        return cls(base, 2 * base, shape)


@dataclass
class ResidentBases:
    """Bases kept on the device in Montgomery form, in pieces that each fit one allocation; with ``shift`` = c, one
    piece that also holds the shifted copies 2^(c·t)·P_i at t·n + i for the ``windows`` windows of c bits."""

    context: DeviceContext  # the buffers belong to this context and can be used by no other
    pieces: list[tuple[Any, int, int]]  # (buffer, first index, count)
    nbytes: int
    shift: int | None = None
    windows: int = 1


def program(group: str) -> str:
    """The name of the MSM program of ``group``."""
    return f"msm_{group}"


def upload_bases(
    ctx: DeviceContext, curve: Curve, group: str, bases: np.ndarray, sizes: list[int], stored: bool = False
) -> ResidentBases:
    """Copy the bases to the device in pieces of ``sizes`` points and convert them to Montgomery form there (unless
    ``stored``: already in that form, as a .zkey holds them)."""
    pieces, start = [], 0
    for count in sizes:
        buf = ctx.upload(bases[start : start + count])
        if not stored:
            ctx.launch(curve, program(group), f"{group}_bases_to_mont", count, buf, np.uint32(count))
        pieces.append((buf, start, count))
        start += count
    return ResidentBases(ctx, pieces, int(bases.nbytes))


def queue_check(ctx: DeviceContext, curve: Curve, group: str, resident: ResidentBases) -> Finish[int]:
    """Queue the check of stored bases just uploaded (every coordinate below q, every point on the curve or at
    infinity); its Finish gives the index of the first bad point, or −1."""
    bad = ctx.upload(np.array([NONE_BAD], dtype=np.uint32))
    for buf, first, count in resident.pieces:
        ctx.launch(curve, program(group), f"{group}_check_bases", count, buf, np.uint32(count), np.uint32(first), bad)
    read = ctx.read_later(bad, (1,), np.uint32)
    return lambda: -1 if int(read()[0]) == NONE_BAD else int(read()[0])


def shifted_layout(curve: Curve, group: str, n: int, memory: Memory, max_chunk: int | None) -> tuple[int, int] | None:
    """(c, W) of the shifted copies of n bases (see :func:`~cuzk.backends.gpu.plan.shifted_window`) when n ≤
    SHIFTED_MAX_POINTS[curve] and the W copies fit in one allocation and half the free memory; else None."""
    if not n or max_chunk or n > SHIFTED_MAX_POINTS.get(curve.name, SHIFTED_MAX_POINTS_DEFAULT):
        return None
    c = shifted_window(n, curve.r.bit_length())
    w = window_count(curve.r.bit_length(), c)
    nbytes = w * n * Geometry.of(curve, group).base_bytes
    if w > 1 and w * n < 1 << 31 and nbytes <= min(memory.max_alloc, memory.budget // 2):
        return c, w
    return None


def shift(ctx: DeviceContext, curve: Curve, group: str, buf: Any, n: int, layout: tuple[int, int]) -> ResidentBases:
    """The resident bases of ``buf``, whose first n points (Montgomery form) get their shifted copies after them."""
    c, w = layout
    ctx.launch(curve, program(group), f"{group}_shift_bases", n, buf, np.uint32(n), np.uint32(c), np.uint32(w))
    return ResidentBases(ctx, [(buf, 0, n)], w * n * Geometry.of(curve, group).base_bytes, shift=c, windows=w)


def prepare(
    ctx: DeviceContext,
    curve: Curve,
    group: str,
    bases: np.ndarray,
    memory: Memory,
    max_chunk: int | None,
    shifted: bool = False,
    stored: bool = False,
) -> ResidentBases:
    """Upload the bases to stay; with ``shifted``, also their shifted copies when they fit (:func:`shifted_layout`;
    else the bases alone). ``stored``: the bases are a file's words, already in the device's Montgomery form (any
    array whose bytes are those words: a .zkey section's uint8 rows)."""
    geometry = Geometry.of(curve, group)
    n = len(bases)
    layout = shifted_layout(curve, group, n, memory, max_chunk) if shifted else None
    if layout is not None:
        buf = ctx.buffer(layout[1] * n * geometry.base_bytes)
        ctx.write(buf, bases)
        if not stored:
            ctx.launch(curve, program(group), f"{group}_bases_to_mont", n, buf, np.uint32(n))
        return shift(ctx, curve, group, buf, n, layout)
    return upload_bases(ctx, curve, group, bases, piece_sizes(n, geometry.base_bytes, memory, max_chunk), stored)


__all__ = [
    "NONE_BAD",
    "SHIFTED_MAX_POINTS",
    "SHIFTED_MAX_POINTS_DEFAULT",
    "SHIFTED_MIN_USES",
    "Geometry",
    "ResidentBases",
    "prepare",
    "program",
    "queue_check",
    "shift",
    "shifted_layout",
    "upload_bases",
]
