"""The ``Supports…`` protocols of the host-side capabilities (FIELD_OPS, SPARSE, FIXED_BASE, MONTGOMERY_FORM,
PAIRING, POINT_NTT, ROW_SUMS): the methods a backend offering one implements. Re-exported by
:mod:`cuzk.backends.protocol`."""

from __future__ import annotations

from typing import Protocol, runtime_checkable

import numpy as np

from cuzk.backends.capabilities import FieldName, KeptScalars, PreparedBases, SparseMatrix
from cuzk.backends.checks import CurveLike
from cuzk.backends.indexed import IndexedCoefficients


@runtime_checkable
class SupportsFieldOps(Protocol):
    """Capability FIELD_OPS."""

    def field_op(
        self,
        curve: CurveLike,
        field: FieldName,
        op: str,
        a: np.ndarray | KeptScalars,
        b: np.ndarray | KeptScalars | None = None,
        *,
        keep: bool = False,
    ) -> np.ndarray | KeptScalars:
        """Row-wise ``op`` on canonical limbs of Fr (4 limbs) or Fq (L limbs): add, sub, mul (binary), neg, square,
        inverse (unary; the inverse of 0 raises NotInvertibleError). Returns canonical limbs, same shape as ``a``.
        A backend with KEPT_SCALARS also takes Fr operands it keeps, and with ``keep`` keeps the result: the
        Hadamard product of two sparse products stays where they were made."""
        ...


@runtime_checkable
class SupportsSparse(Protocol):
    """Capability SPARSE: the witness side of a proof, A·z, B·z and C·z, as sparse matrix–vector products."""

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
        """A matrix in CSR form: row k's terms are ``columns[indptr[k]:indptr[k + 1]]`` (int64, each below
        ``num_columns``) with the (terms, 4) canonical Fr limbs ``coefficients``, or the same by index into a table
        (:class:`~cuzk.backends.indexed.IndexedCoefficients`: what a device keeps); terms are summed in that order.
        ``reductions`` k: the limbs hold c·R^k mod r (R = 2^256) instead of c — a .zkey's stored form is k = 2 —,
        made c where the backend likes best (a device: after the upload, by its own Montgomery reductions)."""
        ...

    def sparse_product(
        self, matrix: SparseMatrix, z: np.ndarray | KeptScalars, *, rows: int | None = None, keep: bool = False
    ) -> np.ndarray | KeptScalars:
        """(rows, 4) canonical limbs: ⟨row k, z⟩ for every row of ``matrix``, zeros after its last row (``rows``
        defaults to the matrix's rows); z has at least ``matrix.columns`` rows (an array, or kept by this backend).
        With ``keep`` (a backend with KEPT_SCALARS) the products are kept by the backend, for its compute_h_kept:
        on a device they never cross to the host."""
        ...


@runtime_checkable
class SupportsFixedBase(Protocol):
    """Capability FIXED_BASE."""

    def generator_multiples(self, curve: CurveLike, group: str, scalars: np.ndarray) -> np.ndarray:
        """[k_i]·G for the generator G of ``group`` and (n, 4) canonical scalars k_i, as (n, 2, L) or (n, 2, 2, L)
        canonical affine limbs (the identity as zeros): the points of a Groth16 setup."""
        ...

    def generator_bases(
        self, curve: CurveLike, group: str, scalars: np.ndarray, *, uses: int | None = None
    ) -> PreparedBases:
        """A backend that also has PREPARED_BASES: ``prepare_bases(generator_multiples(...), uses=uses)``, made
        where the bases stay (on a device, the points never cross to the host): a large key's queries as made."""
        ...


