"""The NTT and the fused QAP quotient on a GPU device (OpenCL or CUDA): the host side of ``backends/kernels/ntt.c``.

One transform = a bit-reversing load (into Montgomery form, optionally scaled by a table), ⌈log2 n / 4⌉ passes of
radix-2^r butterflies, and a store (optionally × n⁻¹, × a table, out of Montgomery form). The tables (twiddles
ω^i, coset powers g^(±i), the circom shift ω_2n^i) are computed on the device from the emitted roots and kept in a
small cache, so repeated transforms of one size pay for them once.
"""

from __future__ import annotations

from collections import OrderedDict
from typing import Any

import numpy as np

from cuzk.backends import limbs
from cuzk.backends.gpu.context import DeviceContext
from cuzk.backends.gpu.errors import DeviceMemoryError
from cuzk.backends.gpu.plan import Memory
from cuzk.backends.kernels import curve_constants
from cuzk.reference.curves import Curve
from cuzk.reference.errors import UnsatisfiedConstraintError

FR_BYTES = 32
MAX_RADIX_LOG = 4  # NTT_MAX_RADIX_LOG in ntt.c
POWERS_BLOCK = 64  # NTT_POWERS_BLOCK in ntt.c
OMEGA, OMEGA_INV, COSET, COSET_INV, OMEGA_2N = range(5)  # the table bases of ntt_table_base
LOAD_TO_MONT, LOAD_SCALE = 1, 2
STORE_INV_N, STORE_SCALE, STORE_FROM_MONT = 1, 2, 4
NOT_DIVISIBLE = "A·B − C is not divisible by Z: the witness does not satisfy the constraints"


