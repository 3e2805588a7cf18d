"""The reference backend: the spec's own algorithms behind the backend protocol (slow, always available; the oracle).

Arrays are converted to reference objects (:mod:`cuzk.backends.limbs`), handed to :func:`cuzk.reference.msm.msm`
and :func:`cuzk.reference.ntt.ntt`, and the results converted back. Nothing here is clever on purpose: the point of
this backend is that the conformance suite and the engine can run the spec through the same interface as the fast
backends, so "reference passes" and "cuda passes" mean the same thing.
"""

from __future__ import annotations

import platform
from importlib import metadata
from itertools import pairwise
from typing import Any

import numpy as np

from cuzk.backends import limbs
from cuzk.backends.protocol import (
    COMPUTE_H,
    FIELD_OPS,
    FIXED_BASE,
    MSM_BATCH,
    PAIRING,
    POINT_NTT,
    PREPARED_BASES,
    ROW_SUMS,
    SPARSE,
    WINDOW,
    BackendBase,
    KeptScalars,
    PreparedBases,
    SparseMatrix,
)
from cuzk.reference.curves import Curve
from cuzk.reference.fixed_base import FixedBaseTable
from cuzk.reference.msm import msm
from cuzk.reference.ntt import ntt
from cuzk.reference.point_ntt import point_ntt
from cuzk.reference.qap import Reduction, witness_map


