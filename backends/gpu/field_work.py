"""The GPU backends' Fr work beside the MSMs (FIELD_OPS, SPARSE, and Fr values kept on the device): a mixin of
:class:`~cuzk.backends.gpu.backend.DeviceBackend`.

Element-wise field operations run the ``field_ops`` program; the sparse products of a .zkey's witness (A·z, B·z)
run the ``sparse`` program (:mod:`cuzk.backends.gpu.sparse`) over matrices uploaded once. Kept values (the
protocol's KeptScalars holding a :class:`~cuzk.backends.gpu.context.DeviceScalars`) go from one call to the next
without crossing to the host: z uploaded once, A·z and B·z, their Hadamard product C, then compute_h_kept and the
MSMs.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable
from dataclasses import replace
from typing import TYPE_CHECKING, TypeVar

import numpy as np

from cuzk.backends import limbs
from cuzk.backends.capabilities import KeptScalars, SparseMatrix
from cuzk.backends.errors import BackendInputError
from cuzk.backends.gpu import sparse as device_sparse
from cuzk.backends.gpu.context import DeviceContext, DeviceScalars, Finish, ready
from cuzk.backends.indexed import IndexedCoefficients
from cuzk.reference.curves import Curve
from cuzk.reference.errors import NotInvertibleError

T = TypeVar("T")

FIELD_OP_CODES = {"add": 0, "sub": 1, "mul": 2, "neg": 3, "square": 4, "inverse": 5}
Scalars = np.ndarray | DeviceScalars  # limbs on the host, or left on the device by an earlier call


class FieldWork:
    """field_op, the sparse products and kept Fr values on the device (hooks of BackendBase)."""

    SPARSE_INDEXED = True  # a device keeps a matrix's coefficients by index into a table (sparse.plan)

    if TYPE_CHECKING:
        name: str
        _resident: int

        @property
        def context(self) -> DeviceContext: ...
        def _call(self, queue: Callable[[DeviceContext], Finish[T]]) -> T: ...
        def _release(self, nbytes: int) -> None: ...

    def _field_op(self, curve: Curve, field: str, op: str, a: np.ndarray, b: np.ndarray | None) -> np.ndarray:
        if op == "inverse" and len(a) and not a.any(axis=1).all():
            row = int(np.argmin(a.any(axis=1)))
            F = curve.Fr if field == "fr" else curve.Fq
            raise NotInvertibleError(f"a[{row}] is 0, which has no inverse in {F.NAME}")
        n = len(a)
        if n == 0:
            return a.copy()

        def queue(ctx: DeviceContext) -> Finish[np.ndarray]:
            a_buf = ctx.upload(a)
            b_buf = a_buf if b is None else ctx.upload(b)
            out = ctx.buffer(a.nbytes)
            code = np.uint32(FIELD_OP_CODES[op])
            ctx.launch(curve, "field_ops", f"{field}_elementwise", n, a_buf, b_buf, out, np.uint32(n), code)
            return ctx.read_later(out, a.shape)

        return self._call(queue)

    def _prepare_sparse(
        self,
        curve: Curve,
        indptr: np.ndarray,
        columns: np.ndarray,
        coefficients: np.ndarray | IndexedCoefficients,
        num_columns: int,
    ) -> device_sparse.DeviceCsr:
        return self._prepare_sparse_stored(curve, indptr, columns, coefficients, num_columns, 0)

    def _prepare_sparse_stored(
        self,
        curve: Curve,
        indptr: np.ndarray,
        columns: np.ndarray,
        stored: np.ndarray | IndexedCoefficients,
        num_columns: int,
        reductions: int,
    ) -> device_sparse.DeviceCsr:
        host = device_sparse.plan(curve, indptr, columns, stored, reductions)  # host work: outside the lock

        def queue(ctx: DeviceContext) -> Finish[device_sparse.DeviceCsr]:
            matrix = device_sparse.upload(ctx, curve, host)
            self._resident += matrix.nbytes
            return ready(matrix)

        matrix = self._call(queue)
        weakref.finalize(matrix, self._release, matrix.nbytes)
        return matrix

    def _device_csr(self, matrix: SparseMatrix) -> device_sparse.DeviceCsr:
        if matrix.payload.context is not self.context:
            raise BackendInputError(
                f"prepared by another {type(self).__name__} (its buffers live in another device context)",
                array="matrix",
            )
        return matrix.payload

    def _sparse_product(self, matrix: SparseMatrix, z: np.ndarray | KeptScalars, rows: int) -> np.ndarray:
        if rows == 0:
            return np.zeros((0, limbs.FR_LIMBS), dtype=np.uint64)
        csr = self._device_csr(matrix)

        def queue(ctx: DeviceContext) -> Finish[np.ndarray]:
            out = device_sparse.queue_product(ctx, matrix.curve, csr, rows_on(ctx, z), rows)
            return ctx.read_later(out, (rows, limbs.FR_LIMBS))

        return self._call(queue)

    def _sparse_product_kept(self, matrix: SparseMatrix, z: np.ndarray | KeptScalars, rows: int) -> KeptScalars:
        csr = self._device_csr(matrix)

        def queue(ctx: DeviceContext) -> Finish[DeviceScalars]:
            out = device_sparse.queue_product(ctx, matrix.curve, csr, rows_on(ctx, z), rows)
            return ready(DeviceScalars.of(ctx, out, rows))

        return KeptScalars(self.name, matrix.curve, rows, self._call(queue))

    def _field_op_kept(
        self, curve: Curve, op: str, a: np.ndarray | KeptScalars, b: np.ndarray | KeptScalars | None
    ) -> KeptScalars:
        """On the device, where both operands are there from their first row (else, and for inverse, which refuses
        a zero with the host's message, through the host)."""
        x, y = on_device(a), None if b is None else on_device(b)
        operands = [v for v in (x, y) if v is not None]
        if op == "inverse" or not all(isinstance(v, DeviceScalars) and v.first == 0 for v in operands):
            rows = self._field_op(curve, "fr", op, self._kept_rows(a), None if b is None else self._kept_rows(b))
            return KeptScalars(self.name, curve, len(rows), rows)
        n = len(a)

        def queue(ctx: DeviceContext) -> Finish[DeviceScalars]:
            out = ctx.buffer(max(1, n) * 8 * limbs.FR_LIMBS)
            if n:
                first, second = operands[0].buffer, operands[-1].buffer  # type: ignore[union-attr]
                code = np.uint32(FIELD_OP_CODES[op])
                ctx.launch(curve, "field_ops", "fr_elementwise", n, first, second, out, np.uint32(n), code)
            return ready(DeviceScalars.of(ctx, out, n))

        return KeptScalars(self.name, curve, n, self._call(queue))

    def _kept_rows(self, scalars: np.ndarray | KeptScalars) -> np.ndarray:
        rows = on_device(scalars)
        return rows.to_host() if isinstance(rows, DeviceScalars) else rows


def rows_on(ctx: DeviceContext, scalars: np.ndarray | KeptScalars) -> DeviceScalars:
    """Scalars on the device: kept there already, or uploaded now."""
    rows = on_device(scalars)
    if isinstance(rows, DeviceScalars):
        return rows
    return DeviceScalars.of(ctx, ctx.upload(np.ascontiguousarray(rows)), len(rows))


def on_device(scalars: np.ndarray | KeptScalars) -> Scalars:
    """The scalars as the device drivers take them: an array, or the rows of what a KeptScalars holds (a device
    buffer, or an array kept on the host)."""
    if not isinstance(scalars, KeptScalars):
        return scalars
    payload: DeviceScalars | np.ndarray = scalars.payload
    if isinstance(payload, np.ndarray):
        return payload[scalars.first : scalars.first + scalars.n]
    return replace(payload, rows=scalars.n, first=payload.first + scalars.first)


__all__ = ["FIELD_OP_CODES", "FieldWork", "Scalars", "on_device", "rows_on"]