@runtime_checkable
class SupportsMontgomeryForm(Protocol):
    """Capability MONTGOMERY_FORM: values as iden3 files (.zkey, .ptau) store them, the little-endian words of
    a·R mod p with R = 2^(64·L) for L-limb p, made canonical in bulk."""

    def points_from_montgomery(
        self, curve: CurveLike, group: str, stored: np.ndarray, *, check: bool = True
    ) -> tuple[np.ndarray, int, str]:
        """Points as a file stores them, (n, point bytes) uint8 (G1: x‖y, G2: x.c0‖x.c1‖y.c0‖y.c1, each coordinate
        L little-endian words; all zero for the point at infinity) → (their canonical limbs (n, 2, L) or
        (n, 2, 2, L), the index of the first bad point or −1, what is wrong with it or ""). A point is bad when a
        coordinate is not below q or, with ``check``, when it is not on the curve (the subgroup is not checked)."""
        ...

    def scalars_from_montgomery(self, curve: CurveLike, stored: np.ndarray, reductions: int) -> tuple[np.ndarray, int]:
        """Fr values stored as (n, 4) uint64 words → (v·R^(−reductions) mod r as canonical limbs, the index of the
        first value not below r or −1): a .zkey's coefficients are stored as c·R², ``reductions`` 2 gives c."""
        ...

    def field_to_montgomery(
        self, curve: CurveLike, field: FieldName, values: np.ndarray, powers: int = 1
    ) -> np.ndarray:
        """The way back, for writing such files: (n, N) canonical limbs of Fr (N = 4) or Fq (N = L) → the words of
        v·R^powers mod p, (n, N) uint64 (a point's coordinates: 1; a .zkey's coefficients: 2); zero stays zero."""
        ...


@runtime_checkable
class SupportsPairing(Protocol):
    """Capability PAIRING."""

    def pairing_check(self, curve: CurveLike, g1: np.ndarray, g2: np.ndarray) -> bool:
        """Whether Π e(g1[i], g2[i]) = 1 for G1 points (k, 2, L) and G2 points (k, 2, 2, L), exactly as the
        reference's ``pairing_check``; the points are trusted to be on the curve and in their subgroups."""
        ...


@runtime_checkable
class SupportsPointNtt(Protocol):
    """Capability POINT_NTT."""

    def point_ntt(
        self, curve: CurveLike, group: str, points: np.ndarray, omega: int, *, inverse: bool = False
    ) -> np.ndarray:
        """The NTT over points, exactly as :func:`cuzk.reference.point_ntt.point_ntt`: for n points of ``group``
        ((n, 2, L) or (n, 2, 2, L) canonical affine limbs, the identity as zeros; n a power of two) and ω (an int) a
        primitive n-th root of unity of Fr, Q_i = Σ_j [ω^(ij)] P_j; ``inverse``: P_j = [n⁻¹] Σ_i [ω^(−ij)] Q_i.
        The points are trusted to be on the curve (a ptau's Lagrange bases: ``prepare phase2``)."""
        ...


@runtime_checkable
class SupportsRowSums(Protocol):
    """Capability ROW_SUMS."""

    def row_sums(
        self,
        curve: CurveLike,
        group: str,
        points: np.ndarray,
        indptr: np.ndarray,
        index: np.ndarray,
        scalars: np.ndarray,
    ) -> np.ndarray:
        """Many MSMs of a few terms over one table: for each row r, Σ_t [scalars[t]]·points[index[t]] over its terms
        t = indptr[r] … indptr[r + 1] − 1, as (rows, 2, L) or (rows, 2, 2, L) canonical affine limbs (an empty row,
        the identity: zeros). ``points`` (n, 2, L) or (n, 2, 2, L) canonical affine limbs of ``group`` (the identity
        as zeros), trusted to be on the curve; ``index`` int64 into them; ``scalars`` (terms, 4) canonical Fr limbs.
        The result is each row's MSM bit for bit, whatever order the terms are added in: a setup's sums of
        Lagrange points by the circuit's coefficients, without a call or an array per row."""
        ...


@runtime_checkable
class SupportsStoredPointNtt(Protocol):
    """Capability STORED_POINT_NTT (with POINT_NTT): the NTT over points as a .ptau stores them."""

    def point_ntt_stored(
        self, curve: CurveLike, group: str, stored: np.ndarray, omega: int, *, inverse: bool = False
    ) -> tuple[np.ndarray | None, int]:
        """:meth:`SupportsPointNtt.point_ntt` of points in a file's stored form ((n, point bytes) uint8 rows as
        :meth:`SupportsMontgomeryForm.points_from_montgomery` reads them: affine coordinates in Montgomery form,
        R = 2^(64·L), the point at infinity all zeros), the result in the same form and shape: a device's own form,
        so nothing is converted on the host (``prepare phase2``). Every input point is checked (coordinates below
        q, on the curve, the subgroup not checked). Returns (the result, −1), or (None, the index of the first bad
        point)."""
        ...


__all__ = [
    "SupportsFieldOps",
    "SupportsFixedBase",
    "SupportsMontgomeryForm",
    "SupportsPairing",
    "SupportsPointNtt",
    "SupportsRowSums",
    "SupportsSparse",
    "SupportsStoredPointNtt",
]
