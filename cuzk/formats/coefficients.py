"""Section 4 of a .zkey: the non-zero entries of the QAP's A and B matrices, as snarkjs stores them."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np

from cuzk.backends import limbs
from cuzk.backends.protocol import Backend
from cuzk.formats.montgomery import MontgomeryField, from_montgomery, to_montgomery
from cuzk.reference.curves import Curve

FR_BYTES = 8 * limbs.FR_LIMBS  # n8r: r is below 2^256 on both curves, so R = 2^256 for Fr


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
        cls, matrix: np.ndarray, constraint: np.ndarray, signal: np.ndarray, values: np.ndarray, modulus: int
    ) -> Coefficients:
        """From the coefficients themselves (canonical limbs), storing each as c·R² mod r."""
        fr = MontgomeryField(modulus, FR_BYTES)
        once = to_montgomery(fr, values)
        stored = to_montgomery(fr, once.view("<u8").reshape(len(matrix), 4).astype(np.uint64))
        return cls(matrix, constraint, signal, stored.view("<u8").reshape(len(matrix), 4).astype(np.uint64), modulus)


__all__ = ["FR_BYTES", "Coefficients"]
