"""Section 4 of a .zkey: the non-zero entries of the QAP's A and B matrices, as snarkjs stores them."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np

from cuzk.backends import limbs
from cuzk.backends.pieces import over_pieces
from cuzk.backends.protocol import Backend
from cuzk.formats.montgomery import MontgomeryField, from_montgomery, to_montgomery
from cuzk.reference.curves import Curve

FR_BYTES = 8 * limbs.FR_LIMBS  # n8r: r is below 2^256 on both curves, so R = 2^256 for Fr
SPLIT_ROWS = 1 << 18  # terms per piece of the records' split, spread over threads (a key: millions of terms)


def split_records(raw: np.ndarray, n8r: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(matrix, constraint, signal, stored) of section 4's records as the file lays them out (``raw``: one row of
    12 + n8r bytes per term: three u32, then the value's n8r bytes): the u32 as int64, the values as (T, n8r/8)
    uint64 words. Each field is read out of the records once, by pieces of rows on threads (numpy lets go of the
    GIL while it copies, and a strided copy is bound by one core: a key's records are hundreds of megabytes)."""
    record = np.dtype(
        {
            "names": ["matrix", "constraint", "signal", "value"],
            "itemsize": 12 + n8r,
            "formats": ["<u4", "<u4", "<u4", ("<u8", (n8r // 8,))],
            "offsets": [0, 4, 8, 12],
        }
    )
    terms = np.ascontiguousarray(raw).reshape(-1).view(record)  # no copy of a file's mapped section
    count = len(terms)
    words = np.empty((count, n8r // 8), dtype=np.uint64)
    columns = [np.empty(count, dtype=np.int64) for _ in range(3)]

    def split(start: int, stop: int) -> None:
        piece = terms[start:stop]
        for name, out in zip(("matrix", "constraint", "signal"), columns, strict=True):
            out[start:stop] = piece[name]
        words[start:stop] = piece["value"]

    over_pieces(count, SPLIT_ROWS, split)
    matrix, constraint, signal = columns
    return matrix, constraint, signal, words


@dataclass(frozen=True)
class Coefficients:
    """Section 4: the non-zero entries of the QAP's A and B matrices, values as stored (c·R² mod r).

    The stored form is kept, so loading converts nothing; :attr:`values` gives the coefficients themselves,
    computed on demand (vectorised: two Montgomery reductions), or at once by a host backend (:meth:`decoded_on`).
    """

    matrix: np.ndarray  # int64 (T,): 0 = A, 1 = B
    constraint: np.ndarray  # int64 (T,): the row
    signal: np.ndarray  # int64 (T,): the column of z
    stored: np.ndarray  # uint64 (T, 4): c·R² mod r, canonical limbs
    modulus: int  # r

    def __len__(self) -> int:
        return int(self.matrix.shape[0])

    @cached_property
    def values(self) -> np.ndarray:
        """(T, 4) canonical limbs of the coefficients c (two Montgomery reductions of the stored values)."""
        fr = MontgomeryField(self.modulus, FR_BYTES)
        once = from_montgomery(fr, self.stored.view(np.uint8).reshape(len(self), FR_BYTES))  # c·R
        return from_montgomery(fr, once.view(np.uint8).reshape(len(self), FR_BYTES))

    @cached_property
    def nonzero(self) -> np.ndarray:
        """Per term, whether its coefficient is not zero (c = 0 exactly when c·R² = 0)."""
        return limbs.nonzero_rows(self.stored)

    def decoded_on(self, host: Backend, curve: Curve) -> Coefficients:
        """These coefficients with :attr:`values` computed by ``host``'s MONTGOMERY_FORM (on every core)."""
        values, bad = host.scalars_from_montgomery(curve, self.stored, 2)
        if bad >= 0:
            raise ValueError(f"coefficient {bad} is not reduced modulo r")  # the reader checked them all before
        self.__dict__["values"] = values  # what the cached property would compute
        return self

    @classmethod
    def from_values(
        cls,
        matrix: np.ndarray,
        constraint: np.ndarray,
        signal: np.ndarray,
        values: np.ndarray,
        modulus: int,
        *,
        host: tuple[Backend, Curve] | None = None,
    ) -> Coefficients:
        """From the coefficients themselves (canonical limbs), storing each as c·R² mod r: by ``host``'s
        MONTGOMERY_FORM (a backend and the curve of r) when given, else by numpy (the oracle)."""
        if host is not None:
            backend, curve = host
            stored = backend.field_to_montgomery(curve, "fr", values, 2)  # type: ignore[attr-defined]
            return cls(matrix, constraint, signal, stored, modulus)
        fr = MontgomeryField(modulus, FR_BYTES)
        once = to_montgomery(fr, values)
        stored = to_montgomery(fr, once.view("<u8").reshape(len(matrix), 4).astype(np.uint64))
        return cls(matrix, constraint, signal, stored.view("<u8").reshape(len(matrix), 4).astype(np.uint64), modulus)


__all__ = ["FR_BYTES", "Coefficients", "split_records"]