class Tables:
    """Device tables base^i, i < count, by (curve, base, log n); least recently used dropped beyond ``limit``."""

    def __init__(self, limit_bytes: int) -> None:
        self.limit = limit_bytes
        self._tables: OrderedDict[tuple[str, int, int], tuple[Any, int]] = OrderedDict()

    def get(self, ctx: DeviceContext, curve: Curve, which: int, log_n: int) -> Any:
        count = (1 << log_n) // 2 if which in (OMEGA, OMEGA_INV) else 1 << log_n
        if count == 0:
            return ctx.dummy
        key = (curve.name, which, log_n)
        if key in self._tables:
            self._tables.move_to_end(key)
            return self._tables[key][0]
        buf = ctx.buffer(count * FR_BYTES)
        items = -(-count // POWERS_BLOCK)
        ctx.launch(curve, "ntt", "fr_powers", items, buf, np.uint32(count), np.uint32(which), np.uint32(log_n))
        self._tables[key] = (buf, count * FR_BYTES)
        while sum(size for _, size in self._tables.values()) > self.limit and len(self._tables) > 1:
            self._tables.popitem(last=False)
        return buf


def check_memory(n: int, arrays: int, memory: Memory, what: str) -> None:
    """``arrays`` arrays of n Fr elements must fit (NTTs are not split into chunks), and n < 2^31 (32-bit indices)."""
    if n >= 1 << 31 or n * FR_BYTES > memory.max_alloc or arrays * n * FR_BYTES > memory.budget:
        raise DeviceMemoryError(
            f"{what} of {n} values needs {arrays} buffers of {n * FR_BYTES} bytes; the device allows "
            f"{memory.budget} bytes ({memory.max_alloc} per buffer), and NTTs are not split into chunks: "
            "use a smaller domain or a device with more memory"
        )


def transform(
    ctx: DeviceContext,
    curve: Curve,
    tables: Tables,
    src: Any,
    dst: Any,
    tmp: Any,
    log_n: int,
    *,
    inverse: bool,
    load: int = 0,
    load_table: int | None = None,
    store: int = 0,
    store_table: int | None = None,
) -> None:
    """dst ← the radix-2 transform of src (by ω_n or ω_n⁻¹), with the load and store steps the flags ask for."""
    u32, n = np.uint32, 1 << log_n
    scale = tables.get(ctx, curve, load_table, log_n) if load_table is not None else ctx.dummy
    ctx.launch(curve, "ntt", "fr_ntt_load", n, src, tmp, u32(log_n), u32(load), scale)
    twiddles = tables.get(ctx, curve, OMEGA_INV if inverse else OMEGA, log_n)
    first = 0
    while first < log_n:
        r = min(MAX_RADIX_LOG, log_n - first)
        ctx.launch(curve, "ntt", "fr_ntt_pass", n >> r, tmp, twiddles, u32(log_n), u32(first), u32(r))
        first += r
    scale = tables.get(ctx, curve, store_table, log_n) if store_table is not None else ctx.dummy
    ctx.launch(curve, "ntt", "fr_ntt_store", n, tmp, dst, u32(log_n), u32(store), scale)


def ntt(
    ctx: DeviceContext, curve: Curve, tables: Tables, values: np.ndarray, inverse: bool, coset: bool, memory: Memory
) -> np.ndarray:
    """The reference's ntt(values, inverse=…, coset=…) on canonical (n, 4) limbs."""
    n = len(values)
    if n == 0:
        return values.copy()
    check_memory(n, 4, memory, "an NTT")
    log_n = n.bit_length() - 1
    buf, tmp = ctx.upload(values), ctx.buffer(n * FR_BYTES)
    steps: dict[str, Any]
    if inverse:
        store = STORE_INV_N | STORE_FROM_MONT | (STORE_SCALE if coset else 0)
        steps = {"load": LOAD_TO_MONT, "store": store, "store_table": COSET_INV if coset else None}
    else:
        load = LOAD_TO_MONT | (LOAD_SCALE if coset else 0)
        steps = {"load": load, "load_table": COSET if coset else None, "store": STORE_FROM_MONT}
    transform(ctx, curve, tables, buf, buf, tmp, log_n, inverse=inverse, **steps)
    return ctx.read(buf, values.shape)


def _montgomery_scalar(ctx: DeviceContext, curve: Curve, value: int) -> Any:
    fr = curve_constants(curve, 64).fr  # R = 2^256 for 4 × 64-bit and 8 × 32-bit limbs alike: one Montgomery form
    return ctx.upload(limbs.int_to_limbs(fr.to_montgomery(value % curve.r), limbs.FR_LIMBS).reshape(1, -1))


def compute_h(
    ctx: DeviceContext,
    curve: Curve,
    tables: Tables,
    a: np.ndarray,
    b: np.ndarray,
    c: np.ndarray,
    reduction: str,
    memory: Memory,
) -> np.ndarray:
    """The reference's witness_map(a, b, c, reduction) with every step on the device (see the protocol)."""
    n = len(a)
    check_memory(n, 9, memory, "the QAP quotient")
    log_n = n.bit_length() - 1
    bufs = [ctx.upload(v) for v in (a, b, c)]
    tmp = ctx.buffer(n * FR_BYTES)
    shift = COSET if reduction == "libsnark" else OMEGA_2N
    for buf in bufs:  # values on H → coefficients → values on g·H (libsnark) or on ω_2n·H (circom)
        transform(ctx, curve, tables, buf, buf, tmp, log_n, inverse=True, load=LOAD_TO_MONT, store=STORE_INV_N)
        transform(ctx, curve, tables, buf, buf, tmp, log_n, inverse=False, load=LOAD_SCALE, load_table=shift)
    g = curve.Fr.GENERATOR.value
    factor = pow(pow(g, n, curve.r) - 1, -1, curve.r) if reduction == "libsnark" else 1
    factor_buf = _montgomery_scalar(ctx, curve, factor)
    ctx.launch(curve, "ntt", "fr_qap_combine", n, bufs[0], bufs[1], bufs[2], bufs[0], np.uint32(n), factor_buf)
    out = bufs[0]
    if reduction == "libsnark":
        store = STORE_INV_N | STORE_SCALE | STORE_FROM_MONT
        transform(ctx, curve, tables, out, out, tmp, log_n, inverse=True, store=store, store_table=COSET_INV)
        h = ctx.read(out, (n, limbs.FR_LIMBS))
        if h[n - 1].any():
            raise UnsatisfiedConstraintError(NOT_DIVISIBLE)
        return h[: n - 1]
    u32 = np.uint32
    ctx.launch(curve, "ntt", "fr_ntt_store", n, out, out, u32(log_n), u32(STORE_FROM_MONT), ctx.dummy)
    return ctx.read(out, (n, limbs.FR_LIMBS))


__all__ = ["Tables", "check_memory", "compute_h", "ntt", "transform"]
