"""The GPU backends' NTT over G1/G2 points (capability POINT_NTT): a mixin of
:class:`~cuzk.backends.gpu.backend.DeviceBackend` over the ``point_ntt_g1`` / ``point_ntt_g2`` programs
(backends/kernels/point_ntt.c): a ptau's Lagrange bases for ``prepare phase2``.

The transform of :func:`cuzk.reference.point_ntt.point_ntt`, on the device from end to end: the points go in
bit-reversed and in XYZZ Montgomery form (``pntt_load``); the n/2 twiddles ω^t are made and split once
(``pntt_twiddles``: on G1 k ≡ k₁ + k₂·λ, the GLV halves of :mod:`cuzk.backends.kernels.glv`; on G2
k ≡ k₀ + k₁λ + k₂μ + k₃λμ, the GLS quarters of :mod:`cuzk.backends.kernels.gls`); then log₂ n launches of
``pntt_stage``, one work-item a butterfly (A, B) → (A + [ω^t]B, A − [ω^t]B); the inverse scales by n⁻¹ as the cpu
backend does, point 0 first (``pntt_scale``), then in each stage the butterflies of the block holding point 0 with
the twiddles n⁻¹·ω^t (log₂ n + 1 multiplications, not a pass over every point), and reads output m from position
(n − m) mod n, as the reference does; ``pntt_store`` writes canonical affine points into the upload's buffer, which
is read back.

Why this shape: a butterfly's scalar multiplication (one chain of about 128 doublings with GLV, 64 with GLS, in
Jacobian coordinates, and the additions of signed 5-bit windows: backends/kernels/point_ntt_chain.c) costs
thousands of field products, so a stage is bound by arithmetic, not by memory: one
launch a stage (reading and writing every point once) costs little beside it, and no tiling is needed. The work
is (n/2)·log₂ n such multiplications: every twiddle of a general transform is a full-size scalar (there is no
small root of unity that would make some free, as ±i is in a complex FFT), and the Lagrange bases need the general
transform. The parts of a split share their doublings; the signed windows make every work-item of a warp add at the
same steps, which the sparser wNAF of the cpu backend would not (its digits fall at different places per twiddle).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, TypeVar

import numpy as np

from cuzk.backends import limbs
from cuzk.backends.gpu.bases import NONE_BAD
from cuzk.backends.gpu.context import DeviceContext, Finish, ready
from cuzk.backends.gpu.errors import DeviceMemoryError
from cuzk.backends.gpu.plan import Memory
from cuzk.backends.kernels.constants import curve_constants
from cuzk.backends.kernels.gls import gls_layout
from cuzk.backends.kernels.glv import glv_layout
from cuzk.reference.curves import Curve

T = TypeVar("T")

PROGRAMS = {"g1": "point_ntt_g1", "g2": "point_ntt_g2"}
XYZZ_COORDINATES = 4  # X, Y, ZZ, ZZZ: twice the affine point's size


def device_bytes(curve: Curve, group: str, n: int) -> int:
    """Device memory of a transform of n points: the upload (reused for the output), the XYZZ points, the split
    twiddles ω^t and (the inverse) n⁻¹·ω^t."""
    return n * _point_bytes(curve, group) * (1 + XYZZ_COORDINATES // 2) + 2 * max(1, n // 2) * split_record_bytes(
        curve, group
    )


def split_record_bytes(curve: Curve, group: str) -> int:
    """Bytes of one twiddle's split on the device: GLV's halves on G1, GLS's quarters on G2."""
    return gls_layout(curve).record_bytes if group == "g2" else glv_layout(curve, group).record_bytes


def _point_bytes(curve: Curve, group: str) -> int:
    return int(np.prod(limbs.point_shape(curve, group))) * 8


def montgomery(curve: Curve, value: int) -> np.ndarray:
    """An Fr element in Montgomery form (R = 2^256 on both APIs) as one (1, 4) row of limbs, for a kernel argument."""
    fr = curve_constants(curve, 64).fr
    return limbs.ints_to_limbs([fr.to_montgomery(value % curve.r)], limbs.FR_LIMBS)


