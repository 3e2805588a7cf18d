"""The device backends leave the canonical check of an MSM's scalars to the MSM's histogram kernel
(``MSM_CHECKS_SCALARS``): a scalar ≥ r must still be refused with the error, array name and row the host's check
gives, on every path into the kernels (one chunk, many chunks, a batch), and the backend must stay usable."""

from __future__ import annotations

import random
from collections.abc import Callable

import numpy as np
import pytest

from cuzk.backends import limbs
from cuzk.backends.errors import NonCanonicalInputError
from cuzk.backends.gpu.backend import DeviceBackend
from cuzk.reference.curves import Curve

from .test_gpu import REFERENCE, backend, bases_of, fresh, scalars_of

__all__ = ["backend"]  # the fixture, parametrized over the device backends

N, BAD_ROW = 40, 29


def calls(backend: DeviceBackend, curve: Curve, bases: np.ndarray) -> dict[str, Callable[[np.ndarray], np.ndarray]]:
    """The MSM entry points, each as scalars → result, and the array name its error must give."""
    chunked = fresh(backend, max_chunk=16)
    return {
        "msm": lambda s: backend.msm(curve, "g1", bases, s),
        "msm_prepared": lambda s: backend.msm_prepared(backend.prepare_bases(curve, "g1", bases), s),
        "msm_prepared_chunked": lambda s: chunked.msm_prepared(chunked.prepare_bases(curve, "g1", bases), s),
        "msm_batch": lambda s: backend.msm_batch(curve, "g1", [bases, bases], [s[::-1].copy(), s])[1],
    }


@pytest.mark.parametrize("entry", ["msm", "msm_prepared", "msm_prepared_chunked", "msm_batch"])
@pytest.mark.parametrize("value", ["r", "r+1", "2^256-1"])
def test_a_scalar_not_below_r_is_refused_by_the_msm(
    backend: DeviceBackend, curve: Curve, entry: str, value: str, rng: random.Random
) -> None:
    assert backend.MSM_CHECKS_SCALARS
    bases = bases_of(curve, "g1", N)
    good = scalars_of(curve, [rng.randrange(curve.r) for _ in range(N)])
    bad = good.copy()
    bad[BAD_ROW] = limbs.int_to_limbs({"r": curve.r, "r+1": curve.r + 1, "2^256-1": (1 << 256) - 1}[value], 4)
    call = calls(backend, curve, bases)[entry]
    with pytest.raises(NonCanonicalInputError, match="≥ r") as err:
        call(bad)
    # msm_batch's second array is `bad` itself; its first (reversed) holds the value at row N − 1 − BAD_ROW
    name, row = ("scalars[0]", N - 1 - BAD_ROW) if entry == "msm_batch" else ("scalars", BAD_ROW)
    assert (err.value.array, err.value.row) == (name, row)
    np.testing.assert_array_equal(call(good), REFERENCE.msm(curve, "g1", bases, good))  # the backend goes on
