"""Fixed-base scalar multiplication: many multiples [k_i]G of one point G, as a Groth16 setup needs.

Write k in base 2^w, k = Σ_t d_t·2^(w·t), and precompute T[t][d] = [d·2^(w·t)]G once. Then [k]G = Σ_t T[t][d_t]
costs ⌈b/w⌉ additions and no doublings, against b doublings and b/2 additions for double-and-add. The table
costs ⌈b/w⌉·2^w additions, repaid after a few dozen multiplications (Brickell et al., "Fast exponentiation with
precomputation", EUROCRYPT 1992, in its simplest form). :meth:`Point.__mul__` is the oracle it is tested against.
"""

from __future__ import annotations

from typing import Any


class FixedBaseTable:
    """T[t][d] = [d·2^(w·t)]G for every window t of a scalar of the group's order and every digit d < 2^w."""

    def __init__(self, base: Any, window: int = 6) -> None:
        self.group, self.window = base.group, window
        windows = -(-base.group.order.bit_length() // window)
        self.table: list[list[Any]] = []
        shifted = base
        for _ in range(windows):
            row = [base.group.identity()]
            for _ in range((1 << window) - 1):
                row.append(row[-1] + shifted)
            self.table.append(row)
            shifted = row[-1] + shifted  # [2^w]·shifted
        self.mask = (1 << window) - 1

    def mul(self, k: Any) -> Any:
        """[k]G, with k an int or an element of the scalar field (read modulo r, as Point.__mul__ does)."""
        k = (k.value if hasattr(k, "value") else int(k)) % self.group.order
        result = self.group.identity()
        for row in self.table:
            if k == 0:
                break
            result = result + row[k & self.mask]
            k >>= self.window
        return result
