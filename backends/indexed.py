"""A sparse matrix's coefficients by index into a table of values: what ``prepare_sparse`` takes beside plain limbs.

A circuit's coefficients are mostly 1 and −1. A table that holds those two, then the value of every other term, and
a 4-byte index per term stand for the coefficients in far less memory than 32 bytes a term. A .zkey's A and B come
from one section of the key: its terms are classified once (:func:`classify`), then each matrix's table holds only
its own terms' values (:func:`palette` with ``terms``), gathered once. A device keeps the coefficients so
(``backends/kernels/sparse.c`` reads a term's value through its index); a host backend expands them into limbs
(:meth:`IndexedCoefficients.expanded`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from cuzk.backends.errors import BackendInputError
from cuzk.backends.limbs import FR_LIMBS, check_scalars, int_to_limbs, take_rows
from cuzk.backends.pieces import over_pieces
from cuzk.reference.curves import Curve

PALETTE_ROWS = 1 << 18  # terms per piece of the classification, spread over threads
COMMON = 2  # the common values every table starts with: 1 and −1


@dataclass(frozen=True)
class IndexedCoefficients:
    """Term j's coefficient is ``table[index[j]]``: ``table`` (K, 4) canonical Fr limbs (in whatever form the
    caller's ``reductions`` says), ``index`` (T,) uint32, each below K."""

    table: np.ndarray
    index: np.ndarray

    def __len__(self) -> int:
        return len(self.index)

    def expanded(self) -> np.ndarray:
        """The (T, 4) limbs of every term's coefficient."""
        return take_rows(self.table, self.index)

    def take(self, terms: slice | np.ndarray) -> IndexedCoefficients:
        """The coefficients of ``terms`` (a slice, or indices of terms), over the same table."""
        return IndexedCoefficients(self.table, self.index[terms])


def check_indexed(curve: Curve, coefficients: IndexedCoefficients) -> None:
    """The table's limbs canonical (NonCanonicalInputError naming the row) and every index a row of it
    (BackendInputError), as ``prepare_sparse`` checks plain coefficients."""
    check_scalars(curve, coefficients.table, "coefficients")
    index = coefficients.index
    if index.ndim != 1 or index.dtype.kind != "u":
        raise BackendInputError(
            f"must be a 1-D array of unsigned integers, got {index.dtype} {index.shape}", array="index"
        )
    if len(index) and int(index.max()) >= len(coefficients.table):
        raise BackendInputError(
            f"an index names row {int(index.max())} of a table of {len(coefficients.table)}", array="index"
        )


def _equal_rows(values: np.ndarray, value: np.ndarray) -> np.ndarray:
    """Which rows of ``values`` (words) are ``value``, limb by limb (faster than comparing whole rows, and than
    gathering the rows whose first limb matches: most of a circuit's terms are 1 or −1)."""
    same = values[:, 0] == value[0]
    for limb in range(1, len(value)):
        same &= values[:, limb] == value[limb]
    return same


def common_values(curve: Curve, reductions: int = 0) -> np.ndarray:
    """1 and −1 as (2, 4) limbs of c·R^reductions (R = 2^256): the first two rows of every table."""
    scale = pow(2, 64 * FR_LIMBS * reductions, curve.r)
    return np.stack([int_to_limbs(v * scale % curve.r, FR_LIMBS) for v in (1, curve.r - 1)])


def classify(curve: Curve, values: np.ndarray, reductions: int = 0) -> np.ndarray:
    """Per term of ``values`` ((T, 4) canonical words of c·R^reductions), uint8: 0 for 1, 1 for −1, 2 for any other
    value; by pieces of rows on threads (numpy lets go of the GIL: a key has millions of terms)."""
    common = common_values(curve, reductions)
    codes = np.empty(len(values), dtype=np.uint8)

    def piece(start: int, stop: int) -> None:
        rows, code = values[start:stop], codes[start:stop]
        code[...] = COMMON
        for k, value in enumerate(common):
            code[_equal_rows(rows, value)] = k

    over_pieces(len(values), PALETTE_ROWS, piece)
    return codes


def palette(
    curve: Curve,
    values: np.ndarray,
    reductions: int = 0,
    *,
    terms: slice | np.ndarray | None = None,
    codes: np.ndarray | None = None,
) -> IndexedCoefficients:
    """The coefficients ``values[terms]`` (all by default; ``values`` (T, 4) canonical words of c·R^reductions) by
    index into a table of their own: 1 and −1 in that form, then the value of every other term, in the terms'
    order. ``codes``: :func:`classify`'s of all ``values``, when made already (one pass for several matrices of one
    key's terms); only the terms of values of their own are gathered, as whole 32-byte rows."""
    if codes is None:
        codes = classify(curve, values, reductions)
    if terms is None:
        terms = slice(0, len(values))
    code = codes[terms]
    own = np.flatnonzero(code == COMMON)
    index = code.astype(np.uint32)
    index[own] = np.arange(COMMON, COMMON + len(own), dtype=np.uint32)
    rows = own + (terms.start or 0) if isinstance(terms, slice) else terms[own]
    table = np.concatenate([common_values(curve, reductions), take_rows(values, rows)])
    return IndexedCoefficients(table, index)


__all__ = ["IndexedCoefficients", "check_indexed", "classify", "common_values", "palette"]
