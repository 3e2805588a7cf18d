"""One MSM's scalars from host memory uploaded in two chunks (the second while the first's kernels run): the chunks'
bucket sums accumulate in one table and one reduction ends the MSM, over plain and over shifted resident bases.
Forced here by ``pipeline_from`` on every device backend (by default only where uploads overlap the kernels)."""

from __future__ import annotations

import random
from typing import Any

import numpy as np
import pytest

from cuzk.backends.gpu import msm as msm_device
from cuzk.backends.gpu.backend import DeviceBackend
from cuzk.reference.curves import Curve

from .test_gpu import REFERENCE, backend, bases_of, fresh, scalars_of

__all__ = ["backend"]  # the fixture, parametrized over the device backends


@pytest.fixture
def chunk_kinds(monkeypatch: pytest.MonkeyPatch) -> list[bool]:
    """The ``later`` flag of every accumulate call (one per chunk), in order."""
    seen: list[bool] = []
    original = msm_device.accumulate

    def recording(*args: Any, later: bool = False, **kwargs: Any) -> None:
        seen.append(later)
        original(*args, later=later, **kwargs)

    monkeypatch.setattr(msm_device, "accumulate", recording)
    return seen


@pytest.mark.parametrize("shifted", [False, True])
@pytest.mark.parametrize(("group", "n"), [("g1", 4), ("g1", 5), ("g1", 257), ("g2", 33)])
def test_an_msm_uploaded_in_two_chunks_equals_the_reference(
    backend: DeviceBackend, curve: Curve, group: str, n: int, shifted: bool, chunk_kinds: list[bool], rng: random.Random
) -> None:
    piped = fresh(backend, pipeline_from=4, shifted_bases=shifted)
    bases = bases_of(curve, group, n)
    scalars = scalars_of(curve, [rng.randrange(curve.r) for _ in range(n)])
    expected = REFERENCE.msm(curve, group, bases, scalars)
    handle = piped.prepare_bases(curve, group, bases)
    assert (handle.payload.shift is not None) == shifted  # the merged job (one bucket row) when shifted
    np.testing.assert_array_equal(piped.msm_prepared(handle, scalars), expected)
    assert chunk_kinds == [False, True]
    np.testing.assert_array_equal(piped.msm(curve, group, bases, scalars), expected)  # bases staged per chunk
    assert chunk_kinds == [False, True, False, True]


def test_below_pipeline_from_and_for_kept_scalars_one_chunk(
    backend: DeviceBackend, curve: Curve, chunk_kinds: list[bool], rng: random.Random
) -> None:
    piped = fresh(backend, pipeline_from=64)
    bases = bases_of(curve, "g1", 100)
    scalars = scalars_of(curve, [rng.randrange(curve.r) for _ in range(100)])
    handle, small = piped.prepare_bases(curve, "g1", bases), piped.prepare_bases(curve, "g1", bases[:63])
    expected = REFERENCE.msm(curve, "g1", bases, scalars)
    np.testing.assert_array_equal(
        piped.msm_prepared(small, scalars[:63]), REFERENCE.msm(curve, "g1", bases[:63], scalars[:63])
    )
    np.testing.assert_array_equal(piped.msm_prepared(handle, piped.keep_scalars(curve, scalars)), expected)
    assert chunk_kinds == [False, False]  # 63 < 64 points, then scalars already on the device
