"""The NTT and the fused QAP quotient on a GPU device (OpenCL or CUDA): the host side of ``backends/kernels/ntt.c``.

One transform = a few passes of ``fr_ntt_pass``, each work-group running up to 10 radix-2 stages on a tile of 1024
elements in local memory (:func:`passes`: 10 + 10 stages for n = 2^20, 8 + 8 + 8 for n = 2^24). The first pass reads
the input bit-reversed (optionally × a table), the last writes the output (optionally × n⁻¹ or × a table); the first
is out of place, the others in place. Values stay plain (not Montgomery) throughout; tables and constants are in
Montgomery form (see ntt.c). The tables (stage twiddles ω_1024^i; per later pass, its twiddles ω^(lo·rev(j)), made
from ω_n^i in two halves of about √n entries; coset powers g^(±i) and the circom shift ω_2n^i, optionally × n⁻¹) are
computed on the device from the emitted roots and kept in a small cache, so repeated transforms of one size pay for
them once.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

import numpy as np

from cuzk.backends import limbs
from cuzk.backends.errors import BackendInputError
from cuzk.backends.gpu.context import DeviceContext, DeviceScalars, Finish, ready
from cuzk.backends.gpu.errors import DeviceMemoryError
from cuzk.backends.gpu.plan import Memory
from cuzk.backends.kernels import curve_constants
from cuzk.reference.curves import Curve
from cuzk.reference.errors import UnsatisfiedConstraintError

T = TypeVar("T")

FR_BYTES = 32
TILE_LOG = 10  # NTT_TILE_LOG in ntt.c: elements per tile 2^10, stages per pass ≤ 10
# The plans (passes) were chosen by measurement (docs/performance.md). From 2^23 elements on, later passes of 8
# stages and a first pass of the rest (8 + 8 + 8 for 2^24): every pass then moves runs of 4 elements or more (128
# bytes), where a first pass of 10 stages reads its elements one by one. At 2^21 and 2^22 a first pass of 10 stages
# and the rest in two was the faster or as fast; up to 2^20, the fewest passes of up to 10 stages (10 + 10).
RUNS_FROM_LOG = 21
FULL_FIRST_TO_LOG = 22
RUN_STAGES = 8
# Below 2^21 the first pass takes 10 stages (2^18: 10 + 8, not 9 + 9). Up to 2^16 (from 2^11: two passes either
# way), tiles of 2^9 give twice the groups of 2^10, so that a small transform keeps more of a GPU's compute units
# busy (2^16: 128 groups a pass).
SMALL_LOG = 16
GROUP = 256  # NTT_GROUP in ntt.c: work-items per tile at most, one per unit of four elements
MIN_GROUP = 32  # work-items per tile at least: a warp
POWERS_BLOCK = 64  # NTT_POWERS_BLOCK in ntt.c
OMEGA, OMEGA_INV, COSET, COSET_INV, OMEGA_2N = range(5)  # the table bases of ntt_table_base
LOAD_SCALE, STORE_SCALE, STORE_INV_N = 1, 2, 4  # NTT_LOAD_SCALE … in ntt.c
NOT_DIVISIBLE = "A·B − C is not divisible by Z: the witness does not satisfy the constraints"

Table = tuple[int, bool]  # a table of n entries base^i, i < n: (base as ntt_table_base, times n⁻¹)


class Tables:
    """Device tables, least recently used dropped beyond ``limit`` bytes: powers base^i (× n⁻¹ when scaled), i <
    count, and the twiddles between passes (fr_ntt_factors) of one pass."""

    def __init__(self, limit_bytes: int) -> None:
        self.limit = limit_bytes
        self._tables: OrderedDict[tuple[Any, ...], tuple[Any, int]] = OrderedDict()

    def _cached(
        self, ctx: DeviceContext, curve: Curve, key: tuple[Any, ...], count: int, kernel: str, items: int, *args: Any
    ) -> Any:
        """The table ``key`` of ``count`` elements, made when missing by ``kernel(out, *args)`` over ``items``."""
        key = (curve.name, *key)
        if key in self._tables:
            self._tables.move_to_end(key)
            return self._tables[key][0]
        buf = ctx.buffer(count * FR_BYTES)
        ctx.launch(curve, "ntt", kernel, items, buf, *args)
        self._tables[key] = (buf, count * FR_BYTES)
        self._trim(keep=1)
        return buf

    @property
    def nbytes(self) -> int:
        return sum(size for _, size in self._tables.values())

    def fit(self, limit_bytes: int) -> None:
        """Keep at most ``limit_bytes`` from now on, the least recently used dropped now: the device's memory left
        beside the resident keys and a proof's kept arrays sets the limit at each call."""
        self.limit = limit_bytes
        self._trim(keep=0)

    def _trim(self, keep: int) -> None:
        while self.nbytes > self.limit and len(self._tables) > keep:
            self._tables.popitem(last=False)

    def powers(self, ctx: DeviceContext, curve: Curve, which: int, log_n: int, count: int, scaled: bool = False) -> Any:
        """base^i (× 2^(−log_n) when scaled), i < count; the base as ntt_table_base(which, log_n)."""
        u32 = np.uint32
        key, items = ("powers", which, log_n, count, scaled), -(-count // POWERS_BLOCK)
        return self._cached(ctx, curve, key, count, "fr_powers", items, u32(count), u32(which), u32(log_n), u32(scaled))

    def factors(self, ctx: DeviceContext, curve: Curve, which: int, log_n: int, first: int, r: int, c: int) -> Any:
        """The 2^(first+r) twiddles of the pass (first, r, c) of a 2^log_n transform by ω = ntt_table_base(which)."""
        u32 = np.uint32
        roots_log = (log_n + 1) // 2  # ω_n^k from two tables of about √n entries
        roots_lo = self.powers(ctx, curve, which, log_n, 1 << roots_log)
        roots_hi = self.powers(ctx, curve, which, log_n - roots_log, 1 << (log_n - roots_log))
        args = (roots_lo, roots_hi, u32(log_n), u32(roots_log), u32(first), u32(r), u32(c))
        key, count = ("factors", which, log_n, first, r, c), 1 << (first + r)
        return self._cached(ctx, curve, key, count, "fr_ntt_factors", count, *args)


def check_memory(n: int, arrays: int, memory: Memory, what: str) -> None:
    """``arrays`` arrays of n Fr elements must fit (NTTs are not split into chunks), and n < 2^31 (32-bit indices)."""
    if n >= 1 << 31 or n * FR_BYTES > memory.max_alloc or arrays * n * FR_BYTES > memory.budget:
        raise DeviceMemoryError(
            f"{what} of {n} values needs {arrays} buffers of {n * FR_BYTES} bytes; the device allows "
            f"{memory.budget} bytes ({memory.max_alloc} per buffer), and NTTs are not split into chunks: "
            "use a smaller domain or a device with more memory"
        )


def passes(log_n: int, max_stages: int = TILE_LOG, stages: Sequence[int] | None = None) -> list[tuple[int, int, int]]:
    """The passes of a 2^log_n transform as (first stage, stages r, c), each tile holding 2^c groups of 2^r elements
    (2^(r+c) ≤ 2^max_stages): in a later pass the groups' elements lie in runs of 2^c consecutive ones, in the first
    (which reads its input bit-reversed) the groups' inputs do. ``stages`` gives the r of each pass. By default:

    - above 2^FULL_FIRST_TO_LOG, the fewest passes of RUN_STAGES after a first pass of the rest (up to 10);
    - from 2^RUNS_FROM_LOG to 2^FULL_FIRST_TO_LOG, a first pass of 10 stages and two of the rest, the longer first;
    - above 2^SMALL_LOG, a first pass of 10 stages and a second of the rest;
    - from 2^11 to 2^SMALL_LOG, two passes in tiles of 2^9, split evenly, the shorter first;
    - up to 2^10, one pass.

    A max_stages below 10 (smaller tiles in smaller work-groups) gives the fewest passes of at most that, split
    evenly, the shorter first: tests of several passes on small inputs, and plans for small transforms
    (``benchmarks/gpu/ntt_plans.py``)."""
    if stages is None and max_stages == TILE_LOG and log_n > FULL_FIRST_TO_LOG:
        later = -(-(log_n - TILE_LOG) // RUN_STAGES)  # the first pass takes up to TILE_LOG stages
        stages = [log_n - RUN_STAGES * later] + [RUN_STAGES] * later
    elif stages is None and max_stages == TILE_LOG and log_n >= RUNS_FROM_LOG:
        rest = log_n - TILE_LOG
        stages = [TILE_LOG, rest - rest // 2, rest // 2]
    elif stages is None and max_stages == TILE_LOG and log_n > SMALL_LOG:
        stages = [TILE_LOG, log_n - TILE_LOG]
    elif stages is None:
        if max_stages == TILE_LOG and log_n > TILE_LOG:  # 2^11 … 2^SMALL_LOG
            max_stages = TILE_LOG - 1
        count = max(1, -(-log_n // max_stages))
        stages = [log_n // count + (1 if k >= count - log_n % count else 0) for k in range(count)]
    if sum(stages) != log_n or any(not 0 <= r <= max_stages for r in stages) or (log_n and 0 in stages):
        raise ValueError(f"passes of {list(stages)} stages for a transform of 2^{log_n} ({max_stages} at most a pass)")
    plan, first = [], 0
    for r in stages:
        plan.append((first, r, min(max_stages - r, first if first else log_n - r)))
        first += r
    return plan


def transform(
    ctx: DeviceContext,
    curve: Curve,
    tables: Tables,
    src: Any,
    dst: Any,
    log_n: int,
    *,
    inverse: bool,
    load: Table | None = None,
    store: Table | None = None,
    inv_n: bool = False,
    max_stages: int = TILE_LOG,
    stages: Sequence[int] | None = None,
) -> None:
    """dst ← the radix-2 transform (by ω_n, or ω_n⁻¹ when inverse) of src × the load table, the result × the store
    table or × n⁻¹ (inv_n; one of the two, a scaled table holds n⁻¹), in the passes of :func:`passes`. src and dst
    are distinct; src is left as it was."""
    if store is not None and inv_n:
        raise ValueError("inv_n and a store table: use a scaled store table (it holds n⁻¹)")
    u32, n = np.uint32, 1 << log_n
    omega = OMEGA_INV if inverse else OMEGA
    twiddles = tables.powers(ctx, curve, omega, TILE_LOG, 1 << (TILE_LOG - 1))
    load_buf = tables.powers(ctx, curve, load[0], log_n, n, load[1]) if load is not None else ctx.dummy
    store_buf = tables.powers(ctx, curve, store[0], log_n, n, store[1]) if store is not None else ctx.dummy
    flags = (LOAD_SCALE if load else 0) | (STORE_SCALE if store else 0) | (STORE_INV_N if inv_n else 0)
    for first, r, c in passes(log_n, max_stages, stages):
        factors = tables.factors(ctx, curve, omega, log_n, first, r, c) if first else ctx.dummy
        args = (src if first == 0 else dst, dst, twiddles, factors, load_buf, store_buf)
        group = min(GROUP, max(MIN_GROUP, 1 << max(0, r + c - 2)))  # a work-item per unit of the tile
        items = (n >> (r + c)) * group
        ctx.launch(
            curve, "ntt", "fr_ntt_pass", items, *args, u32(log_n), u32(first), u32(r), u32(c), u32(flags), group=group
        )


def queue_ntt(
    ctx: DeviceContext, curve: Curve, tables: Tables, values: np.ndarray, inverse: bool, coset: bool, memory: Memory
) -> Finish[np.ndarray]:
    """Queue the reference's ntt(values, inverse=…, coset=…) on canonical (n, 4) limbs."""
    n = len(values)
    if n == 0:
        return ready(values.copy())
    check_memory(n, 4, memory, "an NTT")  # src, dst, a coset table, the last pass's factors
    log_n = n.bit_length() - 1
    src, dst = ctx.upload(values), ctx.buffer(n * FR_BYTES)
    if inverse:  # a_j = n⁻¹·iNTT(A)_j, × g^(−j) on the coset
        store = (COSET_INV, True) if coset else None
        transform(ctx, curve, tables, src, dst, log_n, inverse=True, store=store, inv_n=not coset)
    else:  # A = NTT(a_j·g^j) on the coset
        transform(ctx, curve, tables, src, dst, log_n, inverse=False, load=(COSET, False) if coset else None)
    return ctx.read_later(dst, values.shape)


def _montgomery_scalar(ctx: DeviceContext, curve: Curve, value: int) -> Any:
    """value·R mod r on the device, R = 2^256: the Montgomery form of both APIs (4 × 64-bit or 8 × 32-bit limbs)."""
    fr = curve_constants(curve, 64).fr
    return ctx.upload(limbs.int_to_limbs(fr.to_montgomery(value % curve.r), limbs.FR_LIMBS).reshape(1, -1))


def queue_compute_h(
    ctx: DeviceContext,
    curve: Curve,
    tables: Tables,
    a: np.ndarray | DeviceScalars,
    b: np.ndarray | DeviceScalars,
    c: np.ndarray | DeviceScalars,
    reduction: str,
    memory: Memory,
    *,
    keep: bool = False,
    consume: bool = False,
    remeasure: Callable[[], Memory] | None = None,
) -> Finish[np.ndarray] | Finish[DeviceScalars]:
    """Queue the reference's witness_map(a, b, c, reduction) with every step on the device (see the protocol); the
    Finish raises UnsatisfiedConstraintError when the quotient does not divide. With ``keep`` the result stays on
    the device (DeviceScalars), and only libsnark's last coefficient is read, for that check. a, b and c may be on
    the device already; they are read, not changed, unless ``consume`` and their copies do not fit: then kept ones
    are transformed in place, and if even that does not fit beside the cached tables, the cache is emptied and
    ``remeasure`` tells the memory again."""
    n = len(a)
    in_place = _in_place(n, tables, memory, remeasure, (a, b, c) if consume else ())
    log_n = n.bit_length() - 1
    ends = [_transform_ends(ctx, v, name, in_place) for name, v in zip("abc", (a, b, c), strict=True)]
    tmp = ctx.buffer(n * FR_BYTES)
    shift = (COSET if reduction == "libsnark" else OMEGA_2N, True)
    # values on H → n·coefficients → values on g·H (libsnark) or on ω_2n·H (circom), × n⁻¹ on load
    for src, dst in ends:
        transform(ctx, curve, tables, src, tmp, log_n, inverse=True)
        transform(ctx, curve, tables, tmp, dst, log_n, inverse=False, load=shift)
    bufs = [dst for _, dst in ends]
    g = curve.Fr.GENERATOR.value
    factor = pow(pow(g, n, curve.r) - 1, -1, curve.r) if reduction == "libsnark" else 1
    fr = curve_constants(curve, 64).fr
    factor_buf = _montgomery_scalar(ctx, curve, fr.to_montgomery(factor))  # f·R², see fr_qap_combine
    ctx.launch(curve, "ntt", "fr_qap_combine", n, bufs[0], bufs[1], bufs[2], bufs[0], np.uint32(n), factor_buf)
    if reduction == "circom":
        return ready(DeviceScalars.of(ctx, bufs[0], n)) if keep else ctx.read_later(bufs[0], (n, limbs.FR_LIMBS))
    transform(ctx, curve, tables, bufs[0], tmp, log_n, inverse=True, store=(COSET_INV, True))
    if keep:
        last = ctx.read_later(tmp, (1, limbs.FR_LIMBS), offset=(n - 1) * FR_BYTES)
        return lambda: _divided(last(), DeviceScalars.of(ctx, tmp, n - 1))
    read = ctx.read_later(tmp, (n, limbs.FR_LIMBS))

    def finish() -> np.ndarray:
        h = read()
        return _divided(h[n - 1 :], h[: n - 1])

    return finish


def _in_place(
    n: int,
    tables: Tables,
    memory: Memory,
    remeasure: Callable[[], Memory] | None,
    values: tuple[np.ndarray | DeviceScalars, ...],
) -> bool:
    """Whether a quotient of n values that may consume kept ``values`` (none: it may not) transforms them in place
    (their copies do not fit); DeviceMemoryError when neither way fits, even with the table cache emptied and the
    memory asked again (``remeasure``, where given)."""
    try:
        check_memory(n, 8, memory, "the QAP quotient")  # a, b, c, tmp, two coset tables, two of factors
        return False
    except DeviceMemoryError:
        if not values or not all(isinstance(v, DeviceScalars) and v.first == 0 for v in values):
            raise
    # tmp, and the tables: the cache keeps at most tables.limit bytes of them (the older ones dropped), and a
    # transform needs one coset and one factor table of up to n values at a time
    held = min(4, max(2, tables.limit // (n * FR_BYTES)))
    try:
        check_memory(n, 1 + held, memory, "the QAP quotient in place")
    except DeviceMemoryError:
        if remeasure is None:
            raise
        tables.fit(0)  # tables of earlier calls (a setup's, the last proof's): made again as this one needs them
        check_memory(n, 1 + held, remeasure(), "the QAP quotient in place")
    return True


def _transform_ends(
    ctx: DeviceContext, values: np.ndarray | DeviceScalars, name: str, in_place: bool = False
) -> tuple[Any, Any]:
    """(the buffer a transform of ``values`` reads, a buffer of as many rows its result may go to): an array's
    upload serves as both; scalars kept on the device are read in place and left as they were (overwritten when
    ``in_place``). Kept rows from an offset (a transform reads from row 0) go through the host."""
    if isinstance(values, DeviceScalars) and values.context is not ctx:
        raise BackendInputError("kept by another device context: use the backend that made them", array=name)
    if isinstance(values, DeviceScalars) and values.first == 0:
        return values.buffer, values.buffer if in_place else ctx.buffer(len(values) * FR_BYTES)
    buf = ctx.upload(values.to_host() if isinstance(values, DeviceScalars) else values)
    return buf, buf


def _divided(last: np.ndarray, result: T) -> T:
    """``result``, once the quotient's last coefficient h_(n−1) is seen to be 0 (else the QAP does not divide)."""
    if last.any():
        raise UnsatisfiedConstraintError(NOT_DIVISIBLE)
    return result


__all__ = ["Tables", "check_memory", "passes", "queue_compute_h", "queue_ntt", "transform"]