def check_memory(curve: Curve, group: str, n: int, memory: Memory) -> None:
    """DeviceMemoryError unless a transform of n points fits the device (it is not cut into chunks)."""
    need, xyzz = device_bytes(curve, group, n), XYZZ_COORDINATES // 2 * n * _point_bytes(curve, group)
    if need > memory.budget or xyzz > memory.max_alloc:
        raise DeviceMemoryError(
            f"a point NTT of {n} {group} points needs {need} bytes of device memory ({memory.budget} free, "
            f"{memory.max_alloc} in one allocation); it is not cut into chunks: use a device with more memory or "
            "the cpu backend"
        )


def queue_point_ntt(
    ctx: DeviceContext,
    curve: Curve,
    group: str,
    points: np.ndarray,
    omega: int,
    inverse: bool,
    memory: Memory,
    stored: bool = False,
) -> Finish[tuple[np.ndarray, int]]:
    """Queue the transform of ``points`` (n a power of two, checked by the caller) with root ω: canonical affine
    limbs, or with ``stored`` a file's rows in Montgomery form (checked on the device as they are loaded). The Finish
    gives (the transformed points in the form and shape of the input, the index of the first bad input point or −1);
    inverse: ffjavascript's order, as the reference's."""
    n = len(points)
    if n == 0:
        return ready((np.array(points, copy=True), -1))
    check_memory(curve, group, n, memory)
    point_bytes = _point_bytes(curve, group)
    g, program, log_n, half_count = group, PROGRAMS[group], n.bit_length() - 1, max(1, n // 2)
    record_bytes = split_record_bytes(curve, group)
    source = ctx.upload(np.ascontiguousarray(points))
    xyzz = ctx.buffer(XYZZ_COORDINATES // 2 * n * point_bytes)
    bad = ctx.upload(np.array([NONE_BAD], dtype=np.uint32))
    ctx.launch(curve, program, f"{g}_pntt_load", n, source, xyzz, np.uint32(log_n), np.uint32(stored), bad)
    base, fold = ctx.upload(montgomery(curve, omega)), inverse and n > 1
    twiddles = ctx.buffer(half_count * record_bytes)
    scaled = ctx.buffer(half_count * record_bytes) if fold else twiddles  # read by the stages with fold only
    for table, scale in [(twiddles, 1)] + ([(scaled, pow(n, -1, curve.r))] if fold else []):
        factor, count = ctx.upload(montgomery(curve, scale)), np.uint32(half_count)
        ctx.launch(curve, program, "pntt_twiddles", half_count, base, factor, np.uint32(0), count, table)
    if fold:  # point 0 times n⁻¹ (scaled[0]); the stages fold it into the rest
        ctx.launch(curve, program, f"{g}_pntt_scale", 1, xyzz, scaled, np.uint32(1))
    half = 1
    while half < n:
        ctx.launch(
            curve,
            program,
            f"{g}_pntt_stage",
            n // 2,
            xyzz,
            twiddles,
            scaled,
            np.uint32(fold),
            np.uint32(half),
            np.uint32(n // (2 * half)),
            np.uint32(n // 2),
        )
        half *= 2
    ctx.launch(curve, program, f"{g}_pntt_store", n, xyzz, source, np.uint32(n), np.uint32(inverse), np.uint32(stored))
    read, first_bad = ctx.read_later(source, points.shape, points.dtype), ctx.read_later(bad, (1,), np.uint32)

    def finish() -> tuple[np.ndarray, int]:
        index = int(first_bad()[0])
        return read(), -1 if index == NONE_BAD else index

    return finish


class PointNttWork:
    """The hook of HostCapabilities.point_ntt on the device."""

    if TYPE_CHECKING:

        def _call(self, queue: Callable[[DeviceContext], Finish[T]]) -> T: ...
        def _memory(self) -> Memory: ...

    def _point_ntt(self, curve: Curve, group: str, points: np.ndarray, omega: int, inverse: bool) -> np.ndarray:
        return self._call(lambda ctx: queue_point_ntt(ctx, curve, group, points, omega, inverse, self._memory()))[0]

    def _point_ntt_stored(
        self, curve: Curve, group: str, stored: np.ndarray, omega: int, inverse: bool
    ) -> tuple[np.ndarray | None, int]:
        out, bad = self._call(
            lambda ctx: queue_point_ntt(ctx, curve, group, stored, omega, inverse, self._memory(), stored=True)
        )
        return (None, bad) if bad >= 0 else (out, -1)


__all__ = ["PROGRAMS", "PointNttWork", "device_bytes", "montgomery", "queue_point_ntt"]
