"""The host-side capabilities' public methods (field_op, generator_multiples, the sparse products, the stored forms
of iden3 files, the pairing check, the NTT over points, the sums of rows of points), each input validated once
before a subclass's hook runs; a mixin of :class:`~cuzk.backends.base.BackendBase`, which gives it ``name``,
``_ready``, ``_require`` and ``_check_scalars``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from cuzk.backends import limbs
from cuzk.backends.capabilities import (
    BINARY_FIELD_OPS,
    FIELD_OPS,
    FIXED_BASE,
    KEPT_SCALARS,
    MONTGOMERY_FORM,
    PAIRING,
    POINT_NTT,
    ROW_SUMS,
    SPARSE,
    STORED_POINT_NTT,
    UNARY_FIELD_OPS,
    FieldName,
    KeptScalars,
    SparseMatrix,
    check_csr,
)
from cuzk.backends.checks import CurveLike, check_domain, check_group, check_output, check_same_length
from cuzk.backends.errors import BackendInputError, BackendOutputError, InputSizeMismatchError, InputTypeError
from cuzk.backends.indexed import IndexedCoefficients, check_indexed
from cuzk.backends.limbs import check_limb_array, check_points, check_scalars
from cuzk.reference.curves import Curve


class HostCapabilities:
    """FIELD_OPS, FIXED_BASE, SPARSE, MONTGOMERY_FORM, PAIRING, POINT_NTT, STORED_POINT_NTT and ROW_SUMS: public
    methods and the hooks they call."""

    SPARSE_INDEXED = False  # whether the sparse hooks take IndexedCoefficients as they are (else given as limbs)

    if TYPE_CHECKING:
        name: str

        def _ready(self, curve: CurveLike, capability: str | None = None) -> Curve: ...
        def _require(self, capability: str | None = None) -> None: ...
        def _check_scalars(self, curve: Curve, scalars: object, name: str) -> None: ...
        def _checked_kept(self, method: str, kept: object, rows: int) -> KeptScalars: ...
        def _keep_scalars(self, curve: Curve, scalars: np.ndarray) -> KeptScalars: ...

    def field_op(
        self,
        curve: CurveLike,
        field: FieldName,
        op: str,
        a: np.ndarray | KeptScalars,
        b: np.ndarray | KeptScalars | None = None,
        *,
        keep: bool = False,
    ) -> Any:
        if keep or isinstance(a, KeptScalars) or isinstance(b, KeptScalars):
            return self._field_op_keeping(curve, field, op, a, b, keep)
        c = self._ready(curve, FIELD_OPS)
        modulus, what, label = _field_of(c, field)
        check_limb_array(a, name="a", inner=(), modulus=modulus, what=label, modulus_name=what)
        _check_operands(op, b)
        if b is not None:
            check_limb_array(b, name="b", inner=(), modulus=modulus, what=label, modulus_name=what)
            check_same_length(a, b, ("a", "b"))
        return check_output(self.name, f"field_op {op}", self._field_op(c, field, op, a, b), a.shape)

    def _field_op_keeping(
        self,
        curve: CurveLike,
        field: str,
        op: str,
        a: np.ndarray | KeptScalars,
        b: np.ndarray | KeptScalars | None,
        keep: bool,
    ) -> Any:
        """field_op on operands kept by this backend (or arrays), the result kept here too with ``keep`` (else an
        array). Kept values are scalars, so the field is Fr."""
        c = self._ready(curve, FIELD_OPS)
        self._require(KEPT_SCALARS)
        if field != "fr":
            raise BackendInputError(f"kept values are Fr scalars; field {field!r} cannot keep them", array="field")
        _check_operands(op, b)
        self._check_scalars(c, a, "a")
        if b is not None:
            self._check_scalars(c, b, "b")
            check_same_length(a, b, ("a", "b"))
        kept = self._checked_kept(f"field_op {op}", self._field_op_kept(c, op, a, b), len(a))
        if keep:
            return kept
        return check_output(self.name, f"field_op {op}", self._kept_rows(kept), (len(a), limbs.FR_LIMBS))

    def generator_multiples(self, curve: CurveLike, group: str, scalars: np.ndarray) -> np.ndarray:
        c, g = self._ready(curve, FIXED_BASE), check_group(group)
        check_scalars(c, scalars)
        shape = (len(scalars), *limbs.point_shape(c, g))
        return check_output(self.name, "generator_multiples", self._generator_multiples(c, g, scalars), shape)

    def prepare_sparse(
        self,
        curve: CurveLike,
        indptr: np.ndarray,
        columns: np.ndarray,
        coefficients: np.ndarray | IndexedCoefficients,
        num_columns: int,
        *,
        reductions: int = 0,
    ) -> SparseMatrix:
        c = self._ready(curve, SPARSE)
        indptr, columns = check_csr(indptr, columns, num_columns)
        if isinstance(coefficients, IndexedCoefficients):
            check_indexed(c, coefficients)
            if not self.SPARSE_INDEXED:
                coefficients = coefficients.expanded()
        else:
            check_scalars(c, coefficients, "coefficients")
        check_same_length(columns, coefficients, ("columns", "coefficients"))  # type: ignore[arg-type]
        check_reductions(reductions)
        if reductions:
            payload = self._prepare_sparse_stored(c, indptr, columns, coefficients, num_columns, reductions)
        else:
            payload = self._prepare_sparse(c, indptr, columns, coefficients, num_columns)
        return SparseMatrix(self.name, c, len(indptr) - 1, num_columns, payload)

    def sparse_product(
        self, matrix: SparseMatrix, z: np.ndarray | KeptScalars, *, rows: int | None = None, keep: bool = False
    ) -> Any:
        self._require(SPARSE)
        if keep:
            self._require(KEPT_SCALARS)
        if not isinstance(matrix, SparseMatrix) or matrix.backend != self.name:
            raise BackendInputError(
                f"expected a SparseMatrix prepared by {self.name!r}, got {matrix!r}", array="matrix"
            )
        out_rows = matrix.rows if rows is None else rows
        if out_rows < matrix.rows:
            raise InputSizeMismatchError(f"{out_rows} output rows for a matrix of {matrix.rows}", array="rows")
        self._check_scalars(matrix.curve, z, "z")
        if len(z) < matrix.columns:
            raise InputSizeMismatchError(f"the matrix has {matrix.columns} columns, z {len(z)} rows", array="z")
        if keep:
            return self._checked_kept("sparse_product", self._sparse_product_kept(matrix, z, out_rows), out_rows)
        result = self._sparse_product(matrix, z, out_rows)
        return check_output(self.name, "sparse_product", result, (out_rows, limbs.FR_LIMBS))

    def points_from_montgomery(
        self, curve: CurveLike, group: str, stored: np.ndarray, *, check: bool = True
    ) -> tuple[np.ndarray, int, str]:
        c = self._ready(curve, MONTGOMERY_FORM)
        shape = limbs.point_shape(c, group)
        _check_words(stored, (8 * int(np.prod(shape)),), "stored", np.uint8)
        out, bad, problem = self._points_from_montgomery(c, group, stored, bool(check))
        return check_output(self.name, "points_from_montgomery", out, (len(stored), *shape)), int(bad), problem

    def scalars_from_montgomery(self, curve: CurveLike, stored: np.ndarray, reductions: int) -> tuple[np.ndarray, int]:
        c = self._ready(curve, MONTGOMERY_FORM)
        _check_words(stored, (limbs.FR_LIMBS,), "stored", np.uint64)
        check_reductions(reductions)
        out, bad = self._scalars_from_montgomery(c, stored, reductions)
        return check_output(self.name, "scalars_from_montgomery", out, (len(stored), limbs.FR_LIMBS)), int(bad)

    def field_to_montgomery(
        self, curve: CurveLike, field: FieldName, values: np.ndarray, powers: int = 1
    ) -> np.ndarray:
        c = self._ready(curve, MONTGOMERY_FORM)
        modulus, what, label = _field_of(c, field)
        values = check_limb_array(values, name="values", inner=(), modulus=modulus, what=label, modulus_name=what)
        check_reductions(powers, "powers")
        out = self._field_to_montgomery(c, field, values, powers)
        return check_output(self.name, "field_to_montgomery", out, values.shape)

    def pairing_check(self, curve: CurveLike, g1: np.ndarray, g2: np.ndarray) -> bool:
        c = self._ready(curve, PAIRING)
        g1, g2 = check_points(c, "g1", g1, "g1"), check_points(c, "g2", g2, "g2")
        check_same_length(g1, g2, ("g1", "g2"))
        return bool(self._pairing_check(c, g1, g2))

    def point_ntt(
        self, curve: CurveLike, group: str, points: np.ndarray, omega: int, *, inverse: bool = False
    ) -> np.ndarray:
        c, g = self._ready(curve, POINT_NTT), check_group(group)
        points = check_points(c, g, points, "points")
        check_domain(c, len(points), "points")
        _check_root(c, omega, len(points))
        return check_output(self.name, "point_ntt", self._point_ntt(c, g, points, omega, bool(inverse)), points.shape)

    def row_sums(
        self,
        curve: CurveLike,
        group: str,
        points: np.ndarray,
        indptr: np.ndarray,
        index: np.ndarray,
        scalars: np.ndarray,
    ) -> np.ndarray:
        c, g = self._ready(curve, ROW_SUMS), check_group(group)
        points = check_points(c, g, points, "points")
        indptr, index = check_csr(indptr, index, len(points), "index")
        check_scalars(c, scalars)
        check_same_length(index, scalars, ("index", "scalars"))
        shape = (len(indptr) - 1, *limbs.point_shape(c, g))
        return check_output(self.name, "row_sums", self._row_sums(c, g, points, indptr, index, scalars), shape)

    def point_ntt_stored(
        self, curve: CurveLike, group: str, stored: np.ndarray, omega: int, *, inverse: bool = False
    ) -> tuple[np.ndarray | None, int]:
        c, g = self._ready(curve, STORED_POINT_NTT), check_group(group)
        self._require(POINT_NTT)
        width = 8 * int(np.prod(limbs.point_shape(c, g)))
        _check_words(stored, (width,), "stored", np.uint8)
        check_domain(c, len(stored), "stored")
        _check_root(c, omega, len(stored))
        out, bad = self._point_ntt_stored(c, g, np.ascontiguousarray(stored), omega, bool(inverse))
        if bad >= 0:
            return None, int(bad)
        if not isinstance(out, np.ndarray) or out.dtype != np.uint8 or out.shape != stored.shape:
            got = f"{out.dtype} {out.shape}" if isinstance(out, np.ndarray) else type(out).__name__
            raise BackendOutputError(f"backend {self.name!r}: point_ntt_stored returned {got}, expected {stored.shape}")
        return out, -1

    # --- hooks for subclasses -------------------------------------------------------------------------------------

    def _field_op(self, curve: Curve, field: str, op: str, a: np.ndarray, b: np.ndarray | None) -> np.ndarray:
        raise NotImplementedError

    def _generator_multiples(self, curve: Curve, group: str, scalars: np.ndarray) -> np.ndarray:
        raise NotImplementedError

    def _prepare_sparse(
        self, curve: Curve, indptr: np.ndarray, columns: np.ndarray, coefficients: np.ndarray, num_columns: int
    ) -> Any:
        raise NotImplementedError

    def _prepare_sparse_stored(
        self,
        curve: Curve,
        indptr: np.ndarray,
        columns: np.ndarray,
        stored: np.ndarray,
        num_columns: int,
        reductions: int,
    ) -> Any:
        """The matrix of coefficients stored as c·R^reductions: by default made c on the host (this backend's
        MONTGOMERY_FORM when it has it, else integer arithmetic), then prepared as any other; a device overrides it
        to upload them as they are."""
        if MONTGOMERY_FORM in self.capabilities:
            values, _ = self._scalars_from_montgomery(curve, stored, reductions)  # canonical: checked by the caller
        else:
            unreduce = pow(pow(2, 64 * limbs.FR_LIMBS, curve.r), -reductions, curve.r)
            values = limbs.ints_to_limbs([v * unreduce % curve.r for v in limbs.limbs_to_ints(stored)], limbs.FR_LIMBS)
        return self._prepare_sparse(curve, indptr, columns, values, num_columns)

    def _sparse_product(self, matrix: SparseMatrix, z: np.ndarray | KeptScalars, rows: int) -> np.ndarray:
        raise NotImplementedError

    def _sparse_product_kept(self, matrix: SparseMatrix, z: np.ndarray | KeptScalars, rows: int) -> KeptScalars:
        """The products kept by this backend: by default computed as an array, then kept (a device keeps them where
        it computed them)."""
        return self._keep_scalars(matrix.curve, self._sparse_product(matrix, z, rows))

    def _field_op_kept(
        self, curve: Curve, op: str, a: np.ndarray | KeptScalars, b: np.ndarray | KeptScalars | None
    ) -> KeptScalars:
        """``op`` over Fr on kept operands, kept: by default on their rows as arrays, then kept."""
        rows = self._field_op(curve, "fr", op, self._kept_rows(a), None if b is None else self._kept_rows(b))
        return self._keep_scalars(curve, rows)

    def _kept_rows(self, scalars: np.ndarray | KeptScalars) -> np.ndarray:
        """The rows of scalars given as an array or kept by this backend, as an array (a host backend keeps an
        array; a device overrides this)."""
        if not isinstance(scalars, KeptScalars):
            return scalars
        if not isinstance(scalars.payload, np.ndarray):
            raise NotImplementedError(f"backend {self.name!r} keeps {type(scalars.payload).__name__}, not arrays")
        return scalars.payload[scalars.first : scalars.first + scalars.n]

    def _points_from_montgomery(
        self, curve: Curve, group: str, stored: np.ndarray, check: bool
    ) -> tuple[np.ndarray, int, str]:
        raise NotImplementedError

    def _scalars_from_montgomery(self, curve: Curve, stored: np.ndarray, reductions: int) -> tuple[np.ndarray, int]:
        raise NotImplementedError

    def _field_to_montgomery(self, curve: Curve, field: str, values: np.ndarray, powers: int) -> np.ndarray:
        raise NotImplementedError

    def _pairing_check(self, curve: Curve, g1: np.ndarray, g2: np.ndarray) -> bool:
        raise NotImplementedError

    def _point_ntt(self, curve: Curve, group: str, points: np.ndarray, omega: int, inverse: bool) -> np.ndarray:
        raise NotImplementedError

    def _point_ntt_stored(
        self, curve: Curve, group: str, stored: np.ndarray, omega: int, inverse: bool
    ) -> tuple[np.ndarray | None, int]:
        raise NotImplementedError

    def _row_sums(
        self, curve: Curve, group: str, points: np.ndarray, indptr: np.ndarray, index: np.ndarray, scalars: np.ndarray
    ) -> np.ndarray:
        raise NotImplementedError


def check_reductions(reductions: object, name: str = "reductions") -> None:
    """Montgomery reductions asked of stored values (or powers of R, ``name``): an int in 0 … 4 (a .zkey's
    coefficients need 2)."""
    if not isinstance(reductions, int) or isinstance(reductions, bool) or not 0 <= reductions <= 4:
        raise InputTypeError(f"{name} must be an int in 0 … 4, got {reductions!r}", array=name)


def _field_of(curve: Curve, field: object) -> tuple[int, str, str]:
    """(p, its name, what an element is) of ``field`` ("fr" or "fq"); else BackendInputError."""
    if field not in ("fr", "fq"):
        raise BackendInputError(f"unknown field {field!r}; expected 'fr' or 'fq'", array="field")
    modulus, name = (curve.r, "r") if field == "fr" else (curve.q, "q")
    return modulus, name, f"an {field.capitalize()} element of {curve.name}"


def _check_words(array: object, shape: tuple[int, ...], name: str, dtype: type) -> None:
    """``array`` is a ``dtype`` array of shape (n, *shape): stored values, any (the method reports bad ones)."""
    if not isinstance(array, np.ndarray) or array.dtype != dtype or array.shape[1:] != shape:
        got = f"{array.dtype} {array.shape}" if isinstance(array, np.ndarray) else type(array).__name__
        expected = f"a {np.dtype(dtype).name} array of shape (n, {', '.join(map(str, shape))})"
        raise InputTypeError(f"expected {expected}, got {got}", array=name)


def _check_operands(op: str, b: object) -> None:
    """A field operation's name, and its second operand given exactly when the operation is binary."""
    if op in BINARY_FIELD_OPS:
        if b is None:
            raise BackendInputError(f"{op} needs a second operand", array="b")
    elif op in UNARY_FIELD_OPS:
        if b is not None:
            raise BackendInputError(f"{op} takes one operand", array="b")
    else:
        known = ", ".join(BINARY_FIELD_OPS + UNARY_FIELD_OPS)
        raise BackendInputError(f"unknown operation {op!r}; expected one of {known}", array="op")


def _check_root(curve: Curve, omega: object, n: int) -> None:
    """ω an int in 0 … r − 1 and, for n ≥ 1 points, a primitive n-th root of unity of Fr; else BackendInputError."""
    if not isinstance(omega, int) or isinstance(omega, bool) or not 0 <= omega < curve.r:
        raise InputTypeError(f"omega must be an int in 0 … r − 1 of {curve.name}, got {omega!r}", array="omega")
    if n and (pow(omega, n, curve.r) != 1 or (n > 1 and pow(omega, n // 2, curve.r) == 1)):
        raise BackendInputError(f"omega is not a primitive {n}-th root of unity of {curve.name}'s Fr", array="omega")


__all__ = ["HostCapabilities"]
