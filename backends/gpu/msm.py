"""The MSM on a GPU device (OpenCL or CUDA): the host side of the kernels in ``backends/kernels/msm*.c``.

Per chunk of points: upload the scalars (and the bases, converted to Montgomery form on the device, unless they
are prepared); count the points per (window, bucket); scan the counts into offsets; scatter the point indices into
bucket order; walk every window's entries and buckets in equal segments (running sums); sum the segments by a tree
into one accumulator per window. After the last chunk, one work-item combines the windows and writes the canonical
affine result.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np

from cuzk.backends import limbs
from cuzk.backends.gpu.context import DeviceContext
from cuzk.backends.gpu.plan import SCAN_BLOCK, Memory, MsmPlan, piece_sizes, plan_msm
from cuzk.reference.curves import Curve

PARALLEL_ITEMS_PER_UNIT = {"cpu": 16, "gpu": 256}  # bucket work-items per compute unit


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
    """Bases kept on the device in Montgomery form, in pieces that each fit one allocation."""

    context: DeviceContext  # the buffers belong to this context and can be used by no other
    pieces: list[tuple[Any, int, int]]  # (buffer, first index, count)
    nbytes: int


def _program(group: str) -> str:
    return f"msm_{group}"


def upload_bases(ctx: DeviceContext, curve: Curve, group: str, bases: np.ndarray, sizes: list[int]) -> ResidentBases:
    """Copy the bases to the device in pieces of ``sizes`` points and convert them to Montgomery form there."""
    pieces, start = [], 0
    for count in sizes:
        buf = ctx.upload(bases[start : start + count])
        ctx.launch(curve, _program(group), f"{group}_bases_to_mont", count, buf, np.uint32(count))
        pieces.append((buf, start, count))
        start += count
    return ResidentBases(ctx, pieces, int(bases.nbytes))


def prepare(
    ctx: DeviceContext, curve: Curve, group: str, bases: np.ndarray, memory: Memory, max_chunk: int | None
) -> ResidentBases:
    geometry = Geometry.of(curve, group)
    return upload_bases(ctx, curve, group, bases, piece_sizes(len(bases), geometry.base_bytes, memory, max_chunk))


def _chunks(plan: MsmPlan, pieces: list[tuple[Any, int, int]]) -> Iterator[tuple[Any, int, int, int]]:
    """(bases buffer, offset in it, first point, count) for every chunk, never crossing a piece."""
    for buf, first, count in pieces:
        for offset in range(0, count, plan.chunk):
            yield buf, offset, first + offset, min(plan.chunk, count - offset)


def msm(
    ctx: DeviceContext,
    curve: Curve,
    group: str,
    scalars: np.ndarray,
    window: int | None,
    memory: Memory,
    *,
    bases: np.ndarray | None = None,
    resident: ResidentBases | None = None,
    max_chunk: int | None = None,
    parallel_items: int | None = None,
) -> np.ndarray:
    """Σ scalars[i]·bases[i] as canonical affine limbs; the bases come as an array or already resident.
    ``parallel_items`` (bucket-kernel work-items over all windows) defaults to what keeps the device busy."""
    geometry = Geometry.of(curve, group)
    n = len(scalars)
    if n == 0:
        return np.zeros(geometry.shape, dtype=np.uint64)
    plan = plan_msm(
        n,
        window,
        scalar_bits=curve.r.bit_length(),
        base_bytes=geometry.base_bytes,
        xyzz_bytes=geometry.xyzz_bytes,
        prepared=resident is not None,
        memory=memory,
        parallel_items=parallel_items or PARALLEL_ITEMS_PER_UNIT[ctx.info.kind] * ctx.info.compute_units,
        max_chunk=max_chunk,
    )
    prog, u32 = _program(group), np.uint32
    c, w, nb = plan.window, plan.windows, plan.buckets
    table_bytes = w * (nb + 1) * 4
    counts, offsets, cursor = ctx.buffer(table_bytes), ctx.buffer(table_bytes), ctx.buffer(table_bytes)
    block_sums = ctx.buffer(w * plan.blocks * 4)
    partial = ctx.buffer(w * plan.segments * geometry.xyzz_bytes)
    acc = ctx.zeros(w * geometry.xyzz_bytes)
    scalar_buf = ctx.buffer(plan.chunk * 32)
    entries = ctx.buffer(w * plan.chunk * 4)
    if resident is None:
        assert bases is not None
        staging = ctx.buffer(plan.chunk * geometry.base_bytes)
        pieces = [(staging, 0, n)]
    else:
        pieces = resident.pieces
    for buf, offset, first, count in _chunks(plan, pieces):
        ctx.write(scalar_buf, scalars[first : first + count])
        if resident is None:
            assert bases is not None
            ctx.write(buf, bases[first : first + count])
            ctx.launch(curve, prog, f"{group}_bases_to_mont", count, buf, u32(count))
            offset = 0
        ctx.fill_zero(counts, table_bytes)
        ctx.launch(curve, prog, "msm_histogram", count, scalar_buf, u32(count), u32(c), u32(w), counts)
        args = (u32(nb), u32(SCAN_BLOCK), u32(plan.blocks), u32(w))
        ctx.launch(curve, prog, "msm_scan_blocks", w * plan.blocks, counts, *args, block_sums)
        ctx.launch(curve, prog, "msm_scan_top", w, block_sums, u32(plan.blocks), u32(w))
        ctx.launch(curve, prog, "msm_scan_fill", w * plan.blocks, counts, block_sums, *args, offsets, cursor)
        ctx.launch(curve, prog, "msm_scatter", count, scalar_buf, u32(count), u32(c), u32(w), cursor, entries)
        ctx.launch(
            curve,
            prog,
            f"{group}_msm_buckets",
            w * plan.segments,
            buf,
            u32(offset),
            entries,
            offsets,
            u32(count),
            u32(nb),
            u32(plan.segments),
            u32(w),
            partial,
        )
        remaining = plan.segments
        while remaining > 1:
            stride = -(-remaining // 2)
            args = (partial, u32(plan.segments), u32(remaining), u32(stride), u32(w))
            ctx.launch(curve, prog, f"{group}_msm_fold", stride * w, *args)
            remaining = stride
        ctx.launch(curve, prog, f"{group}_msm_windows", w, partial, u32(plan.segments), u32(w), acc)
    out = ctx.buffer(geometry.base_bytes)
    ctx.launch(curve, prog, f"{group}_msm_finish", 1, acc, u32(w), u32(c), out)
    return ctx.read(out, geometry.shape)


__all__ = ["Geometry", "ResidentBases", "msm", "prepare", "upload_bases"]
