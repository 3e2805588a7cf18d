"""How an MSM is cut to fit the device: the window, the bucket segments, the chunks of points (pure Python).

Per window of c bits the MSM keeps NB = 2^(c−1) buckets. Device memory holds, besides the bases:

    fixed      counts, offsets, cursor  3 · W · (NB + 1) · 4 bytes; block sums; the NB bucket sums of each window
               held at once; four XYZZ points per segment (its share of the reduction, its parts of the two buckets
               its range may cut, and the weighted part of one)
    per point  its scalar (32 bytes), its W bucket entries (4 bytes each), its base unless prepared

Points are processed in chunks of at most ``chunk`` points; each buffer must also fit in the device's largest
allocation. When even the fixed part, or it plus one point, does not fit, :class:`DeviceMemoryError` says so.
"""

from __future__ import annotations

from dataclasses import dataclass

from cuzk.backends.gpu.errors import DeviceMemoryError
from cuzk.reference.msm import window_count

SCALAR_BYTES = 32
MIN_SCAN_BLOCK = 64
MAX_CHUNK = (1 << 31) - 1  # bucket entries hold a point's index in 31 bits (bit 31: negated)
MAX_DEFAULT_WINDOW = 20


@dataclass(frozen=True)
class Memory:
    """What one call may use: ``budget`` bytes in all, ``max_alloc`` bytes per buffer."""

    budget: int
    max_alloc: int


@dataclass(frozen=True)
class MsmPlan:
    window: int  # c
    windows: int  # W
    buckets: int  # NB = 2^(c−1)
    segments: int  # bucket-kernel work-items per window (each takes an equal share of its entries, of its buckets)
    sum_rows: int  # windows whose bucket sums are held at once (the bucket kernels run over them in turn)
    blocks: int  # scan blocks per window
    chunk: int  # points per chunk
    fixed_bytes: int
    point_bytes: int  # device bytes per point of a chunk


