"""The pieces of :mod:`cuzk.backends.split` that need no backend: the host's sum of an MSM's partial sums and
the warm-up of several devices waited for as one."""

from __future__ import annotations

import numpy as np

from cuzk.backends import limbs
from cuzk.backends.capabilities import WarmUp
from cuzk.reference.curves import Curve


class SplitWarmUp(WarmUp):
    """The warm-ups of every device, waited for together."""

    def __init__(self, parts: list[WarmUp]) -> None:
        super().__init__()
        self.parts = parts
        self.started = any(part.started for part in parts)

    def wait(self, timeout: float | None = None) -> bool:
        ready = all([part.wait(timeout) for part in self.parts])
        self.failures = [failure for part in self.parts for failure in part.failures]
        return ready

    def close(self) -> None:
        for part in self.parts:
            part.close()


def sum_points(curve: Curve, group: str, sums: list[np.ndarray]) -> np.ndarray:
    """The sum of an MSM's partial sums (affine limbs), on the host."""
    if len(sums) == 1:
        return sums[0]
    points = limbs.limbs_to_points(curve, group, np.stack(sums))
    total = points[0]
    for point in points[1:]:
        total = total + point
    return limbs.point_to_limbs(curve, group, total)


__all__ = ["SplitWarmUp", "sum_points"]
