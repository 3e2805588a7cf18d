"""A point section left as the file stores it: :class:`StoredTable`, a :class:`~cuzk.formats.points.PointTable`
whose limbs are decoded (and checked) only when something asks for them.

snarkjs stores a point's coordinates in Montgomery form with R = 2^(64·L), which is the form a GPU backend keeps its
bases in: a backend with STORED_BASES takes :attr:`StoredTable.stored` (the memory-mapped rows) as it is and checks
the points on the device, so a proof on it decodes nothing on the host. Anything else (the cpu backend, the
reference, a G2 query on the host) reads :attr:`StoredTable.limbs` and gets the decoded table, checked as an eager
read checks it, with the same error naming the point's offset in the file.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import overload

import numpy as np

from cuzk.backends import limbs
from cuzk.backends.protocol import Backend
from cuzk.formats.points import PointDecoder, PointTable, decode_table
from cuzk.reference.curves import Curve, Point

Locate = Callable[[int, str], Exception]  # (index in the file's section, problem) → the error to raise


class StoredTable(PointTable):
    """Rows of ``stored`` ((n, point bytes) uint8, a section's words), decoded on first use of :attr:`limbs` (on
    ``host``'s MONTGOMERY_FORM kernels when given, else numpy; checked with ``check``). ``locate`` makes the error of
    a bad point from its index in the file; ``origins`` maps a row to that index once rows were moved (H's
    permutation on BLS12-381) or sliced."""

    def __init__(
        self,
        curve: Curve,
        group: str,
        stored: np.ndarray,
        locate: Locate,
        *,
        check: bool = True,
        host: Backend | None = None,
        origins: np.ndarray | None = None,
    ) -> None:
        self.curve, self.group, self.stored = curve, group, stored
        self.check, self._locate, self._host, self._origins = check, locate, host, origins
        self._limbs: np.ndarray | None = None

    @property
    def limbs(self) -> np.ndarray:  # type: ignore[override]
        """The canonical limbs, decoded (and checked) at the first call: InvalidPointError for a bad point."""
        return self.decoded(self._host)

    def decoded(self, host: Backend | None) -> np.ndarray:
        """:attr:`limbs`, decoded by ``host``'s MONTGOMERY_FORM kernels (None: numpy) if not decoded yet: the
        backend that is to use the points can decode them itself."""
        if self._limbs is None:
            array, bad = decode_table(PointDecoder(self.curve, self.group), self.stored, check=self.check, host=host)
            if bad is not None:
                raise self._located(bad.index, bad.problem)
            self._limbs = array
        return self._limbs

    def bad_point(self, row: int) -> Exception:
        """The error for row ``row``, found bad elsewhere (on a device): its problem told again by the decoder."""
        return self._located(row, PointDecoder(self.curve, self.group).problem(self.stored[row : row + 1]))

    def _located(self, row: int, problem: str) -> Exception:
        return self._locate(row if self._origins is None else int(self._origins[row]), problem)

    def __len__(self) -> int:
        return int(self.stored.shape[0])

    @overload
    def __getitem__(self, index: int) -> Point: ...
    @overload
    def __getitem__(self, index: slice) -> PointTable: ...
    def __getitem__(self, index: int | slice) -> Point | PointTable:
        if not isinstance(index, slice):
            return super().__getitem__(index)
        return self._with(self.stored[index], self._rows()[index])

    def scattered(self, positions: np.ndarray) -> StoredTable:
        if np.array_equal(positions, np.arange(len(self))):
            return self  # the identity (BN254's domain order): no copy of the section
        out = limbs.scatter_rows(self.stored, positions)
        origins = limbs.scatter_rows(self._rows(), positions)
        return StoredTable(
            self.curve, self.group, out, self._locate, check=self.check, host=self._host, origins=origins
        )

    def infinity_mask(self) -> np.ndarray:
        """Per point, whether it is stored as all zeros (the point at infinity), read from the words."""
        rows = self.stored
        if rows.shape[1] % 8 == 0 and rows.flags.c_contiguous:
            rows = rows.view(np.uint64)
        return ~limbs.nonzero_rows(rows)

    def _with(self, stored: np.ndarray, origins: np.ndarray) -> StoredTable:
        options = {"check": self.check, "host": self._host, "origins": origins}
        return StoredTable(self.curve, self.group, stored, self._locate, **options)  # type: ignore[arg-type]

    def _rows(self) -> np.ndarray:
        return np.arange(len(self), dtype=np.int64) if self._origins is None else self._origins

    def __repr__(self) -> str:
        decoded = "decoded" if self._limbs is not None else "stored"
        return f"StoredTable({self.curve.name} {self.group}, {len(self)} points, {decoded})"


__all__ = ["Locate", "StoredTable"]
