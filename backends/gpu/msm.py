"""The MSM on a GPU device (OpenCL or CUDA): the host side of the kernels in ``backends/kernels/msm*.c``.

Per chunk of points: upload the scalars (and the bases, converted to Montgomery form on the device, unless they
are prepared); count the points per (window, bucket); scan the counts into offsets; scatter the point indices into
bucket order; walk every window's entries and buckets in equal segments (running sums); sum the segments by a tree
into one accumulator per window. After the last chunk, one work-item combines the windows and writes the canonical
affine result. Over shifted resident bases (2^(c·t)·P_i made once when the bases are prepared) every window's
pairs share one row of buckets: one accumulator, no doublings between windows.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np

from cuzk.backends import limbs
from cuzk.backends.gpu.context import DeviceContext
from cuzk.backends.gpu.plan import SCALAR_BYTES, SCAN_BLOCK, Memory, MsmPlan, piece_sizes, plan_msm, shifted_window
from cuzk.reference.curves import Curve
from cuzk.reference.msm import window_count

PARALLEL_ITEMS_PER_UNIT = {"cpu": 16, "gpu": 256}  # bucket work-items per compute unit
# Shifted bases pay up to 2^20 points and cost beyond (H200, BN254 G1, device ms unshifted → shifted: 2^16 3.71 → 1.91,
# 2^18 5.89 → 3.92, 2^20 13.8 → 13.8, 2^22 41.1 → 64.4, 2^24 163 → 212: W copies of the bases read at random).
SHIFTED_MAX_POINTS = 1 << 20


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
    ctx: DeviceContext,
    curve: Curve,
    group: str,
    bases: np.ndarray,
    memory: Memory,
    max_chunk: int | None,
    shifted: bool = False,
) -> ResidentBases:
    """Upload the bases to stay; with ``shifted``, also their shifted copies for the window of n points (see
    :func:`~cuzk.backends.gpu.plan.shifted_window`) when n ≤ SHIFTED_MAX_POINTS and the copies fit in one allocation
    and half the free memory (else the bases alone)."""
    geometry = Geometry.of(curve, group)
    n = len(bases)
    if shifted and n and not max_chunk and n <= SHIFTED_MAX_POINTS:
        c = shifted_window(n, curve.r.bit_length())
        w = window_count(curve.r.bit_length(), c)
        nbytes = w * n * geometry.base_bytes
        if w > 1 and w * n < 1 << 31 and nbytes <= min(memory.max_alloc, memory.budget // 2):
            buf = ctx.buffer(nbytes)
            ctx.write(buf, bases)
            prog = _program(group)
            ctx.launch(curve, prog, f"{group}_bases_to_mont", n, buf, np.uint32(n))
            ctx.launch(curve, prog, f"{group}_shift_bases", n, buf, np.uint32(n), np.uint32(c), np.uint32(w))
            return ResidentBases(ctx, [(buf, 0, n)], nbytes, shift=c, windows=w)
    return upload_bases(ctx, curve, group, bases, piece_sizes(n, geometry.base_bytes, memory, max_chunk))


def _chunks(plan: MsmPlan, pieces: list[tuple[Any, int, int]]) -> Iterator[tuple[Any, int, int, int]]:
    """(bases buffer, offset in it, first point, count) for every chunk, never crossing a piece."""
    for buf, first, count in pieces:
        for offset in range(0, count, plan.chunk):
            yield buf, offset, first + offset, min(plan.chunk, count - offset)


@dataclass
class Tables:
    """The device buffers of one MSM's sort and bucket sums, for ``rows`` rows of buckets (a row per window, or
    one row for all windows over shifted bases) and ``entries`` (point, bucket) pairs."""

    counts: Any
    offsets: Any
    cursor: Any
    block_sums: Any
    partial: Any
    acc: Any
    entries: Any
    table_bytes: int

    @classmethod
    def allocate(
        cls, ctx: DeviceContext, geometry: Geometry, rows: int, nb: int, blocks: int, segments: int, entries: int
    ) -> Tables:
        table_bytes = rows * (nb + 1) * 4
        return cls(
            ctx.buffer(table_bytes),
            ctx.buffer(table_bytes),
            ctx.buffer(table_bytes),
            ctx.buffer(rows * blocks * 4),
            ctx.buffer(rows * segments * geometry.xyzz_bytes),
            ctx.zeros(rows * geometry.xyzz_bytes),
            ctx.buffer(entries * 4),
            table_bytes,
        )


def accumulate(
    ctx: DeviceContext,
    curve: Curve,
    group: str,
    tables: Tables,
    scalar_buf: Any,
    count: int,
    bases_buf: Any,
    offset: int,
    *,
    c: int,
    windows: int,
    blocks: int,
    segments: int,
    merged: bool,
) -> None:
    """Sort ``count`` points into buckets and add their bucket sums into ``tables.acc``: one accumulator per
    window, or (``merged``, over shifted bases) one for all windows."""
    prog, u32 = _program(group), np.uint32
    rows, nb = (1 if merged else windows), 1 << (c - 1)
    digits = (scalar_buf, u32(count), u32(c), u32(windows), u32(merged))
    ctx.fill_zero(tables.counts, tables.table_bytes)
    ctx.launch(curve, prog, "msm_histogram", count, *digits, tables.counts)
    args = (u32(nb), u32(SCAN_BLOCK), u32(blocks), u32(rows))
    ctx.launch(curve, prog, "msm_scan_blocks", rows * blocks, tables.counts, *args, tables.block_sums)
    ctx.launch(curve, prog, "msm_scan_top", rows, tables.block_sums, u32(blocks), u32(rows))
    fill = (tables.counts, tables.block_sums, *args, tables.offsets, tables.cursor)
    ctx.launch(curve, prog, "msm_scan_fill", rows * blocks, *fill)
    ctx.launch(curve, prog, "msm_scatter", count, *digits, tables.cursor, tables.entries)
    row_length = count * windows if merged else count
    bucket_args = (bases_buf, u32(offset), tables.entries, tables.offsets, u32(row_length), u32(nb))
    ctx.launch(
        curve, prog, f"{group}_msm_buckets", rows * segments, *bucket_args, u32(segments), u32(rows), tables.partial
    )
    remaining = segments
    while remaining > 1:
        stride = -(-remaining // 2)
        fold = (tables.partial, u32(segments), u32(remaining), u32(stride), u32(rows))
        ctx.launch(curve, prog, f"{group}_msm_fold", stride * rows, *fold)
        remaining = stride
    ctx.launch(curve, prog, f"{group}_msm_windows", rows, tables.partial, u32(segments), u32(rows), tables.acc)


def finish(
    ctx: DeviceContext, curve: Curve, group: str, geometry: Geometry, tables: Tables, rows: int, c: int
) -> np.ndarray:
    """Σ_t 2^(c·t)·acc[t] over the ``rows`` accumulators (one: no doubling), as canonical affine limbs."""
    out = ctx.buffer(geometry.base_bytes)
    ctx.launch(curve, _program(group), f"{group}_msm_finish", 1, tables.acc, np.uint32(rows), np.uint32(c), out)
    return ctx.read(out, geometry.shape)


def _msm_shifted(
    ctx: DeviceContext,
    curve: Curve,
    group: str,
    scalars: np.ndarray,
    resident: ResidentBases,
    memory: Memory,
    parallel_items: int,
) -> np.ndarray | None:
    """The MSM over shifted resident bases (one bucket row for all windows, no Horner), or None when its tables do
    not fit the memory (the caller then takes the per-window path over the unshifted bases)."""
    geometry = Geometry.of(curve, group)
    assert resident.shift is not None
    n, c, w = len(scalars), resident.shift, resident.windows
    nb = 1 << (c - 1)
    blocks = -(-nb // SCAN_BLOCK)
    segments = max(1, min(w * n + nb, parallel_items))
    needed = 3 * (nb + 1) * 4 + blocks * 4 + (segments + 1) * geometry.xyzz_bytes + n * SCALAR_BYTES + w * n * 4
    largest = max(w * n * 4, segments * geometry.xyzz_bytes, n * SCALAR_BYTES)
    if w * n >= 1 << 31 or needed > memory.budget or largest > memory.max_alloc:
        return None
    tables = Tables.allocate(ctx, geometry, 1, nb, blocks, segments, w * n)
    scalar_buf = ctx.upload(scalars)
    buf = resident.pieces[0][0]
    shape = {"c": c, "windows": w, "blocks": blocks, "segments": segments}
    accumulate(ctx, curve, group, tables, scalar_buf, n, buf, 0, merged=True, **shape)
    return finish(ctx, curve, group, geometry, tables, 1, c)


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
    items = parallel_items or PARALLEL_ITEMS_PER_UNIT[ctx.info.kind] * ctx.info.compute_units
    if resident is not None and resident.shift is not None and window in (None, resident.shift) and not max_chunk:
        result = _msm_shifted(ctx, curve, group, scalars, resident, memory, items)
        if result is not None:
            return result
    plan = plan_msm(
        n,
        window,
        scalar_bits=curve.r.bit_length(),
        base_bytes=geometry.base_bytes,
        xyzz_bytes=geometry.xyzz_bytes,
        prepared=resident is not None,
        memory=memory,
        parallel_items=items,
        max_chunk=max_chunk,
    )
    c, w = plan.window, plan.windows
    tables = Tables.allocate(ctx, geometry, w, plan.buckets, plan.blocks, plan.segments, w * plan.chunk)
    scalar_buf = ctx.buffer(plan.chunk * SCALAR_BYTES)
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
            ctx.launch(curve, _program(group), f"{group}_bases_to_mont", count, buf, np.uint32(count))
            offset = 0
        shape = {"c": c, "windows": w, "blocks": plan.blocks, "segments": plan.segments}
        accumulate(ctx, curve, group, tables, scalar_buf, count, buf, offset, merged=False, **shape)
    return finish(ctx, curve, group, geometry, tables, w, c)


__all__ = ["Geometry", "ResidentBases", "Tables", "accumulate", "finish", "msm", "prepare", "upload_bases"]
