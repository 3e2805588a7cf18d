"""[k_i]G for the generator G of G1 or G2 on the device: the points of a Groth16 setup (``generator_multiples``).

The table T[t][d] = [d·2^(8t)]G comes from the reference's :class:`~cuzk.reference.fixed_base.FixedBaseTable`
(8-bit windows: 32 rows of 256 points, made once per curve and group in a process), is uploaded and converted to
Montgomery form once per context, and the kernel ``${g}_generator_multiples`` sums one table point per byte of
each scalar (32 mixed additions and one inversion a point, no doubling). The scalars go through in chunks that
fit the device's memory.
"""

from __future__ import annotations

from functools import cache
from typing import Any

import numpy as np

from cuzk.backends import limbs
from cuzk.backends.gpu.bases import Geometry, ResidentBases, program, shift, shifted_layout
from cuzk.backends.gpu.context import DeviceContext
from cuzk.backends.gpu.errors import DeviceMemoryError
from cuzk.backends.gpu.plan import SCALAR_BYTES, Memory, piece_sizes
from cuzk.reference.curves import Curve, curve_by_name
from cuzk.reference.fixed_base import FixedBaseTable

WINDOW = 8  # bits per table row: the kernel reads one byte of the scalar per row


@cache
def table_limbs(curve_name: str, group: str) -> np.ndarray:
    """T[t][d] for every row t and digit d < 256 as canonical affine limbs, (rows · 256, *point shape)."""
    curve = curve_by_name(curve_name)
    table = FixedBaseTable(limbs.group_of(curve, group).generator, window=WINDOW)
    return limbs.points_to_limbs(curve, group, [point for row in table.table for point in row])


def device_table(ctx: DeviceContext, curve: Curve, group: str, cached: dict[Any, Any]) -> Any:
    """The table of ``group``'s generator on the device in Montgomery form, made once per context (``cached``)."""
    key = (curve.name, group)
    if key not in cached:
        host = table_limbs(curve.name, group)
        table = ctx.upload(host)
        ctx.launch(curve, program(group), f"{group}_bases_to_mont", len(host), table, np.uint32(len(host)))
        cached[key] = table
    return cached[key]


def generator_multiples(
    ctx: DeviceContext, curve: Curve, group: str, scalars: np.ndarray, memory: Memory, cached: dict[Any, Any]
) -> np.ndarray:
    """[k_i]G as canonical affine limbs (the identity as zeros) for canonical scalars k_i; ``cached`` keeps the
    device tables of this context by (curve, group)."""
    shape = limbs.point_shape(curve, group)
    n = len(scalars)
    out = np.empty((n, *shape), dtype=np.uint64)
    if n == 0:
        return out
    table = device_table(ctx, curve, group, cached)
    point_bytes = int(np.prod(shape)) * 8
    chunk = min(n, memory.budget // (SCALAR_BYTES + point_bytes), memory.max_alloc // point_bytes)
    if chunk < 1:
        raise DeviceMemoryError(
            f"generator multiples need {SCALAR_BYTES + point_bytes} bytes of device memory per point; "
            f"{memory.budget} are free"
        )
    scalar_buf, out_buf = ctx.buffer(chunk * SCALAR_BYTES), ctx.buffer(chunk * point_bytes)
    for start in range(0, n, chunk):
        count = min(chunk, n - start)
        ctx.write(scalar_buf, scalars[start : start + count])
        kernel = f"{group}_generator_multiples"
        ctx.launch(curve, program(group), kernel, count, table, scalar_buf, np.uint32(count), out_buf)
        out[start : start + count] = ctx.read(out_buf, (count, *shape))
    return out


def generator_bases(
    ctx: DeviceContext,
    curve: Curve,
    group: str,
    scalars: np.ndarray,
    memory: Memory,
    cached: dict[Any, Any],
    max_chunk: int | None,
    shifted: bool = False,
) -> ResidentBases:
    """[k_i]G made where they stay: each piece of the resident bases is the fixed-base kernel's output buffer,
    converted to Montgomery form in place, so no point crosses to the host (a 2^27-point query is 13 GB); with
    ``shifted``, one piece that also holds the shifted copies when they fit, as :func:`~.bases.prepare` makes."""
    geometry, n = Geometry.of(curve, group), len(scalars)
    layout = shifted_layout(curve, group, n, memory, max_chunk) if shifted else None
    sizes = [n] if layout is not None else piece_sizes(n, geometry.base_bytes, memory, max_chunk)
    table, pieces, start = device_table(ctx, curve, group, cached), [], 0
    for count in sizes:
        rows = layout[1] * count if layout is not None else count
        buf = ctx.buffer(rows * geometry.base_bytes)
        scalar_buf = ctx.upload(scalars[start : start + count])
        kernel = f"{group}_generator_multiples"
        ctx.launch(curve, program(group), kernel, count, table, scalar_buf, np.uint32(count), buf)
        ctx.launch(curve, program(group), f"{group}_bases_to_mont", count, buf, np.uint32(count))
        del scalar_buf  # freed before the next piece's buffer is taken
        if layout is not None:
            return shift(ctx, curve, group, buf, n, layout)
        pieces.append((buf, start, count))
        start += count
    return ResidentBases(ctx, pieces, n * geometry.base_bytes)


__all__ = ["WINDOW", "device_table", "generator_bases", "generator_multiples", "table_limbs"]