class ReferenceBackend(BackendBase):
    """The pure-Python reference: Pippenger MSM with signed digits and a radix-2 NTT, exactly as specified."""

    name = "reference"
    priority = 0
    capabilities = frozenset(
        {PREPARED_BASES, MSM_BATCH, COMPUTE_H, WINDOW, FIELD_OPS, SPARSE, FIXED_BASE, PAIRING, POINT_NTT, ROW_SUMS}
    )

    def __init__(self, *, device: int | None = None) -> None:
        super().__init__(device=device)
        self._tables: dict[tuple[str, str], FixedBaseTable] = {}

    def __getstate__(self) -> dict[str, Any]:
        """Pickled without its fixed-base tables (points do not pickle; a worker process builds its own)."""
        return {**self.__dict__, "_tables": {}}

    def describe(self) -> dict[str, Any]:
        try:
            version = metadata.version("cuzk")
        except metadata.PackageNotFoundError:
            version = "not installed"
        return {
            "device": f"host CPU, pure Python ({platform.python_implementation()} {platform.python_version()})",
            "versions": {"cuzk": version, "numpy": np.__version__},
        }

    def _msm(self, curve: Curve, group: str, bases: np.ndarray, scalars: np.ndarray, window: int | None) -> np.ndarray:
        return self._msm_points(curve, group, limbs.limbs_to_points(curve, group, bases), scalars, window)

    def _msm_points(
        self, curve: Curve, group: str, points: list[Any], scalars: np.ndarray, window: int | None
    ) -> np.ndarray:
        result = msm(limbs.group_of(curve, group), points, limbs.limbs_to_ints(scalars), window=window)
        return limbs.point_to_limbs(curve, group, result)

    def _row_sums(
        self, curve: Curve, group: str, points: np.ndarray, indptr: np.ndarray, index: np.ndarray, scalars: np.ndarray
    ) -> np.ndarray:
        """Each row an MSM of its own."""
        rows = [self._msm(curve, group, points[index[lo:hi]], scalars[lo:hi], None) for lo, hi in pairwise(indptr)]
        return np.array(rows, np.uint64).reshape(len(rows), *limbs.point_shape(curve, group))

    def _ntt(self, curve: Curve, values: np.ndarray, inverse: bool, coset: bool) -> np.ndarray:
        return limbs.fr_to_limbs(curve, ntt(limbs.limbs_to_fr(curve, values), inverse=inverse, coset=coset))

    def _prepare_bases(self, curve: Curve, group: str, bases: np.ndarray) -> list[Any]:
        return limbs.limbs_to_points(curve, group, bases)

    def _msm_prepared(self, handle: PreparedBases, scalars: np.ndarray, window: int | None) -> np.ndarray:
        return self._msm_points(handle.curve, handle.group, handle.payload, scalars, window)

    def _compute_h(self, curve: Curve, a: np.ndarray, b: np.ndarray, c: np.ndarray, reduction: str) -> np.ndarray:
        a_z, b_z, c_z = (limbs.limbs_to_fr(curve, v) for v in (a, b, c))
        return limbs.fr_to_limbs(curve, witness_map(a_z, b_z, c_z, Reduction(reduction)))

    def _field_op(self, curve: Curve, field: str, op: str, a: np.ndarray, b: np.ndarray | None) -> np.ndarray:
        F = curve.Fr if field == "fr" else curve.Fq
        xs = limbs.limbs_to_field(F, a)
        if op in ("add", "sub", "mul"):
            ys = limbs.limbs_to_field(F, b)
            apply = {"add": lambda x, y: x + y, "sub": lambda x, y: x - y, "mul": lambda x, y: x * y}[op]
            out = [apply(x, y) for x, y in zip(xs, ys, strict=True)]
        else:
            apply1 = {"neg": lambda x: -x, "square": lambda x: x.square(), "inverse": lambda x: x.inverse()}[op]
            out = [apply1(x) for x in xs]
        return limbs.field_to_limbs(F, out)

    def _prepare_sparse(
        self, curve: Curve, indptr: np.ndarray, columns: np.ndarray, coefficients: np.ndarray, num_columns: int
    ) -> list[list[tuple[int, int]]]:
        terms = list(zip(columns.tolist(), limbs.limbs_to_ints(coefficients), strict=True))
        return [terms[start:stop] for start, stop in zip(indptr[:-1].tolist(), indptr[1:].tolist(), strict=True)]

    def _sparse_product(self, matrix: SparseMatrix, z: np.ndarray | KeptScalars, rows: int) -> np.ndarray:
        """⟨row k, z⟩ = Σ_j M_kj·z_j mod r, row by row (:func:`cuzk.reference.qap.evaluate_rows` on integers)."""
        values = limbs.limbs_to_ints(z)
        r = matrix.curve.r
        sums = [sum(c * values[j] for j, c in row) % r for row in matrix.payload]
        return limbs.ints_to_limbs(sums + [0] * (rows - len(sums)), limbs.FR_LIMBS)

    def _generator_multiples(self, curve: Curve, group: str, scalars: np.ndarray) -> np.ndarray:
        """[k]G by the reference's fixed-base table (:class:`~cuzk.reference.fixed_base.FixedBaseTable`)."""
        key = (curve.name, group)
        if key not in self._tables:  # one table per generator: a setup asks for several batches of multiples
            self._tables[key] = FixedBaseTable(limbs.group_of(curve, group).generator)
        table = self._tables[key]
        points = [table.mul(k) for k in limbs.limbs_to_ints(scalars)]
        return limbs.points_to_limbs(curve, group, points).reshape(len(points), *limbs.point_shape(curve, group))

    def _pairing_check(self, curve: Curve, g1: np.ndarray, g2: np.ndarray) -> bool:
        """The reference's :func:`~cuzk.reference.pairing.pairing_check` of the pairs."""
        pairs = list(zip(limbs.limbs_to_points(curve, "g1", g1), limbs.limbs_to_points(curve, "g2", g2), strict=True))
        return bool(curve.pairing_check(pairs))

    def _point_ntt(self, curve: Curve, group: str, points: np.ndarray, omega: int, inverse: bool) -> np.ndarray:
        """The reference's radix-2 :func:`~cuzk.reference.point_ntt.point_ntt` of the points."""
        if len(points) == 0:
            return points.copy()
        out = point_ntt(limbs.limbs_to_points(curve, group, points), curve.Fr(omega), inverse=inverse)
        return limbs.points_to_limbs(curve, group, out).reshape(points.shape)


__all__ = ["ReferenceBackend"]