def scan_block(nb: int) -> int:
    """Buckets per block of the three-step scan of a row of nb counts: about √nb (at least MIN_SCAN_BLOCK), so that
    the serial middle step (one work-item a row, over the blocks) and the blocks' own loops stay short: with blocks
    of a fixed small size, the middle step alone took milliseconds on the rows of a large MSM (docs/performance.md)."""
    return max(MIN_SCAN_BLOCK, 1 << ((nb.bit_length() + 1) // 2))


def window_cost(n: int, c: int, scalar_bits: int) -> int:
    """Point additions of a Pippenger MSM of n points, c-bit windows: W·(n + 2·NB) (bucket fills, running sums)."""
    return window_count(scalar_bits, c) * (n + 2 * (1 << (c - 1)))


def fewest_additions_window(n: int, scalar_bits: int) -> int:
    """The c in 1 … MAX_DEFAULT_WINDOW with the fewest additions (about log2 n − 3 for large n)."""
    return min(range(1, MAX_DEFAULT_WINDOW + 1), key=lambda c: (window_cost(n, c, scalar_bits), c))


MAX_SHIFTED_WINDOW = 24  # 2^23 buckets: tables of 32 MiB per row
# From this many points an MSM over scalars kept on the device runs its bucket kernels one row (window) at a time
# with every work-item on that row, instead of all rows at once with an equal share each: a PoRep witness's
# scalars are mostly 0 and 1, so window 0 holds its ones and most of the entries, and with equal shares that
# row's work-items worked while the others' waited; dense scalars gained as much (2^24 BLS12-381 on an H200: −30 %,
# docs/performance.md). Below 2^22 points, where a row keeps fewer entries per work-item and the proofs of issue
# 24 were measured, the rows stay together until measured. (Scalars from host memory keep all rows at once: their
# upload overlaps the kernels, which needs every row's sums held together.)
ROWS_APART_FROM = 1 << 22


def shifted_window(n: int, scalar_bits: int) -> int:
    """The c for an MSM over shifted bases: one bucket row serves every window, so the cost is W·n + 2·NB
    (entries, running sums once) rather than W·(n + 2·NB), and wider windows pay off sooner."""

    def cost(c: int) -> int:
        return window_count(scalar_bits, c) * n + 2 * (1 << (c - 1))

    return min(range(1, MAX_SHIFTED_WINDOW + 1), key=lambda c: (cost(c), c))


def plan_msm(
    n: int,
    window: int | None,
    *,
    scalar_bits: int,
    base_bytes: int,
    xyzz_bytes: int,
    prepared: bool,
    memory: Memory,
    parallel_items: int,
    max_chunk: int | None = None,
    rows_apart: bool = False,
) -> MsmPlan:
    """The plan for an MSM of n ≥ 1 points; with ``window`` None the default window, made smaller while the
    bucket tables do not fit. ``parallel_items`` is how many bucket work-items keep the device busy; with
    ``rows_apart`` each row gets all of them in turn (see ROWS_APART_FROM)."""
    sizes = (scalar_bits, base_bytes, xyzz_bytes, prepared, memory, parallel_items, max_chunk, rows_apart)
    if window is not None:
        return _plan(n, window, *sizes)
    c = fewest_additions_window(n, scalar_bits)
    while True:
        try:
            return _plan(n, c, *sizes)
        except DeviceMemoryError:
            if c == 1:
                raise
            c -= 1


def _plan(
    n: int,
    c: int,
    scalar_bits: int,
    base_bytes: int,
    xyzz_bytes: int,
    prepared: bool,
    memory: Memory,
    parallel_items: int,
    max_chunk: int | None,
    rows_apart: bool = False,
) -> MsmPlan:
    w = window_count(scalar_bits, c)
    nb = 1 << (c - 1)
    blocks = -(-nb // scan_block(nb))
    table = w * (nb + 1) * 4
    per_point = SCALAR_BYTES + 4 * w + (0 if prepared else base_bytes)
    segments = min(n + nb, max(1, parallel_items if rows_apart else -(-parallel_items // w)))
    sum_rows = 1 if rows_apart else max(1, min(w, memory.max_alloc // (nb * xyzz_bytes)))
    while True:  # fewer rows of bucket sums at once, then fewer segments (less parallelism), until the tables fit
        held = sum_rows * (nb + 2 * segments)  # bucket sums and edge parts of the rows held at once
        fixed = 3 * table + w * blocks * 4 + (2 * w * segments + w + held) * xyzz_bytes + base_bytes
        largest_fixed = max(table, 2 * w * segments * xyzz_bytes, max(nb, 2 * segments) * sum_rows * xyzz_bytes)
        fits = largest_fixed <= memory.max_alloc and fixed + per_point <= memory.budget
        if fits or (segments == 1 and sum_rows == 1):
            break
        if sum_rows > 1:
            sum_rows //= 2
        else:
            segments //= 2
    if not fits:
        raise DeviceMemoryError(
            f"an MSM with {c}-bit windows ({w} windows × {nb} buckets) needs {fixed + per_point} bytes of device "
            f"memory for its bucket tables and one point, in buffers of up to {largest_fixed} bytes; the device "
            f"allows {memory.budget} bytes ({memory.max_alloc} per buffer): use a smaller window (or none, to let "
            "the backend choose)"
        )
    chunk = (memory.budget - fixed) // per_point
    chunk = min(chunk, n, MAX_CHUNK, memory.max_alloc // (4 * w), memory.max_alloc // SCALAR_BYTES)
    if not prepared:
        chunk = min(chunk, memory.max_alloc // base_bytes)
    if max_chunk is not None:
        chunk = min(chunk, max_chunk)
    return MsmPlan(c, w, nb, segments, sum_rows, blocks, max(1, chunk), fixed, per_point)


def piece_sizes(n: int, base_bytes: int, memory: Memory, max_chunk: int | None = None) -> list[int]:
    """How prepared bases are split into buffers: pieces of at most ``max_alloc`` bytes (and ``max_chunk``)."""
    per_piece = max(1, memory.max_alloc // base_bytes)
    if max_chunk is not None:
        per_piece = min(per_piece, max_chunk)
    if n * base_bytes > memory.budget:
        raise DeviceMemoryError(
            f"{n} prepared bases need {n * base_bytes} bytes of device memory, but {memory.budget} are free: "
            "prepare fewer bases, or call msm() with the bases, which streams them in chunks"
        )
    return [min(per_piece, n - start) for start in range(0, n, per_piece)]


__all__ = [
    "Memory",
    "MsmPlan",
    "fewest_additions_window",
    "piece_sizes",
    "plan_msm",
    "scan_block",
    "shifted_window",
    "window_cost",
]
